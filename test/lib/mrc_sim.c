/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The model is described in mrc_sim.h. Implementation notes:
 *
 * - A link's data queue is one number, `busy_ps`: when its transmitter
 *   finishes the last packet accepted. FIFO and work conserving, so a
 *   packet's departure is known the moment it is accepted and the backlog at
 *   t is (busy_ps - t) converted to bytes. That is exact only if packets
 *   reach a link in time order, which is why hops after the first are heap
 *   events processed in (time, seq) order and never computed ahead.
 * - The first hop (HOST_UP) is processed inside mrc_sim_send(): only that
 *   host's sends reach that queue and they come in time order.
 * - The PRNG is split in three streams (loss, ECN, jitter) so that, for the
 *   same sends, turning jitter on does not change which packets are lost or
 *   marked, and so on.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>

#include "mrc_rand.h"
#include "mrc_sim.h"
#include "mrc_time.h"

#define PS_PER_NS    1000u
#define IPV6_HDR_LEN 40u
#define HEAP_INIT    1024u

/* Per-packet class bits, decided by the parse in mrc_sim_send(). */
#define CLS_TRIMMABLE 0x1 /* trimmable DSCP and a WRITE opcode */
#define CLS_PRIO      0x2 /* rides the priority queue */
#define CLS_ECT	      0x4 /* outermost ECN is ECT(0)/ECT(1) */

/* Hops of a path across a T1 and within one T0. */
enum hop_kind { HOP_HOST_UP, HOP_T0_T1, HOP_T1_T0, HOP_HOST_DOWN };

struct sim_link {
	uint64_t busy_ps;      /* data transmitter busy until */
	uint64_t prio_busy_ps; /* priority transmitter busy until */
	double loss;
	uint8_t state;
	struct mrc_sim_link_stats st;
};

/* A packet in the network; copied by value through the heaps. */
struct sim_item {
	uint64_t t_ps; /* reaches link `hop` (hop heap) or the host (arrival heaps) */
	uint64_t seq;
	struct rte_mbuf *m;
	uint32_t payload_off;
	uint16_t l3_off;
	uint8_t src, dst, plane, t1; /* t1: EV uplink mod n_uplinks */
	uint8_t hop;		     /* index into the path's hops */
	uint8_t cls;
};

struct sim_heap {
	struct sim_item *a;
	unsigned int n, cap;
};

/* Per path: the last arrival, without and with jitter (jitter must not reorder). */
struct path_order {
	uint64_t nominal_ps;
	uint64_t arrival_ps;
};

struct mrc_sim {
	struct mrc_sim_cfg cfg;
	struct mrc_wire_cfg wire; /* cfg.wire without ICRC verification */
	uint8_t n_t0;
	uint64_t rate_mbps;
	uint64_t delay_ps;
	uint64_t jitter_ps;
	void (*free_fn)(struct rte_mbuf *);
	struct mrc_rand r_loss, r_ecn, r_jitter;
	uint64_t now_ps;
	uint64_t seq;
	bool warned_shared;

	struct sim_heap hops;
	struct sim_heap rx[MRC_SIM_MAX_HOSTS];

	uint8_t plane_state[MRC_SIM_MAX_PLANES];
	uint8_t t0_state[MRC_SIM_MAX_PLANES][MRC_SIM_MAX_HOSTS];
	uint8_t t1_state[MRC_SIM_MAX_PLANES][MRC_SIM_MAX_UPLINKS];
	bool path_bh[MRC_SIM_MAX_PLANES][MRC_SIM_MAX_UPLINKS];
	double path_loss[MRC_SIM_MAX_PLANES][MRC_SIM_MAX_UPLINKS];

	struct sim_link host_up[MRC_SIM_MAX_PLANES][MRC_SIM_MAX_HOSTS];
	struct sim_link host_down[MRC_SIM_MAX_PLANES][MRC_SIM_MAX_HOSTS];
	struct sim_link t0_t1[MRC_SIM_MAX_PLANES][MRC_SIM_MAX_HOSTS][MRC_SIM_MAX_UPLINKS];
	struct sim_link t1_t0[MRC_SIM_MAX_PLANES][MRC_SIM_MAX_UPLINKS][MRC_SIM_MAX_HOSTS];

	struct path_order order[MRC_SIM_MAX_HOSTS][MRC_SIM_MAX_HOSTS][MRC_SIM_MAX_PLANES]
			       [MRC_SIM_MAX_UPLINKS];

	struct mrc_sim_stats st;
};

static const char *const drop_names[] = {
#define MRC_SIM_DROP_NAME_(up, low, help) #low,
	MRC_SIM_DROPS(MRC_SIM_DROP_NAME_)
#undef MRC_SIM_DROP_NAME_
};

const char *
mrc_sim_drop_name(enum mrc_sim_drop d)
{
	return (unsigned int)d < MRC_SIM_DROP_MAX ? drop_names[d] : "?";
}

void
mrc_sim_cfg_defaults(struct mrc_sim_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->n_hosts = 2;
	cfg->n_planes = 1;
	cfg->n_uplinks = 1;
	cfg->hosts_per_t0 = 1;
	cfg->link_gbps = 100.0;
	cfg->link_delay_ns = 1000;
	cfg->jitter_ns = 0;
	cfg->frame_overhead_bytes = 24;
	cfg->queue_limit_bytes = 1000000;
	cfg->ecn_kmin_bytes = 25000;
	cfg->ecn_kmax_bytes = 100000;
	cfg->trim_threshold_bytes = 200000;
	cfg->loss_prob = 0.0;
	cfg->control_priority = false;
	cfg->nic_queue_plain = false;
	cfg->seed = 1;
	mrc_wire_cfg_defaults(&cfg->wire);
	cfg->layout = MRC_EV_LAYOUT_DEFAULT;
}

static int
fail(const char **why, const char *msg)
{
	if (why != NULL)
		*why = msg;
	return -EINVAL;
}

int
mrc_sim_cfg_check(const struct mrc_sim_cfg *cfg, const char **why)
{
	const uint64_t one_s_ns = MRC_NS_PER_S;

	if (cfg == NULL)
		return fail(why, "no configuration");
	if (cfg->n_hosts < 2 || cfg->n_hosts > MRC_SIM_MAX_HOSTS)
		return fail(why, "n_hosts must be 2..8");
	if (cfg->n_planes < 1 || cfg->n_planes > MRC_SIM_MAX_PLANES)
		return fail(why, "n_planes must be 1..8");
	if (cfg->n_uplinks < 1 || cfg->n_uplinks > MRC_SIM_MAX_UPLINKS)
		return fail(why, "n_uplinks must be 1..16");
	if (cfg->hosts_per_t0 < 1 || cfg->hosts_per_t0 > cfg->n_hosts)
		return fail(why, "hosts_per_t0 must be 1..n_hosts");
	/* Written so that NaN fails too. */
	if (!(cfg->link_gbps >= 0.001 && cfg->link_gbps <= 100000.0))
		return fail(why, "link_gbps must be 0.001..100000");
	if (cfg->link_delay_ns > one_s_ns || cfg->jitter_ns > one_s_ns)
		return fail(why, "link_delay_ns and jitter_ns must be <= 1 s");
	if (cfg->frame_overhead_bytes > 65536)
		return fail(why, "frame_overhead_bytes must be <= 65536");
	if (cfg->ecn_kmax_bytes != 0 && cfg->ecn_kmin_bytes > cfg->ecn_kmax_bytes)
		return fail(why, "ecn_kmin_bytes must be <= ecn_kmax_bytes");
	if (!(cfg->loss_prob >= 0.0 && cfg->loss_prob <= 1.0))
		return fail(why, "loss_prob must be 0..1");
	if (mrc_ev_layout_check(&cfg->layout, why) != 0)
		return -EINVAL;
	if (mrc_wire_cfg_check(&cfg->wire, why) != 0)
		return -EINVAL;
	return 0;
}

static void
default_free(struct rte_mbuf *m)
{
	rte_pktmbuf_free(m);
}

struct mrc_sim *
mrc_sim_create(const struct mrc_sim_cfg *cfg)
{
	struct mrc_sim *s;

	if (mrc_sim_cfg_check(cfg, NULL) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	s->cfg = *cfg;
	s->wire = cfg->wire;
	/* A switch does not check the ICRC; the receiving QP does. */
	s->wire.verify_icrc = false;
	s->n_t0 = (uint8_t)((cfg->n_hosts + cfg->hosts_per_t0 - 1) / cfg->hosts_per_t0);
	s->rate_mbps = (uint64_t)(cfg->link_gbps * 1000.0 + 0.5);
	if (s->rate_mbps == 0)
		s->rate_mbps = 1;
	s->delay_ps = cfg->link_delay_ns * PS_PER_NS;
	s->jitter_ps = cfg->jitter_ns * PS_PER_NS;
	s->free_fn = default_free;
	/* Three independent streams from one seed. */
	uint64_t sm = cfg->seed;
	mrc_rand_seed(&s->r_loss, mrc_rand_splitmix64(&sm));
	mrc_rand_seed(&s->r_ecn, mrc_rand_splitmix64(&sm));
	mrc_rand_seed(&s->r_jitter, mrc_rand_splitmix64(&sm));
	return s;
}

static void
heap_free_all(struct mrc_sim *s, struct sim_heap *h)
{
	for (unsigned int i = 0; i < h->n; i++)
		s->free_fn(h->a[i].m);
	free(h->a);
	h->a = NULL;
	h->n = h->cap = 0;
}

void
mrc_sim_free(struct mrc_sim *sim)
{
	if (sim == NULL)
		return;
	heap_free_all(sim, &sim->hops);
	for (unsigned int h = 0; h < MRC_SIM_MAX_HOSTS; h++)
		heap_free_all(sim, &sim->rx[h]);
	free(sim);
}

void
mrc_sim_set_free_fn(struct mrc_sim *sim, void (*fn)(struct rte_mbuf *))
{
	sim->free_fn = fn != NULL ? fn : default_free;
}

/* ---- heaps ---- */

static inline bool
item_before(const struct sim_item *a, const struct sim_item *b)
{
	return a->t_ps < b->t_ps || (a->t_ps == b->t_ps && a->seq < b->seq);
}

static int
heap_push(struct mrc_sim *s, struct sim_heap *h, struct sim_item *it)
{
	unsigned int i;

	if (h->n == h->cap) {
		unsigned int cap = h->cap ? h->cap * 2 : HEAP_INIT;
		struct sim_item *a = realloc(h->a, (size_t)cap * sizeof(*a));

		if (a == NULL)
			return -ENOMEM;
		h->a = a;
		h->cap = cap;
	}
	it->seq = s->seq++;
	i = h->n++;
	while (i > 0) {
		unsigned int p = (i - 1) / 2;

		if (!item_before(it, &h->a[p]))
			break;
		h->a[i] = h->a[p];
		i = p;
	}
	h->a[i] = *it;
	return 0;
}

static void
heap_pop(struct sim_heap *h, struct sim_item *out)
{
	struct sim_item last;
	unsigned int i = 0;

	*out = h->a[0];
	last = h->a[--h->n];
	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && item_before(&h->a[c + 1], &h->a[c]))
			c++;
		if (!item_before(&h->a[c], &last))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n > 0)
		h->a[i] = last;
}

/* ---- topology and counters ---- */

static inline uint8_t
t0_of(const struct mrc_sim *s, uint8_t host)
{
	return (uint8_t)(host / s->cfg.hosts_per_t0);
}

static inline bool
crosses_t1(const struct mrc_sim *s, const struct sim_item *it)
{
	return t0_of(s, it->src) != t0_of(s, it->dst);
}

static inline enum hop_kind
hop_kind(const struct mrc_sim *s, const struct sim_item *it)
{
	static const enum hop_kind far[4] = {HOP_HOST_UP, HOP_T0_T1, HOP_T1_T0, HOP_HOST_DOWN};
	static const enum hop_kind near[2] = {HOP_HOST_UP, HOP_HOST_DOWN};

	return crosses_t1(s, it) ? far[it->hop] : near[it->hop];
}

/* Run `stmt` with `c` pointing at each of the three scopes a routed packet counts in. */
#define FOR_SCOPES(s, it, c, stmt)                                                                 \
	do {                                                                                       \
		struct mrc_sim_counts *c##_all_[3] = {&(s)->st.total, &(s)->st.plane[(it)->plane], \
			&(s)->st.path[(it)->plane][(it)->t1]};                                     \
		for (unsigned int c##_i_ = 0; c##_i_ < 3; c##_i_++) {                              \
			struct mrc_sim_counts *c = c##_all_[c##_i_];                               \
			stmt;                                                                      \
		}                                                                                  \
	} while (0)

static void
drop(struct mrc_sim *s, struct sim_item *it, struct sim_link *l, enum mrc_sim_drop why)
{
	FOR_SCOPES(s, it, c, c->drops[why]++);
	if (l != NULL)
		l->st.drops++;
	s->free_fn(it->m);
	it->m = NULL;
}

static void
note_queue(struct mrc_sim *s, const struct sim_item *it, struct sim_link *l, uint64_t bytes)
{
	const uint32_t b = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;

	FOR_SCOPES(s, it, c, if (b > c->max_queue_bytes) c->max_queue_bytes = b);
	if (b > l->st.max_queue_bytes)
		l->st.max_queue_bytes = b;
}

/* ---- packet surgery ---- */

/* The segment holding byte `off` of `m`, and the offset within it; NULL past the end. */
static struct rte_mbuf *
seg_at(struct rte_mbuf *m, uint32_t off, uint32_t *seg_off)
{
	for (; m != NULL; m = m->next) {
		if (off < m->data_len) {
			*seg_off = off;
			return m;
		}
		off -= m->data_len;
	}
	return NULL;
}

static bool
seg_private(const struct rte_mbuf *seg)
{
	return RTE_MBUF_DIRECT(seg) && rte_mbuf_refcnt_read(seg) == 1;
}

static void
note_shared(struct mrc_sim *s)
{
	s->st.shared_writes++;
	if (!s->warned_shared) {
		s->warned_shared = true;
		fprintf(stderr, "mrc_sim: writing into a shared mbuf: the sender's copy changes "
				"too (see mrc_sim.h)\n");
	}
}

/* Pointer to byte `off` of the packet, for writing; NULL past the end. */
static uint8_t *
byte_at(struct mrc_sim *s, struct rte_mbuf *m, uint32_t off)
{
	uint32_t so;
	struct rte_mbuf *seg = seg_at(m, off, &so);

	if (seg == NULL)
		return NULL;
	if (!seg_private(seg))
		note_shared(s);
	return rte_pktmbuf_mtod_offset(seg, uint8_t *, so);
}

/* The first 32-bit word of the IPv6 header at l3_off (version, traffic class, flow label). */
static uint32_t
read_vtc(struct mrc_sim *s, struct rte_mbuf *m, uint32_t l3_off, uint8_t *p[4])
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < 4; i++) {
		p[i] = byte_at(s, m, l3_off + i);
		v = v << 8 | (p[i] != NULL ? *p[i] : 0);
	}
	return v;
}

static void
write_vtc(uint8_t *p[4], uint32_t v)
{
	for (unsigned int i = 0; i < 4; i++)
		if (p[i] != NULL)
			*p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void
set_ce(struct mrc_sim *s, struct sim_item *it)
{
	uint8_t *p[4];
	uint32_t v = read_vtc(s, it->m, it->l3_off, p);

	write_vtc(p, v | (MRC_ECN_CE << 20));
}

/*
 * Cut the frame after the transport headers (payload_off), the way
 * mrc_test_trim() does to flat bytes: fix the outermost IPv6 payload length,
 * rewrite its DSCP, free the segments past the cut.
 */
static void
trim(struct mrc_sim *s, struct sim_item *it, bool lasthop)
{
	struct rte_mbuf *m = it->m, *seg = m, *rest;
	const uint32_t len = it->payload_off;
	const uint16_t plen = (uint16_t)(len - it->l3_off - IPV6_HDR_LEN);
	const uint8_t dscp = lasthop ? s->wire.dscp.trimmed_lasthop : s->wire.dscp.trimmed;
	uint32_t off = 0;
	uint16_t nb = 1;
	uint8_t *p[4], *pl;
	uint32_t v;

	v = read_vtc(s, m, it->l3_off, p);
	write_vtc(p, (v & ~(UINT32_C(0x3f) << 22)) | ((uint32_t)dscp << 22));
	pl = byte_at(s, m, it->l3_off + 4);
	if (pl != NULL)
		*pl = (uint8_t)(plen >> 8);
	pl = byte_at(s, m, it->l3_off + 5);
	if (pl != NULL)
		*pl = (uint8_t)plen;

	if (len >= m->pkt_len)
		return; /* nothing after the headers (cannot happen for a parsed data packet) */
	while (off + seg->data_len < len) {
		off += seg->data_len;
		seg = seg->next;
		nb++;
	}
	if (!seg_private(seg) || !seg_private(m))
		note_shared(s);
	seg->data_len = (uint16_t)(len - off);
	rest = seg->next;
	seg->next = NULL;
	m->nb_segs = nb;
	m->pkt_len = len;
	if (rest != NULL)
		s->free_fn(rest);
}

/* ---- time and bytes ---- */

static inline uint64_t
ns_to_ps(uint64_t ns)
{
	return ns > UINT64_MAX / PS_PER_NS ? UINT64_MAX : ns * PS_PER_NS;
}

static inline uint64_t
ps_to_ns_up(uint64_t ps)
{
	return ps / PS_PER_NS + (ps % PS_PER_NS != 0);
}

/* Serialisation time of `wire_bytes` on a link. */
static inline uint64_t
ser_ps(const struct mrc_sim *s, uint64_t wire_bytes)
{
	return mrc_muldiv_u64_round_up(wire_bytes * 8, 1000000, s->rate_mbps);
}

/* Bytes a link sends in `ps`. */
static inline uint64_t
ps_to_bytes(const struct mrc_sim *s, uint64_t ps)
{
	return mrc_muldiv_u64(ps, s->rate_mbps, 8000000);
}

static inline uint64_t
wire_bytes(const struct mrc_sim *s, const struct rte_mbuf *m)
{
	return (uint64_t)m->pkt_len + s->cfg.frame_overhead_bytes;
}

/* ---- the hop ---- */

static inline bool
draw(struct mrc_rand *r, double p)
{
	return p > 0.0 && (p >= 1.0 || mrc_rand_unit(r) < p);
}

/* The link of the packet's current hop and the state of the switch that owns its queue. */
static struct sim_link *
hop_link(struct mrc_sim *s, const struct sim_item *it, enum hop_kind k, uint8_t *sw)
{
	const uint8_t p = it->plane;

	switch (k) {
	case HOP_HOST_UP:
		*sw = MRC_SIM_UP; /* the NIC's own queue */
		return &s->host_up[p][it->src];
	case HOP_T0_T1:
		*sw = s->t0_state[p][t0_of(s, it->src)];
		return &s->t0_t1[p][t0_of(s, it->src)][it->t1];
	case HOP_T1_T0:
		*sw = s->t1_state[p][it->t1];
		return &s->t1_t0[p][it->t1][t0_of(s, it->dst)];
	case HOP_HOST_DOWN:
	default:
		*sw = s->t0_state[p][t0_of(s, it->dst)];
		return &s->host_down[p][it->dst];
	}
}

static void
push_or_drop(struct mrc_sim *s, struct sim_heap *h, struct sim_item *it)
{
	if (heap_push(s, h, it) != 0)
		drop(s, it, NULL, MRC_SIM_DROP_NOMEM);
}

/* After the last link: to the host, with jitter that keeps the path in order. */
static void
deliver(struct mrc_sim *s, struct sim_item *it, uint64_t nominal_ps)
{
	struct path_order *o =
		&s->order[it->src][it->dst][it->plane][crosses_t1(s, it) ? it->t1 : 0];
	uint64_t arr = nominal_ps;

	if (s->jitter_ps != 0)
		arr += mrc_rand_bounded(&s->r_jitter, s->jitter_ps + 1);
	/*
	 * A packet that left the last link after the previous one of its path
	 * may not arrive before it. One that overtook it in a priority queue
	 * keeps its lead.
	 */
	if (nominal_ps >= o->nominal_ps) {
		if (arr < o->arrival_ps)
			arr = o->arrival_ps;
		o->nominal_ps = nominal_ps;
		o->arrival_ps = arr;
	}
	it->t_ps = arr;
	push_or_drop(s, &s->rx[it->dst], it);
}

/* Packet `it` reaches the link of hop it->hop at it->t_ps. */
static void
process_hop(struct mrc_sim *s, struct sim_item *it)
{
	const enum hop_kind k = hop_kind(s, it);
	const bool last = k == HOP_HOST_DOWN;
	const bool plain = k == HOP_HOST_UP && s->cfg.nic_queue_plain;
	const uint64_t t = it->t_ps;
	const uint64_t limit = s->cfg.queue_limit_bytes ? s->cfg.queue_limit_bytes : UINT64_MAX;
	uint8_t st, sw;
	struct sim_link *l = hop_link(s, it, k, &sw);
	uint64_t backlog, wire, ser, done;
	double p_loss;

	/* 1. Faults: plane, switch, link, path; the first that is not UP decides. */
	st = s->plane_state[it->plane];
	if (st == MRC_SIM_UP)
		st = sw;
	if (st == MRC_SIM_UP)
		st = l->state;
	if (st == MRC_SIM_UP && it->hop == 1 && s->path_bh[it->plane][it->t1])
		st = MRC_SIM_BLACKHOLE;
	if (st != MRC_SIM_UP) {
		drop(s, it, l, st == MRC_SIM_DOWN ? MRC_SIM_DROP_DOWN : MRC_SIM_DROP_BLACKHOLE);
		return;
	}

	/* 2. Queue. */
	backlog = l->busy_ps > t ? ps_to_bytes(s, l->busy_ps - t) : 0;
	wire = wire_bytes(s, it->m);
	if (!plain && s->cfg.trim_threshold_bytes != 0 && (it->cls & CLS_TRIMMABLE) &&
		(backlog > s->cfg.trim_threshold_bytes || backlog + wire > limit)) {
		trim(s, it, last);
		it->cls = (uint8_t)((it->cls & ~(CLS_TRIMMABLE | CLS_ECT)) | CLS_PRIO);
		FOR_SCOPES(s, it, c, {
			c->trims++;
			c->trims_lasthop += last;
		});
		l->st.trims++;
		wire = wire_bytes(s, it->m);
	}
	ser = ser_ps(s, wire);
	if (it->cls & CLS_PRIO) {
		const uint64_t start = RTE_MAX(t, l->prio_busy_ps);

		done = start + ser;
		l->prio_busy_ps = done;
		/* Strict priority: data waiting behind the link now waits for this too. */
		l->busy_ps = l->busy_ps > t ? l->busy_ps + ser : RTE_MAX(l->busy_ps, done);
	} else {
		if (backlog + wire > limit) {
			drop(s, it, l, MRC_SIM_DROP_QUEUE);
			return;
		}
		if (!plain && !last && s->cfg.ecn_kmax_bytes != 0 && (it->cls & CLS_ECT) &&
			backlog > s->cfg.ecn_kmin_bytes) {
			const uint32_t kmin = s->cfg.ecn_kmin_bytes, kmax = s->cfg.ecn_kmax_bytes;
			bool mark = backlog >= kmax ||
				    mrc_rand_unit(&s->r_ecn) * (double)(kmax - kmin) <
					    (double)(backlog - kmin);

			if (mark) {
				set_ce(s, it);
				it->cls &= (uint8_t)~CLS_ECT;
				FOR_SCOPES(s, it, c, c->ecn_marks++);
				l->st.ecn_marks++;
			}
		}
		done = RTE_MAX(t, l->busy_ps) + ser;
		l->busy_ps = done;
		note_queue(s, it, l, backlog + wire);
	}
	l->st.tx_pkts++;
	l->st.tx_bytes += it->m->pkt_len;

	/* 3. Loss on the wire. */
	p_loss = l->loss;
	if (draw(&s->r_loss, p_loss) || (it->hop == 0 && draw(&s->r_loss, s->cfg.loss_prob)) ||
		(it->hop == 1 && draw(&s->r_loss, s->path_loss[it->plane][it->t1]))) {
		drop(s, it, l, MRC_SIM_DROP_LOSS);
		return;
	}

	/* 4. On to the next link, or the host. */
	if (last) {
		deliver(s, it, done + s->delay_ps);
		return;
	}
	it->hop++;
	it->t_ps = done + s->delay_ps;
	push_or_drop(s, &s->hops, it);
}

static void
advance_ps(struct mrc_sim *s, uint64_t now_ps)
{
	struct sim_item it;

	if (now_ps > s->now_ps)
		s->now_ps = now_ps;
	while (s->hops.n > 0 && s->hops.a[0].t_ps <= s->now_ps) {
		heap_pop(&s->hops, &it);
		process_hop(s, &it);
	}
}

void
mrc_sim_advance(struct mrc_sim *sim, uint64_t now_ns)
{
	advance_ps(sim, ns_to_ps(now_ns));
}

/* ---- the API ---- */

void
mrc_sim_send(struct mrc_sim *sim, uint8_t src_host, uint8_t dst_host, struct rte_mbuf *m,
	uint64_t now_ns)
{
	struct mrc_sim *s = sim;
	struct sim_item it;
	struct mrc_pkt pkt;
	uint32_t plane;
	uint8_t dscp, ecn;

	if (m == NULL)
		return;
	advance_ps(s, ns_to_ps(now_ns));
	s->st.total.sent_pkts++;
	if (mrc_pkt_parse(m, &s->wire, &pkt) != MRC_WIRE_OK) {
		s->st.total.drops[MRC_SIM_DROP_UNPARSEABLE]++;
		s->free_fn(m);
		return;
	}
	plane = mrc_ev_layout_plane(&s->cfg.layout, pkt.ev);
	if (src_host >= s->cfg.n_hosts || dst_host >= s->cfg.n_hosts || plane >= s->cfg.n_planes) {
		s->st.total.drops[MRC_SIM_DROP_NO_ROUTE]++;
		s->free_fn(m);
		return;
	}

	memset(&it, 0, sizeof(it));
	it.m = m;
	it.t_ps = s->now_ps;
	it.src = src_host;
	it.dst = dst_host;
	it.plane = (uint8_t)plane;
	it.t1 = (uint8_t)(mrc_ev_layout_uplink(&s->cfg.layout, pkt.ev) % s->cfg.n_uplinks);
	it.l3_off = pkt.l3_off;
	it.payload_off = pkt.payload_off;
	/* Switches look at the outermost header only. */
	dscp = (pkt.flags & MRC_PKT_F_SRV6) ? pkt.outer.dscp : pkt.ip.dscp;
	ecn = (pkt.flags & MRC_PKT_F_SRV6) ? pkt.outer.ecn : pkt.ip.ecn;
	if ((dscp == s->wire.dscp.trimmable || dscp == s->wire.dscp.trimmable_retx) &&
		mrc_opcode_is_data(pkt.bth.opcode))
		it.cls |= CLS_TRIMMABLE;
	if (dscp == s->wire.dscp.trimmed || dscp == s->wire.dscp.trimmed_lasthop ||
		(s->cfg.control_priority && dscp == s->wire.dscp.control))
		it.cls = CLS_PRIO;
	if (ecn == MRC_ECN_ECT0 || ecn == MRC_ECN_ECT1)
		it.cls |= CLS_ECT;
	s->st.plane[it.plane].sent_pkts++;
	s->st.path[it.plane][it.t1].sent_pkts++;
	process_hop(s, &it);
}

unsigned int
mrc_sim_recv(
	struct mrc_sim *sim, uint8_t host, struct rte_mbuf **out, unsigned int max, uint64_t now_ns)
{
	struct sim_heap *h;
	unsigned int n = 0;

	advance_ps(sim, ns_to_ps(now_ns));
	if (host >= sim->cfg.n_hosts)
		return 0;
	h = &sim->rx[host];
	while (n < max && h->n > 0 && h->a[0].t_ps <= sim->now_ps) {
		struct sim_item it;

		heap_pop(h, &it);
		it.m->port = it.plane;
		FOR_SCOPES(sim, &it, c, {
			c->delivered_pkts++;
			c->delivered_bytes += it.m->pkt_len;
		});
		out[n++] = it.m;
	}
	return n;
}

uint64_t
mrc_sim_next_event_ns(const struct mrc_sim *sim)
{
	uint64_t t = UINT64_MAX;

	if (sim->hops.n > 0)
		t = sim->hops.a[0].t_ps;
	for (unsigned int h = 0; h < sim->cfg.n_hosts; h++)
		if (sim->rx[h].n > 0 && sim->rx[h].a[0].t_ps < t)
			t = sim->rx[h].a[0].t_ps;
	return t == UINT64_MAX ? UINT64_MAX : ps_to_ns_up(t);
}

unsigned int
mrc_sim_in_flight(const struct mrc_sim *sim)
{
	unsigned int n = sim->hops.n;

	for (unsigned int h = 0; h < MRC_SIM_MAX_HOSTS; h++)
		n += sim->rx[h].n;
	return n;
}

/* ---- faults and settings ---- */

/* Resolve one of plane/a/b: [lo, hi) for MRC_SIM_ANY or one value; false if out of range. */
static bool
span(uint8_t v, unsigned int n, unsigned int *lo, unsigned int *hi)
{
	if (v == MRC_SIM_ANY) {
		*lo = 0;
		*hi = n;
		return true;
	}
	*lo = v;
	*hi = (unsigned int)v + 1;
	return v < n;
}

/*
 * Call fn on every one-way link that (kind, plane, a, b) names, after
 * checking the whole selection. -EINVAL when anything is out of range.
 */
static int
for_links(struct mrc_sim *s, enum mrc_sim_link kind, uint8_t plane, uint8_t a, uint8_t b,
	void (*fn)(struct sim_link *, const void *), const void *arg)
{
	unsigned int p0, p1, a0, a1, b0, b1;

	if (!span(plane, s->cfg.n_planes, &p0, &p1))
		return -EINVAL;
	switch (kind) {
	case MRC_SIM_LINK_HOST_UP:
	case MRC_SIM_LINK_HOST_DOWN:
	case MRC_SIM_LINK_HOST:
		if (!span(a, s->cfg.n_hosts, &a0, &a1))
			return -EINVAL;
		for (unsigned int p = p0; p < p1; p++)
			for (unsigned int h = a0; h < a1; h++) {
				if (kind != MRC_SIM_LINK_HOST_DOWN)
					fn(&s->host_up[p][h], arg);
				if (kind != MRC_SIM_LINK_HOST_UP)
					fn(&s->host_down[p][h], arg);
			}
		return 0;
	case MRC_SIM_LINK_T0_T1:
	case MRC_SIM_LINK_FABRIC:
		if (!span(a, s->n_t0, &a0, &a1) || !span(b, s->cfg.n_uplinks, &b0, &b1))
			return -EINVAL;
		for (unsigned int p = p0; p < p1; p++)
			for (unsigned int t0 = a0; t0 < a1; t0++)
				for (unsigned int t1 = b0; t1 < b1; t1++) {
					fn(&s->t0_t1[p][t0][t1], arg);
					if (kind == MRC_SIM_LINK_FABRIC)
						fn(&s->t1_t0[p][t1][t0], arg);
				}
		return 0;
	case MRC_SIM_LINK_T1_T0:
		if (!span(a, s->cfg.n_uplinks, &a0, &a1) || !span(b, s->n_t0, &b0, &b1))
			return -EINVAL;
		for (unsigned int p = p0; p < p1; p++)
			for (unsigned int t1 = a0; t1 < a1; t1++)
				for (unsigned int t0 = b0; t0 < b1; t0++)
					fn(&s->t1_t0[p][t1][t0], arg);
		return 0;
	default:
		return -EINVAL;
	}
}

static bool
state_ok(enum mrc_sim_state st)
{
	return st == MRC_SIM_UP || st == MRC_SIM_DOWN || st == MRC_SIM_BLACKHOLE;
}

static void
link_set_state(struct sim_link *l, const void *arg)
{
	l->state = *(const uint8_t *)arg;
}

static void
link_set_loss(struct sim_link *l, const void *arg)
{
	l->loss = *(const double *)arg;
}

static double
clamp_p(double p)
{
	/* NaN counts as 0. */
	return p > 1.0 ? 1.0 : (p > 0.0 ? p : 0.0);
}

int
mrc_sim_set_link(struct mrc_sim *sim, enum mrc_sim_link kind, uint8_t plane, uint8_t a, uint8_t b,
	enum mrc_sim_state st)
{
	const uint8_t v = (uint8_t)st;

	if (!state_ok(st))
		return -EINVAL;
	return for_links(sim, kind, plane, a, b, link_set_state, &v);
}

int
mrc_sim_set_link_loss(
	struct mrc_sim *sim, enum mrc_sim_link kind, uint8_t plane, uint8_t a, uint8_t b, double p)
{
	const double v = clamp_p(p);

	return for_links(sim, kind, plane, a, b, link_set_loss, &v);
}

int
mrc_sim_set_t0(struct mrc_sim *sim, uint8_t plane, uint8_t t0, enum mrc_sim_state st)
{
	if (plane >= sim->cfg.n_planes || t0 >= sim->n_t0 || !state_ok(st))
		return -EINVAL;
	sim->t0_state[plane][t0] = (uint8_t)st;
	return 0;
}

int
mrc_sim_set_t1(struct mrc_sim *sim, uint8_t plane, uint8_t t1, enum mrc_sim_state st)
{
	if (plane >= sim->cfg.n_planes || t1 >= sim->cfg.n_uplinks || !state_ok(st))
		return -EINVAL;
	sim->t1_state[plane][t1] = (uint8_t)st;
	return 0;
}

int
mrc_sim_set_plane(struct mrc_sim *sim, uint8_t plane, enum mrc_sim_state st)
{
	if (plane >= sim->cfg.n_planes || !state_ok(st))
		return -EINVAL;
	sim->plane_state[plane] = (uint8_t)st;
	return 0;
}

int
mrc_sim_set_path_blackhole(struct mrc_sim *sim, uint8_t plane, uint8_t uplink, bool on)
{
	if (plane >= sim->cfg.n_planes)
		return -EINVAL;
	sim->path_bh[plane][uplink % sim->cfg.n_uplinks] = on;
	return 0;
}

int
mrc_sim_set_path_loss(struct mrc_sim *sim, uint8_t plane, uint8_t uplink, double p)
{
	if (plane >= sim->cfg.n_planes)
		return -EINVAL;
	sim->path_loss[plane][uplink % sim->cfg.n_uplinks] = clamp_p(p);
	return 0;
}

void
mrc_sim_set_loss(struct mrc_sim *sim, double p)
{
	sim->cfg.loss_prob = clamp_p(p);
}

bool
mrc_sim_port_up(const struct mrc_sim *sim, uint8_t host, uint8_t plane)
{
	if (host >= sim->cfg.n_hosts || plane >= sim->cfg.n_planes)
		return false;
	return sim->plane_state[plane] != MRC_SIM_DOWN &&
	       sim->host_up[plane][host].state != MRC_SIM_DOWN &&
	       sim->host_down[plane][host].state != MRC_SIM_DOWN;
}

const struct mrc_sim_stats *
mrc_sim_stats(const struct mrc_sim *sim)
{
	return &sim->st;
}

int
mrc_sim_link_stats(const struct mrc_sim *sim, enum mrc_sim_link kind, uint8_t plane, uint8_t a,
	uint8_t b, struct mrc_sim_link_stats *out)
{
	const struct sim_link *l;

	if (plane >= sim->cfg.n_planes)
		return -EINVAL;
	switch (kind) {
	case MRC_SIM_LINK_HOST_UP:
	case MRC_SIM_LINK_HOST_DOWN:
		if (a >= sim->cfg.n_hosts)
			return -EINVAL;
		l = kind == MRC_SIM_LINK_HOST_UP ? &sim->host_up[plane][a]
						 : &sim->host_down[plane][a];
		break;
	case MRC_SIM_LINK_T0_T1:
		if (a >= sim->n_t0 || b >= sim->cfg.n_uplinks)
			return -EINVAL;
		l = &sim->t0_t1[plane][a][b];
		break;
	case MRC_SIM_LINK_T1_T0:
		if (a >= sim->cfg.n_uplinks || b >= sim->n_t0)
			return -EINVAL;
		l = &sim->t1_t0[plane][a][b];
		break;
	default:
		return -EINVAL;
	}
	*out = l->st;
	return 0;
}

uint64_t
mrc_sim_base_delay_ps(const struct mrc_sim *sim, uint8_t src, uint8_t dst, uint32_t pkt_len)
{
	const uint64_t hops = t0_of(sim, src) != t0_of(sim, dst) ? 4 : 2;

	if (src >= sim->cfg.n_hosts || dst >= sim->cfg.n_hosts)
		return 0;
	return hops *
	       (ser_ps(sim, (uint64_t)pkt_len + sim->cfg.frame_overhead_bytes) + sim->delay_ps);
}
