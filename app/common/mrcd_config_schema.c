/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Data, no code that runs: read by the loader, the printer and the tests.
 *
 * Every key of mrcd's configuration, in one table: its section, type and
 * range, the field it fills, its default, unit and help. The loader, the
 * printer (mrcd --check), the defaults and the docs in config/mrcd.ini all
 * come from here, so they cannot disagree.
 *
 * The [transport] keys default to the transport library's values
 * (mrc_qp_defaults.h: LIB() below), so the daemon, the library and the
 * benchmarks start from one set; the demo's config sets what it needs
 * otherwise and says why. One exception: `timeout` stays 12 (4.2 ms), as
 * its help says, since the daemon's own fabric runs 0.25 Gb/s links where
 * the library's 8 (262 us, for 100 Gb/s) is shorter than a loaded RTT and
 * every config on it would have to set it. The other defaults are those of the built-in
 * demo (2 hosts x 8 planes on the emulated fabric, links at 0.25 Gb/s so
 * that the fabric and not a 2-core CPU is the bottleneck). Values the
 * library defaults differently say so in their help.
 */

#include <stddef.h>

#include <rte_common.h>

#include "mrc_cc.h"
#include "mrc_qp_defaults.h"
#include "mrcd_config_priv.h"

/* A default of the transport library (mrc_qp_defaults.h), as the schema's text. */
#define LIB(x)	    RTE_STR(MRC_QP_DEF_##x)
#define LIB_BOOL(x) (MRC_QP_DEF_##x ? "true" : "false")

#define OFF(f) offsetof(struct mrcd_config, f)
#define SZ(f)  ((uint16_t)sizeof(((struct mrcd_config *)0)->f))

/* A key of a plain section. */
#define KEY(sec_, name_, type_, field_, ...)                                                  \
	{                                                                                     \
		.section = sec_, .name = name_, .type = MRCD_INI_##type_, .size = SZ(field_), \
		.offset = OFF(field_), __VA_ARGS__                                            \
	}

/* A key of [host.<n>]; with _P, one per plane as well. */
#define HOST_KEY(name_, type_, field_, ...)                                   \
	{                                                                     \
		.section = "host.#", .name = name_, .type = MRCD_INI_##type_, \
		.size = SZ(host[0].field_), .offset = OFF(host[0].field_),    \
		.idx = {{MRCD_DIM_HOST, sizeof(struct mrcd_config_host)}},    \
		.flags = MRCD_INI_DERIVED, __VA_ARGS__                        \
	}
#define HOST_KEY_P(name_, field_, ...)                                           \
	{                                                                        \
		.section = "host.#", .name = name_, .type = MRCD_INI_MAC,        \
		.size = SZ(host[0].field_[0]), .offset = OFF(host[0].field_[0]), \
		.idx = {{MRCD_DIM_HOST, sizeof(struct mrcd_config_host)},        \
			{MRCD_DIM_PLANE, sizeof(struct rte_ether_addr)}},        \
		.flags = MRCD_INI_DERIVED, __VA_ARGS__                           \
	}

/* A per-plane IPv6 key of [host.<n>], with a plain default ("::": none). */
#define HOST_KEY_P_IP(name_, field_, ...)                                                     \
	{                                                                                     \
		.section = "host.#", .name = name_, .type = MRCD_INI_IPV6,                    \
		.size = SZ(host[0].field_[0]), .offset = OFF(host[0].field_[0]),              \
		.idx = {{MRCD_DIM_HOST, sizeof(struct mrcd_config_host)},                     \
			{MRCD_DIM_PLANE, sizeof(((struct mrcd_config_host *)0)->field_[0])}}, \
		__VA_ARGS__                                                                   \
	}

/*
 * A key of [ev_profile.<n>] or [cc_profile.<n>]: a profile's field, named
 * and ranged as mrcd_profile_fields (mrcd_profile.c; test_mrcd_config checks
 * they agree). Unset, it takes profile 0's value ([transport] or [cc]), as
 * mrcctl profile add does.
 */
#define PROF_KEY(kind_, f_, name_, min_, max_, unit_, help_)                                       \
	{                                                                                          \
		.section =                                                                         \
			MRCD_PROFILE_##kind_ == MRCD_PROFILE_EV ? "ev_profile.#" : "cc_profile.#", \
		.name = name_, .type = MRCD_INI_U32,                                               \
		.size = SZ(profile[MRCD_PROFILE_##kind_][0].v[MRCD_PF_##f_]),                      \
		.offset = OFF(profile[MRCD_PROFILE_##kind_][0].v[MRCD_PF_##f_]),                   \
		.idx = {{MRCD_DIM_##kind_##_PROFILE, sizeof(struct mrcd_cfg_profile)}},            \
		.flags = MRCD_INI_DERIVED, .min = min_, .max = max_,                               \
		.def = MRCD_PROFILE_##kind_ == MRCD_PROFILE_EV ? "[transport] " name_              \
							       : "[cc] " name_,                    \
		.unit = unit_, .help = help_                                                       \
	}

static const char *const port_modes[] = {"fabric", "ethdev", "loop", NULL};
static const char *const fabric_lcores[] = {"worker", "own", NULL};
/* In enum mrcd_steering and enum mrcd_peer_shard order. */
static const char *const steerings[] = {"auto", "flow", "software", NULL};
/* In enum mrcd_encap_offload order. */
static const char *const encap_offloads[] = {"off", "auto", "on", NULL};
static const char *const peer_shards[] = {"same", "other", "half", NULL};
static const char *const encaps[] = {"srv6", "plain", NULL};
static const char *const ev_splits[] = {"sport-low", "sport-high", NULL};
static const char *const sack_bits[] = {"lsb0", "msb0", NULL};
/* In enum mrc_qp_paths and enum mrc_qp_reliability order. */
static const char *const path_modes[] = {"spray", "ecmp", NULL};
static const char *const rel_modes[] = {"sack", "gbn", NULL};

/* [cc] algorithm: a name the CC registry knows (built-ins and registered ones). */
static int
check_cc(const void *field, char *why, size_t len)
{
	const struct mrc_cc_ops *ops[MRC_CC_REGISTRY_MAX + 4];
	unsigned int n = mrc_cc_list(ops, RTE_DIM(ops));
	size_t o;

	if (mrc_cc_find(field) != NULL)
		return 0;
	o = (size_t)snprintf(why, len, "unknown algorithm (known:");
	for (unsigned int i = 0; i < RTE_MIN(n, (unsigned int)RTE_DIM(ops)) && o < len; i++)
		o += (size_t)snprintf(why + o, len - o, "%s %s", i ? "," : "", ops[i]->name);
	if (o < len)
		snprintf(why + o, len - o, ")");
	return -EINVAL;
}

/* A table: one entry per key, laid out by hand. */
/* clang-format off */
static const struct mrcd_ini_key keys[] = {
	/* ---- [daemon] ---- */
	KEY("daemon", "hosts", U16, daemon.hosts, .min = 1, .max = MRCD_CONFIG_MAX_HOSTS, .def = "2",
		.unit = "hosts",
		.help = "hosts this process runs: 1 on a real GPU host, 2 or more on the emulated "
			"fabric (hosts x planes ports, at most 32 per process)"),
	KEY("daemon", "planes", U8, daemon.planes, .min = 1, .max = MRC_EV_MAX_PLANES, .def = "8",
		.unit = "planes", .help = "network planes: one NIC port per plane per host"),
	KEY("daemon", "first_host", U16, daemon.first_host, .min = 0,
		.max = MRCD_CONFIG_MAX_HOSTS - 1, .def = "0",
		.help = "cluster number of this process's first host; it runs first_host .. "
			"first_host + hosts - 1 (0 on the emulated fabric)"),
	KEY("daemon", "cluster_hosts", U16, daemon.cluster_hosts, .flags = MRCD_INI_ZERO_OK,
		.min = 1, .max = MRCD_CONFIG_MAX_HOSTS, .def = "0", .unit = "hosts",
		.help = "hosts in the whole cluster, those of other processes included; 0 = "
			"first_host + hosts"),
	KEY("daemon", "duration_s", U32, daemon.duration_s, .min = 0, .max = 31536000, .def = "6",
		.unit = "s", .help = "how long to run; 0 = until SIGINT or SIGTERM (--duration "
				     "overrides)"),
	KEY("daemon", "drain_ms", U32, daemon.drain_ms, .min = 0, .max = 600000, .def = "500",
		.unit = "ms",
		.help = "at stop, how long to wait for messages in flight to complete before "
			"tearing down (what is left is reported)"),
	KEY("daemon", "seed", U64, daemon.seed, .min = 0, .max = UINT64_MAX, .def = "1",
		.help = "seed of every PRNG (EV values, fabric loss and ECN, traffic): the same "
			"seed makes the same random choices"),
	KEY("daemon", "profile", STRING, daemon.profile, .def = "profiles/default.ini",
		.help = "traffic profile, relative to this file's directory; none = no traffic "
			"of its own (--profile overrides)"),
	KEY("daemon", "scenario", STRING, daemon.scenario, .def = "scenarios/plane3-fail.ini",
		.help = "fault scenario for the emulated fabric, relative to this file's directory; "
			"none = no faults (--scenario overrides)"),
	KEY("daemon", "apps_socket", STRING, daemon.apps_socket, .def = "/run/mrcd/apps.sock",
		.help = "unix socket where applications attach through lib_mrc "
			"(doc/applications.md); none = no applications. One mrcd serves a path: "
			"another finding it answered runs without"),

	/* ---- [ports] ---- */
	KEY("ports", "mode", ENUM, ports.mode, .names = port_modes, .def = "fabric",
		.help = "fabric: each host x plane is a net_ring port of the emulated fabric in "
			"this process; ethdev: the ports named by h<host>.p<plane> (a NIC, "
			"net_pcap, net_null, net_memif, net_af_packet); loop: hosts 2k and 2k+1 "
			"joined back to back plane by plane, each link a pair of rte_rings behind "
			"net_ring ports (no switches, nothing lost: for measuring the hosts alone)"),
	{
		.section = "ports",
		.name = "h#.p#",
		.type = MRCD_INI_STRING,
		.size = MRCD_CONFIG_NAME_MAX,
		.offset = OFF(ports.name),
		.idx = {{MRCD_DIM_LOCAL_HOST, sizeof(((struct mrcd_config *)0)->ports.name[0])},
			{MRCD_DIM_PLANE, MRCD_CONFIG_NAME_MAX}},
		.def = "",
		.help = "mode ethdev: the port of host h on plane p, by its ethdev name as on the "
			"EAL line (net_pcap0, 0000:3b:00.0); each local host x plane exactly once",
	},
	{
		.section = "ports",
		.name = "vdev.#",
		.type = MRCD_INI_STRING,
		.size = MRCD_CONFIG_VDEV_MAX,
		.offset = OFF(ports.vdev),
		.idx = {{MRCD_DIM_VDEV, MRCD_CONFIG_VDEV_MAX}},
		.def = "",
		.help = "mode ethdev: a virtual device to create, as an EAL --vdev argument "
			"(net_null0, net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap); mrcd adds "
			"--vdev for it unless the EAL arguments name that device already",
	},
	KEY("ports", "steering", ENUM, ports.steering, .names = steerings, .def = "auto",
		.help = "with several workers per host, how a packet reaches the one that owns "
			"its QP: flow (rte_flow rules put it on the owner's rx queue; refuse to "
			"start where a port cannot), software (the worker that reads it passes it "
			"on through a ring), auto (flow where a port takes the rules, else "
			"software). Each port has one rx and one tx queue per worker of its host"),
	KEY("ports", "encap_offload", ENUM, ports.encap_offload, .names = encap_offloads,
		.def = "off",
		.help = "SRv6 mode: let each port's NIC add the outer IPv6 header by egress "
			"rules (doc/offload.md): off (no probe, every header in software), auto "
			"(probe each port; where it takes the rule, the QPs' rules are made and "
			"their packets keyed to them, else software), on (as auto, but refuse to "
			"start, naming the port and the driver's reason, where a port refuses "
			"the rule)"),
	KEY("ports", "neighbour_discovery", BOOL, ports.neighbour_discovery, .def = "true",
		.help = "mode ethdev (and mode loop when a host names a next_hop.p<p>): answer "
			"IPv6 Neighbor Solicitations for the host's plane "
			"addresses, announce them at start and at link-up, and resolve each "
			"[host.<n>] next_hop.p<p> (doc/running.md, \"Neighbour discovery\"); false: "
			"the ports answer nothing and frames that are not MRC are dropped uncounted"),
	KEY("ports", "tap", BOOL, ports.tap, .def = "false",
		.help = "mode ethdev: give the frames that are not MRC (ping, LLDP, ...) to a "
			"kernel tap per port, mrch<host>p<plane>, which has the host's plane "
			"addresses, and send what the kernel writes to it out the port (needs "
			"root and neighbour_discovery); false: they are dropped, counted by kind"),
	KEY("ports", "rx_desc", U16, ports.rx_desc, .flags = MRCD_INI_POW2, .min = 64,
		.max = 16384, .def = "1024", .unit = "descriptors",
		.help = "rx ring of every port"),
	KEY("ports", "tx_desc", U16, ports.tx_desc, .flags = MRCD_INI_POW2, .min = 64,
		.max = 16384, .def = "1024", .unit = "descriptors",
		.help = "tx ring of every port"),
	KEY("ports", "burst", U16, ports.burst, .min = 1, .max = 512, .def = "32",
		.unit = "packets", .help = "packets per rx and per tx burst"),
	KEY("ports", "rx_pool_mbufs", U32, ports.rx_pool_mbufs, .min = 1024, .max = 16777216,
		.def = "16383", .unit = "mbufs per host",
		.help = "rx pool: at least planes x (rx_desc + burst) so every rx descriptor can be "
			"filled; 2^n - 1 suits the mempool best"),
	KEY("ports", "tx_pool_mbufs", U32, ports.tx_pool_mbufs, .min = 1024, .max = 16777216,
		.def = "32767", .unit = "mbufs per host",
		.help = "tx and retransmit pool, separate from rx so that retransmits can never "
			"starve rx: at least planes x (tx_desc + burst) x 3 (a data packet is a "
			"header, a payload and a trailer mbuf)"),
	KEY("ports", "rx_mbuf_data_room", U16, ports.rx_mbuf_data_room, .min = 384, .max = 65535,
		.def = "2176", .unit = "bytes",
		.help = "buffer of an rx mbuf, the 128-byte headroom included; longer frames "
			"arrive as chains"),
	KEY("ports", "tx_mbuf_data_room", U16, ports.tx_mbuf_data_room, .min = 384, .max = 65535,
		.def = "512", .unit = "bytes",
		.help = "buffer of a tx mbuf, headroom included: headers only, the payload is "
			"attached from registered memory, never copied"),
	KEY("ports", "close_delay_ms", U32, ports.close_delay_ms, .min = 0, .max = 60000,
		.def = "0", .unit = "ms",
		.help = "wait between stopping the workers and closing the ports: peers joined by "
			"net_memif must have stopped polling before we close (DPDK 22.11 memif unmaps "
			"the rings under a poller whose peer disconnects)"),
	KEY("ports", "admin_down_planes", U8, ports.admin_down_planes, .min = 0, .max = 255,
		.def = "0", .unit = "planes",
		.help = "drill: planes (bit p = plane p) whose ports this process's hosts take "
			"administratively down from admin_down_at_ms: the host treats them as a "
			"link down and tells its peers; 0 = none"),
	KEY("ports", "admin_down_at_ms", U32, ports.admin_down_at_ms, .min = 0, .max = 86400000,
		.def = "0", .unit = "ms", .help = "drill: when admin_down_planes go down, from the run's start"),
	KEY("ports", "admin_down_ms", U32, ports.admin_down_ms, .min = 0, .max = 86400000,
		.def = "0", .unit = "ms",
		.help = "drill: how long they stay down; 0 = to the end of the run"),

	/* ---- [host.<n>]: every default derives from n ---- */
	HOST_KEY("nic_addr", IPV6, nic_addr, .def = "fd00::<n+1> (in hex)",
		.help = "the NIC's IPv6 address (the inner header): host 0 is fd00::1, host 9 "
			"fd00::a"),
	HOST_KEY("locator", IPV6, locator,
		.def = "<block>:<e000 + n+1>:: (in hex; fcbb:0:e001:: for host 0)",
		.help = "SRv6 outer source address"),
	HOST_KEY("t0", U16, t0, .min = 0, .max = 255, .def = "n / hosts_per_t0",
		.help = "the T0 switch this host's ports attach to, in every plane (on the "
			"emulated fabric the topology fixes it)"),
	HOST_KEY_P("mac.p#", mac, .def = "02:6D:72:00:<n>:<p> (in hex)",
		.help = "MAC of this host's port on plane p"),
	HOST_KEY_P("peer_mac.p#", peer_mac, .def = "02:6D:72:FF:<t0>:<p> (in hex)",
		.help = "next hop's MAC on plane p: the T0 switch's port (back to back: the peer "
			"NIC's); unused on the emulated fabric and where next_hop.p<p> is set"),
	HOST_KEY_P_IP("next_hop.p#", next_hop, .def = "::",
		.help = "mode ethdev or loop: next hop's IPv6 address on plane p (the T0 "
			"switch's on the link; on loop pairs the other host's), whose MAC "
			"neighbour discovery resolves and keeps fresh; :: = none, "
			"peer_mac.p<p> is used"),

	/* ---- [lcores] ---- */
	KEY("lcores", "workers", U16, lcores.workers, .min = 1, .max = RTE_MAX_LCORE - 2,
		.def = "1", .unit = "lcores",
		.help = "worker lcores, the ones after the main lcore in the EAL -l list; the hosts' "
			"shards (workers_per_host each) are spread over them round robin"),
	KEY("lcores", "workers_per_host", U16, lcores.workers_per_host, .min = 1, .max = 8,
		.def = "1", .unit = "shards",
		.help = "shards per host: a host's QPs are split over this many workers by QP "
			"number, each with its own rx and tx queue on every port of the host; shard "
			"k of host h runs on worker (h x workers_per_host + k) mod workers. Every "
			"process of a cluster must use the same value"),
	KEY("lcores", "peer_shard", ENUM, lcores.peer_shard, .names = peer_shards, .def = "same",
		.help = "with several shards per host, which shard owns each end of flow g: same "
			"(both on g mod n), other (the receiving end on the next index), half (half "
			"the flows each way); where ports steer in software a packet sent by shard "
			"k arrives on queue k, so other and half make the shards pass packets on"),
	KEY("lcores", "pass_delay_us", U32, lcores.pass_delay_us, .min = 0, .max = 100000,
		.def = "0", .unit = "us",
		.help = "for tests and benchmarks of slow or busy hosts: each worker pass spins this "
			"long after its work, as a slower or shared core would; 0 in production"),
	KEY("lcores", "fabric", ENUM, lcores.fabric, .names = fabric_lcores, .def = "worker",
		.help = "who polls the emulated fabric: worker 0 between its bursts, or an lcore of "
			"its own after the workers (one more core)"),
	KEY("lcores", "stats_interval_ms", U32, lcores.stats_interval_ms, .min = 1, .max = 60000,
		.def = "10", .unit = "ms",
		.help = "how often workers publish counter snapshots; the console, time series, "
			"Prometheus file and /mrc/ telemetry read those, so their intervals may not be "
			"shorter (the drain checks them every ms)"),

	/* ---- [transport] ---- */
	KEY("transport", "mtu", U16, transport.mtu, .min = 256, .max = 9000, .def = LIB(MTU),
		.unit = "bytes",
		.help = "payload bytes per data packet; headers come on top (a real port's MTU "
			"must fit both)"),
	KEY("transport", "encap", ENUM, transport.encap, .names = encaps, .def = "srv6",
		.help = "srv6: the EV picks the whole path as SRv6 uSIDs; plain: structured EV, "
			"one IPv6 header, switches hash the EV"),
	KEY("transport", "hop_limit", U8, transport.hop_limit, .min = 1, .max = 255, .def = "64",
		.help = "hop limit of the outer IPv6 header"),
	KEY("transport", "ev_active", U16, transport.ev_active, .min = 1, .max = MRC_EV_MAX_EVS,
		.def = LIB(EV_ACTIVE), .unit = "EVs",
		.help = "entropy values a QP sprays on, a multiple of planes (equal per plane)"),
	KEY("transport", "ev_backup", U16, transport.ev_backup, .min = 0, .max = MRC_EV_MAX_EVS,
		.def = LIB(EV_BACKUP), .unit = "EVs",
		.help = "spare EVs per QP that replace retired ones on the same plane, a multiple "
			"of planes"),
	KEY("transport", "ev_min_active", U16, transport.ev_min_active, .min = 0,
		.max = MRC_EV_MAX_EVS, .def = "0", .unit = "EVs",
		.help = "floor of usable active EVs: a loss that would leave fewer retires nothing; "
			"0 = ev_active / 4"),
	KEY("transport", "skip_rotations", U8, transport.skip_rotations, .min = 1,
		.max = MRC_EV_MAX_SKIP_ROTATIONS, .def = LIB(SKIP_ROTATIONS), .unit = "rotations",
		.help = "how long an EV with an ECN echo or a trim sits out (the EV library's "
			"default is 1; an echo takes an RTT, longer than a rotation)"),
	KEY("transport", "probe_good", U8, transport.probe_good, .min = 1,
		.max = MRC_EV_MAX_PROBE_GOOD, .def = LIB(PROBE_GOOD), .unit = "answers",
		.help = "good probe answers in a row that bring a retired EV back"),
	KEY("transport", "probe_interval_us", U32, transport.probe_interval_us, .min = 1,
		.max = 10000000, .def = LIB(PROBE_INTERVAL_US), .unit = "us",
		.help = "minimum time between two probe rounds of retired EVs"),
	KEY("transport", "ev_reshuffle", BOOL, transport.ev_reshuffle, .def = LIB_BOOL(EV_RESHUFFLE),
		.help = "a new random EV order every rotation, so QPs do not synchronise"),
	KEY("transport", "mpr", U8, transport.mpr, .min = 1, .max = 255, .def = LIB(MPR),
		.unit = "x 128 PSNs", .help = "receive window we advertise (MPR)"),
	KEY("transport", "wimm", U16, transport.wimm, .flags = MRCD_INI_POW2, .min = 1,
		.max = 32768, .def = LIB(WIMM), .unit = "messages",
		.help = "Write-with-immediate messages tracked at once (WIMM)"),
	KEY("transport", "timeout", U8, transport.timeout, .min = 0, .max = 24, .def = "12",
		.unit = "1.024 us x 2^timeout",
		.help = "retransmit timer (12 = 4.2 ms, above the demo fabric's worst queueing; a "
			"100G fabric wants about 8 = 262 us)"),
	KEY("transport", "retry_linear", U8, transport.retry_linear, .min = 0, .max = 7,
		.def = LIB(RETRY_LINEAR), .unit = "retries", .help = "retries at the base timeout"),
	KEY("transport", "retry_exp", U8, transport.retry_exp, .min = 0, .max = 25, .def = LIB(RETRY_EXP),
		.unit = "retries",
		.help = "retries with exponential backoff after those; 25 = forever"),
	KEY("transport", "initial_rtt_us", U32, transport.initial_rtt_us, .min = 0,
		.max = 1000000, .def = "0", .unit = "us",
		.help = "RTT estimate before the first sample; 0 = the CC's base RTT"),
	KEY("transport", "min_pkt_timeout_us", U32, transport.min_pkt_timeout_us, .min = 0,
		.max = 10000000, .def = "0", .unit = "us",
		.help = "floor of the per-packet loss timeout; 0 = 2 x the CC's base RTT"),
	KEY("transport", "ack_every", U16, transport.ack_every, .min = 1, .max = 4096, .def = LIB(ACK_EVERY),
		.unit = "packets", .help = "SACK after this many new packets ..."),
	KEY("transport", "ack_delay_us", U32, transport.ack_delay_us, .min = 0, .max = 100000,
		.def = LIB(ACK_DELAY_US), .unit = "us",
		.help = "... or when the oldest unacknowledged one has waited this long"),
	KEY("transport", "trim_nack", BOOL, transport.trim_nack, .def = LIB_BOOL(TRIM_NACK),
		.help = "NACK trimmed packets so that they are resent at once"),
	KEY("transport", "dyn_mpr", BOOL, transport.dyn_mpr, .def = LIB_BOOL(DYN_MPR),
		.help = "dynamic MPR: SACKs advertise the receive window now open, and the sender "
			"keeps within it (every host of the cluster runs the same setting)"),
	KEY("transport", "tseth", BOOL, transport.tseth, .def = LIB_BOOL(TSETH),
		.help = "data packets carry a TSETH timestamp that SACKs and NACKs echo, so a "
			"resent packet gives an RTT sample too (4 bytes per packet)"),
	KEY("transport", "always_skip_marks", U8, transport.always_skip_marks, .min = 0,
		.max = 255, .def = LIB(ALWAYS_SKIP_MARKS), .unit = "packets",
		.help = "ECN-marked packets in a row on one EV after which our SACK tells the "
			"sender ALWAYS_SKIP (retire it); 0 = never"),
	KEY("transport", "path_order", BOOL, transport.path_order, .def = LIB_BOOL(PATH_ORDER),
		.help = "srv6: a later packet on a loss's path proves it (off if a hop is a LAG)"),
	KEY("transport", "order_loss_retires", BOOL, transport.order_loss_retires, .def = LIB_BOOL(ORDER_LOSS_RETIRES),
		.help = "a loss a later packet on its path proved retires its EV too (MRC's rule "
			"for every silent loss); false keeps it: that path just delivered"),
	KEY("transport", "ev_split", ENUM, transport.ev_split, .names = ev_splits,
		.def = "sport-low",
		.help = "where the 32-bit EV travels: sport-low puts EV[15:0] in the UDP source "
			"port and EV[31:16] in the flow label, sport-high the other way round"),
	KEY("transport", "sack_bits", ENUM, transport.sack_bits, .names = sack_bits,
		.def = "lsb0",
		.help = "SACK bitmap bit order: lsb0 = PSN base + 0 is the least significant bit"),
	KEY("transport", "dscp_no_trim", U8, transport.dscp_no_trim, .min = 0, .max = 63,
		.def = "0", .help = "DSCP of data where the fabric cannot trim"),
	KEY("transport", "dscp_trimmable", U8, transport.dscp_trimmable, .min = 0, .max = 63,
		.def = "4", .help = "DSCP of data and reliability probes"),
	KEY("transport", "dscp_trimmable_retx", U8, transport.dscp_trimmable_retx, .min = 0,
		.max = 63, .def = "8", .help = "DSCP of retransmitted data"),
	KEY("transport", "dscp_trimmed", U8, transport.dscp_trimmed, .min = 0, .max = 63,
		.def = "12",
		.help = "DSCP a switch sets on a packet it trims; receivers know trims by it, so it "
			"must differ from every DSCP senders use"),
	KEY("transport", "dscp_trimmed_lasthop", U8, transport.dscp_trimmed_lasthop, .min = 0,
		.max = 63, .def = "16",
		.help = "DSCP the last-hop switch sets on a packet it trims (distinct too)"),
	KEY("transport", "dscp_control", U8, transport.dscp_control, .min = 0, .max = 63,
		.def = "46", .help = "DSCP of SACKs, NACKs and endpoint operations (46 = EF)"),
	KEY("transport", "verify_icrc", BOOL, transport.verify_icrc, .def = "true",
		.help = "check the ICRC of received packets (turn off only when the NIC does)"),
	KEY("transport", "udp_checksum", BOOL, transport.udp_checksum, .def = "false",
		.help = "compute the UDP checksum (RoCEv2 NICs send 0 and rely on the ICRC)"),
	KEY("transport", "sq_size", U16, transport.sq_size, .flags = MRCD_INI_POW2, .min = 1,
		.max = 4096, .def = "64", .unit = "messages",
		.help = "send queue: messages a QP can have posted at once"),
	KEY("transport", "cq_size", U32, transport.cq_size, .flags = MRCD_INI_POW2, .min = 1,
		.max = 1048576, .def = "4096", .unit = "completions",
		.help = "entries of a completion queue"),
	KEY("transport", "paths", ENUM, transport.paths, .names = path_modes, .def = "spray",
		.help = "spray: every packet on the next EV over every plane (MRC); ecmp: a "
			"benchmark reference, each QP pinned to one EV by a hash of its QP number, "
			"like a RoCEv2 flow under ECMP (no path feedback, resends on the same path)"),
	KEY("transport", "reliability", ENUM, transport.reliability, .names = rel_modes,
		.def = "sack",
		.help = "sack: selective repeat from SACKs and NACKs (MRC); gbn: a benchmark "
			"reference, plain RoCEv2 RC go-back-N (in-order receive, one NACK per gap, "
			"resend everything from the gap or on the timer, data not trimmable); "
			"needs paths = ecmp"),

	/* ---- [cc] ---- */
	KEY("cc", "algorithm", STRING, cc.algorithm, .check = check_cc, .def = MRC_CC_NSCC,
		.help = "congestion control: uet-1.0-nscc (NSCC, the MRC default) or fixed (a "
			"constant window, for bring-up)"),
	KEY("cc", "base_rtt_us", U32, cc.base_rtt_us, .min = 0, .max = 100000, .def = "0",
		.unit = "us",
		.help = "unloaded network RTT; 0 = derived: on the emulated fabric the longest "
			"path's delays and serialisation both ways, with ethdev ports 10 us"),
	KEY("cc", "link_gbps", DOUBLE, cc.link_gbps, .flags = MRCD_INI_ZERO_OK, .dmin = 0.001,
		.dmax = 100000, .def = "0", .unit = "Gb/s",
		.help = "rate the BDP is computed from (a QP sprays over every plane); 0 = planes x "
			"[fabric] link_gbps on the emulated fabric, planes x 100 with ethdev ports "
			"(one plane's rate with paths = ecmp)"),
	KEY("cc", "trimming", BOOL, cc.trimming, .def = "true",
		.help = "the network trims: NSCC aims at 0.75 x base RTT of queueing and quick "
			"adapt waits for trims"),
	KEY("cc", "fixed_cwnd_kb", U32, cc.fixed_cwnd_kb, .min = 0, .max = 1073741, .def = "0",
		.unit = "KB", .help = "fixed: the window; 0 = 1.5 x BDP"),
	KEY("cc", "ecn_widespread_pct", U8, cc.ecn_widespread_pct, .min = 0, .max = 100,
		.def = "0", .unit = "%",
		.help = "NSCC takes ECN as a rate signal only above this share of marked acks "
			"(MRC first moves traffic to other EVs); 0 = 25, 100 = never"),
	KEY("cc", "max_cwnd_kb", U32, cc.max_cwnd_kb, .min = 0, .max = 1073741, .def = "0",
		.unit = "KB", .help = "NSCC MaxWnd, also the first window; 0 = 1.5 x BDP"),
	KEY("cc", "target_qdelay_us", U32, cc.target_qdelay_us, .min = 0, .max = 1000000,
		.def = "0", .unit = "us",
		.help = "NSCC target queueing delay; 0 = 0.75 x base RTT with trimming, else 1 x"),
	KEY("cc", "adjust_period_us", U32, cc.adjust_period_us, .min = 0, .max = 1000000,
		.def = "0", .unit = "us", .help = "NSCC adjust period; 0 = base RTT"),
	KEY("cc", "gamma_pm", U16, cc.gamma_pm, .min = 0, .max = 1000, .def = "0",
		.unit = "per mille", .help = "NSCC multiplicative-decrease gain; 0 = 800"),
	KEY("cc", "max_md_jump_pm", U16, cc.max_md_jump_pm, .min = 0, .max = 1000, .def = "0",
		.unit = "per mille",
		.help = "NSCC: smallest factor one decrease applies; 0 = 500 (halve at most)"),
	KEY("cc", "fi_scale_pm", U16, cc.fi_scale_pm, .min = 0, .max = 1000, .def = "0",
		.unit = "per mille", .help = "NSCC fast increase per acked byte; 0 = 250"),
	KEY("cc", "qa_gate", U8, cc.qa_gate, .min = 0, .max = 31, .def = "0",
		.help = "NSCC quick adapt only while achieved < MaxWnd >> qa_gate; 0 = 3"),
	KEY("cc", "disable_qa", BOOL, cc.disable_qa, .def = "false",
		.help = "NSCC without quick adapt"),
	KEY("cc", "disable_ecn_gate", BOOL, cc.disable_ecn_gate, .def = "false",
		.help = "plain UEC NSCC: every marked ack is a rate signal"),

	/* ---- [ev_profile.<n>], [cc_profile.<n>]: profiles 1..15, online at start ---- */
	PROF_KEY(EV, EV_ACTIVE, "ev_active", 1, 4096, "EVs", "active EVs of a QP made with it"),
	PROF_KEY(EV, EV_BACKUP, "ev_backup", 0, 4096, "EVs", "backup EVs"),
	PROF_KEY(EV, EV_MIN_ACTIVE, "ev_min_active", 0, 4096, "EVs",
		"fewest active EVs before backups are promoted; 0 = ev_active / 4"),
	PROF_KEY(EV, SKIP_ROTATIONS, "skip_rotations", 1, 3, "rotations",
		"rotations a retired EV sits out"),
	PROF_KEY(EV, PROBE_GOOD, "probe_good", 1, 15, "probes",
		"good probes that re-admit a retired EV"),
	PROF_KEY(EV, PROBE_INTERVAL_US, "probe_interval_us", 1, 10000000, "us",
		"time between probes of a retired EV"),
	{
		.section = "cc_profile.#", .name = "algorithm", .type = MRCD_INI_STRING,
		.size = SZ(profile[MRCD_PROFILE_CC][0].algorithm),
		.offset = OFF(profile[MRCD_PROFILE_CC][0].algorithm),
		.idx = {{MRCD_DIM_CC_PROFILE, sizeof(struct mrcd_cfg_profile)}},
		.flags = MRCD_INI_DERIVED, .check = check_cc, .def = "[cc] algorithm",
		.help = "the congestion control: uet-1.0-nscc or fixed",
	},
	PROF_KEY(CC, FIXED_CWND_KB, "fixed_cwnd_kb", 0, 1073741, "KB", "window of fixed"),
	PROF_KEY(CC, MAX_CWND_KB, "max_cwnd_kb", 0, 1073741, "KB", "NSCC's largest window"),
	PROF_KEY(CC, TARGET_QDELAY_US, "target_qdelay_us", 0, 1000000, "us",
		"NSCC's target queueing delay"),
	PROF_KEY(CC, ADJUST_PERIOD_US, "adjust_period_us", 0, 1000000, "us",
		"NSCC's adjustment period"),
	PROF_KEY(CC, GAMMA_PM, "gamma_pm", 0, 1000, "per mille", "NSCC's gamma"),
	PROF_KEY(CC, MAX_MD_JUMP_PM, "max_md_jump_pm", 0, 1000, "per mille",
		"NSCC's largest multiplicative decrease"),
	PROF_KEY(CC, FI_SCALE_PM, "fi_scale_pm", 0, 1000, "per mille",
		"NSCC's fast increase scale"),
	PROF_KEY(CC, ECN_WIDESPREAD_PCT, "ecn_widespread_pct", 0, 100, "%",
		"NSCC's share of ECN-marked acks that counts as widespread"),

	/* ---- [fabric] ---- */
	KEY("fabric", "t1s", U8, fabric.t1s, .min = 1, .max = MRC_FABRIC_MAX_T1, .def = "4",
		.unit = "switches", .help = "T1 switches per plane"),
	KEY("fabric", "hosts_per_t0", U8, fabric.hosts_per_t0, .min = 1,
		.max = MRCD_CONFIG_MAX_HOSTS, .def = "1", .unit = "hosts",
		.help = "hosts per T0 switch: host n hangs off T0 n / hosts_per_t0"),
	KEY("fabric", "block", BLOCK32, fabric.block, .def = "fcbb:0::",
		.help = "SRv6 block (a /32) of the uSID addressing plan"),
	KEY("fabric", "link_gbps", DOUBLE, fabric.link_gbps, .dmin = 0.001, .dmax = 10000,
		.def = "0.25", .unit = "Gb/s",
		.help = "rate of every link; 0.25 (4 Gb/s over 8 planes both ways) keeps the fabric, "
			"not a 2-core CPU, the bottleneck (the fabric library's default is 100)"),
	KEY("fabric", "link_delay_ns", U32, fabric.link_delay_ns, .min = 0, .max = 1000000000,
		.def = "1000", .unit = "ns", .help = "propagation delay of every link"),
	KEY("fabric", "frame_overhead_bytes", U32, fabric.frame_overhead_bytes, .min = 0,
		.max = 1024, .def = "24", .unit = "bytes",
		.help = "wire bytes per frame besides the packet (preamble, FCS, gap)"),
	KEY("fabric", "queue_kb", U32, fabric.queue_kb, .min = 1, .max = 1073741, .def = "64",
		.unit = "KB", .help = "data queue limit of every egress (2 ms at 0.25 Gb/s)"),
	KEY("fabric", "ecn_kmin_kb", U32, fabric.ecn_kmin_kb, .min = 0, .max = 1073741,
		.def = "8", .unit = "KB", .help = "ECN marking starts above this backlog ..."),
	KEY("fabric", "ecn_kmax_kb", U32, fabric.ecn_kmax_kb, .min = 0, .max = 1073741,
		.def = "24", .unit = "KB",
		.help = "... and marks every ECT packet from here; 0 = no marking"),
	KEY("fabric", "trim_kb", U32, fabric.trim_kb, .min = 0, .max = 1073741, .def = "32",
		.unit = "KB",
		.help = "trim data packets to their headers above this backlog; 0 = no trimming"),
	KEY("fabric", "ecn_last_hop", BOOL, fabric.ecn_last_hop, .def = "false",
		.help = "mark on T0 -> host links too (MRC turns ECN off on the last hop)"),
	KEY("fabric", "control_priority", BOOL, fabric.control_priority, .def = "false",
		.help = "packets with dscp_control ride the priority queue"),
	KEY("fabric", "loss", DOUBLE, fabric.loss, .dmin = 0, .dmax = 1, .def = "0",
		.unit = "probability",
		.help = "random loss of every link at start (scenarios change it)"),
	KEY("fabric", "ring_size", U32, fabric.ring_size, .flags = MRCD_INI_POW2, .min = 64,
		.max = 65536, .def = "1024", .unit = "packets",
		.help = "rx and tx ring of each host port"),
	KEY("fabric", "max_in_flight", U32, fabric.max_in_flight, .min = 64, .max = 16777216,
		.def = "65536", .unit = "packets", .help = "packets the fabric holds at once"),
	KEY("fabric", "capture", STRING, fabric.capture, .def = "none",
		.help = "pcap file of the first capture_pkts packets the hosts send, as their "
			"NICs put them on the wire (after the encap rules), 512 bytes of each, "
			"written at exit by mrcd (not mrc-fabric; mrc-encap-check reads it); also "
			"on loop pairs with [lcores] workers_per_host >= 2; none = off"),
	KEY("fabric", "capture_pkts", U32, fabric.capture_pkts, .min = 1, .max = 1048576,
		.def = "65536", .unit = "packets",
		.help = "packets [fabric] capture keeps (512 bytes of memory each)"),

	/* ---- [telemetry] ---- */
	KEY("telemetry", "timeseries", STRING, telemetry.timeseries,
		.def = "mrcd-timeseries.jsonl",
		.help = "JSON-lines time series (per plane, per host; scripts/ plot it); none = "
			"off"),
	KEY("telemetry", "timeseries_max_kb", U32, telemetry.timeseries_max_kb, .min = 1,
		.max = 4194304, .def = "65536", .unit = "KiB",
		.help = "the time series' cap: at this size it becomes FILE.1 (replacing an older "
			"one) and a new FILE starts, so at most twice this is kept"),
	KEY("telemetry", "timeseries_interval_ms", U32, telemetry.timeseries_interval_ms,
		.min = 1, .max = 60000, .def = "100", .unit = "ms",
		.help = "time between two samples of the time series"),
	KEY("telemetry", "prometheus", STRING, telemetry.prometheus, .def = "mrcd.prom",
		.help = "Prometheus text file, replaced at every interval; none = off"),
	KEY("telemetry", "prometheus_interval_ms", U32, telemetry.prometheus_interval_ms,
		.min = 1, .max = 600000, .def = "1000", .unit = "ms",
		.help = "time between two rewrites of the Prometheus file"),
	KEY("telemetry", "metrics_listen", STRING, telemetry.metrics_listen, .def = "none",
		.help = "serve the Prometheus text over HTTP (GET /metrics) on ADDR:PORT, an IPv4 "
			"address or an IPv6 one in brackets (port 0: any free one, printed at "
			"start); none = off"),
	KEY("telemetry", "console", BOOL, telemetry.console, .def = "true",
		.help = "a live console line per second (per-plane Gb/s, retransmits, EV states)"),
	KEY("telemetry", "ev_stats", BOOL, telemetry.ev_stats, .def = "true",
		.help = "keep per-EV statistics (152 bytes per EV) for the /mrc/evs telemetry "
			"command"),

	/* ---- [control] ---- */
	KEY("control", "socket", STRING, control.socket, .def = "auto",
		.help = "the control socket mrcctl talks to (doc/control.md); auto = "
			"control.sock (control-h<first_host>.sock for a process that runs part of "
			"a cluster) in /run/mrcd, else $XDG_RUNTIME_DIR/mrcd, else /tmp/mrcd-<uid>; "
			"none = no control socket"),
	KEY("control", "group", STRING, control.group, .def = "none",
		.help = "group that owns the socket (mode 0660): its members may read; none = "
			"the daemon's own group"),
	KEY("control", "admin_group", STRING, control.admin_group, .def = "none",
		.help = "members of this group may also change things (deny, re-admit); uid 0 "
			"and CAP_NET_ADMIN always may; none = nobody else"),
};
/* clang-format on */

static const struct mrcd_ini_section sections[] = {
	{"daemon", "What this process runs and for how long.", 0},
	{"ports", "Where packets go: the emulated fabric, or ethdev ports named here.", 0},
	{"host.#",
		"One host's addresses (cluster host numbers 0 .. cluster_hosts - 1). Optional: "
		"every key derives from the host number.",
		MRCD_DIM_HOST},
	{"lcores", "Lcores: the EAL -l list is main, then the workers, then the fabric's own.", 0},
	{"transport", "The QP: packet size, EVs, windows, timers, DSCPs, wire options.", 0},
	{"cc", "Congestion control; 0 in an NSCC override means the UEC 1.0 default.", 0},
	{"ev_profile.#",
		"An EV profile (n 1..15, doc/control.md \"Profiles\"), online at start; keys "
		"unset take [transport]'s.",
		MRCD_DIM_EV_PROFILE},
	{"cc_profile.#", "A CC profile (n 1..15), online at start; keys unset take [cc]'s.",
		MRCD_DIM_CC_PROFILE},
	{"fabric",
		"The emulated fabric (mode = fabric): topology and links. t1s, hosts_per_t0 and "
		"block also describe a real network's SRv6 addressing plan. KB = 1000 bytes.",
		0},
	{"telemetry", "What the stats thread writes and serves while it runs.", 0},
	{"control", "The node controller's socket (mrcctl) and who may use it.", 0},
};

static const struct mrcd_ini_dim dims[MRCD_DIM_MAX] = {
	[MRCD_DIM_HOST] = {"host", "n", MRCD_CONFIG_MAX_HOSTS},
	[MRCD_DIM_LOCAL_HOST] = {"host", "host", MRCD_CONFIG_MAX_HOSTS},
	[MRCD_DIM_PLANE] = {"plane", "plane", MRC_EV_MAX_PLANES},
	[MRCD_DIM_VDEV] = {"vdev", "n", MRCD_CONFIG_MAX_VDEVS},
	[MRCD_DIM_EV_PROFILE] = {"EV profile", "n", MRCD_PROFILE_MAX},
	[MRCD_DIM_CC_PROFILE] = {"CC profile", "n", MRCD_PROFILE_MAX},
};

/* Which indexes exist for the values loaded (printing and comparing). */
static void
range(const void *base, unsigned int dim, unsigned int *lo, unsigned int *hi)
{
	const struct mrcd_config *cfg = base;

	*lo = 0;
	switch (dim) {
	case MRCD_DIM_HOST:
		*hi = mrcd_config_cluster_hosts(cfg);
		break;
	case MRCD_DIM_LOCAL_HOST:
		*lo = cfg->daemon.first_host;
		*hi = cfg->ports.mode == MRCD_PORTS_ETHDEV ? *lo + cfg->daemon.hosts : *lo;
		break;
	case MRCD_DIM_PLANE:
		*hi = cfg->daemon.planes;
		break;
	case MRCD_DIM_EV_PROFILE:
	case MRCD_DIM_CC_PROFILE:
		/* profile 0 is [transport]/[cc]; printed: those the file defines */
		*lo = 1;
		*hi = MRCD_PROFILE_MAX;
		break;
	default:
		*hi = MRCD_CONFIG_MAX_VDEVS;
		break;
	}
	*hi = RTE_MIN(*hi, (unsigned int)dims[dim].max);
	*lo = RTE_MIN(*lo, *hi);
}

const struct mrcd_ini_schema mrcd_config_schema = {
	.sections = sections,
	.n_sections = RTE_DIM(sections),
	.keys = keys,
	.n_keys = RTE_DIM(keys),
	.dims = dims,
	.n_dims = RTE_DIM(dims),
	.range = range,
	.present = mrcd_config_profile_present,
};
