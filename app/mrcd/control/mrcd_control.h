/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_CONTROL_H
#define MRCD_CONTROL_H

/*
 * The control side: what the main lcore runs. Setup before the workers
 * start, the run loop while they run, teardown after they stop. Each
 * function returning int returns 0, or a negative errno after logging what
 * is wrong (mrcd.ctrl, once, where it went wrong); the caller passes it on.
 * Only main.c exits.
 */

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "mrcd_daemon.h"

/* Now on the monotonic clock, in ns: the control thread's waits on other threads are bounded
 * in time, which naps or TSC stalls of a descheduled VM do not measure. */
static inline uint64_t
mrcd_mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * Start (mrcd_start.c), in the order main.c calls it. mrcd_load_inputs():
 * the config (with the command line's overrides), the profile and the
 * scenario's path. mrcd_print_check(): what --check prints.
 * mrcd_eal_start() also sets d->hz. mrcd_network_open(): the emulated
 * fabric and its scenario, ethdev ports or loop links ([ports] mode).
 * mrcd_heap_mark()/mrcd_heap_account(): what the flows, hosts and QPs made
 * between the two calls take from the heap, for the summary.
 */
int mrcd_load_inputs(struct mrcd_daemon *d);
/*
 * The traffic profile's ev_profile and cc_profile are profiles online at
 * start (the configuration's): else logged, naming both files, and -EINVAL.
 */
int mrcd_gen_profiles_check(struct mrcd_daemon *d);
void mrcd_print_check(const struct mrcd_daemon *d);
int mrcd_eal_start(struct mrcd_daemon *d);
int mrcd_claim_pollers(const struct mrcd_daemon *d);
int mrcd_make_all_pools(struct mrcd_daemon *d);
int mrcd_network_open(struct mrcd_daemon *d);
void mrcd_heap_mark(struct mrcd_daemon *d);
void mrcd_heap_account(struct mrcd_daemon *d);
int mrcd_make_hosts(struct mrcd_daemon *d, uint64_t now);
int mrcd_sched_init_all(struct mrcd_daemon *d);

/*
 * Service mode (mrcd_service.c; nothing without --service).
 * mrcd_service_start(): after the inputs load, before the EAL: directories,
 * output paths, pid file, chdir, the journal's log levels.
 * mrcd_service_reload(): SIGHUP (by = "SIGHUP"), or mrcctl reload (served
 * from mrcd_service_tick), from the control loop; what came of it in
 * d->svc.answer_rc and answer. mrcd_service_timeline_drop(): before the
 * fabric is freed, its workers stopped: a timeline offered and not taken
 * goes. mrcd_service_stop(): the pid file goes, at exit.
 */
int mrcd_service_start(struct mrcd_daemon *d);
void mrcd_service_reload(struct mrcd_daemon *d, const char *by);
void mrcd_service_timeline_drop(struct mrcd_daemon *d);
/* Every control loop pass: a taken timeline freed, an mrcctl reload served. */
void mrcd_service_reload_tick(struct mrcd_daemon *d);
void mrcd_service_stop(struct mrcd_daemon *d);

/*
 * systemd's readiness messages (mrcd_service_notify.c; nothing without
 * $NOTIFY_SOCKET). mrcd_service_tick(): every control loop pass: READY=1
 * once every worker has made a pass, a STATUS= line every few seconds.
 * mrcd_service_stopping(): STOPPING=1 as the drain starts.
 * mrcd_service_status(): the live summary a STATUS= line carries.
 */
void mrcd_service_tick(struct mrcd_daemon *d, uint64_t now);
void mrcd_service_stopping(struct mrcd_daemon *d);
void mrcd_service_status(const struct mrcd_daemon *d, char *buf, size_t len);

/*
 * The run (mrcd_run.c). mrcd_signals_catch(): SIGINT, SIGTERM and SIGQUIT
 * start the drain; SIGHUP reloads in service mode (mrcd_service_reload);
 * otherwise it, SIGUSR1 and SIGUSR2 are said and ignored; SIGPIPE ignored. mrcd_run(): launch the
 * workers, run the control loop until the duration ends or a signal comes, drain, stop the workers;
 * the EAL's -errno when a worker did not launch (the others are stopped).
 */
int mrcd_signals_catch(void);
int mrcd_run(struct mrcd_daemon *d);

/*
 * Teardown (mrcd_teardown.c), the reverse of the start; each copes with what
 * was not made. mrcd_free_hosts() returns -EBUSY when a pool missed mbufs.
 */
void mrcd_free_qps(struct mrcd_daemon *d);
void mrcd_network_close(struct mrcd_daemon *d);
int mrcd_free_hosts(struct mrcd_daemon *d);

/*
 * Setup steps (mrcd_setup.c). mrcd_make_flows(d, false) only counts the flows
 * (before the EAL starts, for mrcd_size_memory); with true it allocates and
 * fills them.
 */
int mrcd_make_flows(struct mrcd_daemon *d, bool fill);
int mrcd_size_memory(struct mrcd_daemon *d);
int mrcd_make_pools(struct mrcd_daemon *d, unsigned int h);
int mrcd_make_host(struct mrcd_daemon *d, unsigned int h, uint64_t now);
int mrcd_connect_flows(struct mrcd_daemon *d, uint64_t now);
int mrcd_assign_lcores(struct mrcd_daemon *d);

/*
 * A QP of host `local`'s shard `shard` to cluster host `peer` (whose shard
 * `peer_shard` owns dest_qpn), numbered qpn and connected to dest_qpn, taken
 * to RTS with `rand` (the PRNG of whichever thread makes it); not yet given
 * to a shard. Its attributes are the configuration's with the traffic
 * profile's EV and CC profiles over them, counted on each. NULL (logged)
 * with rte_errno on failure.
 */
struct mrc_qp *mrcd_make_qp_rts(struct mrcd_daemon *d, unsigned int local, unsigned int shard,
	unsigned int peer, unsigned int peer_shard, uint32_t qpn, uint32_t dest_qpn, uint64_t now,
	struct mrc_rand *rand);
/*
 * Destroy a QP mrcd_make_qp_rts made (NULL: nothing), uncounting it from the
 * EV and CC profiles it was made with ([profile] ev_profile, cc_profile).
 */
void mrcd_gen_qp_destroy(struct mrcd_daemon *d, struct mrc_qp *qp);

/* 0 if both of the host's pools hold every mbuf again; else logs which did not, -EBUSY. */
int mrcd_pools_full(const struct mrcd_hostctx *hc);

/* [ports] mode = ethdev (mrcd_ports.c): find, probe, configure and start
 * every host x plane port. */
int mrcd_ports_open(struct mrcd_daemon *d);
void mrcd_ports_close(struct mrcd_daemon *d);
void mrcd_ports_drops(const struct mrcd_daemon *d, struct mrcd_port_drops *out);

/* [ports] mode = loop (mrcd_loop.c): host pairs joined back to back by rings.
 * Close after mrcd_ports_close. */
int mrcd_loop_open(struct mrcd_daemon *d);
void mrcd_loop_close(struct mrcd_daemon *d);
/* Write a capture (the loop pairs' or the fabric's) to [fabric] capture, and say so; `who`
 * names it in the log. At teardown. */
struct mrc_nic_capture;
void mrcd_capture_save(struct mrcd_daemon *d, const char *who, const struct mrc_nic_capture *c);

/*
 * Steering (mrcd_steer.c): probe plane p's port of host h (configured and
 * started, `rx_queues` rx queues and one tx queue per shard) through `ops`
 * (NULL: it takes no rules), install the workers' rules where it steers,
 * record and say which mode it got and why. 0, or -ENOTSUP when [ports]
 * steering = flow cannot be had on it. mrcd_steer_remove(): take every rule
 * down again (before the ports close).
 */
int mrcd_steer_choose(struct mrcd_daemon *d, unsigned int h, unsigned int p, const char *driver,
	uint16_t rx_queues, const struct mrc_flow_ops *ops);
void mrcd_steer_remove(struct mrcd_daemon *d);

/*
 * SRv6 encap offload (mrcd_encap.c): as [ports] encap_offload says, probe
 * plane p's port of host h through `ops` (NULL: it takes no rules) with the
 * egress encap rule, record and say what it answered. 0, or -ENOTSUP when
 * encap_offload = on and the port refuses the rule. mrcd_steer_choose()
 * calls it for every port it decides.
 */
int mrcd_encap_choose(struct mrcd_daemon *d, unsigned int h, unsigned int p, const char *driver,
	const struct mrc_flow_ops *ops);

/*
 * The encap rules of one QP (mrcd_encap_rules.c), before it goes to its
 * shard: on every plane whose port took the probe rule, one rule per
 * (flow-label half of the QP's EVs, class), and, when `answers_to` (the
 * QP at the other end, made in this process) is given, of its EVs too: the
 * QP's SACKs and NACKs ride them. Then the QP reads the table. A port that
 * refuses a rule makes no more (counted in encap_fails, said once); its
 * packets go in software. Never fails the QP. mrcd_encap_remove(): take the
 * rules down (before the ports close) and free the tables (the QPs are gone).
 * mrcd_encap_counts(): host h's workers' packets by how their header was made.
 */
struct mrc_qp;
struct mrc_qp_encap_counters;
void mrcd_encap_attach(struct mrcd_daemon *d, unsigned int local, unsigned int shard,
	unsigned int peer, unsigned int peer_shard, struct mrc_qp *qp,
	const struct mrc_qp *answers_to);
/*
 * mrcd_encap_attach_late(): a QP made while the daemon runs (an
 * application's, or one a recovery makes again) makes no rules (the
 * emulated NIC and a NIC's tables are read as they run): it reads its
 * destination's table when a QP made at setup left one (its EVs with rules
 * go through them, the rest count in sw_no_rule), else its host's table
 * of none, whose packets count in mrcd_encap_fallback()'s no_table.
 * mrcd_encap_fallback(): host h's packets in software for want of a table
 * (no_table) and its endpoint requests on offloading ports (epreq).
 */
void mrcd_encap_attach_late(struct mrcd_daemon *d, unsigned int local, unsigned int shard,
	unsigned int peer, unsigned int peer_shard, struct mrc_qp *qp);
void mrcd_encap_fallback(
	const struct mrcd_daemon *d, unsigned int h, uint64_t *no_table, uint64_t *epreq);
void mrcd_encap_remove(struct mrcd_daemon *d);
void mrcd_encap_counts(
	const struct mrcd_daemon *d, unsigned int h, struct mrc_qp_encap_counters *out);
/* "nic" when plane p's port of host h holds rules and refused none, else "software" */
const char *mrcd_encap_port_mode(const struct mrcd_daemon *d, unsigned int h, unsigned int p);
/*
 * A port whose next hop neighbour discovery resolves (mrcd_encap_rules.c,
 * mrcd_encap_nd.c): called by the neighbour discovery tick with the next
 * hop's MAC, or NULL while it is not known (or the port is down). Makes the
 * port's rules when a MAC comes, takes them out of use and makes them again
 * when it changes. Nothing for other ports.
 */
struct rte_ether_addr;
void mrcd_encap_nd_tick(
	struct mrcd_daemon *d, unsigned int h, unsigned int p, const struct rte_ether_addr *mac);

/*
 * Planes of host h taken administratively down (mrcd_ports.c): those the node
 * controller set (`mrcctl port`, host.admin_down) and, `since_start` TSC ticks
 * into the run, the drill's [ports] admin_down_planes. The link watcher treats
 * them as links down, so endpoint requests tell the peers as for a link.
 */
uint32_t mrcd_ports_admin_down(const struct mrcd_daemon *d, unsigned int h, uint64_t since_start);

/*
 * Neighbour discovery (mrcd_nd.c). mrcd_nd_setup(): host h's addresses per
 * plane, what to resolve, and its exception and control tx rings (before its
 * shards are made); 0 or -errno. mrcd_nd_tick(): read host h's links, take
 * the frames its shards handed over, answer, announce, resolve; returns the
 * planes to publish as up: those whose link is up and whose next hop is
 * known. mrcd_nd_free(): give back what the rings still hold.
 */
int mrcd_nd_setup(struct mrcd_daemon *d, unsigned int h);
uint32_t mrcd_nd_tick(struct mrcd_daemon *d, unsigned int h, uint64_t now);
void mrcd_nd_free(struct mrcd_hostctx *hc);

/*
 * The exception path's taps (mrcd_tap.c), one per plane port with [ports] tap.
 * mrcd_tap_open(): create and configure host h's plane p tap (its addresses
 * and next hop set up first); 0 or -errno, logged. mrcd_tap_write(): a frame
 * to the kernel; false when the port has no tap. mrcd_tap_read(): a frame the
 * kernel wrote, its length, 0 when none waits.
 */
int mrcd_tap_open(struct mrcd_daemon *d, unsigned int h, unsigned int p);
bool mrcd_tap_write(struct mrcd_nd_port *np, const uint8_t *f, uint32_t len);
int mrcd_tap_read(struct mrcd_nd_port *np, uint8_t *buf, uint32_t room);
void mrcd_tap_close(struct mrcd_nd_port *np);

/* Take what the hosts' shards handed off: endpoint operations (mrcd_epreq.h)
 * and QPs gone to ERROR. Returns how many packets and events it took. */
unsigned int mrcd_handoff_drain(struct mrcd_daemon *d);

#endif /* MRCD_CONTROL_H */
