"""Traces behind docs/experiments/rafle.md: the internal state of E4 ``rafle``
runs that explains where dumbbell and Mussi and Ribeiro's RAFLE paper
differ. Runs realization 1 of the experiment (the same scenarios and seeds
as ``dumbbell reproduce rafle``, seed 1) and prints, per router:

- ``simultaneous``: the first bin's content (files that fit in the
  initial window), the FTP dialogue's duration (task start → data
  connection open) for short and long tasks, every task's completion,
  and the TCP counters of the tasks table (retransmissions, timeouts,
  SYN timeouts, undone reductions, fast recoveries, segments received out
  of order);
- ``closed-loop``: tasks served in the window and their mean size, the
  total size of the files in progress at the window's start and end (the
  inventory the 300 slots hold), the dialogue's duration,
  how many of the 300 tasks are transferring their file on average, and
  the same counters.

- ``memory``: RAFLE at N = 40 under both schedulers: PA_l beside how
  often a truly long (short) packet arrives right after a packet of its own
  flow (the classification table's ``*_same_flow_as_previous``);
- ``loss``: the simultaneous transfer with random loss on the 1 Mb/s link
  (0, 1 and 3 %; not the paper's setup, whose queues never dropped): the
  mean (σ) of the first five bins, to test whether losses give the
  paper's spreads;
- ``bin``: one Table 2 bin of one router, file by file (``--router``,
  ``--bin``, default drop-tail's 400-500 KB): each file's completion
  beside its fair share, its dialogue and SYN timeouts, its data packets
  at the router's client-bound port (arrivals, drops, the loss rate), its
  window at loss (its packets in the router's queue at each of its drops)
  and the share of its transfer spent at one or two packets in the queue;
  then every file above 100 KB's slowdown (completion / fair share), to
  set the bin's files against the spread of the rest.

Usage: ``python tools/rafle_trace.py [simultaneous|closed-loop|memory|loss|bin|all]
[--duration S] [--buffer PKTS|lossless] [--profile ERA] [--router CLS-SCH]
[--bin KB-KB]`` (closed-loop duration, default the paper's 4000 s; the
window is [duration/4, duration]; the router's buffer per queue, default
the experiment's, Click's 1000 packets; the hosts' kernel era, default the
experiment's ``linux-3.2``).
"""

from __future__ import annotations

import argparse

import numpy as np
import polars as pl

import dumbbell as db
from dumbbell.experiments import filebase
from dumbbell.experiments import rafle as e4
from dumbbell.experiments.repeat import round_seed

IW_BYTES = 10 * 1448
BUFFER: int | None = e4.ROUTER_BUFFER_PKTS
"""The router's buffer per queue (``--buffer``; None: lossless)."""
PROFILE = e4.TCP_PROFILE
"""The hosts' kernel era (``--profile``)."""


def _era(sc: db.Scenario) -> db.Scenario:
    """``sc`` with its hosts at the kernel era :data:`PROFILE`."""
    if PROFILE != e4.TCP_PROFILE:
        for w in sc.workloads:
            w.tcp = e4._tcp(PROFILE)
    return sc.validated()


def _sim(cls: str, sch: str, files: list[int], **kw) -> db.Scenario:
    return _era(e4.simultaneous_scenario(cls, sch, files, buffer_pkts=BUFFER, **kw))


def _tasks(res) -> pl.DataFrame:
    return res.table("tasks").with_columns(
        (pl.col("fct_ps") / 1e12).alias("fct_s"),
        (pl.col("start_ps") / 1e12).alias("start_s"),
        pl.when(pl.col("data_start_ps") >= 0).then((pl.col("data_start_ps") - pl.col("start_ps")) / 1e12)
        .otherwise(None).alias("dialogue_s"),
        pl.when(pl.col("completion_ps") >= 0).then(pl.col("completion_ps") / 1e12).otherwise(None).alias("done_s"),
        (pl.col("size_bytes") <= 100_000).alias("bin0"),
    )


COUNTERS = ("retransmits", "timeouts", "syn_retransmits", "undos", "recoveries", "out_of_order", "control_retransmits")


def simultaneous() -> None:
    base = filebase.load()
    seed = round_seed(1, 1000)
    files = e4._order(base, seed)
    b0 = [s for s in base if s <= 100_000]
    print(f"first bin: {len(b0)} files, mean {np.mean(b0) / 1e3:.1f} kB, "
          f"{sum(s <= IW_BYTES for s in b0)} fit in the initial window (10 x 1448 B), "
          f"{sum(s <= filebase.SHORT_MAX_BYTES for s in b0)} short (<= 16 KiB)")
    print("router               bin0 mean  sd    max  | dialogue short  long | all mean  last   | "
          + " ".join(f"{c[:11]:>11}" for c in COUNTERS))
    done: dict[tuple[str, str], np.ndarray] = {}
    for cls, sch in e4.COMBOS:
        t = _tasks(db.run(_sim(cls, sch, files), seed=seed))
        done[(cls, sch)] = np.sort(t["done_s"].drop_nulls().to_numpy())
        f0 = t.filter(pl.col("bin0"))
        dia_s = t.filter(~pl.col("long"))["dialogue_s"].mean()
        dia_l = t.filter(pl.col("long"))["dialogue_s"].mean()
        print(f"{cls:>8} {sch:<5} {f0['fct_s'].mean():14.1f} {f0['fct_s'].std():5.1f} {f0['fct_s'].max():6.1f} |"
              f" {dia_s:13.1f} {dia_l:5.1f} | {t['fct_s'].mean():8.1f} {t['done_s'].max():6.1f} | "
              + " ".join(f"{int(t[c].sum()):>11}" for c in COUNTERS), flush=True)
    # Figure 5: tasks finished by t over drop-tail's, at its peak in the
    # first 100 s (1 s grid, where drop-tail has finished some) and at
    # 400 s and 1900 s.
    dt = done[("droptail", "fifo")]
    grid = np.arange(1.0, 101.0)
    dt_done = np.searchsorted(dt, grid, side="right").astype(float)
    ok = dt_done > 0
    print("Figure 5, finished / drop-tail's: router, peak in (0, 100] s (at s), at 400 s, at 1900 s")
    for combo, d in done.items():
        mine = np.searchsorted(d, grid, side="right").astype(float)
        r = mine[ok] / dt_done[ok]
        at = lambda x: np.searchsorted(d, x, side="right") / max(1, np.searchsorted(dt, x, side="right"))  # noqa: E731
        print(f"{combo[0]:>8} {combo[1]:<5} {r.max():5.2f} ({grid[ok][r.argmax()]:3.0f}) {at(400.0):5.2f} {at(1900.0):5.2f}")
    # Figure 4: how far each router's active-task curve runs from the exact
    # fair share (processor sharing) of the same base, tasks, 1 s grid.
    from dumbbell.experiments import fairshare

    ps = np.sort(np.asarray(fairshare.completions(base, e4.LINK_BPS)))
    t_grid = np.arange(0.0, 3100.0)
    w = (t_grid >= 225) & (t_grid <= 410)

    def active(d: np.ndarray) -> np.ndarray:
        return len(d) - np.searchsorted(d, t_grid, side="right")

    print("Figure 4, mean |active tasks - fair share|: router, over [0, 3100] s, over [225, 410] s")
    for combo, d in done.items():
        diff = np.abs(active(d) - active(ps))
        print(f"{combo[0]:>8} {combo[1]:<5} {diff.mean():6.1f} {diff[w].mean():6.1f}")


def closed_loop(duration_s: float) -> None:
    base = filebase.load()
    seed = round_seed(1, 2000)
    w0, w1 = duration_s / 4, duration_s
    grid = np.linspace(w0, w1, 200)
    print(f"closed loop, 300 tasks, {duration_s:g} s, window [{w0:g}, {w1:g}] s")
    print("router          served bin0 served_kB | in progress MB at w0  w1 | dialogue short  long | in data phase | "
          + " ".join(f"{c[:11]:>11}" for c in COUNTERS))
    for cls, sch in e4.COMBOS:
        t = _tasks(db.run(_era(e4.closed_loop_scenario(cls, sch, base, 300, duration_s, buffer_pkts=BUFFER)), seed=seed))
        win = t.filter((pl.col("done_s") >= w0) & (pl.col("done_s") < w1))
        ds = (t["data_start_ps"].to_numpy() / 1e12)[None, :]
        done = t["done_s"].fill_null(np.inf).to_numpy()[None, :]
        transferring = ((ds >= 0) & (ds <= grid[:, None]) & (done > grid[:, None])).sum(axis=1).mean()
        dia = t.filter(pl.col("start_s") >= w0)

        def open_mb(at: float) -> float:
            o = t.filter((pl.col("start_s") <= at) & (pl.col("done_s").is_null() | (pl.col("done_s") > at)))
            return o["size_bytes"].sum() / 1e6

        print(f"{cls:>8} {sch:<5} {win.height:6d} {win.filter(pl.col('bin0')).height:4d} {win['size_bytes'].mean() / 1e3:9.0f} |"
              f" {open_mb(w0):20.0f} {open_mb(w1 - 1e-9):4.0f} |"
              f" {dia.filter(~pl.col('long'))['dialogue_s'].mean():13.1f} {dia.filter(pl.col('long'))['dialogue_s'].mean():5.1f} |"
              f" {transferring:13.1f} | " + " ".join(f"{int(t[c].sum()):>11}" for c in COUNTERS), flush=True)


def memory() -> None:
    base = filebase.load()
    seed = round_seed(1, 1000)
    files = e4._order(base, seed)
    print("RAFLE N=40, all tasks at t = 0: PA_l, PA_c, and the share of arrivals that follow one of their own flow")
    for sch in ("prio", "rr"):
        r = db.run(_sim("rafle", sch, files), seed=seed)
        c = r.table("classification").filter((pl.col("node") == "router") & (pl.col("peer") == "client")).row(0, named=True)
        n_long = c["long_as_short"] + c["long_as_long"]
        n_short = c["short_as_short"] + c["short_as_long"]
        print(f"rafle {sch:<5} PA_l {c['pa_l']:.3f} PA_c {c['pa_c']:.3f} | long after own flow "
              f"{c['long_same_flow_as_previous'] / n_long:.3f} ({n_long} long packets), short after own flow "
              f"{c['short_same_flow_as_previous'] / n_short:.3f} ({n_short} short packets)", flush=True)


def loss() -> None:
    base = filebase.load()
    seed = round_seed(1, 1000)
    files = e4._order(base, seed)
    print("random loss on router -> client: mean (sd) per 100 KB bin, s; the longest first-bin task")
    for p in (0.0, 0.01, 0.03):
        for cls, sch in (("droptail", "fifo"), ("rafle", "prio"), ("rafle", "rr")):
            sc = _sim(cls, sch, files)
            sc.links[1].loss_ab = p
            t = _tasks(db.run(sc.validated(), seed=seed)).with_columns(
                ((pl.col("size_bytes") + 99_999) // 100_000 - 1).clip(lower_bound=0).alias("bin"))
            g = t.group_by("bin").agg(pl.col("fct_s").mean().alias("m"), pl.col("fct_s").std().alias("s")).sort("bin")
            cells = "  ".join(f"{m:6.1f} ({sd:5.1f})" for m, sd in zip(g["m"].head(5), g["s"].head(5)))
            print(f"loss {p:.2f} {cls:>8} {sch:<5} {cells} | max {t.filter(pl.col('bin') == 0)['fct_s'].max():4.0f}",
                  flush=True)


def flow_of_size(p: pl.DataFrame, sizes: list[int]) -> dict[int, int]:
    """Data connection of each file size: the one flow whose stream ends
    within 100 B above that size (its FIN and offset)."""
    top = p.filter(pl.col("seq") > 0).group_by("flow").agg((pl.col("seq") + pl.col("size_bytes")).max().alias("top"))
    out = {}
    for size in sizes:
        fl = top.filter((pl.col("top") >= size) & (pl.col("top") <= size + 100))["flow"].to_list()
        if len(fl) == 1:
            out[size] = int(fl[0])
    return out


def _flow_state(p: pl.DataFrame, flow: int) -> dict[str, float]:
    """One flow's data packets at the traced port: arrivals, drops, its
    packets in the queue at each drop (the window at loss) and the share of
    its transfer with at most two packets queued."""
    f = p.filter((pl.col("flow") == flow) & (pl.col("seq") > 0)).sort("time_ps")
    ev = f["event"].to_numpy()
    t = f["time_ps"].to_numpy() / 1e12
    step = np.where(ev == "enqueue", 1, np.where(ev == "dequeue", -1, 0))
    queued = np.cumsum(step)
    drops = ev == "drop"
    span = np.diff(t, append=t[-1])
    low = float(span[queued <= 2].sum() / max(span.sum(), 1e-12))
    arrivals = int((ev == "enqueue").sum() + drops.sum())
    return {"arrivals": arrivals, "drops": int(drops.sum()), "loss": drops.sum() / max(arrivals, 1),
            "w_loss": float(queued[drops].mean()) if drops.any() else float("nan"), "low": low}


def one_bin(router: str, bin_kb: str) -> None:
    from dumbbell.experiments import fairshare

    cls, sch = router.split("-")
    lo, hi = (int(x) * 1000 for x in bin_kb.split("-"))
    base = filebase.load()
    seed = round_seed(1, 1000)
    files = e4._order(base, seed)
    ps = dict(zip(base, fairshare.completions(base, e4.LINK_BPS)))
    sc = _sim(cls, sch, files)
    sc.record.packets.append(db.PacketRecord(node="router", peer="client"))
    r = db.run(sc.validated(), seed=seed)
    p, t = r.table("packets"), _tasks(r)
    soj = p.filter(pl.col("event") == "dequeue")["sojourn_ps"].to_numpy() / 1e12
    print(f"{cls} {sch}, router buffer {e4.buffer_label(BUFFER)}, era {PROFILE}: the client-bound queue's mean "
          f"sojourn {soj.mean():.1f} s (full: {(BUFFER or 0) * 1488 * 8 / e4.LINK_BPS:.1f} s), "
          f"{r.summary['packets_dropped']} packets dropped")
    sel = t.filter((pl.col("size_bytes") > lo) & (pl.col("size_bytes") <= hi)).sort("size_bytes")
    flows = flow_of_size(p, sel["size_bytes"].to_list())
    print(f"bin {bin_kb} KB, file by file:")
    print("    size   fct  fair | dialogue syn_rtx | arrivals drops  loss | window at loss | <=2 queued | "
          "retransmits timeouts recoveries")
    for row in sel.iter_rows(named=True):
        st = _flow_state(p, flows[row["size_bytes"]]) if row["size_bytes"] in flows else None
        cells = (f"{st['arrivals']:8d} {st['drops']:5d} {st['loss']:5.1%} | {st['w_loss']:14.1f} | {st['low']:10.0%}"
                 if st else " (flow not found)")
        print(f"{row['size_bytes']:8d} {row['fct_s']:5.0f} {ps[row['size_bytes']]:5.0f} | {row['dialogue_s']:8.1f} "
              f"{row['syn_retransmits']:7d} | {cells} | {row['retransmits']:11d} {row['timeouts']:8d} "
              f"{row['recoveries']:10d}")
    big = t.filter(pl.col("size_bytes") > 100_000)
    slow = np.array([f / ps[s] for s, f in zip(big["size_bytes"].to_list(), big["fct_s"].to_list())])
    mine = np.array([f / ps[s] for s, f in zip(sel["size_bytes"].to_list(), sel["fct_s"].to_list())])
    print(f"slowdown (completion / fair share) of the {len(slow)} files above 100 KB: mean {slow.mean():.2f}, "
          f"σ {slow.std(ddof=1):.2f}, min {slow.min():.2f}, max {slow.max():.2f}; this bin's files "
          + ", ".join(f"{x:.2f}" for x in mine))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", nargs="?", default="all", choices=("simultaneous", "closed-loop", "memory", "loss", "bin", "all"))
    ap.add_argument("--duration", type=float, default=4000.0, help="closed-loop duration, s")
    ap.add_argument("--buffer", default=str(e4.ROUTER_BUFFER_PKTS),
                    help="the router's buffer per queue, packets, or 'lossless'")
    ap.add_argument("--profile", default=e4.TCP_PROFILE, help="the hosts' kernel era (TcpOptions profile)")
    ap.add_argument("--router", default="droptail-fifo", help="part bin: CLASSIFIER-SCHEDULER")
    ap.add_argument("--bin", default="400-500", help="part bin: the Table 2 bin, KB-KB")
    a = ap.parse_args()
    global BUFFER, PROFILE
    BUFFER = None if a.buffer == "lossless" else int(a.buffer)
    PROFILE = a.profile
    if a.part in ("simultaneous", "all"):
        simultaneous()
    if a.part in ("closed-loop", "all"):
        closed_loop(a.duration)
    if a.part in ("memory", "all"):
        memory()
    if a.part in ("loss", "all"):
        loss()
    if a.part in ("bin", "all"):
        one_bin(a.router, a.bin)


if __name__ == "__main__":
    main()
