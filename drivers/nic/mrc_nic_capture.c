/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/* The emulated NIC's capture (mrc_nic_capture.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "mrc_nic_capture.h"

struct cap_rec {
	uint64_t stamp;
	uint32_t len, caplen;
};

struct mrc_nic_capture {
	uint32_t max, snap;
	uint64_t stamp_hz;
	uint32_t next;	 /* slots taken (atomic add); beyond max: missed */
	uint64_t missed; /* atomic */
	struct cap_rec *rec;
	uint8_t *data; /* max x snap bytes */
};

struct mrc_nic_capture *
mrc_nic_capture_create(uint32_t max_pkts, uint32_t snaplen, uint64_t stamp_hz)
{
	struct mrc_nic_capture *c;

	if (max_pkts == 0 || snaplen < 64 || snaplen > 65535)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->max = max_pkts;
	c->snap = snaplen;
	c->stamp_hz = stamp_hz ? stamp_hz : rte_get_tsc_hz();
	if (c->stamp_hz == 0)
		c->stamp_hz = 1;
	c->rec = calloc(max_pkts, sizeof(*c->rec));
	c->data = malloc((size_t)max_pkts * snaplen);
	if (c->rec == NULL || c->data == NULL) {
		mrc_nic_capture_free(c);
		return NULL;
	}
	return c;
}

void
mrc_nic_capture_burst(
	struct mrc_nic_capture *c, struct rte_mbuf *const *pkts, uint16_t n, uint64_t stamp)
{
	uint32_t i;

	if (n == 0 || __atomic_load_n(&c->next, __ATOMIC_RELAXED) >= c->max) {
		__atomic_fetch_add(&c->missed, n, __ATOMIC_RELAXED);
		return;
	}
	i = __atomic_fetch_add(&c->next, n, __ATOMIC_RELAXED);
	for (uint16_t k = 0; k < n; k++, i++) {
		struct cap_rec *r;
		uint8_t *dst;
		const void *src;

		if (i >= c->max) {
			__atomic_fetch_add(&c->missed, n - k, __ATOMIC_RELAXED);
			return;
		}
		r = &c->rec[i];
		dst = c->data + (size_t)i * c->snap;
		r->stamp = stamp;
		r->len = pkts[k]->pkt_len;
		r->caplen = RTE_MIN(r->len, c->snap);
		src = rte_pktmbuf_read(pkts[k], 0, r->caplen, dst);
		if (src != dst)
			memcpy(dst, src, r->caplen);
	}
}

static int
put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

int
mrc_nic_capture_write(
	const struct mrc_nic_capture *c, const char *path, uint32_t *n_pkts, uint64_t *missed)
{
	/* pcap: microsecond stamps, Ethernet (link type 1) */
	const struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t zone;
		uint32_t sigfigs, snaplen, linktype;
	} gh = {0xa1b2c3d4, 2, 4, 0, 0, c != NULL ? c->snap : 0, 1};
	uint32_t n;
	FILE *f;
	int rc;

	if (c == NULL)
		return -EINVAL;
	n = RTE_MIN(__atomic_load_n(&c->next, __ATOMIC_ACQUIRE), c->max);
	f = fopen(path, "wb");
	if (f == NULL)
		return -errno;
	rc = put(f, &gh, sizeof(gh));
	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		const struct cap_rec *r = &c->rec[i];
		const uint64_t hz = c->stamp_hz;
		/* exact for any hz up to a picosecond's: the remainder times 10^6 fits */
		const uint64_t us = r->stamp / hz * 1000000 + r->stamp % hz * 1000000 / hz;
		const uint32_t rh[4] = {
			(uint32_t)(us / 1000000), (uint32_t)(us % 1000000), r->caplen, r->len};

		rc = put(f, rh, sizeof(rh));
		if (rc == 0)
			rc = put(f, c->data + (size_t)i * c->snap, r->caplen);
	}
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (n_pkts != NULL)
		*n_pkts = n;
	if (missed != NULL)
		*missed = __atomic_load_n(&c->missed, __ATOMIC_RELAXED);
	return rc;
}

void
mrc_nic_capture_free(struct mrc_nic_capture *c)
{
	if (c == NULL)
		return;
	free(c->rec);
	free(c->data);
	free(c);
}
