/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Run by: the main lcore, at setup as each port is opened (from
 * mrcd_steer_choose).
 *
 * Whether a port's NIC takes the egress rule that adds the SRv6 outer IPv6
 * header ([ports] encap_offload; doc/offload.md). The probe creates one
 * rule, with the bytes of a packet from this host's plane address to its
 * own worker micro-SID, and destroys it again, through the same rules
 * backend steering uses: rte_flow on NICs (and net_ring, which answers
 * ENOSYS), the recording backend on the ports the emulation owns.
 *
 * A port that takes it gets the rules of the QPs' paths as they are made
 * (mrcd_encap_rules.c); what a port answered is recorded and said
 * (start-up line, /mrc/ports, --json), and encap_offload = on refuses to
 * start on a port that refuses the rule, so a user learns at start what
 * their NIC offers.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>

#include "mrc_encap.h"
#include "mrc_ev_path.h"
#include "mrc_wire.h"
#include "mrcd_control.h"
#include "mrcd_daemon.h"
#include "mrcd_log.h"

/* The rule bytes the probe offers: this host's plane p sending to its own worker 1. */
static size_t
probe_hdr(const struct mrcd_daemon *d, unsigned int h, unsigned int p, uint8_t *hdr, size_t size)
{
	const unsigned int ch = d->cfg.daemon.first_host + h;
	const struct mrcd_config_host *ho = &d->cfg.host[ch];
	struct mrc_wire_cfg w;
	struct mrc_pkt pkt;

	mrcd_config_wire(&d->cfg, &w);
	memset(&pkt, 0, sizeof(pkt));
	pkt.flags = MRC_PKT_F_SRV6;
	pkt.eth_src = ho->mac[p];
	pkt.eth_dst = ho->peer_mac[p];
	pkt.ip.hop_limit = 64;
	pkt.ip.ecn = MRC_ECN_ECT0;
	pkt.ip.dscp = w.dscp.trimmable;
	memcpy(pkt.ip.src, ho->nic_addr, 16);
	memcpy(pkt.ip.dst, ho->nic_addr, 16);
	pkt.outer = pkt.ip;
	memcpy(pkt.outer.src, ho->locator, 16);
	if (mrc_ev_worker_addr(d->cfg.fabric.block, p, (uint8_t)ch, 1, pkt.outer.dst) != 0)
		return 0;
	return mrc_pkt_encap_hdr(&pkt, &w, hdr, size);
}

int
mrcd_encap_choose(struct mrcd_daemon *d, unsigned int h, unsigned int p, const char *driver,
	const struct mrc_flow_ops *ops)
{
	struct mrcd_hostctx *hc = &d->host[h];
	const unsigned int ch = d->cfg.daemon.first_host + h;
	const uint8_t mode = d->cfg.ports.encap_offload;
	char *why = hc->encap_why[p];
	const size_t why_len = sizeof(hc->encap_why[p]);
	struct mrc_flow_err err = {0};
	uint8_t hdr[MRC_ENCAP_MAX_LEN];
	const char *no = NULL;
	char buf[128];
	size_t len;
	int rc;

	hc->encap_ok[p] = false;
	hc->encap_ops[p] = NULL;
	if (mode == MRCD_ENCAP_OFFLOAD_OFF) {
		snprintf(why, why_len, "[ports] encap_offload = off");
		return 0; /* the default: nothing to say on every port */
	}
	if (d->cfg.transport.encap != MRCD_ENCAP_SRV6)
		no = "[transport] encap = plain: no outer header to offload";
	else if (ops == NULL)
		no = "the port takes no flow rules";
	if (no == NULL) {
		len = probe_hdr(d, h, p, hdr, sizeof(hdr));
		/* Any key will do: the rule goes again at once. */
		rc = len == 0 ? -EINVAL : mrc_encap_probe(ops, hc->port[p], 1, hdr, len, &err);
		if (rc == 0) {
			hc->encap_ok[p] = true;
			hc->encap_ops[p] = ops;
			snprintf(why, why_len,
				"%s probe: rule accepted; rules per path made as QPs appear",
				ops->name);
			MRCD_LOG(ctrl, NOTICE,
				"host %u plane %u: port %u (%s): SRv6 encap by the NIC (%s)", ch, p,
				hc->port[p], driver, why);
			return 0;
		}
		snprintf(buf, sizeof(buf), "%s probe: %.*s", ops->name, (int)(sizeof(buf) - 32),
			len == 0     ? "no sample header"
			: err.msg[0] ? err.msg
				     : rte_strerror(-rc));
		no = buf;
	}
	if (mode == MRCD_ENCAP_OFFLOAD_ON) {
		MRCD_LOG(ctrl, ERR,
			"host %u plane %u: port %u (%s): [ports] encap_offload = on, but %s: use "
			"encap_offload = auto or off",
			ch, p, hc->port[p], driver, no);
		return -ENOTSUP;
	}
	snprintf(why, why_len, "auto: %s", no);
	MRCD_LOG(ctrl, NOTICE, "host %u plane %u: port %u (%s): SRv6 encap in software (%s)", ch, p,
		hc->port[p], driver, why);
	return 0;
}
