"""Permutation traffic on a k = 8 fat tree: single path against ECMP.

128 hosts at 10 Gb/s (a k = 8 fat tree, full bisection bandwidth, 1 us
per link, 100-packet drop-tail ports), every host sending one long TCP
(Reno) flow to another, each receiving one (a random permutation). The
fabric could carry every flow at line rate (a fat tree is rearrangeably
non-blocking); what single-path routing gets is what its choice of paths
allows:

- ``single``: every switch takes its lowest equal-cost port, so every
  inter-pod flow climbs to the same aggregation switch of its pod and the
  same core switch: a handful of links carry everything, most hosts get a
  few percent of the line rate;
- ``ecmp``: each switch hashes the 5-tuple, flows spread like balls in
  bins, and collisions (two long flows on one link while another stays
  idle) cost a share of the bisection: Raiciu et al., "Improving
  datacenter performance and robustness with multipath TCP" (SIGCOMM
  2011), measured exactly this with htsim on the 128-host FatTree.

Per host: the steady goodput (after a quarter of the run) as a fraction of
the line rate; the figure is its distribution for both routings. Beside
them, the flow-level model of the same permutation: max-min fair rates
when every flow takes a uniformly random shortest path (no TCP), the
ceiling a single-path hash allows. Run:

    .venv/bin/python examples/fabric_permutation.py [--duration 0.05] [--out out/fabric]

(0.05 s of simulated time: about 15 s on one core, and 3 s for the model.)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import polars as pl

import dumbbell as db

LINE_RATE = 10e9


def run(routing: str, duration_s: float, seed: int) -> tuple[pl.DataFrame, pl.DataFrame, float]:
    s = db.fat_tree(8, rate="10Gbps", delay="1us", queue=db.DropTail(limit_pkts=100), routing=routing,
                    duration_s=duration_s, name=f"fat_tree_k8_{routing}")
    db.permutation(s, seed=seed, cc="reno", tcp=db.TcpOptions(min_rto_s=0.005))
    s.record.warmup_s = duration_s / 4
    t0 = time.process_time()
    r = db.run(s, seed=seed)
    cpu = time.process_time() - t0
    share = r.flows.select("src", "dst", (pl.col("steady_goodput_bps") / LINE_RATE).alias("fraction"))
    return share, r.queues, cpu


def flow_level(k: int, pairs: list[tuple[str, str]], trials: int = 100, seed: int = 1) -> float:
    """Mean per-host throughput / line rate that max-min fair sharing gives
    when every flow takes a uniformly random shortest path (what ECMP
    does), averaged over ``trials`` draws of the paths: the flow-level model
    of Raiciu et al.'s Fig. 2, with no TCP dynamics at all."""
    import random

    rng = random.Random(f"flow-level:{seed}")
    half = k // 2
    loc = {f"h{h}": (h // (half * half), (h // half) % half) for h in range(k**3 // 4)}
    total = 0.0
    for _ in range(trials):
        links: dict[tuple, list[int]] = {}
        for i, (a, b) in enumerate(pairs):
            (pa, ea), (pb, eb) = loc[a], loc[b]
            path: list[tuple] = [("up", a), ("down", b)]
            if (pa, ea) != (pb, eb):
                # edge -> aggregation `agg` of the pod; across pods, on to core
                # c{agg*k/2+m}, which reaches pod pb through its aggregation `agg`
                agg = rng.randrange(half)
                path += [("e-a", pa, ea, agg), ("a-e", pb, eb, agg)]
                if pa != pb:
                    m = rng.randrange(half)
                    path += [("a-c", pa, agg, m), ("c-a", pb, agg, m)]
            for link in path:
                links.setdefault(link, []).append(i)
        # progressive filling: raise every unfrozen flow's rate until a link fills
        rate = [0.0] * len(pairs)
        frozen = [False] * len(pairs)
        cap = {link: 1.0 for link in links}
        while not all(frozen):
            inc = min(cap[link] / sum(1 for f in fl if not frozen[f])
                      for link, fl in links.items() if any(not frozen[f] for f in fl))
            for i in range(len(pairs)):
                if not frozen[i]:
                    rate[i] += inc
            for link, fl in links.items():
                n = sum(1 for f in fl if not frozen[f])
                cap[link] -= inc * n
            for link, fl in links.items():
                if cap[link] <= 1e-12:
                    for f in fl:
                        frozen[f] = True
        total += sum(rate) / len(rate)
    return total / trials


def figure(shares: dict[str, pl.DataFrame], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for routing, df in shares.items():
        x = sorted(df["fraction"].to_list())
        ax.step(x, [(i + 1) / len(x) for i in range(len(x))], where="post",
                label=f"{routing}: mean {df['fraction'].mean():.2f}")
    ax.set_xlabel("per-host throughput / line rate")
    ax.set_ylabel("fraction of hosts (CDF)")
    ax.set_xlim(0, 1.02)
    ax.set_title("k = 8 fat tree, 128 hosts at 10 Gb/s, permutation of TCP flows")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=0.05, help="simulated seconds (default 0.05)")
    ap.add_argument("--seed", type=int, default=1, help="run seed and permutation (default 1)")
    ap.add_argument("--out", type=Path, default=Path("out/fabric_permutation"), help="where the figure goes")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    shares = {}
    print(f"{'routing':8} {'mean':>6} {'median':>6} {'p10':>6} {'min':>6} {'max':>6}  idle core ports  cpu s")
    for routing in ("single", "ecmp"):
        share, queues, cpu = run(routing, a.duration, a.seed)
        shares[routing] = share
        f = share["fraction"]
        up = queues.filter((pl.col("role") == "spine") & (pl.col("peer_role") == "core"))
        idle = up.filter(pl.col("tx_bytes") == 0).height
        print(f"{routing:8} {f.mean():6.3f} {f.median():6.3f} {f.quantile(0.1, 'nearest'):6.3f} {f.min():6.3f} "
              f"{f.max():6.3f}  {idle:3d} of {up.height:3d}      {cpu:5.1f}")
    pairs = list(zip(shares["ecmp"]["src"], shares["ecmp"]["dst"]))
    print(f"flow-level model (max-min fair, random paths, no TCP): mean {flow_level(8, pairs):.3f}")
    figure(shares, a.out / "per_host_throughput.png")
    print(f"figure: {a.out / 'per_host_throughput.png'}")


if __name__ == "__main__":
    main()
