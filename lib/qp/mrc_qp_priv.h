/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */
#ifndef MRC_QP_PRIV_H
#define MRC_QP_PRIV_H

/* The QP's state; private to lib/qp (mrc_qp.c control, _tx.c output, _rx.c input). */

#include <rte_branch_prediction.h>

#include "mrc_path_stats.h"
#include "mrc_qp.h"
#include "mrc_rel_rx.h"
#include "mrc_rel_tx.h"

/* rel cookies: send-queue index in the top 12 bits, packet index in the low 20. */
#define COOKIE_PKT_BITS 20
#define COOKIE_PKT_MASK ((1u << COOKIE_PKT_BITS) - 1)
#define MAX_SQ		(1u << (32 - COOKIE_PKT_BITS))
#define MAX_MSG_PKTS	(1u << COOKIE_PKT_BITS)

/* Control answers (SACK, NACK) waiting for the next tx call. */
#define CTRL_Q 64
/* EV probes in flight at once. */
#define EV_PROBES 8

struct qp_wqe {
	uint64_t wr_id;
	/*
	 * The local region the payload attaches to: its key, checked at every
	 * packet built, since the region may be let go while the message is
	 * posted (mrc_mr_retire) and its memory with it.
	 */
	uint32_t lkey;
	const uint8_t *laddr;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t len;
	uint32_t imm;
	uint32_t n_pkts;
	uint32_t next_pkt; /* first transmissions done */
	uint32_t first_psn;
	uint16_t msn;
	uint16_t rqmsn;
	bool with_imm;
};

enum { CTRL_SACK = 1, CTRL_NACK };

/*
 * 8 bytes: every QP holds CTRL_Q of these. `what` is a NACK's reason code
 * (all below 0x80) or, for a SACK, CTRL_WHAT_SACK | pr << 2 | M.
 */
struct qp_ctrl {
	uint32_t psn : 24; /* SACK trigger, or NACKed PSN */
	uint32_t what : 8;
	uint32_t ev; /* echoed, and the path the answer takes back */
};

/*
 * The answers waiting (a ring of CTRL_Q), with the TSETH stamp each echoes
 * (0: none). Out of the QP: 640 bytes an idle QP does not need, lent from
 * mrc_qp_init.ctrl_pool while any answer waits (or the QP's own for life).
 */
struct qp_ctrl_ring {
	struct qp_ctrl e[CTRL_Q];
	uint16_t ts[CTRL_Q];
};

#define CTRL_WHAT_SACK 0x80u
#define CTRL_WHAT_PR   0x04u

static inline uint8_t
ctrl_what(uint8_t kind, uint8_t m_or_reason, bool pr)
{
	if (kind == CTRL_NACK)
		return m_or_reason;
	return (uint8_t)(CTRL_WHAT_SACK | (pr ? CTRL_WHAT_PR : 0) | (m_or_reason & 3u));
}

/* 12 bytes: every QP holds wimm of these (a PSN is 24 bits). */
struct qp_imm {
	uint32_t last_psn : 24;
	uint32_t valid : 1;
	uint32_t imm;
	uint32_t len;
};

struct qp_ev_probe {
	uint64_t sent_tsc;
	uint32_t ev;
	bool busy;
	bool op; /* the operator's (mrc_qp_op_probe), not a retired EV's */
};

/* The operator's probe (mrc_qp_op_probe), one at a time. */
enum qp_op_probe_state {
	OP_PROBE_NONE,
	OP_PROBE_WANT,	   /* asked, not sent yet */
	OP_PROBE_OUT,	   /* sent, waiting for its answer */
	OP_PROBE_ANSWERED, /* op_probe_rtt_tsc holds the round trip */
	OP_PROBE_TIMEOUT,  /* no answer within the EV probe timeout */
	OP_PROBE_DOWN,	   /* its plane was down here or at the peer: not sent */
};

/*
 * Laid out for the fast path at many QPs per worker, where each QP's lines
 * come from memory: what a packet, a burst or a poll reads or writes comes
 * first, packed (mrc_qp_prefetch() names these lines) by who reads it, so
 * that a QP in one role reads no line of the other's: lines 0 and 1 every
 * turn of either (a burst's checks, the headers of any packet), line 2 a
 * responder's (a data packet's checks and placement, its answers), lines 3
 * and 4 a requester's (posts, sends, SACKs), congestion control's from line
 * 5. What set-up, teardown and the snapshot read comes after.
 */
struct mrc_qp {
	/* ---- line 0: every burst, packet or poll, either role ---- */
	uint32_t qpn;
	uint32_t dest_qpn;
	uint8_t state;
	uint8_t error;
	uint16_t mtu;
	uint16_t peer_planes; /* at most MRC_EV_MAX_PLANES bits */
	uint16_t plane_mask;  /* planes of our EV profile */
	/* send queue: [sq_head, sq_send) partly sent, [sq_send, sq_tail) waiting */
	uint32_t sq_send, sq_tail;
	/* control answers queued (in ctrl, held whenever ctrl_head != ctrl_tail) */
	uint32_t ctrl_head, ctrl_tail;
	/* an EV probe chosen while its plane had no tx room waits (mrc_qp_tx_burst_room) */
	bool ev_probe_held;
	uint8_t op_probe_state; /* enum qp_op_probe_state: here, where tx and idle tests read it */
	uint8_t ev_probe_busy;	/* bit i: ev_probe[i].busy; polls skip the array while 0 */
	/* a posted message's region was let go: the burst that found it fails the QP */
	bool region_gone;
	bool ev_bad; /* some EV is ASSUMED_BAD: the pool keeps it (mrc_ev_set_bad_flag) */
	/*
	 * rel's timers had nothing when a poll last looked, and nothing was
	 * sent or acknowledged since: a burst or poll of a QP that only answers
	 * (every responder) leaves rtx's lines alone. Set by mrc_qp_poll_judged
	 * only; cleared by whatever may give rtx something (qp_rtx_busy()).
	 */
	bool rtx_quiet;
	struct mrc_ev_layout layout; /* ev_cfg's: an EV's plane and uplink */
	uint32_t last_rx_ev;	     /* responder: the EV of the last data packet */
	uint64_t now_tsc;	     /* handed to rel's callbacks: the time */
	struct mrc_cq *cq;

	/* ---- line 1: the headers of every packet, and the parts a burst asks ---- */
	struct rte_mempool *pool;
	struct mrc_wire_cfg wire;
	bool sack_run;	 /* the head SACK's run goes on (mrc_rel_rx_sack_more) */
	bool rx_unacked; /* data came in since a poll last found no SACK pending (mrc_qp_poll) */
	uint8_t reliability; /* enum mrc_qp_reliability */
	bool tseth;	     /* our data packets carry a TSETH (mrc_qp_attr.tseth) */
	/* the NIC's encap rules to our destination (mrc_qp_set_encap), NULL: software */
	struct mrc_qp_encap *encap;
	/*
	 * The addresses a packet is built from: &addr, or the engine's copy of
	 * the same addresses for every QP of the worker to this destination
	 * (mrc_qp_share_addr), which stays cached however many QPs take turns.
	 */
	const struct mrc_qp_addr *hdr;
	/* parts, allocated at the transitions */
	struct mrc_ev_pool *ev;
	struct mrc_rel_tx *rtx;

	/* ---- line 2: a responder's (regions and domain: a post's too) ---- */
	struct mrc_mr_table *mrs;
	struct mrc_rel_rx *rrx;
	struct qp_ctrl_ring *ctrl;	/* NULL while lent back (ctrl_pool) */
	struct mrc_trk_pool *ctrl_pool; /* lends the answer ring (mrc_qp_init), or NULL */
	struct qp_imm *imm;		/* NULL while not held (lent: see imm_pool) */
	/* lends the Write-IMM table (mrc_qp_init), or NULL: ours for life */
	struct mrc_trk_pool *imm_pool;
	uint64_t pd;	   /* protection domain: the regions it may reach (mrc_qp_init) */
	uint16_t imm_mask; /* the table's size (wimm: a power of two, at most 2^15) less one */
	uint16_t imm_next;
	uint16_t imm_pending; /* valid entries: the table goes back when none is left */
	uint16_t wimm;

	/* ---- lines 3 and 4: a requester's ---- */
	struct qp_wqe *sq;
	struct mrc_trk_pool *trk_pool; /* lends rtx its tracking memory (from RTS on) */
	void (*wake)(void *ctx);       /* a post gave us work (mrc_qp_set_wake) */
	void *wake_ctx;
	uint64_t tsc_hz; /* a SACK's round trip in ns */
	/*
	 * The shard's per-path counters (mrc_qp_set_path_counters), NULL when
	 * the QP runs outside a shard. path_n_t1: T1s the EV's uplink is taken
	 * modulo (0: every packet is "direct", column path_direct).
	 */
	struct mrc_path_counters *path_cnt;
	uint64_t path_t1_mul; /* 2^64 / path_n_t1 rounded up: uplink % n_t1 without a division */
	uint32_t sq_mask;
	uint32_t sq_head;
	/* paths ECMP: the one slot and EV every packet takes; pin_slot -1 = spray */
	int32_t pin_slot;
	uint32_t pin_ev;
	uint16_t next_msn, next_rqmsn;
	uint32_t probe_ev; /* EV of the outstanding reliability probe */
	uint16_t probe_id;
	uint16_t ev_probe_held_slot;
	uint16_t rto_seen;  /* rel's rto_count when mrc_qp_poll() last looked */
	uint16_t peer_wimm; /* Write-IMMs the peer tracks at once (mrc_qp_attr) */
	uint8_t pin_plane;
	uint8_t data_dscp[2];	 /* first transmissions, resends */
	bool order_loss_retires; /* mrc_qp_attr.order_loss_retires */
	bool cc_ready;
	bool trk_own;	     /* trk_pool is ours alone (none was given) */
	uint8_t nack_reason; /* handed to rel's callbacks: the NACK being applied */
	uint8_t path_planes, path_direct, path_n_t1;
	uint8_t mr_lane; /* the regions' shared-info lane we attach to (mrc_qp_set_mr_lane) */
	struct mrc_ev_path_tmpl path; /* per QP (its peer's worker), never read through hdr */
	uint64_t ev_probe_timeout_tsc;
	/*
	 * From a line's start: the ops pointer and NSCC's state and counters
	 * then fill three lines (MRC_CC_PRIV_LINES), where 8 bytes before the
	 * line put the pointer alone in a fourth that every ack and window
	 * read touched.
	 */
	struct mrc_cc cc __rte_cache_aligned;

	/* ---- set-up's ---- */
	struct mrc_qp_addr addr;  /* as given at create, but its path zero (path above) */
	struct mrc_ev_cfg ev_cfg; /* its EV profile (layout above) */
	size_t mem_bytes;	  /* allocated for this QP alone (lent parts: mrc_qp_mem_bytes) */
	bool want_ev_stats;
	struct mrc_ev_stats *ev_stats; /* NULL unless asked for at create */
	uint32_t op_probe_ev;	       /* the operator's probe (mrc_qp_op_probe): cold */
	int socket;
	struct mrc_rel_rtt_share *rtt_share; /* mrc_qp_set_rtt_share(), given to rtx */
	struct mrc_trk_pool *shared_pool;    /* the worker's, from mrc_qp_init (or NULL) */

	/* EV probes out: read only while ev_probe_busy or ev_probe_held says some are */
	uint64_t ev_probe_held_tsc; /* since when */
	struct qp_ev_probe ev_probe[EV_PROBES];
	/* the operator's probe (mrc_qp_op_probe): cold */
	uint64_t op_probe_asked_tsc;
	uint64_t op_probe_rtt_tsc;

	/* cache-aligned: last, so that no hole is left before it */
	struct mrc_qp_counters cnt;
};

/* mrc_qp.c */
void mrc_qp_fail(struct mrc_qp *qp, enum mrc_qp_error why);
void mrc_qp_complete_sends(struct mrc_qp *qp);
bool mrc_qp_cqe_push(struct mrc_qp *qp, const struct mrc_cqe *e);
extern const struct mrc_rel_tx_ops mrc_qp_rel_ops;

/* mrc_qp.c: memory for a part of the QP, counted in its mem_bytes; free every part. */
void *mrc_qp_zalloc(struct mrc_qp *qp, size_t size);
void mrc_qp_free_parts(struct mrc_qp *qp);
bool mrc_qp_trk_get_slow(struct mrc_qp *qp);
bool mrc_qp_imm_get(struct mrc_qp *qp);
void mrc_qp_imm_put(struct mrc_qp *qp);
bool mrc_qp_ctrl_get(struct mrc_qp *qp);
void mrc_qp_ctrl_put(struct mrc_qp *qp);

/* rtx is about to be given something (a send, an acknowledgement): polls look at it again. */
static inline void
qp_rtx_busy(struct mrc_qp *qp)
{
	qp->rtx_quiet = false;
}

/* True if rtx has tracking memory for new packets (borrowed now if need be). */
static inline bool
mrc_qp_trk_ready(struct mrc_qp *qp)
{
	return likely(mrc_rel_tx_has_trk(qp->rtx)) || mrc_qp_trk_get_slow(qp);
}

/*
 * The per-path counters of the path `ev` takes (mrc_path_stats.h), or NULL:
 * no block, or an EV whose plane the block does not have (a stray echo).
 */
static inline struct mrc_path_counters *
mrc_qp_path(const struct mrc_qp *qp, uint32_t ev)
{
	const unsigned int plane = mrc_ev_layout_plane(&qp->layout, ev);
	unsigned int t1 = qp->path_direct;

	if (qp->path_cnt == NULL || plane >= qp->path_planes)
		return NULL;
	if (qp->path_n_t1 != 0) {
		/* uplink % n_t1 (Lemire's fastmod): two multiplications, not a division */
		const uint64_t low = qp->path_t1_mul * mrc_ev_layout_uplink(&qp->layout, ev);

		t1 = (unsigned int)(((unsigned __int128)low * qp->path_n_t1) >> 64);
		if (t1 > qp->path_direct)
			t1 = qp->path_direct;
	}
	return &qp->path_cnt[plane * (qp->path_direct + 1u) + t1];
}

/* mrc_qp_tx.c */
void mrc_qp_queue_ctrl(struct mrc_qp *qp, uint8_t kind, uint8_t m_or_reason, bool pr, uint32_t psn,
	uint32_t ev, uint16_t ts);

#endif /* MRC_QP_PRIV_H */
