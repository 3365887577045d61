/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * An application's armed CQ that gets an entry wakes its completion channel
 * (app/mrcd/apps): the worker spends the arming and hands a token to the
 * control thread on one ring all applications share, and the control
 * thread writes the channel's eventfd. When that ring is full (other
 * applications' wake-ups), the wake-up must still come: the arming is
 * spent, so nothing else would wake the application, which would wait in
 * mrc_get_cq_event for good.
 */

#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_ring.h>

#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "mrcd_apps.h"
#include "mrcd_apps_ctl.h"
#include "mrcd_apps_priv.h"

#define N_CQS 3

static int
test_wake_up_owed_when_the_ring_is_full(void)
{
	static struct mrc_chan_cq_status st[N_CQS];
	struct mrcd_apps *a;
	struct mrcd_app_session *s;
	uint64_t v;

	MRC_T_EQ(mrc_test_eal_init("test_mrcd_apps_wake"), 0);
	a = calloc(1, sizeof(*a));
	MRC_T_ASSERT(a != NULL, "calloc");
	/* a ring of 2 holds one wake-up: the others find it full */
	a->wakes = rte_ring_create("apw_wakes", 2, SOCKET_ID_ANY, RING_F_SC_DEQ);
	MRC_T_ASSERT(a->wakes != NULL, "ring");
	s = &a->sess[0];
	s->used = true;
	for (unsigned int i = 0; i < MRCD_APPS_SESSION_CHANNELS; i++)
		s->chan_fd[i] = -1;
	for (unsigned int i = 0; i < N_CQS; i++) {
		struct mrcd_app_cq *cq = &s->cq[i];

		s->chan_fd[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		MRC_T_ASSERT(s->chan_fd[i] >= 0, "eventfd");
		cq->id = i + 1;
		cq->channel = i + 1;
		cq->shm = (uint8_t *)&st[i];
		cq->wakes = a->wakes;
		cq->token = (void *)((uintptr_t)i + 1); /* session 0, CQ i */
		cq->owed = &a->wakes_owed;
		st[i].armed = 1;
	}
	for (unsigned int i = 0; i < N_CQS; i++)
		mrcd_apps_cq_notify(&s->cq[i]);
	MRC_T_EQ(s->cq[1].wakes_dropped + s->cq[2].wakes_dropped, 2);
	MRC_T_EQ(mrcd_apps_wake_channels(a), N_CQS);
	for (unsigned int i = 0; i < N_CQS; i++) {
		MRC_T_ASSERT(read(s->chan_fd[i], &v, sizeof(v)) == (ssize_t)sizeof(v),
			"channel %u not woken", i + 1);
		MRC_T_U64_EQ(v, 1);
		MRC_T_EQ(st[i].fired, 1);
		MRC_T_EQ(st[i].armed, 0);
	}
	/* Once: nothing is owed any more. */
	MRC_T_EQ(mrcd_apps_wake_channels(a), 0);
	for (unsigned int i = 0; i < N_CQS; i++) {
		MRC_T_ASSERT(read(s->chan_fd[i], &v, sizeof(v)) < 0 && errno == EAGAIN,
			"channel %u woken twice", i + 1);
		close(s->chan_fd[i]);
	}
	rte_ring_free(a->wakes);
	free(a);
	return MRC_TEST_OK;
}

static const struct mrc_test_case cases[] = {
	MRC_TEST_CASE(test_wake_up_owed_when_the_ring_is_full),
};

MRC_TEST_MAIN("mrcd_apps_wake", cases)
