"""Writes the core configurations of the speed comparison with htsim
(docs/performance.md) as JSON files, for the `run_json` example:

    .venv/bin/python tools/htsim/configs.py OUT_DIR [--ack-every-packet]

- ``reno-1g``: one Reno flow, ``snd`` —10 Gb/s, 0 delay— ``r`` —1 Gb/s,
  10 ms— ``rcv`` (RTT 20 ms), drop-tail of one BDP (1667 packets of
  1500 B), 30 s;
- ``reno-10g``: the same at 10 Gb/s (access 100 Gb/s, 16667 packets), 3 s;
- ``dctcp-100m``: two DCTCP flows from ``snd`` (access 1 Gb/s) over a
  100 Mb/s, 10 ms bottleneck with step marking at K = 20 packets in a
  200-packet queue, 100 s;
- ``cubic-10g`` and ``many-10g``: `dumbbell bench`'s one-flow and
  1000-flow cases (5 s each), for the cost per packet with many flows.

SACK, delayed ACKs and timestamps stay at their defaults; tables are the
standard ones, nothing traced. ``--ack-every-packet`` turns delayed ACKs
off (``delayed_ack=False``: one ACK per data packet, htsim's policy), so
that both simulators do the same work per packet.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from dumbbell import bench
from dumbbell.scenario import DropTail, Link, Node, Scenario, Step, TcpFlow, TcpOptions

PKT_BYTES = 1500
MSS_BYTES = 1460
ONE_WAY_S = 0.010


def line(name: str, cc: str, access_bps: int, rate_bps: int, duration_s: float, flows: int, queue,
         delayed_ack: bool | None = None) -> Scenario:
    return Scenario(
        name=name,
        duration_s=duration_s,
        nodes=[Node(name="snd"), Node(name="r", kind="switch"), Node(name="rcv")],
        links=[
            Link(a="snd", b="r", rate_bps=access_bps, delay_s=0.0),
            Link(a="r", b="rcv", rate_bps=rate_bps, delay_s=ONE_WAY_S, queue_ab=queue),
        ],
        flows=[
            TcpFlow(name=f"f{i}", src="snd", dst="rcv", cc=cc, tcp=TcpOptions(mss_bytes=MSS_BYTES, ecn=cc == "dctcp",
                                                                           delayed_ack=delayed_ack))
            for i in range(flows)
        ],
    )


def bdp_pkts(rate_bps: int) -> int:
    return math.ceil(rate_bps * 2 * ONE_WAY_S / (PKT_BYTES * 8))


def scenarios(delayed_ack: bool | None = None) -> dict[str, Scenario]:
    """The configurations; ``delayed_ack=False``: one ACK per data packet in
    the three scenarios compared with htsim (None: the default, delayed)."""
    d = delayed_ack
    return {
        "reno-1g": line("reno-1g", "reno", 10**10, 10**9, 30.0, 1, DropTail(limit_pkts=bdp_pkts(10**9)), d),
        "reno-10g": line("reno-10g", "reno", 10**11, 10**10, 3.0, 1, DropTail(limit_pkts=bdp_pkts(10**10)), d),
        "dctcp-100m": line("dctcp-100m", "dctcp", 10**9, 10**8, 100.0, 2, Step(limit_pkts=200, k_pkts=20), d),
        "cubic-10g": bench._cubic("cubic-10g", 40_000_000_000, 10_000_000_000, 5.0),
        "many-10g": bench.scenario_for("many-10g"),
    }


def main(out: str, delayed_ack: bool | None = None) -> None:
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    for name, s in scenarios(delayed_ack).items():
        (d / f"{name}.json").write_text(json.dumps(s.to_core(1)))
        print(d / f"{name}.json")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--ack-every-packet"]
    main(args[0] if args else "out/perf", False if "--ack-every-packet" in sys.argv[1:] else None)
