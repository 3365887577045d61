/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * mrc-dump: print every packet of a pcap file as the one-line text the
 * codec's formatter makes, or the reason the parser refused it, then a
 * summary by reason. Reads captures taken anywhere (tshark, tcpdump,
 * net_pcap's tx_pcap) with the same wire knobs the daemon uses.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "mrc_srv6.h"
#include "mrc_wire_pkt.h"

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [OPTIONS] FILE.pcap [FILE.pcap ...]\n"
		"Print each packet of the captures as one line of MRC headers, or why it\n"
		"is not a valid MRC packet, then a count per reject reason.\n"
		"\n"
		"Options (defaults match the daemon's):\n"
		"  -q, --quiet              only the summary\n"
		"  -r, --rejects            only the refused packets, and the summary\n"
		"  -w, --walk               for each SRv6 packet instead: its destination QP,\n"
		"                           PSN, UDP source port, then its outer destination\n"
		"                           as sent and after each NEXT-C-SID shift a switch on\n"
		"                           its path makes (what the emulated fabric does), up\n"
		"                           to the last uSID: to compare with captures taken\n"
		"                           at each hop of a real SRv6 network\n"
		"      --ev-split=low|high  UDP source port carries EV[15:0] (low, default)\n"
		"                           or EV[31:16] (high)\n"
		"      --sack-bits=lsb0|msb0  SACK bitmap bit 0 is the LSB (default) or MSB\n"
		"      --no-icrc            do not verify the ICRC\n"
		"      --dscp-trimmed=N     DSCP a switch sets on a trimmed packet (default 12)\n"
		"      --dscp-trimmed-lasthop=N  ... at the last hop (default 16)\n"
		"  -h, --help               this text\n"
		"\n"
		"Exit status: 0 if every packet parsed, 1 if any was refused, 2 on errors.\n",
		prog);
}

static int
parse_dscp(const char *opt, const char *arg, uint8_t *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 0);
	if (errno != 0 || *end != '\0' || v < 0 || v > 63) {
		fprintf(stderr, "mrc-dump: --%s=%s: a DSCP is a number from 0 to 63\n", opt, arg);
		return -1;
	}
	*out = (uint8_t)v;
	return 0;
}

/*
 * The outer destination at every hop: as sent, then after each shift a
 * switch owning the active uSID makes (lib/wire's mrc_usid_shift(), the
 * function the emulated fabric's switches call), while a uSID is left to
 * become active. A packet captured mid-path starts from where it is.
 */
static void
print_walk(const struct mrc_pkt *pkt)
{
	uint8_t da[MRC_IPV6_ADDR_LEN];
	char a[64];

	memcpy(da, pkt->outer.dst, sizeof(da));
	printf("%u %u %u", pkt->bth.dqpn, pkt->bth.psn, pkt->udp_sport);
	for (;;) {
		inet_ntop(AF_INET6, da, a, sizeof(a));
		printf(" %s", a);
		if (mrc_usid_active(da) == 0 || mrc_usid_shift(da) == 0)
			break;
	}
	printf("\n");
}

enum { OPT_EV_SPLIT = 256, OPT_SACK_BITS, OPT_NO_ICRC, OPT_DSCP_TRIM, OPT_DSCP_TRIM_LH };

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"quiet", no_argument, NULL, 'q'},
		{"rejects", no_argument, NULL, 'r'},
		{"walk", no_argument, NULL, 'w'},
		{"ev-split", required_argument, NULL, OPT_EV_SPLIT},
		{"sack-bits", required_argument, NULL, OPT_SACK_BITS},
		{"no-icrc", no_argument, NULL, OPT_NO_ICRC},
		{"dscp-trimmed", required_argument, NULL, OPT_DSCP_TRIM},
		{"dscp-trimmed-lasthop", required_argument, NULL, OPT_DSCP_TRIM_LH},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct mrc_wire_rx_stats stats = {0};
	uint64_t total = 0;
	struct mrc_wire_cfg cfg;
	bool quiet = false, rejects_only = false, walk = false;
	const char *why;
	int c;

	mrc_wire_cfg_defaults(&cfg);
	while ((c = getopt_long(argc, argv, "qrwh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = true;
			break;
		case 'r':
			rejects_only = true;
			break;
		case 'w':
			walk = true;
			break;
		case OPT_EV_SPLIT:
			if (strcmp(optarg, "low") == 0) {
				cfg.ev_split = MRC_EV_SPLIT_SPORT_LOW;
			} else if (strcmp(optarg, "high") == 0) {
				cfg.ev_split = MRC_EV_SPLIT_SPORT_HIGH;
			} else {
				fprintf(stderr, "mrc-dump: --ev-split=%s: use low or high\n",
					optarg);
				return 2;
			}
			break;
		case OPT_SACK_BITS:
			if (strcmp(optarg, "lsb0") == 0) {
				cfg.sack_bit_order = MRC_SACK_BIT_LSB0;
			} else if (strcmp(optarg, "msb0") == 0) {
				cfg.sack_bit_order = MRC_SACK_BIT_MSB0;
			} else {
				fprintf(stderr, "mrc-dump: --sack-bits=%s: use lsb0 or msb0\n",
					optarg);
				return 2;
			}
			break;
		case OPT_NO_ICRC:
			cfg.verify_icrc = false;
			break;
		case OPT_DSCP_TRIM:
			if (parse_dscp("dscp-trimmed", optarg, &cfg.dscp.trimmed) != 0)
				return 2;
			break;
		case OPT_DSCP_TRIM_LH:
			if (parse_dscp("dscp-trimmed-lasthop", optarg, &cfg.dscp.trimmed_lasthop) !=
				0)
				return 2;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "mrc-dump: no capture file given\n");
		usage(stderr, argv[0]);
		return 2;
	}
	if (mrc_wire_cfg_check(&cfg, &why) != 0) {
		fprintf(stderr, "mrc-dump: %s\n", why);
		return 2;
	}

	for (int fi = optind; fi < argc; fi++) {
		char err[PCAP_ERRBUF_SIZE];
		pcap_t *p = pcap_open_offline(argv[fi], err);
		struct pcap_pkthdr *h;
		const u_char *data;
		uint64_t n = 0;
		int rc;

		if (p == NULL) {
			fprintf(stderr, "mrc-dump: %s: %s\n", argv[fi], err);
			return 2;
		}
		if (pcap_datalink(p) != DLT_EN10MB) {
			fprintf(stderr, "mrc-dump: %s: link type %s is not Ethernet\n", argv[fi],
				pcap_datalink_val_to_name(pcap_datalink(p)));
			pcap_close(p);
			return 2;
		}
		while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
			struct mrc_pkt pkt;
			enum mrc_wire_rx r;
			char line[2048];

			n++;
			total++;
			if (h->caplen != h->len || h->caplen > UINT16_MAX) {
				r = MRC_WIRE_TRUNCATED; /* snapped by the capture: not judged */
			} else {
				r = mrc_pkt_parse_buf(data, (uint16_t)h->caplen, &cfg, &pkt);
			}
			stats.pkts[r]++;
			if (walk) {
				if (r == MRC_WIRE_OK && (pkt.flags & MRC_PKT_F_SRV6))
					print_walk(&pkt);
				continue;
			}
			if (quiet || (rejects_only && r == MRC_WIRE_OK))
				continue;
			if (r == MRC_WIRE_OK) {
				mrc_pkt_format(line, sizeof(line), &pkt);
				printf("%" PRIu64 " %s\n", n, line);
			} else {
				printf("%" PRIu64 " REJECT %s (%u bytes): %s\n", n,
					mrc_wire_reject_name(r), h->caplen,
					mrc_wire_reject_help(r));
			}
		}
		if (rc == PCAP_ERROR) {
			fprintf(stderr, "mrc-dump: %s: %s\n", argv[fi], pcap_geterr(p));
			pcap_close(p);
			return 2;
		}
		pcap_close(p);
	}

	printf("# %" PRIu64 " packets: %" PRIu64 " ok", total, stats.pkts[MRC_WIRE_OK]);
	for (int r = 1; r < MRC_WIRE_REJECT_MAX; r++)
		if (stats.pkts[r] > 0)
			printf(", %" PRIu64 " %s", stats.pkts[r],
				mrc_wire_reject_name((enum mrc_wire_rx)r));
	printf("\n");
	return stats.pkts[MRC_WIRE_OK] == total ? 0 : 1;
}
