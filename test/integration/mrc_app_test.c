/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * An MRC program on lib_mrc, the shape doc/applications.md describes: two
 * processes on one mrcd (or two), each a host; QPN, rkey, address, GID and
 * PSN exchanged over TCP; the server writes a start word into the client's
 * buffer; the client, spinning on it, writes its buffer into the server's in
 * bursts (every 64th request signalled) for `seconds`, each round with its * own byte pattern, then
 * a WRITE_WITH_IMM carrying the round count; the server, told of it by an event on its receive CQ's
 * completion channel, takes it on a posted receive and checks every byte of the last round. Exit 0
 * when all of it held.
 *
 * MODE (last argument, optional):
 *   normal  the above;
 *   bad     the client also makes bad requests, each of which must fail alone
 *           and change nothing: a SEND (EINVAL), a wrong lkey and memory no
 *           region holds (EINVAL), a post on a QP in RESET (EINVAL); after
 *           the transfer a write with a wrong rkey completes
 *           IBV_WC_REM_ACCESS_ERR, the QP is then in ERROR (IBV_EVENT_QP_FATAL),
 *           and a write posted after completes IBV_WC_WR_FLUSH_ERR; a reset
 *           with writes in flight leaves no completion behind;
 *   hostile the client writes bad requests straight into the shared rings
 *           (a bad opcode, a key not its own, memory past its region, a
 *           scribbled ring head) and a malformed socket message: each is
 *           refused (its verbs error, the QP to ERROR) and the QP brought
 *           back; then the transfer must work; and it opens a second
 *           session, to the peer's host, whose HELLO says it is pid 1
 *           (mrcd must show this process's pid, which the test checks);
 *   die     mrcd is stopped under the program: it must see its outstanding
 *           work complete IBV_WC_WR_FLUSH_ERR and IBV_EVENT_DEVICE_FATAL, and
 *           exit 0 then (3 if mrcd never went away).
 *
 * QPS (after MODE, optional, 1..16, default 1): the client writes over that
 * many QPs, the buffer's chunks dealt out to them in turn (each QP's every
 * 64th and its last of a round signalled), all sharing the send CQ; the
 * start word and the WRITE_WITH_IMM go on the first. On a host of several
 * workers the QPs are spread over them, and so are the CQ's rings.
 *
 * Usage: mrc-app-test server|client SOCKET HOST TCP_PORT BYTES MSG_BYTES SECONDS [MODE [QPS]]
 *
 * MRC_APP_TEST_EV_PROFILE, MRC_APP_TEST_CC_PROFILE (environment): the
 * daemon's profile ids the QP names at RESET -> INIT (doc/control.md,
 * "Profiles"); unset: none named, the defaults. MRC_APP_TEST_BAD_PROFILE:
 * a CC profile id the daemon does not have, tried first: RESET -> INIT with
 * it must fail EINVAL and leave the QP in RESET.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <mrc.h>

#include "mrc_chan.h"
#include "mrc_lib_priv.h" /* hostile mode writes the shared rings itself */

#define START_WORD 0x5354415254ull /* "START" */
#define IMM_MAGIC  0x4d524300u

#define MAX_QPS 16

static bool expect_death;
static struct mrc_context *the_ctx;

static unsigned int my_host; /* the host this program attached to */

struct peer_info {
	uint32_t qpn, rkey, psn;
	uint64_t addr;
	uint8_t gid[16];
};

static double
now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static _Noreturn void
die(const char *what)
{
	fprintf(stderr, "mrc-app-test: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int
tcp_exchange(bool server, int port, const struct peer_info *mine, struct peer_info *theirs,
	unsigned int n)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	int fd, one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (server) {
		int l = fd;

		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(l, 1) != 0)
			die("listen");
		fd = accept(l, NULL, NULL);
		close(l);
	} else {
		for (int tries = 0; connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0; tries++) {
			if (tries > 100)
				die("connect to the server");
			usleep(50000);
		}
	}
	/* n records each way, small enough for one segment on loopback */
	if (fd < 0 || write(fd, mine, n * sizeof(*mine)) != (ssize_t)(n * sizeof(*mine)) ||
		recv(fd, theirs, n * sizeof(*theirs), MSG_WAITALL) !=
			(ssize_t)(n * sizeof(*theirs)))
		die("exchange");
	return fd;
}

/* The profile ids the environment names for RESET -> INIT (MRC_QP_*_PROFILE_ID in *mask). */
static void
profiles_from_env(struct mrc_qp_attr *m, int *mask)
{
	const char *ev = getenv("MRC_APP_TEST_EV_PROFILE"), *cc = getenv("MRC_APP_TEST_CC_PROFILE");

	memset(m, 0, sizeof(*m));
	*mask = 0;
	if (ev != NULL && ev[0] != '\0') {
		m->profile.ev_profile_id = strtoull(ev, NULL, 0);
		*mask |= MRC_QP_EV_PROFILE_ID;
	}
	if (cc != NULL && cc[0] != '\0') {
		m->profile.cc_profile_id = strtoull(cc, NULL, 0);
		*mask |= MRC_QP_CC_PROFILE_ID;
	}
}

static void
connect_qp(struct mrc_qp *qp, const struct peer_info *mine, const struct peer_info *theirs)
{
	const char *bad = getenv("MRC_APP_TEST_BAD_PROFILE");
	struct ibv_qp_attr a;
	struct mrc_qp_attr m;
	int mmask;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	if (bad != NULL && bad[0] != '\0') {
		struct ibv_qp_attr now;

		memset(&m, 0, sizeof(m));
		m.profile.cc_profile_id = strtoull(bad, NULL, 0);
		if (mrc_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
			    &m, MRC_QP_CC_PROFILE_ID) != EINVAL) {
			fprintf(stderr, "mrc-app-test: CC profile %s was not refused EINVAL\n",
				bad);
			exit(1);
		}
		if (mrc_query_qp(qp, &now, IBV_QP_STATE, NULL, 0, NULL) != 0 ||
			now.qp_state != IBV_QPS_RESET) {
			fprintf(stderr, "mrc-app-test: a refused profile left the QP in %d\n",
				(int)now.qp_state);
			exit(1);
		}
		printf("mrc-app-test: CC profile %s refused EINVAL, QP still in RESET\n", bad);
	}
	profiles_from_env(&m, &mmask);
	if (mrc_modify_qp(qp, &a,
		    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		    mmask != 0 ? &m : NULL, mmask))
		die("to INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.dest_qp_num = theirs->qpn;
	a.rq_psn = theirs->psn;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.sgid_index = 3;
	memcpy(a.ah_attr.grh.dgid.raw, theirs->gid, 16);
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	if (mrc_modify_qp(qp, &a,
		    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		    NULL, 0))
		die("to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = mine->psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (mrc_modify_qp(qp, &a,
		    IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
		    NULL, 0))
		die("to RTS");
}

/* Which of our QPs a completion is of. */
static unsigned int
qp_index(struct mrc_qp *const *qps, unsigned int n, uint32_t qpn)
{
	for (unsigned int i = 0; i < n; i++) {
		uint32_t q;

		if (mrc_get_qpn(qps[i], &q) == 0 && q == qpn)
			return i;
	}
	fprintf(stderr, "mrc-app-test: a completion of QP 0x%x, none of ours\n", qpn);
	exit(1);
}

/* mrcd is gone (die mode): the device must say so, then we are done. */
static _Noreturn void
device_died(const char *what)
{
	struct mrc_async_event ev;

	if (mrc_get_async_event(the_ctx, &ev) != 0 || ev.event_type != IBV_EVENT_DEVICE_FATAL) {
		fprintf(stderr, "mrc-app-test: %s flushed, but no IBV_EVENT_DEVICE_FATAL\n", what);
		exit(1);
	}
	mrc_ack_async_event(&ev);
	printf("mrcd went away: %s completed IBV_WC_WR_FLUSH_ERR, IBV_EVENT_DEVICE_FATAL "
	       "reported\n",
		what);
	exit(0);
}

/* Wait for one completion on cq; its status must be success. */
static struct ibv_wc
wait_one(struct mrc_cq *cq, const char *what)
{
	const double end = now_s() + 20;
	struct ibv_wc wc;
	int n;

	while ((n = mrc_poll_cq(cq, 1, &wc)) == 0)
		if (now_s() > end) {
			fprintf(stderr, "mrc-app-test: no completion for %s in 20 s\n", what);
			exit(1);
		}
	if (n < 0)
		die(what);
	if (expect_death && wc.status == IBV_WC_WR_FLUSH_ERR)
		device_died(what);
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "mrc-app-test: %s completed %s (wr_id %" PRIu64 ")\n", what,
			ibv_wc_status_str(wc.status), wc.wr_id);
		exit(1);
	}
	return wc;
}

static void
expect(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "mrc-app-test: bad request: %s: not so\n", what);
		exit(1);
	}
	printf("bad request: %s: as expected\n", what);
}

/* A page registered in a protection domain of its own: the program's second domain. */
static struct ibv_mr *
second_domain_region(struct ibv_context *dev)
{
	static uint8_t page[4096] __attribute__((aligned(4096)));
	struct ibv_pd *pd = mrc_sw_alloc_pd(dev);
	struct ibv_mr *mr = pd != NULL ? mrc_sw_reg_mr(pd, page, sizeof(page), 0) : NULL;

	if (mr == NULL)
		die("a region in a second protection domain");
	return mr;
}

static void
second_domain_free(struct ibv_mr *mr)
{
	struct ibv_pd *pd = mr->pd;

	if (mrc_sw_dereg_mr(mr) != 0 || mrc_sw_dealloc_pd(pd) != 0)
		die("the second protection domain's region");
}

/* Requests that must fail alone, changing nothing: the transfer after them must work. */
static void
bad_requests(struct mrc_context *ctx, struct ibv_pd *pd, struct mrc_cq *scq, struct mrc_cq *rcq,
	struct mrc_qp *qp, struct ibv_mr *mr, const struct peer_info *theirs)
{
	uint8_t stack[64];
	struct ibv_sge sge = {.addr = (uintptr_t)mr->addr, .length = 8, .lkey = mr->lkey};
	struct ibv_send_wr wr = {.wr_id = 5,
				   .sg_list = &sge,
				   .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED},
			   *bad = NULL;
	struct mrc_qp_init_attr qa = {.send_cq = scq,
		.recv_cq = rcq,
		.pd = pd,
		.cap = {.max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1}};
	struct mrc_qp *fresh;
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = theirs->addr;
	wr.wr.rdma.rkey = theirs->rkey;
	expect(mrc_post_send(qp, &wr, &bad) == EINVAL && bad == &wr, "a SEND fails with EINVAL");
	wr.opcode = IBV_WR_RDMA_WRITE;
	sge.lkey = mr->lkey + 0x100;
	bad = NULL;
	expect(mrc_post_send(qp, &wr, &bad) == EINVAL && bad == &wr,
		"a wrong lkey fails with EINVAL");
	sge.lkey = mr->lkey;
	sge.addr = (uintptr_t)stack;
	expect(mrc_post_send(qp, &wr, &bad) == EINVAL, "memory no region holds fails with EINVAL");
	{
		struct ibv_mr *mr2 = second_domain_region(pd->context);

		sge.lkey = mr2->lkey;
		sge.addr = (uintptr_t)mr2->addr;
		expect(mrc_post_send(qp, &wr, &bad) == EINVAL,
			"a region of another protection domain fails with EINVAL");
		second_domain_free(mr2);
		sge.lkey = mr->lkey;
	}
	fresh = mrc_create_qp(ctx, &qa);
	sge.addr = (uintptr_t)mr->addr;
	expect(fresh != NULL && mrc_post_send(fresh, &wr, &bad) == EINVAL,
		"a post on a QP in RESET fails with EINVAL");
	mrc_destroy_qp(fresh);
	expect(mrc_poll_cq(scq, 1, &wc) == 0, "none of them completed anything");
	{
		/* Three times as many as a session may hold at once: each let go frees its slot. */
		struct mrc_comp_channel *ch = NULL;
		int made = 0;

		for (int k = 0; k < 24; k++) {
			if (mrc_create_comp_channel(ctx, &ch) != 0)
				break;
			made += mrc_destroy_comp_channel(ch) == 0;
		}
		expect(made == 24, "24 completion channels made and let go, one after another");
	}
}

/* A wrong rkey: the write completes REM_ACCESS_ERR, the QP goes to ERROR, later posts flush. */
static void
bad_rkey(struct mrc_context *ctx, struct mrc_cq *scq, struct mrc_qp *qp, struct ibv_mr *mr,
	const struct peer_info *theirs)
{
	struct ibv_sge sge = {.addr = (uintptr_t)mr->addr, .length = 64, .lkey = mr->lkey};
	struct ibv_send_wr wr = {.wr_id = 6,
				   .sg_list = &sge,
				   .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE,
				   .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	const double end = now_s() + 20;
	struct mrc_async_event ev;
	struct ibv_qp_attr qa;
	struct ibv_wc wc;
	int n;

	wr.wr.rdma.remote_addr = theirs->addr;
	wr.wr.rdma.rkey = theirs->rkey + 0x100;
	if (mrc_post_send(qp, &wr, &bad))
		die("post with a wrong rkey");
	while ((n = mrc_poll_cq(scq, 1, &wc)) == 0 && now_s() < end)
		;
	expect(n == 1 && wc.wr_id == 6 && wc.status == IBV_WC_REM_ACCESS_ERR,
		"a wrong rkey completes IBV_WC_REM_ACCESS_ERR");
	expect(mrc_get_async_event(ctx, &ev) == 0 && ev.event_type == IBV_EVENT_QP_FATAL &&
			ev.element.qp == qp,
		"IBV_EVENT_QP_FATAL for the QP");
	mrc_ack_async_event(&ev);
	expect(mrc_query_qp(qp, &qa, IBV_QP_STATE, NULL, 0, NULL) == 0 &&
			qa.qp_state == IBV_QPS_ERR,
		"the QP is in ERROR");
	wr.wr_id = 7;
	wr.wr.rdma.rkey = theirs->rkey;
	if (mrc_post_send(qp, &wr, &bad))
		die("post in ERROR");
	while ((n = mrc_poll_cq(scq, 1, &wc)) == 0 && now_s() < end)
		;
	expect(n == 1 && wc.wr_id == 7 && wc.status == IBV_WC_WR_FLUSH_ERR,
		"a write posted in ERROR completes IBV_WC_WR_FLUSH_ERR");
}

/* Hostile mode: write into the shared rings behind lib_mrc's back, as a program that skips
 * the library could; mrcd must refuse each request (the verbs error), count it by reason,
 * and take the QP to ERROR. After each, the QP is brought back (RESET .. RTS). */
static void
hostile_post(struct mrc_qp *qp, const struct mrc_chan_swqe *w)
{
	qp->sqe[qp->sq_head & (qp->sq_size - 1)] = *w;
	qp->sq_head++;
	__atomic_store_n(&qp->sq->head, qp->sq_head, __ATOMIC_RELEASE);
}

static void
hostile_expect(struct mrc_context *ctx, struct mrc_cq *scq, struct mrc_qp *qp,
	enum ibv_wc_status want, const char *what)
{
	const double end = now_s() + 20;
	struct mrc_async_event ev;
	struct ibv_wc wc;
	int n;

	while ((n = mrc_poll_cq(scq, 1, &wc)) == 0 && now_s() < end)
		;
	if (n == 1 && wc.status != want)
		fprintf(stderr, "mrc-app-test: %s: completed %s\n", what,
			ibv_wc_status_str(wc.status));
	expect(n == 1 && wc.status == want, what);
	expect(mrc_get_async_event(ctx, &ev) == 0 && ev.event_type == IBV_EVENT_QP_FATAL &&
			ev.element.qp == qp,
		"... and the QP is lost (IBV_EVENT_QP_FATAL)");
	mrc_ack_async_event(&ev);
}

static void
reconnect(struct mrc_qp *qp, const struct peer_info *mine, const struct peer_info *theirs)
{
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_RESET};

	if (mrc_modify_qp(qp, &a, IBV_QP_STATE, NULL, 0))
		die("to RESET");
	connect_qp(qp, mine, theirs);
}

/*
 * RESET drops what was posted: writes in flight when the QP is reset leave no
 * completion behind for the QP's next life (the QP is connected again, which
 * puts it back on its worker, and nothing may come). The peer's PSNs are not
 * exchanged again, so the new life sends nothing.
 */
static void
reset_drops_old_work(struct mrc_cq *scq, struct mrc_qp *qp, struct ibv_mr *mr,
	const struct peer_info *mine, const struct peer_info *theirs)
{
	struct ibv_sge sge = {.addr = (uintptr_t)mr->addr, .length = 4096, .lkey = mr->lkey};
	struct ibv_send_wr wr = {.sg_list = &sge,
				   .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE,
				   .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_RESET};
	struct ibv_wc wc[64];
	int n = 0;

	reconnect(qp, mine, theirs);
	wr.wr.rdma.remote_addr = theirs->addr;
	wr.wr.rdma.rkey = theirs->rkey;
	for (wr.wr_id = 100; wr.wr_id < 132; wr.wr_id++)
		if (mrc_post_send(qp, &wr, &bad))
			die("post before the reset");
	if (mrc_modify_qp(qp, &a, IBV_QP_STATE, NULL, 0))
		die("to RESET");
	usleep(100000);
	while (mrc_poll_cq(scq, 64, wc) > 0) /* what completed before the reset stands */
		;
	connect_qp(qp, mine, theirs);
	usleep(300000);
	n = mrc_poll_cq(scq, 64, wc);
	if (n > 0)
		fprintf(stderr,
			"mrc-app-test: %d completions after the reset, the first wr_id %" PRIu64
			" %s\n",
			n, wc[0].wr_id, ibv_wc_status_str(wc[0].status));
	expect(n == 0, "a reset with writes in flight leaves no completion for the next life");
}

/*
 * A flood of receives in a QP in ERROR, each flushed at once: the receive
 * ring's head kept a full ring ahead of the daemon's tail and the receive
 * CQ's rings kept empty, from a thread of its own, while the main thread
 * asks the daemon for something its worker must do.
 */
struct flood {
	struct mrc_qp *qp;
	struct mrc_cq *rcq;
	volatile bool stop;
};

static void *
flood_run(void *arg)
{
	struct flood *f = arg;
	const double end = now_s() + 3; /* a worker held by it is let go then */

	while (!f->stop && now_s() < end) {
		const uint32_t tail = __atomic_load_n(&f->qp->rq->tail, __ATOMIC_ACQUIRE);

		__atomic_store_n(&f->qp->rq->head, tail + f->qp->rq_size, __ATOMIC_RELEASE);
		for (uint32_t w = 0; w < f->rcq->n_rings; w++) {
			struct mrc_chan_ring *r =
				(struct mrc_chan_ring *)(f->rcq->shm +
							 mrc_chan_cq_ring_off(f->rcq->entries, w));

			__atomic_store_n(&r->tail, __atomic_load_n(&r->head, __ATOMIC_ACQUIRE),
				__ATOMIC_RELEASE);
		}
	}
	return NULL;
}

/* The program's view of its receive ring and CQ after the flood took them behind its back. */
static void
flood_resync(struct mrc_qp *qp, struct mrc_cq *rcq)
{
	const uint32_t tail = __atomic_load_n(&qp->rq->tail, __ATOMIC_ACQUIRE);

	__atomic_store_n(&qp->rq->head, tail, __ATOMIC_RELEASE);
	qp->rq_head = tail;
	qp->rq_done = tail;
	for (uint32_t w = 0; w < rcq->n_rings; w++) {
		struct mrc_chan_ring *r =
			(struct mrc_chan_ring *)(rcq->shm + mrc_chan_cq_ring_off(rcq->entries, w));

		rcq->tail[w] = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		__atomic_store_n(&r->tail, rcq->tail[w], __ATOMIC_RELEASE);
	}
}

/*
 * Memory of another protection domain: a region of this program's second
 * domain named in the ring (the QP is of its first), and the peer host's
 * own message buffers (mrcd's first region there, key 0x1, zero-based),
 * which a peer could guess. Neither is read or written.
 */
static void
other_domain(struct ibv_context *dev, struct mrc_context *ctx, struct mrc_cq *scq,
	struct mrc_qp *qp, struct mrc_chan_swqe *w, const struct peer_info *mine,
	const struct peer_info *theirs)
{
	struct ibv_mr *mr2 = second_domain_region(dev);
	const struct mrc_chan_swqe keep = *w;

	w->lkey = mr2->lkey;
	w->laddr = (uintptr_t)mr2->addr;
	hostile_post(qp, w);
	hostile_expect(ctx, scq, qp, IBV_WC_LOC_PROT_ERR,
		"a region of our other protection domain in the ring: LOC_PROT_ERR");
	reconnect(qp, mine, theirs);
	*w = keep;
	w->rkey = 0x1;
	w->raddr = 0;
	hostile_post(qp, w);
	hostile_expect(ctx, scq, qp, IBV_WC_REM_ACCESS_ERR,
		"a write into mrcd's own memory at the peer (key 0x1): REM_ACCESS_ERR");
	reconnect(qp, mine, theirs);
	*w = keep;
	second_domain_free(mr2);
}

/*
 * A session whose HELLO says it is pid 1: it must attach all the same, and
 * mrcd must show the pid and uid the kernel gives its socket (this
 * process's). Left open for the test to read /mrc/apps; closed by the caller.
 */
static struct mrc_lib_dev *
liar_session(const char *sock, unsigned int host)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct mrc_lib_dev *liar = calloc(1, sizeof(*liar));
	struct mrc_chan_req hr = {.op = MRC_CHAN_HELLO};
	struct mrc_chan_rep rep;

	if (liar == NULL || strlen(sock) >= sizeof(sa.sun_path))
		die("a second session");
	strcpy(sa.sun_path, sock);
	pthread_mutex_init(&liar->lock, NULL);
	liar->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (liar->fd < 0 || connect(liar->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		die("a second session: connect");
	hr.u.hello.version = MRC_CHAN_VERSION;
	hr.u.hello.api_version = MRC_API_CURRENT_VERSION;
	hr.u.hello.host = host;
	hr.u.hello.pid = 1;
	expect(mrc_lib_rpc(liar, &hr, -1, &rep, NULL) == 0,
		"a second session whose HELLO says pid 1: attached");
	return liar;
}

static void
hostile(const char *sock, struct ibv_context *dev, struct mrc_context *ctx, struct mrc_cq *scq,
	struct mrc_qp *qp, struct ibv_mr *mr, const struct peer_info *mine,
	const struct peer_info *theirs)
{
	struct mrc_lib_dev *d = mrc_lib_dev_of(dev);
	struct mrc_chan_swqe w = {.wr_id = 41,
		.laddr = (uintptr_t)mr->addr,
		.raddr = theirs->addr,
		.len = 64,
		.lkey = mr->lkey,
		.rkey = theirs->rkey,
		.opcode = 9,
		.flags = MRC_CHAN_WR_SIGNALED};
	struct mrc_chan_rep rep;
	struct mrc_lib_dev *liar;
	uint8_t junk[3] = {1, 2, 3};

	hostile_post(qp, &w);
	hostile_expect(ctx, scq, qp, IBV_WC_LOC_QP_OP_ERR, "opcode 9 in the ring: LOC_QP_OP_ERR");
	reconnect(qp, mine, theirs);
	w.opcode = MRC_CHAN_WR_WRITE;
	w.lkey = mr->lkey ^ 0x300;
	hostile_post(qp, &w);
	hostile_expect(
		ctx, scq, qp, IBV_WC_LOC_PROT_ERR, "a key not ours in the ring: LOC_PROT_ERR");
	reconnect(qp, mine, theirs);
	w.lkey = mr->lkey;
	w.laddr = (uintptr_t)mr->addr + mr->length; /* just past the region */
	hostile_post(qp, &w);
	hostile_expect(ctx, scq, qp, IBV_WC_LOC_PROT_ERR,
		"memory past the region in the ring: LOC_PROT_ERR");
	reconnect(qp, mine, theirs);
	w.laddr = (uintptr_t)mr->addr;
	other_domain(dev, ctx, scq, qp, &w, mine, theirs);
	/* mrcd's own checks, whatever lib_mrc would have said: a channel a CQ uses stays */
	{
		struct mrc_comp_channel *ch = NULL;
		struct mrc_cq *cq = NULL;
		struct mrc_chan_req dr = {.op = MRC_CHAN_DESTROY_CHANNEL};

		if (mrc_create_comp_channel(ctx, &ch) != 0 ||
			(cq = mrc_create_cq(ctx, 16, NULL, ch, 0)) == NULL)
			die("a channel and its CQ");
		dr.u.destroy_channel.channel = ch->id;
		errno = 0;
		expect(mrc_lib_rpc(d, &dr, -1, &rep, NULL) != 0 && errno == EBUSY,
			"letting go of a channel a CQ uses: refused with EBUSY");
		dr.u.destroy_channel.channel = 99;
		errno = 0;
		expect(mrc_lib_rpc(d, &dr, -1, &rep, NULL) != 0 && errno == EINVAL,
			"letting go of channel 99, not ours: refused with EINVAL");
		if (mrc_destroy_cq(cq) != 0 || mrc_destroy_comp_channel(ch) != 0)
			die("the channel and its CQ");
	}
	/* a head far ahead of the tail: nothing of the ring is taken */
	__atomic_store_n(&qp->sq->head, qp->sq_head + 100000, __ATOMIC_RELEASE);
	{
		const double end = now_s() + 20;
		struct mrc_async_event ev;

		while (__atomic_load_n(&qp->st->state, __ATOMIC_ACQUIRE) != MRC_CHAN_QPS_ERR &&
			now_s() < end)
			;
		expect(mrc_get_async_event(ctx, &ev) == 0 && ev.event_type == IBV_EVENT_QP_FATAL,
			"a scribbled ring head: the QP is lost (IBV_EVENT_QP_FATAL)");
		mrc_ack_async_event(&ev);
	}
	/* The daemon took its tail to the scribbled head: ours follows it. */
	qp->sq_head = __atomic_load_n(&qp->sq->tail, __ATOMIC_ACQUIRE);
	qp->sq_done = qp->sq_head;
	reconnect(qp, mine, theirs);
	/* a socket message of the wrong size: refused, and the session goes on */
	expect(send(d->fd, junk, sizeof(junk), 0) == (ssize_t)sizeof(junk) &&
			recv(d->fd, &rep, sizeof(rep), 0) == (ssize_t)sizeof(rep) &&
			rep.rc == -EINVAL,
		"a 3-byte socket message: refused with EINVAL");
	/* a second HELLO, for the other host: refused, the session stays on its host */
	{
		struct mrc_chan_req hr = {.op = MRC_CHAN_HELLO};

		hr.u.hello.version = MRC_CHAN_VERSION;
		hr.u.hello.api_version = MRC_API_CURRENT_VERSION;
		hr.u.hello.host = my_host == 0 ? 1 : 0; /* a host of this mrcd, not ours */
		hr.u.hello.pid = (uint32_t)getpid();
		errno = 0;
		expect(mrc_lib_rpc(d, &hr, -1, &rep, NULL) != 0 && errno == EPROTO,
			"a second HELLO, for the peer's host: refused with EPROTO");
	}
	/*
	 * Flushed receives without end: the worker flushes a ring's worth a
	 * pass and goes on with its other work, so what the daemon does on it
	 * (here: the QP reset and connected again) is done while the flood
	 * goes on.
	 */
	{
		struct flood f = {.qp = qp, .rcq = qp->init.recv_cq};
		pthread_t th;
		double t0, took;

		w.opcode = 9;
		hostile_post(qp, &w);
		hostile_expect(
			ctx, scq, qp, IBV_WC_LOC_QP_OP_ERR, "opcode 9 again: the QP in ERROR");
		if (pthread_create(&th, NULL, flood_run, &f) != 0)
			die("pthread_create");
		const uint32_t tail0 = __atomic_load_n(&qp->rq->tail, __ATOMIC_ACQUIRE);

		usleep(200000);
		printf("hostile: %u receives flushed in 0.2 s of flood\n",
			__atomic_load_n(&qp->rq->tail, __ATOMIC_ACQUIRE) - tail0);
		t0 = now_s();
		reconnect(qp, mine, theirs);
		took = now_s() - t0;
		f.stop = true;
		pthread_join(th, NULL);
		flood_resync(qp, qp->init.recv_cq);
		reconnect(qp, mine, theirs);
		printf("hostile: reconnect under a flood of flushed receives took %.3f s\n", took);
		expect(took < 1.0, "a flood of flushed receives: the worker goes on with its work");
	}
	liar = liar_session(sock, my_host == 0 ? 1 : 0);
	printf("hostile: done\n");
	fflush(stdout);
	sleep(2); /* the test reads /mrc/apps meanwhile */
	close(liar->fd);
	free(liar);
}

/*
 * Flush mode, the client: writes posted and the QP put in ERROR at once, so
 * every one completes (flushed, or done if it got there) while its packets
 * still wait to leave (apps_dereg keeps the fabric full); then the region is
 * deregistered at once. Verbs lets it go after the completions, whatever
 * the wire still carries: it must succeed the first time.
 */
static void
flush_then_dereg(struct mrc_cq *scq, struct mrc_qp *qp, struct ibv_mr *mr,
	const struct peer_info *theirs, size_t msg)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr, .length = (uint32_t)msg, .lkey = mr->lkey};
	struct ibv_send_wr wr = {.sg_list = &sge,
				   .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE,
				   .send_flags = IBV_SEND_SIGNALED},
			   *bad;
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_ERR};
	unsigned int done = 0, flushed = 0;
	const unsigned int n = 32;
	struct ibv_wc wc[64];
	double t;

	wr.wr.rdma.remote_addr = theirs->addr;
	wr.wr.rdma.rkey = theirs->rkey;
	for (wr.wr_id = 0; wr.wr_id < n; wr.wr_id++)
		if (mrc_post_send(qp, &wr, &bad))
			die("post before ERROR");
	usleep(2000); /* the worker sends what its window lets out */
	if (mrc_modify_qp(qp, &a, IBV_QP_STATE, NULL, 0))
		die("to ERROR");
	for (const double end = now_s() + 20; done < n;) {
		const int got = mrc_poll_cq(scq, 64, wc);

		if (got < 0)
			die("poll the flushed writes");
		for (int k = 0; k < got; k++)
			flushed += wc[k].status == IBV_WC_WR_FLUSH_ERR;
		done += (unsigned int)got;
		if (now_s() > end) {
			fprintf(stderr, "mrc-app-test: %u of %u writes completed in 20 s\n", done,
				n);
			exit(1);
		}
	}
	t = now_s();
	if (mrc_sw_dereg_mr(mr) != 0)
		die("deregistering the buffer right after its writes completed");
	printf("client: %u writes completed (%u flushed), the region deregistered at once "
	       "(%.3f ms)\n",
		done, flushed, (now_s() - t) * 1e3);
}

int
main(int argc, char **argv)
{
	if (argc < 8 || argc > 10) {
		fprintf(stderr,
			"usage: %s server|client SOCKET HOST TCP_PORT BYTES MSG_BYTES SECONDS "
			"[normal|bad|hostile|die|flush [QPS]]\n",
			argv[0]);
		return 2;
	}
	const char *mode = argc >= 9 ? argv[8] : "normal";
	const unsigned int nq = argc == 10 ? (unsigned int)atoi(argv[9]) : 1;
	const bool bad_mode = strcmp(mode, "bad") == 0;
	const bool hostile_mode = strcmp(mode, "hostile") == 0;
	const bool flush_mode = strcmp(mode, "flush") == 0;

	expect_death = strcmp(mode, "die") == 0;
	const bool server = strcmp(argv[1], "server") == 0;
	const size_t bytes = strtoull(argv[5], NULL, 0), msg = strtoull(argv[6], NULL, 0);
	const double seconds = atof(argv[7]);
	struct peer_info mines[MAX_QPS] = {0}, theirs_all[MAX_QPS];
	struct peer_info *const mine = &mines[0], *const theirs = &theirs_all[0];
	struct mrc_qp *qps[MAX_QPS];
	struct ibv_context *dev;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct mrc_context *ctx;
	struct mrc_cq *scq, *rcq;
	struct mrc_comp_channel *channel = NULL;
	static int rcq_tag;
	struct mrc_qp *qp;
	struct mrc_qp_init_attr qa;
	volatile uint64_t *start;
	uint8_t *buf;
	int tcp;

	if (nq < 1 || nq > MAX_QPS) {
		fprintf(stderr, "mrc-app-test: QPS %u: 1..%u\n", nq, MAX_QPS);
		return 2;
	}
	my_host = (unsigned int)atoi(argv[3]);
	dev = mrc_sw_open_device(argv[2], my_host);
	if (dev == NULL)
		die("mrc_sw_open_device");
	pd = mrc_sw_alloc_pd(dev);
	/* ordinary heap memory, as the programs have: registered in place */
	buf = aligned_alloc(4096, (bytes + 64 + 4095) & ~(size_t)4095);
	if (pd == NULL || buf == NULL)
		die("memory");
	memset(buf, 0, bytes + 64);
	start = (volatile uint64_t *)(buf + bytes);
	mr = mrc_sw_reg_mr(pd, buf, bytes + 64, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (mr == NULL)
		die("mrc_sw_reg_mr");
	ctx = mrc_create_context(dev, NULL);
	if (ctx == NULL)
		die("mrc_create_context");
	the_ctx = ctx;
	/* The server waits for the Write-with-immediate on a completion channel. */
	if (server && mrc_create_comp_channel(ctx, &channel))
		die("mrc_create_comp_channel");
	scq = mrc_create_cq(ctx, 1024, NULL, NULL, 0);
	rcq = mrc_create_cq(ctx, 64, &rcq_tag, server ? channel : NULL, 0);
	if (scq == NULL || rcq == NULL)
		die("mrc_create_cq");
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = scq;
	qa.recv_cq = rcq;
	qa.pd = pd;
	qa.cap.max_send_wr = 256;
	qa.cap.max_recv_wr = 16;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	for (unsigned int i = 0; i < nq; i++) {
		qps[i] = mrc_create_qp(ctx, &qa);
		if (qps[i] == NULL)
			die("mrc_create_qp");
		mrc_get_qpn(qps[i], &mines[i].qpn);
		mrc_sw_query_gid(dev, (union ibv_gid *)mines[i].gid);
		mines[i].rkey = mr->rkey;
		mines[i].addr = (uint64_t)(uintptr_t)buf;
		mines[i].psn = (uint32_t)((getpid() + i) * 2654435761u) & 0xffffff;
	}
	qp = qps[0];
	tcp = tcp_exchange(server, atoi(argv[4]), mines, theirs_all, nq);
	for (unsigned int i = 0; i < nq; i++)
		connect_qp(qps[i], &mines[i], &theirs_all[i]);
	if (bad_mode && !server)
		bad_requests(ctx, pd, scq, rcq, qp, mr, theirs);
	if (hostile_mode && !server)
		hostile(argv[2], dev, ctx, scq, qp, mr, mine, theirs);
	if (flush_mode && !server) {
		flush_then_dereg(scq, qp, mr, theirs, msg);
		mr = NULL; /* gone already */
	}

	if (flush_mode) {
		/* nothing else moves: the peer waits for the goodbye below */
	} else if (server) {
		struct ibv_recv_wr rw = {.wr_id = 77}, *bad_r;
		struct ibv_sge sge = {.addr = (uintptr_t)start, .length = 8, .lkey = mr->lkey};
		struct ibv_send_wr sw = {.wr_id = 1,
					   .sg_list = &sge,
					   .num_sge = 1,
					   .opcode = IBV_WR_RDMA_WRITE,
					   .send_flags = IBV_SEND_SIGNALED},
				   *bad_s;
		struct ibv_wc wc;
		uint32_t rounds;
		size_t bad = 0;

		if (mrc_post_recv(qp, &rw, &bad_r))
			die("mrc_post_recv");
		if (mrc_req_notify_cq(rcq, 0))
			die("mrc_req_notify_cq");
		*start = START_WORD;
		sw.wr.rdma.remote_addr = theirs->addr + bytes;
		sw.wr.rdma.rkey = theirs->rkey;
		if (mrc_post_send(qp, &sw, &bad_s))
			die("post the start word");
		wait_one(scq, "the start word");
		/*
		 * Armed before anything could arrive: the receive comes as an event first.
		 * mrc_get_cq_event blocks until then, or fails once mrcd is gone.
		 */
		{
			struct mrc_cq *ev_cq = NULL;
			void *ev_ctx = NULL;
			int fd;

			if (mrc_get_comp_channel_fd(channel, &fd) || fd < 0)
				die("mrc_get_comp_channel_fd");
			if (mrc_get_cq_event(channel, &ev_cq, &ev_ctx)) {
				if (expect_death && errno == EIO)
					wait_one(
						rcq, "the posted receive"); /* flushed: ends here */
				die("mrc_get_cq_event");
			}
			if (ev_cq != rcq || ev_ctx != &rcq_tag) {
				fprintf(stderr, "mrc-app-test: the event names another CQ\n");
				return 1;
			}
			mrc_ack_cq_events(ev_cq, 1);
			printf("server: the receive CQ's event came through its channel\n");
		}
		wc = wait_one(rcq, "the write with immediate");
		rounds = ntohl(wc.imm_data) & 0xff;
		/* the client's signal: a write with immediate of no bytes */
		if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || wc.wr_id != 77 ||
			(ntohl(wc.imm_data) & ~0xffu) != IMM_MAGIC || wc.byte_len != 0) {
			fprintf(stderr,
				"mrc-app-test: receive: opcode %d wr_id %" PRIu64
				" imm 0x%x, %u bytes\n",
				wc.opcode, wc.wr_id, ntohl(wc.imm_data), wc.byte_len);
			return 1;
		}
		for (size_t i = 0; i < bytes; i++)
			bad += buf[i] != (uint8_t)(i * 7 + rounds);
		printf("server: the last round (number %u mod 256) of %zu bytes checked: %zu bad "
		       "bytes\n",
			rounds, bytes, bad);
		if (bad != 0)
			return 1;
	} else {
		const double t0 = now_s();
		const size_t chunks = (bytes + msg - 1) / msg;
		uint64_t posted[MAX_QPS] = {0}, done[MAX_QPS] = {0}, signalled = 0, writes = 0;
		uint32_t round = 0;

		while (*start != START_WORD)
			if (now_s() - t0 > 20) {
				fprintf(stderr, "mrc-app-test: the start word never came\n");
				return 1;
			}
		do {
			round++;
			for (size_t i = 0; i < bytes; i++)
				buf[i] = (uint8_t)(i * 7 + round);
			for (size_t c = 0; c < chunks; c++) {
				const size_t off = c * msg;
				const unsigned int i = (unsigned int)(c % nq); /* dealt in turn */
				struct ibv_sge sge = {.addr = (uintptr_t)(buf + off),
					.length = (uint32_t)(bytes - off < msg ? bytes - off : msg),
					.lkey = mr->lkey};
				const bool last =
					c + nq >= chunks; /* this QP's last of the round */
				struct ibv_send_wr sw = {.wr_id = posted[i],
							   .sg_list = &sge,
							   .num_sge = 1,
							   .opcode = IBV_WR_RDMA_WRITE,
							   .send_flags =
								   (posted[i] % 64 == 63 || last)
									   ? IBV_SEND_SIGNALED
									   : 0},
						   *bad_s;
				int rc;

				sw.wr.rdma.remote_addr = theirs_all[i].addr + off;
				sw.wr.rdma.rkey = theirs_all[i].rkey;
				while ((rc = mrc_post_send(qps[i], &sw, &bad_s)) == ENOMEM) {
					struct ibv_wc wc = wait_one(scq, "a signalled write");

					done[qp_index(qps, nq, wc.qp_num)] = wc.wr_id + 1;
					signalled++;
				}
				if (rc == EIO && expect_death)
					device_died("a post");
				if (rc != 0)
					die("mrc_post_send");
				posted[i]++;
				writes++;
			}
			/* A round ends when each QP's last (signalled) write is done: every
			 * earlier one of that QP too. */
			for (unsigned int i = 0; i < nq; i++)
				while (done[i] < posted[i]) {
					struct ibv_wc wc = wait_one(scq, "a signalled write");

					done[qp_index(qps, nq, wc.qp_num)] = wc.wr_id + 1;
					signalled++;
				}
		} while (now_s() - t0 < seconds);
		{
			/* The signal moves no bytes: no SGE, no region (every write it
			 * follows is done already). */
			struct ibv_send_wr sw = {.wr_id = 999999,
						   .num_sge = 0,
						   .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
						   .send_flags = IBV_SEND_SIGNALED,
						   .imm_data = htonl(IMM_MAGIC | (round & 0xff))},
					   *bad_s;
			struct ibv_wc wc;

			sw.wr.rdma.remote_addr = theirs->addr;
			sw.wr.rdma.rkey = theirs->rkey;
			if (mrc_post_send(qp, &sw, &bad_s))
				die("post the write with immediate");
			wc = wait_one(scq, "the write with immediate");
			if (wc.wr_id != 999999) {
				fprintf(stderr, "mrc-app-test: wr_id %" PRIu64 ", want 999999\n",
					wc.wr_id);
				return 1;
			}
		}
		if (bad_mode) {
			bad_rkey(ctx, scq, qp, mr, theirs);
			reset_drops_old_work(scq, qp, mr, mine, theirs);
		}
		printf("client: %u rounds, %" PRIu64 " writes of %zu bytes over %u QPs, %" PRIu64
		       " signalled completions, %.1f MB/s\n",
			round, writes, msg, nq, signalled,
			(double)bytes * round / (now_s() - t0) / 1e6);
	}
	if (expect_death) {
		fprintf(stderr, "mrc-app-test: mrcd never went away\n");
		return 3;
	}
	/* The peer's last completion before we tear down. */
	{
		char c = 0;

		if (write(tcp, &c, 1) != 1 || read(tcp, &c, 1) != 1)
			die("goodbye");
		close(tcp);
	}
	for (unsigned int i = 1; i < nq; i++)
		if (mrc_destroy_qp(qps[i]))
			die("teardown");
	if (mrc_destroy_qp(qp) || mrc_destroy_cq(scq) || mrc_destroy_cq(rcq) ||
		(channel != NULL && mrc_destroy_comp_channel(channel)) || mrc_destroy_context(ctx))
		die("teardown");
	/* Verbs: after the completions the region goes, whatever packets still carry it. */
	if (mr != NULL && mrc_sw_dereg_mr(mr) != 0)
		die("deregistering the buffer");
	if (mrc_sw_dealloc_pd(pd) || mrc_sw_close_device(dev))
		die("teardown");
	free(buf);
	return 0;
}
