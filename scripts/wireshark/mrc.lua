-- SPDX-License-Identifier: BSD-3-Clause
-- Copyright (c) 2026 The mrcd authors
--
-- Wireshark dissector for MRC (Multipath Reliable Connection), the RoCEv2
-- extension carried on UDP port 4791. Byte layouts: lib/wire/mrc_wire.h.
--
-- What it adds: Wireshark's InfiniBand dissector (packet-infiniband.c, the
-- "RRoCE" handle on udp.port 4791) still decodes the BTH, so
-- infiniband.bth.opcode/destqp/psn keep working. For MRC opcodes (0xC6-0xCB,
-- 0xD1, 0xD8, 0xD9, 0xDC-0xDE, IBTA's manufacturer-specific range) it
-- prints "Opcode: Unknown" and dumps everything after the BTH, ICRC
-- included, as one "Unknown/Vendor Specific Data" blob (no RETH, no AETH,
-- no ICRC item, and it never verifies ICRCs, not even for standard
-- opcodes). This dissector adds an "MRC" tree with the MRC headers (METH,
-- TSETH, RETH, ImmDt, AETH, SETH+CC_STATE, NETH, PETH, ERTH, EETH), the
-- BTH bits MRC defines (RTX, TS), payload length, pad and the ICRC, which
-- it verifies. All fields are under "mrc." (mrc.opcode, mrc.seth.cack_psn,
-- mrc.neth.reason, mrc.icrc.status, ...); see the ProtoField list below.
--
-- How it hooks in: it takes over udp.port 4791 and calls the InfiniBand
-- handle that was registered there first, then adds its own tree. (The
-- InfiniBand dissector offers a heuristic table, "infiniband.payload", but
-- only calls it for payloads of standard opcodes; for vendor opcodes it
-- goes straight to the vendor blob, so there is nothing to hang off.)
-- Non-MRC opcodes (plain RoCEv2) are left to the InfiniBand dissector alone.
--
-- Caveat, and why there is also a heuristic: MRC puts 16 bits of the
-- per-packet entropy value (EV) in the UDP *source* port, so the source
-- port is any value 0-65535. Wireshark's UDP dissector tries the lower of
-- the two ports first, so an EV whose low 16 bits are, say, 7 or 53 is
-- decoded as Echo or DNS instead of RoCE. To make every packet decode,
-- enable UDP's "Try heuristic sub-dissectors first" preference: this
-- script registers a UDP heuristic (destination port 4791 + an MRC opcode)
-- that then wins before the port table is consulted.
--
-- Usage:
--   tshark -X lua_script:scripts/wireshark/mrc.lua \
--          -o udp.try_heuristic_first:TRUE -r file.pcap -V
--   display filters: mrc, mrc.opcode == 0xdc, mrc.neth.reason == 1,
--                    mrc.bth.rtx, mrc.icrc.status == 0 (bad), mrc.trimmed,
--                    mrc.seth.sacked_psn == 1234
--   preferences (-o mrc.NAME:VALUE): verify_icrc, trimmed_dscps ("12,16"),
--                    sack_lsb_first
-- GUI: copy this file to ~/.local/lib/wireshark/plugins/ (Windows:
-- %APPDATA%\Wireshark\plugins), restart Wireshark (or Analyze > Reload Lua
-- Plugins) and tick Edit > Preferences > Protocols > UDP > "Try heuristic
-- sub-dissectors first". Preferences of its own: Protocols > MRC.
-- Running as root: tshark/Wireshark only run user Lua scripts as root when
-- the system init.lua (/usr/share/wireshark/init.lua) has
-- run_user_scripts_when_superuser = true, which is the default since
-- Wireshark 2.x (Debian 12 ships it); WIRESHARK_DATA_DIR is ignored as root.
--
-- Expected noise: UDP's "Illegal checksum value (0)". MRC sends a zero UDP
-- checksum over IPv6 by default (mrc_wire_cfg.udp_checksum, RFC 6936
-- style) and relies on the ICRC, which this dissector checks.
--
-- Tested with Wireshark/tshark 4.0 (Lua 5.2, bit32).

local mrc = Proto("mrc", "Multipath Reliable Connection")

local ROCEV2_PORT = 4791

-- ---------------------------------------------------------------------------
-- Value names (mrc_wire.h)

local OPCODES = {
    [0xC6] = "WRITE_FIRST", [0xC7] = "WRITE_MIDDLE", [0xC8] = "WRITE_LAST",
    [0xC9] = "WRITE_LAST_IMM", [0xCA] = "WRITE_ONLY", [0xCB] = "WRITE_ONLY_IMM",
    [0xD1] = "ACK", [0xD8] = "EP_REQUEST", [0xD9] = "EP_RESPONSE",
    [0xDC] = "SACK", [0xDD] = "NACK", [0xDE] = "PROBE",
}
local IMM_OPCODES = { [0xC9] = true, [0xCB] = true }

-- MRC_NACK_REASONS in mrc_wire.h: code -> name, and a one-line meaning.
local NACK_REASONS = {
    [0x01] = "TRIMMED", [0x02] = "TRIMMED_LASTHOP", [0x06] = "NO_BITMAP",
    [0x07] = "NO_PKT_BUFFER", [0x0A] = "NO_RESOURCE",
    [0x0B] = "PSN_OOR_WINDOW", [0x19] = "UNEXP_EVENT", [0x60] = "PSN_SEQ_ERR",
}
local NACK_HELP = {
    [0x01] = "payload trimmed by a switch; path blamed (EV -> SKIP)",
    [0x02] = "trimmed at the last hop (incast); path not blamed",
    [0x06] = "responder has no PSN-tracking resource",
    [0x07] = "responder has no packet buffer",
    [0x0A] = "responder out of resources",
    [0x0B] = "PSN outside the responder's MPR window",
    [0x19] = "unexpected event: QP goes to error",
    [0x60] = "go-back-N: PSN out of sequence; resend from nack_psn",
}
local SACK_M = { [0] = "NONE", [1] = "SKIP_ONCE", [2] = "ALWAYS_SKIP",
                 [3] = "reserved" }
local EP_OPS = { [0] = "PORT_STATUS", [1] = "EV_PROBE", [2] = "FLOW_RECOVER",
                 [3] = "reserved" }
-- EFRH kind (op 2, ours: doc/protocol.md "Flow recovery").
local EFRH_KINDS = { [0] = "FAILED", [1] = "MAKE", [2] = "GIVE_UP" }
-- IBTA AETH syndrome bits 6..5 (bit 7 reserved).
local AETH_TYPES = { [0] = "ACK", [1] = "RNR NAK", [2] = "reserved",
                     [3] = "NAK" }
-- Same numbering as Wireshark's proto_checksum_vals, so filters read alike.
local CHECKSUM_STATUS = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }
local ICRC_BAD, ICRC_GOOD, ICRC_UNVERIFIED = 0, 1, 2

-- ---------------------------------------------------------------------------
-- Fields

-- BTH: only what MRC adds; the InfiniBand dissector shows the rest.
local f_opcode  = ProtoField.uint8("mrc.opcode", "Opcode", base.HEX, OPCODES)
local f_padcnt  = ProtoField.uint8("mrc.bth.padcnt", "Pad count", base.DEC, nil, 0x30)
local f_rtx     = ProtoField.bool("mrc.bth.rtx", "RTX (retransmission)", 8, nil, 0x20)
local f_ts      = ProtoField.bool("mrc.bth.ts", "TS (TSETH present)", 8, nil, 0x10)

local f_meth_rqmsn = ProtoField.uint16("mrc.meth.rqmsn", "RQMSN", base.DEC)
local f_meth_msn   = ProtoField.uint16("mrc.meth.msn", "MSN", base.DEC)

-- TSETH / PETH / ERTH / EETH share the "ts | TSR rsvd FTYPE" word.
local function ts_fields(prefix, ts_abbr, ts_name)
    return ProtoField.uint16(prefix .. "." .. ts_abbr, ts_name, base.DEC),
           ProtoField.bool(prefix .. ".tsr", "TSR (timestamp resolution)", 16, nil, 0x8000),
           ProtoField.uint16(prefix .. ".ftype", "FTYPE (format type)", base.DEC, nil, 0x000F),
           ProtoField.uint16(prefix .. ".ts_reserved", "Reserved", base.HEX, nil, 0x7FF0)
end
local f_tseth_ts, f_tseth_tsr, f_tseth_ftype, f_tseth_rsvd =
    ts_fields("mrc.tseth", "ts", "TX timestamp")

local f_reth_va      = ProtoField.uint64("mrc.reth.va", "Virtual address", base.HEX)
local f_reth_rkey    = ProtoField.uint32("mrc.reth.rkey", "R_Key", base.HEX)
local f_reth_dma_len = ProtoField.uint32("mrc.reth.dma_len", "DMA length", base.DEC)
local f_immdt        = ProtoField.uint32("mrc.immdt", "Immediate data", base.HEX)

local f_aeth_syndrome = ProtoField.uint8("mrc.aeth.syndrome", "Syndrome", base.HEX)
local f_aeth_type     = ProtoField.uint8("mrc.aeth.type", "Type", base.DEC, AETH_TYPES, 0x60)
local f_aeth_value    = ProtoField.uint8("mrc.aeth.value", "Credits / timer / NAK code",
    base.DEC, nil, 0x1F)
local f_aeth_msn      = ProtoField.uint24("mrc.aeth.msn", "MSN", base.DEC)

-- First 16 bits of SETH/NETH/PETH: UET PDS prologue type(4) | next header(5).
local function pds_fields(prefix)
    return ProtoField.uint16(prefix .. ".type", "PDS type", base.DEC, nil, 0xF000),
           ProtoField.uint16(prefix .. ".nh", "PDS next header", base.DEC, nil, 0x0F80)
end

local f_seth_type, f_seth_nh = pds_fields("mrc.seth")
local f_seth_m      = ProtoField.uint16("mrc.seth.m", "M (multipath verdict)",
    base.DEC, SACK_M, 0x0060)
local f_seth_pr     = ProtoField.bool("mrc.seth.pr", "PR (answers a reliability probe)",
    16, nil, 0x0002)
local f_seth_apo    = ProtoField.int16("mrc.seth.ack_psn_offset", "ACK PSN offset", base.DEC)
local f_seth_ev     = ProtoField.uint32("mrc.seth.entropy", "Entropy (EV)", base.HEX)
local f_seth_spdcid = ProtoField.uint16("mrc.seth.spdcid", "SPDCID", base.HEX)
local f_seth_dpdcid = ProtoField.uint16("mrc.seth.dpdcid", "DPDCID", base.HEX)
local f_seth_cack   = ProtoField.uint24("mrc.seth.cack_psn", "Cumulative ACK PSN", base.DEC)
local f_seth_cctype = ProtoField.uint8("mrc.seth.cc_type", "CC type", base.DEC, nil, 0xF0)
local f_seth_ccflg  = ProtoField.uint8("mrc.seth.cc_flags", "CC flags", base.HEX, nil, 0x0F)
local f_seth_mpr    = ProtoField.uint8("mrc.seth.mpr", "MPR (x128 PSNs)", base.DEC)
local f_seth_soff   = ProtoField.int16("mrc.seth.sack_offset", "SACK offset", base.DEC)
local f_seth_bitmap = ProtoField.uint64("mrc.seth.sack_bitmap", "SACK bitmap", base.HEX)
local f_seth_trig   = ProtoField.uint24("mrc.seth.trigger_psn", "Triggering PSN", base.DEC)
local f_seth_base   = ProtoField.uint24("mrc.seth.sack_base_psn", "Bitmap base PSN", base.DEC)
local f_seth_sacked = ProtoField.uint24("mrc.seth.sacked_psn", "Selectively ACKed PSN", base.DEC)

local f_cc_ts_echo = ProtoField.uint16("mrc.cc.ts_echo", "Echoed TX timestamp", base.DEC)
local f_cc_ooo     = ProtoField.uint16("mrc.cc.ooo_count", "Out-of-order count",
    base.DEC, nil, 0x7FFF)
local f_cc_rc      = ProtoField.bool("mrc.cc.rc", "R_C (restore cwnd)", 32, nil, 0x80000000)
local f_cc_pen     = ProtoField.uint32("mrc.cc.cwnd_pen", "Receiver cwnd penalty",
    base.DEC, nil, 0x7F000000)
local f_cc_rcvd    = ProtoField.uint32("mrc.cc.rcvd_bytes", "Received bytes (x256)",
    base.DEC, nil, 0x00FFFFFF)

local f_neth_type, f_neth_nh = pds_fields("mrc.neth")
local f_neth_reason = ProtoField.uint8("mrc.neth.reason", "NACK reason", base.HEX, NACK_REASONS)
local f_neth_vendor = ProtoField.uint8("mrc.neth.vendor", "Vendor info", base.HEX)
local f_neth_ev     = ProtoField.uint32("mrc.neth.entropy", "Entropy (EV)", base.HEX)
local f_neth_spdcid = ProtoField.uint16("mrc.neth.spdcid", "SPDCID", base.HEX)
local f_neth_dpdcid = ProtoField.uint16("mrc.neth.dpdcid", "DPDCID", base.HEX)
local f_neth_psn    = ProtoField.uint24("mrc.neth.nack_psn", "NACKed PSN", base.DEC)
local f_neth_cctype = ProtoField.uint8("mrc.neth.cc_type", "CC type", base.DEC, nil, 0xF0)
local f_neth_ccflg  = ProtoField.uint8("mrc.neth.cc_flags", "CC flags", base.HEX, nil, 0x0F)
local f_neth_ts     = ProtoField.uint16("mrc.neth.ts_echo", "Echoed TX timestamp", base.DEC)

local f_peth_type, f_peth_nh = pds_fields("mrc.peth")
local f_peth_vendor = ProtoField.uint8("mrc.peth.vendor", "Vendor info", base.HEX)
local f_peth_id     = ProtoField.uint16("mrc.peth.probe_id", "Probe ID", base.DEC)
local f_peth_spdcid = ProtoField.uint16("mrc.peth.spdcid", "SPDCID", base.HEX)
local f_peth_dpdcid = ProtoField.uint16("mrc.peth.dpdcid", "DPDCID", base.HEX)
local f_peth_ts, f_peth_tsr, f_peth_ftype, f_peth_rsvd =
    ts_fields("mrc.peth", "ts", "TX timestamp")

local f_erth_op     = ProtoField.uint8("mrc.erth.op", "Operation", base.DEC, EP_OPS, 0xC0)
local f_erth_vendor = ProtoField.uint8("mrc.erth.vendor", "Vendor info", base.HEX)
local f_erth_req    = ProtoField.uint16("mrc.erth.req_id", "Request ID", base.HEX)
local f_erth_mask   = ProtoField.uint32("mrc.erth.port_status_mask", "Port status mask", base.HEX)
-- bytes 8-11: the sender's epoch (mrcd's choice; reserved in the public descriptions)
local f_erth_epoch  = ProtoField.uint32("mrc.erth.epoch", "Sender epoch", base.HEX)
local f_erth_ts, f_erth_tsr, f_erth_ftype, f_erth_rsvd =
    ts_fields("mrc.erth", "ts", "TX timestamp")

local f_eeth_op     = ProtoField.uint8("mrc.eeth.op", "Operation", base.DEC, EP_OPS, 0xC0)
local f_eeth_svc_ok = ProtoField.bool("mrc.eeth.svc_valid", "S (service time valid)", 8, nil, 0x02)
local f_eeth_vendor = ProtoField.uint8("mrc.eeth.vendor", "Vendor info", base.HEX)
local f_eeth_req    = ProtoField.uint16("mrc.eeth.req_id", "Echoed request ID", base.HEX)
local f_eeth_mask   = ProtoField.uint32("mrc.eeth.port_status_mask", "Responder port status mask",
    base.HEX)
local f_eeth_svc    = ProtoField.uint32("mrc.eeth.svc_time_ns", "Responder service time (ns)",
    base.DEC)
local f_eeth_ts, f_eeth_tsr, f_eeth_ftype, f_eeth_rsvd =
    ts_fields("mrc.eeth", "ts_echo", "Echoed TX timestamp")
local f_eeth_tail   = ProtoField.bytes("mrc.eeth.reserved", "Reserved")
local f_efrh_kind   = ProtoField.uint8("mrc.efrh.kind", "Kind", base.DEC, EFRH_KINDS)
local f_efrh_status = ProtoField.uint8("mrc.efrh.status", "Status (0 yes, else why not)",
    base.DEC)
local f_efrh_life   = ProtoField.uint16("mrc.efrh.life", "Pair (life)", base.DEC)
local f_efrh_flow   = ProtoField.uint32("mrc.efrh.flow", "Cluster flow", base.DEC)
local f_efrh_spare  = ProtoField.uint32("mrc.efrh.spare", "Spare pair", base.DEC)
local f_efrh_rsvd   = ProtoField.uint32("mrc.efrh.reserved", "Reserved", base.HEX)
local f_efrh_seq    = ProtoField.uint64("mrc.efrh.seq", "Next message number", base.DEC)

-- One FT_NONE item per header: its subtree, and "mrc.seth" etc. as filters.
local h_meth  = ProtoField.none("mrc.meth", "METH")
local h_tseth = ProtoField.none("mrc.tseth", "TSETH")
local h_reth  = ProtoField.none("mrc.reth", "RETH")
local h_aeth  = ProtoField.none("mrc.aeth", "AETH")
local h_seth  = ProtoField.none("mrc.seth", "SETH (reliability SACK)")
local h_cc    = ProtoField.none("mrc.cc", "CC_STATE")
local h_neth  = ProtoField.none("mrc.neth", "NETH (reliability NACK)")
local h_peth  = ProtoField.none("mrc.peth", "PETH (reliability probe)")
local h_erth  = ProtoField.none("mrc.erth", "ERTH (endpoint request)")
local h_eeth  = ProtoField.none("mrc.eeth", "EETH (endpoint response)")
local h_efrh  = ProtoField.none("mrc.efrh", "EFRH (endpoint flow recovery)")

local f_payload     = ProtoField.bytes("mrc.payload", "Payload")
local f_payload_len = ProtoField.uint32("mrc.payload_len", "Payload length", base.DEC)
local f_pad         = ProtoField.bytes("mrc.pad", "Pad")
local f_trimmed     = ProtoField.bool("mrc.trimmed", "Trimmed by a switch (no ICRC)")
local f_trailing    = ProtoField.bytes("mrc.trailing", "Unexpected trailing bytes")
-- The ICRC is a CRC-32 stored little-endian (like the Ethernet FCS and
-- Linux rxe); shown here as that CRC value, i.e. what zlib.crc32 returns.
-- infiniband.invariant.crc, for standard opcodes, shows the same 4 bytes
-- read big-endian.
local f_icrc          = ProtoField.uint32("mrc.icrc", "ICRC", base.HEX)
local f_icrc_status   = ProtoField.uint8("mrc.icrc.status", "ICRC status",
    base.DEC, CHECKSUM_STATUS)
local f_icrc_computed = ProtoField.uint32("mrc.icrc.computed", "Computed ICRC", base.HEX)

mrc.fields = {
    h_meth, h_tseth, h_reth, h_aeth, h_seth, h_cc, h_neth, h_peth, h_erth, h_eeth, h_efrh,
    f_opcode, f_padcnt, f_rtx, f_ts,
    f_meth_rqmsn, f_meth_msn,
    f_tseth_ts, f_tseth_tsr, f_tseth_ftype, f_tseth_rsvd,
    f_reth_va, f_reth_rkey, f_reth_dma_len, f_immdt,
    f_aeth_syndrome, f_aeth_type, f_aeth_value, f_aeth_msn,
    f_seth_type, f_seth_nh, f_seth_m, f_seth_pr, f_seth_apo, f_seth_ev,
    f_seth_spdcid, f_seth_dpdcid, f_seth_cack, f_seth_cctype, f_seth_ccflg,
    f_seth_mpr, f_seth_soff, f_seth_bitmap, f_seth_trig, f_seth_base,
    f_seth_sacked,
    f_cc_ts_echo, f_cc_ooo, f_cc_rc, f_cc_pen, f_cc_rcvd,
    f_neth_type, f_neth_nh, f_neth_reason, f_neth_vendor, f_neth_ev,
    f_neth_spdcid, f_neth_dpdcid, f_neth_psn, f_neth_cctype, f_neth_ccflg,
    f_neth_ts,
    f_peth_type, f_peth_nh, f_peth_vendor, f_peth_id, f_peth_spdcid,
    f_peth_dpdcid, f_peth_ts, f_peth_tsr, f_peth_ftype, f_peth_rsvd,
    f_erth_op, f_erth_vendor, f_erth_req, f_erth_mask, f_erth_epoch, f_erth_ts, f_erth_tsr,
    f_erth_ftype, f_erth_rsvd,
    f_eeth_op, f_eeth_svc_ok, f_eeth_vendor, f_eeth_req, f_eeth_mask,
    f_eeth_svc, f_eeth_ts, f_eeth_tsr, f_eeth_ftype, f_eeth_rsvd, f_eeth_tail,
    f_efrh_kind, f_efrh_status, f_efrh_life, f_efrh_flow, f_efrh_spare, f_efrh_rsvd,
    f_efrh_seq,
    f_payload, f_payload_len, f_pad, f_trimmed, f_trailing,
    f_icrc, f_icrc_status, f_icrc_computed,
}

local e_short    = ProtoExpert.new("mrc.short", "Packet too short for its MRC headers",
                                   expert.group.MALFORMED, expert.severity.ERROR)
local e_icrc_bad = ProtoExpert.new("mrc.icrc.bad", "Bad ICRC",
                                   expert.group.CHECKSUM, expert.severity.ERROR)
local e_trimmed  = ProtoExpert.new("mrc.trimmed.expert", "Trimmed packet: payload cut, no ICRC",
                                   expert.group.SEQUENCE, expert.severity.NOTE)
local e_reserved = ProtoExpert.new("mrc.reserved", "Reserved value",
                                   expert.group.PROTOCOL, expert.severity.WARN)
local e_snaplen  = ProtoExpert.new("mrc.snaplen", "Not captured (snapshot length)",
                                   expert.group.UNDECODED, expert.severity.NOTE)
local e_trailing = ProtoExpert.new("mrc.trailing.expert",
                                   "Bytes between the MRC header and the ICRC",
                                   expert.group.MALFORMED, expert.severity.WARN)
mrc.experts = { e_short, e_icrc_bad, e_trimmed, e_reserved, e_snaplen, e_trailing }

-- ---------------------------------------------------------------------------
-- Preferences

mrc.prefs.verify_icrc = Pref.bool("Verify the ICRC", true,
    "Recompute the RoCEv2 ICRC over the (inner) IPv6 header onward and " ..
    "compare it with the one in the packet")
mrc.prefs.trimmed_dscps = Pref.string("Trimmed DSCP values", "12,16",
    "Comma-separated DSCPs that switches write into packets they trim " ..
    "(DSCP_TRIMMED, DSCP_TRIMMED_LASTHOP; mrc_wire_cfg defaults 12 and 16). " ..
    "A data packet whose outermost IPv6 header carries one of them has no " ..
    "ICRC: whatever follows its headers is what the switch left of the payload")
mrc.prefs.sack_lsb_first = Pref.bool("SACK bitmap bit 0 is the LSB", true,
    "Bit i of the 64-bit SACK bitmap stands for PSN base + i. When set, " ..
    "bit 0 is the least significant bit of the big-endian field (S5's " ..
    "choice, mrc_wire_cfg default); when clear, the most significant bit")

local trimmed_dscp = {}
local function parse_trimmed_dscps()
    trimmed_dscp = {}
    for v in string.gmatch(mrc.prefs.trimmed_dscps, "%d+") do
        trimmed_dscp[tonumber(v)] = true
    end
end
parse_trimmed_dscps()
function mrc.prefs_changed() parse_trimmed_dscps() end

local dscp_field = Field.new("ipv6.tclass.dscp")

-- DSCP of the outermost IPv6 header: the one switches rewrite when trimming.
local function outer_dscp()
    local f = dscp_field()
    return f and f.value
end

-- ---------------------------------------------------------------------------
-- ICRC (doc/protocol.md, "ICRC"): CRC-32 (reflected, poly 0xEDB88320, the Ethernet
-- FCS / zlib function) over 8 bytes of 0xFF (the masked LRH), then the
-- packet from the IPv6 header that precedes UDP through the end of the
-- payload and pad, with the variant fields set to ones: IPv6 traffic class
-- and flow label, hop limit, UDP checksum, BTH byte 4.

local band, bxor, rshift = bit32.band, bit32.bxor, bit32.rshift
local CRC_TABLE = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if band(c, 1) == 1 then c = bxor(rshift(c, 1), 0xEDB88320)
        else c = rshift(c, 1) end
    end
    CRC_TABLE[i] = c
end

local function crc32(s)
    local crc = 0xFFFFFFFF
    for i = 1, #s do
        crc = bxor(CRC_TABLE[band(bxor(crc, s:byte(i)), 0xFF)], rshift(crc, 8))
    end
    return bxor(crc, 0xFFFFFFFF)
end

local ipv6_field = Field.new("ipv6")

-- Returns the CRC-32 the ICRC of this packet should hold, or nil when the
-- bytes in front of the UDP payload cannot be reached or are not
-- "IPv6 (next header UDP) | UDP" (then the ICRC is shown unverified).
-- 'icrc_at' is the ICRC's offset within the UDP payload tvb.
local function compute_icrc(tvb, icrc_at)
    local bth_abs = tvb:offset()
    local ip
    for _, fi in ipairs({ ipv6_field() }) do
        -- The last IPv6 header that starts before this UDP payload: the
        -- inner one in SRv6 (IPv6-in-IPv6) mode, the only one otherwise.
        if fi.offset + 48 <= bth_abs then ip = fi end
    end
    if ip == nil or ip.source == nil or ip.offset + 48 ~= bth_abs then
        return nil
    end
    local src = ip.source
    if src:len() < bth_abs + icrc_at then return nil end
    local hdr = src:range(ip.offset, 48):raw()
    if rshift(hdr:byte(1), 4) ~= 6 or hdr:byte(7) ~= 17 then return nil end
    local masked = string.rep("\255", 8)
        .. string.char(bit32.bor(hdr:byte(1), 0x0F)) .. "\255\255\255"
        .. hdr:sub(5, 7) .. "\255"            -- payload length, NH; hop limit
        .. hdr:sub(9, 46) .. "\255\255"       -- addresses, UDP ports+len; csum
        .. tvb:range(0, 4):raw() .. "\255"    -- BTH 0-3; byte 4 masked
        .. tvb:range(5, icrc_at - 5):raw()
    return crc32(masked)
end

-- ---------------------------------------------------------------------------
-- Header parsers. The caller has checked (need) that the whole fixed header
-- is captured; each takes (tvb, off, tree, info words) and returns the
-- offset after its header.

local function need(tvb, off, n, item, what)
    if tvb:len() >= off + n then return true end
    if tvb:reported_len() >= off + n then
        -- Cut by the capture's snapshot length, not by the sender.
        item:add_proto_expert_info(e_snaplen, what .. " not captured")
    else
        item:add_proto_expert_info(e_short,
            string.format("%s needs %d bytes at offset %d, %d left", what, n,
                          off, tvb:reported_len() - off))
    end
    return false
end

-- "ts | TSR rsvd(11) FTYPE(4)" word shared by TSETH, PETH, ERTH and EETH.
local function add_ts_word(t, tvb, off, f_t, f_tsr, f_ftype, f_rsvd)
    t:add(f_t, tvb(off, 2))
    t:add(f_tsr, tvb(off + 2, 2))
    t:add(f_ftype, tvb(off + 2, 2))
    t:add(f_rsvd, tvb(off + 2, 2))
end

local function port_list(mask)
    local up = {}
    for p = 1, 32 do
        if band(mask, bit32.lshift(1, p - 1)) ~= 0 then up[#up + 1] = tostring(p) end
    end
    return #up > 0 and table.concat(up, ",") or "none"
end

local function psn_add(a, b) return (a + b) % 0x1000000 end

local function dissect_seth(tvb, off, tree, info)
    local t = tree:add(h_seth, tvb(off, 28))
    local hdr = tvb(off, 2):uint()
    t:add(f_seth_type, tvb(off, 2))
    t:add(f_seth_nh, tvb(off, 2))
    local m_item = t:add(f_seth_m, tvb(off, 2))
    t:add(f_seth_pr, tvb(off, 2))
    t:add(f_seth_apo, tvb(off + 2, 2))
    t:add(f_seth_ev, tvb(off + 4, 4))
    t:add(f_seth_spdcid, tvb(off + 8, 2))
    t:add(f_seth_dpdcid, tvb(off + 10, 2))
    t:add(f_seth_cack, tvb(off + 13, 3))
    t:add(f_seth_cctype, tvb(off + 16, 1))
    t:add(f_seth_ccflg, tvb(off + 16, 1))
    local mpr = tvb(off + 17, 1):uint()
    t:add(f_seth_mpr, tvb(off + 17, 1)):append_text(
        mpr == 0 and " (not dynamic)" or string.format(" (%d PSNs)", mpr * 128))
    t:add(f_seth_soff, tvb(off + 18, 2))
    local bm_item = t:add(f_seth_bitmap, tvb(off + 20, 8))

    local m = band(rshift(hdr, 5), 3)
    if m == 3 then m_item:add_proto_expert_info(e_reserved, "SACK M = 3 is reserved") end
    local cack = tvb(off + 13, 3):uint()
    local trig = psn_add(cack, tvb(off + 2, 2):int())
    local base_psn = psn_add(cack, tvb(off + 18, 2):int())
    t:add(f_seth_trig, trig):set_generated()
    t:add(f_seth_base, base_psn):set_generated()
    -- One generated item per set bitmap bit, so "mrc.seth.sacked_psn == X"
    -- finds the SACKs that cover PSN X.
    local hi, lo = tvb(off + 20, 4):uint(), tvb(off + 24, 4):uint()
    local n = 0
    for i = 0, 63 do
        local bit = mrc.prefs.sack_lsb_first and i or (63 - i)
        local word = bit < 32 and lo or hi
        if band(rshift(word, bit % 32), 1) == 1 then
            bm_item:add(f_seth_sacked, psn_add(base_psn, i)):set_generated()
            n = n + 1
        end
    end
    bm_item:append_text(string.format(" (%d PSNs)", n))
    info[#info + 1] = string.format("CACK=%d", cack)
    info[#info + 1] = string.format("trig=%d", trig)
    if m ~= 0 then info[#info + 1] = "M=" .. SACK_M[m] end
    if band(hdr, 0x0002) ~= 0 then info[#info + 1] = "PR" end
    return off + 28
end

local function dissect_cc_state(tvb, off, tree)
    local t = tree:add(h_cc, tvb(off, 8))
    t:add(f_cc_ts_echo, tvb(off, 2))
    t:add(f_cc_ooo, tvb(off + 2, 2))
    t:add(f_cc_rc, tvb(off + 4, 4))
    t:add(f_cc_pen, tvb(off + 4, 4))
    local rcvd = band(tvb(off + 4, 4):uint(), 0x00FFFFFF)
    t:add(f_cc_rcvd, tvb(off + 4, 4)):append_text(
        string.format(" (%d bytes)", rcvd * 256))
    return off + 8
end

local function dissect_neth(tvb, off, tree, info)
    local t = tree:add(h_neth, tvb(off, 20))
    t:add(f_neth_type, tvb(off, 2))
    t:add(f_neth_nh, tvb(off, 2))
    local reason = tvb(off + 2, 1):uint()
    local r_item = t:add(f_neth_reason, tvb(off + 2, 1))
    if NACK_HELP[reason] then r_item:append_text(": " .. NACK_HELP[reason]) end
    t:add(f_neth_vendor, tvb(off + 3, 1))
    t:add(f_neth_ev, tvb(off + 4, 4))
    t:add(f_neth_spdcid, tvb(off + 8, 2))
    t:add(f_neth_dpdcid, tvb(off + 10, 2))
    t:add(f_neth_psn, tvb(off + 13, 3))
    t:add(f_neth_cctype, tvb(off + 16, 1))
    t:add(f_neth_ccflg, tvb(off + 16, 1))
    t:add(f_neth_ts, tvb(off + 18, 2))
    info[#info + 1] = NACK_REASONS[reason] or string.format("reason=0x%02x", reason)
    info[#info + 1] = string.format("nack_psn=%d", tvb(off + 13, 3):uint())
    return off + 20
end

local function dissect_peth(tvb, off, tree, info)
    local t = tree:add(h_peth, tvb(off, 16))
    t:add(f_peth_type, tvb(off, 2))
    t:add(f_peth_nh, tvb(off, 2))
    t:add(f_peth_vendor, tvb(off + 3, 1))
    t:add(f_peth_id, tvb(off + 4, 2))
    t:add(f_peth_spdcid, tvb(off + 8, 2))
    t:add(f_peth_dpdcid, tvb(off + 10, 2))
    add_ts_word(t, tvb, off + 12, f_peth_ts, f_peth_tsr, f_peth_ftype, f_peth_rsvd)
    info[#info + 1] = string.format("probe_id=%d", tvb(off + 4, 2):uint())
    return off + 16
end

-- The EFRH after an op-2 ERTH or EETH (24 bytes, when the packet holds them).
local function dissect_efrh(tvb, off, tree, info)
    if tvb:len() < off + 24 then
        info[#info + 1] = "[EFRH missing]"
        return off
    end
    local t = tree:add(h_efrh, tvb(off, 24))
    t:add(f_efrh_kind, tvb(off, 1))
    t:add(f_efrh_status, tvb(off + 1, 1))
    t:add(f_efrh_life, tvb(off + 2, 2))
    t:add(f_efrh_flow, tvb(off + 4, 4))
    t:add(f_efrh_spare, tvb(off + 8, 4))
    t:add(f_efrh_rsvd, tvb(off + 12, 4))
    t:add(f_efrh_seq, tvb(off + 16, 8))
    info[#info + 1] = string.format("%s flow=%d life=%d",
        EFRH_KINDS[tvb(off, 1):uint()] or "kind?", tvb(off + 4, 4):uint(), tvb(off + 2, 2):uint())
    return off + 24
end

local function dissect_erth(tvb, off, tree, info)
    local t = tree:add(h_erth, tvb(off, 16))
    local op = rshift(tvb(off, 1):uint(), 6)
    local op_item = t:add(f_erth_op, tvb(off, 1))
    if op > 2 then op_item:add_proto_expert_info(e_reserved, "endpoint op 3 is reserved") end
    t:add(f_erth_vendor, tvb(off + 1, 1))
    t:add(f_erth_req, tvb(off + 2, 2))
    t:add(f_erth_mask, tvb(off + 4, 4)):append_text(
        " (ports up: " .. port_list(tvb(off + 4, 4):uint()) .. ")")
    t:add(f_erth_epoch, tvb(off + 8, 4))
    add_ts_word(t, tvb, off + 12, f_erth_ts, f_erth_tsr, f_erth_ftype, f_erth_rsvd)
    info[#info + 1] = EP_OPS[op]
    info[#info + 1] = string.format("req=0x%x", tvb(off + 2, 2):uint())
    if op == 2 then return dissect_efrh(tvb, off + 16, tree, info) end
    return off + 16
end

local function dissect_eeth(tvb, off, tree, info)
    local t = tree:add(h_eeth, tvb(off, 36))
    local op = rshift(tvb(off, 1):uint(), 6)
    local op_item = t:add(f_eeth_op, tvb(off, 1))
    if op > 2 then op_item:add_proto_expert_info(e_reserved, "endpoint op 3 is reserved") end
    t:add(f_eeth_svc_ok, tvb(off, 1))
    t:add(f_eeth_vendor, tvb(off + 1, 1))
    t:add(f_eeth_req, tvb(off + 2, 2))
    t:add(f_eeth_mask, tvb(off + 4, 4)):append_text(
        " (ports up: " .. port_list(tvb(off + 4, 4):uint()) .. ")")
    t:add(f_eeth_svc, tvb(off + 8, 4))
    add_ts_word(t, tvb, off + 12, f_eeth_ts, f_eeth_tsr, f_eeth_ftype, f_eeth_rsvd)
    t:add(f_eeth_tail, tvb(off + 16, 20))
    info[#info + 1] = EP_OPS[op]
    info[#info + 1] = string.format("req=0x%x", tvb(off + 2, 2):uint())
    if op == 2 then return dissect_efrh(tvb, off + 36, tree, info) end
    return off + 36
end

-- Fixed header length after the BTH, and its parser, per control opcode.
local CONTROL = {
    [0xD1] = { 4, function(tvb, off, tree, info)
        local t = tree:add(h_aeth, tvb(off, 4))
        t:add(f_aeth_syndrome, tvb(off, 1))
        t:add(f_aeth_type, tvb(off, 1))
        t:add(f_aeth_value, tvb(off, 1))
        t:add(f_aeth_msn, tvb(off + 1, 3))
        info[#info + 1] = string.format("%s MSN=%d",
            AETH_TYPES[band(rshift(tvb(off, 1):uint(), 5), 3)], tvb(off + 1, 3):uint())
        return off + 4
    end },
    [0xD8] = { 16, dissect_erth },
    [0xD9] = { 36, dissect_eeth },
    [0xDC] = { 36, function(tvb, off, tree, info)
        return dissect_cc_state(tvb, dissect_seth(tvb, off, tree, info), tree)
    end },
    [0xDD] = { 20, dissect_neth },
    [0xDE] = { 16, dissect_peth },
}

-- METH [TSETH] RETH [ImmDt]; returns the offset of the payload.
local function dissect_data_headers(tvb, off, tree, opcode, ts_flag, info)
    local t = tree:add(h_meth, tvb(off, 4))
    t:add(f_meth_rqmsn, tvb(off, 2))
    t:add(f_meth_msn, tvb(off + 2, 2))
    off = off + 4
    if ts_flag then
        t = tree:add(h_tseth, tvb(off, 4))
        add_ts_word(t, tvb, off, f_tseth_ts, f_tseth_tsr, f_tseth_ftype, f_tseth_rsvd)
        off = off + 4
    end
    t = tree:add(h_reth, tvb(off, 16))
    t:add(f_reth_va, tvb(off, 8))
    t:add(f_reth_rkey, tvb(off + 8, 4))
    t:add(f_reth_dma_len, tvb(off + 12, 4))
    off = off + 16
    if IMM_OPCODES[opcode] then
        tree:add(f_immdt, tvb(off, 4))
        info[#info + 1] = string.format("IMM=0x%08x", tvb(off, 4):uint())
        off = off + 4
    end
    return off
end

-- ---------------------------------------------------------------------------
-- Main entry: 'tvb' is the UDP payload, starting with the BTH.

local function is_mrc(tvb)
    return tvb:len() >= 12 and OPCODES[tvb(0, 1):uint()] ~= nil
end

local function dissect_mrc(tvb, pinfo, tree)
    local opcode = tvb(0, 1):uint()
    local b1 = tvb(1, 1):uint()
    local b8 = tvb(8, 1):uint()
    local qpn = band(tvb(4, 4):uint(), 0x00FFFFFF)
    local psn = band(tvb(8, 4):uint(), 0x00FFFFFF)
    local pad = band(rshift(b1, 4), 3)
    local ts_flag = band(b8, 0x10) ~= 0
    -- The packet's layout follows from its reported length; only the
    -- captured part ('cap' bytes; less with a small snapshot length) can be
    -- shown or checked.
    local len, cap = tvb:reported_len(), tvb:len()

    local root = tree:add(mrc, tvb(), string.format(
        "Multipath Reliable Connection, %s, QP 0x%x, PSN %d", OPCODES[opcode], qpn, psn))
    root:add(f_opcode, tvb(0, 1))
    root:add(f_padcnt, tvb(1, 1))
    root:add(f_rtx, tvb(8, 1))
    root:add(f_ts, tvb(8, 1))

    local words = {}
    local fixed, control = 0, CONTROL[opcode]
    if control then
        fixed = control[1]
    else
        fixed = 4 + (ts_flag and 4 or 0) + 16 + (IMM_OPCODES[opcode] and 4 or 0)
    end
    local complete = need(tvb, 12, fixed, root, OPCODES[opcode] .. " headers")

    local off = 12
    if not complete then words[#words + 1] = "[headers incomplete]" end
    if complete then
        if control then
            off = control[2](tvb, off, root, words)
        else
            off = dissect_data_headers(tvb, off, root, opcode, ts_flag, words)
        end
    end

    local icrc_at
    if complete then
        local rest = len - off
        if rest == 0 or (not control and trimmed_dscp[outer_dscp()]) then
            -- A switch trimmed it (1.13): cut right after the headers, or
            -- (trimmed DSCP) to its trim size, keeping a payload prefix.
            -- Either way there is no ICRC.
            root:add(f_trimmed, true):set_generated()
            root:add_proto_expert_info(e_trimmed)
            words[#words + 1] = "TRIMMED"
            if rest > 0 and cap > off then
                root:add(f_payload, tvb(off, math.min(rest, cap - off)))
            end
            if not control then root:add(f_payload_len, rest):set_generated() end
        elseif rest < 4 then
            root:add_proto_expert_info(e_short, "fewer than 4 bytes left for the ICRC")
        else
            icrc_at = len - 4
            local body = rest - 4     -- payload + pad (data); nothing (control)
            local shown = math.max(0, math.min(body, cap - off))
            if control then
                if body > 0 then
                    local item = shown > 0 and root:add(f_trailing, tvb(off, shown)) or root
                    item:add_proto_expert_info(e_trailing)
                end
            elseif body < pad then
                root:add_proto_expert_info(e_short, "PadCnt exceeds the bytes left")
            else
                local plen = body - pad
                if plen > 0 and shown > 0 then
                    root:add(f_payload, tvb(off, math.min(plen, shown)))
                end
                root:add(f_payload_len, plen):set_generated()
                if pad > 0 and cap >= off + body then
                    root:add(f_pad, tvb(off + plen, pad))
                end
                words[#words + 1] = string.format("len=%d", plen)
            end
        end
    end

    if icrc_at and cap < icrc_at + 4 then
        root:add_proto_expert_info(e_snaplen, "ICRC not captured")
        icrc_at = nil
    end
    if icrc_at then
        local item = root:add_le(f_icrc, tvb(icrc_at, 4))
        local status = ICRC_UNVERIFIED
        if mrc.prefs.verify_icrc then
            local want = compute_icrc(tvb, icrc_at)
            if want ~= nil then
                local got = tvb(icrc_at, 4):le_uint()
                status = (got == want) and ICRC_GOOD or ICRC_BAD
                item:add(f_icrc_computed, want):set_generated()
                if status == ICRC_BAD then
                    item:append_text(string.format(" [incorrect, should be 0x%08x]", want))
                    item:add_proto_expert_info(e_icrc_bad)
                    words[#words + 1] = "BAD-ICRC"
                else
                    item:append_text(" [correct]")
                end
            end
        end
        item:add(f_icrc_status, status):set_generated()
    end

    -- Info column, e.g. "MRC WRITE_FIRST QP=0x11 PSN=123 RTX".
    local s = string.format("MRC %s QP=0x%x PSN=%d", OPCODES[opcode], qpn, psn)
    if band(b8, 0x20) ~= 0 then s = s .. " RTX" end
    if ts_flag then s = s .. " TS" end
    if band(b8, 0x80) ~= 0 then s = s .. " ACKREQ" end
    if #words > 0 then s = s .. " " .. table.concat(words, " ") end
    pinfo.cols.protocol = "MRC"
    pinfo.cols.info = s
end

-- The InfiniBand (RRoCE) handle that owned udp.port 4791 before us. Lua
-- scripts load after the built-in dissectors' hand-offs, so it is there.
local udp_port_table = DissectorTable.get("udp.port")
local ib_handle = udp_port_table:get_dissector(ROCEV2_PORT)
-- (Loading this file twice, e.g. from the plugin dir and -X lua_script,
-- already fails at Proto() above, so we never wrap ourselves.)
if ib_handle == nil then
    error("mrc.lua: no InfiniBand dissector on udp.port " .. ROCEV2_PORT)
end

-- Port-table entry point: every UDP 4791 packet the port lookup gives us.
function mrc.dissector(tvb, pinfo, tree)
    local consumed = ib_handle:call(tvb, pinfo, tree)
    if is_mrc(tvb) then
        dissect_mrc(tvb, pinfo, tree)
        return tvb:len()
    end
    return consumed
end

-- Heuristic entry point (used when udp.try_heuristic_first is on, so that
-- an EV-derived source port below 4791 cannot steal the packet).
local function heuristic(tvb, pinfo, tree)
    if pinfo.dst_port ~= ROCEV2_PORT or not is_mrc(tvb) then return false end
    ib_handle:call(tvb, pinfo, tree)
    dissect_mrc(tvb, pinfo, tree)
    return true
end

udp_port_table:add(ROCEV2_PORT, mrc)
udp_port_table:add_for_decode_as(mrc)
mrc:register_heuristic("udp", heuristic)
