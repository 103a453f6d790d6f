"""dumbbell's side of the fat-tree speed comparison (issue 25): CPU time per
simulated data packet on a k-ary fat tree carrying a permutation of long
TCP flows, one ACK per data packet (htsim's ACK policy), ECMP.

    .venv/bin/python tools/htsim/fabric_speed.py [--k 4 8 16] [--runs 3]

Each run is its own process (``python -m``-style re-invocation), runs of
the sizes interleaved, each under ``nice -n 10``; the figure is the
process's CPU time (``time.process_time()`` around ``db.run``) over
``summary.data_packets_sent`` (Python's share included: the scenario's
validation, the world's build, the tables; ``--write-configs`` writes the
core configurations for the core alone, ``run_json``, which
``fabric_compare.sh`` times). Durations are chosen so that every size
sends a few hundred thousand data packets. htsim's side, interleaved with
this one: ``tools/htsim/fabric_compare.sh`` (docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

DURATION_S = {4: 0.04, 8: 0.006, 16: 0.001}
"""Simulated seconds per size (``--scale`` multiplies them)."""


def scenario(k: int, scale: float = 1.0):
    """The k-ary fat tree and its permutation, as both sides run it."""
    import dumbbell as db

    s = db.fat_tree(k, rate="10Gbps", delay="1us", queue=db.DropTail(limit_pkts=100), duration_s=DURATION_S[k] * scale)
    db.permutation(s, seed=1, cc="reno", tcp=db.TcpOptions(delayed_ack=False, min_rto_s=0.005))
    return s


def one(k: int, scale: float = 1.0) -> dict[str, float]:
    import dumbbell as db

    s = scenario(k, scale)
    t0 = time.process_time()
    r = db.run(s)
    cpu = time.process_time() - t0
    pkts = r.summary["data_packets_sent"]
    return {"k": k, "hosts": k**3 // 4, "cpu_s": cpu, "data_packets": pkts, "ns_per_packet": cpu / pkts * 1e9,
            "events": r.summary["events"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="+", default=[4, 8, 16])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every duration (default 1)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--write-configs", metavar="DIR",
                    help="write each size's core configuration as DIR/fat_tree_k<K>.json (for run_json) and stop")
    a = ap.parse_args()
    if a.write_configs:
        from pathlib import Path

        Path(a.write_configs).mkdir(parents=True, exist_ok=True)
        for k in a.k:
            (Path(a.write_configs) / f"fat_tree_k{k}.json").write_text(scenario(k, a.scale).to_json())
        return
    if a.one:
        print(json.dumps(one(a.one, a.scale)))
        return
    got: dict[int, list[dict[str, float]]] = {k: [] for k in a.k}
    for i in range(a.runs):
        order = a.k if i % 2 == 0 else a.k[::-1]
        for k in order:
            out = subprocess.run(["nice", "-n", "10", sys.executable, __file__, "--one", str(k), "--scale", str(a.scale)],
                                 capture_output=True, text=True, check=True).stdout
            got[k].append(json.loads(out.strip().splitlines()[-1]))
    print(f"{'k':>3} {'hosts':>6} {'data packets':>13} {'events/pkt':>10} {'ns/packet (median)':>19} {'runs':>20}")
    base = None
    for k in a.k:
        ns = [g["ns_per_packet"] for g in got[k]]
        med = statistics.median(ns)
        base = base or med
        g = got[k][0]
        print(f"{k:>3} {g['hosts']:>6} {g['data_packets']:>13} {g['events'] / g['data_packets']:>10.2f} "
              f"{med:>12.0f} ({med / base:.2f}x) {', '.join(f'{x:.0f}' for x in ns):>20}")


if __name__ == "__main__":
    main()
