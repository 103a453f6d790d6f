"""The traced runs behind docs/experiments/highspeed.md (E5 ``highspeed``).

Each section runs a few single simulations of E5's setups
(``dumbbell.experiments.highspeed``) with the sender's window and loss
recovery recorded and prints what the docs quote. Deterministic: the same
section prints the same numbers with the same build.

    python examples/highspeed_evidence.py --list
    python examples/highspeed_evidence.py overshoot
    python examples/highspeed_evidence.py all
"""

from __future__ import annotations

import statistics
import sys

import polars as pl

import dumbbell as db
import evidence_sections  # beside this file
from dumbbell.experiments import highspeed as e5


def traced(s: db.Scenario, seed: int, sample_s: float) -> db.Result:
    s.record.flow_sample_s = sample_s
    s.record.tcp_vars = True
    return db.run(s, seed=seed)


def cwnd(r: db.Result, flow: int = 0) -> list[int]:
    f = r.tables["flow_samples"]
    return f.filter(pl.col("flow") == flow).sort("time_ps")["cwnd_pkts"].to_list()


def inflight(r: db.Result, flow: int = 0) -> list[int]:
    f = r.tables["flow_samples"]
    return f.filter(pl.col("flow") == flow).sort("time_ps")["in_flight_pkts"].to_list()


def counters(r: db.Result, flow: int = 0) -> str:
    f = r.flows.row(flow, named=True)
    steady = f.get("steady_goodput_bps")
    st = f", steady {steady / 1e6:.1f} Mb/s" if steady is not None else ""
    return (f"goodput {f['goodput_bps'] / 1e6:.1f} Mb/s{st}; retransmits {f['retransmits']}, timeouts "
            f"{f['timeouts']}, recoveries {f['recoveries']}")


def overshoot() -> None:
    """Reno's first slow start at 40 ms latency (80 ms RTT) and p = 1e-4:
    the window each second, 30 s, seed 1."""
    s = e5.single_scenario("reno", 40, 1e-4, 30.0, warmup_s=10.0)
    r = traced(s, seed=1, sample_s=0.01)
    w = cwnd(r)
    print(f"  {counters(r)}")
    print(f"  cwnd (packets) at 1, 2, ... 30 s: {w[99::100]}")
    peak = max(w)
    i = w.index(peak)
    below = next((j for j in range(i, len(w)) if w[j] <= 180), None)
    print(f"  peak {peak} at {(i + 1) * 0.01:.2f} s; first at or below 1.5 x the model's 120 packets at "
          f"{'-' if below is None else f'{(below + 1) * 0.01:.2f}'} s")


def ratio_at(latencies: tuple[int, ...], loss: float, seeds: tuple[int, ...]) -> None:
    for lat in latencies:
        g = {}
        for cc in ("reno", "highspeed"):
            vals, steady, wmax, rw = [], [], [], []
            for seed in seeds:
                s = e5.single_scenario(cc, lat, loss, 60.0, warmup_s=20.0)
                r = traced(s, seed=seed, sample_s=0.5)
                f = r.flows.row(0, named=True)
                vals.append(f["goodput_bps"])
                steady.append(f["steady_goodput_bps"])
                wmax.append(max(cwnd(r)))
                fl = inflight(r)[40:]
                rw.append(sum(1 for x in fl if x >= 0.95 * e5.RWND_PKTS) / max(len(fl), 1))
                print(f"  {lat} ms, p={loss:g}, {cc}, seed {seed}: {counters(r)}; cwnd max {wmax[-1]}, "
                      f"in flight at >= 95 % of the 6000-packet receive window in {100 * rw[-1]:.0f} % of samples after 20 s")
            g[cc] = (statistics.mean(vals), statistics.mean(steady))
        w_tcp, w_hs = e5.model_window("reno", loss), e5.model_window("highspeed", loss)
        print(f"  {lat} ms, p={loss:g}: highspeed / reno = {g['highspeed'][0] / g['reno'][0]:.2f} over the run, "
              f"{g['highspeed'][1] / g['reno'][1]:.2f} after 20 s (mean of seeds {seeds}); response functions "
              f"{w_hs:.0f} / {w_tcp:.0f} = {w_hs / w_tcp:.2f}")


def high_loss() -> None:
    """p = 1e-4 at 20 and 40 ms latency: HSTCP / TCP, 60 s, warm-up 20 s, seeds 1 and 2."""
    ratio_at((20, 40), 1e-4, (1, 2))


def moderate_loss() -> None:
    """p = 1e-5 at 20 and 40 ms latency: HSTCP's gain over TCP, 60 s, warm-up 20 s, seeds 1 and 2."""
    ratio_at((20, 40), 1e-5, (1, 2))


def low_loss() -> None:
    """p = 1e-6 at 20 and 40 ms latency: does HSTCP fill the link where TCP
    does not? 60 s, warm-up 20 s, seed 1."""
    ratio_at((20, 40), 1e-6, (1,))


def wan() -> None:
    """The GIGA-like WAN: 1 and 10 TCP flows, 1 HSTCP flow, 60 s, seed 1."""
    for cc, n in (("reno", 1), ("reno", 10), ("highspeed", 1)):
        s = e5.wan_scenario(cc, n, 60.0)
        r = traced(s, seed=1, sample_s=1.0)
        total = float(r.flows["goodput_bps"].sum())
        rtx = int(r.flows["retransmits"].sum())
        to = int(r.flows["timeouts"].sum())
        q = r.tables["queues"]
        drops = int(q["drops_overflow"].sum())
        print(f"  {cc} x {n}: aggregate {total / 1e6:.1f} Mb/s, retransmits {rtx}, timeouts {to}, queue overflow drops "
              f"{drops}; flow 0 cwnd median {statistics.median(cwnd(r)):.0f} max {max(cwnd(r))}")


SECTIONS = {"overshoot": overshoot, "high-loss": high_loss, "moderate-loss": moderate_loss, "low-loss": low_loss,
            "wan": wan}


def main(argv: list[str] | None = None) -> int:
    return evidence_sections.main(SECTIONS, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
