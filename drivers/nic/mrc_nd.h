/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_ND_H
#define MRC_ND_H

/*
 * IPv6 neighbour discovery on a plane port (RFC 4861), the part that needs
 * no port: tell what a frame that is not MRC is (mrc_nd_classify), check a
 * Neighbor Solicitation or Advertisement as RFC 4861 section 7.1 asks and
 * read it, build the two messages, and keep one neighbour (the plane's next
 * hop) on a clock the caller passes in. The daemon's control thread drives
 * it (app/mrcd/control/mrcd_nd.c); the workers never run it.
 *
 * Why a host needs it: a T0 switch reaches the host's plane address only
 * once it has resolved that address to the port's MAC, and the host sends
 * to the T0 only once it knows the T0's MAC. A DPDK port answers nothing by
 * itself.
 *
 * A neighbour's life (simplified from RFC 4861, section 7.3.2):
 *
 *   INCOMPLETE --NA--> REACHABLE --reachable time--> PROBE --NA--> REACHABLE
 *       ^  multicast NS                 unicast NS each retrans, max_probes
 *       |  each retrans                                 | no answer
 *       +------------------ FAILED <--------------------+
 *                   (multicast NS each retrans, for ever)
 *
 * The MAC is usable in REACHABLE and PROBE (a neighbour being confirmed is
 * still the best guess), not in INCOMPLETE or FAILED. An unsolicited NA, or
 * an NS from the neighbour with its link-layer address, gives a MAC to be
 * confirmed (PROBE). Frames are contiguous (the caller copies a chain out).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#define MRC_ND_ADDR_LEN 16
#define MRC_ND_ICMP6	58
#define MRC_ND_TYPE_NS	135
#define MRC_ND_TYPE_NA	136
/* The shortest frame mrc_nd_build_* writes: Ethernet, IPv6, NS/NA, one 8-byte option. */
#define MRC_ND_FRAME_LEN (14 + 40 + 24 + 8)

/* What a frame that is not MRC is: the exception path counts and forwards by kind. */
#define MRC_ND_KINDS(X)                                                                      \
	X(NS, ns, "IPv6 Neighbor Solicitations")                                             \
	X(NA, na, "IPv6 Neighbor Advertisements")                                            \
	X(ND_BAD, nd_bad, "Neighbor Solicitations or Advertisements refused (RFC 4861 7.1)") \
	X(ICMP6, icmp6, "other ICMPv6 (echo, router discovery, errors, MLD)")                \
	X(IPV6, ipv6, "other IPv6 (not MRC: TCP, UDP to other ports, extension headers)")    \
	X(LLDP, lldp, "LLDP frames (EtherType 0x88cc)")                                      \
	X(ARP, arp, "ARP")                                                                   \
	X(IPV4, ipv4, "IPv4")                                                                \
	X(OTHER, other, "any other frame (other EtherTypes, VLAN tags, runts)")

enum mrc_nd_kind {
#define MRC_ND_KIND_ENUM(up, low, help) MRC_ND_KIND_##up,
	MRC_ND_KINDS(MRC_ND_KIND_ENUM)
#undef MRC_ND_KIND_ENUM
		MRC_ND_KIND_MAX,
};

const char *mrc_nd_kind_name(enum mrc_nd_kind k);
const char *mrc_nd_kind_help(enum mrc_nd_kind k);

/* NA flags, as on the wire (the top bits of the word after the checksum). */
#define MRC_ND_NA_ROUTER    0x80
#define MRC_ND_NA_SOLICITED 0x40
#define MRC_ND_NA_OVERRIDE  0x20

/* A checked NS or NA. */
struct mrc_nd_msg {
	uint8_t type;  /* MRC_ND_TYPE_NS or _NA */
	uint8_t flags; /* NA: MRC_ND_NA_* */
	uint8_t src_ip[MRC_ND_ADDR_LEN], dst_ip[MRC_ND_ADDR_LEN], target[MRC_ND_ADDR_LEN];
	struct rte_ether_addr eth_src;
	/* the source (NS) or target (NA) link-layer address option, if the message had one */
	bool has_lladdr;
	struct rte_ether_addr lladdr;
};

/*
 * What `frame` (len bytes) is; for MRC_ND_KIND_NS and _NA, *msg is filled
 * (msg may be NULL otherwise). An NS or NA that fails RFC 4861's checks (hop
 * limit 255, code 0, checksum, length, a multicast target, a zero-length
 * option, a DAD solicitation with a source link-layer option or to a
 * unicast address, a solicited NA to a multicast address) is ND_BAD.
 */
enum mrc_nd_kind mrc_nd_classify(const uint8_t *frame, uint32_t len, struct mrc_nd_msg *msg);

/* fe80::/64 with the modified EUI-64 of `mac` (RFC 4291, appendix A). */
void mrc_nd_link_local(const struct rte_ether_addr *mac, uint8_t ip[MRC_ND_ADDR_LEN]);
/*
 * The solicited-node group of `ip` (ff02::1:ff00:0/104 plus its low 24
 * bits), and that group's MAC (33:33:ff and the same 24 bits).
 */
void mrc_nd_solicited_node(const uint8_t ip[MRC_ND_ADDR_LEN], uint8_t group[MRC_ND_ADDR_LEN],
	struct rte_ether_addr *mac);

/*
 * A Neighbor Advertisement for `target` (ours) with our MAC as the target
 * link-layer address and the override flag, plus `flags` (solicited or
 * not), from `target` to dst_ip / dst_mac (unsolicited: ff02::1 and
 * 33:33:00:00:00:01). Written to buf (room bytes); the frame's length, or 0
 * if it does not fit.
 */
uint32_t mrc_nd_build_na(uint8_t *buf, uint32_t room, const struct rte_ether_addr *our_mac,
	const struct rte_ether_addr *dst_mac, const uint8_t target[MRC_ND_ADDR_LEN],
	const uint8_t dst_ip[MRC_ND_ADDR_LEN], uint8_t flags);

/*
 * A Neighbor Solicitation for `target` from src_ip (with our MAC as the
 * source link-layer option), to dst_mac when given (a unicast probe of a
 * known neighbour), else to the target's solicited-node group. The length,
 * or 0 if it does not fit.
 */
uint32_t mrc_nd_build_ns(uint8_t *buf, uint32_t room, const struct rte_ether_addr *our_mac,
	const struct rte_ether_addr *dst_mac, const uint8_t src_ip[MRC_ND_ADDR_LEN],
	const uint8_t target[MRC_ND_ADDR_LEN]);

/* ---- one neighbour ---- */

enum mrc_nd_state {
	MRC_ND_NONE = 0, /* not resolved by ND (static, or not started) */
	MRC_ND_INCOMPLETE,
	MRC_ND_REACHABLE,
	MRC_ND_PROBE,
	MRC_ND_FAILED,
};

const char *mrc_nd_state_name(enum mrc_nd_state s);

/* RFC 4861's timers in TSC ticks: REACHABLE_TIME, RETRANS_TIMER, MAX_UNICAST_SOLICIT. */
struct mrc_nd_timing {
	uint64_t reachable_tsc;
	uint64_t retrans_tsc;
	uint8_t max_probes;
};

/* RFC 4861's defaults at `hz`: 30 s reachable, 1 s between solicitations, 3 probes. */
void mrc_nd_timing_defaults(struct mrc_nd_timing *t, uint64_t hz);

struct mrc_nd_neigh {
	uint8_t ip[MRC_ND_ADDR_LEN];
	struct rte_ether_addr mac; /* valid in REACHABLE and PROBE */
	enum mrc_nd_state state;
	uint64_t next_tsc; /* INCOMPLETE, PROBE, FAILED: when to solicit next; REACHABLE: until */
	uint8_t probes;	   /* unicast NS sent in this PROBE */
	uint64_t resolved; /* times it went from unusable to usable */
	uint64_t failed;   /* times it went from usable to FAILED */
};

/* What to send for a neighbour now. */
enum mrc_nd_action {
	MRC_ND_SEND_NOTHING = 0,
	MRC_ND_SEND_MULTICAST, /* an NS to its solicited-node group */
	MRC_ND_SEND_UNICAST,   /* an NS to its MAC */
};

/* Start resolving `ip`: INCOMPLETE, solicited at once. */
void mrc_nd_neigh_start(struct mrc_nd_neigh *n, const uint8_t ip[MRC_ND_ADDR_LEN], uint64_t now);

/* The clock moved: age the entry, and say what to send (one at most per call). */
enum mrc_nd_action mrc_nd_neigh_tick(
	struct mrc_nd_neigh *n, const struct mrc_nd_timing *t, uint64_t now);

/*
 * A checked NS or NA arrived: learn from it if it speaks for this
 * neighbour (an NA whose target it is, with a link-layer address; an NS
 * from it with its source link-layer address). A solicited NA makes it
 * REACHABLE, anything else PROBE when the MAC changed or it was unusable.
 * True when the entry changed.
 */
bool mrc_nd_neigh_learn(struct mrc_nd_neigh *n, const struct mrc_nd_msg *msg,
	const struct mrc_nd_timing *t, uint64_t now);

static inline bool
mrc_nd_neigh_usable(const struct mrc_nd_neigh *n)
{
	return n->state == MRC_ND_REACHABLE || n->state == MRC_ND_PROBE;
}

#endif /* MRC_ND_H */
