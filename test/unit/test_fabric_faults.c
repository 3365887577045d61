/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Faults over time: the shipped scenario files fire at the right fake
 * times (plane 3 fails at 2 s and returns at 4 s; a link flaps; a T1
 * black-holes), broken files are refused with the file, line, section, key
 * and allowed range named, and a QP pair moves 4 MiB through the fabric's
 * ethdev ports while a plane dies under it: every byte arrives, nothing is
 * offered to the dead plane once its ports are down.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "mrc_test.h"
#include "mrc_test_qp.h"
#include "test_fabric.h"

/* Occurrences of `needle` in `hay`. */
static unsigned int
count(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

/*
 * A fabric with plane3-fail.ini's two changes scheduled, mrc.fabric's
 * NOTICE lines caught in *log (each change must be logged exactly once),
 * its log deferred or not. NULL if any step fails.
 */
static struct mrc_fabric *
plane3_logged(struct mrc_fabric_cfg *c, bool deferred, FILE **log_f, char **log, size_t *log_len)
{
	struct mrc_fabric *f;
	const char *why = NULL;

	*log_f = open_memstream(log, log_len);
	if (*log_f == NULL || rte_openlog_stream(*log_f) != 0 ||
		rte_log_set_level_pattern("mrc.fabric", RTE_LOG_NOTICE) != 0)
		return NULL;
	mrc_fabric_cfg_defaults(c);
	f = mkfab(c);
	if (f == NULL)
		return NULL;
	mrc_fabric_defer_log(f, deferred);
	if (mrc_fabric_load_scenario(f, SCEN_DIR "plane3-fail.ini", &why) != 2) {
		fprintf(stderr, "  plane3-fail.ini: %s\n", why != NULL ? why : "not 2 events");
		mrc_fabric_free(f);
		return NULL;
	}
	return f;
}

int
test_scenario_plane3(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	const struct mrc_fabric_event *ev;
	struct rte_eth_link el;
	const uint64_t s = 1000000000ull;
	char *log = NULL;
	size_t log_len = 0;
	FILE *log_f = NULL;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	f = plane3_logged(&c, false, &log_f, &log, &log_len);
	MRC_T_ASSERT(f != NULL, "fabric");
	MRC_T_EQ(mrc_fabric_events_pending(f), 2);
	mrc_fabric_start(f, 5000); /* time zero at TSC 5000 */
	MRC_T_EQ(mrc_fabric_next_event_tsc(f), 5000 + 2 * s);
	mrc_fabric_poll(f, 5000 + 2 * s - 1);
	MRC_T_ASSERT(mrc_fabric_port_up(f, 0, 3), "up before 2 s");
	MRC_T_EQ(mrc_fabric_event_log(f, &ev), 0);
	mrc_fabric_poll(f, 5000 + 2 * s);
	MRC_T_EQ(mrc_fabric_event_log(f, &ev), 1);
	MRC_T_EQ(ev[0].t_ns, 2 * s);
	MRC_T_EQ(ev[0].t_tsc, 5000 + 2 * s);
	MRC_T_EQ(ev[0].target.elem, MRC_FABRIC_ELEM_PLANE);
	MRC_T_EQ(ev[0].target.plane, 3);
	MRC_T_EQ(ev[0].action, MRC_FABRIC_ACT_DOWN);
	MRC_T_STREQ(ev[0].source, "plane3-fail.ini:event.plane3-down");
	char text[64];

	mrc_fabric_event_format(text, sizeof(text), &ev[0]);
	MRC_T_STREQ(text, "plane 3 down");
	for (unsigned int h = 0; h < 2; h++) {
		MRC_T_ASSERT(
			!mrc_fabric_port_up(f, h, 3) && mrc_fabric_port_up(f, h, 2), "plane 3");
		MRC_T_EQ(rte_eth_link_get_nowait(mrc_fabric_port(f, h, 3), &el), 0);
		MRC_T_EQ(el.link_status, RTE_ETH_LINK_DOWN);
	}
	/* A packet sent on plane 3 meanwhile dies on the host's link. */
	const struct spec sp = {.src = 0, .dst = 1, .plane = 3, .payload = 64};
	uint64_t now = 5000 + 3 * s;

	MRC_T_RUN(send_spec(f, &c, &sp));
	mrc_fabric_poll(f, now);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_down, 1);
	MRC_T_EQ(mrc_fabric_next_event_tsc(f), 5000 + 4 * s);
	mrc_fabric_poll(f, 5000 + 4 * s);
	MRC_T_EQ(mrc_fabric_event_log(f, &ev), 2);
	MRC_T_EQ(ev[1].t_ns, 4 * s);
	MRC_T_ASSERT(mrc_fabric_port_up(f, 0, 3) && mrc_fabric_port_up(f, 1, 3), "back");
	MRC_T_EQ(rte_eth_link_get_nowait(mrc_fabric_port(f, 0, 3), &el), 0);
	MRC_T_EQ(el.link_status, RTE_ETH_LINK_UP);
	MRC_T_EQ(mrc_fabric_next_event_tsc(f), UINT64_MAX);
	MRC_T_EQ(mrc_fabric_counters(f)->events_applied, 2);
	mrc_fabric_free(f);
	rte_openlog_stream(NULL);
	MRC_T_EQ(rte_log_set_level_pattern("mrc.fabric", RTE_LOG_WARNING), 0);
	MRC_T_EQ(fclose(log_f), 0);
	rc = count(log, "mrc.fabric: ") == 2 &&
	     count(log, "t=2.000000000 s: plane 3 down (plane3-fail.ini:event.plane3-down)") == 1 &&
	     count(log, "t=4.000000000 s: plane 3 up (plane3-fail.ini:event.plane3-up)") == 1;
	if (rc)
		printf("  %.*s", (int)(strchr(log, '\n') - log + 1), log);
	else
		fprintf(stderr, "  the log said:\n%s", log);
	free(log);
	MRC_T_ASSERT(rc, "each change logged once at NOTICE");
	return check_no_leak();
}

/* The other shipped examples load and do what their comments say. */
int
test_scenario_examples(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	const struct mrc_fabric_event *ev;
	const char *why = NULL;
	const uint64_t ms = 1000000ull;
	uint64_t now = 0;
	unsigned int n;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	mrc_fabric_cfg_defaults(&c);
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	rc = mrc_fabric_load_scenario(f, SCEN_DIR "link-flap.ini", &why);
	MRC_T_ASSERT(rc == 22, "link-flap: %d %s", rc, why);
	rc = mrc_fabric_load_scenario(f, SCEN_DIR "t1-blackhole.ini", &why);
	MRC_T_ASSERT(rc == 2, "t1-blackhole: %d %s", rc, why);
	mrc_fabric_start(f, 0);
	/* Packets on the flapping path: dropped while down (first half of each 100 ms). */
	const struct spec sp = {.src = 0, .dst = 1, .plane = 1, .uplink = 0, .payload = 64};
	const struct spec bh = {.src = 0, .dst = 1, .plane = 2, .uplink = 1, .payload = 64};
	uint64_t sent_down = 0, sent_up = 0, sent_bh = 0;

	for (now = 1000 * ms + 10 * ms; now < 2000 * ms; now += 25 * ms) {
		const bool down = (now - 1000 * ms) % (100 * ms) < 50 * ms;

		mrc_fabric_poll(f, now);
		MRC_T_RUN(send_spec(f, &c, &sp));
		MRC_T_RUN(send_spec(f, &c, &bh));
		sent_down += down;
		sent_up += !down;
		sent_bh++;
		mrc_fabric_poll(f, now + 100 * US);
	}
	struct rte_mbuf *rx[128];

	run_idle(f, &now); /* the last ones, and the rest of the timeline */
	n = rx_all(f, &c, rx, RTE_DIM(rx), NULL, NULL);
	free_all(rx, n);
	MRC_T_EQ(n, sent_up);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_down, sent_down);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_blackhole, sent_bh);
	n = mrc_fabric_event_log(f, &ev);
	MRC_T_EQ(n, 24);
	/* Ten cycles: down at 1.0, 1.1, ..., up 50 ms later; the black hole in between. */
	unsigned int flaps = 0;

	for (unsigned int i = 0; i < n; i++) {
		if (ev[i].target.elem != MRC_FABRIC_ELEM_LINK ||
			ev[i].action == MRC_FABRIC_ACT_LOSS)
			continue;
		MRC_T_EQ(ev[i].t_ns, 1000 * ms + (flaps / 2) * 100 * ms + (flaps % 2) * 50 * ms);
		MRC_T_EQ(ev[i].action, flaps % 2 ? MRC_FABRIC_ACT_UP : MRC_FABRIC_ACT_DOWN);
		flaps++;
		if (i > 0)
			MRC_T_ASSERT(ev[i].t_ns >= ev[i - 1].t_ns, "in time order");
	}
	MRC_T_EQ(flaps, 20);
	MRC_T_EQ(ev[n - 1].t_ns, 5000 * ms); /* the T1 heals last */
	MRC_T_EQ(ev[n - 1].target.elem, MRC_FABRIC_ELEM_T1);
	mrc_fabric_free(f);
	return check_no_leak();
}

int
test_scenario_errors(void)
{
	static const struct {
		const char *text;
		const char *want; /* a substring of the message */
	} bad[] = {
		{"[oops]\nat = 1s\n",
			":1: [oops] unknown section (allowed: [scenario], [event.<name>])"},
		{"[event.a]\nat = 1s\nelement = plane\nplane = 9\naction = down\n",
			":4: [event.a] plane: '9' is out of range (allowed 0..7)"},
		{"[event.a]\nat = 1s\nelement = plane\nplnae = 1\naction = down\n",
			":4: [event.a] plnae: unknown key (allowed: at, element"},
		{"[event.a]\nat = 1 s\nelement = plane\nplane = 1\naction = down\n",
			":2: [event.a] at: '1 s' is not a time (allowed: an integer with unit ns, "
			"us, "
			"ms or s"},
		{"[event.a]\nelement = plane\nplane = 1\naction = down\n",
			":1: [event.a] at: missing"},
		{"[event.a]\nat = 1s\nelement = plane\nplane = 1\nt1 = 2\naction = down\n",
			":5: [event.a] t1: does not apply to element plane"},
		{"[event.a]\nat = 1s\nelement = t1\nplane = 1\nt1 = 4\naction = down\n",
			"t1: '4' is out of range (allowed 0..3)"},
		{"[event.a]\nat = 1s\nelement = link\nplane = 1\nt0 = 0\naction = down\n",
			"[event.a] t1: missing (element link needs it: 0..3)"},
		{"[event.a]\nat = 1s\nelement = plane\nplane = 1\naction = loss\nloss = 1.5\n",
			":6: [event.a] loss: '1.5' is not a probability (allowed 0..1)"},
		{"[event.a]\nat = 1s\nelement = plane\nplane = 1\naction = melt\n",
			":5: [event.a] action: 'melt' unknown (allowed: up, down, blackhole, loss, "
			"mark, drop_request, flap)"},
		{"[event.a]\nat = 1s\nelement = host_link\nplane = 1\nhost = 0\naction = "
		 "drop_request\n",
			":1: [event.a] count: missing (action drop_request: how many, 1..1000)"},
		{"[event.a]\nat = 1s\nelement = host_link\nplane = 1\nhost = 0\naction = "
		 "drop_request\ncount = 0\n",
			":7: [event.a] count: '0' is not a count (allowed 1..1000)"},
		{"[event.a]\nat = 1s\nelement = plane\nplane = 1\naction = down\ncount = 2\n",
			":6: [event.a] count: applies to action drop_request only"},
		{"[event.a]\nat = 1s\nelement = t1\nplane = 1\nt1 = 0\naction = mark\n",
			":1: [event.a] mark: missing (action mark needs a probability 0..1)"},
		{"[event.a]\nat = 1s\nelement = t1\nplane = 1\nt1 = 0\naction = loss\nloss = "
		 "0.1\nmark = 1\n",
			":8: [event.a] mark: applies to action mark only"},
		{"[event.a]\nat = 1s\nelement = plane\nplane = 1\naction = flap\nperiod = 1ns\n"
		 "until = 2s\n",
			":6: [event.a] period: '1ns' is not a period"},
		{"[event.a]\nat = 1s\nelement = plane\nplane = 1\naction = flap\nperiod = 10us\n"
		 "until = 2s\n",
			"the flap makes 200000 transitions"},
		{"[event.a]\nat = 1s\nelement = plane\nplane = 1\naction = down\n"
		 "[event.a]\nat = 2s\nelement = plane\nplane = 1\naction = up\n",
			"[event.a] appears twice"},
		{"[scenario]\nname = x\nauthor = me\n", ":3: [scenario] author: unknown key"},
		{"at = 1s\n", "not a valid INI file"},
	};
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	char path[64];
	const char *why = NULL;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	mrc_fabric_cfg_defaults(&c);
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	snprintf(path, sizeof(path), "/tmp/test_fabric_%d.ini", (int)getpid());
	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		MRC_T_EQ(write_file(path, bad[i].text), 0);
		rc = mrc_fabric_load_scenario(f, path, &why);
		MRC_T_ASSERT(rc < 0, "case %u accepted", i);
		MRC_T_ASSERT(strstr(why, path) == why && strstr(why, bad[i].want) != NULL,
			"case %u:\n    got:  %s\n    want: ...%s...", i, why, bad[i].want);
		MRC_T_EQ(mrc_fabric_events_pending(f), 0); /* all or nothing */
	}
	unlink(path);
	rc = mrc_fabric_load_scenario(f, "/nonexistent/x.ini", &why);
	MRC_T_EQ(rc, -ENOENT);
	MRC_T_ASSERT(strstr(why, "/nonexistent/x.ini: cannot open") != NULL, "%s", why);
	printf("  e.g. %s\n", why);
	mrc_fabric_free(f);
	return check_no_leak();
}

/*
 * drop_request: the next `count` endpoint requests through the links the
 * element covers are lost; other packets, and requests beyond the count,
 * pass; counted on the fabric and on the link.
 */
int
test_drop_request(void)
{
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *rx[8];
	const char *why = NULL;
	char path[64];
	uint64_t now = 0;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	mrc_fabric_cfg_defaults(&c);
	c.n_planes = 2;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	snprintf(path, sizeof(path), "/tmp/test_fabric_dr_%d.ini", (int)getpid());
	MRC_T_EQ(write_file(path, "[event.lose]\nat = 0ns\nelement = host_link\nplane = 1\n"
				  "host = 0\ndirection = up\naction = drop_request\ncount = 2\n"),
		0);
	rc = mrc_fabric_load_scenario(f, path, &why);
	unlink(path);
	MRC_T_ASSERT(rc == 1, "scenario: %d, %s", rc, why != NULL ? why : "");
	run_idle(f, &now); /* the event applies at t = 0 */
	for (unsigned int k = 0; k < 3; k++) {
		const struct spec req = {
			.src = 0, .dst = 1, .plane = 1, .psn = k, .ep_request = true};

		MRC_T_RUN(send_spec(f, &c, &req));
	}
	/* a write on that link, and a request on the other plane */
	const struct spec wr = {.src = 0, .dst = 1, .plane = 1, .payload = 64};
	const struct spec other = {.src = 0, .dst = 1, .plane = 0, .ep_request = true};

	MRC_T_RUN(send_spec(f, &c, &wr));
	MRC_T_RUN(send_spec(f, &c, &other));
	run_idle(f, &now);
	MRC_T_EQ(rx_all(f, &c, rx, 8, NULL, NULL), 3);
	free_all(rx, 3);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_request, 2);
	MRC_T_EQ(mrc_fabric_counters(f)->drop_down + mrc_fabric_counters(f)->drop_loss, 0);
	mrc_fabric_free(f);
	return check_no_leak();
}

/* ---- the transport through the fabric ---- */

int
test_qp_pair_plane_down(void)
{
	static struct mrc_test_pair p;
	struct mrc_test_pair_cfg pc;
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	struct rte_mbuf *pk[64];
	struct mrc_cqe e[64];
	const uint32_t msg = 256u * 1024, n_msg = 16;
	uint32_t done = 0, errors = 0, port_ok[2] = {0xff, 0xff};
	uint64_t sent_p3_at_fail = 0, tx_refused = 0;
	bool failed = false;

	MRC_T_RUN(setup());
	mrc_test_pair_cfg_defaults(&pc);
	pc.mem_len = 8u << 20;
	pc.seed = 31;
	pc.attr.cc.link_bps = 800000000000ull;
	pc.attr.cc.base_rtt_ns = 10000;
	MRC_T_EQ(mrc_test_pair_create(&p, &pc), 0);
	/* The fixture's QPs: host i on T0 i, 4 T1s, host uSID index = host number. */
	mrc_fabric_cfg_defaults(&c);
	c.n_hosts = 2;
	c.n_planes = 8;
	c.n_t1 = 4;
	c.block = 0xfcbb0000;
	c.seed = 31;
	f = mkfab(&c);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, p.now);
	for (uint32_t k = 0; k < n_msg; k++) {
		mrc_test_fill(&p.h[0], k * msg, msg, k);
		MRC_T_EQ(mrc_qp_post_write(p.h[0].qp, k, p.h[0].mem + k * msg, msg, p.h[0].key,
				 (uint64_t)(uintptr_t)p.h[1].mem + k * msg, p.h[1].key, k & 1, k),
			0);
	}
	const uint64_t end = p.now + 200000 * US;

	while (p.now < end) {
		for (unsigned int i = 0; i < 2; i++) {
			const uint16_t n = mrc_qp_tx_burst(
				p.h[i].qp, p.now, port_ok[i], &p.rand, pk, RTE_DIM(pk));

			for (uint16_t k = 0; k < n; k++) {
				struct rte_mbuf *m = pk[k];

				if (m->port == 3 && i == 0)
					sent_p3_at_fail += failed;
				if (rte_eth_tx_burst(mrc_fabric_port(f, i, m->port), 0, &m, 1) !=
					1) {
					rte_pktmbuf_free(m);
					tx_refused++;
				}
			}
			mrc_qp_poll(p.h[i].qp, p.now);
		}
		mrc_fabric_poll(f, p.now);
		for (unsigned int i = 0; i < 2; i++)
			for (unsigned int pl = 0; pl < 8; pl++) {
				const uint16_t n = rte_eth_rx_burst(
					mrc_fabric_port(f, i, pl), 0, pk, RTE_DIM(pk));

				for (uint16_t k = 0; k < n; k++) {
					struct mrc_pkt v;

					if (pk[k]->port != mrc_fabric_port(f, i, pl) ||
						mrc_pkt_parse(pk[k], &p.wire, &v) != MRC_WIRE_OK) {
						errors++;
						rte_pktmbuf_free(pk[k]);
						continue;
					}
					mrc_qp_rx(p.h[i].qp, pk[k], &v, p.now);
				}
			}
		for (unsigned int i = 0; i < 2; i++) {
			unsigned int n;

			while ((n = mrc_cq_poll(p.h[i].cq, e, RTE_DIM(e))) > 0)
				for (unsigned int k = 0; k < n; k++) {
					errors += e[k].status != MRC_CQE_OK;
					done += i == 0;
				}
		}
		/* Mid-transfer, plane 3 dies; hosts see it on their ports, as on a NIC. */
		if (!failed && p.now >= 20 * US) {
			MRC_T_EQ(mrc_fabric_set_plane(f, 3, MRC_FABRIC_DOWN), 0);
			failed = true;
		}
		for (unsigned int i = 0; i < 2; i++) {
			uint32_t mask = 0;

			for (unsigned int pl = 0; pl < 8; pl++) {
				struct rte_eth_link el;

				if (rte_eth_link_get_nowait(mrc_fabric_port(f, i, pl), &el) == 0 &&
					el.link_status == RTE_ETH_LINK_UP)
					mask |= 1u << pl;
			}
			if (mask != port_ok[i]) {
				port_ok[i] = mask;
				/* The peer learns it through port status. */
				mrc_qp_set_peer_planes(p.h[1 - i].qp, mask);
			}
		}
		if (done == n_msg && mrc_qp_idle(p.h[0].qp) && mrc_qp_idle(p.h[1].qp) &&
			mrc_fabric_in_flight(f) == 0)
			break;
		p.now += 100;
	}
	const struct mrc_fabric_counters *fc = mrc_fabric_counters(f);

	MRC_T_EQ(errors, 0);
	MRC_T_EQ(done, n_msg);
	MRC_T_MEMEQ(p.h[1].mem, p.h[0].mem, (size_t)n_msg * msg);
	MRC_T_EQ(mrc_qp_counters(p.h[1].qp)->imm_delivered, n_msg / 2);
	MRC_T_EQ(sent_p3_at_fail, 0); /* nothing offered to the dead plane */
	MRC_T_EQ(tx_refused, 0);
	printf("  4 MiB over 8 planes, plane 3 down at 20 us: done at %.1f us, %llu delivered, "
	       "%llu died on plane 3, %llu resent, %llu ECN marks, %llu trims\n",
		p.now / 1e3, (unsigned long long)fc->delivered_pkts,
		(unsigned long long)fc->drop_down,
		(unsigned long long)mrc_qp_counters(p.h[0].qp)->tx_retx_pkts,
		(unsigned long long)fc->ecn_marks, (unsigned long long)fc->trims);
	mrc_fabric_free(f);
	MRC_T_EQ(rte_mempool_avail_count(p.pool), p.pool->size);
	mrc_test_pair_destroy(&p);
	return check_no_leak();
}

/*
 * With the log deferred (mrc_fabric_defer_log), the poll writes no log line:
 * it queues each change, and mrc_fabric_log_applied() logs them in order,
 * a timeline's take in its place among them. What the queue cannot take is
 * counted, not logged. mrcd polls the fabric on a worker and logs from its
 * control loop.
 */
int
test_scenario_log_deferred(void)
{
	struct mrc_fabric_timeline *tl;
	struct mrc_fabric_cfg c;
	struct mrc_fabric *f;
	const char *why = NULL;
	const uint64_t s = 1000000000ull;
	char *log = NULL, err[320];
	size_t log_len = 0;
	unsigned int logged;
	FILE *log_f;
	int rc = setup();

	if (rc != MRC_TEST_OK)
		return rc;
	f = plane3_logged(&c, true, &log_f, &log, &log_len);
	MRC_T_ASSERT(f != NULL, "fabric");
	mrc_fabric_start(f, 0);
	fflush(log_f);
	const size_t before = log_len;

	mrc_fabric_poll(f, 2 * s);
	MRC_T_ASSERT(!mrc_fabric_port_up(f, 0, 3), "plane 3 down at 2 s");
	fflush(log_f);
	MRC_T_ASSERT(log_len == before, "the poll logged: %s", log + before);
	MRC_T_EQ(mrc_fabric_log_applied(f), 1);
	fflush(log_f);
	MRC_T_EQ(
		count(log, "t=2.000000000 s: plane 3 down (plane3-fail.ini:event.plane3-down)"), 1);
	MRC_T_EQ(mrc_fabric_log_applied(f), 0); /* each once */

	/* A timeline's take: the clear, then its own line, then what it schedules. */
	tl = mrc_fabric_timeline_load(f, SCEN_DIR "plane3-fail.ini", err, sizeof(err));
	MRC_T_ASSERT(tl != NULL, "%s", err);
	MRC_T_EQ(mrc_fabric_timeline_offer(f, tl), 0);
	mrc_fabric_poll(f, 3 * s);
	MRC_T_ASSERT(mrc_fabric_timeline_taken(tl, NULL), "taken");
	mrc_fabric_poll(f, 5 * s); /* the new timeline's plane 3 down at 3 + 2 s */
	fflush(log_f);
	const size_t taken = log_len;

	MRC_T_EQ(mrc_fabric_log_applied(f), 2);
	fflush(log_f);
	const char *clear = strstr(log + taken, "every fault cleared"),
		   *note = strstr(log + taken, "fault timeline replaced (reload:plane3-fail.ini)"),
		   *down = strstr(log + taken, "t=5.000000000 s: plane 3 down");

	MRC_T_ASSERT(clear != NULL && note != NULL && down != NULL && clear < note && note < down,
		"in order: %s", log + taken);
	mrc_fabric_timeline_free(tl);

	/* More changes than the queue holds before the logger runs: the rest counted. */
	const unsigned int loads = MRC_FABRIC_LOG_QUEUE / 2 + 8;

	for (unsigned int k = 0; k < loads; k++) {
		rc = mrc_fabric_load_scenario(f, SCEN_DIR "plane3-fail.ini", &why);
		MRC_T_ASSERT(rc == 2, "loaded: %d %s", rc, why);
	}
	mrc_fabric_poll(f, 100 * s);
	MRC_T_EQ(mrc_fabric_events_pending(f), 0);
	logged = mrc_fabric_log_applied(f);
	MRC_T_EQ(logged, MRC_FABRIC_LOG_QUEUE);
	/* each load's two, and the timeline's plane 3 up */
	MRC_T_EQ(mrc_fabric_counters(f)->events_unlogged, 2 * loads + 1 - MRC_FABRIC_LOG_QUEUE);
	mrc_fabric_free(f);
	rte_openlog_stream(NULL);
	MRC_T_EQ(rte_log_set_level_pattern("mrc.fabric", RTE_LOG_WARNING), 0);
	MRC_T_EQ(fclose(log_f), 0);
	free(log);
	return check_no_leak();
}
