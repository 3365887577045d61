/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the caller at setup (start) and teardown (write); the polling
 * lcore per ingress burst (fab_capture_burst).
 *
 * A capture of what the hosts' NICs put on the wire: the first packets the
 * fabric takes from the host ports, after the port's egress encap rules
 * were applied (doc/offload.md), so a run in the offload mode can be
 * compared with the software build packet by packet (mrc-encap-check).
 * Packets are copied into memory set aside at start (no allocation or
 * syscall while the fabric runs) and written as a pcap file at the end.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fabric_priv.h"

struct fab_capture {
	uint32_t max, snap, n;
	uint64_t missed; /* packets past max */
	struct fab_cap_rec {
		uint64_t t_ps;
		uint32_t len, caplen;
	} * rec;
	uint8_t *data; /* max x snap bytes */
};

int
mrc_fabric_capture_start(struct mrc_fabric *fab, uint32_t max_pkts, uint32_t snaplen)
{
	struct fab_capture *c;

	if (fab->cap != NULL || max_pkts == 0 || snaplen < 64 || snaplen > 65535)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->max = max_pkts;
	c->snap = snaplen;
	c->rec = calloc(max_pkts, sizeof(*c->rec));
	c->data = malloc((size_t)max_pkts * snaplen);
	if (c->rec == NULL || c->data == NULL) {
		free(c->rec);
		free(c->data);
		free(c);
		return -ENOMEM;
	}
	fab->cap = c;
	return 0;
}

void
fab_capture_burst(struct mrc_fabric *fab, struct rte_mbuf **pkts, unsigned int n)
{
	struct fab_capture *c = fab->cap;

	for (unsigned int k = 0; k < n; k++) {
		struct fab_cap_rec *r;
		uint8_t *dst;
		const void *src;

		if (c->n == c->max) {
			c->missed += n - k;
			return;
		}
		r = &c->rec[c->n];
		dst = c->data + (size_t)c->n * c->snap;
		r->t_ps = fab->now_ps;
		r->len = pkts[k]->pkt_len;
		r->caplen = RTE_MIN(r->len, c->snap);
		src = rte_pktmbuf_read(pkts[k], 0, r->caplen, dst);
		if (src != dst)
			memcpy(dst, src, r->caplen);
		c->n++;
	}
}

static int
put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

int
mrc_fabric_capture_write(
	const struct mrc_fabric *fab, const char *path, uint32_t *n_pkts, uint64_t *missed)
{
	/* pcap: microsecond stamps, Ethernet (link type 1) */
	const struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t zone;
		uint32_t sigfigs, snaplen, linktype;
	} gh = {0xa1b2c3d4, 2, 4, 0, 0, fab->cap != NULL ? fab->cap->snap : 0, 1};
	const struct fab_capture *c = fab->cap;
	FILE *f;
	int rc;

	if (c == NULL)
		return -EINVAL;
	f = fopen(path, "wb");
	if (f == NULL)
		return -errno;
	rc = put(f, &gh, sizeof(gh));
	for (uint32_t i = 0; rc == 0 && i < c->n; i++) {
		const struct fab_cap_rec *r = &c->rec[i];
		const uint64_t us = r->t_ps / 1000000;
		const uint32_t rh[4] = {
			(uint32_t)(us / 1000000), (uint32_t)(us % 1000000), r->caplen, r->len};

		rc = put(f, rh, sizeof(rh));
		if (rc == 0)
			rc = put(f, c->data + (size_t)i * c->snap, r->caplen);
	}
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (n_pkts != NULL)
		*n_pkts = c->n;
	if (missed != NULL)
		*missed = c->missed;
	return rc;
}

void
fab_capture_free(struct mrc_fabric *fab)
{
	if (fab->cap == NULL)
		return;
	free(fab->cap->rec);
	free(fab->cap->data);
	free(fab->cap);
	fab->cap = NULL;
}
