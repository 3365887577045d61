/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * The fabric's shape: configuration defaults and checks, the numbering of
 * switches, links and ports (fabric_priv.h), the static forwarding tables,
 * create and free, and the read-only getters.
 *
 * The FIB is a /48 route per next uSID (doc/protocol.md, "SRv6 addressing
 * plan"), installed once and never changed: every switch knows its own uSID
 * (a local SID) and the uSIDs one hop away. Because every uSID is
 * plane | tier | index, a table per switch indexed by (tier, index) holds
 * exactly those routes; the switch checks the plane nibble itself. A
 * failure never changes a table: MRC, not routing, moves traffic away.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "fabric_priv.h"
#include "mrc_ev_path.h"

MRC_LOG_TYPE_DEFINE(fabric);

MRC_COUNTER_BLOCK_DEFINE(mrc_fabric_counters, MRC_FABRIC_COUNTERS);
MRC_COUNTER_BLOCK_DEFINE(mrc_fabric_link_counters, MRC_FABRIC_LINK_COUNTERS);
MRC_COUNTER_BLOCK_DEFINE(mrc_fabric_switch_counters, MRC_FABRIC_SWITCH_COUNTERS);

void
mrc_fabric_cfg_defaults(struct mrc_fabric_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->n_hosts = 2;
	cfg->n_planes = 8;
	cfg->hosts_per_t0 = 1;
	cfg->n_t1 = 4;
	cfg->block = 0xfcbb0000;
	cfg->link_gbps = 100.0;
	cfg->link_delay_ns = 1000;
	cfg->frame_overhead_bytes = 24;
	cfg->queue_limit_bytes = 1000000;
	cfg->ecn_kmin_bytes = 25000;
	cfg->ecn_kmax_bytes = 100000;
	cfg->ecn_last_hop = false;
	cfg->trim_threshold_bytes = 200000;
	cfg->control_priority = false;
	cfg->loss_prob = 0.0;
	cfg->ring_size = 1024;
	cfg->host_queues = 1;
	cfg->max_in_flight = 65536;
	cfg->tsc_hz = 0;
	cfg->seed = 1;
	cfg->socket_id = SOCKET_ID_ANY;
	mrc_wire_cfg_defaults(&cfg->wire);
	/* fd00::<h+1>, what test/lib/mrc_test_qp.c gives its hosts. */
	for (unsigned int h = 0; h < MRC_FABRIC_MAX_HOSTS; h++) {
		cfg->nic_addr[h][0] = 0xfd;
		cfg->nic_addr[h][15] = (uint8_t)(h + 1);
	}
}

static int
fail(const char **why, const char *msg)
{
	if (why != NULL)
		*why = msg;
	return -EINVAL;
}

int
mrc_fabric_cfg_check(const struct mrc_fabric_cfg *cfg, const char **why)
{
	if (cfg == NULL)
		return fail(why, "no configuration");
	if (cfg->n_hosts < 1 || cfg->n_hosts > MRC_FABRIC_MAX_HOSTS)
		return fail(why, "n_hosts must be 1..64");
	if (cfg->n_planes < 1 || cfg->n_planes > MRC_FABRIC_MAX_PLANES)
		return fail(why, "n_planes must be 1..8");
	if (cfg->hosts_per_t0 < 1 || cfg->hosts_per_t0 > cfg->n_hosts)
		return fail(why, "hosts_per_t0 must be 1..n_hosts");
	if (cfg->n_t1 < 1 || cfg->n_t1 > MRC_FABRIC_MAX_T1)
		return fail(why, "n_t1 must be 1..64");
	if ((unsigned int)cfg->n_hosts * cfg->n_planes > RTE_MAX_ETHPORTS)
		return fail(why, "n_hosts * n_planes ports exceed RTE_MAX_ETHPORTS of this DPDK");
	if (strnlen(cfg->name, sizeof(cfg->name)) >= sizeof(cfg->name))
		return fail(why, "name must be a NUL-terminated string of at most 11 characters");
	/* Written so that NaN fails too. */
	if (!(cfg->link_gbps >= 0.001 && cfg->link_gbps <= 10000.0))
		return fail(why, "link_gbps must be 0.001..10000");
	if (cfg->link_delay_ns > 1000000000u)
		return fail(why, "link_delay_ns must be <= 1 s");
	if (cfg->link_jitter_ns > 1000000000u)
		return fail(why, "link_jitter_ns must be <= 1 s");
	if (cfg->frame_overhead_bytes > 1024)
		return fail(why, "frame_overhead_bytes must be <= 1024");
	if (cfg->queue_limit_bytes < 1 || cfg->queue_limit_bytes > (1u << 30))
		return fail(why, "queue_limit_bytes must be 1..2^30");
	if (cfg->ecn_kmax_bytes != 0 && cfg->ecn_kmin_bytes > cfg->ecn_kmax_bytes)
		return fail(why, "ecn_kmin_bytes must be <= ecn_kmax_bytes");
	if (!(cfg->loss_prob >= 0.0 && cfg->loss_prob <= 1.0))
		return fail(why, "loss_prob must be 0..1");
	if (cfg->ring_size < 64 || cfg->ring_size > 65536 ||
		(cfg->ring_size & (cfg->ring_size - 1)) != 0)
		return fail(why, "ring_size must be a power of 2, 64..65536");
	if (cfg->host_queues < 1 || cfg->host_queues > MRC_NIC_MAX_QUEUES)
		return fail(why, "host_queues must be 1..16");
	if (cfg->max_in_flight < 64 || cfg->max_in_flight > (1u << 24))
		return fail(why, "max_in_flight must be 64..2^24");
	if (cfg->tsc_hz == 0)
		return fail(why, "tsc_hz must be set (rte_get_tsc_hz(), or a test's fake clock)");
	if (mrc_wire_cfg_check(&cfg->wire, why) != 0)
		return -EINVAL;
	for (unsigned int i = 0; i < cfg->n_hosts; i++)
		for (unsigned int j = 0; j < i; j++)
			if (memcmp(cfg->nic_addr[i], cfg->nic_addr[j], MRC_IPV6_ADDR_LEN) == 0)
				return fail(why, "nic_addr: two hosts share an address");
	return 0;
}

/* Loss probability -> threshold for a 64-bit draw (1.0 -> every frame). */
static uint64_t
loss_threshold(double p)
{
	if (!(p > 0.0))
		return 0;
	const double x = p * 18446744073709551616.0; /* p * 2^64 */

	/* Near 1, x rounds up to 2^64, which does not fit: that is "every frame". */
	if (p >= 1.0 || x >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)x;
}

void
fab_link_set_loss(struct fab_link *l, double p)
{
	l->loss = p;
	l->loss_thresh = loss_threshold(p);
}

void
fab_link_set_mark(struct fab_link *l, double p)
{
	if (l->flags & LINK_F_NIC)
		return; /* a NIC is not a switch: its queue never marks */
	l->mark = p;
	l->mark_thresh = loss_threshold(p);
}

static void
link_init(struct mrc_fabric *fab, uint32_t id, uint8_t kind, unsigned int plane, unsigned int a,
	unsigned int b, uint32_t to, uint16_t owner, uint8_t flags)
{
	struct fab_link *l = &fab->links[id];

	l->kind = kind;
	l->plane = (uint8_t)plane;
	l->a = (uint16_t)a;
	l->b = (uint16_t)b;
	l->to = to;
	l->owner = owner;
	l->flags = flags;
	l->state = MRC_FABRIC_UP;
	fab_link_set_loss(l, fab->cfg.loss_prob);
}

/* Links of every plane, and each switch's table of next hops. */
static void
build_topology(struct mrc_fabric *fab)
{
	const unsigned int nt0 = fab->n_t0, nt1 = fab->n_t1;

	for (unsigned int p = 0; p < fab->n_planes; p++) {
		for (unsigned int t = 0; t < nt0; t++) {
			struct fab_switch *s = &fab->sw[fab_sw_t0(fab, p, t)];

			s->tier = MRC_USID_TIER_T0;
			s->plane = (uint8_t)p;
			s->index = (uint8_t)t;
			s->usid = mrc_ev_usid(p, MRC_USID_TIER_T0, (uint8_t)t);
			s->fib = fab_sw_t0(fab, p, t) * fab->fib_stride;
		}
		for (unsigned int u = 0; u < nt1; u++) {
			struct fab_switch *s = &fab->sw[fab_sw_t1(fab, p, u)];

			s->tier = MRC_USID_TIER_T1;
			s->plane = (uint8_t)p;
			s->index = (uint8_t)u;
			s->usid = mrc_ev_usid(p, MRC_USID_TIER_T1, (uint8_t)u);
			s->fib = fab_sw_t1(fab, p, u) * fab->fib_stride;
		}
		for (unsigned int h = 0; h < fab->n_hosts; h++) {
			const unsigned int t = fab_t0_of(fab, h);
			const unsigned int t0 = fab_sw_t0(fab, p, t);

			link_init(fab, fab_link_host_up(fab, p, h), MRC_FABRIC_LINK_HOST_UP, p, h,
				0, t0, NO_SWITCH, LINK_F_NIC);
			link_init(fab, fab_link_host_down(fab, p, h), MRC_FABRIC_LINK_HOST_DOWN, p,
				h, 0, h * fab->n_planes + p, (uint16_t)t0, LINK_F_TO_HOST);
			fab->fib[fab->sw[t0].fib + nt0 + nt1 + h] = fab_link_host_down(fab, p, h);
		}
		for (unsigned int t = 0; t < nt0; t++) {
			const unsigned int s0 = fab_sw_t0(fab, p, t);

			fab->fib[fab->sw[s0].fib + t] = FIB_LOCAL;
			for (unsigned int u = 0; u < nt1; u++) {
				const unsigned int s1 = fab_sw_t1(fab, p, u);

				link_init(fab, fab_link_t0_t1(fab, p, t, u), MRC_FABRIC_LINK_T0_T1,
					p, t, u, s1, (uint16_t)s0, 0);
				link_init(fab, fab_link_t1_t0(fab, p, u, t), MRC_FABRIC_LINK_T1_T0,
					p, u, t, s0, (uint16_t)s1, 0);
				fab->fib[fab->sw[s0].fib + nt0 + u] = fab_link_t0_t1(fab, p, t, u);
				fab->fib[fab->sw[s1].fib + t] = fab_link_t1_t0(fab, p, u, t);
			}
		}
		for (unsigned int u = 0; u < nt1; u++)
			fab->fib[fab->sw[fab_sw_t1(fab, p, u)].fib + nt0 + u] = FIB_LOCAL;
	}
}

/*
 * Fabrics made so far, for default names: rings and ethdev ports are named
 * process-wide, so two fabrics alive at once must not both be "fab0".
 */
static unsigned int fab_instances;

struct mrc_fabric *
mrc_fabric_create(const struct mrc_fabric_cfg *cfg, const char **why)
{
	const char *w = NULL;
	struct mrc_fabric *fab;
	size_t n_fib;
	uint64_t sm;

	if (mrc_fabric_cfg_check(cfg, &w) != 0) {
		if (why != NULL)
			*why = w;
		rte_errno = EINVAL;
		return NULL;
	}
	fab = rte_zmalloc_socket("mrc_fabric", sizeof(*fab), RTE_CACHE_LINE_SIZE, cfg->socket_id);
	if (fab == NULL)
		goto nomem;
	fab->cfg = *cfg;
	fab->wire = cfg->wire;
	fab->wire.verify_icrc = false; /* a switch does not check the ICRC; the receiver does */
	if (cfg->name[0] != '\0')
		snprintf(fab->name, sizeof(fab->name), "%s", cfg->name);
	else
		snprintf(fab->name, sizeof(fab->name), "fab%u",
			__atomic_fetch_add(&fab_instances, 1, __ATOMIC_RELAXED) % 100000);

	fab->n_hosts = cfg->n_hosts;
	fab->n_planes = cfg->n_planes;
	fab->n_t0 = (cfg->n_hosts + cfg->hosts_per_t0 - 1u) / cfg->hosts_per_t0;
	fab->n_t1 = cfg->n_t1;
	fab->links_per_plane = 2 * fab->n_hosts + 2 * fab->n_t0 * fab->n_t1;
	fab->switches_per_plane = fab->n_t0 + fab->n_t1;
	fab->n_links = fab->n_planes * fab->links_per_plane;
	fab->n_switches = fab->n_planes * fab->switches_per_plane;
	fab->n_ports = fab->n_hosts * fab->n_planes;
	fab->fib_stride = fab->n_t0 + fab->n_t1 + fab->n_hosts;

	fab->rate_mbps = (uint64_t)(cfg->link_gbps * 1000.0 + 0.5);
	if (fab->rate_mbps == 0)
		fab->rate_mbps = 1;
	fab->ps_per_byte = 8000000u % fab->rate_mbps == 0 ? 8000000u / fab->rate_mbps : 0;
	fab->delay_ps = (uint64_t)cfg->link_delay_ns * PS_PER_NS;
	fab->jitter_ps = (uint64_t)cfg->link_jitter_ns * PS_PER_NS;
	fab->limit_bytes = cfg->queue_limit_bytes;
	fab->kmin_bytes = cfg->ecn_kmin_bytes;
	fab->kmax_bytes = cfg->ecn_kmax_bytes;
	fab->trim_bytes = cfg->trim_threshold_bytes;
	fab->hz = cfg->tsc_hz;
	fab->ps_per_tick = 1000000000000u % fab->hz == 0 ? 1000000000000u / fab->hz : 0;
	sm = cfg->seed;
	mrc_rand_seed(&fab->r_loss, mrc_rand_splitmix64(&sm));
	mrc_rand_seed(&fab->r_ecn, mrc_rand_splitmix64(&sm));
	mrc_rand_seed(&fab->r_jitter, mrc_rand_splitmix64(&sm));

	n_fib = (size_t)fab->n_switches * fab->fib_stride;
	fab->links = rte_zmalloc_socket("mrc_fabric_links", fab->n_links * sizeof(*fab->links),
		RTE_CACHE_LINE_SIZE, cfg->socket_id);
	fab->sw = rte_zmalloc_socket("mrc_fabric_sw", fab->n_switches * sizeof(*fab->sw),
		RTE_CACHE_LINE_SIZE, cfg->socket_id);
	fab->ports = rte_zmalloc_socket("mrc_fabric_ports", fab->n_ports * sizeof(*fab->ports),
		RTE_CACHE_LINE_SIZE, cfg->socket_id);
	fab->fib = rte_malloc_socket(
		"mrc_fabric_fib", n_fib * sizeof(*fab->fib), RTE_CACHE_LINE_SIZE, cfg->socket_id);
	fab->dirty = rte_zmalloc_socket("mrc_fabric_dirty", fab->n_ports * sizeof(*fab->dirty),
		RTE_CACHE_LINE_SIZE, cfg->socket_id);
	fab->heap.cap = cfg->max_in_flight;
	fab->heap.a = rte_malloc_socket("mrc_fabric_heap",
		(size_t)fab->heap.cap * sizeof(*fab->heap.a), RTE_CACHE_LINE_SIZE, cfg->socket_id);
	if (fab->links == NULL || fab->sw == NULL || fab->ports == NULL || fab->fib == NULL ||
		fab->dirty == NULL || fab->heap.a == NULL)
		goto nomem_free;
	for (size_t i = 0; i < n_fib; i++)
		fab->fib[i] = FIB_NONE;
	build_topology(fab);

	if (fab_ports_create(fab, &w) != 0) {
		const int err = rte_errno;

		mrc_fabric_free(fab);
		if (why != NULL)
			*why = w;
		rte_errno = err;
		return NULL;
	}
	MRC_LOG(fabric, INFO,
		"%s: %u hosts x %u planes, %u T0 + %u T1 per plane, %u links, %.3f Gb/s, %u ns",
		fab->name, fab->n_hosts, fab->n_planes, fab->n_t0, fab->n_t1, fab->n_links,
		cfg->link_gbps, cfg->link_delay_ns);
	return fab;

nomem_free:
	mrc_fabric_free(fab);
nomem:
	if (why != NULL)
		*why = "out of memory";
	rte_errno = ENOMEM;
	return NULL;
}

void
mrc_fabric_free(struct mrc_fabric *fab)
{
	if (fab == NULL)
		return;
	if (fab->ports != NULL)
		fab_ports_destroy(fab);
	for (uint32_t i = 0; fab->heap.a != NULL && i < fab->heap.n; i++)
		rte_pktmbuf_free(fab->heap.a[i].m);
	fab_capture_free(fab);
	rte_free(fab->heap.a);
	rte_free(fab->dirty);
	rte_free(fab->fib);
	rte_free(fab->ports);
	rte_free(fab->sw);
	rte_free(fab->links);
	free(fab->ev);
	rte_free(fab);
}

/* ---- getters ---- */

const struct mrc_fabric_counters *
mrc_fabric_counters(const struct mrc_fabric *fab)
{
	return &fab->cnt;
}

const struct mrc_nic_emu_counters *
mrc_fabric_nic_counters(const struct mrc_fabric *fab)
{
	return &fab->nic_cnt;
}

unsigned int
mrc_fabric_n_links(const struct mrc_fabric *fab)
{
	return fab->n_links;
}

int
mrc_fabric_link_info(const struct mrc_fabric *fab, unsigned int i, struct mrc_fabric_link_id *id,
	enum mrc_fabric_state *st, double *loss, struct mrc_fabric_link_counters *cnt)
{
	const struct fab_link *l;

	if (i >= fab->n_links)
		return -EINVAL;
	l = &fab->links[i];
	if (id != NULL)
		*id = (struct mrc_fabric_link_id){
			.kind = l->kind, .plane = l->plane, .a = l->a, .b = l->b};
	if (st != NULL)
		*st = (enum mrc_fabric_state)l->state;
	if (loss != NULL)
		*loss = l->loss;
	if (cnt != NULL)
		*cnt = l->cnt;
	return 0;
}

/* Link id of `id`, or -1 when anything is out of range. */
static int64_t
link_index(const struct mrc_fabric *fab, const struct mrc_fabric_link_id *id)
{
	const unsigned int p = id->plane, a = id->a, b = id->b;

	if (p >= fab->n_planes)
		return -1;
	switch (id->kind) {
	case MRC_FABRIC_LINK_HOST_UP:
		return a < fab->n_hosts ? (int64_t)fab_link_host_up(fab, p, a) : -1;
	case MRC_FABRIC_LINK_HOST_DOWN:
		return a < fab->n_hosts ? (int64_t)fab_link_host_down(fab, p, a) : -1;
	case MRC_FABRIC_LINK_T0_T1:
		return a < fab->n_t0 && b < fab->n_t1 ? (int64_t)fab_link_t0_t1(fab, p, a, b) : -1;
	case MRC_FABRIC_LINK_T1_T0:
		return a < fab->n_t1 && b < fab->n_t0 ? (int64_t)fab_link_t1_t0(fab, p, a, b) : -1;
	default:
		return -1;
	}
}

int
mrc_fabric_link_stats(const struct mrc_fabric *fab, const struct mrc_fabric_link_id *id,
	struct mrc_fabric_link_counters *out)
{
	const int64_t i = link_index(fab, id);

	if (i < 0)
		return -EINVAL;
	*out = fab->links[i].cnt;
	return 0;
}

int
mrc_fabric_switch_stats(const struct mrc_fabric *fab, unsigned int tier, unsigned int plane,
	unsigned int index, struct mrc_fabric_switch_counters *out)
{
	if (plane >= fab->n_planes)
		return -EINVAL;
	if (tier == MRC_USID_TIER_T0 && index < fab->n_t0)
		*out = fab->sw[fab_sw_t0(fab, plane, index)].cnt;
	else if (tier == MRC_USID_TIER_T1 && index < fab->n_t1)
		*out = fab->sw[fab_sw_t1(fab, plane, index)].cnt;
	else
		return -EINVAL;
	return 0;
}

const char *
mrc_fabric_link_kind_name(unsigned int kind)
{
	static const char *const names[] = {"host_up", "host_down", "t0_t1", "t1_t0"};

	return kind < RTE_DIM(names) ? names[kind] : "?";
}

uint16_t
mrc_fabric_port(const struct mrc_fabric *fab, unsigned int host, unsigned int plane)
{
	if (host >= fab->n_hosts || plane >= fab->n_planes)
		return RTE_MAX_ETHPORTS;
	return fab->ports[host * fab->n_planes + plane].port_id;
}

unsigned int
mrc_fabric_in_flight(const struct mrc_fabric *fab)
{
	return fab->in_flight;
}
