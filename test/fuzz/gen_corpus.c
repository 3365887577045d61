/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Write the seed corpora: one file per sample packet for fuzz_pkt (every
 * packet type and encapsulation), a few uSID paths for fuzz_srv6, and
 * neighbour discovery messages and other frames that are not MRC for
 * fuzz_nd.
 *   gen_corpus PKT_DIR SRV6_DIR ND_DIR
 */

#include <stdio.h>
#include <string.h>

#include "mrc_nd.h"
#include "mrc_srv6.h"
#include "mrc_test_pkts.h"

static int
write_file(const char *dir, const char *name, const void *d, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(d, 1, n, f) != n) {
		perror(path);
		if (f != NULL)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Neighbour discovery as mrcd sends and answers it, and two frames of other kinds. */
static int
write_nd(const char *dir)
{
	static const struct rte_ether_addr mac = {{0x02, 0x6d, 0x72, 0x00, 0x00, 0x01}};
	static const struct rte_ether_addr peer = {{0x02, 0x11, 0x22, 0x33, 0x44, 0x55}};
	static const uint8_t ip[16] = {0xfc, 0xbb, 0, 0, 0x1e, 0x01};
	static const uint8_t nh[16] = {0xfd, 0x11, [15] = 1};
	static const uint8_t unspec[16], all[16] = {0xff, 0x02, [15] = 1};
	uint8_t f[128], ll[16];
	uint32_t n;
	int rc = 0;

	mrc_nd_link_local(&mac, ll);
	n = mrc_nd_build_ns(f, sizeof(f), &mac, NULL, ll, nh);
	rc |= write_file(dir, "ns_multicast", f, n);
	n = mrc_nd_build_ns(f, sizeof(f), &mac, &peer, ll, nh);
	rc |= write_file(dir, "ns_unicast", f, n);
	n = mrc_nd_build_ns(f, sizeof(f), &mac, NULL, unspec, ip);
	rc |= write_file(dir, "ns_dad_with_option", f, n);
	n = mrc_nd_build_na(f, sizeof(f), &mac, &peer, ip, nh, MRC_ND_NA_SOLICITED);
	rc |= write_file(dir, "na_solicited", f, n);
	n = mrc_nd_build_na(f, sizeof(f), &mac, &peer, ip, all, 0);
	rc |= write_file(dir, "na_unsolicited", f, n);
	f[54] = 128; /* the same frame as an echo request */
	rc |= write_file(dir, "icmp6_echo", f, n);
	f[12] = 0x88;
	f[13] = 0xcc;
	rc |= write_file(dir, "lldp", f, 60);
	return rc;
}

int
main(int argc, char **argv)
{
	static uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_wire_cfg cfg;
	char name[256];

	if (argc != 4) {
		fprintf(stderr, "usage: %s PKT_DIR SRV6_DIR ND_DIR\n", argv[0]);
		return 2;
	}
	mrc_wire_cfg_defaults(&cfg);
	for (unsigned int i = 0; i < mrc_test_sample_count(); i++) {
		struct mrc_test_sample s;
		size_t n;

		mrc_test_sample_get(i, &s);
		/* Keep seeds small: fuzzers mutate short inputs faster. */
		if (s.payload_len > 64)
			s.payload_len = 64;
		n = mrc_test_sample_bytes(&s, &cfg, b, sizeof(b));
		snprintf(name, sizeof(name), "%02u_%s", i, s.name);
		if (n == 0 || write_file(argv[1], name, b, n) != 0)
			return 1;
	}
	for (unsigned int len = 1; len <= MRC_USID_MAX_PATH; len += 5) {
		struct mrc_usid_path p = {.block = 0xfcbb0000, .n = (uint8_t)len};
		uint8_t c[MRC_SRH_MAX_SEGS][MRC_IPV6_ADDR_LEN];
		int nc;

		for (unsigned int i = 0; i < len; i++)
			p.usid[i] = (uint16_t)(0x0100 + i);
		nc = mrc_usid_encode(&p, c, MRC_SRH_MAX_SEGS);
		b[0] = 0xfc;
		b[1] = 0xbb;
		b[2] = b[3] = 0;
		b[4] = (uint8_t)nc;
		memcpy(b + 5, c, (size_t)nc * MRC_IPV6_ADDR_LEN);
		snprintf(name, sizeof(name), "path_%02u", len);
		if (write_file(argv[2], name, b, 5 + (size_t)nc * MRC_IPV6_ADDR_LEN) != 0)
			return 1;
	}
	if (write_nd(argv[3]) != 0)
		return 1;
	return 0;
}
