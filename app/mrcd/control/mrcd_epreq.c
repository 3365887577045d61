/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore (setup, every control tick, teardown).
 *
 * Endpoint operations with the hosts of other processes: port-status
 * updates sent, resent and answered, and EV probes sent and answered
 * (mrcd_epreq.h says the rules). The packets are built here and sent by
 * shard 0 of the host (its ctl_tx ring), addressed as the host's QPs
 * address that peer. What the workers hand off carries their arrival stamp
 * (mrc_shard_rx_tsc): both the responder's service time and the
 * requester's round trip are taken from it, not from when this thread got
 * round to the packet.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "mrc_ev_path.h"
#include "mrc_srv6.h"
#include "mrc_wire.h"
#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_epreq.h"
#include "mrcd_log.h"
#include "mrcd_recover.h"

/* What local host h says to cluster host c. */
struct ep_out {
	bool peer;    /* c is in another process and h has QPs with it */
	bool known;   /* c is in another process: its address is in addr */
	bool pending; /* a port-status update waits for its answer */
	uint8_t tries;
	uint16_t id; /* the update's request id */
	uint32_t mask;
	uint64_t sent_tsc, next_tsc;
	uint16_t probe_id; /* the last EV probe sent, and when (0: answered, or not waited for) */
	uint64_t probe_tsc;
	uint64_t rtt_ns; /* the last port-status answer's round trip, for telemetry */
	struct mrcd_ep_probe_rtt probe; /* the last EV probe's answer, for telemetry */
	struct mrc_qp_addr addr;
};

/*
 * An EV probe the control socket's thread asks for (mrcd_ep_probe_ask), one
 * at a time. It writes `asked` in one store: ev (bits 0-31), local host
 * (32-39), peer (40-47), ask number (48-63). The main lcore takes an ask
 * whose number it has not taken (`taken`, stored for the asker to see),
 * sends the probe, and when the answer comes, or the send failed, writes
 * rc and res, then `done` = that number (release).
 */
struct ep_ask {
	uint64_t asked; /* the asker writes (release), the main lcore reads */
	uint16_t taken; /* the main lcore writes, the asker reads */
	uint16_t done;	/* the main lcore writes (release), the asker reads */
	int rc;		/* written before done */
	struct mrcd_ep_probe_rtt res;
	struct ep_out *out; /* main lcore only: whose probe answers the ask taken */
};

/*
 * A port-status answer waiting until every worker of this process told its
 * QPs the peers' masks of generation `gen` (the request's, or a later one):
 * an answer that left then means no QP here still sends on a plane the
 * request took away, and the requester's round trip bounds when ours stopped.
 */
struct ep_held {
	uint32_t gen;
	uint8_t h, c;
	uint32_t ev;
	uint64_t rx_tsc;
	struct mrc_ep_view r;
};

/* Answers held at most (more: answered at once); one per peer and update is the usual need. */
#define EP_HELD 16

struct mrcd_ep {
	uint32_t epoch;
	uint32_t all_planes;
	struct mrc_wire_cfg wire;
	struct mrc_ev_layout layout;
	uint64_t retry_tsc;
	int rx_tsc_off; /* the workers' arrival stamp (mrc_shard_rx_tsc_offset) */
	struct ep_ask ask;
	unsigned int n_held;
	struct ep_held held[EP_HELD];
	uint32_t announced[MRCD_MAX_HOSTS]; /* the mask last told, per local host */
	bool told[MRCD_MAX_HOSTS];
	struct mrcd_ep_seen seen[MRCD_CONFIG_MAX_HOSTS];
	struct ep_out out[MRCD_MAX_HOSTS][MRCD_CONFIG_MAX_HOSTS];
};

/* A TSC time on CLOCK_MONOTONIC, in ns: log lines of two processes compare. */
static uint64_t
mono_ns(const struct mrcd_daemon *d, uint64_t tsc)
{
	return d->start_mono_ns + (uint64_t)((double)(tsc - d->start_tsc) * 1e9 / (double)d->hz);
}

#define BUMP(hc, n) __atomic_store_n(&(hc)->ep.n, (hc)->ep.n + 1, __ATOMIC_RELAXED)

enum mrcd_ep_verdict
mrcd_ep_take(struct mrcd_ep_seen *seen, uint32_t epoch, uint16_t id, bool *restarted)
{
	*restarted = !seen->any || seen->epoch != epoch;
	if (!*restarted && id == seen->id)
		return MRCD_EP_SAME;
	if (!*restarted && (int16_t)(uint16_t)(id - seen->id) < 0)
		return MRCD_EP_OLD;
	seen->any = true;
	seen->epoch = epoch;
	seen->id = id;
	return MRCD_EP_NEW;
}

static bool
is_local(const struct mrcd_daemon *d, unsigned int c)
{
	return c >= d->cfg.daemon.first_host && c < d->cfg.daemon.first_host + d->n_hosts;
}

int
mrcd_ep_init(struct mrcd_daemon *d)
{
	const unsigned int n_cluster = mrcd_config_cluster_hosts(&d->cfg);
	struct mrc_qp_attr a;
	struct mrcd_ep *ep;

	ep = rte_zmalloc("mrcd_ep", sizeof(*ep), 64);
	if (ep == NULL) {
		MRCD_LOG(ctrl, ERR, "out of memory for the endpoint operations' state");
		return -ENOMEM;
	}
	if (mrcd_config_qp_attr(&d->cfg, d->hz, &a) != 0) {
		rte_free(ep);
		return -EINVAL;
	}
	mrcd_config_wire(&d->cfg, &ep->wire);
	ep->layout = a.ev.layout;
	ep->all_planes = (1u << d->cfg.daemon.planes) - 1;
	ep->retry_tsc = d->hz * MRCD_EP_RETRY_US / 1000000;
	ep->rx_tsc_off = mrc_shard_rx_tsc_offset();
	/* never 0: a peer's record of us starts with no epoch at all */
	do
		ep->epoch = (uint32_t)rte_rand();
	while (ep->epoch == 0);
	for (unsigned int c = 0; c < MRCD_CONFIG_MAX_HOSTS; c++)
		d->ep_peer_mask[c] = ep->all_planes;
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int c = 0; c < n_cluster; c++) {
			struct ep_out *o = &ep->out[h][c];

			if (is_local(d, c))
				continue;
			if (mrcd_config_qp_addr(
				    &d->cfg, d->cfg.daemon.first_host + h, c, &o->addr) != 0) {
				MRCD_LOG(ctrl, ERR, "host %u: no address for host %u",
					d->cfg.daemon.first_host + h, c);
				rte_free(ep);
				return -EINVAL;
			}
			o->known = true;
		}
	/* The peers: the other ends of this process's flows that live elsewhere. */
	for (unsigned int i = 0; i < d->n_flows; i++) {
		const struct mrcd_flow *f = &d->flows[i];

		if (f->src_local >= 0 && f->dst_local < 0 && f->dst < n_cluster)
			ep->out[f->src_local][f->dst].peer = true;
		if (f->dst_local >= 0 && f->src_local < 0 && f->src < n_cluster)
			ep->out[f->dst_local][f->src].peer = true;
	}
	d->ep = ep;
	return 0;
}

void
mrcd_ep_free(struct mrcd_daemon *d)
{
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		struct rte_mbuf *m;

		/* What shard 0 did not send before it stopped goes back to the pool. */
		while (d->host[h].ctl_tx != NULL &&
			rte_ring_sc_dequeue(d->host[h].ctl_tx, (void **)&m) == 0)
			rte_pktmbuf_free(m);
	}
	rte_free(d->ep);
	d->ep = NULL;
}

/* An EV on `plane` through uplink `uplink`, its other bits random. */
static uint32_t
ev_on(const struct mrcd_ep *ep, unsigned int plane, unsigned int uplink)
{
	const struct mrc_ev_layout *l = &ep->layout;
	uint32_t fields = 0, ev = 0;

	if (l->plane_bits != 0) {
		fields |= (uint32_t)((UINT64_C(1) << l->plane_bits) - 1) << l->plane_shift;
		ev |= (uint32_t)plane << l->plane_shift;
	}
	if (l->uplink_bits != 0) {
		fields |= (uint32_t)((UINT64_C(1) << l->uplink_bits) - 1) << l->uplink_shift;
		ev |= (uint32_t)uplink << l->uplink_shift;
	}
	return ev | ((uint32_t)rte_rand() & ~fields);
}

/* Build one endpoint packet from local host h to `o`'s host on `ev` and queue it for shard 0. */
static int
ep_send(struct mrcd_daemon *d, unsigned int h, const struct ep_out *o, uint8_t opcode,
	const struct mrc_ep_view *v, uint32_t ev)
{
	struct mrcd_hostctx *hc = &d->host[h];
	const struct mrcd_ep *ep = d->ep;
	const unsigned int plane = mrc_ev_layout_plane(&ep->layout, ev);
	struct rte_mbuf *m;
	struct mrc_pkt p;

	if (plane >= d->cfg.daemon.planes || hc->ctl_tx == NULL)
		goto failed;
	m = rte_pktmbuf_alloc(hc->tx_pool);
	if (m == NULL)
		goto failed;
	/* everything headroom but the pad and the ICRC, which go after the (empty) payload */
	m->data_off = (uint16_t)(m->buf_len - 8);
	memset(&p, 0, sizeof(p));
	memcpy(p.ip.src, o->addr.src_ip, 16);
	memcpy(p.ip.dst, o->addr.dst_ip, 16);
	p.ip.hop_limit = o->addr.hop_limit ? o->addr.hop_limit : 64;
	p.ip.ecn = MRC_ECN_ECT0;
	p.ip.dscp = ep->wire.dscp.control;
	p.ev = ev;
	p.eth_src = o->addr.src_mac[plane];
	p.eth_dst = o->addr.dst_mac[plane];
	if (hc->nd_on) { /* the next hop neighbour discovery found, as the QPs send to */
		const uint64_t w = __atomic_load_n(&hc->next_hop_mac[plane], __ATOMIC_RELAXED);

		memcpy(&p.eth_dst, &w, sizeof(p.eth_dst));
	}
	if (o->addr.srv6) {
		struct mrc_usid_path up;

		p.flags = MRC_PKT_F_SRV6;
		p.outer = p.ip;
		memcpy(p.outer.src, o->addr.src_loc, 16);
		if (mrc_ev_path(&o->addr.path, &ep->layout, ev, &up) != 0 ||
			mrc_srv6_set_path(&p, &up) != 0) {
			rte_pktmbuf_free(m);
			goto failed;
		}
	}
	p.bth.opcode = opcode;
	p.bth.pkey = MRC_BTH_DEFAULT_PKEY;
	p.bth.dqpn = MRC_EP_QPN;
	p.ep = *v;
	if (mrc_pkt_build(m, &p, &ep->wire, NULL) != 0) {
		rte_pktmbuf_free(m);
		goto failed;
	}
	m->port = (uint16_t)plane;
	if (rte_ring_sp_enqueue(hc->ctl_tx, m) != 0) {
		rte_pktmbuf_free(m);
		goto failed;
	}
	/* built in software where the port would add the outer header (doc/offload.md) */
	if (o->addr.srv6 && hc->encap_ops[plane] != NULL)
		__atomic_store_n(&hc->encap_sw_epreq, hc->encap_sw_epreq + 1, __ATOMIC_RELAXED);
	if (opcode == MRC_OP_EP_REQUEST)
		BUMP(hc, req_tx);
	else
		BUMP(hc, rsp_tx);
	return 0;
failed:
	BUMP(hc, tx_failed);
	return -ENOBUFS;
}

/* The n-th plane (mod their count) of `mask`, or -1 when it is empty. */
static int
nth_plane(uint32_t mask, unsigned int n)
{
	const unsigned int k = (unsigned int)__builtin_popcount(mask);

	if (k == 0)
		return -1;
	n %= k;
	for (int p = 0; p < 32; p++)
		if ((mask >> p) & 1) {
			if (n == 0)
				return p;
			n--;
		}
	return -1;
}

/* Time stamp of an endpoint request: the TSC in microseconds, low 16 bits. */
static uint16_t
ts_of(const struct mrcd_daemon *d, uint64_t tsc)
{
	return (uint16_t)(uint64_t)((double)tsc * 1e6 / (double)d->hz);
}

bool
mrcd_ep_svc_ns(uint64_t rx_tsc, uint64_t now_tsc, uint64_t hz, uint32_t *svc_ns)
{
	uint64_t ns;

	if (rx_tsc == 0 || now_tsc < rx_tsc || hz == 0)
		return false;
	ns = (uint64_t)((double)(now_tsc - rx_tsc) * 1e9 / (double)hz);
	*svc_ns = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
	return true;
}

void
mrcd_ep_probe_rtt(uint64_t raw_ns, const struct mrc_ep_view *answer, struct mrcd_ep_probe_rtt *out)
{
	memset(out, 0, sizeof(*out));
	out->raw_ns = raw_ns;
	out->rtt_ns = raw_ns;
	out->svc_valid = answer->svc_valid;
	if (!answer->svc_valid)
		return;
	out->svc_ns = answer->svc_time_ns;
	if (answer->svc_time_ns <= raw_ns) {
		out->rtt_ns = raw_ns - answer->svc_time_ns;
		out->svc_subtracted = true;
	}
}

/* Round trip of the request an answer echoes `ts` of, in ns (us resolution, < 65.5 ms). */
static uint64_t
rtt_of(const struct mrcd_daemon *d, uint16_t ts, uint64_t now)
{
	return (uint64_t)(uint16_t)(ts_of(d, now) - ts) * 1000;
}

static void
send_update(struct mrcd_daemon *d, unsigned int h, unsigned int c, uint64_t now)
{
	struct mrcd_ep *ep = d->ep;
	struct ep_out *o = &ep->out[h][c];
	const uint32_t local = mrc_shard_port_mask(d->host[h].shard[0].rt);
	/* a plane up at both ends, a different one each try; any of ours if none */
	uint32_t ok = local & __atomic_load_n(&d->ep_peer_mask[c], __ATOMIC_RELAXED);
	const unsigned int n_t1 = o->addr.path.n_t1 ? o->addr.path.n_t1 : 1;
	struct mrc_ep_view v = {.op = MRC_EP_OP_PORT_STATUS,
		.req_id = o->id,
		.port_status_mask = o->mask,
		.epoch = ep->epoch,
		.ts = ts_of(d, now)};
	int plane;

	if (ok == 0)
		ok = local;
	plane = nth_plane(ok, o->tries);
	/* 1, 2, 4 ... x the retry time: a peer still starting answers late, not never */
	o->next_tsc = now + (ep->retry_tsc << o->tries);
	if (plane < 0)
		return; /* no port up: nothing can leave; try again later, no try spent */
	if (o->tries > 0)
		BUMP(&d->host[h], retries);
	o->tries++;
	o->sent_tsc = now;
	(void)ep_send(
		d, h, o, MRC_OP_EP_REQUEST, &v, ev_on(ep, (unsigned int)plane, o->tries % n_t1));
}

/* Tell cluster host c host h's mask (again). */
static void
announce(struct mrcd_daemon *d, unsigned int h, unsigned int c, uint32_t mask, uint64_t now)
{
	struct ep_out *o = &d->ep->out[h][c];

	o->id++;
	o->mask = mask;
	o->pending = true;
	o->tries = 0;
	o->next_tsc = now;
}

/* Whether every shard of this process's hosts told its QPs generation gen of the peers' masks. */
static bool
workers_took(const struct mrcd_daemon *d, uint32_t gen)
{
	for (unsigned int h = 0; h < d->n_hosts; h++)
		for (unsigned int k = 0; k < d->host[h].n_shards; k++)
			if ((int32_t)(__atomic_load_n(
					      &d->host[h].shard[k].peer_gen, __ATOMIC_ACQUIRE) -
				      gen) < 0)
				return false;
	return true;
}

/*
 * Answer a request of cluster host c to local host h. The service time runs
 * to now: the answer's wait for shard 0 to send it, after, is not in it
 * (doc/protocol.md, "ERTH and EETH").
 */
static void
answer(struct mrcd_daemon *d, unsigned int h, unsigned int c, struct mrc_ep_view *r, uint32_t ev,
	uint64_t rx_tsc)
{
	r->svc_valid = mrcd_ep_svc_ns(rx_tsc, rte_rdtsc(), d->hz, &r->svc_time_ns);
	(void)ep_send(d, h, &d->ep->out[h][c], MRC_OP_EP_RESPONSE, r, ev);
}

/* Send the held port-status answers whose generation every worker took, in their order. */
static void
answer_held(struct mrcd_daemon *d)
{
	struct mrcd_ep *ep = d->ep;
	unsigned int k = 0;

	for (unsigned int i = 0; i < ep->n_held; i++) {
		struct ep_held *a = &ep->held[i];

		if (workers_took(d, a->gen))
			answer(d, a->h, a->c, &a->r, a->ev, a->rx_tsc);
		else
			ep->held[k++] = *a;
	}
	ep->n_held = k;
}

/* Settle the ask taken: its probe answered (rc 1, *res) or could not be sent. */
static void
ask_done(struct mrcd_ep *ep, int rc, const struct mrcd_ep_probe_rtt *res)
{
	struct ep_ask *a = &ep->ask;

	a->rc = rc;
	if (res != NULL)
		a->res = *res;
	a->out = NULL;
	__atomic_store_n(&a->done, a->taken, __ATOMIC_RELEASE);
}

/* An ask of the control socket's thread not taken yet: send its probe. True if taken. */
static bool
take_ask(struct mrcd_daemon *d)
{
	struct mrcd_ep *ep = d->ep;
	struct ep_ask *a = &ep->ask;
	const uint64_t w = __atomic_load_n(&a->asked, __ATOMIC_ACQUIRE);
	const uint16_t n = (uint16_t)(w >> 48);
	const unsigned int h = (unsigned int)(w >> 32) & 0xff, c = (unsigned int)(w >> 40) & 0xff;
	int rc;

	if (n == a->taken)
		return false;
	/* an earlier ask's answer, if it still comes, is no longer waited for */
	if (a->out != NULL)
		a->out->probe_tsc = 0;
	a->out = NULL;
	__atomic_store_n(&a->taken, n, __ATOMIC_RELAXED);
	rc = mrcd_ep_probe(d, h, c, (uint32_t)w);
	if (rc != 0)
		ask_done(ep, rc, NULL);
	else
		a->out = &ep->out[h][c];
	return true;
}

uint64_t
mrcd_ep_tick(struct mrcd_daemon *d, uint64_t now)
{
	struct mrcd_ep *ep = d->ep;
	const unsigned int n_cluster = mrcd_config_cluster_hosts(&d->cfg);
	/* the next retry due; now if this tick sent anything (its answer is awaited) */
	uint64_t next = UINT64_MAX;

	if (ep == NULL)
		return next;
	if (take_ask(d))
		next = now;
	answer_held(d);
	/* answers still held wait for the workers: keep the loop's short tick */
	if (ep->n_held)
		next = now;
	for (unsigned int h = 0; h < d->n_hosts; h++) {
		const uint32_t m = mrc_shard_port_mask(d->host[h].shard[0].rt);

		/* The first tick tells every peer, all up or not: a peer may hold a mask of our
		 * previous run. */
		if (!ep->told[h] || m != ep->announced[h]) {
			if (ep->told[h])
				MRCD_LOG(ctrl, NOTICE,
					"host %u: planes 0x%x (were 0x%x): telling its peers "
					"elsewhere; monotonic %" PRIu64 " ns",
					d->cfg.daemon.first_host + h, m, ep->announced[h],
					mono_ns(d, now));
			ep->told[h] = true;
			ep->announced[h] = m;
			next = now;
			for (unsigned int c = 0; c < n_cluster; c++)
				if (ep->out[h][c].peer)
					announce(d, h, c, m, now);
		}
		for (unsigned int c = 0; c < n_cluster; c++) {
			struct ep_out *o = &ep->out[h][c];

			if (!o->pending)
				continue;
			if (now < o->next_tsc) {
				next = RTE_MIN(next, o->next_tsc);
				continue;
			}
			if (o->tries >= MRCD_EP_TRIES) {
				o->pending = false;
				BUMP(&d->host[h], timeouts);
				MRCD_LOG(ctrl, WARNING,
					"host %u: host %u did not answer port-status update %u "
					"(planes 0x%x) in %u tries over %u ms; given up",
					d->cfg.daemon.first_host + h, c, o->id, o->mask, o->tries,
					((MRCD_EP_RETRY_US << o->tries) - MRCD_EP_RETRY_US) / 1000);
				continue;
			}
			send_update(d, h, c, now);
			next = now;
		}
	}
	return next;
}

int
mrcd_ep_send_rec(struct mrcd_daemon *d, unsigned int h, unsigned int c, bool answer,
	uint16_t req_id, uint16_t ts, const struct mrc_ep_rec *rec, unsigned int try_no)
{
	struct mrcd_ep *ep = d->ep;
	const uint64_t now = rte_rdtsc();
	struct mrc_ep_view v = {.op = MRC_EP_OP_FLOW_RECOVER, .req_id = req_id, .rec = *rec};
	uint32_t local, ok;
	int plane;

	if (ep == NULL || h >= d->n_hosts || c >= MRCD_CONFIG_MAX_HOSTS || !ep->out[h][c].known)
		return -EINVAL;
	local = mrc_shard_port_mask(d->host[h].shard[0].rt);
	/* a plane up at both ends, a different one each try; any of ours if none */
	ok = local & __atomic_load_n(&d->ep_peer_mask[c], __ATOMIC_RELAXED);
	plane = nth_plane(ok != 0 ? ok : local, try_no);
	if (plane < 0)
		return -ENETDOWN;
	if (answer) {
		v.ts = ts;
		v.port_status_mask = local;
		v.svc_valid =
			false; /* the answer waited for workers: no service time to subtract */
	} else {
		v.epoch = ep->epoch;
		v.ts = ts_of(d, now);
		if (try_no > 0)
			BUMP(&d->host[h], rec_retries);
	}
	return ep_send(d, h, &ep->out[h][c], answer ? MRC_OP_EP_RESPONSE : MRC_OP_EP_REQUEST, &v,
		ev_on(ep, (unsigned int)plane, 0));
}

int
mrcd_ep_probe(struct mrcd_daemon *d, unsigned int h, unsigned int peer, uint32_t ev)
{
	struct ep_out *o;
	struct mrc_ep_view v = {.op = MRC_EP_OP_EV_PROBE};
	const uint64_t now = rte_rdtsc();

	if (d->ep == NULL || h >= d->n_hosts || peer >= MRCD_CONFIG_MAX_HOSTS ||
		!d->ep->out[h][peer].known)
		return -EINVAL;
	o = &d->ep->out[h][peer];
	v.req_id = ++o->probe_id;
	v.epoch = d->ep->epoch;
	v.ts = ts_of(d, now);
	o->probe_tsc = now;
	return ep_send(d, h, o, MRC_OP_EP_REQUEST, &v, ev);
}

int
mrcd_ep_probe_ask(struct mrcd_daemon *d, unsigned int h, unsigned int peer, uint32_t ev,
	unsigned int wait_ms, struct mrcd_ep_probe_rtt *out)
{
	const struct timespec nap = {.tv_nsec = 50 * 1000};
	struct mrcd_ep *ep = d->ep;
	struct ep_ask *a;
	uint64_t deadline;
	uint16_t n;

	/* `known` is written at setup only: safe to read from this thread */
	if (ep == NULL || h >= d->n_hosts || peer >= MRCD_CONFIG_MAX_HOSTS ||
		!ep->out[h][peer].known)
		return -EINVAL;
	a = &ep->ask;
	n = (uint16_t)((__atomic_load_n(&a->asked, __ATOMIC_RELAXED) >> 48) + 1);
	if (n == 0) /* 0 is "none asked yet": taken and done start there */
		n = 1;
	__atomic_store_n(&a->asked,
		(uint64_t)ev | (uint64_t)h << 32 | (uint64_t)peer << 40 | (uint64_t)n << 48,
		__ATOMIC_RELEASE);
	deadline = mrcd_mono_ns() + (uint64_t)wait_ms * 1000000ull;
	for (;;) {
		if (__atomic_load_n(&a->done, __ATOMIC_ACQUIRE) == n) {
			if (a->rc == 1)
				*out = a->res;
			return a->rc;
		}
		if (mrcd_mono_ns() >= deadline)
			return __atomic_load_n(&a->taken, __ATOMIC_RELAXED) == n ? -ETIMEDOUT
										 : -ESHUTDOWN;
		nanosleep(&nap, NULL);
	}
}

/* The peer whose NIC address sent `p`, or -1. */
static int
peer_of(const struct mrcd_daemon *d, unsigned int h, const struct mrc_pkt *p)
{
	const unsigned int n_cluster = mrcd_config_cluster_hosts(&d->cfg);

	for (unsigned int c = 0; c < n_cluster; c++)
		if (d->ep->out[h][c].known &&
			memcmp(d->ep->out[h][c].addr.dst_ip, p->ip.src, 16) == 0)
			return (int)c;
	return -1;
}

static void
take_status(struct mrcd_daemon *d, unsigned int h, unsigned int c, const struct mrc_ep_view *v,
	uint64_t now)
{
	struct mrcd_ep *ep = d->ep;
	struct mrcd_hostctx *hc = &d->host[h];
	bool restarted;
	const uint32_t mask = v->port_status_mask & ep->all_planes;
	const uint32_t was = d->ep_peer_mask[c];

	switch (mrcd_ep_take(&ep->seen[c], v->epoch, v->req_id, &restarted)) {
	case MRCD_EP_NEW:
		break;
	case MRCD_EP_SAME:
		BUMP(hc, repeated);
		return;
	case MRCD_EP_OLD:
		BUMP(hc, stale);
		return;
	}
	if (mask != was) {
		__atomic_store_n(&d->ep_peer_mask[c], mask, __ATOMIC_RELEASE);
		__atomic_store_n(&d->ep_peer_gen, d->ep_peer_gen + 1, __ATOMIC_RELEASE);
		BUMP(hc, peer_updates);
		MRCD_LOG(ctrl, NOTICE,
			"host %u: host %u's planes are 0x%x (were 0x%x; request %u): %s; "
			"monotonic %" PRIu64 " ns",
			d->cfg.daemon.first_host + h, c, mask, was, v->req_id,
			mask == ep->all_planes ? "all up" : "its QPs here skip the others",
			mono_ns(d, now));
	}
	/* A peer that (re)started holds no mask of ours, or an old one: tell it again. */
	if (restarted)
		for (unsigned int l = 0; l < d->n_hosts; l++)
			if (ep->out[l][c].peer && !ep->out[l][c].pending && ep->told[l])
				announce(d, l, c, ep->announced[l], now);
}

static void
input_one(struct mrcd_daemon *d, unsigned int h, const struct rte_mbuf *m, uint64_t now)
{
	struct mrcd_hostctx *hc = &d->host[h];
	/* when the worker had it in hand (0: not stamped; then when we did) */
	const uint64_t rx_tsc = mrc_shard_rx_tsc(m, d->ep->rx_tsc_off);
	struct mrc_pkt p;
	int c;

	if (mrc_pkt_parse(m, &d->ep->wire, &p) != MRC_WIRE_OK ||
		(p.bth.opcode != MRC_OP_EP_REQUEST && p.bth.opcode != MRC_OP_EP_RESPONSE)) {
		BUMP(hc, refused);
		return;
	}
	c = peer_of(d, h, &p);
	if (c < 0) {
		BUMP(hc, unknown_peer);
		return;
	}
	struct ep_out *o = &d->ep->out[h][c];

	if (p.bth.opcode == MRC_OP_EP_REQUEST) {
		struct mrc_ep_view r = {.op = p.ep.op,
			.req_id = p.ep.req_id,
			.port_status_mask = mrc_shard_port_mask(hc->shard[0].rt),
			.ts = p.ep.ts,
			.tsr = p.ep.tsr,
			.ftype = p.ep.ftype};
		uint32_t ev = p.ev;

		BUMP(hc, req_rx);
		if (p.ep.op == MRC_EP_OP_FLOW_RECOVER) {
			/* answered by the recovery, now or once its end is made */
			mrcd_recover_ep_request(d, h, (unsigned int)c, &p.ep, now);
			return;
		}
		if (p.ep.op == MRC_EP_OP_PORT_STATUS) {
			take_status(d, h, (unsigned int)c, &p.ep, now);
			/* answer on a plane of ours that is up: the one it came on if it is */
			const uint32_t up = mrc_shard_port_mask(hc->shard[0].rt);
			const unsigned int plane = mrc_ev_layout_plane(&d->ep->layout, ev);

			if (!((up >> plane) & 1)) {
				const int q = nth_plane(up, 0);

				if (q < 0)
					return;
				ev = ev_on(d->ep, (unsigned int)q, 0);
			}
			/* held until our QPs took the mask (struct ep_held) */
			const uint32_t gen = __atomic_load_n(&d->ep_peer_gen, __ATOMIC_RELAXED);

			if (!workers_took(d, gen)) {
				if (d->ep->n_held < EP_HELD) {
					d->ep->held[d->ep->n_held++] = (struct ep_held){.gen = gen,
						.h = (uint8_t)h,
						.c = (uint8_t)c,
						.ev = ev,
						.rx_tsc = rx_tsc,
						.r = r};
					BUMP(hc, held);
					return;
				}
				BUMP(hc, held_full);
			}
		}
		/* An EV probe is answered on its own EV, at once: the path it tests. */
		answer(d, h, (unsigned int)c, &r, ev, rx_tsc);
		return;
	}
	BUMP(hc, rsp_rx);
	if (p.ep.op == MRC_EP_OP_FLOW_RECOVER) {
		mrcd_recover_ep_answer(d, h, (unsigned int)c, &p.ep, now);
	} else if (p.ep.op == MRC_EP_OP_PORT_STATUS && o->pending && p.ep.req_id == o->id) {
		o->pending = false;
		o->rtt_ns = rtt_of(d, p.ep.ts, now);
		MRCD_LOG(ctrl, NOTICE,
			"host %u: host %u took port-status update %u (planes 0x%x) after %u "
			"requests, one answered in %" PRIu64 " ns; monotonic %" PRIu64 " ns",
			d->cfg.daemon.first_host + h, c, o->id, o->mask, o->tries, o->rtt_ns,
			mono_ns(d, now));
	} else if (p.ep.op == MRC_EP_OP_EV_PROBE && p.ep.req_id == o->probe_id &&
		   o->probe_tsc != 0 && p.ep.ts == ts_of(d, o->probe_tsc)) {
		const uint64_t at = rx_tsc != 0 && rx_tsc >= o->probe_tsc ? rx_tsc : now;

		mrcd_ep_probe_rtt((uint64_t)((double)(at - o->probe_tsc) * 1e9 / (double)d->hz),
			&p.ep, &o->probe);
		o->probe_tsc = 0;
		if (d->ep->ask.out == o)
			ask_done(d->ep, 1, &o->probe);
	} else {
		BUMP(hc, repeated);
	}
}

void
mrcd_ep_input(struct mrcd_daemon *d, unsigned int h, struct rte_mbuf **m, unsigned int n)
{
	const uint64_t now = rte_rdtsc();

	for (unsigned int k = 0; k < n && d->ep != NULL; k++)
		input_one(d, h, m[k], now);
	rte_pktmbuf_free_bulk(m, n);
}

void
mrcd_ep_json(const struct mrcd_daemon *d, FILE *j)
{
	const unsigned int n_cluster = mrcd_config_cluster_hosts(&d->cfg);
	struct mrcd_ep_counters t;
	const char *sep = "";

	memset(&t, 0, sizeof(t));
	for (unsigned int h = 0; h < d->n_hosts; h++) {
#define MRCD_EP_SUM(n, help) t.n += __atomic_load_n(&d->host[h].ep.n, __ATOMIC_RELAXED);
		MRCD_EP_COUNTERS(MRCD_EP_SUM)
#undef MRCD_EP_SUM
	}
	fprintf(j, " \"endpoint\": {");
#define MRCD_EP_PUT(n, help)                            \
	fprintf(j, "%s\"%s\": %" PRIu64, sep, #n, t.n); \
	sep = ", ";
	MRCD_EP_COUNTERS(MRCD_EP_PUT)
#undef MRCD_EP_PUT
	/* per peer elsewhere: the planes it said are up, and the last answers' round trips */
	fprintf(j, ", \"peers\": {");
	sep = "";
	for (unsigned int c = 0; c < n_cluster && d->ep != NULL; c++) {
		struct mrcd_ep_probe_rtt probe = {0};
		uint64_t rtt = 0;
		bool known = false;

		for (unsigned int h = 0; h < d->n_hosts; h++) {
			const struct ep_out *o = &d->ep->out[h][c];

			known |= o->known;
			rtt = RTE_MAX(rtt, o->rtt_ns);
			if (o->probe.raw_ns > probe.raw_ns) /* the slowest host's last answer */
				probe = o->probe;
		}
		if (!known)
			continue;
		fprintf(j,
			"%s\"%u\": {\"planes\": %u, \"update_rtt_ns\": %" PRIu64
			", \"probe_rtt_ns\": %" PRIu64 ", \"probe_raw_rtt_ns\": %" PRIu64
			", \"probe_svc_ns\": %" PRIu32 ", \"probe_svc_subtracted\": %s}",
			sep, c, d->ep_peer_mask[c], rtt, probe.rtt_ns, probe.raw_ns, probe.svc_ns,
			probe.svc_subtracted ? "true" : "false");
		sep = ", ";
	}
	fprintf(j, "}},\n");
}
