/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_H
#define MRC_H

/*
 * The MRC application API (OCP MRC API 1.0.1) as lib_mrc, mrcd's software
 * MRC, implements it: the names, types, values and field order programs
 * written for MRC NICs compile and link against, written for mrcd from the
 * interface facts (doc/applications.md says what each call does here and
 * what is not done yet). Devices, protection domains and memory are verbs
 * objects; until mrcd's verbs front exists, a program gets them from the
 * mrc_sw_* calls at the end of this file.
 */

#include <stdint.h>

#include <infiniband/verbs.h>
#include <mrc_api_ver.h>

#ifdef __cplusplus
extern "C" {
#endif

struct mrc_context;
struct mrc_qp_hint;
struct mrc_qp;
struct mrc_cq;
struct mrc_comp_channel;

#define MRC_MAX_VENDOR_CFG_SIZE 128

enum mrc_protocol_version {
	MRC_PROTOCOL_VERSION_0 = 0, /* whatever the provider uses by default */
	MRC_PROTOCOL_VERSION_1 = 1 << 0,
};

enum mrc_device_cap {
	MRC_DEVICE_CAP_TRIM_NACK = 1 << 0,
	MRC_DEVICE_CAP_DYNAMIC_MPR = 1 << 1,
	MRC_DEVICE_CAP_SVC_TIME = 1 << 2,
};

enum mrc_qp_hint_attr_mask {
	MRC_QP_HINT_NUM_QPS_PER_PEER = 1 << 0,
	MRC_QP_HINT_NUM_SEND_PEERS = 1 << 1,
	MRC_QP_HINT_NUM_REMOTE_RECV_PEERS = 1 << 2,
	MRC_QP_HINT_VENDOR_CFG = 1u << 31,
};

enum mrc_qp_attr_mask {
	MRC_QP_MAX_WIMM = 1 << 0,
	MRC_QP_MAX_WIMM_DEST = 1 << 1,
	MRC_QP_MPR = 1 << 2,
	MRC_QP_MPR_DEST = 1 << 3,
	MRC_QP_TIMEOUT = 1 << 4,
	MRC_QP_EV_PROFILE_ID = 1 << 5,
	MRC_QP_CC_PROFILE_ID = 1 << 6,
	MRC_QP_HINT = 1 << 7,
	MRC_QP_RETRY_CNT = 1 << 8,
	MRC_QP_CAP = 1 << 9,
	MRC_QP_VENDOR_CFG = 1u << 31,
};

enum mrc_qp_cap {
	MRC_QP_CAP_TRIM_NACK_DEST_UNSUPPORTED = 1 << 0,
	MRC_QP_CAP_DYNAMIC_MPR = 1 << 1,
	MRC_QP_CAP_SVC_TIME_DEST_UNSUPPORTED = 1 << 2,
};

struct mrc_device_attr {
	uint32_t mrc_protocol_version; /* wire versions supported, a bitmap */
	struct {
		uint16_t max_wimm;
		uint16_t max_wimm_dest;
	} wimm_attr;
	struct {
		uint8_t max_mpr;
		uint8_t mpr_resolution; /* x 128 PSNs */
	} mpr_attr;
	struct {
		uint32_t max_qp_hint;
	} qp_attr;
	uint32_t cap; /* enum mrc_device_cap */
};

struct mrc_context_attr {
	uint32_t mrc_api_version_used;
	uint32_t mrc_vendor_api_version_used; /* 0: the library picks */
};

struct mrc_qp_hint_attr {
	int num_qps_per_peer;
	int num_send_peers;
	int num_remote_recv_peers;
	uint8_t vendor_cfg[MRC_MAX_VENDOR_CFG_SIZE];
};

struct mrc_qp_hint_init_attr {
	struct mrc_qp_hint_attr attr;
};

struct mrc_qp_init_attr {
	void *qp_context;
	struct mrc_cq *send_cq;
	struct mrc_cq *recv_cq;
	struct ibv_qp_cap cap;
	int sq_sig_all;
	struct ibv_pd *pd;
	uint64_t send_ops_flags; /* enum ibv_qp_create_send_ops_flags */
	enum mrc_protocol_version protocol_version;
};

struct mrc_qp_attr {
	struct {
		uint8_t mpr;	  /* as requester, x 128 PSNs */
		uint8_t mpr_dest; /* as responder */
	} mpr;
	struct {
		uint16_t max_wimm;	/* Write-with-immediate in flight as requester */
		uint16_t max_wimm_dest; /* ... as responder */
	} wimm;
	uint8_t timeout; /* 1.024 us x 2^timeout, <= 24 */
	struct {
		uint64_t ev_profile_id;
		uint64_t cc_profile_id;
	} profile;
	struct {
		uint8_t linear_cnt; /* <= 7 */
		uint8_t exp_cnt;    /* <= 25; 25: no limit */
	} retry;
	struct mrc_qp_hint *qp_hint;
	uint32_t cap; /* enum mrc_qp_cap */
	uint8_t vendor_cfg[MRC_MAX_VENDOR_CFG_SIZE];
};

struct mrc_async_event {
	union {
		struct mrc_cq *cq;
		struct mrc_qp *qp;
		int port_num;
	} element;
	enum ibv_event_type event_type;
};

void mrc_query_version(uint32_t *current_version, uint32_t *last_supported_version,
	uint32_t *vendor_version, uint32_t *last_supported_vendor_version);
int mrc_query_device(struct ibv_context *context, struct mrc_device_attr *attr, int *supported);
#if MRC_API_VER_USED >= MRC_API_VER(1, 0, 1)
int mrc_query_device_ex(struct ibv_context *context, struct mrc_context *mcontext,
	struct mrc_device_attr *attr, int *supported);
#endif

struct mrc_context *mrc_create_context(
	struct ibv_context *vcontext, struct mrc_context_attr *context_attr);
int mrc_destroy_context(struct mrc_context *mrc_ctx);

int mrc_create_comp_channel(struct mrc_context *mrc_ctx, struct mrc_comp_channel **channel);
int mrc_get_comp_channel_fd(struct mrc_comp_channel *channel, int *fd);
int mrc_destroy_comp_channel(struct mrc_comp_channel *channel);

struct mrc_cq *mrc_create_cq(struct mrc_context *mrc_ctx, int cqe, void *cq_context,
	struct mrc_comp_channel *channel, int comp_vector);
int mrc_poll_cq(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc);
int mrc_destroy_cq(struct mrc_cq *cq);
int mrc_req_notify_cq(struct mrc_cq *cq, int solicited_only);
int mrc_get_cq_event(struct mrc_comp_channel *channel, struct mrc_cq **cq, void **cq_context);
void mrc_ack_cq_events(struct mrc_cq *cq, unsigned int nevents);

struct mrc_qp_hint *mrc_create_qp_hint(
	struct mrc_context *mrc_ctx, struct mrc_qp_hint_init_attr *init_attr);
int mrc_destroy_qp_hint(struct mrc_qp_hint *qp_hint);
int mrc_query_qp_hint(
	struct mrc_qp_hint *qp_hint, struct mrc_qp_hint_attr *qp_hint_attr, int qp_hint_attr_mask);
int mrc_modify_qp_hint(
	struct mrc_qp_hint *qp_hint, struct mrc_qp_hint_attr *qp_hint_attr, int qp_hint_attr_mask);

struct mrc_qp *mrc_create_qp(struct mrc_context *mrc_ctx, struct mrc_qp_init_attr *mrc_qp_attr);
int mrc_destroy_qp(struct mrc_qp *qp);
int mrc_query_qp(struct mrc_qp *qp, struct ibv_qp_attr *vattr, int vattr_mask,
	struct mrc_qp_attr *mrc_attr, int mrc_attr_mask, struct mrc_qp_init_attr *init_attr);
int mrc_modify_qp(struct mrc_qp *qp, struct ibv_qp_attr *vattr, int vattr_mask,
	struct mrc_qp_attr *mrc_attr, int mrc_attr_mask);
int mrc_get_qpn(struct mrc_qp *qp, uint32_t *qpn);
int mrc_post_recv(struct mrc_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr);
int mrc_post_send(struct mrc_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);

int mrc_get_async_event(struct mrc_context *mrc_ctx, struct mrc_async_event *event);
void mrc_ack_async_event(struct mrc_async_event *event);

/*
 * mrcd's own calls: a device, protection domain and registered memory that
 * the mrc_* calls above accept. Not part of the OCP API: programs use the
 * verbs calls, which mrcd's verbs front (lib/verbs_front) implements with
 * these.
 *
 * mrc_sw_open_device: connect to mrcd's application socket (`socket_path`;
 * NULL: $MRC_SOCKET, else /run/mrcd/apps.sock) as host `host` of the daemon
 * (its number in the cluster). NULL with errno: ENOENT/ECONNREFUSED (no
 * mrcd), EPROTO (channel versions differ; the message says which), ENODEV
 * (no such host in that mrcd), EINVAL.
 *
 * mrc_sw_reg_mr registers memory in place: the bytes the program has, at
 * their address. The whole pages under [addr, addr + length) become shared
 * with mrcd (doc/applications.md, "Memory"); mrc_sw_dereg_mr gives them back
 * as private memory with their contents.
 */
struct ibv_context *mrc_sw_open_device(const char *socket_path, unsigned int host);
/* The hosts that mrcd runs: first_host .. first_host + n_hosts - 1 (how the
 * verbs front lists its devices, `mrc_<host>`). -1 with errno: as
 * mrc_sw_open_device, or EPROTO. */
int mrc_sw_list_hosts(const char *socket_path, unsigned int *first_host, unsigned int *n_hosts);
int mrc_sw_close_device(struct ibv_context *context);
/* The device's GID (16 bytes): its host's address, what the peer puts in its AV. */
int mrc_sw_query_gid(struct ibv_context *context, union ibv_gid *gid);
struct ibv_pd *mrc_sw_alloc_pd(struct ibv_context *context);
int mrc_sw_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *mrc_sw_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
int mrc_sw_dereg_mr(struct ibv_mr *mr);

#ifdef __cplusplus
}
#endif

#endif /* MRC_H */
