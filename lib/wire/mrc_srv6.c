/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#include <errno.h>
#include <string.h>

#include "mrc_srv6.h"

/* Containers are big-endian: uSID k (0-based) sits at bytes 4 + 2k. */
#define USID_OFF(k) (4 + 2 * (k))

uint32_t
mrc_usid_block(const uint8_t addr[MRC_IPV6_ADDR_LEN])
{
	return ((uint32_t)addr[0] << 24) | ((uint32_t)addr[1] << 16) | ((uint32_t)addr[2] << 8) |
	       addr[3];
}

static uint16_t
usid_at(const uint8_t addr[MRC_IPV6_ADDR_LEN], unsigned int k)
{
	return (uint16_t)((addr[USID_OFF(k)] << 8) | addr[USID_OFF(k) + 1]);
}

uint16_t
mrc_usid_active(const uint8_t addr[MRC_IPV6_ADDR_LEN])
{
	return usid_at(addr, 0);
}

uint16_t
mrc_usid_shift(uint8_t addr[MRC_IPV6_ADDR_LEN])
{
	memmove(addr + USID_OFF(0), addr + USID_OFF(1), MRC_IPV6_ADDR_LEN - USID_OFF(1));
	addr[MRC_IPV6_ADDR_LEN - 2] = 0;
	addr[MRC_IPV6_ADDR_LEN - 1] = 0;
	return mrc_usid_active(addr);
}

int
mrc_usid_encode(const struct mrc_usid_path *path, uint8_t (*c)[MRC_IPV6_ADDR_LEN], unsigned int max)
{
	unsigned int n_c;

	if (path->n == 0 || path->n > MRC_USID_MAX_PATH)
		return -EINVAL;
	for (unsigned int i = 0; i < path->n; i++)
		if (path->usid[i] == 0)
			return -EINVAL;
	n_c = mrc_usid_containers(path->n);
	if (n_c > max)
		return -ENOSPC;
	for (unsigned int ci = 0; ci < n_c; ci++) {
		uint8_t *a = c[ci];

		memset(a, 0, MRC_IPV6_ADDR_LEN);
		a[0] = (uint8_t)(path->block >> 24);
		a[1] = (uint8_t)(path->block >> 16);
		a[2] = (uint8_t)(path->block >> 8);
		a[3] = (uint8_t)path->block;
		for (unsigned int k = 0; k < MRC_USID_PER_CONTAINER; k++) {
			unsigned int i = ci * MRC_USID_PER_CONTAINER + k;

			if (i >= path->n)
				break;
			a[USID_OFF(k)] = (uint8_t)(path->usid[i] >> 8);
			a[USID_OFF(k) + 1] = (uint8_t)path->usid[i];
		}
	}
	return (int)n_c;
}

/* Append the uSIDs of one container to `path`; the first must be non-zero. */
static int
decode_container(const uint8_t a[MRC_IPV6_ADDR_LEN], uint32_t block, struct mrc_usid_path *path)
{
	unsigned int k = 0;

	if (mrc_usid_block(a) != block)
		return -EINVAL;
	while (k < MRC_USID_PER_CONTAINER && usid_at(a, k) != 0) {
		if (path->n >= MRC_USID_MAX_PATH)
			return -EINVAL;
		path->usid[path->n++] = usid_at(a, k);
		k++;
	}
	if (k == 0)
		return -EINVAL;
	/* After the end-of-container marker nothing may follow. */
	for (; k < MRC_USID_PER_CONTAINER; k++)
		if (usid_at(a, k) != 0)
			return -EINVAL;
	return 0;
}

int
mrc_usid_decode(const uint8_t (*c)[MRC_IPV6_ADDR_LEN], unsigned int n, uint32_t block,
	struct mrc_usid_path *path)
{
	path->block = block;
	path->n = 0;
	if (n == 0)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++) {
		int rc = decode_container(c[i], block, path);

		if (rc < 0)
			return rc;
	}
	return 0;
}

int
mrc_srv6_set_path(struct mrc_pkt *pkt, const struct mrc_usid_path *path)
{
	uint8_t c[MRC_SRH_MAX_SEGS][MRC_IPV6_ADDR_LEN];
	int n = mrc_usid_encode(path, c, MRC_SRH_MAX_SEGS);

	if (n < 0)
		return n;
	pkt->flags |= MRC_PKT_F_SRV6;
	memcpy(pkt->outer.dst, c[0], MRC_IPV6_ADDR_LEN);
	if (n == 1) {
		pkt->flags &= ~MRC_PKT_F_SRH;
		return 0;
	}
	pkt->flags |= MRC_PKT_F_SRH;
	pkt->srh.n_segs = (uint8_t)n;
	pkt->srh.segments_left = (uint8_t)(n - 1);
	pkt->srh.flags = 0;
	pkt->srh.tag = 0;
	pkt->srh.tlv_len = 0;
	/* RFC 8754: the list is stored last segment first. */
	for (int i = 0; i < n; i++)
		memcpy(pkt->srh.segs[n - 1 - i], c[i], MRC_IPV6_ADDR_LEN);
	return 0;
}

int
mrc_srv6_get_path(const struct mrc_pkt *pkt, uint32_t block, struct mrc_usid_path *path)
{
	int rc;

	path->block = block;
	path->n = 0;
	if (!(pkt->flags & MRC_PKT_F_SRV6))
		return -ENOENT;
	rc = decode_container(pkt->outer.dst, block, path);
	if (rc < 0)
		return rc;
	if (!(pkt->flags & MRC_PKT_F_SRH))
		return 0;
	if (pkt->srh.segments_left >= pkt->srh.n_segs || pkt->srh.n_segs > MRC_SRH_MAX_SEGS)
		return -EINVAL;
	for (int i = (int)pkt->srh.segments_left - 1; i >= 0; i--) {
		rc = decode_container(pkt->srh.segs[i], block, path);
		if (rc < 0)
			return rc;
	}
	return 0;
}
