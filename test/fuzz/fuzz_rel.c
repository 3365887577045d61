/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The mrcd authors
 */

/*
 * Fuzz the requester's reliability state with arbitrary sequences of sends,
 * SACKs (wild cumulative ACKs, offsets and bitmaps), NACKs (any reason and
 * PSN), time steps and resends. After every step the invariants must hold:
 *  - nothing is acknowledged that was never sent, and nothing twice;
 *  - packets in flight plus those awaiting resend fit the negotiated window
 *    and never exceed what was sent and not yet acknowledged; nothing new
 *    is sent beyond the window the latest SACK advertised (dynamic MPR);
 *  - snd_una never passes snd_nxt, and a refused SACK changes nothing.
 */

#include <string.h>

#include "fuzz.h"
#include "mrc_rel_tx.h"
#include "mrc_seq.h"

#define START_PSN 0xfffe00u
#define MAX_SENT  4096

struct state {
	uint8_t acked[MAX_SENT];
	uint32_t sent;
};

static uint32_t
offset_of(uint32_t psn)
{
	return (uint32_t)mrc_psn_diff(psn, START_PSN);
}

static void
on_acked(void *ctx, uint32_t psn, uint32_t ev, uint32_t cookie, uint16_t len, uint8_t tx_count)
{
	struct state *st = ctx;
	uint32_t o = offset_of(psn);

	(void)ev;
	(void)len;
	(void)tx_count;
	FUZZ_CHECK(o < st->sent, "acked PSN 0x%06x never sent", psn);
	FUZZ_CHECK(cookie == o, "cookie %u for offset %u", cookie, o);
	FUZZ_CHECK(st->acked[o] == 0, "PSN 0x%06x acknowledged twice", psn);
	st->acked[o] = 1;
}

static void
on_lost(void *ctx, uint32_t psn, uint32_t ev, uint32_t cookie, uint16_t len, enum mrc_rel_loss why)
{
	(void)cookie;
	(void)len;
	struct state *st = ctx;
	uint32_t o = offset_of(psn);

	(void)ev;
	FUZZ_CHECK(o < st->sent && !st->acked[o], "lost PSN 0x%06x not in flight", psn);
	FUZZ_CHECK(why < MRC_REL_LOSS_MAX, "loss reason %d", why);
}

static const struct mrc_rel_tx_ops ops = {.acked = on_acked, .lost = on_lost};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t mem[1 << 16];
	static struct state st;
	struct mrc_rel_tx *tx = (struct mrc_rel_tx *)mem;
	struct mrc_rel_tx_cfg cfg;
	uint64_t now = 0;
	size_t i = 0;

	mrc_rel_tx_cfg_defaults(&cfg, 1000000000ull);
	cfg.mpr = 1; /* a 128-PSN window, so wild inputs reach its edges */
	cfg.n_ev_slots = 8;
	cfg.retry_exp = 3;
	cfg.dyn_mpr = true; /* SACKs move the window below the negotiated one */
	cfg.ts_shift = 7;   /* and echoes may name resent copies */
	if (mrc_rel_tx_memsize(&cfg) > sizeof(mem))
		return 0;
	FUZZ_CHECK(mrc_rel_tx_init(tx, &cfg, START_PSN, 0) == 0, "init");
	memset(&st, 0, sizeof(st));

	while (i + 1 < size) {
		uint8_t op = data[i++] % 6;
		const uint8_t *a = data + i;
		size_t left = size - i;

		switch (op) {
		case 0: /* send new on an EV */
			if (mrc_rel_tx_can_send(tx) && st.sent < MAX_SENT) {
				/* The value varies for one slot, as when an EV is replaced. */
				uint32_t psn =
					mrc_rel_tx_sent_new(tx, a[0] % 8, a[0], 100, st.sent, now);

				FUZZ_CHECK(offset_of(psn) == st.sent, "PSNs are consecutive");
				st.sent++;
			}
			i += 1;
			break;
		case 1: { /* SACK */
			struct mrc_sack_view s;
			struct mrc_rel_ack_info info;
			uint32_t una = tx->snd_una, nxt = tx->snd_nxt, inflight = tx->n_inflight;

			if (left < 13)
				return 0;
			memset(&s, 0, sizeof(s));
			/* cumulative ACK near the window, offsets and bitmap anything */
			s.cack_psn = mrc_psn_add(tx->snd_una, (uint32_t)(int8_t)a[0] - 1);
			s.sack_offset = (int16_t)(int8_t)a[1];
			s.ack_psn_offset = (int16_t)(int8_t)a[2];
			memcpy(&s.sack_bitmap, a + 3, 8);
			s.pr = a[11] & 1;
			s.mpr = a[11] >> 6; /* 0 (no news), 1, or more than agreed */
			s.ts_echo = (uint16_t)(a[11] >> 1 & 3); /* 0 (none) or a low stamp */
			if (mrc_rel_tx_on_sack(tx, &s, now, &ops, &st, &info) != 0)
				FUZZ_CHECK(tx->snd_una == una && tx->snd_nxt == nxt &&
						   tx->n_inflight == inflight,
					"a refused SACK changed the state");
			i += 12;
			break;
		}
		case 2: { /* NACK */
			struct mrc_nack_view n;

			if (left < 3)
				return 0;
			memset(&n, 0, sizeof(n));
			n.reason = a[0];
			n.nack_psn = mrc_psn_add(tx->snd_una, (uint32_t)(int8_t)a[1]);
			mrc_rel_tx_on_nack(tx, &n, now, &ops, &st);
			i += 2;
			break;
		}
		case 3: /* time passes */
			now += (uint64_t)a[0] * 997;
			mrc_rel_tx_poll(tx, now, &ops, &st);
			i += 1;
			break;
		case 4: { /* resend the oldest loss */
			uint32_t psn, cookie, ev;
			uint16_t len;

			if (mrc_rel_tx_next_retx(tx, &psn, &ev, &cookie, &len) == 0) {
				FUZZ_CHECK(cookie == offset_of(psn), "resend of the wrong packet");
				FUZZ_CHECK(
					!st.acked[offset_of(psn)], "resend of a delivered packet");
				mrc_rel_tx_sent_retx(
					tx, psn, (uint16_t)((ev + 1) % 8), ev + 1, now);
			}
			i += 1;
			break;
		}
		default: /* probe */
			if (mrc_rel_tx_probe_wanted(tx))
				mrc_rel_tx_probe_sent(tx, now);
			i += 1;
			break;
		}
		/* Invariants after every step. */
		uint32_t outstanding = (uint32_t)mrc_psn_diff(tx->snd_nxt, tx->snd_una);
		uint32_t unacked = 0;

		FUZZ_CHECK(mrc_psn_diff(tx->snd_nxt, tx->snd_una) >= 0, "snd_una passed snd_nxt");
		FUZZ_CHECK(outstanding <= tx->window_max, "%u outstanding > window", outstanding);
		FUZZ_CHECK(!mrc_rel_tx_can_send(tx) || outstanding < tx->window,
			"may send with %u outstanding in a window of %u", outstanding, tx->window);
		for (uint32_t k = offset_of(tx->snd_una); k < st.sent; k++)
			unacked += !st.acked[k];
		FUZZ_CHECK(tx->n_inflight + tx->n_lost == unacked, "%u + %u tracked, %u unacked",
			tx->n_inflight, tx->n_lost, unacked);
		for (uint32_t k = 0; k < offset_of(tx->snd_una); k++)
			FUZZ_CHECK(st.acked[k], "snd_una passed undelivered PSN offset %u", k);
	}
	return 0;
}
