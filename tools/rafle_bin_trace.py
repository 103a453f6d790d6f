"""One Table 2 bin of E4 ``rafle`` traced file by file over every
realization (the companion of ``tools/rafle_trace.py bin``, which traces
realization 1): the trace behind docs/experiments/rafle.md's section on
RAFLE with round robin's σ above the first bin.

For each realization (the same files, start order and seeds as
``dumbbell reproduce rafle --scale paper``) and each of the bin's files:
its completion and fair share, the FTP dialogue and SYN retransmissions,
its data packets at the router's client-bound port (arrivals, drops), the
share of them RAFLE sent to the long queue and how often RAFLE's decision
changed between two consecutive packets of the file (its reclassifications),
the median time a packet of the file spent in each queue, and the sender's
and receiver's counters (retransmissions, RTOs, fast recoveries, undone
reductions, segments received out of order). Then the bin's mean and σ
per realization, and the correlation over all files above 100 KB between
a file's slowdown (completion / fair share) and its retransmissions per
data packet, and its RTOs.

Which queue a packet went to is read off its sojourn. Under round robin
each queue gets half the link while both hold packets, but RAFLE calls
most packets short (PA_l is about 0.3), so the short queue sits full
(seconds of packets) while the long one holds a few (its packets wait
under ``FAST_SOJOURN_S``): a packet that waited less than that went
through the long queue. The count is printed beside the classification
table's count of packets RAFLE called long (the check of the split).

Usage: ``python tools/rafle_bin_trace.py [--router rafle-rr] [--bin 200-300]
[--realizations 3] [--rack on|off|profile] [--profile ERA] [--buffer PKTS|lossless] [--n N]``.
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl

import dumbbell as db
from dumbbell.experiments import fairshare, filebase
from dumbbell.experiments import rafle as e4
from dumbbell.experiments.repeat import round_seed
from rafle_trace import flow_of_size  # tools/, beside this script

FAST_SOJOURN_S = 1.0
"""A packet that waited less than this went through the long queue (a
packet takes 12 ms on the 1 Mb/s link; under round robin the short queue
holds seconds of packets, the long one a few)."""


def flow_queues(p: pl.DataFrame, flow: int) -> dict[str, float]:
    """One data connection at the traced port: arrivals, drops, the share of
    its dequeued packets that went through the long queue (sojourn under
    :data:`FAST_SOJOURN_S`), its reclassifications (consecutive packets, in
    arrival order, in different queues) and the median sojourn in each
    queue, s."""
    f = p.filter((pl.col("flow") == flow) & (pl.col("seq") > 0))
    ev = f["event"].to_numpy()
    d = f.filter(pl.col("event") == "dequeue").sort("time_ps")
    soj = d["sojourn_ps"].to_numpy() / 1e12
    # Order the dequeued packets by their arrival (dequeue time − sojourn).
    arr = d["time_ps"].to_numpy() / 1e12 - soj
    order = np.argsort(arr, kind="stable")
    long_q = soj[order] < FAST_SOJOURN_S
    switches = int(np.count_nonzero(long_q[1:] != long_q[:-1])) if len(long_q) > 1 else 0
    return {"arrivals": int((ev == "enqueue").sum() + (ev == "drop").sum()), "drops": int((ev == "drop").sum()),
            "long": float(long_q.mean()) if len(long_q) else float("nan"), "switches": switches,
            "soj_long": float(np.median(soj[soj < FAST_SOJOURN_S])) if (soj < FAST_SOJOURN_S).any() else float("nan"),
            "soj_short": float(np.median(soj[soj >= FAST_SOJOURN_S])) if (soj >= FAST_SOJOURN_S).any() else float("nan")}


def _scenario(cls: str, sch: str, files: list[int], buffer: int | None, profile: str, rack: str,
              n: int) -> db.Scenario:
    sc = e4.simultaneous_scenario(cls, sch, files, buffer_pkts=buffer, profile=profile, rafle_n=n)
    if rack != "profile":
        for w in sc.workloads:
            w.tcp = w.tcp.model_copy(update={"rack": rack == "on"})
    sc.record.packets.append(db.PacketRecord(node="router", peer="client"))
    return sc.validated()


def trace(router: str, bin_kb: str, realizations: int, buffer: int | None, profile: str, rack: str,
          n: int = e4.RAFLE_N) -> None:
    cls, sch = router.split("-")
    lo, hi = (int(x) * 1000 for x in bin_kb.split("-"))
    base = filebase.load()
    fair = dict(zip(base, fairshare.completions(base, e4.LINK_BPS)))
    print(f"{cls} {sch}, bin {bin_kb} KB, router buffer {e4.buffer_label(buffer)}, era {profile}, rack {rack}"
          + (f", N = {n}" if cls == "rafle" else ""))
    print("r     size   fct  fair | dialogue syn | arrivals drops | long q  recl | soj short long | "
          "retx  rto recov undo  ooo")
    means, stds, slow, retx_rate, rtos, fast = [], [], [], [], [], []
    for r in range(realizations):
        seed = round_seed(1, 1000 + r)
        res = db.run(_scenario(cls, sch, e4._order(base, seed), buffer, profile, rack, n), seed=seed)
        p = res.table("packets")
        t = res.table("tasks").with_columns((pl.col("fct_ps") / 1e12).alias("fct_s"),
                                            ((pl.col("data_start_ps") - pl.col("start_ps")) / 1e12).alias("dialogue_s"))
        c = res.table("classification").filter((pl.col("node") == "router") & (pl.col("peer") == "client"))
        soj = p.filter(pl.col("event") == "dequeue")["sojourn_ps"].to_numpy() / 1e12
        if c.height and sch == "rr":
            called_long = int(c["long_as_long"][0] + c["short_as_long"][0])
            print(f"  realization {r + 1}: {int((soj < FAST_SOJOURN_S).sum())} packets waited "
                  f"< {FAST_SOJOURN_S:g} s, RAFLE called {called_long} long (the check of the sojourn split)")
        sel = t.filter((pl.col("size_bytes") > lo) & (pl.col("size_bytes") <= hi)).sort("size_bytes")
        flows = flow_of_size(p, sel["size_bytes"].to_list())
        for row in sel.iter_rows(named=True):
            q = flow_queues(p, flows[row["size_bytes"]]) if row["size_bytes"] in flows else None
            qc = (f"{q['arrivals']:8d} {q['drops']:5d} | {q['long']:6.0%} {q['switches']:5d} | "
                  f"{q['soj_short']:9.1f} {q['soj_long']:4.2f}") if q else "(flow not found)"
            print(f"{r + 1} {row['size_bytes']:8d} {row['fct_s']:5.0f} {fair[row['size_bytes']]:5.0f} | "
                  f"{row['dialogue_s']:8.1f} {row['syn_retransmits']:3d} | {qc} | {row['retransmits']:4d} "
                  f"{row['timeouts']:4d} {row['recoveries']:5d} {row['undos']:4d} {row['out_of_order']:4d}")
        means.append(float(sel["fct_s"].mean()))
        stds.append(float(sel["fct_s"].std(ddof=1)))
        big = t.filter(pl.col("size_bytes") > 100_000)
        slow += [f / fair[s] for s, f in zip(big["size_bytes"], big["fct_s"])]
        pkts = [max(1, -(-s // 1448)) for s in big["size_bytes"]]
        retx_rate += [x / n for x, n in zip(big["retransmits"], pkts)]
        rtos += big["timeouts"].to_list()
        big_flows = flow_of_size(p, big["size_bytes"].to_list())
        fast += [flow_queues(p, big_flows[s])["long"] if s in big_flows else float("nan") for s in big["size_bytes"]]
    print(f"bin {bin_kb} KB per realization: mean " + ", ".join(f"{m:.1f}" for m in means)
          + "; σ " + ", ".join(f"{s:.1f}" for s in stds) + f"; σ over realizations' mean {np.mean(stds):.1f}")
    s, x, o, q = np.array(slow), np.array(retx_rate), np.array(rtos, dtype=float), np.array(fast)
    ok = ~np.isnan(q)
    print(f"files above 100 KB ({len(s)} over {realizations} realizations): slowdown mean {s.mean():.2f}, σ "
          f"{s.std(ddof=1):.2f}; corr(slowdown, retransmissions per packet) {np.corrcoef(s, x)[0, 1]:+.2f}, "
          f"corr(slowdown, RTOs) {np.corrcoef(s, o)[0, 1]:+.2f}, corr(slowdown, share through the long queue) "
          f"{np.corrcoef(s[ok], q[ok])[0, 1]:+.2f} ({ok.sum()} files traced)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--router", default="rafle-rr", help="CLASSIFIER-SCHEDULER")
    ap.add_argument("--bin", default="200-300", help="the Table 2 bin, KB-KB")
    ap.add_argument("--realizations", type=int, default=3)
    ap.add_argument("--buffer", default=str(e4.ROUTER_BUFFER_PKTS), help="packets per queue, or 'lossless'")
    ap.add_argument("--profile", default=e4.TCP_PROFILE, help="the hosts' kernel era")
    ap.add_argument("--rack", default="profile", choices=("on", "off", "profile"), help="RACK (default: the era's)")
    ap.add_argument("--n", type=int, default=e4.RAFLE_N, help="RAFLE's memory, packets")
    a = ap.parse_args()
    trace(a.router, a.bin, a.realizations, None if a.buffer == "lossless" else int(a.buffer), a.profile, a.rack,
          a.n)


if __name__ == "__main__":
    main()
