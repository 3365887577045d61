/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRCD_CONFIG_H
#define MRCD_CONFIG_H

/*
 * The daemon's configuration: one INI file (config/mrcd.ini is the built-in
 * default and documents every key), read into one struct that the rest of
 * the daemon treats as const.
 *
 * The keys live in a table (mrcd_config_schema.c): section, key, type,
 * range or names, default, unit and help, and the field they fill. Loading
 * is strict (mrcd_ini.h): an unknown section or key, a key given twice or a
 * bad value fails with "<file>:<line>: [<section>] <key> = <value>: <what
 * is allowed>". Then cross-checks that involve several keys run (ports per
 * process, EV counts against planes, DSCPs distinct, pools large enough for
 * their rings, the libraries' own checks), with the same kind of message.
 *
 * Sections: [daemon] (what runs, for how long), [ports] (emulated fabric or
 * ethdev ports, rings and pools), [host.<n>] (addresses; optional, derived
 * from n), [lcores], [transport] (the QP: MTU, EVs, timers, DSCPs, wire
 * options), [cc], [fabric] (the emulated fabric's topology and links; its
 * topology keys also describe a real network's addressing plan), and
 * [telemetry]. `mrcd --check` prints the effective configuration with every
 * key, its default, unit and help; that output loads again as it is.
 *
 * Host numbers are cluster-wide: a process runs hosts first_host ..
 * first_host + hosts - 1 of a cluster of cluster_hosts; on the emulated
 * fabric the whole cluster is in this process.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>

#include "mrc_cc.h"
#include "mrc_ev.h"
#include "mrc_fabric.h"
#include "mrc_qp.h"
#include "mrc_wire_pkt.h"
#include "mrcd_profile.h"

#define MRCD_CONFIG_MAX_HOSTS MRC_FABRIC_MAX_HOSTS /* cluster-wide host numbers 0..63 */
#define MRCD_CONFIG_MAX_VDEVS 32		   /* [ports] vdev.0 .. vdev.31 */
#define MRCD_CONFIG_NAME_MAX  64		   /* an ethdev name (RTE_ETH_NAME_MAX_LEN) */
#define MRCD_CONFIG_PATH_MAX  256		   /* a path (rte_cfgfile's value length) */
#define MRCD_CONFIG_VDEV_MAX  256		   /* a --vdev argument */

/* Where the file is looked for when none is named (see mrcd_cli.h). */
#define MRCD_CONFIG_DEFAULT_PATH "config/mrcd.ini"

enum mrcd_port_mode {
	MRCD_PORTS_FABRIC = 0, /* the emulated fabric's net_ring ports */
	MRCD_PORTS_ETHDEV = 1, /* ports named in [ports] h<host>.p<plane> */
	MRCD_PORTS_LOOP = 2,   /* hosts 2k and 2k+1 joined back to back by rte_rings */
};

/* [ports] steering: how a packet reaches the worker that owns its QP. */
enum mrcd_steering {
	MRCD_STEERING_AUTO = 0,	    /* flow where a port takes the rules, software elsewhere */
	MRCD_STEERING_FLOW = 1,	    /* rte_flow rules on every port, or refuse to start */
	MRCD_STEERING_SOFTWARE = 2, /* the shard that reads a packet passes it on */
};

/* [ports] encap_offload: whether a port's NIC may add the SRv6 outer header. */
enum mrcd_encap_offload {
	MRCD_ENCAP_OFFLOAD_OFF = 0,  /* no probe: the workers build every header */
	MRCD_ENCAP_OFFLOAD_AUTO = 1, /* probe each port, say what it answers */
	MRCD_ENCAP_OFFLOAD_ON = 2,   /* refuse to start where a port refuses the rule */
};

/* [lcores] peer_shard: which shard index owns the far end of a flow. */
enum mrcd_peer_shard {
	MRCD_PEER_SAME = 0,  /* both ends of flow g on shard g % n */
	MRCD_PEER_OTHER = 1, /* the far end on the next index, (g + 1) % n */
	MRCD_PEER_HALF = 2,  /* half the flows each way: (g + (g / n) % 2) % n */
};

enum mrcd_fabric_lcore {
	MRCD_FABRIC_ON_WORKER = 0, /* worker 0 polls the fabric between its bursts */
	MRCD_FABRIC_OWN_LCORE = 1, /* an lcore of its own, after the workers */
};

enum mrcd_encap {
	MRCD_ENCAP_SRV6 = 0,  /* SRv6 uSID path in the outer header */
	MRCD_ENCAP_PLAIN = 1, /* structured EV: one IPv6 header, the network hashes the EV */
};

/* One host's addresses ([host.<n>]). */
struct mrcd_config_host {
	uint8_t nic_addr[16]; /* inner IPv6 address of its NIC */
	uint8_t locator[16];  /* SRv6: outer source address */
	uint16_t t0;	      /* the T0 its ports attach to (in every plane) */
	struct rte_ether_addr mac[MRC_EV_MAX_PLANES];	   /* per plane: its port's MAC */
	struct rte_ether_addr peer_mac[MRC_EV_MAX_PLANES]; /* per plane: next hop's MAC */
	/* per plane: next hop's IPv6 address, resolved by ND; all zero: peer_mac instead */
	uint8_t next_hop[MRC_EV_MAX_PLANES][16];
};

/* Field units are in the names; every field is documented in the key table. */
struct mrcd_config {
	char path[MRCD_CONFIG_PATH_MAX]; /* the file loaded; "" for built-in defaults */

	struct mrcd_cfg_daemon {
		uint16_t hosts;		/* hosts this process runs */
		uint16_t first_host;	/* cluster number of the first */
		uint16_t cluster_hosts; /* 0 = first_host + hosts */
		uint8_t planes;
		uint32_t duration_s; /* 0 = until a signal */
		uint32_t drain_ms;
		uint64_t seed;
		char profile[MRCD_CONFIG_PATH_MAX];  /* relative to the config's directory */
		char scenario[MRCD_CONFIG_PATH_MAX]; /* "none" = no faults */
		char apps_socket[108];		     /* "none" = no applications */
	} daemon;

	struct mrcd_cfg_ports {
		uint8_t mode; /* enum mrcd_port_mode */
		uint16_t rx_desc, tx_desc, burst;
		uint32_t rx_pool_mbufs, tx_pool_mbufs;	       /* per host */
		uint16_t rx_mbuf_data_room, tx_mbuf_data_room; /* bytes, headroom included */
		uint32_t close_delay_ms; /* between stopping workers and closing ports */
		uint8_t steering;	 /* enum mrcd_steering */
		uint8_t encap_offload;	 /* enum mrcd_encap_offload */
		/* drill: planes taken administratively down, when, for how long (0: to the end) */
		uint8_t admin_down_planes;
		uint32_t admin_down_at_ms, admin_down_ms;
		bool neighbour_discovery; /* ethdev: answer NS, announce, resolve next_hop */
		bool tap;		  /* ethdev: frames that are not MRC to a kernel tap */
		/* ethdev: name[host][plane], cluster host numbers; "" = not named */
		char name[MRCD_CONFIG_MAX_HOSTS][MRC_EV_MAX_PLANES][MRCD_CONFIG_NAME_MAX];
		char vdev[MRCD_CONFIG_MAX_VDEVS][MRCD_CONFIG_VDEV_MAX]; /* "" = unused */
	} ports;

	struct mrcd_config_host host[MRCD_CONFIG_MAX_HOSTS];

	struct mrcd_cfg_lcores {
		uint16_t workers;
		uint16_t workers_per_host; /* shards per host */
		uint8_t peer_shard;	   /* enum mrcd_peer_shard */
		uint8_t fabric;		   /* enum mrcd_fabric_lcore */
		uint32_t stats_interval_ms;
		uint32_t pass_delay_us; /* test knob: a slower worker (0: none) */
	} lcores;

	struct mrcd_cfg_transport {
		uint16_t mtu;  /* payload bytes per packet */
		uint8_t encap; /* enum mrcd_encap */
		uint8_t hop_limit;
		uint16_t ev_active, ev_backup, ev_min_active; /* ev_min_active 0 = ev_active / 4 */
		uint8_t skip_rotations, probe_good;
		uint32_t probe_interval_us;
		bool ev_reshuffle;
		uint8_t mpr;
		uint16_t wimm;
		uint8_t timeout, retry_linear, retry_exp;
		uint32_t initial_rtt_us;     /* 0 = the CC's base RTT */
		uint32_t min_pkt_timeout_us; /* 0 = 2 x the CC's base RTT */
		uint16_t ack_every;
		uint32_t ack_delay_us;
		bool trim_nack;
		bool dyn_mpr, tseth; /* both ends run the same configuration, so both agree */
		uint8_t always_skip_marks;
		bool path_order;
		bool order_loss_retires;
		uint8_t ev_split;  /* enum mrc_ev_split */
		uint8_t sack_bits; /* enum mrc_sack_bit_order */
		uint8_t dscp_no_trim, dscp_trimmable, dscp_trimmable_retx, dscp_trimmed,
			dscp_trimmed_lasthop, dscp_control;
		bool verify_icrc, udp_checksum;
		uint16_t sq_size;
		uint32_t cq_size;
		uint8_t paths;	     /* enum mrc_qp_paths */
		uint8_t reliability; /* enum mrc_qp_reliability */
	} transport;

	struct mrcd_cfg_cc {
		char algorithm[MRC_CC_NAME_MAX];
		uint32_t base_rtt_us; /* 0 = derived (mrcd_config_base_rtt_ns) */
		double link_gbps;     /* 0 = planes x the fabric's link rate, or 100 per plane */
		bool trimming;
		uint32_t fixed_cwnd_kb;
		uint8_t ecn_widespread_pct;
		uint32_t max_cwnd_kb, target_qdelay_us, adjust_period_us;
		uint16_t gamma_pm, max_md_jump_pm, fi_scale_pm;
		uint8_t qa_gate;
		bool disable_qa, disable_ecn_gate;
	} cc;

	struct mrcd_cfg_fabric {
		uint8_t t1s, hosts_per_t0;
		uint32_t block; /* first 32 bits of the SRv6 block */
		double link_gbps;
		uint32_t link_delay_ns, frame_overhead_bytes;
		uint32_t queue_kb, ecn_kmin_kb, ecn_kmax_kb, trim_kb;
		bool ecn_last_hop, control_priority;
		double loss;
		uint32_t ring_size, max_in_flight;
		char capture[MRCD_CONFIG_PATH_MAX]; /* pcap of what the hosts send; "none" = off */
		uint32_t capture_pkts;
	} fabric;

	struct mrcd_cfg_telemetry {
		char timeseries[MRCD_CONFIG_PATH_MAX]; /* "none" = off */
		char prometheus[MRCD_CONFIG_PATH_MAX]; /* "none" = off */
		char metrics_listen[64]; /* "ADDR:PORT" of GET /metrics; "none" = off */
		uint32_t timeseries_interval_ms, prometheus_interval_ms;
		uint32_t timeseries_max_kb; /* the time series' cap before it rotates */
		bool console, ev_stats;
	} telemetry;

	struct mrcd_cfg_control {
		char socket[MRCD_CONFIG_PATH_MAX]; /* "auto", "none" or a path */
		char group[64];			   /* the socket's group; "none" = ours */
		char admin_group[64];		   /* may change things too; "none" = nobody */
	} control;

	/*
	 * [ev_profile.<n>], [cc_profile.<n>]: EV and CC profiles 1..15 the file
	 * defines, ONLINE at start (mrcd_profile_table_init); [kind][0] unused.
	 */
	struct mrcd_cfg_profile {
		bool defined;			      /* the file has the section */
		char algorithm[MRCD_PROFILE_ALG_MAX]; /* CC */
		uint32_t v[MRCD_PF_COUNT];	      /* the fields of its kind */
	} profile[MRCD_PROFILE_KINDS][MRCD_PROFILE_MAX];
};

/* The built-in defaults (those of config/mrcd.ini), derived values included. */
void mrcd_config_defaults(struct mrcd_config *cfg);

/*
 * Load `path` over the defaults and check it. 0, or -EINVAL (anything wrong
 * in the file: `err` says what and where), -ENOENT/-EACCES/... (cannot open:
 * `err` names errno's reason), -ENOMEM. On failure *cfg is left unchanged.
 */
int mrcd_config_load(struct mrcd_config *cfg, const char *path, char *err, size_t errlen);

/*
 * The same with values from the command line over the file's (mrcd --set):
 * each "<section>.<key>=<value>" is checked like a line of the file, before
 * the derived values and the cross-checks, and an error names it ("--set:
 * [transport] mtu = 70000: must be ..."). mrcd_config_load() is this with none.
 */
int mrcd_config_load_set(struct mrcd_config *cfg, const char *path, const char *const *sets,
	unsigned int n_sets, char *err, size_t errlen);

/*
 * The same under a cluster launcher (mrcd_launch.h; NULL or !valid: none):
 * where neither the file nor --set names them, [daemon] hosts is 1,
 * first_host is the node's index x hosts and cluster_hosts the node count x
 * hosts. A key the configuration names wins.
 */
struct mrcd_launch;
int mrcd_config_load_launch(struct mrcd_config *cfg, const char *path, const char *const *sets,
	unsigned int n_sets, const struct mrcd_launch *launch, char *err, size_t errlen);
/*
 * The cross-checks alone (load runs them), for a config changed after
 * loading (command-line overrides). 0 or -EINVAL with `err`.
 */
int mrcd_config_check(const struct mrcd_config *cfg, char *err, size_t errlen);

/*
 * Print the effective configuration as an INI file: every key with its value,
 * preceded by "; default X, unit, help". mrcd_config_load() of the output
 * gives the same configuration back.
 */
void mrcd_config_print(FILE *f, const struct mrcd_config *cfg);

/* 0 when equal key by key; else 1 and `diff` names the first difference. */
int mrcd_config_diff(
	const struct mrcd_config *a, const struct mrcd_config *b, char *diff, size_t difflen);

/* ---- derived values ---- */

/* Hosts in the cluster: cluster_hosts, or first_host + hosts when 0. */
unsigned int mrcd_config_cluster_hosts(const struct mrcd_config *cfg);

/* T0 switches: ceil(cluster hosts / hosts_per_t0). */
unsigned int mrcd_config_n_t0(const struct mrcd_config *cfg);

/*
 * The CC's base RTT. [cc] base_rtt_us when set; else, on the emulated
 * fabric, the unloaded RTT of the longest path (4 links across a T1, 2 within
 * a T0): each link's propagation delay both ways plus the serialisation of a
 * full data packet and of its SACK; with ethdev ports, 10 us.
 */
uint32_t mrcd_config_base_rtt_ns(const struct mrcd_config *cfg);

/* The rate the CC's BDP is computed from, b/s: [cc] link_gbps or planes x link rate. */
uint64_t mrcd_config_cc_link_bps(const struct mrcd_config *cfg);

/*
 * A path relative to the config file's directory (profile, scenario); an
 * absolute path as it is; "" for "none". snprintf semantics.
 */
int mrcd_config_resolve(const struct mrcd_config *cfg, const char *rel, char *buf, size_t len);

/* Estimated memory for pools, QPs and the fabric, in MiB (for the EAL's -m). */
unsigned int mrcd_config_memory_mb(const struct mrcd_config *cfg);

/* ---- library structs ---- */

/* DSCPs, EV split, SACK bit order, ICRC and UDP checksum options. */
void mrcd_config_wire(const struct mrcd_config *cfg, struct mrc_wire_cfg *wire);

/*
 * QP attributes (EV profile, CC, windows, timers) at `tsc_hz`; dest_qpn and
 * the start PSNs are left 0 for the caller. 0, or -EINVAL when the EV or CC
 * library rejects the result (only an odd tsc_hz can do that after a load).
 */
int mrcd_config_qp_attr(const struct mrcd_config *cfg, uint64_t tsc_hz, struct mrc_qp_attr *attr);

/*
 * Addressing of a QP from cluster host `local` to host `peer`: encap, NIC
 * addresses, locator, the SRv6 path template and per-plane MACs. 0 or
 * -EINVAL (a host number outside the cluster).
 */
int mrcd_config_qp_addr(const struct mrcd_config *cfg, unsigned int local, unsigned int peer,
	struct mrc_qp_addr *addr);

/* The emulated fabric's configuration at `tsc_hz`. 0 or mrc_fabric_cfg_check()'s -EINVAL. */
int mrcd_config_fabric(const struct mrcd_config *cfg, uint64_t tsc_hz, struct mrc_fabric_cfg *fcfg);

#endif /* MRCD_CONFIG_H */
