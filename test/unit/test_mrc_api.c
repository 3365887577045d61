/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * lib_mrc's headers against the interface facts a program compiled for an
 * MRC NIC relies on (doc/applications.md): version packing and values, the
 * enums' values, the structures' field order, and the version query. Built
 * as an API 1.0.0 user, so mrc_query_device_ex must not be declared (the
 * check below would not compile otherwise... it is declared as a variable
 * of the same name instead, which a declaration of the function would clash
 * with).
 */

#define MRC_API_VER_USED MRC_API_VER(1, 0, 0)

#include <stddef.h>

#include "mrc.h"
#include "mrc_test.h"

/* A 1.0.0 user may use the name for itself: the 1.0.1 function is not declared. */
static int mrc_query_device_ex = 7;

static int
test_versions(void)
{
	uint32_t cur = 0, last = 1, vendor = 0, last_vendor = 1;

	MRC_T_EQ(MRC_API_VER(1, 0, 1), 0x01000001u);
	MRC_T_EQ(MRC_API_VER(0xff, 0xff, 0xffff), MRC_API_VER_LATEST);
	MRC_T_EQ(MRC_API_VER_LATEST, 0xffffffffu);
	MRC_T_EQ(MRC_API_VER_MAJOR_OFFSET, 24);
	MRC_T_EQ(MRC_API_VER_MINOR_OFFSET, 16);
	MRC_T_EQ(MRC_API_VER_SUBMINOR_OFFSET, 0);
	MRC_T_EQ(MRC_API_CURRENT_VERSION, MRC_API_VER(1, 0, 1));
	MRC_T_EQ(MRC_API_LAST_SUPPORTED_VERSION, 0);
	MRC_T_EQ(MRC_VENDOR_API_CURRENT_VERSION, MRC_API_VER(1, 0, 0));
	MRC_T_EQ(MRC_VENDOR_API_LAST_SUPPORTED_VERSION, 0);
	MRC_T_EQ(MRC_API_VER_USED, MRC_API_VER(1, 0, 0));
	MRC_T_EQ(mrc_query_device_ex, 7);
	mrc_query_version(&cur, &last, &vendor, &last_vendor);
	MRC_T_EQ(cur, MRC_API_VER(1, 0, 1));
	MRC_T_EQ(last, 0);
	MRC_T_EQ(vendor, MRC_API_VER(1, 0, 0));
	MRC_T_EQ(last_vendor, 0);
	return MRC_TEST_OK;
}

static int
test_enum_values(void)
{
	MRC_T_EQ(MRC_MAX_VENDOR_CFG_SIZE, 128);
	MRC_T_EQ(MRC_PROTOCOL_VERSION_0, 0);
	MRC_T_EQ(MRC_PROTOCOL_VERSION_1, 1);
	MRC_T_EQ(MRC_DEVICE_CAP_TRIM_NACK, 1);
	MRC_T_EQ(MRC_DEVICE_CAP_DYNAMIC_MPR, 2);
	MRC_T_EQ(MRC_DEVICE_CAP_SVC_TIME, 4);
	MRC_T_EQ(MRC_QP_HINT_NUM_QPS_PER_PEER, 1);
	MRC_T_EQ(MRC_QP_HINT_NUM_SEND_PEERS, 2);
	MRC_T_EQ(MRC_QP_HINT_NUM_REMOTE_RECV_PEERS, 4);
	MRC_T_EQ((uint32_t)MRC_QP_HINT_VENDOR_CFG, 1u << 31);
	MRC_T_EQ(MRC_QP_MAX_WIMM, 1);
	MRC_T_EQ(MRC_QP_MAX_WIMM_DEST, 2);
	MRC_T_EQ(MRC_QP_MPR, 4);
	MRC_T_EQ(MRC_QP_MPR_DEST, 8);
	MRC_T_EQ(MRC_QP_TIMEOUT, 16);
	MRC_T_EQ(MRC_QP_EV_PROFILE_ID, 32);
	MRC_T_EQ(MRC_QP_CC_PROFILE_ID, 64);
	MRC_T_EQ(MRC_QP_HINT, 128);
	MRC_T_EQ(MRC_QP_RETRY_CNT, 256);
	MRC_T_EQ(MRC_QP_CAP, 512);
	MRC_T_EQ((uint32_t)MRC_QP_VENDOR_CFG, 1u << 31);
	MRC_T_EQ(MRC_QP_CAP_TRIM_NACK_DEST_UNSUPPORTED, 1);
	MRC_T_EQ(MRC_QP_CAP_DYNAMIC_MPR, 2);
	MRC_T_EQ(MRC_QP_CAP_SVC_TIME_DEST_UNSUPPORTED, 4);
	return MRC_TEST_OK;
}

/* Field order: each field after the one before, as the interface lists them. */
#define AFTER(type, a, b) MRC_T_ASSERT(offsetof(type, a) < offsetof(type, b), #a " before " #b)

static int
test_field_order(void)
{
	AFTER(struct mrc_device_attr, mrc_protocol_version, wimm_attr);
	AFTER(struct mrc_device_attr, wimm_attr.max_wimm, wimm_attr.max_wimm_dest);
	AFTER(struct mrc_device_attr, wimm_attr, mpr_attr);
	AFTER(struct mrc_device_attr, mpr_attr.max_mpr, mpr_attr.mpr_resolution);
	AFTER(struct mrc_device_attr, mpr_attr, qp_attr.max_qp_hint);
	AFTER(struct mrc_device_attr, qp_attr, cap);
	AFTER(struct mrc_context_attr, mrc_api_version_used, mrc_vendor_api_version_used);
	AFTER(struct mrc_qp_hint_attr, num_qps_per_peer, num_send_peers);
	AFTER(struct mrc_qp_hint_attr, num_send_peers, num_remote_recv_peers);
	AFTER(struct mrc_qp_hint_attr, num_remote_recv_peers, vendor_cfg);
	MRC_T_EQ(sizeof(((struct mrc_qp_hint_attr *)0)->vendor_cfg), 128);
	MRC_T_EQ(offsetof(struct mrc_qp_hint_init_attr, attr), 0);
	AFTER(struct mrc_qp_init_attr, qp_context, send_cq);
	AFTER(struct mrc_qp_init_attr, send_cq, recv_cq);
	AFTER(struct mrc_qp_init_attr, recv_cq, cap);
	AFTER(struct mrc_qp_init_attr, cap, sq_sig_all);
	AFTER(struct mrc_qp_init_attr, sq_sig_all, pd);
	AFTER(struct mrc_qp_init_attr, pd, send_ops_flags);
	AFTER(struct mrc_qp_init_attr, send_ops_flags, protocol_version);
	AFTER(struct mrc_qp_attr, mpr.mpr, mpr.mpr_dest);
	AFTER(struct mrc_qp_attr, mpr, wimm.max_wimm);
	AFTER(struct mrc_qp_attr, wimm.max_wimm, wimm.max_wimm_dest);
	AFTER(struct mrc_qp_attr, wimm, timeout);
	AFTER(struct mrc_qp_attr, timeout, profile.ev_profile_id);
	AFTER(struct mrc_qp_attr, profile.ev_profile_id, profile.cc_profile_id);
	AFTER(struct mrc_qp_attr, profile, retry.linear_cnt);
	AFTER(struct mrc_qp_attr, retry.linear_cnt, retry.exp_cnt);
	AFTER(struct mrc_qp_attr, retry, qp_hint);
	AFTER(struct mrc_qp_attr, qp_hint, cap);
	AFTER(struct mrc_qp_attr, cap, vendor_cfg);
	AFTER(struct mrc_async_event, element, event_type);
	MRC_T_EQ(sizeof(((struct mrc_qp_attr *)0)->mpr.mpr), 1);
	MRC_T_EQ(sizeof(((struct mrc_qp_attr *)0)->wimm.max_wimm), 2);
	MRC_T_EQ(sizeof(((struct mrc_qp_attr *)0)->profile.ev_profile_id), 8);
	MRC_T_EQ(sizeof(((struct mrc_qp_init_attr *)0)->send_ops_flags), 8);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_versions),
	MRC_TEST_CASE(test_enum_values),
	MRC_TEST_CASE(test_field_order),
};

MRC_TEST_MAIN("mrc_api", cases)
