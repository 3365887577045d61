/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * A reload's pure half (app/mrcd/control/mrcd_reload_diff.c): which profile
 * keys may change at run time, and which flows stay, go and come, and
 * the QPN pairs and slots the flows that come across processes take; a
 * receiver's check of a message whose sender is in another process
 * (app/mrcd/gen/mrcd_gen.c); and systemd's notify protocol
 * (app/mrcd/control/mrcd_notify.c): the address $NOTIFY_SOCKET names, and
 * the datagrams as a listener receives them.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrc_test.h"
#include "mrcd_notify.h"
#include "mrcd_reload.h"

/*
 * The keys that choose the flows and those that apply live may differ; the
 * first other one is named with why; a message larger than the start's
 * slot is refused.
 */
static int
test_profile_check(void)
{
	struct mrcd_profile a, b;
	char what[512];
	bool shape = true;

	mrcd_profile_defaults(&a);
	mrcd_profile_derive(&a);
	b = a;
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 0);
	MRC_T_EQ(mrcd_reload_profile_live(&a, &b, &shape, what, sizeof(what)), 0u);
	MRC_T_EQ(shape, false);
	MRC_T_EQ(mrcd_reload_profile_flows(&a, &b), false);
	b.qps_per_peer = 4;
	b.pattern = MRCD_PAT_RING;
	b.incast_target = 1;
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 0);
	MRC_T_EQ(mrcd_reload_profile_flows(&a, &b), true);
	MRC_T_EQ(mrcd_reload_profile_live(&a, &b, &shape, what, sizeof(what)), 0u);
	/* smaller messages fit the slots: live, a change of shape */
	b = a;
	b.msg_kb = a.msg_kb / 2;
	mrcd_profile_derive(&b);
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 0);
	MRC_T_EQ(mrcd_reload_profile_live(&a, &b, &shape, what, sizeof(what)), 1u);
	MRC_T_EQ(shape, true);
	MRC_T_STREQ(what, "msg_kb 1024 -> 512");
	/* larger ones do not */
	b.msg_kb = a.msg_kb * 2;
	mrcd_profile_derive(&b);
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 1);
	MRC_T_ASSERT(strncmp(what, "msg_kb = 1024 -> 2048: ", 23) == 0 &&
			     strstr(what, "slot, 1024 KiB") != NULL,
		"named '%s'", what);
	b = a;
	snprintf(b.size_mix, sizeof(b.size_mix), "64:1, 4:3");
	mrcd_profile_derive(&b);
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 0);
	MRC_T_EQ(mrcd_reload_profile_live(&a, &b, &shape, what, sizeof(what)), 1u);
	MRC_T_ASSERT(
		shape && strncmp(what, "size_mix '' -> '64:1, 4:3'", 26) == 0, "said '%s'", what);
	snprintf(b.size_mix, sizeof(b.size_mix), "4:1, 2048:1");
	mrcd_profile_derive(&b);
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 1);
	MRC_T_ASSERT(strncmp(what, "size_mix = '' -> '4:1, 2048:1': ", 32) == 0 &&
			     strstr(what, "(2048 KiB)") != NULL,
		"named '%s'", what);
	/* pacing and counts: live, no change of shape; several said together */
	b = a;
	b.rate_gbps = 5;
	b.messages = 100;
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 0);
	MRC_T_EQ(mrcd_reload_profile_live(&a, &b, &shape, what, sizeof(what)), 2u);
	MRC_T_EQ(shape, false);
	MRC_T_STREQ(what, "rate_gbps 0 -> 5, messages 0 -> 100");
	b = a;
	b.verify = !a.verify;
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 0);
	MRC_T_EQ(mrcd_reload_profile_live(&a, &b, &shape, what, sizeof(what)), 1u);
	MRC_T_EQ(shape, true);
	/* refused, each named with its reason */
	b = a;
	b.outstanding = (uint16_t)(a.outstanding + 1);
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 1);
	MRC_T_ASSERT(strncmp(what, "outstanding = ", 14) == 0 && strstr(what, "laid out") != NULL,
		"named '%s'", what);
	b = a;
	b.buffers = (uint16_t)(a.outstanding + 8);
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 1);
	MRC_T_ASSERT(strncmp(what, "buffers = ", 10) == 0 && strstr(what, "laid out") != NULL,
		"named '%s'", what);
	/* 0 is outstanding's count: the same slots, nothing to refuse */
	a.buffers = a.outstanding;
	b = a;
	b.buffers = 0;
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 0);
	a.buffers = 0;
	b = a;
	b.opcode = MRCD_OP_WRITE;
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 1);
	MRC_T_ASSERT(strncmp(what, "opcode = write_imm -> write: ", 29) == 0, "named '%s'", what);
	b = a;
	b.active_flows = 8;
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 1);
	MRC_T_ASSERT(strncmp(what, "active_flows = 0 -> 8: ", 23) == 0, "named '%s'", what);
	a.active_flows = 4;
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 0);
	MRC_T_EQ(mrcd_reload_profile_live(&a, &b, &shape, what, sizeof(what)), 1u);
	MRC_T_STREQ(what, "active_flows 4 -> 8");
	b = a;
	b.cc_profile = 1;
	MRC_T_EQ(mrcd_reload_profile_check(&a, &b, what, sizeof(what)), 1);
	MRC_T_ASSERT(strncmp(what, "ev_profile, cc_profile = ", 25) == 0, "named '%s'", what);
	return MRC_TEST_OK;
}

/* Flows named alike stay wherever they are in either list; the rest go or come. */
static int
test_diff_kept_removed_added(void)
{
	const struct mrcd_flow_key live[] = {{0, 1, 0}, {1, 0, 0}, {2, 3, 0}, {3, 2, 0}};
	/* pairs -> ring over 4 hosts: 0->1 and 2->3 stay, 1->0 and 3->2 go, 1->2 and 3->0 come */
	const struct mrcd_flow_key want[] = {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 0, 0}};
	uint8_t keep[4], add[4];

	MRC_T_EQ(mrcd_reload_diff(live, 4, want, 4, keep, add), 4);
	MRC_T_EQ(keep[0], 1);
	MRC_T_EQ(keep[1], 0);
	MRC_T_EQ(keep[2], 1);
	MRC_T_EQ(keep[3], 0);
	MRC_T_EQ(add[0], 0);
	MRC_T_EQ(add[1], 1);
	MRC_T_EQ(add[2], 0);
	MRC_T_EQ(add[3], 1);
	return MRC_TEST_OK;
}

/* The same set in another order is no change; q tells flows of one pair apart. */
static int
test_diff_order_and_q(void)
{
	const struct mrcd_flow_key live[] = {{1, 0, 1}, {0, 1, 0}, {1, 0, 0}, {0, 1, 1}};
	const struct mrcd_flow_key same[] = {{0, 1, 0}, {0, 1, 1}, {1, 0, 0}, {1, 0, 1}};
	const struct mrcd_flow_key fewer[] = {{0, 1, 0}, {1, 0, 0}};
	uint8_t keep[4], add[4];

	MRC_T_EQ(mrcd_reload_diff(live, 4, same, 4, keep, add), 0);
	for (int i = 0; i < 4; i++) {
		MRC_T_EQ(keep[i], 1);
		MRC_T_EQ(add[i], 0);
	}
	/* qps_per_peer 2 -> 1: the q = 1 flows go, wherever they sit in the live list */
	MRC_T_EQ(mrcd_reload_diff(live, 4, fewer, 2, keep, add), 2);
	MRC_T_EQ(keep[0], 0);
	MRC_T_EQ(keep[1], 1);
	MRC_T_EQ(keep[2], 1);
	MRC_T_EQ(keep[3], 0);
	MRC_T_EQ(add[0] + add[1], 0);
	/* and back: the q = 1 flows come, none goes */
	MRC_T_EQ(mrcd_reload_diff(fewer, 2, live, 4, keep, add), 2);
	MRC_T_EQ(keep[0] + keep[1], 2);
	MRC_T_EQ(add[0], 1);
	MRC_T_EQ(add[1], 0);
	MRC_T_EQ(add[2], 0);
	MRC_T_EQ(add[3], 1);
	return MRC_TEST_OK;
}

/* Nothing before (profile none) or nothing after: all come, or all go. */
static int
test_diff_empty(void)
{
	const struct mrcd_flow_key some[] = {{0, 1, 0}, {1, 0, 0}};
	uint8_t keep[2], add[2];

	MRC_T_EQ(mrcd_reload_diff(NULL, 0, some, 2, keep, add), 2);
	MRC_T_EQ(add[0] + add[1], 2);
	MRC_T_EQ(mrcd_reload_diff(some, 2, NULL, 0, keep, add), 2);
	MRC_T_EQ(keep[0] + keep[1], 0);
	MRC_T_EQ(mrcd_reload_diff(NULL, 0, NULL, 0, keep, add), 0);
	return MRC_TEST_OK;
}

/* The cluster's flow list a profile makes, in mrcd_reload_want()'s order. */
static uint32_t
cluster_list(uint8_t pattern, uint16_t qpp, unsigned int nc, struct mrcd_flow_key *out)
{
	struct mrcd_profile p;
	uint16_t pairs[64][2];
	uint32_t n = 0;

	mrcd_profile_defaults(&p);
	p.pattern = pattern;
	p.qps_per_peer = qpp;
	const unsigned int np = mrcd_pattern_pairs(&p, nc, 1, pairs, 64);

	for (unsigned int i = 0; i < np; i++)
		for (uint16_t q = 0; q < qpp; q++)
			out[n++] = (struct mrcd_flow_key){pairs[i][0], pairs[i][1], q};
	return n;
}

/* One process's view of the cluster's numbering: the flows in force, the count. */
struct side {
	struct mrcd_flow_key cl[64];
	uint32_t n;
	struct mrcd_reload_count c;
	struct mrcd_reload_place place[64];
	uint8_t add[64];
	char what[256];
};

/* A reload of the cluster's list to want[n] on one side, as mrcd_reload_flows() does it. */
static int
take(struct side *s, const struct mrcd_flow_key *want, uint32_t n, uint32_t max_pairs,
	const uint32_t *reserve)
{
	uint8_t keep[64];
	int rc = mrcd_reload_diff(s->cl, s->n, want, n, keep, s->add);

	memset(s->place, 0xff, sizeof(s->place));
	if (rc >= 0)
		rc = mrcd_reload_number(&s->c, want, n, s->add, max_pairs, reserve, s->place,
			s->what, sizeof(s->what));
	if (rc >= 0) {
		memcpy(s->cl, want, n * sizeof(*want));
		s->n = n;
	}
	return rc;
}

/*
 * Across processes, each process numbers the flows a reload adds from the
 * cluster's lists alone: two processes given the same reloads hand every
 * added flow the same QPN pair and slots; a flow removed and added again
 * takes new ones; a reserve spent is refused with its size named, nothing
 * taken.
 */
static int
test_number_across_processes(void)
{
	static struct side a, b;
	struct mrcd_flow_key two[64], one[64];
	const uint32_t n2 = cluster_list(MRCD_PAT_PAIRS, 2, 2, two);
	const uint32_t n1 = cluster_list(MRCD_PAT_PAIRS, 1, 2, one);
	uint32_t reserve[MRCD_RELOAD_MAX_HOSTS] = {4, 4};

	MRC_T_EQ(n2, 4u);
	MRC_T_EQ(n1, 2u);
	a.n = b.n = cluster_list(MRCD_PAT_PAIRS, 2, 2, a.cl);
	memcpy(b.cl, a.cl, sizeof(a.cl));
	/* qps_per_peer 2 -> 1: nothing to number */
	MRC_T_EQ(take(&a, one, n1, 64, reserve), 0);
	MRC_T_EQ(take(&b, one, n1, 64, reserve), 0);
	/* 1 -> 2: 0 -> 1 (q 1) then 1 -> 0 (q 1), in the list's order, alike at both */
	MRC_T_EQ(take(&a, two, n2, 64, reserve), 2);
	MRC_T_EQ(take(&b, two, n2, 64, reserve), 2);
	MRC_T_EQ(memcmp(a.place, b.place, sizeof(a.place)), 0);
	MRC_T_EQ(a.add[1] + a.add[3], 2);
	MRC_T_EQ(a.place[1].pair, 0u);
	MRC_T_EQ(a.place[1].src_slot, 0u); /* host 0's first */
	MRC_T_EQ(a.place[1].dst_slot, 0u); /* host 1's first */
	MRC_T_EQ(a.place[3].pair, 1u);
	MRC_T_EQ(a.place[3].src_slot, 1u); /* host 1's second */
	MRC_T_EQ(a.place[3].dst_slot, 1u); /* host 0's second */
	/* removed and added again: new pairs and slots, never the ones before */
	MRC_T_EQ(take(&a, one, n1, 64, reserve), 0);
	MRC_T_EQ(take(&b, one, n1, 64, reserve), 0);
	MRC_T_EQ(take(&a, two, n2, 64, reserve), 2);
	MRC_T_EQ(take(&b, two, n2, 64, reserve), 2);
	MRC_T_EQ(memcmp(a.place, b.place, sizeof(a.place)), 0);
	MRC_T_EQ(a.place[1].pair, 2u);
	MRC_T_EQ(a.place[3].pair, 3u);
	MRC_T_EQ(a.place[1].src_slot, 2u);
	MRC_T_EQ(a.place[3].dst_slot, 3u);
	MRC_T_EQ(a.c.slots[0], 4u);
	MRC_T_EQ(a.c.slots[1], 4u);
	/* a third time: each host's 4 slots are spent; refused, nothing taken */
	MRC_T_EQ(take(&a, one, n1, 64, reserve), 0);
	MRC_T_EQ(take(&a, two, n2, 64, reserve), -ENOSPC);
	MRC_T_ASSERT(strstr(a.what, "host 0's 4 reserve message slots") != NULL, "'%s'", a.what);
	MRC_T_EQ(a.c.pairs, 4u);
	MRC_T_EQ(a.n, n1);
	/* and with room for one more pair only: the pairs' count is named */
	reserve[0] = reserve[1] = 8;
	MRC_T_EQ(take(&a, two, n2, 5, reserve), -ENOSPC);
	MRC_T_ASSERT(strstr(a.what, "the 5 QPN pairs") != NULL, "'%s'", a.what);
	MRC_T_EQ(a.c.pairs, 4u);
	MRC_T_EQ(a.c.slots[0], 4u);
	MRC_T_EQ(take(&a, two, n2, 6, reserve), 2);
	MRC_T_EQ(a.place[1].pair, 4u);
	MRC_T_EQ(a.place[3].pair, 5u);
	return MRC_TEST_OK;
}

/*
 * A process counts the flows between hosts it does not have too: with
 * three hosts, pairs -> all to all numbers 1 -> 2 and 2 -> 1 as well, and
 * host 2's slots, in every process.
 */
static int
test_number_other_hosts(void)
{
	static struct side a;
	struct mrcd_flow_key all[64];
	const uint32_t reserve[MRCD_RELOAD_MAX_HOSTS] = {8, 8, 8};
	const uint32_t n = cluster_list(MRCD_PAT_ALL_TO_ALL, 1, 3, all);
	int added = 0;

	a.n = cluster_list(MRCD_PAT_RING, 1, 3, a.cl); /* 0->1, 1->2, 2->0 */
	MRC_T_EQ(a.n, 3u);
	MRC_T_EQ(n, 6u);
	MRC_T_EQ(take(&a, all, n, 64, reserve), 3);
	for (uint32_t j = 0; j < n; j++) {
		if (!a.add[j])
			continue;
		MRC_T_EQ(a.place[j].pair, (uint32_t)added);
		added++;
	}
	MRC_T_EQ(a.c.slots[0] + a.c.slots[1] + a.c.slots[2], 6u);
	MRC_T_EQ(a.c.slots[2], 2u);
	return MRC_TEST_OK;
}

/* A path keeps its NUL; '@' is an abstract name: a leading NUL, no terminator counted. */
static int
test_notify_addr(void)
{
	struct sockaddr_un a;
	socklen_t len;
	char longer[sizeof(a.sun_path) + 2];

	MRC_T_EQ(mrcd_notify_addr("/run/systemd/notify", &a, &len), 0);
	MRC_T_STREQ(a.sun_path, "/run/systemd/notify");
	MRC_T_EQ(len, offsetof(struct sockaddr_un, sun_path) + strlen("/run/systemd/notify") + 1);
	MRC_T_EQ(mrcd_notify_addr("@mrcd-notify", &a, &len), 0);
	MRC_T_EQ(a.sun_path[0], '\0');
	MRC_T_MEMEQ(a.sun_path + 1, "mrcd-notify", 11);
	MRC_T_EQ(len, offsetof(struct sockaddr_un, sun_path) + 12);
	MRC_T_EQ(mrcd_notify_addr("", &a, &len), -EINVAL);
	MRC_T_EQ(mrcd_notify_addr("@", &a, &len), -EINVAL);
	MRC_T_EQ(mrcd_notify_addr("relative/path", &a, &len), -EINVAL);
	memset(longer, 'x', sizeof(longer) - 1);
	longer[0] = '/';
	longer[sizeof(longer) - 1] = '\0';
	MRC_T_EQ(mrcd_notify_addr(longer, &a, &len), -ENAMETOOLONG);
	/* a full-length abstract name fits: it needs no terminator */
	longer[0] = '@';
	longer[sizeof(a.sun_path)] = '\0';
	MRC_T_EQ(mrcd_notify_addr(longer, &a, &len), 0);
	MRC_T_EQ(len, sizeof(a));
	return MRC_TEST_OK;
}

/* A datagram to an abstract socket as systemd binds it: the text as given, one message each. */
static int
test_notify_send(void)
{
	char name[64], value[80], buf[256];
	struct sockaddr_un a;
	struct mrcd_notify n;
	socklen_t len;
	int fd;
	ssize_t got;

	snprintf(name, sizeof(name), "mrcd-unit-notify-%ld", (long)getpid());
	snprintf(value, sizeof(value), "@%s", name);
	MRC_T_EQ(mrcd_notify_addr(value, &a, &len), 0);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	MRC_T_ASSERT(fd >= 0, "socket");
	MRC_T_EQ(bind(fd, (const struct sockaddr *)&a, len), 0);
	MRC_T_EQ(setenv("NOTIFY_SOCKET", value, 1), 0);
	MRC_T_EQ(mrcd_notify_open(&n), 0);
	MRC_T_ASSERT(n.fd >= 0, "no socket for NOTIFY_SOCKET=%s", value);
	MRC_T_EQ(mrcd_notify_send(&n, "READY=1\nSTATUS=up"), 0);
	MRC_T_EQ(mrcd_notify_send(&n, "STOPPING=1"), 0);
	got = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	MRC_T_EQ(got, 17);
	buf[got] = '\0';
	MRC_T_STREQ(buf, "READY=1\nSTATUS=up");
	got = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	MRC_T_EQ(got, 10);
	MRC_T_EQ(n.sent, 2);
	MRC_T_EQ(n.failed, 0);
	/* Nobody listening any more: counted, not fatal. */
	close(fd);
	MRC_T_ASSERT(mrcd_notify_send(&n, "STATUS=x") < 0, "sent to a closed socket");
	MRC_T_EQ(n.failed, 1);
	mrcd_notify_close(&n);
	/* Unset: nothing is opened and a send is a no-op. */
	unsetenv("NOTIFY_SOCKET");
	MRC_T_EQ(mrcd_notify_open(&n), 0);
	MRC_T_EQ(n.fd, -1);
	MRC_T_EQ(mrcd_notify_send(&n, "READY=1"), 0);
	MRC_T_EQ(n.sent, 0);
	return MRC_TEST_OK;
}

/*
 * A receiver whose sender is in another process takes a message's length
 * from the write (that process takes a reload's sizes at its own moment)
 * and checks every byte of it; one whose sender is here wants the exact
 * length of the shape it was posted with. A sender counts the bytes its
 * completion carried.
 */
static int
test_received_across_processes(void)
{
	static struct mrcd_gen_params g;
	static struct mrcd_hist hist;
	struct mrcd_flow f;
	uint64_t post_tsc[2] = {0, 0};
	uint8_t *buf;
	struct mrc_cqe e;

	mrcd_profile_defaults(&g.p);
	g.p.msg_kb = 64;
	g.p.outstanding = 2;
	g.p.verify = true;
	mrcd_profile_derive(&g.p);
	g.before = g.p;
	MRC_T_EQ(g.p.max_kb, 64u);
	buf = calloc(2, 64 * 1024);
	MRC_T_ASSERT(buf != NULL, "no memory");
	memset(&f, 0, sizeof(f));
	f.id = 7;
	f.src_local = -1;
	f.dst_local = 0;
	f.dst_buf = buf;
	mrcd_flow_copy_rx(&f); /* as setup does with dst_buf */
	f.post_tsc = post_tsc;
	/* Message 0 of 16 KiB, sent by a process that took msg_kb 16 before this one. */
	mrcd_gen_fill(buf, 16384, f.id, 0);
	e = (struct mrc_cqe){.byte_len = 16384, .imm = 0, .opcode = MRC_CQE_RECV_IMM};
	mrcd_gen_received(&g, &f, &e);
	MRC_T_EQ(f.verify_errors, 0u);
	MRC_T_EQ(f.verified_msgs, 1u);
	MRC_T_EQ(f.verified_bytes, 16384u);
	/* Message 1 of 64 KiB (the old size) after it: both shapes are taken. */
	mrcd_gen_fill(buf + 65536, 65536, f.id, 1);
	e = (struct mrc_cqe){.byte_len = 65536, .imm = 1, .opcode = MRC_CQE_RECV_IMM};
	mrcd_gen_received(&g, &f, &e);
	MRC_T_EQ(f.verify_errors, 0u);
	MRC_T_EQ(f.verified_bytes, 16384u + 65536u);
	/* Every byte is still checked: one wrong byte of message 2 fails it. */
	mrcd_gen_fill(buf, 8192, f.id, 2);
	buf[8191] ^= 1;
	e = (struct mrc_cqe){.byte_len = 8192, .imm = 2, .opcode = MRC_CQE_RECV_IMM};
	mrcd_gen_received(&g, &f, &e);
	MRC_T_EQ(f.verify_errors, 1u);
	MRC_T_EQ(f.verified_msgs, 2u);
	/* No length but a whole KiB that fits a slot: larger, not whole, none. */
	const uint32_t bad[] = {65536 + 1024, 8000, 0};

	for (unsigned int k = 0; k < 3; k++) {
		const uint64_t seq = f.recv_seq;

		mrcd_gen_fill(buf + (seq % 2) * 65536, bad[k] < 65536 ? bad[k] : 65536, f.id, seq);
		e = (struct mrc_cqe){
			.byte_len = bad[k], .imm = (uint32_t)seq, .opcode = MRC_CQE_RECV_IMM};
		mrcd_gen_received(&g, &f, &e);
		MRC_T_EQ(f.verify_errors, 2u + k);
	}
	MRC_T_EQ(f.verified_msgs, 2u);
	/* A sender in this process: only the length of its shape (64 KiB) passes. */
	f.src_local = 0;
	mrcd_flow_copy_rx(&f);
	mrcd_gen_fill(buf + (f.recv_seq % 2) * 65536, 16384, f.id, f.recv_seq);
	e = (struct mrc_cqe){
		.byte_len = 16384, .imm = (uint32_t)f.recv_seq, .opcode = MRC_CQE_RECV_IMM};
	mrcd_gen_received(&g, &f, &e);
	MRC_T_EQ(f.verify_errors, 5u);
	mrcd_gen_fill(buf + (f.recv_seq % 2) * 65536, 65536, f.id, f.recv_seq);
	e = (struct mrc_cqe){
		.byte_len = 65536, .imm = (uint32_t)f.recv_seq, .opcode = MRC_CQE_RECV_IMM};
	mrcd_gen_received(&g, &f, &e);
	MRC_T_EQ(f.verify_errors, 5u);
	MRC_T_EQ(f.verified_msgs, 3u);
	/* The sender's bytes: the completion's length, not the sizes in force. */
	e = (struct mrc_cqe){.wr_id = 0, .byte_len = 16384, .opcode = MRC_CQE_WRITE_IMM};
	mrcd_gen_sent(&g, &f, &e, 100, 1000000000, &hist);
	MRC_T_EQ(f.completed, 1u);
	MRC_T_EQ(f.completed_bytes, 16384u);
	free(buf);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_profile_check),
	MRC_TEST_CASE(test_diff_kept_removed_added),
	MRC_TEST_CASE(test_diff_order_and_q),
	MRC_TEST_CASE(test_diff_empty),
	MRC_TEST_CASE(test_number_across_processes),
	MRC_TEST_CASE(test_number_other_hosts),
	MRC_TEST_CASE(test_received_across_processes),
	MRC_TEST_CASE(test_notify_addr),
	MRC_TEST_CASE(test_notify_send),
};

MRC_TEST_MAIN("mrcd_reload", cases)
