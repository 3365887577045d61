/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Fuzz the metrics endpoint's request parser (app/mrcd/stats/mrcd_http_parse.c)
 * on a copy of the input of exactly its size, so that a read past the end
 * is ASan's to find. Oracles: a verdict is one of the three; a complete
 * head lies within the input and ends in an empty line, its method is 1 to
 * 7 upper-case letters and its path starts with '/', both NUL-terminated
 * inside their fields; a refusal has a status and a reason; the verdict on
 * any prefix of a complete head is "more", and on the head alone the same.
 */

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "mrcd_http_parse.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	struct mrcd_http_req r, r2;
	enum mrcd_http_verdict v;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	v = mrcd_http_parse(buf, size, &r);
	FUZZ_CHECK(v == MRCD_HTTP_MORE || v == MRCD_HTTP_DONE || v == MRCD_HTTP_BAD, "verdict %d",
		(int)v);
	if (v == MRCD_HTTP_BAD)
		FUZZ_CHECK(r.why != NULL && (r.status == 400 || r.status == 414 || r.status == 431),
			"status %u", r.status);
	if (v == MRCD_HTTP_MORE)
		FUZZ_CHECK(size < MRCD_HTTP_HEAD_MAX, "more at %zu bytes", size);
	if (v == MRCD_HTTP_DONE) {
		const size_t m = strnlen(r.method, sizeof(r.method));

		FUZZ_CHECK(r.head_len >= 2 && r.head_len <= size && buf[r.head_len - 1] == '\n',
			"head_len %zu of %zu", r.head_len, size);
		FUZZ_CHECK(m >= 1 && m < sizeof(r.method), "method length %zu", m);
		for (size_t i = 0; i < m; i++)
			FUZZ_CHECK(r.method[i] >= 'A' && r.method[i] <= 'Z', "method byte %d",
				r.method[i]);
		FUZZ_CHECK(r.path[0] == '/' && strnlen(r.path, sizeof(r.path)) < sizeof(r.path),
			"path");
		FUZZ_CHECK(r.minor <= 1, "minor %u", r.minor);
		FUZZ_CHECK(mrcd_http_parse(buf, r.head_len, &r2) == MRCD_HTTP_DONE &&
				   r2.head_len == r.head_len && strcmp(r2.path, r.path) == 0,
			"the head alone parses differently");
		/* every prefix of a short head; 256 of a long one (the cost is quadratic) */
		const size_t step = r.head_len > 512 ? r.head_len / 256 : 1;

		for (size_t n = 0; n < r.head_len; n += step)
			FUZZ_CHECK(mrcd_http_parse(buf, n, &r2) == MRCD_HTTP_MORE,
				"prefix of %zu bytes is not 'more'", n);
	}
	free(buf);
	return 0;
}
