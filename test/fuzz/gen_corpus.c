/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Write the seed corpora: one file per sample packet for fuzz_pkt (every
 * packet type and encapsulation), and a few uSID paths for fuzz_srv6.
 *   gen_corpus PKT_DIR SRV6_DIR
 */

#include <stdio.h>
#include <string.h>

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

int
main(int argc, char **argv)
{
	static uint8_t b[MRC_TEST_MAX_PKT + 1024];
	struct mrc_wire_cfg cfg;
	char name[256];

	if (argc != 3) {
		fprintf(stderr, "usage: %s PKT_DIR SRV6_DIR\n", argv[0]);
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
	return 0;
}
