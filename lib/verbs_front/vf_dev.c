/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The verbs front's devices: one per host of the local mrcd (`mrc_<host>`),
 * found through lib_mrc's socket ($MRC_SOCKET, else /run/mrcd/apps.sock).
 * Each port is up, Ethernet, MTU 4096, with a GID table whose entries all
 * hold the host's address as RoCEv2 GIDs.
 */

#include <endian.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrc.h"
#include "mrc_lib_priv.h"
#include "vf_priv.h"

#define VF_MAX_DEVICES 64
#define VF_GUID_BASE   0x6d72630000000000ull /* "mrc" then the host number */

/*
 * Devices live as long as the process: verbs lets a program keep using a
 * device it opened after freeing the list, and a listing reuses them.
 */
struct vf_device {
	struct ibv_device dev;
	unsigned int host;
};

static struct vf_device *devices[VF_MAX_DEVICES];
static unsigned int n_devices;
static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;

static struct vf_device *
device_of_host(unsigned int host)
{
	struct vf_device *d;

	for (unsigned int k = 0; k < n_devices; k++)
		if (devices[k]->host == host)
			return devices[k];
	if (n_devices == VF_MAX_DEVICES)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return NULL;
	d->host = host;
	d->dev.node_type = IBV_NODE_CA; /* what a RoCE NIC says */
	d->dev.transport_type = IBV_TRANSPORT_IB;
	snprintf(d->dev.name, sizeof(d->dev.name), "mrc_%u", host);
	snprintf(d->dev.dev_name, sizeof(d->dev.dev_name), "mrc_%u", host);
	devices[n_devices++] = d;
	return d;
}

static struct vf_device *
device_known(const struct ibv_device *dev)
{
	for (unsigned int k = 0; k < n_devices; k++)
		if (&devices[k]->dev == dev)
			return devices[k];
	return NULL;
}

struct ibv_device **
vf_ibv_get_device_list(int *num_devices)
{
	unsigned int first = 0, n = 0, got = 0;
	struct ibv_device **list;

	/* No mrcd (or none answering): no device, as libibverbs says on a host without RDMA. */
	if (mrc_sw_list_hosts(NULL, &first, &n) != 0)
		n = 0;
	if (n > VF_MAX_DEVICES)
		n = VF_MAX_DEVICES;
	list = calloc(n + 1, sizeof(*list));
	if (list == NULL)
		return NULL;
	pthread_mutex_lock(&devices_lock);
	for (unsigned int k = 0; k < n; k++) {
		struct vf_device *d = device_of_host(first + k);

		if (d != NULL)
			list[got++] = &d->dev;
	}
	pthread_mutex_unlock(&devices_lock);
	if (num_devices != NULL)
		*num_devices = (int)got;
	return list;
}
VF_DEFAULT(ibv_get_device_list)

void
vf_ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}
VF_DEFAULT(ibv_free_device_list)

const char *
vf_ibv_get_device_name(struct ibv_device *device)
{
	return device != NULL ? device->name : NULL;
}
VF_DEFAULT(ibv_get_device_name)

__be64
vf_ibv_get_device_guid(struct ibv_device *device)
{
	struct vf_device *d;

	pthread_mutex_lock(&devices_lock);
	d = device_known(device);
	pthread_mutex_unlock(&devices_lock);
	return d != NULL ? htobe64(VF_GUID_BASE | d->host) : 0;
}
VF_DEFAULT(ibv_get_device_guid)

int
ibv_get_device_index(struct ibv_device *device)
{
	struct vf_device *d;

	pthread_mutex_lock(&devices_lock);
	d = device_known(device);
	pthread_mutex_unlock(&devices_lock);
	return d != NULL ? (int)d->host : -1;
}

struct ibv_context *
vf_ibv_open_device(struct ibv_device *device)
{
	struct verbs_context *vctx;
	struct ibv_context *ctx;
	struct vf_device *d;

	pthread_mutex_lock(&devices_lock);
	d = device_known(device);
	pthread_mutex_unlock(&devices_lock);
	if (d == NULL) {
		errno = ENODEV;
		return NULL;
	}
	ctx = mrc_sw_open_device(NULL, d->host);
	if (ctx == NULL)
		return NULL;
	/* lib_mrc's context is an extended one: give it the ops verbs.h's inlines look for. */
	vctx = verbs_get_ctx(ctx);
	vctx->query_port = vf_query_port_op;
	ctx->device = &d->dev;
	return ctx;
}
VF_DEFAULT(ibv_open_device)

int
vf_ibv_close_device(struct ibv_context *context)
{
	return mrc_sw_close_device(context) == 0 ? 0 : errno;
}
VF_DEFAULT(ibv_close_device)

int
vf_ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	struct mrc_lib_dev *dev = mrc_lib_dev_of(context);

	if (dev == NULL || attr == NULL)
		return errno = EINVAL;
	memset(attr, 0, sizeof(*attr));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "mrcd %u.%u.%u",
		MRC_API_CURRENT_VERSION >> MRC_API_VER_MAJOR_OFFSET,
		(MRC_API_CURRENT_VERSION >> MRC_API_VER_MINOR_OFFSET) & 0xff,
		MRC_API_CURRENT_VERSION & 0xffff);
	attr->node_guid = vf_ibv_get_device_guid(context->device);
	attr->sys_image_guid = attr->node_guid;
	attr->max_mr_size = dev->max_mr_bytes;
	attr->page_size_cap = 4096;
	attr->max_qp = (int)dev->max_qps;
	attr->max_qp_wr = MRC_CHAN_MAX_SQ;
	attr->max_sge = 1;
	attr->max_cq = MRC_LIB_MAX_CQS;
	attr->max_cqe = MRC_CHAN_MAX_CQ;
	attr->max_mr = (int)dev->max_mrs;
	attr->max_pd = 1 << 16;
	attr->atomic_cap = IBV_ATOMIC_NONE;
	attr->max_pkeys = 1;
	attr->phys_port_cnt = 1;
	return 0;
}
VF_DEFAULT(ibv_query_device)

static int
port_attr(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *a)
{
	if (mrc_lib_dev_of(ctx) == NULL || a == NULL || port != 1)
		return errno = EINVAL;
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = IBV_MTU_4096; /* mrcd takes a QP's path MTU up to its [transport] mtu */
	a->gid_tbl_len = VF_GID_TBL_LEN;
	a->port_cap_flags = IBV_PORT_IP_BASED_GIDS;
	a->max_msg_sz = MRC_CHAN_MAX_MSG;
	a->pkey_tbl_len = 1;
	a->active_width = 2;  /* 4x */
	a->active_speed = 32; /* EDR: with 4x, what a 100 Gb/s port says */
	a->phys_state = 5;    /* link up */
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	return 0;
}

int
vf_query_port_op(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr, size_t len)
{
	struct ibv_port_attr a;
	int rc = port_attr(ctx, port, &a);

	if (rc != 0)
		return rc;
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

/*
 * The exported symbol verbs.h's inline falls back to for a context that is
 * not extended. Its struct is the older, shorter one: fill no further than
 * link_layer, which it ends with.
 */
int
vf_ibv_query_port(
	struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr_out)
{
	return vf_query_port_op(context, port_num, (struct ibv_port_attr *)port_attr_out,
		offsetof(struct ibv_port_attr, flags));
}
VF_DEFAULT(ibv_query_port)

int
vf_ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)
{
	struct mrc_lib_dev *dev = mrc_lib_dev_of(context);

	if (dev == NULL || gid == NULL || port_num != 1 || index < 0 || index >= VF_GID_TBL_LEN) {
		errno = EINVAL;
		return -1;
	}
	memcpy(gid->raw, dev->gid, sizeof(gid->raw));
	return 0;
}
VF_DEFAULT(ibv_query_gid)

static void
gid_entry(const struct mrc_lib_dev *dev, uint32_t index, struct ibv_gid_entry *e)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->gid.raw, dev->gid, sizeof(e->gid.raw));
	e->gid_index = index;
	e->port_num = 1;
	e->gid_type = IBV_GID_TYPE_ROCE_V2;
}

int
_ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
	struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	struct mrc_lib_dev *dev = mrc_lib_dev_of(context);

	if (dev == NULL || entry == NULL || port_num != 1 || gid_index >= VF_GID_TBL_LEN ||
		flags != 0 || entry_size < sizeof(*entry))
		return errno = EINVAL;
	gid_entry(dev, gid_index, entry);
	return 0;
}

ssize_t
_ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries,
	uint32_t flags, size_t entry_size)
{
	struct mrc_lib_dev *dev = mrc_lib_dev_of(context);
	size_t k;

	if (dev == NULL || entries == NULL || flags != 0 || entry_size < sizeof(*entries))
		return -EINVAL;
	for (k = 0; k < max_entries && k < VF_GID_TBL_LEN; k++)
		gid_entry(dev, (uint32_t)k,
			(struct ibv_gid_entry *)(void *)((char *)entries + k * entry_size));
	return (ssize_t)k;
}

int
vf_ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	if (mrc_lib_dev_of(context) == NULL || pkey == NULL || port_num != 1 || index != 0) {
		errno = EINVAL;
		return -1;
	}
	*pkey = htobe16(0xffff); /* the default partition, the only one */
	return 0;
}
VF_DEFAULT(ibv_query_pkey)

int
ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)
{
	if (mrc_lib_dev_of(context) == NULL || port_num != 1 || be16toh(pkey) != 0xffff) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}
