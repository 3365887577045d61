/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef VF_PRIV_H
#define VF_PRIV_H

/*
 * The verbs front: a stand-in for libibverbs.so.1 that answers an MRC
 * program's verbs calls with mrcd's hosts as devices (doc/sdk.md). It is
 * lib_mrc's other half: the contexts, PDs and MRs it returns are lib_mrc's
 * (mrc_sw_*), so the mrc_* calls accept them.
 */

#include <errno.h>
#include <infiniband/verbs.h>

/* verbs.h makes these macros over inlines; the front defines the symbols themselves. */
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova
#undef ibv_get_device_list

/* The port's GID table: every entry is the host's address, a RoCEv2 GID. */
#define VF_GID_TBL_LEN 4

/* The public names Debian's libibverbs exports that no public header declares. */
void ibv_copy_ah_attr_from_kern(void *dst, const void *src);
void ibv_copy_path_rec_from_kern(void *dst, const void *src);
void ibv_copy_path_rec_to_kern(void *dst, const void *src);
void ibv_copy_qp_attr_from_kern(void *dst, const void *src);
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
const char *ibv_get_sysfs_path(void);
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size);

/* The query_port op set in each context (verbs.h's ibv_query_port inline calls it). */
int vf_query_port_op(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr, size_t len);

/*
 * The names Debian's library has in two versions (name@IBVERBS_1.0 for the
 * 1.0 ABI, name@@IBVERBS_1.1 the default): the front defines the default as
 * vf_<name>, declared here of the type verbs.h gives <name>, and binds it
 * with VF_DEFAULT; vf_compat.c
 * binds the old one.
 */
#define VF_DEFAULT(name) __asm__(".symver vf_" #name ", " #name "@@IBVERBS_1.1");
#define VF_DECL(name)	 __typeof__(name) vf_##name;
VF_DECL(ibv_ack_async_event)
VF_DECL(ibv_ack_cq_events)
VF_DECL(ibv_alloc_pd)
VF_DECL(ibv_attach_mcast)
VF_DECL(ibv_close_device)
VF_DECL(ibv_create_ah)
VF_DECL(ibv_create_cq)
VF_DECL(ibv_create_qp)
VF_DECL(ibv_create_srq)
VF_DECL(ibv_dealloc_pd)
VF_DECL(ibv_dereg_mr)
VF_DECL(ibv_destroy_ah)
VF_DECL(ibv_destroy_cq)
VF_DECL(ibv_destroy_qp)
VF_DECL(ibv_destroy_srq)
VF_DECL(ibv_detach_mcast)
VF_DECL(ibv_free_device_list)
VF_DECL(ibv_get_async_event)
VF_DECL(ibv_get_cq_event)
VF_DECL(ibv_get_device_guid)
VF_DECL(ibv_get_device_list)
VF_DECL(ibv_get_device_name)
VF_DECL(ibv_modify_qp)
VF_DECL(ibv_modify_srq)
VF_DECL(ibv_open_device)
VF_DECL(ibv_query_device)
VF_DECL(ibv_query_gid)
VF_DECL(ibv_query_pkey)
VF_DECL(ibv_query_port)
VF_DECL(ibv_query_qp)
VF_DECL(ibv_query_srq)
VF_DECL(ibv_reg_mr)
VF_DECL(ibv_resize_cq)

/* Fail the way verbs does: errno set, and the errno value or NULL returned. */
#define VF_ENOSYS_INT()         \
	do {                    \
		errno = ENOSYS; \
		return ENOSYS;  \
	} while (0)
#define VF_ENOSYS_PTR()         \
	do {                    \
		errno = ENOSYS; \
		return NULL;    \
	} while (0)

#endif /* VF_PRIV_H */
