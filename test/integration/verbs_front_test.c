/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The verbs front as an MRC program meets it (doc/sdk.md): built against
 * Debian's <infiniband/verbs.h> and linked with -libverbs, run under mrc-run.
 *
 *   verbs-front-test list
 *       print the devices libibverbs lists, one name a line (under mrc-run:
 *       mrcd's hosts; without it: the real library's, none on our machines).
 *   verbs-front-test check DEVICE
 *       open DEVICE and check what a program relies on: the port (ACTIVE,
 *       Ethernet, MTU 4096, through verbs.h's inline and the exported
 *       compatibility symbol alike), a GID table of at least 4 RoCEv2 entries
 *       holding one address, the P_Key, memory registered in place (bytes
 *       kept, with and without an optional access bit), lib_mrc accepting the
 *       context and PD (a context, CQ and QP made), GPU memory refused
 *       (EOPNOTSUPP) and an unimplemented verb failing with ENOSYS.
 * Exit 0 when every check held; each failure is printed.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <mrc.h>

static int fails;

#define CHECK(cond, ...)                                                         \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "verbs-front-test: FAIL: " __VA_ARGS__); \
			fputc('\n', stderr);                                     \
			fails++;                                                 \
		}                                                                \
	} while (0)

static int
list(void)
{
	int n = -1;
	struct ibv_device **l = ibv_get_device_list(&n);

	if (l == NULL) {
		printf("(no list: %s)\n", strerror(errno));
		return 0;
	}
	for (int k = 0; k < n; k++)
		printf("%s\n", ibv_get_device_name(l[k]));
	ibv_free_device_list(l);
	return 0;
}

static void
check_port(struct ibv_context *ctx)
{
	struct ibv_port_attr pa, compat;

	/* verbs.h's inline: the extended context's op */
	memset(&pa, 0xa5, sizeof(pa));
	CHECK(ibv_query_port(ctx, 1, &pa) == 0, "ibv_query_port: %s", strerror(errno));
	CHECK(pa.state == IBV_PORT_ACTIVE, "port state %d, want ACTIVE", pa.state);
	CHECK(pa.link_layer == IBV_LINK_LAYER_ETHERNET, "link layer %u, want Ethernet",
		pa.link_layer);
	CHECK(pa.active_mtu == IBV_MTU_4096 && pa.max_mtu == IBV_MTU_4096, "MTU %d/%d, want 4096",
		pa.active_mtu, pa.max_mtu);
	CHECK(pa.gid_tbl_len >= 4, "GID table of %d entries, want >= 4", pa.gid_tbl_len);
	CHECK(pa.flags == 0 && pa.port_cap_flags2 == 0, "port attr's tail not cleared");
	/* the exported compatibility symbol (what a non-extended context takes) */
	memset(&compat, 0, sizeof(compat));
	CHECK((ibv_query_port)(ctx, 1, (struct _compat_ibv_port_attr *)&compat) == 0,
		"ibv_query_port (exported): %s", strerror(errno));
	CHECK(memcmp(&compat, &pa, offsetof(struct ibv_port_attr, flags)) == 0,
		"the exported ibv_query_port and the inline disagree");
	CHECK(ibv_query_port(ctx, 2, &pa) != 0, "port 2 answered");
}

static void
check_gids(struct ibv_context *ctx)
{
	union ibv_gid g[4], zero = {0};
	struct ibv_gid_entry e;

	for (int k = 0; k < 4; k++) {
		CHECK(ibv_query_gid(ctx, 1, k, &g[k]) == 0, "ibv_query_gid %d: %s", k,
			strerror(errno));
		CHECK(memcmp(&g[k], &g[0], sizeof(g[0])) == 0, "GID %d differs from GID 0", k);
	}
	CHECK(memcmp(&g[0], &zero, sizeof(zero)) != 0, "GID 0 is all zero");
	CHECK(ibv_query_gid(ctx, 1, 64, &g[0]) != 0, "GID 64 answered");
	CHECK(ibv_query_gid_ex(ctx, 1, 3, &e, 0) == 0, "ibv_query_gid_ex: %s", strerror(errno));
	CHECK(e.gid_type == IBV_GID_TYPE_ROCE_V2 && e.gid_index == 3 &&
			memcmp(&e.gid, &g[3], sizeof(e.gid)) == 0,
		"GID entry 3: type %u index %u", e.gid_type, e.gid_index);
}

/*
 * Heap memory, as programs register it, twice in a row: glibc serves the
 * first 1 MiB by mmap and, its threshold raised by that free, the second
 * from the heap, whose top chunk then shares the region's last page. The
 * deregistration must give back every byte of those pages, malloc's own
 * included (it once wiped them: free() then aborted).
 */
static void
check_heap_rounds(struct ibv_pd *pd)
{
	for (int round = 0; round < 3; round++) {
		const size_t len = 1 << 20;
		uint8_t *buf = calloc(1, len);
		struct ibv_mr *mr;
		void *other;

		for (size_t k = 0; k < len; k += 4093)
			buf[k] = (uint8_t)(k + round);
		mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		CHECK(mr != NULL, "round %d: ibv_reg_mr of heap: %s", round, strerror(errno));
		other = malloc(100); /* malloc at work in the shared pages meanwhile */
		if (mr != NULL)
			CHECK(ibv_dereg_mr(mr) == 0, "round %d: ibv_dereg_mr: %s", round,
				strerror(errno));
		for (size_t k = 0; k < len; k += 4093)
			if (buf[k] != (uint8_t)(k + round)) {
				CHECK(0, "round %d: byte %zu lost", round, k);
				break;
			}
		free(other);
		free(buf);
	}
}

static void
check_memory(struct ibv_context *ctx)
{
	const size_t len = 3 * 4096 + 100;
	struct ibv_mr *mr, *mr2;
	struct ibv_pd *pd;
	uint8_t *buf;

	pd = ibv_alloc_pd(ctx);
	CHECK(pd != NULL, "ibv_alloc_pd: %s", strerror(errno));
	if (pd == NULL)
		return;
	buf = aligned_alloc(4096, 4 * 4096);
	for (size_t k = 0; k < len; k++)
		buf[k] = (uint8_t)(k * 7 + 1);
	/* constant flags with no optional bit: the ibv_reg_mr symbol */
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CHECK(mr != NULL, "ibv_reg_mr: %s", strerror(errno));
	/* an optional bit: verbs.h calls ibv_reg_mr_iova2, which masks it off */
	mr2 = ibv_reg_mr(pd, buf + 4096, 4096,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_RELAXED_ORDERING);
	CHECK(mr2 != NULL, "ibv_reg_mr (relaxed ordering): %s", strerror(errno));
	for (size_t k = 0; k < len; k++)
		if (buf[k] != (uint8_t)(k * 7 + 1)) {
			CHECK(0, "byte %zu changed by the registration", k);
			break;
		}
	if (mr != NULL) {
		struct mrc_context *mctx = mrc_create_context(ctx, NULL);
		struct mrc_qp_init_attr qa = {0};
		struct mrc_device_attr da;
		struct mrc_qp *qp = NULL;
		struct mrc_cq *cq = NULL;
		int supported = 0;

		CHECK(mr->lkey != 0 && mr->addr == buf && mr->length == len, "MR fields");
		CHECK(mrc_query_device(ctx, &da, &supported) == 0 && supported,
			"lib_mrc does not take the front's context as an MRC device");
		CHECK(mctx != NULL, "mrc_create_context: %s", strerror(errno));
		if (mctx != NULL)
			cq = mrc_create_cq(mctx, 64, NULL, NULL, 0);
		CHECK(cq != NULL, "mrc_create_cq: %s", strerror(errno));
		qa.send_cq = cq;
		qa.recv_cq = cq;
		qa.cap.max_send_wr = 64;
		qa.cap.max_recv_wr = 64;
		qa.cap.max_send_sge = 1;
		qa.pd = pd;
		if (cq != NULL)
			qp = mrc_create_qp(mctx, &qa);
		CHECK(qp != NULL, "mrc_create_qp with the front's PD: %s", strerror(errno));
		if (qp != NULL)
			mrc_destroy_qp(qp);
		if (cq != NULL)
			mrc_destroy_cq(cq);
		if (mctx != NULL)
			mrc_destroy_context(mctx);
		CHECK(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr: %s", strerror(errno));
	}
	if (mr2 != NULL)
		CHECK(ibv_dereg_mr(mr2) == 0, "ibv_dereg_mr: %s", strerror(errno));
	for (size_t k = 0; k < len; k++)
		if (buf[k] != (uint8_t)(k * 7 + 1)) {
			CHECK(0, "byte %zu changed by the deregistration", k);
			break;
		}
	check_heap_rounds(pd);
	errno = 0;
	CHECK(ibv_reg_dmabuf_mr(pd, 0, 4096, 0, 0, IBV_ACCESS_LOCAL_WRITE) == NULL &&
			errno == EOPNOTSUPP,
		"ibv_reg_dmabuf_mr: %s, want EOPNOTSUPP", strerror(errno));
	CHECK(ibv_dealloc_pd(pd) == 0, "ibv_dealloc_pd: %s", strerror(errno));
	free(buf);
}

static int
check(const char *name)
{
	struct ibv_device **l;
	struct ibv_device *dev = NULL;
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	__be16 pkey = 0;
	int n = 0;

	l = ibv_get_device_list(&n);
	CHECK(l != NULL && n > 0, "no device listed");
	for (int k = 0; l != NULL && k < n; k++)
		if (strcmp(ibv_get_device_name(l[k]), name) == 0)
			dev = l[k];
	CHECK(dev != NULL, "no device %s among %d", name, n);
	if (dev == NULL)
		return 1;
	ctx = ibv_open_device(dev);
	CHECK(ctx != NULL, "ibv_open_device %s: %s", name, strerror(errno));
	ibv_free_device_list(l); /* an open device outlives the list */
	if (ctx == NULL)
		return 1;
	CHECK(strcmp(ibv_get_device_name(ctx->device), name) == 0, "context's device name");
	CHECK(ibv_query_device(ctx, &da) == 0 && da.phys_port_cnt == 1,
		"ibv_query_device: %s, %u ports", strerror(errno), da.phys_port_cnt);
	check_port(ctx);
	check_gids(ctx);
	CHECK(ibv_query_pkey(ctx, 1, 0, &pkey) == 0 && pkey == htobe16(0xffff),
		"ibv_query_pkey: %s, 0x%x", strerror(errno), be16toh(pkey));
	check_memory(ctx);
	/* not implemented: ENOSYS (CQs and QPs are mrc_* calls) */
	errno = 0;
	CHECK(ibv_create_cq(ctx, 16, NULL, NULL, 0) == NULL && errno == ENOSYS,
		"ibv_create_cq: %s, want ENOSYS", strerror(errno));
	CHECK(ibv_modify_qp(NULL, NULL, 0) == ENOSYS, "ibv_modify_qp: want ENOSYS");
	CHECK(strcmp(ibv_wc_status_str(IBV_WC_SUCCESS), "success") == 0, "ibv_wc_status_str");
	CHECK(ibv_close_device(ctx) == 0, "ibv_close_device: %s", strerror(errno));
	if (fails == 0)
		printf("verbs-front-test: %s: every check held\n", name);
	return fails != 0;
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return list();
	if (argc == 3 && strcmp(argv[1], "check") == 0)
		return check(argv[2]);
	fprintf(stderr, "usage: verbs-front-test list | check DEVICE\n");
	return 2;
}
