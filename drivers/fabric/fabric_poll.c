/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The poll loop and the event heap.
 *
 * Every packet inside the fabric is exactly one heap entry: "reaches the
 * far end of link L at time t". Popping entries in (t, seq) order and
 * handling each completely (route at the switch, enqueue on the next link,
 * push the next arrival) means every queue sees its packets in time order,
 * which the one-number queue model needs (fabric_link.c). The sequence
 * number makes ties deterministic: first created, first handled.
 *
 * Scheduled faults interleave with packets by time; a fault at T goes
 * before packets arriving at T, so "plane 3 fails at 2 s" drops a packet
 * that reaches plane 3 at exactly 2 s.
 *
 * Time: the caller's TSC, minus the epoch, in picoseconds (exact
 * serialisation at any rate; 2^64 ps is 213 days of fabric time). The one
 * TSC -> ps conversion per poll is a 128-bit multiply-divide, or a multiply
 * when the TSC rate divides 10^12.
 *
 * The heap is allocated at create with room for max_in_flight entries;
 * ingress takes no more packets from the hosts than that room (the hosts'
 * tx rings fill and rte_eth_tx_burst returns short, as on a NIC whose
 * descriptors are all in use), so the poll never allocates.
 */

#include "fabric_priv.h"
#include "mrc_time.h"

#define PS_PER_S UINT64_C(1000000000000)

/* (time, seq) order. Ties in time are rare, so the branch on them is well predicted. */
static inline bool
before(const struct fab_item *a, const struct fab_item *b)
{
	if (likely(a->t_ps != b->t_ps))
		return a->t_ps < b->t_ps;
	return a->seq < b->seq;
}

void
fab_heap_push(struct mrc_fabric *fab, struct fab_item *it)
{
	struct fab_heap *h = &fab->heap;
	uint32_t i;

	if (unlikely(h->n == h->cap)) {
		fab->cnt.drop_no_room++;
		fab_drop(fab, it);
		return;
	}
	it->seq = h->seq++;
	i = h->n++;
	while (i > 0) {
		const uint32_t p = (i - 1) / 2;

		if (!before(it, &h->a[p]))
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i] = *it;
}

static void
heap_pop(struct fab_heap *h, struct fab_item *out)
{
	struct fab_item *a = h->a;
	const uint32_t n = --h->n;
	uint32_t i = 0, c;

	*out = a[0];
	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && before(&a[c + 1], &a[c]))
			c++;
		if (!before(&a[c], &a[n]))
			break;
		a[i] = a[c];
		i = c;
	}
	a[i] = a[n];
}

static inline uint64_t
tsc_to_ps(const struct mrc_fabric *fab, uint64_t tsc)
{
	if (fab->ps_per_tick != 0 && tsc <= UINT64_MAX / fab->ps_per_tick)
		return tsc * fab->ps_per_tick;
	return mrc_muldiv_u64(tsc, PS_PER_S, fab->hz);
}

uint64_t
fab_ps_to_tsc(const struct mrc_fabric *fab, uint64_t ps)
{
	return fab->epoch_tsc + mrc_muldiv_u64_round_up(ps, fab->hz, PS_PER_S);
}

void
mrc_fabric_start(struct mrc_fabric *fab, uint64_t now_tsc)
{
	/* Time zero is set once: packets inside are timed from it. */
	if (!fab->started) {
		fab->epoch_tsc = now_tsc;
		fab->last_tsc = now_tsc;
		fab->now_ps = 0;
		fab->started = true;
	}
	/* Ports the caller started itself came up UP whatever the fabric says. */
	fab_carrier_apply(fab, true);
}

uint64_t
mrc_fabric_now_ns(const struct mrc_fabric *fab)
{
	return fab->now_ps / PS_PER_NS;
}

/* Ps time of the next pending fault, UINT64_MAX if none. */
static inline uint64_t
next_fault_ps(const struct mrc_fabric *fab)
{
	uint64_t ns;

	if (fab->n_applied == fab->n_ev)
		return UINT64_MAX;
	ns = fab->ev[fab->n_applied].t_ns;
	return ns > UINT64_MAX / PS_PER_NS ? UINT64_MAX : ns * PS_PER_NS;
}

/* One packet reaches the far end of its link. */
static inline void
arrive(struct mrc_fabric *fab, struct fab_item *it)
{
	const struct fab_link *l = &fab->links[it->link];

	if (l->flags & LINK_F_TO_HOST)
		fab_deliver(fab, &fab->ports[l->to], it);
	else
		fab_switch_input(fab, &fab->sw[l->to], it);
}

unsigned int
mrc_fabric_poll(struct mrc_fabric *fab, uint64_t now_tsc)
{
	unsigned int work = 0;
	uint64_t now_ps;

	if (unlikely(!fab->started))
		mrc_fabric_start(fab, now_tsc);
	if (now_tsc > fab->last_tsc) {
		now_ps = tsc_to_ps(fab, now_tsc - fab->epoch_tsc);
		if (now_ps > fab->now_ps)
			fab->now_ps = now_ps;
		fab->last_tsc = now_tsc;
	}
	now_ps = fab->now_ps;
	/* A replaced fault timeline (a reload): one load a poll, taken before this time's faults.
	 */
	if (unlikely(__atomic_load_n(&fab->offer, __ATOMIC_RELAXED) != NULL))
		fab_timeline_take(fab);

	for (;;) {
		const uint64_t t_pkt = fab->heap.n > 0 ? fab->heap.a[0].t_ps : UINT64_MAX;
		const uint64_t t_fault = next_fault_ps(fab);
		struct fab_item it;

		/* UINT64_MAX means "none" but is also a time a poll may bring: test for none. */
		if (unlikely(fab->n_applied < fab->n_ev && t_fault <= t_pkt && t_fault <= now_ps)) {
			fab_apply_event(fab, &fab->ev[fab->n_applied]);
			fab_event_notice(fab, &fab->ev[fab->n_applied]);
			fab->n_applied++;
			continue;
		}
		if (fab->heap.n == 0 || t_pkt > now_ps)
			break;
		heap_pop(&fab->heap, &it);
		arrive(fab, &it);
		work++;
	}
	work += fab_ingress(fab);
	fab_flush(fab);
	return work;
}

uint64_t
mrc_fabric_next_event_tsc(const struct mrc_fabric *fab)
{
	uint64_t t = next_fault_ps(fab);

	if (fab->heap.n > 0 && fab->heap.a[0].t_ps < t)
		t = fab->heap.a[0].t_ps;
	if (fab_ports_pending(fab))
		return fab->started ? fab->last_tsc : 0;
	if (t == UINT64_MAX)
		return UINT64_MAX;
	if (!fab->started)
		return 0; /* scheduled faults wait for time zero: poll to start */
	return fab_ps_to_tsc(fab, t);
}
