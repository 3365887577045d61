/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The way /mrc/ commands reach the stats thread (app/mrcd/stats/
 * mrcd_tel_mailbox.c): replies are formatted on the serving thread, one per
 * call, oldest first; a caller nobody serves gets -ETIMEDOUT within its
 * wait and nothing written; a caller whose request was taken waits for the
 * reply however long it takes; the eventfd is readable exactly while a
 * request waits.
 */

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "mrc_test.h"
#include "mrcd_tel_mailbox.h"

/* What a formatter leaves in its caller's "rte_tel_data": stands in for the reply. */
struct reply {
	int tid;     /* the thread that formatted it */
	int written; /* how many formatters wrote into it */
	int seq;     /* in which order the server took it */
};

static int served_seq;
static unsigned int fmt_sleep_ms;

static uint64_t
mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int
fmt(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct reply *r = (struct reply *)d;

	(void)cmd;
	(void)params;
	if (fmt_sleep_ms != 0)
		usleep(fmt_sleep_ms * 1000);
	r->tid = (int)gettid();
	r->written++;
	r->seq = ++served_seq; /* only the server calls fmt */
	return 7;
}

static int
readable(const struct mrcd_tel_mailbox *mb)
{
	struct pollfd p = {.fd = mrcd_tel_mailbox_fd(mb), .events = POLLIN};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* Requests waiting, counted under the lock. */
static unsigned int
queued(struct mrcd_tel_mailbox *mb)
{
	unsigned int n = 0;

	pthread_mutex_lock(&mb->lock);
	for (const struct mrcd_tel_req *r = mb->head; r != NULL; r = r->next)
		n++;
	pthread_mutex_unlock(&mb->lock);
	return n;
}

/* A stats thread in miniature: wait on the eventfd, serve one, until told to stop. */
struct server {
	struct mrcd_tel_mailbox *mb;
	int stop;
	int tid;
};

static void *
serve(void *arg)
{
	struct server *s = arg;

	__atomic_store_n(&s->tid, (int)gettid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		struct pollfd p = {.fd = mrcd_tel_mailbox_fd(s->mb), .events = POLLIN};

		if (mrcd_tel_mailbox_serve_one(s->mb) == 0)
			(void)poll(&p, 1, 5);
	}
	return NULL;
}

struct asker {
	struct mrcd_tel_mailbox *mb;
	unsigned int n, timeout_ms;
	int bad_rc, wrong_tid, answered;
	int server_tid;
	uint64_t took_ms;
};

static void *
ask(void *arg)
{
	struct asker *a = arg;

	for (unsigned int i = 0; i < a->n; i++) {
		struct reply rep = {0};
		struct mrcd_tel_req r = {.cmd = "/mrc/info",
			.params = "",
			.d = (struct rte_tel_data *)&rep,
			.fn = fmt};
		const uint64_t t0 = mono_ms();

		if (mrcd_tel_mailbox_ask(a->mb, &r, a->timeout_ms) != 0 || r.rc != 7 ||
			rep.written != 1)
			a->bad_rc++;
		else
			a->answered++;
		a->took_ms = mono_ms() - t0;
		if (rep.written && rep.tid != a->server_tid)
			a->wrong_tid++;
	}
	return NULL;
}

/* Nobody serves: the caller gets -ETIMEDOUT after about its wait, with nothing written. */
static int
test_no_server_times_out(void)
{
	struct mrcd_tel_mailbox mb;
	struct mrcd_tel_mailbox_counters c;
	struct reply rep = {0};
	struct mrcd_tel_req r = {.cmd = "/mrc/paths", .d = (struct rte_tel_data *)&rep, .fn = fmt};
	uint64_t t0, took;

	MRC_T_EQ(mrcd_tel_mailbox_init(&mb), 0);
	MRC_T_EQ(readable(&mb), 0);
	t0 = mono_ms();
	MRC_T_EQ(mrcd_tel_mailbox_ask(&mb, &r, 50), -ETIMEDOUT);
	took = mono_ms() - t0;
	MRC_T_ASSERT(took >= 49 && took < 2000, "waited %llu ms for a 50 ms timeout",
		(unsigned long long)took);
	MRC_T_EQ(rep.written, 0);
	/* the request was taken back: a server arriving now finds nothing */
	MRC_T_EQ(readable(&mb), 0);
	MRC_T_EQ(mrcd_tel_mailbox_serve_one(&mb), 0);
	MRC_T_EQ(rep.written, 0);
	mrcd_tel_mailbox_counters(&mb, &c);
	MRC_T_U64_EQ(c.timed_out, 1);
	MRC_T_U64_EQ(c.served, 0);
	mrcd_tel_mailbox_fini(&mb);
	return MRC_TEST_OK;
}

/* Three clients at once, 200 commands each: every reply made on the server's thread. */
static int
test_replies_made_by_server(void)
{
	enum { ASKERS = 3, EACH = 200 };
	struct mrcd_tel_mailbox mb;
	struct mrcd_tel_mailbox_counters c;
	struct server s = {.mb = &mb};
	struct asker a[ASKERS];
	pthread_t st, at[ASKERS];

	MRC_T_EQ(mrcd_tel_mailbox_init(&mb), 0);
	fmt_sleep_ms = 0;
	MRC_T_EQ(pthread_create(&st, NULL, serve, &s), 0);
	while (__atomic_load_n(&s.tid, __ATOMIC_ACQUIRE) == 0)
		usleep(100);
	for (unsigned int i = 0; i < ASKERS; i++) {
		a[i] = (struct asker){
			.mb = &mb, .n = EACH, .timeout_ms = 5000, .server_tid = s.tid};
		MRC_T_EQ(pthread_create(&at[i], NULL, ask, &a[i]), 0);
	}
	for (unsigned int i = 0; i < ASKERS; i++)
		pthread_join(at[i], NULL);
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	pthread_join(st, NULL);
	for (unsigned int i = 0; i < ASKERS; i++) {
		MRC_T_EQ(a[i].bad_rc, 0);
		MRC_T_EQ(a[i].answered, EACH);
		MRC_T_EQ(a[i].wrong_tid, 0);
	}
	MRC_T_ASSERT(s.tid != (int)gettid(), "server and test on one thread");
	mrcd_tel_mailbox_counters(&mb, &c);
	MRC_T_U64_EQ(c.served, ASKERS * EACH);
	MRC_T_U64_EQ(c.timed_out, 0);
	MRC_T_EQ(readable(&mb), 0);
	mrcd_tel_mailbox_fini(&mb);
	return MRC_TEST_OK;
}

/*
 * The server took the request and formats for 300 ms; the caller's wait is
 * 50 ms. It must not answer over the reply being written: it gets the
 * server's reply, late, and nothing else wrote into it.
 */
static int
test_taken_request_waits_for_reply(void)
{
	struct mrcd_tel_mailbox mb;
	struct mrcd_tel_mailbox_counters c;
	struct server s = {.mb = &mb};
	struct asker a;
	pthread_t st, at;

	MRC_T_EQ(mrcd_tel_mailbox_init(&mb), 0);
	fmt_sleep_ms = 300;
	MRC_T_EQ(pthread_create(&st, NULL, serve, &s), 0);
	while (__atomic_load_n(&s.tid, __ATOMIC_ACQUIRE) == 0)
		usleep(100);
	a = (struct asker){.mb = &mb, .n = 1, .timeout_ms = 50, .server_tid = s.tid};
	MRC_T_EQ(pthread_create(&at, NULL, ask, &a), 0);
	pthread_join(at, NULL);
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
	pthread_join(st, NULL);
	fmt_sleep_ms = 0;
	MRC_T_EQ(a.bad_rc, 0);
	MRC_T_EQ(a.wrong_tid, 0);
	MRC_T_ASSERT(a.took_ms >= 299, "answered after %llu ms, before the 300 ms reply was done",
		(unsigned long long)a.took_ms);
	mrcd_tel_mailbox_counters(&mb, &c);
	MRC_T_U64_EQ(c.served, 1);
	MRC_T_U64_EQ(c.timed_out, 0);
	mrcd_tel_mailbox_fini(&mb);
	return MRC_TEST_OK;
}

/*
 * Two commands wait: one serve answers exactly one, the older; the eventfd
 * stays readable until the queue is empty.
 */
static int
test_one_per_serve_oldest_first(void)
{
	struct mrcd_tel_mailbox mb;
	struct asker a[2];
	pthread_t at[2];

	MRC_T_EQ(mrcd_tel_mailbox_init(&mb), 0);
	served_seq = 0;
	for (unsigned int i = 0; i < 2; i++) {
		a[i] = (struct asker){
			.mb = &mb, .n = 1, .timeout_ms = 10000, .server_tid = (int)gettid()};
		MRC_T_EQ(pthread_create(&at[i], NULL, ask, &a[i]), 0);
		/* the first is queued before the second starts */
		for (int w = 0; w < 100000 && queued(&mb) != i + 1; w++)
			usleep(100);
		MRC_T_EQ(queued(&mb), i + 1);
	}
	MRC_T_EQ(readable(&mb), 1);
	MRC_T_EQ(mrcd_tel_mailbox_serve_one(&mb), 1);
	pthread_join(at[0], NULL);
	MRC_T_EQ(a[0].answered, 1);
	MRC_T_EQ(a[1].answered, 0);
	MRC_T_EQ(readable(&mb), 1);
	MRC_T_EQ(mrcd_tel_mailbox_serve_one(&mb), 1);
	pthread_join(at[1], NULL);
	MRC_T_EQ(a[1].answered, 1);
	MRC_T_EQ(readable(&mb), 0);
	MRC_T_EQ(mrcd_tel_mailbox_serve_one(&mb), 0);
	MRC_T_EQ(a[0].wrong_tid + a[1].wrong_tid, 0);
	mrcd_tel_mailbox_fini(&mb);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_no_server_times_out),
	MRC_TEST_CASE(test_replies_made_by_server),
	MRC_TEST_CASE(test_taken_request_waits_for_reply),
	MRC_TEST_CASE(test_one_per_serve_oldest_first),
};

MRC_TEST_MAIN("mrcd_tel_mailbox", cases)
