"""pcap files from a run's ``captures`` table (``record.pcap``).

The core records the header fields of every packet seen at a capture point
(``crates/dumbbell-core/src/world/capture.rs``); this module turns them into
one classic pcap file per point (nanosecond timestamps, magic
``0xa1b23c4d``, link type 101: raw IPv4, no Ethernet header), which
Wireshark and tshark read. docs/output.md, "Packet capture", states the
rules:

- **addresses**: the node listed ``i``-th (from 0) in the run's ``nodes``
  is ``10.0.0.0 + i + 1`` (the first node 10.0.0.1, the 256th 10.0.1.0);
- **sequence numbers**: each direction's initial sequence number is 0, so a
  byte at offset ``n`` of the stream has sequence number ``n + 1`` (the
  SYN takes 0) and a FIN takes one number after the last byte, as on a
  real wire (the model gives neither SYN nor FIN sequence space); every
  packet but a first SYN carries ACK;
- **options**: a SYN carries MSS, SACK-permitted (when the flow has SACK),
  timestamps and window scale (the smallest shift that fits the largest
  window the capture shows); later segments carry timestamps (when the
  flow uses them) and SACK blocks;
- **window**: the receive window the packet carries, scaled; the data
  sender, whose window the model does not track, advertises 65535 (its
  scaled maximum);
- IP: ECN bits from the packet, DSCP 0, don't-fragment set, identification
  0, TTL 64 minus the hops crossed; IPv4, TCP and UDP checksums computed
  over the whole packet (the payload is zeros);
- each packet's original length is its IPv4 length (headers as built here
  plus the payload), and only its first ``record.pcap_snap_bytes`` (128)
  are written.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import polars as pl

__all__ = ["PCAP_MAGIC_NS", "LINKTYPE_RAW", "node_address", "point_names", "write_pcaps", "checksum"]

PCAP_MAGIC_NS = 0xA1B23C4D
LINKTYPE_RAW = 101
_SYN, _FIN, _ACK, _ECE, _CWR = 0x02, 0x01, 0x10, 0x40, 0x80
_DEFAULT_MSS = 1448
_DEFAULT_SNAP = 128


def node_address(index: int) -> bytes:
    """The IPv4 address of the node listed ``index``-th (from 0) in the
    run's ``nodes``: ``10.0.0.0 + index + 1``."""
    if not 0 <= index < 2**24 - 2:
        raise ValueError(f"node index {index} has no address in 10.0.0.0/8")
    return struct.pack("!I", (10 << 24) + index + 1)


def checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071) of ``data``: the ones' complement
    of the ones' complement sum of its 16-bit words."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def point_names(config: Mapping[str, Any]) -> list[str]:
    """A file stem per capture point of ``record.pcap``:
    ``capture_<node>-<peer>`` for a port, ``capture_<host>`` for a host
    (characters other than letters, digits, ``.``, ``_`` and ``-`` become
    ``_``)."""
    names = []
    for p in config.get("record", {}).get("pcap", []):
        raw = p["host"] if p.get("host") is not None else f"{p['node']}-{p['peer']}"
        names.append("capture_" + re.sub(r"[^A-Za-z0-9._-]", "_", raw))
    return names


def _flow_tcp(config: Mapping[str, Any], flow: int) -> Mapping[str, Any]:
    flows = config.get("flows", [])
    if flow < len(flows):
        return flows[flow].get("tcp") or {}
    return {}  # a workload task's connection: defaults


class _Flows:
    """What the headers of a flow's packets need from the whole capture."""

    def __init__(self, cap: pl.DataFrame, config: Mapping[str, Any]) -> None:
        self.config = config
        fin = cap.filter((pl.col("tcp_flags") & _FIN) != 0)
        # the end of the stream, where a FIN's sequence number goes
        self.fin_end = dict(
            fin.group_by("flow").agg((pl.col("seq") + pl.col("payload_bytes")).min().alias("end")).iter_rows()
        )
        self.ts_on = set(cap.filter(pl.col("ts_val") != 0)["flow"].unique().to_list())
        largest = dict(cap.group_by("flow").agg(pl.col("rwnd_bytes").max()).iter_rows())
        self.wscale = {f: _shift(int(w)) for f, w in largest.items()}

    def mss(self, flow: int) -> int:
        return int(_flow_tcp(self.config, flow).get("mss_bytes", _DEFAULT_MSS))

    def sack(self, flow: int) -> bool:
        return bool(_flow_tcp(self.config, flow).get("sack", True))


def _shift(largest: int) -> int:
    s = 0
    while s < 14 and largest >> s > 0xFFFF:
        s += 1
    return s


def _tcp_options(r: Mapping[str, Any], flows: _Flows) -> bytes:
    flow = r["flow"]
    ts = struct.pack("!BBII", 8, 10, r["ts_val"], r["ts_ecr"]) if flow in flows.ts_on else b""
    if r["tcp_flags"] & _SYN:
        opt = struct.pack("!BBH", 2, 4, min(flows.mss(flow), 0xFFFF))
        opt += b"\x04\x02" if flows.sack(flow) else b"\x01\x01"
        opt += ts if ts else b"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"
        return opt + struct.pack("!BBBB", 1, 3, 3, flows.wscale.get(flow, 0))
    opt = b"\x01\x01" + ts if ts else b""
    n = r["n_sack"]
    if n:
        fin_end = flows.fin_end.get(flow)
        opt += struct.pack("!BBBB", 1, 1, 5, 2 + 8 * n)
        for j in range(1, n + 1):
            s, e = r[f"sack{j}_start"], r[f"sack{j}_end"]
            opt += struct.pack("!II", _wire_seq(s, fin_end), _wire_seq(e, fin_end))
    return opt


def _wire_seq(seq: int, fin_end: int | None) -> int:
    """A stream offset as a sequence number on the wire (ISN 0, SYN and
    FIN each taking one)."""
    return (seq + 1 + (fin_end is not None and seq > fin_end)) & 0xFFFFFFFF


def _wire_ack(ack: int, fin_end: int | None) -> int:
    return (ack + 1 + (fin_end is not None and ack >= fin_end)) & 0xFFFFFFFF


def _packet(r: Mapping[str, Any], flows: _Flows) -> tuple[bytes, int]:
    """The headers of one captured row's IPv4 packet, and its length
    (headers and payload)."""
    src, dst = node_address(r["src"]), node_address(r["dst"])
    payload = r["payload_bytes"]
    flags = r["tcp_flags"]
    if r["proto"] == 1:  # UDP
        length = 8 + payload
        proto = 17
        l4 = struct.pack("!HHHH", r["sport"], r["dport"], length & 0xFFFF, 0)
        c = checksum(src + dst + struct.pack("!BBH", 0, proto, length & 0xFFFF) + l4) or 0xFFFF
        l4 = l4[:6] + struct.pack("!H", c)
    else:
        proto = 6
        flow = r["flow"]
        fin_end = flows.fin_end.get(flow)
        opt = _tcp_options(r, flows)
        hlen = 20 + len(opt)
        length = hlen + payload
        first_syn = flags & _SYN and not flags & _ACK
        seq = 0 if flags & _SYN else _wire_seq(r["seq"], fin_end)
        ack = 0 if first_syn else _wire_ack(r["ack"], fin_end)
        if not first_syn:
            flags |= _ACK
        if flags & _SYN:
            window = 0xFFFF if r["rwnd_bytes"] == 0 else min(r["rwnd_bytes"], 0xFFFF)
        else:
            window = 0xFFFF if r["rwnd_bytes"] == 0 else min(r["rwnd_bytes"] >> flows.wscale.get(flow, 0), 0xFFFF)
        hdr = struct.pack("!HHIIBBHHH", r["sport"], r["dport"], seq, ack, (hlen // 4) << 4, flags & 0xFF, window, 0, 0)
        l4 = hdr + opt
        pseudo = src + dst + struct.pack("!BBH", 0, proto, length & 0xFFFF)
        l4 = l4[:16] + struct.pack("!H", checksum(pseudo + l4)) + l4[18:]
    total = 20 + length
    ttl = max(64 - r["hops"], 1)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, r["ecn"] & 3, min(total, 0xFFFF), 0, 0x4000, ttl, proto, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return ip + l4, total


def write_pcaps(captures: pl.DataFrame, config: Mapping[str, Any], directory: str | Path) -> list[Path]:
    """Writes one pcap file per capture point of ``config["record"]["pcap"]``
    into ``directory`` (``capture_<node>-<peer>.pcap``, ``capture_<host>.pcap``),
    packets in time order; returns their paths."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    snap = int(config.get("record", {}).get("pcap_snap_bytes", _DEFAULT_SNAP))
    flows = _Flows(captures, config)
    paths = []
    for i, stem in enumerate(point_names(config)):
        rows = captures.filter(pl.col("point") == i).sort("time_ps", maintain_order=True)
        path = d / f"{stem}.pcap"
        with open(path, "wb") as f:
            f.write(struct.pack("<IHHiIII", PCAP_MAGIC_NS, 2, 4, 0, 0, snap, LINKTYPE_RAW))
            for r in rows.iter_rows(named=True):
                pkt, total = _packet(r, flows)
                data = pkt + bytes(max(0, min(total, snap) - len(pkt)))
                data = data[:snap]
                t = r["time_ps"]
                f.write(struct.pack("<IIII", t // 10**12, (t // 1000) % 10**9, len(data), total))
                f.write(data)
        paths.append(path)
    return paths
