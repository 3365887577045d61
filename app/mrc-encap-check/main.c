/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrc-encap-check: are the outer headers in a capture the ones mrcd's
 * software build writes? For every MRC SRv6 packet of a pcap (the emulated
 * fabric's [fabric] capture: what the hosts' NICs sent, after the encap
 * rules), it finds the sending and receiving host by the inner addresses,
 * makes a QP addressed as mrcd makes that host's QPs to that peer (the
 * same configuration code), rebuilds the outer header of the packet's EV
 * and class with mrc_qp_encap_hdr() (the QP's own addressing, as the
 * software build and the encap rules both use it), sets the outer payload
 * length the packet's size implies, and compares byte for byte. It needs
 * no determinism: any run's capture is checked packet by packet, and a
 * software-mode capture must pass as an offload-mode one does
 * (doc/offload.md, "Tests and figures").
 *
 * The class is the one whose traffic class is the inner header's (the
 * software build gives both headers the same): a packet keyed to another
 * class's rule differs in its outer traffic class. With several workers a
 * host, the destination worker is the one whose path the outer destination
 * names; no worker's: a mismatch against worker 0's.
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "mrc_encap.h"
#include "mrc_mr.h"
#include "mrc_qp.h"
#include "mrc_rand.h"
#include "mrcd_config.h"

#define MAX_SETS  64
#define MAX_QPS	  1024
#define MAX_FRAME 16384

struct check_qp {
	unsigned int src, dst, worker;
	struct mrc_qp *qp;
};

struct check {
	struct mrcd_config cfg;
	struct mrc_wire_cfg wire;
	struct mrc_qp_attr attr;
	unsigned int n_hosts, workers;
	uint8_t nic[MRCD_CONFIG_MAX_HOSTS][16];
	struct rte_mempool *pool;
	struct mrc_mr_table *mrs;
	struct mrc_cq *cq;
	struct mrc_rand rand;
	struct check_qp qps[MAX_QPS];
	unsigned int n_qps;
	/* what was seen */
	uint64_t pkts, not_mrc, plain, unknown_host, matched, mismatched;
	bool quiet;
};

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: mrc-encap-check [-f CONFIG] [--set SEC.KEY=VAL]... [-q] CAPTURE.pcap...\n"
		"\n"
		"Rebuild the outer IPv6 header (and SRH) of every MRC SRv6 packet in the\n"
		"captures as mrcd's software build writes it (the sending host's QP to the\n"
		"receiving host, addressed from CONFIG, the packet's EV and traffic class)\n"
		"and compare it with the captured bytes. Captures come from [fabric] capture.\n"
		"\n"
		"  -f, --config FILE   the configuration the daemon ran (default config/mrcd.ini)\n"
		"  --set SEC.KEY=VAL   a key over the file's, as mrcd --set (repeatable)\n"
		"  -q, --quiet         the summary only, not each mismatch\n"
		"  -h, --help          this text\n"
		"\n"
		"Exit 0: every MRC SRv6 packet matched and there was at least one; 1: a\n"
		"mismatch, or none to check; 2: bad arguments, configuration or file.\n");
}

/* The field at byte `off` of an outer header with `l2` bytes of L2 and `srh` of SRH. */
static const char *
field(size_t off, size_t l2, size_t srh)
{
	if (off < 6)
		return "Ethernet destination";
	if (off < 12)
		return "Ethernet source";
	if (off < l2)
		return l2 > 14 && off < 16   ? "VLAN TPID"
		       : l2 > 14 && off < 18 ? "VLAN TCI"
					     : "EtherType";
	off -= l2;
	if (off < 4)
		return off == 0 || off == 1 ? "outer IPv6 version/traffic class/flow label"
					    : "outer IPv6 flow label";
	if (off < 6)
		return "outer IPv6 payload length";
	if (off == 6)
		return "outer IPv6 next header";
	if (off == 7)
		return "outer IPv6 hop limit";
	if (off < 24)
		return "outer IPv6 source";
	if (off < 40)
		return "outer IPv6 destination";
	return off - 40 < srh ? "SRH" : "past the header";
}

static struct mrc_qp *
qp_for(struct check *c, unsigned int src, unsigned int dst, unsigned int worker)
{
	struct mrc_qp_init in = {0};
	struct mrc_qp_attr a = c->attr;
	struct check_qp *e;
	const char *why = NULL;

	for (unsigned int i = 0; i < c->n_qps; i++)
		if (c->qps[i].src == src && c->qps[i].dst == dst && c->qps[i].worker == worker)
			return c->qps[i].qp;
	if (c->n_qps == MAX_QPS)
		return NULL;
	in.qpn = 0x100 + c->n_qps;
	in.sq_size = 16;
	in.mtu = c->cfg.transport.mtu;
	in.tsc_hz = rte_get_tsc_hz();
	in.mrs = c->mrs;
	in.cq = c->cq;
	in.hdr_pool = c->pool;
	in.wire = c->wire;
	in.socket = SOCKET_ID_ANY;
	if (mrcd_config_qp_addr(&c->cfg, src, dst, &in.addr) != 0)
		return NULL;
	a.dest_qpn = 0x10000 + c->n_qps;
	if (c->workers > 1) {
		a.dest_workers = (uint16_t)c->workers;
		a.dest_worker = (uint8_t)worker;
	}
	e = &c->qps[c->n_qps];
	e->qp = mrc_qp_create(&in, &why);
	if (e->qp == NULL) {
		fprintf(stderr, "mrc-encap-check: QP host %u -> %u: %s\n", src, dst, why);
		return NULL;
	}
	for (int to = MRC_QP_INIT; to <= MRC_QP_RTS; to++)
		if (mrc_qp_modify(e->qp, (enum mrc_qp_state)to, &a, 0, &c->rand, &why) != 0) {
			fprintf(stderr, "mrc-encap-check: QP host %u -> %u -> %s: %s\n", src, dst,
				mrc_qp_state_name((enum mrc_qp_state)to), why);
			mrc_qp_destroy(e->qp);
			return NULL;
		}
	e->src = src;
	e->dst = dst;
	e->worker = worker;
	c->n_qps++;
	return e->qp;
}

static int
host_of(const struct check *c, const uint8_t *ip)
{
	for (unsigned int h = 0; h < c->n_hosts; h++)
		if (memcmp(c->nic[h], ip, 16) == 0)
			return (int)h;
	return -1;
}

/*
 * The header of `frame` (captured whole or not: the headers are in the
 * first bytes) as the software build writes it: 1 match, 0 mismatch
 * (said), -1 not an MRC SRv6 packet from a known host (counted).
 */
static int
check_pkt(struct check *c, const char *file, uint64_t no, uint8_t *frame, uint32_t len)
{
	static const char *const cls_name[MRC_QP_ENCAP_CLASSES] = {
		"data", "retransmit", "control", "probe"};
	uint8_t want[MRC_ENCAP_MAX_LEN];
	struct mrc_wire_cfg w = c->wire;
	struct mrc_pkt p;
	struct mrc_qp *qp = NULL;
	size_t hl = 0, srh, l2;
	unsigned int cls = MRC_QP_ENCAP_CLASSES, worker = 0;
	int src, dst;

	/* the parser checks lengths: the frame is zero-padded to its size; no ICRC */
	w.verify_icrc = false;
	if (len > UINT16_MAX || mrc_pkt_parse_buf(frame, (uint16_t)len, &w, &p) != MRC_WIRE_OK) {
		c->not_mrc++;
		return -1;
	}
	if (!(p.flags & MRC_PKT_F_SRV6)) {
		c->plain++;
		return -1;
	}
	l2 = p.l3_off;
	src = host_of(c, p.ip.src);
	dst = host_of(c, p.ip.dst);
	if (src < 0 || dst < 0) {
		c->unknown_host++;
		return -1;
	}
	for (unsigned int k = 0; k < c->workers; k++) {
		struct mrc_qp *q = qp_for(c, (unsigned int)src, (unsigned int)dst, k);

		if (q == NULL)
			return -2;
		for (cls = 0; cls < MRC_QP_ENCAP_CLASSES; cls++) {
			hl = mrc_qp_encap_hdr(
				q, p.ev, (enum mrc_qp_encap_class)cls, want, sizeof(want));
			/* the class whose traffic class is the inner header's */
			if (hl >= l2 + 40 &&
				((want[l2] & 0xf) << 2 | want[l2 + 1] >> 6) == p.ip.dscp)
				break;
		}
		if (cls == MRC_QP_ENCAP_CLASSES)
			break;
		if (k == 0 || memcmp(want + l2 + 24, frame + l2 + 24, 16) == 0) {
			qp = q;
			worker = k;
		}
		if (memcmp(want + l2 + 24, frame + l2 + 24, 16) == 0)
			break;
	}
	if (cls == MRC_QP_ENCAP_CLASSES || qp == NULL) {
		if (!c->quiet)
			printf("%s: packet %" PRIu64 " (host %d -> %d, EV 0x%08x): no class has "
			       "its inner traffic class %u\n",
				file, no, src, dst, p.ev, p.ip.dscp);
		c->mismatched++;
		return 0;
	}
	hl = mrc_qp_encap_hdr(qp, p.ev, (enum mrc_qp_encap_class)cls, want, sizeof(want));
	srh = hl - l2 - 40;
	/* the NIC sets the outer payload length per packet: what the frame's size says */
	{
		const uint32_t pl = len - (uint32_t)l2 - 40;

		want[l2 + 4] = (uint8_t)(pl >> 8);
		want[l2 + 5] = (uint8_t)pl;
	}
	for (size_t i = 0; i < hl; i++)
		if (frame[i] != want[i]) {
			if (!c->quiet || c->mismatched == 0)
				printf("%s: packet %" PRIu64
				       ": MISMATCH host %d -> %d worker %u, EV 0x%08x, class %s: "
				       "byte %zu (%s) is 0x%02x, the software build writes "
				       "0x%02x\n",
					file, no, src, dst, worker, p.ev, cls_name[cls], i,
					field(i, l2, srh), frame[i], want[i]);
			c->mismatched++;
			return 0;
		}
	c->matched++;
	return 1;
}

static int
check_file(struct check *c, const char *file)
{
	static uint8_t frame[MAX_FRAME];
	char err[PCAP_ERRBUF_SIZE];
	const uint64_t before = c->mismatched;
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc = pcap_open_offline(file, err);
	uint64_t no = 0;
	int r;

	if (pc == NULL) {
		fprintf(stderr, "mrc-encap-check: %s: %s\n", file, err);
		return 2;
	}
	if (pcap_datalink(pc) != DLT_EN10MB) {
		fprintf(stderr, "mrc-encap-check: %s: link type %d, not Ethernet\n", file,
			pcap_datalink(pc));
		pcap_close(pc);
		return 2;
	}
	while ((r = pcap_next_ex(pc, &h, &data)) == 1) {
		const uint32_t len = h->len < MAX_FRAME ? h->len : MAX_FRAME;
		const uint32_t cap = h->caplen < len ? h->caplen : len;

		no++;
		c->pkts++;
		memcpy(frame, data, cap);
		memset(frame + cap, 0, len - cap);
		if (check_pkt(c, file, no, frame, len) == -2) {
			pcap_close(pc);
			return 2;
		}
	}
	if (r == -1) {
		fprintf(stderr, "mrc-encap-check: %s: %s\n", file, pcap_geterr(pc));
		pcap_close(pc);
		return 2;
	}
	pcap_close(pc);
	return c->mismatched > before ? 1 : 0;
}

static int
setup(struct check *c, const char *cfg_path, const char *const *sets, unsigned int n_sets)
{
	char err[512];
	char *eal[] = {"mrc-encap-check", "--no-huge", "--no-shconf", "-m", "64", "--no-pci", "-l",
		"0", "--log-level=*:error", NULL};
	struct mrc_qp_addr a;

	mrcd_config_defaults(&c->cfg);
	if (mrcd_config_load_set(&c->cfg, cfg_path, sets, n_sets, err, sizeof(err)) != 0) {
		fprintf(stderr, "mrc-encap-check: %s: %s\n", cfg_path, err);
		return -1;
	}
	mrcd_config_wire(&c->cfg, &c->wire);
	c->n_hosts = mrcd_config_cluster_hosts(&c->cfg);
	c->workers = c->cfg.lcores.workers_per_host ? c->cfg.lcores.workers_per_host : 1;
	for (unsigned int h = 0; h < c->n_hosts && h < MRCD_CONFIG_MAX_HOSTS; h++) {
		if (mrcd_config_qp_addr(&c->cfg, h, (h + 1) % c->n_hosts, &a) != 0) {
			fprintf(stderr, "mrc-encap-check: host %u: no addresses\n", h);
			return -1;
		}
		memcpy(c->nic[h], a.src_ip, 16);
	}
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "mrc-encap-check: EAL: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	if (mrcd_config_qp_attr(&c->cfg, rte_get_tsc_hz(), &c->attr) != 0) {
		fprintf(stderr, "mrc-encap-check: the configuration's QP attributes are refused\n");
		return -1;
	}
	c->pool = rte_pktmbuf_pool_create("encap_check", 255, 0, 0, 512, SOCKET_ID_ANY);
	c->mrs = calloc(1, mrc_mr_table_memsize(4));
	c->cq = calloc(1, mrc_cq_memsize(64));
	if (c->pool == NULL || c->mrs == NULL || c->cq == NULL) {
		fprintf(stderr, "mrc-encap-check: out of memory\n");
		return -1;
	}
	mrc_mr_table_init(c->mrs, 4);
	mrc_cq_init(c->cq, 64);
	mrc_rand_seed(&c->rand, 1);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'f'},
		{"set", required_argument, NULL, 's'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static struct check c;
	const char *sets[MAX_SETS];
	const char *cfg_path = MRCD_SOURCE_ROOT "/config/mrcd.ini";
	unsigned int n_sets = 0;
	int o, rc = 0;

	while ((o = getopt_long(argc, argv, "f:qh", opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			cfg_path = optarg;
			break;
		case 's':
			if (n_sets == MAX_SETS) {
				fprintf(stderr, "mrc-encap-check: more than %d --set\n", MAX_SETS);
				return 2;
			}
			sets[n_sets++] = optarg;
			break;
		case 'q':
			c.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return 2;
	}
	if (setup(&c, cfg_path, sets, n_sets) != 0)
		return 2;
	for (int i = optind; i < argc; i++) {
		const int r = check_file(&c, argv[i]);

		if (r > rc)
			rc = r;
	}
	printf("mrc-encap-check: %" PRIu64 " packets: %" PRIu64
	       " MRC SRv6 packets checked, %" PRIu64 " match the software build, %" PRIu64
	       " do not; skipped: %" PRIu64 " not MRC, %" PRIu64 " plain, %" PRIu64
	       " from or to an unknown host\n",
		c.pkts, c.matched + c.mismatched, c.matched, c.mismatched, c.not_mrc, c.plain,
		c.unknown_host);
	if (rc == 0 && c.matched == 0) {
		printf("mrc-encap-check: no MRC SRv6 packet to check\n");
		rc = 1;
	}
	for (unsigned int i = 0; i < c.n_qps; i++)
		mrc_qp_destroy(c.qps[i].qp);
	free(c.mrs);
	free(c.cq);
	rte_mempool_free(c.pool);
	rte_eal_cleanup();
	return rc;
}
