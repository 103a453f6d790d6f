"""Packet capture (``record.pcap``): the pcap files a run writes, read back
by a reader written here (every header, checksum and option) and by
Debian's ``tshark`` (every packet read, none malformed, its TCP analysis
finds the retransmissions the flows table counts)."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.run.pcap import LINKTYPE_RAW, PCAP_MAGIC_NS, checksum, node_address

from .conftest import MINIMAL_TOML, write_toml

# -- a pcap reader, written from the file format, independent of the writer --


def read_pcap(path: Path) -> tuple[dict[str, int], list[tuple[int, int, bytes]]]:
    """The global header and every record: (time in ns, original length, data)."""
    raw = path.read_bytes()
    magic, major, minor, _zone, _sigfigs, snap, link = struct.unpack("<IHHiIII", raw[:24])
    head = {"magic": magic, "major": major, "minor": minor, "snap": snap, "link": link}
    out = []
    at = 24
    while at < len(raw):
        sec, nsec, incl, orig = struct.unpack("<IIII", raw[at : at + 16])
        assert nsec < 10**9 and incl <= orig and incl <= snap
        data = raw[at + 16 : at + 16 + incl]
        assert len(data) == incl, "a record is cut short"
        out.append((sec * 10**9 + nsec, orig, data))
        at += 16 + incl
    return head, out


def _options(raw: bytes) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    i = 0
    while i < len(raw):
        kind = raw[i]
        if kind == 0:
            break
        if kind == 1:
            i += 1
            continue
        n = raw[i + 1]
        body = raw[i + 2 : i + n]
        assert n >= 2 and i + n <= len(raw), f"option {kind} overruns the header"
        if kind == 2:
            opts["mss"] = struct.unpack("!H", body)[0]
        elif kind == 3:
            opts["wscale"] = body[0]
        elif kind == 4:
            opts["sack_ok"] = True
        elif kind == 5:
            opts["sack"] = [struct.unpack("!II", body[j : j + 8]) for j in range(0, len(body), 8)]
        elif kind == 8:
            opts["ts"] = struct.unpack("!II", body)
        else:
            raise AssertionError(f"unexpected option kind {kind}")
        i += n
    return opts


def parse(data: bytes, orig: int) -> dict[str, Any]:
    """One raw IPv4 packet's headers; asserts the IPv4 and TCP/UDP
    checksums over the whole packet (the payload not captured is zeros)."""
    vihl, tos, total, _ident, frag, ttl, proto, _c, src, dst = struct.unpack("!BBHHHBBH4s4s", data[:20])
    assert vihl == 0x45 and total == orig and frag == 0x4000 and 0 < ttl <= 64
    assert checksum(data[:20]) == 0, "IPv4 header checksum"
    l4 = data[20:]
    whole = l4 + bytes(total - 20 - len(l4))
    pseudo = src + dst + struct.pack("!BBH", 0, proto, total - 20)
    p = {"ecn": tos & 3, "dscp": tos >> 2, "src": src, "dst": dst, "proto": proto, "len": total}
    if proto == 17:
        sport, dport, length, _ = struct.unpack("!HHHH", l4[:8])
        assert length == total - 20
        assert checksum(pseudo + whole) == 0, "UDP checksum"
        p.update(sport=sport, dport=dport, payload=length - 8)
        return p
    assert proto == 6
    sport, dport, seq, ack, off, flags, win, _csum, urg = struct.unpack("!HHIIBBHHH", l4[:20])
    hlen = (off >> 4) * 4
    assert 20 <= hlen <= 60 and urg == 0
    assert checksum(pseudo + whole) == 0, "TCP checksum"
    p.update(sport=sport, dport=dport, seq=seq, ack=ack, flags=flags, win=win, payload=total - 20 - hlen,
             opts=_options(l4[20:hlen]))
    return p


# -- runs --------------------------------------------------------------------

RATE = 20_000_000


def _lossy(duration_s: float = 1.0, ecn: bool = False) -> db.Scenario:
    s = db.dumbbell(1, 1, access_rate="1Gbps", bottleneck_rate=RATE, access_delay="100us",
                    bottleneck_delay="5ms", bottleneck_loss=0.0 if ecn else 0.01, duration_s=duration_s,
                    name="pcap", queue=db.Step(k_pkts=20) if ecn else None)
    s.add_flow(db.TcpFlow(src="snd1", dst="rcv1", cc="dctcp" if ecn else "cubic"))
    s.record = db.Record(pcap=[db.PcapPoint(host="snd1"), db.PcapPoint(node="r1", peer="r2"),
                               db.PcapPoint(host="rcv1")])
    return s


@pytest.fixture(scope="module")
def lossy(tmp_path_factory: pytest.TempPathFactory) -> tuple[db.Result, Path]:
    r = db.run(_lossy(), seed=3)
    d = r.to_parquet(tmp_path_factory.mktemp("lossy"))
    return r, d


def _packets(d: Path, stem: str) -> list[dict[str, Any]]:
    head, recs = read_pcap(d / f"{stem}.pcap")
    assert head == {"magic": PCAP_MAGIC_NS, "major": 2, "minor": 4, "snap": 128, "link": LINKTYPE_RAW}
    times = [t for t, _, _ in recs]
    assert times == sorted(times), "packets in time order"
    return [dict(parse(data, orig), t=t, incl=len(data)) for t, orig, data in recs]


def test_every_packet_is_written_with_valid_headers(lossy):
    r, d = lossy
    cap = r.table("captures")
    names = [n["name"] for n in r.config["nodes"]]
    snd, rcv = node_address(names.index("snd1")), node_address(names.index("rcv1"))
    for i, stem in enumerate(["capture_snd1", "capture_r1-r2", "capture_rcv1"]):
        pk = _packets(d, stem)
        assert len(pk) == cap.filter(cap["point"] == i).height > 100
        assert all(p["incl"] == min(p["len"], 128) for p in pk)
        assert {(p["src"], p["dst"]) for p in pk} <= {(snd, rcv), (rcv, snd)}
    port = _packets(d, "capture_r1-r2")
    assert all(p["src"] == snd for p in port), "the port r1->r2 carries only the data direction"
    # the sender puts every data packet of the run on the wire: its own count
    sent = [p for p in _packets(d, "capture_snd1") if p["src"] == snd and p["payload"] > 0]
    assert len(sent) == r.summary["data_packets_sent"]
    # the bottleneck link loses ~1% after the port: the port saw them all,
    # the receiver all but those lost and those still on their way at the end
    at_port = [p for p in port if p["payload"] > 0]
    at_rcv = [p for p in _packets(d, "capture_rcv1") if p["dst"] == rcv and p["payload"] > 0]
    lost = int(r.queues.filter((r.queues["node"] == "r1") & (r.queues["peer"] == "r2"))["drops_link_loss"][0])
    assert lost > 0
    assert 0 <= len(at_port) - len(at_rcv) - lost <= r.summary["packets_in_flight"]


def test_sequence_numbers_match_the_flows_table(lossy):
    r, d = lossy
    flow = r.flows.row(0, named=True)
    pk = _packets(d, "capture_snd1")
    names = [n["name"] for n in r.config["nodes"]]
    snd = node_address(names.index("snd1"))
    data = [p for p in pk if p["src"] == snd and p["payload"] > 0]
    # ISN 0, the SYN takes sequence number 0: the first byte is 1
    assert data[0]["seq"] == 1
    seen: set[int] = set()
    again = 0
    for p in data:
        again += p["seq"] in seen
        seen.add(p["seq"])
    assert again == flow["retransmits"] > 0
    assert sum(p["payload"] for p in data) == flow["bytes_sent"]
    assert len(data) == flow["data_pkts_sent"]
    # what the receiver acknowledged last is what the flows table says it got
    acks = [p for p in _packets(d, "capture_rcv1") if p["src"] != snd]
    assert max(p["ack"] for p in acks) - 1 == flow["bytes_delivered"]


def test_options_carry_the_handshake_timestamps_and_sack_blocks(lossy):
    r, d = lossy
    pk = _packets(d, "capture_snd1")
    syn, synack = pk[0], next(p for p in pk if p["flags"] & 0x12 == 0x12)
    assert syn["flags"] & 0x12 == 0x02 and syn["seq"] == 0 and syn["ack"] == 0
    assert syn["opts"]["mss"] == 1448 and syn["opts"]["sack_ok"] and "wscale" in syn["opts"]
    assert synack["ack"] == 1 and synack["opts"]["mss"] == 1448
    later = [p for p in pk if not p["flags"] & 0x02]
    assert all(p["flags"] & 0x10 for p in later), "every packet after the SYN carries ACK"
    assert all("ts" in p["opts"] for p in later)
    sacked = [p for p in later if "sack" in p["opts"]]
    assert sacked, "a lossy run's ACKs carry SACK blocks"
    for p in sacked:
        for left, right in p["opts"]["sack"]:
            assert left < right
    # the receiver's window, scaled by the shift its SYN-ACK announced
    shift = synack["opts"]["wscale"]
    rwnd = r.config["flows"][0].get("tcp", {}).get("rwnd_bytes")
    acks = [p for p in later if p["payload"] == 0 and p["src"] == synack["src"]]
    if rwnd:
        assert all(p["win"] << shift <= rwnd for p in acks)
    assert all(p["win"] > 0 for p in acks)


def test_ecn_bits_and_flags_follow_the_marks(tmp_path):
    r = db.run(_lossy(0.5, ecn=True), seed=1)
    d = r.to_parquet(tmp_path)
    port = _packets(d, "capture_r1-r2")
    rcv = _packets(d, "capture_rcv1")
    syn = _packets(d, "capture_snd1")[0]
    assert syn["flags"] & 0xC2 == 0xC2, "an ECN-setup SYN carries ECE and CWR"
    q = r.queues.filter((r.queues["node"] == "r1") & (r.queues["peer"] == "r2"))
    ce = [p for p in rcv if p["ecn"] == 3]
    # every CE packet the receiver counted, and no more: marks at the
    # bottleneck, but those still on their way at the end
    assert 0 < len(ce) == r.flows["ce_received"][0] <= int(q["marked_pkts"][0])
    # the sender's data leaves as ECT(0); the bottleneck marks it at
    # enqueue, so its port already sends CE
    names = [n["name"] for n in r.config["nodes"]]
    snd = node_address(names.index("snd1"))
    sent = [p for p in _packets(d, "capture_snd1") if p["src"] == snd and p["payload"] > 0]
    assert sent and all(p["ecn"] == 2 for p in sent)
    data = [p for p in port if p["payload"] > 0]
    assert all(p["ecn"] in (2, 3) for p in data)
    assert len(ce) <= sum(p["ecn"] == 3 for p in data) <= int(q["marked_pkts"][0])
    assert any(p["flags"] & 0x40 for p in rcv if p["payload"] == 0), "the receiver echoes ECE"


def test_bad_capture_points_are_refused_naming_the_field():
    s = _lossy(0.1)
    s.record.pcap = [db.PcapPoint(node="r1", peer="rcv1")]
    with pytest.raises(ConfigError, match=r"record\.pcap\[0\]\.peer"):
        db.run(s)
    s.record.pcap = [db.PcapPoint(host="r1")]
    with pytest.raises(ConfigError, match=r"record\.pcap\[0\]\.host"):
        db.run(s)
    with pytest.raises(ConfigError, match="host"):
        db.PcapPoint(node="r1")


def test_capture_observes_only():
    s = _lossy(0.3)
    with_cap = db.run(s, seed=2)
    s.record = db.Record()
    without = db.run(s, seed=2)
    # Capturing keeps every port's departure events (its rows in time
    # order, docs/model.md): more events, the same run.
    assert with_cap.summary["events"] > without.summary["events"]
    for k in ("packets_created", "packets_delivered", "packets_dropped", "data_packets_sent"):
        assert with_cap.summary[k] == without.summary[k], k
    assert with_cap.flows.drop("time_s", strict=False).equals(without.flows.drop("time_s", strict=False))
    assert with_cap.queues.equals(without.queues)


# -- tshark ------------------------------------------------------------------

TSHARK = shutil.which("tshark")


def _tshark(path: Path, *args: str) -> list[str]:
    out = subprocess.run([TSHARK, "-n", "-r", str(path), *args], capture_output=True, text=True, timeout=120,
                         check=True)
    return [line for line in out.stdout.splitlines() if line.strip()]


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (make test installs Debian's tshark when root)")
def test_tshark_reads_every_packet_and_finds_our_retransmissions(lossy):
    r, d = lossy
    cap = r.table("captures")
    flow = r.flows.row(0, named=True)
    for i, stem in enumerate(["capture_snd1", "capture_r1-r2", "capture_rcv1"]):
        path = d / f"{stem}.pcap"
        frames = _tshark(path, "-T", "fields", "-e", "frame.number", "-e", "ip.proto")
        assert len(frames) == cap.filter(cap["point"] == i).height
        assert all(f.split("\t")[1] == "6" for f in frames), "tshark decodes every packet as IPv4/TCP"
        assert _tshark(path, "-Y", "_ws.malformed || _ws.expert.severity == error") == []
    # at the sender, tshark's analysis sees the retransmissions the flows
    # table counts (fast retransmits, RTO retransmits, spurious ones; one
    # sent within tshark's RTT estimate of the original it calls
    # "out-of-order", which at the sender's own capture, where nothing is
    # reordered, is a retransmission too)
    retx = _tshark(d / "capture_snd1.pcap", "-Y",
                   "tcp.analysis.retransmission || tcp.analysis.fast_retransmission"
                   " || tcp.analysis.spurious_retransmission || tcp.analysis.out_of_order",
                   "-T", "fields", "-e", "frame.number")
    assert len(retx) == flow["retransmits"] > 0


def test_dumbbell_run_out_writes_the_pcap_of_a_toml_scenario(cli, tmp_path):
    text = MINIMAL_TOML.format(rate="100Mbps", cc="cubic") + (
        '\n[record]\npcap = [{ node = "s1", peer = "b" }, { host = "a" }]\npcap_snap_bytes = 96\n'
    )
    res = cli("run", str(write_toml(tmp_path, text)), "--out", str(tmp_path / "out"))
    assert res.code == 0, res.stderr
    port, host = tmp_path / "out" / "capture_s1-b.pcap", tmp_path / "out" / "capture_a.pcap"
    for path in (port, host):
        head, recs = read_pcap(path)
        assert head["snap"] == 96 and len(recs) > 100
        for _, orig, data in recs:
            parse(data, orig)
    # the host sends the data and receives the ACKs; the port only forwards data
    loaded = db.Result.load(tmp_path / "out")
    assert len(read_pcap(host)[1]) == loaded.table("captures").filter(loaded.table("captures")["point"] == 1).height
    assert all(p["payload"] > 0 or p["flags"] & 0x02 for p in (parse(d, o) for _, o, d in read_pcap(port)[1]))


def test_udp_datagrams_get_udp_headers(tmp_path):
    s = db.dumbbell(1, 1, access_rate="1Gbps", bottleneck_rate=RATE, access_delay="100us",
                    bottleneck_delay="1ms", duration_s=0.1, name="pcap-udp")
    s.add_flow(db.UdpFlow(src="snd1", dst="rcv1", rate_bps="5Mbps", payload_bytes=1000))
    s.record = db.Record(pcap=[db.PcapPoint(host="rcv1")])
    r = db.run(s, seed=1)
    pk = _packets(r.to_parquet(tmp_path), "capture_rcv1")
    assert len(pk) == r.flows["bytes_delivered"][0] // 1000 > 50
    assert all(p["proto"] == 17 and p["payload"] == 1000 and p["len"] == 1028 for p in pk)
    if TSHARK is not None:
        frames = _tshark(tmp_path / "capture_rcv1.pcap", "-T", "fields", "-e", "udp.length")
        assert frames == ["1008"] * len(pk)
