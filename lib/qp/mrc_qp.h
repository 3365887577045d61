/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_QP_H
#define MRC_QP_H

/**
 * @file
 * The MRC queue pair: an RC-style connection that sprays every packet over
 * a different entropy value (doc/protocol.md). Only RDMA WRITE and
 * WRITE-with-immediate exist.
 *
 * Life: RESET -> INIT (EV and CC profiles) -> RTR (responder MPR and WIMM:
 * we can receive) -> RTS (the peer's MPR and WIMM, timeout and retry
 * counts: we can send) -> ERROR (retry budget spent, or the peer reported
 * an operational error; every posted message then completes with an
 * error status). Attributes are checked at each transition as in
 * doc/protocol.md, "Queue pairs".
 *
 * Sending: a posted message (local buffer in a registered region, remote
 * address and rkey) is cut at the path MTU into PSN-consecutive packets,
 * each with METH and a RETH carrying its own remote address, so any packet
 * can be placed on arrival. Packets are a header mbuf plus the payload
 * attached as external memory of the registered region (never copied)
 * plus a trailer for pad and ICRC. Each packet takes the next EV the pool
 * picks; the EV names the plane (the output port: mbuf->port) and, in SRv6
 * mode, the whole path through the per-destination template.
 *
 * Receiving: data is placed at its RETH address only after the rkey, the
 * bounds and the access of a registered region are checked (anything else
 * is refused with a NACK and counted, never written). Immediate data
 * completes in RQMSN order once every packet of the message has arrived,
 * whatever order the packets came in. SACKs, NACKs and probe answers are
 * queued and leave first on the next tx call.
 *
 * Feedback: SACKs and NACKs drive lib/rel (what was delivered or lost),
 * lib/ev (SKIP on ECN echoes and trims, ASSUMED_BAD on silent loss, probe
 * answers) and lib/cc (the window); losses are resent on another EV.
 *
 * Reference modes (struct mrc_qp_attr paths and reliability), for
 * head-to-head measurements against what MRC replaces; the defaults are
 * MRC's own:
 *  - paths ECMP: the QP sends every packet on ONE EV of its pool, chosen at
 *    INIT by a hash of its QPN (a RoCEv2 flow pinned by a switch's ECMP
 *    hash of the 5-tuple, whose UDP source port derives from the QPN). It
 *    learns nothing about paths: resends take the same EV, feedback never
 *    retires or skips it, and while its plane is down nothing is sent.
 *  - reliability GBN: plain RoCEv2 RC go-back-N. The responder accepts
 *    only the expected PSN, drops anything else unplaced and NACKs
 *    PSN_SEQ_ERR once per gap; the requester resends everything from the
 *    NACKed PSN, or from the oldest unacknowledged one when its timer
 *    fires (lib/rel). Needs paths ECMP (spraying reorders, which go-back-N
 *    would take for loss), and sends data in the no-trim DSCP, since a
 *    RoCEv2 NIC knows nothing of trimming.
 *
 * Threading: a QP belongs to one lcore; nothing here locks, allocates (but
 * create) or logs per packet; time and randomness are passed in.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "mrc_cc.h"
#include "mrc_ev.h"
#include "mrc_ev_path.h"
#include "mrc_mr.h"
#include "mrc_qp_defaults.h"
#include "mrc_rand.h"
#include "mrc_trk_pool.h"
#include "mrc_wire_pkt.h"

enum mrc_qp_state {
	MRC_QP_RESET = 0,
	MRC_QP_INIT,
	MRC_QP_RTR,
	MRC_QP_RTS,
	MRC_QP_ERROR,
};

/** Why a QP is in ERROR. */
enum mrc_qp_error {
	MRC_QP_ERR_NONE = 0,
	MRC_QP_ERR_RETRY_EXCEEDED, /**< retries spent without progress */
	MRC_QP_ERR_REMOTE_OP,	   /**< the peer NACKed UNEXP_EVENT (e.g. bad rkey) */
	MRC_QP_ERR_LOCAL,	   /**< completion queue overflow or a local fault */
	MRC_QP_ERR_USER,	   /**< moved to ERROR by the application */
};

const char *mrc_qp_state_name(enum mrc_qp_state s);
const char *mrc_qp_error_name(enum mrc_qp_error e);

/** A completion. */
struct mrc_cqe {
	uint64_t wr_id; /**< the poster's id (send side); 0 on the receive side */
	uint32_t qpn;
	uint32_t byte_len;
	uint32_t imm;	/**< MRC_CQE_RECV_IMM */
	uint8_t opcode; /**< enum mrc_cqe_opcode */
	uint8_t status; /**< enum mrc_cqe_status */
};

enum mrc_cqe_opcode {
	MRC_CQE_WRITE = 1, /**< our WRITE completed (all packets acknowledged) */
	MRC_CQE_WRITE_IMM, /**< our WRITE-with-immediate completed */
	MRC_CQE_RECV_IMM,  /**< a peer's WRITE-with-immediate arrived whole */
};

enum mrc_cqe_status {
	MRC_CQE_OK = 0,
	MRC_CQE_FLUSHED, /**< the QP went to ERROR before this completed */
};

/** A completion queue: a single-lcore ring the application polls. */
struct mrc_cq {
	uint32_t mask;
	uint32_t head, tail;
	uint64_t overflows;
	struct mrc_cqe e[];
};

size_t mrc_cq_memsize(uint32_t n_entries);
/** n_entries: a power of two. 0 or -EINVAL. */
int mrc_cq_init(struct mrc_cq *cq, uint32_t n_entries);
/**
 * Take up to `max` completions. A CQ left empty starts over at its first
 * entry, so the lines it writes are those its backlog spans, not the whole
 * ring's in turn.
 */
unsigned int mrc_cq_poll(struct mrc_cq *cq, struct mrc_cqe *out, unsigned int max);

/**
 * How this QP's packets are addressed (fixed for the QP's life). In the
 * order a packet is built: what every packet reads first (a plain packet
 * reads no further than the MACs of the first planes), SRv6's after.
 */
struct mrc_qp_addr {
	bool srv6; /**< SRv6 uSID encap, else structured-EV (plain) */
	uint8_t hop_limit;
	/**
	 * Per plane, the next hop's MAC as another thread resolves it (neighbour
	 * discovery), packed by mrc_qp_mac_word() and read at each packet in place
	 * of dst_mac; NULL: dst_mac. Written by the resolver (an atomic store per
	 * entry), read by the QP; it must outlive the QP.
	 */
	const uint64_t *next_hop_mac;
	uint8_t src_ip[16], dst_ip[16]; /**< NIC addresses (the inner IPv6) */
	/** Per plane (port): source and destination MAC. */
	struct rte_ether_addr src_mac[MRC_EV_MAX_PLANES], dst_mac[MRC_EV_MAX_PLANES];
	uint8_t src_loc[16];	      /**< SRv6: outer source address */
	struct mrc_ev_path_tmpl path; /**< SRv6: the per-destination row template */
};

/**
 * SRv6 encapsulation by the NIC (doc/offload.md): the class of a packet's
 * outer traffic class, the low 2 bits of its rule key.
 */
enum mrc_qp_encap_class {
	MRC_QP_ENCAP_DATA = 0, /**< first transmissions (data DSCP) */
	MRC_QP_ENCAP_RTX,      /**< resends (retransmit DSCP) */
	MRC_QP_ENCAP_CTRL,     /**< SACK, NACK (control DSCP) */
	MRC_QP_ENCAP_PROBE,    /**< probes (trimmable DSCP) */
	MRC_QP_ENCAP_CLASSES,
};

/** What the QPs of one worker did with the outer headers to one destination. */
struct mrc_qp_encap_counters {
	uint64_t nic;	     /**< packets whose outer IPv6 header the NIC adds */
	uint64_t sw_no_port; /**< built in software: the plane's port has no rules */
	uint64_t sw_no_rule; /**< built in software: no rule for the EV (a peer's, a full table) */
};

/**
 * The egress encap rules of one destination (peer host and worker), as the
 * QPs of one worker sending to it read them: one rule per (plane port, EV
 * flow-label half, class), key = key_base | flow-label half << 2 | class.
 * Written by the control thread (the setter of each field below), read by
 * the worker's QPs per packet; it must outlive them.
 */
struct mrc_qp_encap {
	/** the worker's QPs write (the struct is one worker's), stats read (relaxed) */
	struct mrc_qp_encap_counters cnt;
	uint32_t key_base;  /**< setup: bits 31 and 18+ (the destination); low 18 bits 0 */
	int32_t meta_off;   /**< setup: rte_flow's tx metadata mbuf field offset */
	uint64_t meta_flag; /**< setup: its ol_flags bit (RTE_MBUF_DYNFLAG_TX_METADATA) */
	/**
	 * Per plane, a bitmap over the 65536 flow-label halves: bit set = the
	 * plane's port holds the rules of every class for it. Control sets bits
	 * (atomic OR, after the rules exist), never clears them while QPs run;
	 * QPs load one word (relaxed). NULL: the plane's port has no rules (it
	 * does not offload, or its next hop's MAC is not known yet or changed):
	 * control may swap the pointer (release) while QPs run; they load it
	 * (acquire) per packet.
	 */
	uint64_t *fl_bits[MRC_EV_MAX_PLANES];
};

/** Words of a fl_bits bitmap. */
#define MRC_QP_ENCAP_FL_WORDS (65536 / 64)

/** The rule key of flow-label half `fl` and class `cls` under `key_base`. */
static inline uint32_t
mrc_qp_encap_key(uint32_t key_base, uint16_t fl, unsigned int cls)
{
	return key_base | (uint32_t)fl << 2 | (cls & 3u);
}

/** A MAC as one word, for a table other threads read whole (next_hop_mac). */
static inline uint64_t
mrc_qp_mac_word(const struct rte_ether_addr *mac)
{
	uint64_t w = 0;

	memcpy(&w, mac, sizeof(*mac));
	return w;
}

/** Everything fixed at create time. */
struct mrc_qp_init {
	uint32_t qpn;	  /**< ours (24 bits, not 0-2) */
	uint16_t sq_size; /**< messages postable at once (power of two) */
	uint16_t mtu;	  /**< payload bytes per packet (256..9000) */
	uint64_t tsc_hz;
	struct mrc_mr_table *mrs; /**< regions for lkeys and rkeys */
	/**
	 * Protection domain: the QP sends only from regions of this domain and
	 * lets its peer write only into them (mrc_mr.h); 0 is the daemon's own.
	 */
	uint64_t pd;
	struct mrc_cq *cq;	      /**< where completions go */
	struct rte_mempool *hdr_pool; /**< header, payload-attach and trailer mbufs */
	struct mrc_wire_cfg wire;
	struct mrc_qp_addr addr;
	/**
	 * Keep per-EV statistics (packets, bytes, acks, NACKs by reason, ECN
	 * echoes, losses, state changes, RTT): 152 bytes per EV, so opt-in.
	 */
	bool ev_stats;
	int socket;
	/**
	 * The worker's pool of in-flight tracking blocks (mrc_trk_pool.h),
	 * shared by its QPs: the QP holds one only while it has packets in
	 * flight, and waits for one to send new data. NULL: the QP gets a
	 * pool of one block of its own at RTS (the memory is then always
	 * its own; the behaviour is the same).
	 */
	struct mrc_trk_pool *trk_pool;
	/**
	 * The worker's pool of Write-with-immediate tables (blocks of
	 * mrc_qp_imm_block_bytes(), mrc_trk_pool.h), shared by its QPs as
	 * responders: a QP holds one only while an immediate that arrived
	 * before the rest of its message waits (one arriving next in order is
	 * delivered at once, no table needed). When every table is out, such
	 * a packet is refused with a NACK NO_PKT_BUFFER (counted in
	 * rx_imm_no_table) and the sender resends it; nothing else is
	 * refused. The pool must outlive the QPs. NULL: the QP gets a table
	 * of its own at RTR.
	 */
	struct mrc_trk_pool *imm_pool;
	/**
	 * The worker's pool of control answer rings (blocks of
	 * mrc_qp_ctrl_block_bytes(), mrc_trk_pool.h): a QP holds one only
	 * while a SACK or NACK waits for its next tx burst, so an idle QP holds
	 * none. When every ring is out, the answer is dropped (counted in
	 * tx_ctrl_dropped) as when the QP's ring is full: the sender's probe
	 * or timer recovers. The pool must outlive the QPs. NULL: the QP
	 * gets a ring of its own at create.
	 */
	struct mrc_trk_pool *ctrl_pool;
};

/** Which paths a QP's packets take (see the file comment). */
enum mrc_qp_paths {
	MRC_QP_PATHS_SPRAY = 0, /**< MRC: each packet on the pool's next GOOD EV */
	MRC_QP_PATHS_ECMP,	/**< reference: one EV for the QP's life, by QPN hash */
};

/** How a QP recovers losses (see the file comment). */
enum mrc_qp_reliability {
	MRC_QP_REL_SACK = 0, /**< MRC: selective repeat driven by SACKs and NACKs */
	MRC_QP_REL_GBN,	     /**< reference: RoCEv2 RC go-back-N (needs paths ECMP) */
};

/** Attributes, set at the transitions (doc/protocol.md, "Queue pairs"). */
struct mrc_qp_attr {
	/* RESET -> INIT */
	struct mrc_ev_cfg ev; /**< the EV profile */
	uint8_t paths;	      /**< enum mrc_qp_paths */
	uint8_t reliability;  /**< enum mrc_qp_reliability */
	char cc_name[32];     /**< the CC profile: "uet-1.0-nscc", "fixed" */
	struct mrc_cc_params cc;
	/* INIT -> RTR: what we accept as responder */
	uint32_t dest_qpn;
	/**
	 * Workers of the destination host (0 or 1: one; the path then carries
	 * no worker uSID and the wire format is as with one worker). With
	 * more, every packet's path ends with the worker uSID of dest_worker,
	 * the worker that owns dest_qpn at the peer, so the peer's NIC can
	 * steer it to that worker's rx queue (doc/steering.md).
	 */
	uint16_t dest_workers;
	uint8_t dest_worker;	/**< < dest_workers; the peer's (dest_qpn - qpn_base) % workers */
	uint32_t start_psn_rx;	/**< first PSN the peer will send */
	uint8_t mpr;		/**< our window, x 128 PSNs */
	uint16_t wimm;		/**< Write-IMM messages we track at once */
	uint64_t ack_delay_tsc; /**< SACK coalescing delay */
	uint16_t ack_every;	/**< SACK every N new packets */
	bool trim_nack;		/**< we NACK trimmed packets */
	/**
	 * Dynamic MPR on our side: our SACKs carry our current window in SETH's
	 * MPR (else 0), and, when the peer enables it too (peer_dyn_mpr), we
	 * send within the window its SACKs advertise. Both ends must agree out
	 * of band, as on the MPR itself (doc/protocol.md, "Dynamic MPR").
	 */
	bool dyn_mpr;
	/** ECN-marked packets in a row on one EV that earn it ALWAYS_SKIP (0: never). */
	uint8_t always_skip_marks;
	/* RTR -> RTS: what the peer accepts, and our timers */
	uint32_t start_psn_tx;
	uint8_t peer_mpr;
	uint16_t peer_wimm;
	bool peer_dyn_mpr; /**< the peer enabled dynamic MPR (honoured only with dyn_mpr) */
	/**
	 * Data packets carry a TSETH: the peer echoes its stamp in SACKs and
	 * NACKs, which names the copy of a resent packet that arrived, so it
	 * gives an RTT sample too. 4 bytes per data packet; off by default.
	 */
	bool tseth;
	uint8_t timeout;      /**< 1.024 us x 2^timeout */
	uint8_t retry_linear; /**< <= 7 */
	uint8_t retry_exp;    /**< <= 25, 25 = forever */
	uint64_t initial_rtt_tsc;
	uint64_t min_pkt_timeout_tsc;
	/**
	 * In SRv6 mode, a loss is proven by a later packet on the same path
	 * (plane + T1), not only on the same EV (mrc_rel_tx.h). Sound when every
	 * hop of a path is one in-order link; turn it off where a hop spreads
	 * flows over parallel links (a LAG), which can reorder a path.
	 */
	bool path_order;
	/**
	 * Retire the EV of a loss that a later packet (or a probe's answer) on
	 * the same path proved, as MRC retires the EV of every silent loss.
	 * Off by default: that path has just delivered, so the loss was random,
	 * and under random loss on every link retiring spends the backups and
	 * sprays over a third of the pool (doc/protocol.md, "Where mrcd departs
	 * from MRC"). Losses the timers find retire their EVs either way.
	 */
	bool order_loss_retires;
};

/** Defaults for every attribute (n_planes planes; tsc_hz for times). */
void mrc_qp_attr_defaults(struct mrc_qp_attr *a, uint8_t n_planes, uint64_t tsc_hz);

struct mrc_qp;

/** Create a QP in RESET; NULL with rte_errno on failure (and *why names it). */
struct mrc_qp *mrc_qp_create(const struct mrc_qp_init *init, const char **why);
/** Free a QP; packets it sent may still be in flight (they hold region refs). */
void mrc_qp_destroy(struct mrc_qp *qp);

/**
 * Move to `to`, taking the attributes that transition sets from `attr`.
 * Legal: RESET->INIT->RTR->RTS, any->ERROR, ERROR->RESET.
 * 0, -EINVAL (illegal transition or bad attribute; *why says which),
 * -ENOMEM. INIT and RTR take the QP's parts from the heap; RTS takes
 * nothing when the QP has a worker's in-flight pool (mrc_qp_init.trk_pool),
 * so a QP given to its shard at RTR goes to RTS on its worker.
 */
int mrc_qp_modify(struct mrc_qp *qp, enum mrc_qp_state to, const struct mrc_qp_attr *attr,
	uint64_t now_tsc, struct mrc_rand *rand, const char **why);

enum mrc_qp_state mrc_qp_state(const struct mrc_qp *qp);
enum mrc_qp_error mrc_qp_error(const struct mrc_qp *qp);
uint32_t mrc_qp_qpn(const struct mrc_qp *qp);
/** The peer NIC's address (the inner IPv6 destination): who the QP talks to. */
const uint8_t *mrc_qp_peer_ip(const struct mrc_qp *qp);

/**
 * Build packets from `shared` instead of the QP's own addresses, when they
 * are the same but for their path (which stays the QP's): one copy for
 * every QP of a worker to one destination stays cached, where each QP's
 * own would be read back from memory at its turn. NULL: its own again.
 * `shared` must outlive the QP's use of it. The engine (lib/host) does
 * this for the QPs it is given. @return whether the QP reads `shared`.
 */
bool mrc_qp_share_addr(struct mrc_qp *qp, const struct mrc_qp_addr *shared);

/** The addresses the QP was made with (mrc_qp_init's), but for the path: zero here. */
const struct mrc_qp_addr *mrc_qp_addr(const struct mrc_qp *qp);

struct mrc_rel_rtt_share;
/**
 * Share round-trip state with the other QPs of the same worker to the same
 * destination (mrc_rel_tx.h), from now on and across resets; NULL: none.
 * The share must outlive the QP's use of it. The engine (lib/host) does
 * this for the QPs it is given.
 */
void mrc_qp_set_rtt_share(struct mrc_qp *qp, struct mrc_rel_rtt_share *share);

/**
 * Let the NIC add this QP's outer headers where `e` has rules (NULL:
 * always in software). Set before the QP is handed to its worker (the hand-off publishes it).
 * Per packet the QP then sets MRC_PKT_F_NIC_ENCAP and the key, or builds
 * the header in software counting why (e->cnt); `e` must be the QP's
 * worker's alone. Only in SRv6 mode; ignored otherwise.
 */
void mrc_qp_set_encap(struct mrc_qp *qp, struct mrc_qp_encap *e);

/**
 * The bytes the encap rule of a packet of this QP on `ev` in class `cls`
 * adds (mrc_pkt_encap_hdr() of the packet as the QP addresses it).
 * @return the length, 0: not SRv6, EV not addressable, or `size` too small.
 */
size_t mrc_qp_encap_hdr(const struct mrc_qp *qp, uint32_t ev, enum mrc_qp_encap_class cls,
	uint8_t *buf, size_t size);

struct mrc_path_block;
/**
 * Count this QP's per-path events (mrc_path_stats.h) in `blk` (NULL: stop).
 * The engine gives every QP its shard's block. A destination whose template
 * has more T1s than the block counts its surplus T1s under "direct".
 */
void mrc_qp_set_path_counters(struct mrc_qp *qp, struct mrc_path_block *blk);

/**
 * Post an RDMA WRITE (with_imm false) or WRITE-with-immediate of `len`
 * bytes from `laddr` (inside region `lkey`, of the QP's protection domain)
 * to `raddr` in the peer's region `rkey`; a message of 0 bytes reads no
 * memory and names no region (laddr and lkey are ignored). 0; -EPERM (not
 * RTS), -ENOSPC (send queue full), -EINVAL (local buffer not inside `lkey`,
 * len beyond 2 GiB).
 */
int mrc_qp_post_write(struct mrc_qp *qp, uint64_t wr_id, const void *laddr, uint32_t len,
	uint32_t lkey, uint64_t raddr, uint32_t rkey, bool with_imm, uint32_t imm);

/**
 * Produce up to `max` packets to send now: control answers first, then
 * resends, probes, and new data within the windows. Each mbuf's `port` is
 * its plane. `plane_ok_mask`: planes whose local port is up and has tx room.
 */
uint16_t mrc_qp_tx_burst(struct mrc_qp *qp, uint64_t now_tsc, uint32_t plane_ok_mask,
	struct mrc_rand *rand, struct rte_mbuf **pkts, uint16_t max);

/**
 * mrc_qp_tx_burst() for a caller that tells a port that is down
 * (`port_up_mask`: bit p clear, nothing may leave on plane p) from one whose
 * tx queue is full for now (`room_mask`: bit p clear while it has no room).
 * Everything waits for room but the probe of a retired EV: it waits for its
 * plane's room a quarter of the probe interval at most, then goes past it
 * (a few bytes). Without this, at line rate a plane short of room whenever
 * its probe came due was a plane down to the probe rounds, and a path that
 * healed was never probed back.
 */
uint16_t mrc_qp_tx_burst_room(struct mrc_qp *qp, uint64_t now_tsc, uint32_t port_up_mask,
	uint32_t room_mask, struct mrc_rand *rand, struct rte_mbuf **pkts, uint16_t max);

/** Take one received packet for this QP (already parsed into `v`); frees `m`. */
void mrc_qp_rx(struct mrc_qp *qp, struct rte_mbuf *m, const struct mrc_pkt *v, uint64_t now_tsc);

/**
 * mrc_qp_rx() that leaves `m` to the caller, who frees it once done with the
 * burst (rte_pktmbuf_free_bulk): nothing of `m` is kept. Freeing a packet
 * whose payload is attached external memory is an atomic update of that
 * memory's reference count, which waits for every store before it (the
 * payload just copied out, among them); a burst's frees together wait once.
 */
void mrc_qp_rx_keep(
	struct mrc_qp *qp, const struct rte_mbuf *m, const struct mrc_pkt *v, uint64_t now_tsc);

/**
 * Run timers (retransmit, probes, SACK coalescing); returns when to call
 * again. A SACK owed while a control answer is queued has no deadline: the
 * burst that sends the queued answer (mrc_qp_tx_pending() is true) is to be
 * followed by a poll, which returns it if the SACK is still owed.
 */
uint64_t mrc_qp_poll(struct mrc_qp *qp, uint64_t now_tsc);

/**
 * mrc_qp_poll() for a caller whose input is complete only up to
 * `judge_tsc` (<= now_tsc): the timers that declare losses (per-packet and
 * retransmit timeouts, probes, EV probe timeouts) judge at `judge_tsc`, so
 * an answer still waiting in the caller's own queues is not taken for a
 * loss; the responder's SACK timer runs at `now_tsc`, so answers are not
 * delayed. Deadlines of the first kind are returned on `judge_tsc`'s scale.
 */
uint64_t mrc_qp_poll_judged(struct mrc_qp *qp, uint64_t now_tsc, uint64_t judge_tsc);

/**
 * Call `fn(ctx)` whenever a post gives the QP something to send, so a
 * worker that visits only busy QPs learns about work posted from outside
 * its loop. NULL clears it.
 */
void mrc_qp_set_wake(struct mrc_qp *qp, void (*fn)(void *ctx), void *ctx);

/**
 * Lower (or raise again, up to the negotiated mpr) the window we accept as
 * responder, x 128 PSNs: packets beyond it are refused with NACK NO_BITMAP.
 * With dynamic MPR our SACKs tell the peer. 0; -EINVAL out of range;
 * -EPERM before RTR.
 */
int mrc_qp_set_rx_mpr(struct mrc_qp *qp, uint8_t mpr);

/** The peer's ports: bit p set = its plane p is up (from port-status updates). */
void mrc_qp_set_peer_planes(struct mrc_qp *qp, uint32_t mask);

/**
 * The regions' shared-info lane our payload segments count on (mrc_mr.h;
 * taken modulo MRC_MR_LANES, 0 until set): QPs that may send at the same
 * time from different lcores must have different lanes. The engine gives a
 * QP its shard's index when the shard takes it.
 */
void mrc_qp_set_mr_lane(struct mrc_qp *qp, unsigned int lane);

/** True when nothing is posted, in flight or waiting to be answered. */
bool mrc_qp_idle(const struct mrc_qp *qp);

/**
 * True while control answers (SACKs, NACKs, probe answers) wait for a tx
 * burst. They need no in-flight tracking memory: a QP that has them is
 * never one waiting for it.
 */
bool mrc_qp_answers_queued(const struct mrc_qp *qp);

/**
 * True when a tx burst may find something to send now: control answers
 * queued, data not sent yet, resends, a probe wanted or waiting for room,
 * or retired EVs to probe while packets are in flight. False for a QP
 * that only waits, for acknowledgements, a timer or a post: the call that
 * ends the wait (rx, mrc_qp_poll(), a post and its wake) is what gives it
 * work. A QP outside RTS is pending whenever it is not idle.
 */
bool mrc_qp_tx_pending(const struct mrc_qp *qp);

/**
 * Start loading the QP's own lines that every packet in or out touches
 * (state, send queue, its parts' pointers, control queue, addresses,
 * counters; a sender's congestion control: mrc_qp_prefetch_cc()),
 * so that a worker about to handle many QPs in turn has their misses
 * overlap instead of taking them one after the other. Only a hint: it
 * reads and changes nothing.
 */
void mrc_qp_prefetch(const struct mrc_qp *qp);

/**
 * The QP's congestion control lines, which only a sender reads (its
 * window, each acknowledgement): not among mrc_qp_prefetch()'s, since a
 * responder's turns and packets never read them. mrc_qp_prefetch_parts()
 * asks for them when new data waits; a caller about to hand the QP a SACK
 * or NACK asks. Only a hint: it reads and changes nothing.
 */
void mrc_qp_prefetch_cc(const struct mrc_qp *qp);

/**
 * The same for the parts a turn at sending reads: the requester's
 * (reliability state, EV pool) while the QP has sends out or waiting, the
 * responder's state while answers wait, and, when a posted message waits
 * to be sent, its congestion control lines and the first
 * MRC_QP_PREFETCH_SEND_BYTES of the payload its next packet carries (which
 * the ICRC reads), found through pointers in the QP's own lines and its
 * send queue entry, which it reads (and changes nothing): call it some
 * time after mrc_qp_prefetch(), once those lines have had time to arrive.
 */
#define MRC_QP_PREFETCH_SEND_BYTES 256u
void mrc_qp_prefetch_parts(const struct mrc_qp *qp);

/**
 * What handing the QP a SACK or NACK reads beyond mrc_qp_prefetch()'s: the
 * QP's second requester line, its requester parts' first lines
 * (reliability state, EV pool) and its
 * congestion control lines (mrc_qp_prefetch_cc()). Reads the QP's first
 * lines: call it some time after mrc_qp_prefetch(). Changes nothing.
 */
void mrc_qp_prefetch_ack(const struct mrc_qp *qp);

/**
 * The lines a turn at sending reads last, through the QP's first line and
 * its parts' first lines (mrc_qp_prefetch() and mrc_qp_prefetch_parts()
 * ask for those: call it some time after both): the MACs of the planes
 * it may send on, which every packet it builds reads, and when a posted
 * message waits, what its next packet's EV pick reads beyond the pool's
 * first two lines (mrc_ev_prefetch_pick()) and what recording the send
 * writes (mrc_rel_tx_prefetch_send()). Only a hint: it changes nothing.
 */
void mrc_qp_prefetch_turn(const struct mrc_qp *qp);

/**
 * The lines a post (mrc_qp_post_write() and the like) writes beyond the
 * QP's first: the QP's second requester line (message numbers), the send
 * queue entry it fills and the wake callback's context (the caller's record
 * of the QP). Found through the QP's first
 * line, which it reads (and changes nothing): call it some time after
 * mrc_qp_prefetch(), as a caller that knows which QPs it posts to next can.
 */
void mrc_qp_prefetch_post(const struct mrc_qp *qp);

/**
 * What a received data packet `v` reads beyond the QP's own lines: the
 * responder state's first line and the lines the payload will be placed
 * in (its first MRC_QP_PREFETCH_PLACE_BYTES), when its region's key and
 * range check out; nothing for other packets. Reads the QP's first lines
 * (the region table's pointer) and the region table, changes nothing: call
 * it some time after mrc_qp_prefetch(), before mrc_qp_rx_keep().
 */
#define MRC_QP_PREFETCH_PLACE_BYTES 1024u
void mrc_qp_prefetch_rx(const struct mrc_qp *qp, const struct mrc_pkt *v);

/**
 * The line a received packet `v`'s verdict reads in the QP's parts: the
 * arrival bitmap's word of a data packet, the echoed EV's entry in the pool
 * of a SACK or NACK. Reads the parts' first lines (mrc_qp_prefetch_parts()
 * asks for them), changes nothing: call it some time after that.
 */
void mrc_qp_prefetch_judge(const struct mrc_qp *qp, const struct mrc_pkt *v);

/**
 * Per-QP counters (all per lcore, since the QP is). The first eight are
 * the ones every message counts: they share the block's first cache line.
 */
#define MRC_QP_COUNTERS(X)                                                                     \
	X(tx_data_pkts, "pkts", "data packets sent, first transmissions")                      \
	X(tx_data_bytes, "bytes", "payload bytes sent, first transmissions")                   \
	X(tx_sacks, "pkts", "SACKs sent")                                                      \
	X(rx_data_pkts, "pkts", "new data packets placed")                                     \
	X(rx_data_bytes, "bytes", "payload bytes placed")                                      \
	X(rx_sacks, "pkts", "SACKs received")                                                  \
	X(msgs_done, "msgs", "messages sent and fully acknowledged")                           \
	X(imm_delivered, "msgs", "immediate data delivered to the CQ")                         \
	X(tx_retx_pkts, "pkts", "data packets resent")                                         \
	X(tx_nacks, "pkts", "NACKs sent")                                                      \
	X(tx_probes, "pkts", "reliability probes sent")                                        \
	X(tx_ev_probes, "pkts", "EV probes sent to test retired paths")                        \
	X(tx_ev_probes_past_room, "pkts", "EV probes sent past a full tx queue")               \
	X(tx_op_probes, "pkts", "probes the operator asked for (mrcctl probe)")                \
	X(tx_wimm_waits, "events", "Write-IMM messages held back: the peer's WIMM was in use") \
	X(tx_no_mbuf, "events", "sends deferred: no mbuf in the pool")                         \
	X(tx_no_ev, "events", "sends deferred: no usable EV on an allowed plane")              \
	X(tx_ctrl_dropped, "pkts", "control answers dropped: queue full or no ring free")      \
	X(rx_dup_pkts, "pkts", "duplicate data packets (not placed again)")                    \
	X(rx_oor_pkts, "pkts", "data packets beyond our window (NACKed)")                      \
	X(rx_trimmed_pkts, "pkts", "trimmed data packets (NACKed)")                            \
	X(rx_bad_rkey, "pkts", "writes refused: unknown rkey, other domain, bounds or access") \
	X(rx_wimm_exceeded, "pkts", "Write-IMM beyond the negotiated WIMM")                    \
	X(rx_sacks_refused, "pkts", "SACKs acknowledging PSNs never sent (ignored)")           \
	X(rx_nacks, "pkts", "NACKs received")                                                  \
	X(rx_probes, "pkts", "probes received (answered with a SACK)")                         \
	X(rx_unexpected, "pkts", "packets this QP has no use for in its state")                \
	X(ecn_echoes, "pkts", "SACKs echoing an ECN mark")                                     \
	X(ev_losses, "events", "packets lost on an EV (path blamed)")                          \
	X(rx_oos_pkts, "pkts", "go-back-N: data packets out of sequence, dropped unplaced")    \
	X(rx_imm_no_table, "pkts",                                                             \
		"Write-IMM immediates refused (NACK NO_PKT_BUFFER): no table free")            \
	X(rx_imm_no_cqe, "pkts", "Write-IMM immediates refused (NACK NO_PKT_BUFFER): CQ full") \
	X(rx_no_bitmap, "pkts", "data packets beyond our lowered window (NACK NO_BITMAP)")     \
	X(rx_acks, "pkts", "transport ACKs (AETH) received and applied")                       \
	X(rx_naks, "pkts", "transport NAKs (AETH) received and applied")

MRC_COUNTER_BLOCK_DECLARE(mrc_qp_counters, MRC_QP_COUNTERS);

const struct mrc_qp_counters *mrc_qp_counters(const struct mrc_qp *qp);

/**
 * Bytes allocated for this QP in its current state (grows at each
 * transition), counting the tracking block and the Write-IMM table while
 * it holds them from shared pools (its own count always).
 */
size_t mrc_qp_mem_bytes(const struct mrc_qp *qp);

/** Bytes of the tracking block a QP with attributes `a` needs (to size a shared pool). */
size_t mrc_qp_trk_block_bytes(const struct mrc_qp_attr *a);

/** True while the QP holds a tracking block. */
bool mrc_qp_trk_held(const struct mrc_qp *qp);

/** Bytes of a control answer ring (to size mrc_qp_init.ctrl_pool's blocks). */
size_t mrc_qp_ctrl_block_bytes(void);

/** Bytes of the Write-IMM table a QP with attributes `a` needs (to size a shared pool). */
size_t mrc_qp_imm_block_bytes(const struct mrc_qp_attr *a);

/** True while the QP holds a Write-IMM table. */
bool mrc_qp_imm_held(const struct mrc_qp *qp);

/** What mrc_qp_mem_bytes() counts, part by part (bytes; 0 for a part not held). */
struct mrc_qp_mem {
	size_t qp;	  /**< the QP itself: addresses, send/answer queues' state, CC, counters */
	size_t sq;	  /**< the send queue (sq_size entries) */
	size_t ctrl;	  /**< the control answer ring: always when owned, while held when lent */
	size_t ev_pool;	  /**< the EV pool (from INIT) */
	size_t ev_stats;  /**< per-EV statistics, when asked for */
	size_t responder; /**< PSN tracking as responder (from RTR) */
	size_t imm;	  /**< the Write-IMM table: always when owned, while held when lent */
	size_t requester; /**< sequence state as requester (from RTS) */
	size_t trk;	  /**< the in-flight ring: always when owned, while held when lent */
};

/** Fill `out` with the parts of mrc_qp_mem_bytes(qp); they add up to it. */
void mrc_qp_mem_parts(const struct mrc_qp *qp, struct mrc_qp_mem *out);

/** The QP's parts, for telemetry and tests (read-only). */
const struct mrc_ev_pool *mrc_qp_ev_pool(const struct mrc_qp *qp);
const struct mrc_cc *mrc_qp_cc(const struct mrc_qp *qp);
const struct mrc_rel_tx *mrc_qp_rel_tx(const struct mrc_qp *qp);
const struct mrc_rel_rx *mrc_qp_rel_rx(const struct mrc_qp *qp);

/**
 * The QP's EV pool, to change (deny, allow, listen): on the lcore that
 * owns the QP only, like every other write to it. NULL before INIT.
 */
struct mrc_ev_pool *mrc_qp_ev_pool_owner(struct mrc_qp *qp);

/**
 * The T1 (of its plane) a packet of this QP on EV `ev` crosses: the EV's
 * T0 uplink modulo the destination template's T1s (doc/protocol.md, "SRv6
 * addressing plan"); -1 when it crosses none (plain encapsulation, or a
 * destination on our own T0).
 */
int mrc_qp_ev_t1(const struct mrc_qp *qp, uint32_t ev);

/**
 * The operator's probe (doc/control.md, "probe"), on the owner lcore: send
 * one probe on EV `ev` with the next tx burst, whatever the EV's state but
 * DENIED, and time its answer. One at a time per QP; asking again forgets
 * the last result. 0; -EPERM (not RTS), -ENOENT (not one of the QP's EVs,
 * or the QP is pinned to one path), -EACCES (the EV is DENIED).
 */
int mrc_qp_op_probe(struct mrc_qp *qp, uint32_t ev, uint64_t now_tsc);
/**
 * The operator's probe's result: 1 and *rtt_ns (answered), 0 (not yet),
 * -ETIMEDOUT (sent, no answer within the EV probe timeout), -ENETDOWN (its
 * plane is down here or at the peer: not sent), -ENOENT (none asked).
 */
int mrc_qp_op_probe_result(const struct mrc_qp *qp, uint32_t ev, uint64_t *rtt_ns);

#endif /* MRC_QP_H */
