/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main thread of mrcd and of mrc-fabric, at setup (before any
 * worker runs); the results are copied into what the workers own.
 *
 * From the configuration to the libraries' structs: the wire options, QP
 * attributes (EV pool, CC, windows, timers), a QP's addressing, and the
 * emulated fabric. Units change here (us and KB in the file, tsc and bytes
 * in the libraries), and the "0 = derived" values are resolved.
 */

#include <errno.h>
#include <string.h>

#include "mrc_time.h"
#include "mrcd_config_priv.h"

/*
 * About the headers around a payload (Ethernet, outer IPv6, SRv6 inner
 * IPv6 or SRH, UDP, BTH, METH, RETH, ICRC) and about a SACK's size; only
 * the derived base RTT uses them, where a few bytes do not matter.
 */
#define DATA_HDR_BYTES 150
#define SACK_BYTES     150
/* Base RTT with ethdev ports when [cc] base_rtt_us is 0: the QP library's default. */
#define ETHDEV_BASE_RTT_NS 10000
/* Per plane, with ethdev ports, when [cc] link_gbps is 0. */
#define ETHDEV_PLANE_GBPS 100.0

void
mrcd_config_wire(const struct mrcd_config *cfg, struct mrc_wire_cfg *w)
{
	const struct mrcd_cfg_transport *t = &cfg->transport;

	mrc_wire_cfg_defaults(w);
	w->dscp.no_trim = t->dscp_no_trim;
	w->dscp.trimmable = t->dscp_trimmable;
	w->dscp.trimmable_retx = t->dscp_trimmable_retx;
	w->dscp.trimmed = t->dscp_trimmed;
	w->dscp.trimmed_lasthop = t->dscp_trimmed_lasthop;
	w->dscp.control = t->dscp_control;
	w->ev_split = t->ev_split == 1 ? MRC_EV_SPLIT_SPORT_HIGH : MRC_EV_SPLIT_SPORT_LOW;
	w->sack_bit_order = t->sack_bits == 1 ? MRC_SACK_BIT_MSB0 : MRC_SACK_BIT_LSB0;
	w->verify_icrc = t->verify_icrc;
	w->udp_checksum = t->udp_checksum;
}

/* Serialisation time of `bytes` at `gbps`, ns. */
static double
ser_ns(double bytes, double gbps)
{
	return bytes * 8.0 / gbps;
}

uint32_t
mrcd_config_base_rtt_ns(const struct mrcd_config *cfg)
{
	const struct mrcd_cfg_fabric *f = &cfg->fabric;
	unsigned int links;
	double ns;

	if (cfg->cc.base_rtt_us != 0)
		return cfg->cc.base_rtt_us * 1000u;
	if (cfg->ports.mode != MRCD_PORTS_FABRIC)
		return ETHDEV_BASE_RTT_NS;
	/* host -> T0 -> T1 -> T0 -> host when some pair of hosts needs a T1, else via one T0. */
	links = mrcd_config_n_t0(cfg) > 1 ? 4 : 2;
	ns = links * (2.0 * f->link_delay_ns +
			     ser_ns(cfg->transport.mtu + DATA_HDR_BYTES + f->frame_overhead_bytes,
				     f->link_gbps) +
			     ser_ns(SACK_BYTES + f->frame_overhead_bytes, f->link_gbps));
	/* Inside the CC library's range (128 ns .. 100 ms). */
	if (ns > 100e6)
		ns = 100e6;
	return (uint32_t)RTE_MAX(ns, 1000.0);
}

uint64_t
mrcd_config_cc_link_bps(const struct mrcd_config *cfg)
{
	double gbps = cfg->cc.link_gbps;
	/* A pinned (ECMP) QP can only ever use its one plane's link. */
	const unsigned int planes =
		cfg->transport.paths == MRC_QP_PATHS_ECMP ? 1u : cfg->daemon.planes;

	if (gbps == 0.0)
		gbps = planes * (cfg->ports.mode == MRCD_PORTS_FABRIC ? cfg->fabric.link_gbps
								      : ETHDEV_PLANE_GBPS);
	return (uint64_t)(gbps * 1e9);
}

int
mrcd_config_qp_attr(const struct mrcd_config *cfg, uint64_t tsc_hz, struct mrc_qp_attr *a)
{
	const struct mrcd_cfg_transport *t = &cfg->transport;
	const struct mrcd_cfg_cc *c = &cfg->cc;
	const uint32_t rtt_ns = mrcd_config_base_rtt_ns(cfg);

	mrc_qp_attr_defaults(a, cfg->daemon.planes, tsc_hz);
	a->ev.n_active = t->ev_active;
	a->ev.n_backup = t->ev_backup;
	a->ev.ev_min_active =
		t->ev_min_active != 0 ? t->ev_min_active : (uint16_t)RTE_MAX(t->ev_active / 4, 1);
	a->ev.skip_rotations = t->skip_rotations;
	a->ev.probe_good_needed = t->probe_good;
	a->ev.reshuffle = t->ev_reshuffle;
	a->ev.probe_interval_tsc = mrc_us_to_tsc_round_up(t->probe_interval_us, tsc_hz);
	a->paths = t->paths;
	a->reliability = t->reliability;

	snprintf(a->cc_name, sizeof(a->cc_name), "%s", c->algorithm);
	a->cc.mtu_bytes = t->mtu;
	a->cc.base_rtt_ns = rtt_ns;
	a->cc.link_bps = mrcd_config_cc_link_bps(cfg);
	a->cc.tsc_hz = tsc_hz;
	a->cc.trimming_enabled = c->trimming;
	a->cc.max_cwnd_bytes = c->max_cwnd_kb * 1000u;
	a->cc.target_qdelay_ns = c->target_qdelay_us * 1000u;
	a->cc.gamma_pm = c->gamma_pm;
	a->cc.max_md_jump_pm = c->max_md_jump_pm;
	a->cc.fi_scale_pm = c->fi_scale_pm;
	a->cc.qa_gate = c->qa_gate;
	a->cc.adjust_period_ns = c->adjust_period_us * 1000u;
	a->cc.disable_qa = c->disable_qa;
	a->cc.ecn_widespread_pct = c->ecn_widespread_pct;
	a->cc.disable_ecn_gate = c->disable_ecn_gate;
	a->cc.fixed_cwnd_bytes = c->fixed_cwnd_kb * 1000u;

	/* Both ends run the same configuration, so the peer's MPR and WIMM are ours. */
	a->mpr = t->mpr;
	a->peer_mpr = t->mpr;
	a->wimm = t->wimm;
	a->peer_wimm = t->wimm;
	a->ack_every = t->ack_every;
	a->ack_delay_tsc = mrc_us_to_tsc(t->ack_delay_us, tsc_hz);
	a->trim_nack = t->trim_nack;
	a->dyn_mpr = t->dyn_mpr;
	a->peer_dyn_mpr = t->dyn_mpr;
	a->tseth = t->tseth;
	a->always_skip_marks = t->always_skip_marks;
	a->path_order = t->path_order;
	a->order_loss_retires = t->order_loss_retires;
	a->timeout = t->timeout;
	a->retry_linear = t->retry_linear;
	a->retry_exp = t->retry_exp;
	a->initial_rtt_tsc = t->initial_rtt_us != 0 ? mrc_us_to_tsc(t->initial_rtt_us, tsc_hz)
						    : mrc_ns_to_tsc(rtt_ns, tsc_hz);
	a->min_pkt_timeout_tsc = t->min_pkt_timeout_us != 0
					 ? mrc_us_to_tsc(t->min_pkt_timeout_us, tsc_hz)
					 : mrc_ns_to_tsc(2ull * rtt_ns, tsc_hz);

	if (mrc_ev_cfg_check(&a->ev, NULL) != 0 || mrc_cc_params_check(&a->cc, NULL) != 0)
		return -EINVAL;
	return 0;
}

int
mrcd_config_qp_addr(const struct mrcd_config *cfg, unsigned int local, unsigned int peer,
	struct mrc_qp_addr *addr)
{
	const unsigned int cluster = mrcd_config_cluster_hosts(cfg);
	const struct mrcd_config_host *l, *p;

	if (local >= cluster || peer >= cluster)
		return -EINVAL;
	l = &cfg->host[local];
	p = &cfg->host[peer];
	memset(addr, 0, sizeof(*addr));
	addr->srv6 = cfg->transport.encap == MRCD_ENCAP_SRV6;
	memcpy(addr->src_ip, l->nic_addr, sizeof(addr->src_ip));
	memcpy(addr->dst_ip, p->nic_addr, sizeof(addr->dst_ip));
	memcpy(addr->src_loc, l->locator, sizeof(addr->src_loc));
	addr->path.block = cfg->fabric.block;
	addr->path.src_t0 = (uint8_t)l->t0;
	addr->path.dst_t0 = (uint8_t)p->t0;
	addr->path.dst_host = (uint8_t)peer;
	addr->path.n_t1 = cfg->fabric.t1s;
	/* Frames go to the next hop on each plane, whoever the final peer is. */
	for (unsigned int i = 0; i < MRC_EV_MAX_PLANES; i++) {
		addr->src_mac[i] = l->mac[i];
		addr->dst_mac[i] = l->peer_mac[i];
	}
	addr->hop_limit = cfg->transport.hop_limit;
	return 0;
}

int
mrcd_config_fabric(const struct mrcd_config *cfg, uint64_t tsc_hz, struct mrc_fabric_cfg *f)
{
	const struct mrcd_cfg_fabric *c = &cfg->fabric;

	mrc_fabric_cfg_defaults(f);
	f->n_hosts = cfg->daemon.hosts;
	f->n_planes = cfg->daemon.planes;
	f->hosts_per_t0 = c->hosts_per_t0;
	f->n_t1 = c->t1s;
	f->block = c->block;
	f->link_gbps = c->link_gbps;
	f->link_delay_ns = c->link_delay_ns;
	f->frame_overhead_bytes = c->frame_overhead_bytes;
	f->queue_limit_bytes = c->queue_kb * 1000u;
	f->ecn_kmin_bytes = c->ecn_kmin_kb * 1000u;
	f->ecn_kmax_bytes = c->ecn_kmax_kb * 1000u;
	f->ecn_last_hop = c->ecn_last_hop;
	f->trim_threshold_bytes = c->trim_kb * 1000u;
	f->control_priority = c->control_priority;
	f->loss_prob = c->loss;
	f->ring_size = c->ring_size;
	f->max_in_flight = c->max_in_flight;
	/* a rx and a tx queue per worker of each host on every port */
	f->host_queues = cfg->lcores.workers_per_host ? cfg->lcores.workers_per_host : 1;
	f->tsc_hz = tsc_hz;
	f->seed = cfg->daemon.seed;
	mrcd_config_wire(cfg, &f->wire);
	for (unsigned int h = 0; h < MRC_FABRIC_MAX_HOSTS; h++)
		memcpy(f->nic_addr[h], cfg->host[h].nic_addr, MRC_IPV6_ADDR_LEN);
	return mrc_fabric_cfg_check(f, NULL);
}
