/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The non-default symbol versions Debian's libibverbs keeps for programs
 * built against libibverbs 1.0 (an older ABI with other struct layouts) and
 * its old driver hook. The front exports them so that the version nodes and
 * names match, and fails each with ENOSYS.
 */

#include "vf_priv.h"

#define VF_OLD(name, node, type, value)                       \
	type vf_old_##name(void);                             \
	__asm__(".symver vf_old_" #name ", " #name "@" node); \
	type vf_old_##name(void)                              \
	{                                                     \
		errno = ENOSYS;                               \
		return value;                                 \
	}
#define VF_OLD_PTR(name) VF_OLD(name, "IBVERBS_1.0", void *, NULL)
#define VF_OLD_INT(name) VF_OLD(name, "IBVERBS_1.0", int, ENOSYS)

VF_OLD_INT(ibv_ack_async_event)
VF_OLD_INT(ibv_ack_cq_events)
VF_OLD_PTR(ibv_alloc_pd)
VF_OLD_INT(ibv_attach_mcast)
VF_OLD_INT(ibv_close_device)
VF_OLD_PTR(ibv_create_ah)
VF_OLD_PTR(ibv_create_cq)
VF_OLD_PTR(ibv_create_qp)
VF_OLD_PTR(ibv_create_srq)
VF_OLD_INT(ibv_dealloc_pd)
VF_OLD_INT(ibv_dereg_mr)
VF_OLD_INT(ibv_destroy_ah)
VF_OLD_INT(ibv_destroy_cq)
VF_OLD_INT(ibv_destroy_qp)
VF_OLD_INT(ibv_destroy_srq)
VF_OLD_INT(ibv_detach_mcast)
VF_OLD_INT(ibv_free_device_list)
VF_OLD_INT(ibv_get_async_event)
VF_OLD_INT(ibv_get_cq_event)
VF_OLD_PTR(ibv_get_device_guid)
VF_OLD_PTR(ibv_get_device_list)
VF_OLD_PTR(ibv_get_device_name)
VF_OLD_INT(ibv_modify_qp)
VF_OLD_INT(ibv_modify_srq)
VF_OLD_PTR(ibv_open_device)
VF_OLD_INT(ibv_query_device)
VF_OLD_INT(ibv_query_gid)
VF_OLD_INT(ibv_query_pkey)
VF_OLD_INT(ibv_query_port)
VF_OLD_INT(ibv_query_qp)
VF_OLD_INT(ibv_query_srq)
VF_OLD_PTR(ibv_reg_mr)
VF_OLD_INT(ibv_resize_cq)
VF_OLD(ibv_register_driver, "IBVERBS_1.1", int, ENOSYS)
