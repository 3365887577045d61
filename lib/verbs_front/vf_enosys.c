/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The public verbs the front does not implement: an MRC program makes its
 * CQs and QPs with mrc_* calls, so these fail with ENOSYS the way each
 * reports errors (the errno value, NULL, or -1; errno set in every case).
 * They exist so that a program importing them starts.
 */

#include "vf_priv.h"

void
vf_ibv_ack_async_event(struct ibv_async_event *event)
{
}
VF_DEFAULT(ibv_ack_async_event)

void
vf_ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
}
VF_DEFAULT(ibv_ack_cq_events)

int
vf_ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	errno = ENOSYS;
	return -1;
}
VF_DEFAULT(ibv_get_async_event)

int
vf_ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	errno = ENOSYS;
	return -1;
}
VF_DEFAULT(ibv_get_cq_event)

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *context)
{
	VF_ENOSYS_PTR();
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	VF_ENOSYS_INT();
}

struct ibv_cq *
vf_ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	struct ibv_comp_channel *channel, int comp_vector)
{
	VF_ENOSYS_PTR();
}
VF_DEFAULT(ibv_create_cq)

int
vf_ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_resize_cq)

int
vf_ibv_destroy_cq(struct ibv_cq *cq)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_destroy_cq)

struct ibv_qp *
vf_ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	VF_ENOSYS_PTR();
}
VF_DEFAULT(ibv_create_qp)

int
vf_ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_modify_qp)

int
vf_ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
	struct ibv_qp_init_attr *init_attr)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_query_qp)

int
vf_ibv_destroy_qp(struct ibv_qp *qp)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_destroy_qp)

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	VF_ENOSYS_PTR();
}

int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	errno = ENOSYS;
	return 0; /* a set of flags: none is "not in order" */
}

int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	VF_ENOSYS_INT();
}

int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	VF_ENOSYS_INT();
}

struct ibv_srq *
vf_ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)
{
	VF_ENOSYS_PTR();
}
VF_DEFAULT(ibv_create_srq)

int
vf_ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_modify_srq)

int
vf_ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_query_srq)

int
vf_ibv_destroy_srq(struct ibv_srq *srq)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_destroy_srq)

struct ibv_ah *
vf_ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	VF_ENOSYS_PTR();
}
VF_DEFAULT(ibv_create_ah)

struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh, uint8_t port_num)
{
	VF_ENOSYS_PTR();
}

int
ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,
	struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)
{
	VF_ENOSYS_INT();
}

int
vf_ibv_destroy_ah(struct ibv_ah *ah)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_destroy_ah)

int
ibv_resolve_eth_l2_from_gid(struct ibv_context *context, struct ibv_ah_attr *attr,
	uint8_t eth_mac[ETHERNET_LL_SIZE], uint16_t *vid)
{
	VF_ENOSYS_INT();
}

int
vf_ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_attach_mcast)

int
vf_ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	VF_ENOSYS_INT();
}
VF_DEFAULT(ibv_detach_mcast)

struct ibv_context *
ibv_import_device(int cmd_fd)
{
	VF_ENOSYS_PTR();
}

struct ibv_pd *
ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	VF_ENOSYS_PTR();
}

void
ibv_unimport_pd(struct ibv_pd *pd)
{
}

struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	VF_ENOSYS_PTR();
}

void
ibv_unimport_mr(struct ibv_mr *mr)
{
}

struct ibv_dm *
ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	VF_ENOSYS_PTR();
}

void
ibv_unimport_dm(struct ibv_dm *dm)
{
}

/* The kernel ABI copies and sysfs helpers: there is no kernel device under the front. */
void
ibv_copy_ah_attr_from_kern(void *dst, const void *src)
{
}

void
ibv_copy_path_rec_from_kern(void *dst, const void *src)
{
}

void
ibv_copy_path_rec_to_kern(void *dst, const void *src)
{
}

void
ibv_copy_qp_attr_from_kern(void *dst, const void *src)
{
}

const char *
ibv_get_sysfs_path(void)
{
	VF_ENOSYS_PTR();
}

int
ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size)
{
	errno = ENOSYS;
	return -1;
}
