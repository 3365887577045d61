#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Build MRC sample pcaps + manifest.json from Python, independently of lib/wire.

Why this exists: the golden pcaps are written by the C codec, and
check_tshark.py checks them. This script is a second, independent encoder of
the same layouts (lib/wire/mrc_wire.h, doc/protocol.md "Packets"), so
that
  * the checker and the Lua dissector can be exercised without the C code,
  * a disagreement between the C generator and this one points at a layout
    bug in one of them, not at the checker.

Stdlib only (struct, zlib), like the checker, so it runs wherever CI does.

    make_dev_samples.py OUTDIR            good samples, all must pass
    make_dev_samples.py --bad OUTDIR      deliberately broken samples, every
                                          one of which the checker must FAIL

Self-test of the checker (exit 0, then exit 1 with "0 passed, 8 failed"):

    make_dev_samples.py /tmp/s && check_tshark.py --manifest /tmp/s/manifest.json \
        --lua scripts/wireshark/mrc.lua
    make_dev_samples.py --bad /tmp/b && check_tshark.py --manifest /tmp/b/manifest.json \
        --lua scripts/wireshark/mrc.lua

The samples cover both encaps, SRH, VLAN, TSETH, ImmDt with pad, every
control opcode, a trimmed packet, two packets in one pcap, and EVs whose low
16 bits are well-known UDP ports (1, 7, 66): Wireshark would hand those to
other dissectors unless the UDP heuristics run first (see mrc.lua).

The ICRC here is computed with a bit-by-bit CRC-32 rather than zlib, so the
checker's zlib-based ICRC is cross-checked against a second implementation.
"""

import argparse
import json
import os
import struct
import sys

ROCEV2_PORT = 4791
ETH_P_IPV6 = 0x86DD
ETH_P_8021Q = 0x8100
NH_UDP, NH_IPV6, NH_ROUTING = 17, 41, 43

# Opcodes (mrc_wire.h enum mrc_opcode).
OP = {
    "WRITE_FIRST": 0xC6, "WRITE_MIDDLE": 0xC7, "WRITE_LAST": 0xC8,
    "WRITE_LAST_IMM": 0xC9, "WRITE_ONLY": 0xCA, "WRITE_ONLY_IMM": 0xCB,
    "ACK": 0xD1, "EP_REQUEST": 0xD8, "EP_RESPONSE": 0xD9,
    "SACK": 0xDC, "NACK": 0xDD, "PROBE": 0xDE,
}
IMM_OPS = (0xC9, 0xCB)
EP_QPN = 0x000002


def ip6(text):
    """IPv6 text -> 16 bytes, without the ipaddress module's help on purpose
    (keeps this an independent encoder; handles '::' only)."""
    if "::" in text:
        head, tail = text.split("::")
        h = [x for x in head.split(":") if x]
        t = [x for x in tail.split(":") if x]
        groups = h + ["0"] * (8 - len(h) - len(t)) + t
    else:
        groups = text.split(":")
    assert len(groups) == 8, text
    return b"".join(struct.pack("!H", int(g, 16)) for g in groups)


def crc32_bitwise(data):
    """Reflected CRC-32 (poly 0xEDB88320), init and final xor 0xFFFFFFFF:
    the Ethernet FCS / zlib.crc32 function, written out longhand."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def icrc(inner_ipv6_to_end):
    """RoCEv2 ICRC over inner IPv6 .. end of payload+pad (doc/protocol.md, ICRC):
    masked LRH (8 x 0xFF), then the packet with the variant fields set to
    ones. Stored on the wire little-endian, like the Ethernet FCS and rxe."""
    m = bytearray(inner_ipv6_to_end)
    m[0] |= 0x0F                 # traffic class (low nibble of byte 0) ...
    m[1:4] = b"\xff\xff\xff"     # ... rest of TC and the whole flow label
    m[7] = 0xFF                  # hop limit
    m[40 + 6:40 + 8] = b"\xff\xff"   # UDP checksum
    m[40 + 8 + 4] = 0xFF         # BTH byte 4: FECN | BECN | reserved
    return struct.pack("<I", crc32_bitwise(b"\xff" * 8 + bytes(m)))


def csum16(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def ipv6_hdr(tc, flow_label, plen, nh, src, dst, hlim=64):
    vtc = (6 << 28) | (tc << 20) | flow_label
    return struct.pack("!IHBB", vtc, plen, nh, hlim) + ip6(src) + ip6(dst)


def srh(segments, nh):
    """RFC 8754 SRH; 'segments' in path order (first segment first). The
    segment list is stored reversed: list[0] is the LAST segment."""
    n = len(segments)
    hdr = struct.pack("!BBBBBBH", nh, 2 * n, 4, n - 1, n - 1, 0, 0)
    return hdr + b"".join(ip6(s) for s in reversed(segments))


# ---- MRC transport headers (mrc_wire.h) ----------------------------------

def bth(opcode, dqpn, psn, ackreq=False, rtx=False, ts=False, pad=0,
        se=False, fecn=False, becn=False):
    b1 = (0x80 if se else 0) | (pad << 4)          # TVer 0
    b4 = (0x80 if fecn else 0) | (0x40 if becn else 0)
    b8 = (0x80 if ackreq else 0) | (0x20 if rtx else 0) | (0x10 if ts else 0)
    return struct.pack("!BBHB3sB3s", opcode, b1, 0xFFFF, b4,
                       dqpn.to_bytes(3, "big"), b8, psn.to_bytes(3, "big"))


def meth(rqmsn, msn):
    return struct.pack("!HH", rqmsn, msn)


def tseth(ts, tsr, ftype):
    return struct.pack("!HH", ts, (0x8000 if tsr else 0) | ftype)


def reth(va, rkey, dma_len):
    return struct.pack("!QII", va, rkey, dma_len)


def aeth(syndrome, msn):
    return struct.pack("!I", (syndrome << 24) | msn)


def pds_hdr(pds_type=0, nh=0):
    return (pds_type << 12) | (nh << 7)


def seth(m, pr, ack_psn_offset, entropy, spdcid, dpdcid, cack_psn, cc_type,
         cc_flags, mpr, sack_offset, sack_bitmap):
    hdr = pds_hdr() | (m << 5) | (0x0002 if pr else 0)
    return struct.pack("!HhIHHIBBhQ", hdr, ack_psn_offset, entropy, spdcid,
                       dpdcid, cack_psn, (cc_type << 4) | cc_flags, mpr,
                       sack_offset, sack_bitmap)


def cc_state(ts_echo, ooo_count, rc, cwnd_pen, rcvd_bytes):
    return struct.pack("!HHI", ts_echo, ooo_count,
                       (0x80000000 if rc else 0) | (cwnd_pen << 24) | rcvd_bytes)


def neth(reason, vendor, entropy, spdcid, dpdcid, nack_psn, cc_type, cc_flags,
         ts_echo):
    return struct.pack("!HBBIHHIBBH", pds_hdr(), reason, vendor, entropy,
                       spdcid, dpdcid, nack_psn, (cc_type << 4) | cc_flags, 0,
                       ts_echo)


def peth(vendor, probe_id, spdcid, dpdcid, ts, tsr, ftype):
    return struct.pack("!HBBHHHHHH", pds_hdr(), 0, vendor, probe_id, 0,
                       spdcid, dpdcid, ts, (0x8000 if tsr else 0) | ftype)


def erth(op, vendor, req_id, port_status_mask, ts, tsr, ftype):
    return struct.pack("!BBHIIHH", op << 6, vendor, req_id, port_status_mask,
                       0, ts, (0x8000 if tsr else 0) | ftype)


def eeth(op, svc_valid, vendor, req_id, port_status_mask, svc_time_ns,
         ts_echo, tsr, ftype):
    return struct.pack("!BBHIIHH20s", (op << 6) | (0x02 if svc_valid else 0),
                       vendor, req_id, port_status_mask, svc_time_ns, ts_echo,
                       (0x8000 if tsr else 0) | ftype, b"\0" * 20)


# ---- whole frames ---------------------------------------------------------

SRC_MAC = bytes.fromhex("020000000001")
DST_MAC = bytes.fromhex("020000000002")


def frame(p, transport, corrupt_icrc=False, udp_len_delta=0):
    """Eth [VLAN] [outer IPv6 [SRH]] inner IPv6 | UDP | transport | ICRC.
    'transport' is BTH .. payload+pad. EV split (mrc_wire default): UDP sport
    = EV[15:0], flow label[15:0] of the OUTERMOST IPv6 = EV[31:16].

    A trimmed packet (p["trimmed"]) is built whole and then cut after its
    MRC headers (p["_cut"] bytes of 'transport'), as a switch does it: only
    the outermost IPv6 payload length is rewritten; the inner IPv6 (SRv6
    mode) and UDP lengths and the UDP checksum still describe the whole
    packet, and the ICRC is gone."""
    ev = p["ev"]
    tc = (p["dscp"] << 2) | p["ecn"]
    sport = ev & 0xFFFF
    outer_fl = ev >> 16
    # Inner header fields an ICRC must NOT depend on are deliberately
    # non-trivial in SRv6 mode (flow label, hop limit), so a checker that
    # forgot a mask fails here.
    udp_len = 8 + len(transport) + 4
    inner_fl = outer_fl if p["encap"] == "plain" else 0xABCDE
    inner_hlim = 64 if p["encap"] == "plain" else 17
    inner = ipv6_hdr(tc, inner_fl, udp_len, NH_UDP, p["inner_src"],
                     p["inner_dst"], inner_hlim)
    udp = struct.pack("!HHHH", sport, ROCEV2_PORT, udp_len, 0)
    crc = icrc(inner + udp + transport)
    if corrupt_icrc:
        crc = bytes([crc[0] ^ 0x01]) + crc[1:]
    udp_payload = transport + crc
    pseudo = ip6(p["inner_src"]) + ip6(p["inner_dst"]) + \
        struct.pack("!IxxxB", udp_len, NH_UDP)
    ck = 0xFFFF - csum16(pseudo + udp + udp_payload)
    udp = struct.pack("!HHHH", sport, ROCEV2_PORT, udp_len + udp_len_delta,
                      ck or 0xFFFF)
    if p["trimmed"]:
        udp_payload = transport[:p["_cut"]]
    pkt = inner + udp + udp_payload
    if p["encap"] == "srv6":
        segs = p.get("_segments", [])
        ext = srh(segs, NH_IPV6) if segs else b""
        outer = ipv6_hdr(tc, outer_fl, len(ext) + len(pkt),
                         NH_ROUTING if segs else NH_IPV6,
                         "fd00:0:0:1::1", p["outer_dst"])
        pkt = outer + ext + pkt
    elif p["trimmed"]:
        pkt = pkt[:4] + struct.pack("!H", len(pkt) - 40) + pkt[6:]
    l2 = DST_MAC + SRC_MAC
    if p["vlan"] is not None:
        l2 += struct.pack("!HH", ETH_P_8021Q, (3 << 13) | p["vlan"])
    return l2 + struct.pack("!H", ETH_P_IPV6) + pkt


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1767225600 + i, 0, len(fr), len(fr)))
            f.write(fr)


def base(name, encap, opcode, dqpn, psn, ev, **kw):
    p = {
        "pcap": name + ".pcap", "index": 0, "name": name, "encap": encap,
        "vlan": None, "srh_segments": 0,
        "outer_dst": "fcbb:0:100:200:300::" if encap == "srv6" else None,
        "inner_dst": "fd00:0:0:2::1", "inner_src": "fd00:0:0:1::1",
        "udp_sport": ev & 0xFFFF, "ev": ev, "flow_label": ev >> 16,
        "dscp": 4, "ecn": 2,
        "opcode": opcode, "dqpn": dqpn, "psn": psn,
        "rtx": False, "ts": False, "ackreq": False, "trimmed": False,
        "reth": None, "imm": None, "payload_len": 0, "mrc": {},
    }
    p.update(kw)
    return p


def data_packet(p, rqmsn, msn, payload, ts_fields=None, se=False, fecn=False):
    """METH [TSETH] RETH [ImmDt] payload pad, per mrc_wire.h."""
    op = p["opcode"]
    pad = (-len(payload)) % 4
    hdrs = meth(rqmsn, msn)
    if p["ts"]:
        hdrs += tseth(*ts_fields)
    r = p["reth"]
    hdrs += reth(r["va"], r["rkey"], r["dma_len"])
    if op in IMM_OPS:
        hdrs += struct.pack("!I", p["imm"])
    p["payload_len"] = 0 if p["trimmed"] else len(payload)
    b = bth(op, p["dqpn"], p["psn"], p["ackreq"], p["rtx"], p["ts"], pad,
            se=se, fecn=fecn)
    p["mrc"].update({"mrc.opcode": op, "mrc.meth.rqmsn": rqmsn,
                     "mrc.meth.msn": msn, "mrc.reth.va": r["va"],
                     "mrc.reth.rkey": r["rkey"],
                     "mrc.reth.dma_len": r["dma_len"],
                     "mrc.bth.rtx": p["rtx"], "mrc.bth.ts": p["ts"]})
    if not p["trimmed"]:
        p["mrc"]["mrc.payload_len"] = len(payload)
    if p["ts"]:
        p["mrc"].update({"mrc.tseth.ts": ts_fields[0],
                         "mrc.tseth.tsr": ts_fields[1],
                         "mrc.tseth.ftype": ts_fields[2]})
    if op in IMM_OPS:
        p["mrc"]["mrc.immdt"] = p["imm"]
    p["_cut"] = len(b + hdrs)      # where a trimming switch cuts
    return b + hdrs + payload + b"\0" * pad


def samples():
    out = []

    # 1. WRITE_FIRST, SRv6 without SRH (the uSID container is the outer DA).
    p = base("write_first_srv6", "srv6", OP["WRITE_FIRST"], 0x11, 123,
             0x0005BEEF,
             reth={"va": 0x00007F0000001000, "rkey": 0x1234, "dma_len": 8192})
    out.append((p, data_packet(p, 0, 7, bytes(range(256)) * 4)))

    # 2. WRITE_ONLY_IMM, SRH with 2 uSID containers, VLAN tag, odd payload
    #    length (PadCnt 3), BTH FECN set (ICRC must mask BTH byte 4).
    p = base("write_only_imm_srh2_vlan", "srv6", OP["WRITE_ONLY_IMM"],
             0xABCDEF, 0xFFFFFE, 0x000A1234, vlan=100, srh_segments=2,
             ackreq=True,
             outer_dst="fcbb:0:100:200:300:400:500:600",
             reth={"va": 0x1000, "rkey": 0xCAFEF00D, "dma_len": 13},
             imm=0xDEADBEEF)
    p["_segments"] = ["fcbb:0:100:200:300:400:500:600", "fcbb:0:700:800::"]
    out.append((p, data_packet(p, 3, 9, b"hello, world!", fecn=True)))

    # 3. WRITE_MIDDLE, plain (structured EV) mode, TSETH, retransmission.
    p = base("write_middle_plain_ts", "plain", OP["WRITE_MIDDLE"], 0x20, 1000,
             0x00031111, rtx=True, ts=True, dscp=8, ecn=1,
             reth={"va": 0x2000, "rkey": 0x55, "dma_len": 4096})
    out.append((p, data_packet(p, 1, 2, b"\xa5" * 64,
                               ts_fields=(0x1234, True, 1))))

    # 4. WRITE_LAST_IMM, plain, TSETH without TSR.
    p = base("write_last_imm_plain", "plain", OP["WRITE_LAST_IMM"], 0x20, 1001,
             0x00032222, ts=True, ackreq=True,
             reth={"va": 0x3000, "rkey": 0x55, "dma_len": 4096}, imm=0x01020304)
    out.append((p, data_packet(p, 2, 2, b"\x5a" * 30,
                               ts_fields=(0xFFFF, False, 1), se=True)))

    # 5. SACK (SETH + CC_STATE), SRv6; negative sack_offset, M = SKIP_ONCE.
    p = base("sack_srv6", "srv6", OP["SACK"], 0x11, 0, 0x00070042, dscp=46,
             ecn=0)
    p["mrc"] = {"mrc.opcode": 0xDC, "mrc.seth.m": 1, "mrc.seth.pr": True,
                "mrc.seth.ack_psn_offset": 5, "mrc.seth.entropy": 0x0005BEEF,
                "mrc.seth.spdcid": 0x21, "mrc.seth.dpdcid": 0x11,
                "mrc.seth.cack_psn": 1000, "mrc.seth.cc_type": 2,
                "mrc.seth.cc_flags": 1, "mrc.seth.mpr": 8,
                "mrc.seth.sack_offset": -3,
                "mrc.seth.sack_bitmap": 0x80000000000000F5,
                # A list is the whole sequence of a repeated field (LSB first).
                "mrc.seth.sacked_psn": [997, 999, 1001, 1002, 1003, 1004, 1060],
                "mrc.cc.ts_echo": 0x1234, "mrc.cc.ooo_count": 3,
                "mrc.cc.rc": True, "mrc.cc.cwnd_pen": 5,
                "mrc.cc.rcvd_bytes": 0x123456}
    t = bth(0xDC, 0x11, 0) + seth(1, True, 5, 0x0005BEEF, 0x21, 0x11, 1000, 2,
                                  1, 8, -3, 0x80000000000000F5) + \
        cc_state(0x1234, 3, True, 5, 0x123456)
    out.append((p, t))

    # 6. NACK (TRIMMED), plain.
    p = base("nack_trimmed_plain", "plain", OP["NACK"], 0x11, 1200,
             0x00090001, dscp=46, ecn=0)
    p["mrc"] = {"mrc.opcode": 0xDD, "mrc.neth.reason": 1,
                "mrc.neth.vendor": 0, "mrc.neth.entropy": 0x00031111,
                "mrc.neth.spdcid": 0x21, "mrc.neth.dpdcid": 0x11,
                "mrc.neth.nack_psn": 1000, "mrc.neth.cc_type": 2,
                "mrc.neth.cc_flags": 0, "mrc.neth.ts_echo": 0x1234}
    t = bth(0xDD, 0x11, 1200) + neth(1, 0, 0x00031111, 0x21, 0x11, 1000, 2, 0,
                                      0x1234)
    out.append((p, t))

    # 7. Reliability probe (PETH), SRv6.
    p = base("probe_srv6", "srv6", OP["PROBE"], 0x20, 1002, 0x0003ABCD,
             ackreq=True)
    p["mrc"] = {"mrc.opcode": 0xDE, "mrc.peth.vendor": 0,
                "mrc.peth.probe_id": 7, "mrc.peth.spdcid": 0x11,
                "mrc.peth.dpdcid": 0x20, "mrc.peth.ts": 0x4321,
                "mrc.peth.tsr": False, "mrc.peth.ftype": 1}
    t = bth(0xDE, 0x20, 1002, ackreq=True) + \
        peth(0, 7, 0x11, 0x20, 0x4321, False, 1)
    out.append((p, t))

    # 8. Transport ACK (AETH), plain.
    p = base("ack_plain", "plain", OP["ACK"], 0x11, 999, 0x00011234, dscp=46,
             ecn=0)
    p["mrc"] = {"mrc.opcode": 0xD1, "mrc.aeth.syndrome": 0x1F,
                "mrc.aeth.msn": 55}
    out.append((p, bth(0xD1, 0x11, 999) + aeth(0x1F, 55)))

    # 9/10. Endpoint EV probe request and its response, to/from QPN 2.
    p = base("ep_request_srv6", "srv6", OP["EP_REQUEST"], EP_QPN, 0,
             0x000C0007, dscp=46, ecn=0)
    # A value name works as an expectation too (matched against PDML's label).
    p["mrc"] = {"mrc.opcode": 0xD8, "mrc.erth.op": "EV_PROBE", "mrc.erth.vendor": 0,
                "mrc.erth.req_id": 0x42, "mrc.erth.port_status_mask": 0xFF,
                "mrc.erth.ts": 0x5555, "mrc.erth.tsr": True,
                "mrc.erth.ftype": 1}
    t = bth(0xD8, EP_QPN, 0) + erth(1, 0, 0x42, 0xFF, 0x5555, True, 1)
    out.append((p, t))

    p = base("ep_response_srv6", "srv6", OP["EP_RESPONSE"], EP_QPN, 0,
             0x000D0007, dscp=46, ecn=0, inner_src="fd00:0:0:2::1",
             inner_dst="fd00:0:0:1::1")
    p["mrc"] = {"mrc.opcode": 0xD9, "mrc.eeth.op": 1,
                "mrc.eeth.svc_valid": True, "mrc.eeth.vendor": 0,
                "mrc.eeth.req_id": 0x42, "mrc.eeth.port_status_mask": 0xFD,
                "mrc.eeth.svc_time_ns": 1500, "mrc.eeth.ts_echo": 0x5555,
                "mrc.eeth.tsr": True, "mrc.eeth.ftype": 1}
    t = bth(0xD9, EP_QPN, 0) + eeth(1, True, 0, 0x42, 0xFD, 1500, 0x5555, True,
                                    1)
    out.append((p, t))

    # 11. Endpoint port-status update (op 0), plain.
    p = base("ep_port_status_plain", "plain", OP["EP_REQUEST"], EP_QPN, 0,
             0x000E0001, dscp=46, ecn=0)
    p["mrc"] = {"mrc.opcode": 0xD8, "mrc.erth.op": 0,
                "mrc.erth.port_status_mask": 0x7F}
    out.append((p, bth(0xD8, EP_QPN, 0) + erth(0, 0, 9, 0x7F, 1, False, 1)))

    # 12. A trimmed WRITE_MIDDLE as a switch forwards it: headers through
    #     RETH, no payload, no ICRC, DSCP rewritten.
    p = base("write_middle_trimmed_srv6", "srv6", OP["WRITE_MIDDLE"], 0x11,
             125, 0x0005BEF0, trimmed=True, dscp=12, ecn=0,
             reth={"va": 0x7F0000001400, "rkey": 0x1234, "dma_len": 8192})
    out.append((p, data_packet(p, 0, 7, b"\0" * 1024)))

    # 13. Trimmed at the last hop, plain mode, with ImmDt.
    p = base("write_only_imm_trimmed_lasthop_plain", "plain",
             OP["WRITE_ONLY_IMM"], 0x11, 126, 0x0005BEF1, trimmed=True,
             dscp=16, ecn=0, imm=0x11223344,
             reth={"va": 0x7F0000001800, "rkey": 0x1234, "dma_len": 2000})
    out.append((p, data_packet(p, 1, 8, b"\x77" * 2000)))

    # 14/15. Two packets in one pcap (index 0 and 1): a two-packet message,
    #     each packet on its own EV, as MRC sprays them.
    for i, (op, ev, psn) in enumerate(((OP["WRITE_FIRST"], 0x00040101, 50),
                                       (OP["WRITE_LAST"], 0x0004F00D, 51))):
        p = base("write_pair_plain_%d" % i, "plain", op, 0x30, psn, ev,
                 reth={"va": 0x9000 + 1024 * i, "rkey": 0x77, "dma_len": 2048})
        p["pcap"], p["index"] = "write_pair_plain.pcap", i
        out.append((p, data_packet(p, 4, 4, bytes([i]) * 1024)))
    return out


def bad_samples():
    """(manifest entry, frame) pairs that must each FAIL the checker, for the
    reason in the name: the frame is built from the good entry, then either
    the frame or the manifest is spoiled."""
    out = []
    good = {p["name"]: (p, t) for p, t in samples()}

    def clone(src, name, **frame_kw):
        p, t = good[src]
        fr = frame(p, t, **frame_kw)
        q = json.loads(json.dumps(p))
        q.pop("_segments", None)
        q.pop("_cut", None)
        q["name"], q["pcap"] = name, name + ".pcap"
        return q, fr

    p, fr = clone("write_first_srv6", "bad_icrc", corrupt_icrc=True)
    out.append((p, fr))
    p, fr = clone("write_only_imm_srh2_vlan", "bad_psn_in_manifest")
    p["psn"] = 0xFFFFFD
    out.append((p, fr))
    p, fr = clone("sack_srv6", "bad_mrc_field")
    p["mrc"]["mrc.seth.cack_psn"] = 1001
    out.append((p, fr))
    p, fr = clone("write_middle_plain_ts", "bad_ev_split")
    p["ev"] ^= 0x00010000
    out.append((p, fr))
    p, fr = clone("write_only_imm_srh2_vlan", "bad_srh_count")
    p["srh_segments"] = 3
    out.append((p, fr))
    p, fr = clone("write_first_srv6", "bad_reth_rkey")
    p["reth"]["rkey"] = 0x1235
    out.append((p, fr))
    p, fr = clone("write_only_imm_srh2_vlan", "bad_imm")
    p["imm"] = 0xDEADBEEE
    out.append((p, fr))
    p, fr = clone("write_last_imm_plain", "bad_udp_length", udp_len_delta=4)
    out.append((p, fr))
    p, fr = clone("write_only_imm_trimmed_lasthop_plain", "bad_trimmed_payload_len")
    p["payload_len"] = 2000
    out.append((p, fr))
    p, fr = clone("write_middle_plain_ts", "bad_flags_rtx")
    p["rtx"] = False
    out.append((p, fr))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--bad", action="store_true",
                    help="write samples the checker must reject")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    if a.bad:
        pairs = bad_samples()
    else:
        pairs = [(p, frame(p, t)) for p, t in samples()]
    entries, files = [], {}
    for p, fr in pairs:
        p.pop("_segments", None)
        p.pop("_cut", None)
        files.setdefault(p["pcap"], []).append(fr)
        assert p["index"] == len(files[p["pcap"]]) - 1, p["name"]
        entries.append(p)
    for name, frames in files.items():
        write_pcap(os.path.join(a.outdir, name), frames)
    with open(os.path.join(a.outdir, "manifest.json"), "w") as f:
        json.dump({"packets": entries}, f, indent=1)
        f.write("\n")
    print("wrote %d samples to %s" % (len(entries), a.outdir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
