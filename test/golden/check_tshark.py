#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The mrcd authors
"""Check golden MRC pcaps against Wireshark's view of them and against an
independent ICRC.

    check_tshark.py --manifest DIR/manifest.json --lua scripts/wireshark/mrc.lua
                    [--tshark tshark]

For every packet listed in the manifest (schema: see the golden generator and
make_dev_samples.py) this asserts that
  * tshark sees the layers eth [vlan] ipv6 [ipv6.routing (SRH, type 4, with
    srh_segments entries)] [inner ipv6] udp infiniband, plus the mrc layer
    from scripts/wireshark/mrc.lua, and no malformed-packet marker;
  * addresses, UDP ports, infiniband.bth.opcode/destqp/psn, the AckReq, RTX
    and TS flags, RETH (from infiniband.reth.* where Wireshark decodes it,
    else mrc.reth.*), ImmDt and every "mrc" field equal the manifest. An
    "mrc" entry may name any Wireshark field; its value is an int (bools
    too), a string (the value, or a value name such as "TRIMMED", or an
    address), or a list (the field's every occurrence, in order);
  * the ICRC of every non-trimmed packet is right, computed here with
    zlib.crc32 (not by any C code, and not by the Lua dissector, whose own
    verdict mrc.icrc.status must agree);
  * the EV is recoverable with the default split: udp_sport == EV[15:0] and
    flow label[15:0] of the outermost IPv6 header == EV[31:16]; the
    outermost DSCP/ECN equal the manifest.

tshark runs once per pcap, as

    tshark -n -r FILE -T pdml -X lua_script:mrc.lua -o udp.try_heuristic_first:TRUE

with a private HOME/WIRESHARK_CONFIG_DIR so personal preferences and plugins
cannot interfere. PDML gives every field's value ("show") and its label
("showname"), so an expected string such as "TRIMMED" can be matched against
a value name. As root, tshark runs -X lua_script only if the system init.lua
allows it (run_user_scripts_when_superuser, true in Debian 12's 4.0) and
otherwise ignores the script silently; the checker notices (the mrc protocol
is missing from tshark -G protocols) and retries as uid 65534 via setpriv.

Exit status: 0 all passed, 1 any failure, 77 (skip) when tshark is missing
or built without Lua.
"""

import argparse
import ipaddress
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

ROCEV2_PORT = 4791
SKIP = 77

MRC_DATA_OPS = range(0xC6, 0xCC)
MRC_IMM_OPS = (0xC9, 0xCB)
# Bytes after the BTH for MRC control opcodes (mrc_wire.h).
MRC_CONTROL_HDR = {0xD1: 4, 0xD8: 16, 0xD9: 36, 0xDC: 36, 0xDD: 20, 0xDE: 16}
MRC_OPS = set(MRC_DATA_OPS) | set(MRC_CONTROL_HDR)

# Wireshark's RRoCE dissector decodes RETH only for standard opcodes; for
# MRC's it is the Lua dissector's job. Checked in this order, both if both.
RETH_FIELDS = {
    "va": ("infiniband.reth.va", "mrc.reth.va"),
    "rkey": ("infiniband.reth.r_key", "mrc.reth.rkey"),
    "dma_len": ("infiniband.reth.dmalen", "mrc.reth.dma_len"),
}


class Bad(Exception):
    """A packet that cannot be parsed far enough to check it."""


# ---------------------------------------------------------------------------
# pcap (classic libpcap, Ethernet) and raw header walk

def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise Bad("%s: too short for a pcap header" % path)
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        end = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        end = ">"
    elif magic == b"\x0a\x0d\x0d\x0a":
        raise Bad("%s: pcapng, expected classic pcap" % path)
    else:
        raise Bad("%s: not a pcap file" % path)
    linktype = struct.unpack(end + "I", data[20:24])[0] & 0x0FFFFFFF
    if linktype != 1:
        raise Bad("%s: linktype %d, expected 1 (Ethernet)" % (path, linktype))
    frames, off = [], 24
    while off < len(data):
        if off + 16 > len(data):
            raise Bad("%s: truncated record header" % path)
        incl, orig = struct.unpack(end + "II", data[off + 8:off + 16])
        off += 16
        if off + incl > len(data):
            raise Bad("%s: truncated packet %d" % (path, len(frames)))
        if incl != orig:
            raise Bad("%s: packet %d captured short (%d of %d bytes)"
                      % (path, len(frames), incl, orig))
        frames.append(data[off:off + incl])
        off += incl
    return frames


def walk(fr):
    """Eth [802.1Q]* IPv6 [ext hdrs] [IPv6 [ext hdrs]]* UDP. Returns a dict
    with the VLAN ids, every IPv6 header and SRH seen, the offsets of UDP
    and the BTH, and where each IPv6 header says the packet ends. The
    packet ends where the OUTERMOST header says (Ethernet padding is not
    part of it): a trimming switch rewrites that length only, so the inner
    IPv6 and UDP lengths of a trimmed packet may still count the payload."""
    def need(off, n, what):
        if off + n > len(fr):
            raise Bad("frame ends inside the %s" % what)

    need(0, 14, "Ethernet header")
    off, vlans = 14, []
    etype = struct.unpack_from("!H", fr, 12)[0]
    while etype in (0x8100, 0x88A8):
        need(off, 4, "VLAN tag")
        tci, etype = struct.unpack_from("!HH", fr, off)
        vlans.append(tci & 0x0FFF)
        off += 4
    if etype != 0x86DD:
        raise Bad("ethertype 0x%04x, expected IPv6" % etype)
    ipv6s, srhs, nh = [], [], 41
    while nh != 17:
        if nh == 41:
            need(off, 40, "IPv6 header")
            vtc, plen, nxt, hlim = struct.unpack_from("!IHBB", fr, off)
            if vtc >> 28 != 6:
                raise Bad("IPv6 version %d at offset %d" % (vtc >> 28, off))
            ipv6s.append({"off": off, "tc": (vtc >> 20) & 0xFF,
                          "flow": vtc & 0xFFFFF, "plen": plen,
                          "src": fr[off + 8:off + 24],
                          "dst": fr[off + 24:off + 40]})
            nh, off = nxt, off + 40
        elif nh in (0, 43, 60):    # hop-by-hop, routing, destination options
            need(off, 8, "IPv6 extension header")
            nxt, hlen = fr[off], fr[off + 1]
            if nh == 43:
                srhs.append({"type": fr[off + 2], "segleft": fr[off + 3],
                             "last_entry": fr[off + 4], "hdr_ext_len": hlen})
            nh, off = nxt, off + (hlen + 1) * 8
        else:
            raise Bad("IPv6 next header %d where UDP was expected" % nh)
    if not ipv6s:
        raise Bad("no IPv6 header")
    need(off, 8, "UDP header")
    ends = [h["off"] + 40 + h["plen"] for h in ipv6s]
    if ends[0] > len(fr):
        raise Bad("outer IPv6 payload length runs %d bytes past the frame"
                  % (ends[0] - len(fr)))
    sport, dport, ulen, _ = struct.unpack_from("!HHHH", fr, off)
    return {"vlans": vlans, "ipv6": ipv6s, "srh": srhs, "udp": off,
            "sport": sport, "dport": dport, "ulen": ulen, "bth": off + 8,
            "ends": ends, "end": ends[0]}


def icrc_expected(fr, w):
    """RoCEv2 ICRC (doc/protocol.md, ICRC) of the packet, computed here: CRC-32
    (Ethernet/zlib) over 8 bytes of 0xFF, then the innermost IPv6 header
    through the end of payload+pad with the IPv6 traffic class, flow label
    and hop limit, the UDP checksum and BTH byte 4 set to ones. The wire
    holds the CRC little-endian."""
    ip = w["ipv6"][-1]["off"]
    if w["udp"] != ip + 40:
        raise Bad("extension headers between the inner IPv6 and UDP")
    m = bytearray(fr[ip:w["end"] - 4])
    m[0] |= 0x0F
    m[1:4] = b"\xff\xff\xff"
    m[7] = 0xFF
    m[46:48] = b"\xff\xff"
    m[52] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)))


def mrc_hdr_len(opcode, b8, b12):
    """Bytes of BTH + MRC headers before the payload, or None (not MRC).
    b12 is the first byte after the BTH: an endpoint operation 2 (flow
    recovery) has a 24-byte EFRH after its ERTH or EETH."""
    if opcode in MRC_DATA_OPS:
        return (12 + 4 + (4 if b8 & 0x10 else 0) + 16
                + (4 if opcode in MRC_IMM_OPS else 0))
    if opcode in MRC_CONTROL_HDR:
        efrh = 24 if opcode in (0xD8, 0xD9) and b12 >> 6 == 2 else 0
        return 12 + MRC_CONTROL_HDR[opcode] + efrh
    return None


def raw_checks(p, fr):
    """Checks on the bytes themselves: EV split, DSCP/ECN, lengths, pad and
    the ICRC. Returns a list of failure reasons."""
    errs = []
    try:
        w = walk(fr)
    except Bad as e:
        return ["raw parse: %s" % e]
    outer = w["ipv6"][0]
    ev, sport, fl = p["ev"], w["sport"], outer["flow"]
    if sport != p["udp_sport"]:
        errs.append("raw UDP sport %d != manifest %d" % (sport, p["udp_sport"]))
    if fl != p["flow_label"]:
        errs.append("outermost flow label 0x%05x != manifest 0x%05x"
                    % (fl, p["flow_label"]))
    if sport != ev & 0xFFFF:
        errs.append("EV 0x%08x not recoverable: UDP sport 0x%04x != EV[15:0]"
                    % (ev, sport))
    if fl & 0xFFFF != ev >> 16:
        errs.append("EV 0x%08x not recoverable: flow label[15:0] 0x%04x != "
                    "EV[31:16]" % (ev, fl & 0xFFFF))
    if outer["tc"] >> 2 != p["dscp"] or outer["tc"] & 3 != p["ecn"]:
        errs.append("outermost DSCP/ECN %d/%d != manifest %d/%d"
                    % (outer["tc"] >> 2, outer["tc"] & 3, p["dscp"], p["ecn"]))

    want_vlans = [] if p["vlan"] is None else [p["vlan"]]
    if w["vlans"] != want_vlans:
        errs.append("raw VLAN ids %s, expected %s" % (w["vlans"], want_vlans))
    n_ipv6 = 2 if p["encap"] == "srv6" else 1
    if len(w["ipv6"]) != n_ipv6:
        errs.append("%d IPv6 headers, expected %d for %s" % (len(w["ipv6"]),
                                                           n_ipv6, p["encap"]))
    nsegs = p["srh_segments"]
    if nsegs == 0 and w["srh"]:
        errs.append("routing header present, manifest has srh_segments 0")
    for srh in w["srh"][:1] if nsegs else []:
        if srh["type"] != 4 or srh["last_entry"] + 1 != nsegs or \
                srh["hdr_ext_len"] < 2 * nsegs:
            errs.append("raw SRH type %d, last entry %d, length %d; expected "
                        "type 4 with %d segments" % (srh["type"],
                        srh["last_entry"], srh["hdr_ext_len"], nsegs))
    if nsegs and not w["srh"]:
        errs.append("no routing header, manifest has %d segments" % nsegs)
    if w["dport"] != ROCEV2_PORT:
        errs.append("raw UDP dport %d" % w["dport"])

    bth, end = w["bth"], w["end"]
    if end - bth < 12:
        return errs + ["UDP payload shorter than a BTH"]
    opcode, b1, b8 = fr[bth], fr[bth + 1], fr[bth + 8]
    b12 = fr[bth + 12] if end - bth > 12 else 0
    pad = (b1 >> 4) & 3
    hlen = mrc_hdr_len(opcode, b8, b12)
    if hlen is None:
        return errs + ["opcode 0x%02x is not an MRC opcode" % opcode]
    rest = end - bth - hlen          # bytes after the MRC headers
    if rest < 0:
        return errs + ["packet ends %d bytes inside its MRC headers" % -rest]

    if p["trimmed"]:
        # Headers only; a switch may leave 4 stale bytes where the ICRC was.
        if rest not in (0, 4):
            errs.append("trimmed packet has %d bytes after its headers" % rest)
        if p["payload_len"] != 0:
            errs.append("manifest payload_len %d for a trimmed packet"
                        % p["payload_len"])
        return errs

    if any(e != end for e in w["ends"]):
        errs.append("IPv6 payload lengths disagree: packet ends at %s"
                    % w["ends"])
    if w["ulen"] != end - w["udp"]:
        errs.append("UDP length %d != %d bytes of UDP in the packet"
                    % (w["ulen"], end - w["udp"]))
    plen = rest - 4 - pad
    if rest < 4 + pad:
        errs.append("no room for pad %d and ICRC after the headers" % pad)
    elif plen != p["payload_len"]:
        errs.append("payload length %d != manifest %d" % (plen, p["payload_len"]))
    elif opcode in MRC_DATA_OPS and (plen + pad) % 4:
        errs.append("payload %d + pad %d is not a multiple of 4" % (plen, pad))
    elif opcode not in MRC_DATA_OPS and (plen or pad):
        errs.append("control packet has %d bytes of payload and pad %d"
                    % (plen, pad))
    if rest >= 4:
        try:
            want = icrc_expected(fr, w)
            got = fr[end - 4:end]
            if got != want:
                errs.append("ICRC %s on the wire, computed %s"
                            % (got.hex(), want.hex()))
        except Bad as e:
            errs.append("ICRC: %s" % e)
    return errs


# ---------------------------------------------------------------------------
# tshark

def tshark_env(home):
    """A private HOME and config dir: personal preferences, profiles and
    plugins (a stale mrc.lua copy in ~/.local/lib/wireshark/plugins would
    clash with -X lua_script) must not change what the test sees."""
    env = dict(os.environ)
    env["HOME"] = home
    env["WIRESHARK_CONFIG_DIR"] = os.path.join(home, "config")
    env["XDG_CONFIG_HOME"] = os.path.join(home, "config")
    env.pop("WIRESHARK_PLUGIN_DIR", None)
    env["LC_ALL"] = "C"
    return env


def lua_errors(stderr):
    lines = [l for l in stderr.splitlines() if "Lua" in l or "lua" in l]
    return "; ".join(lines)


def preflight(tshark, lua, env):
    """Returns (command prefix, None) when tshark runs mrc.lua, or
    (None, reason). Lua user scripts are refused as root unless the system
    init.lua sets run_user_scripts_when_superuser = true (the default since
    Wireshark 2.x, Debian's too); WIRESHARK_DATA_DIR is ignored as root, so
    the only way round a stricter init.lua is to drop privileges."""
    def loads(prefix):
        r = subprocess.run(prefix + [tshark, "-G", "protocols", "-X",
                                     "lua_script:" + lua],
                           env=env, capture_output=True, text=True,
                           timeout=120)
        ok = any(l.split("\t")[-1] == "mrc" for l in r.stdout.splitlines())
        return ok, lua_errors(r.stderr)

    ok, err = loads([])
    if ok:
        return [], None
    if err:
        return None, "tshark could not load %s: %s" % (lua, err)
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv:
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                  "--"]
        ok, err = loads(prefix)
        if ok:
            print("note: tshark refuses user Lua as root here; running it as "
                  "uid 65534")
            return prefix, None
    hint = (" (as root: check run_user_scripts_when_superuser in the "
            "system init.lua)" if os.geteuid() == 0 else "")
    return None, "tshark did not register the mrc protocol from %s%s" % (
        lua, hint)


def run_tshark(prefix, tshark, lua, pcap, env):
    cmd = prefix + [tshark, "-n", "-r", pcap, "-T", "pdml",
                    "-X", "lua_script:" + lua,
                    # MRC's UDP source port is EV bits, so it can be any
                    # port: let mrc.lua's heuristic (dport 4791) run before
                    # the port table, or an EV like 0x....0007 decodes as
                    # Echo.
                    "-o", "udp.try_heuristic_first:TRUE"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True,
                       timeout=300)
    err = lua_errors(r.stderr)
    if r.returncode != 0 or err:
        raise Bad("%s failed (rc %d): %s" % (" ".join(cmd), r.returncode,
                                             err or r.stderr.strip()))
    return [Decoded(pkt) for pkt in ET.fromstring(r.stdout).iter("packet")]


class Decoded:
    """One packet of PDML: the layer list, the top-level protocol elements
    in order, and every field by name (show, showname) in tree order."""

    def __init__(self, pkt):
        self.protos = [(e.get("name"), e) for e in pkt.findall("proto")]
        self.fields = {}
        for e in pkt.iter():
            name = e.get("name")
            if name:
                self.fields.setdefault(name, []).append(
                    (e.get("show"), e.get("showname") or ""))
        self.layers = self.values("frame.protocols")[0].split(":") \
            if "frame.protocols" in self.fields else []
        # (group label, message) of every expert info, e.g. ("Malformed",
        # "Bad length value 2092 > IP payload length").
        self.experts = []
        for e in pkt.iter("field"):
            if e.get("name") == "_ws.expert":
                sub = {c.get("name"): c for c in e.iter("field")}
                grp = sub.get("_ws.expert.group")
                msg = sub.get("_ws.expert.message")
                self.experts.append(
                    (label_of_group(grp.get("showname")) if grp is not None else "",
                     msg.get("show") if msg is not None else ""))

    def values(self, name):
        return [show for show, _ in self.fields.get(name, [])]

    def layer_values(self, proto, name):
        """'name' from each top-level 'proto' layer, in order."""
        out = []
        for pname, e in self.protos:
            if pname == proto:
                hit = next((f.get("show") for f in e.iter("field")
                            if f.get("name") == name), None)
                out.append(hit)
        return out


def label_of_group(showname):
    """'Group: Malformed' -> 'Malformed'."""
    return (showname or "").split(": ", 1)[-1]


# UDP's complaint about a length that counts bytes a switch trimmed away.
TRIM_MALFORMED = re.compile(r"^Bad length value \d+ > IP payload length$")


# ---------------------------------------------------------------------------
# Comparisons

def as_int(show):
    if show in ("True", "true"):
        return 1
    if show in ("False", "false"):
        return 0
    return int(show, 0)


VALUE_NAME = re.compile(r": (.+?) \((?:0x[0-9a-fA-F]+|-?[0-9]+)\)")


def label_of(showname):
    """The value name in a PDML showname: '.01. .... = M (multipath
    verdict): SKIP_ONCE (1)' -> 'SKIP_ONCE'; 'NACK reason: TRIMMED (0x01):
    payload trimmed ...' -> 'TRIMMED'. None when there is none."""
    m = VALUE_NAME.search(showname)
    return m.group(1) if m else None


def same(expected, show, showname):
    if show is None:
        return False
    if isinstance(expected, bool) or isinstance(expected, int):
        try:
            return as_int(show) == int(expected)
        except ValueError:
            return False
    if isinstance(expected, str):
        if show == expected or label_of(showname) == expected:
            return True
        try:
            return ipaddress.ip_address(show) == ipaddress.ip_address(expected)
        except ValueError:
            pass
        try:
            return as_int(show) == int(expected, 0)
        except ValueError:
            pass
        return show.replace(":", "").lower() == expected.replace(":", "").lower()
    return False


def field_check(d, name, expected, errs, what=None):
    """Every occurrence of 'name' equals 'expected' (a list: the sequence
    of all occurrences)."""
    occ = d.fields.get(name, [])
    label = what or name
    if not occ:
        errs.append("%s missing" % label)
        return
    if isinstance(expected, list):
        if len(occ) != len(expected) or not all(
                same(x, s, sn) for x, (s, sn) in zip(expected, occ)):
            errs.append("%s = %s, expected %s" % (label, [s for s, _ in occ],
                                                  expected))
        return
    bad = [s for s, sn in occ if not same(expected, s, sn)]
    if bad:
        errs.append("%s = %s, expected %s" % (label, ",".join(map(str, bad)),
                                              fmt(expected)))


def fmt(v):
    if isinstance(v, int) and not isinstance(v, bool) and not 0 <= v <= 9:
        return "%d (0x%x)" % (v, v) if v >= 0 else str(v)
    return str(v)


def tshark_checks(p, d):
    errs = []
    srv6 = p["encap"] == "srv6"
    nsegs = p["srh_segments"]
    want = (["eth"] + (["vlan"] if p["vlan"] is not None else []) + ["ipv6"]
            + (["ipv6.routing"] if nsegs else []) + (["ipv6"] if srv6 else [])
            + ["udp", "infiniband"])
    seen = [l for l in d.layers if l not in ("ethertype", "mrc")]
    if seen != want:
        errs.append("layers %s, expected %s" % (":".join(d.layers),
                                               ":".join(want)))
    if p["opcode"] in MRC_OPS and ("mrc" not in d.layers or "udp" not in
                                   d.layers or d.layers.index("mrc") <
                                   d.layers.index("udp")):
        errs.append("no mrc layer after udp (mrc.lua not applied)")
    malformed = [m for g, m in d.experts if g == "Malformed"]
    if p["trimmed"]:
        # Stale UDP length on a trimmed packet: expected, as a switch
        # leaves it; anything else malformed is not.
        malformed = [m for m in malformed if not TRIM_MALFORMED.match(m)]
    if malformed:
        errs.append("Wireshark: malformed: %s" % " | ".join(malformed))
    elif "_ws.malformed" in d.fields and not p["trimmed"]:
        errs.append("Wireshark flags the packet as malformed")

    if p["vlan"] is not None:
        field_check(d, "vlan.id", p["vlan"], errs)
    if nsegs:
        field_check(d, "ipv6.routing.type", 4, errs)
        field_check(d, "ipv6.routing.srh.last_entry", nsegs - 1, errs)
        n = len(d.fields.get("ipv6.routing.srh.addr", []))
        if n != nsegs:
            errs.append("SRH lists %d segments, expected %d" % (n, nsegs))
    dsts, srcs = d.layer_values("ipv6", "ipv6.dst"), d.layer_values("ipv6", "ipv6.src")
    if dsts:
        if p["outer_dst"] is not None and not same(p["outer_dst"], dsts[0], ""):
            errs.append("outer IPv6 dst %s, expected %s" % (dsts[0], p["outer_dst"]))
        if not same(p["inner_dst"], dsts[-1], ""):
            errs.append("inner IPv6 dst %s, expected %s" % (dsts[-1], p["inner_dst"]))
        if not same(p["inner_src"], srcs[-1], ""):
            errs.append("inner IPv6 src %s, expected %s" % (srcs[-1], p["inner_src"]))

    field_check(d, "udp.dstport", ROCEV2_PORT, errs)
    field_check(d, "udp.srcport", p["udp_sport"], errs)
    field_check(d, "infiniband.bth.opcode", p["opcode"], errs)
    field_check(d, "infiniband.bth.destqp", p["dqpn"], errs)
    field_check(d, "infiniband.bth.psn", p["psn"], errs)
    field_check(d, "infiniband.bth.a", p["ackreq"], errs, "AckReq")
    if p["opcode"] in MRC_OPS:
        field_check(d, "mrc.bth.rtx", p["rtx"], errs)
        field_check(d, "mrc.bth.ts", p["ts"], errs)

    reth = p["reth"]
    for key, names in RETH_FIELDS.items():
        present = [n for n in names if n in d.fields]
        if reth is None:
            if present:
                errs.append("manifest has no RETH but %s is present" % present[0])
        elif not present:
            errs.append("RETH %s not decoded (%s)" % (key, " / ".join(names)))
        else:
            for n in present:
                field_check(d, n, reth[key], errs)
    if p["imm"] is None:
        if "mrc.immdt" in d.fields:
            errs.append("manifest has no ImmDt but mrc.immdt is present")
    else:
        field_check(d, "mrc.immdt", p["imm"], errs)

    if p["opcode"] in MRC_OPS and not p["trimmed"]:
        # The Lua dissector's own ICRC verdict must agree with ours.
        field_check(d, "mrc.icrc.status", 1, errs, "mrc.icrc.status (Lua)")
    for name, expected in sorted(p.get("mrc", {}).items()):
        field_check(d, name, expected, errs)
    return errs


# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--lua", required=True)
    ap.add_argument("--tshark", default="tshark")
    a = ap.parse_args()

    tshark = shutil.which(a.tshark)
    if tshark is None:
        print("SKIP: %s not found" % a.tshark)
        return SKIP
    version = subprocess.run([tshark, "-v"], capture_output=True, text=True)
    if "without Lua" in version.stdout:
        print("SKIP: %s is built without Lua" % tshark)
        return SKIP
    lua = os.path.abspath(a.lua)
    with open(a.manifest) as f:
        packets = json.load(f)["packets"]
    base = os.path.dirname(os.path.abspath(a.manifest))

    home = tempfile.mkdtemp(prefix="mrc-tshark-")
    os.chmod(home, 0o755)     # readable if preflight drops to uid 65534
    try:
        env = tshark_env(home)
        prefix, why = preflight(tshark, lua, env)
        by_pcap = {}
        for p in packets:
            by_pcap.setdefault(p["pcap"], []).append(p)
        passed = failed = 0
        for pcap, entries in by_pcap.items():
            path = os.path.join(base, pcap)
            frames, decoded, batch_err = [], [], why
            if batch_err is None:
                try:
                    frames = read_pcap(path)
                    decoded = run_tshark(prefix, tshark, lua, path, env)
                except (Bad, OSError, ET.ParseError,
                        subprocess.SubprocessError) as e:
                    batch_err = str(e)
            for p in entries:
                tag = "%s (%s#%d)" % (p["name"], pcap, p["index"])
                if batch_err:
                    errs = [batch_err]
                elif p["index"] >= len(frames) or p["index"] >= len(decoded):
                    errs = ["no packet %d in %s (%d there)"
                            % (p["index"], pcap, len(frames))]
                else:
                    errs = (raw_checks(p, frames[p["index"]])
                            + tshark_checks(p, decoded[p["index"]]))
                if errs:
                    failed += 1
                    print("FAIL %s: %s" % (tag, "; ".join(errs)))
                else:
                    passed += 1
                    print("ok   %s" % tag)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    if not packets:
        print("manifest lists no packets")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
