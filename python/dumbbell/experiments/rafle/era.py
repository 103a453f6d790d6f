"""E4 ``rafle``: part ``era``, the simultaneous transfer under the hosts'
other kernel eras, and the sensitivity text it gives the claims it moves.

The paper names no kernel; its newest references are from 2012, so the
experiment's hosts run Linux 3.2 (``TCP_PROFILE``). What the paper leaves
open is how the hosts' loss detection answers RAFLE's reordering (one
flow's packets in both queues): 3.2 has DupThresh with its reordering
adaptation, no RACK, no TLP. Part ``era`` reruns the simultaneous part's
routers (same files, order and seeds) with one thing changed, the hosts'
loss detection (:data:`ERAS`):

- ``linux-6.12``: today's kernel (RACK, TLP, TSQ);
- ``linux-3.2 + RACK``: the paper's era with RACK on (a 3.2 host could
  not run it; the arm isolates RACK's time-based detection from the rest
  of the newer era).

Each claim of the simultaneous part (a Table 2 bin, a Table 3 gain,
Figure 5's peak) and each Table 1 claim at N = 40 (RAFLE's memory in the
simultaneous transfer) prints ours under each era beside its other
sensitivity (:func:`add_era_sensitivity`). The eras are what the paper
leaves open, not chosen to reach its numbers.

Light on the experiment: :mod:`.experiment` calls :func:`era_jobs`,
:func:`era_aliases`, :func:`era_rows`, :func:`add_era_sensitivity` and
:func:`era_lines`, each a line or two there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from ..repeat import Job, Outcome
from .sensitivity import ERA_ALT, memory_arms

__all__ = ["ERAS", "OURS", "QUICK_ROUTERS", "era_jobs", "era_aliases", "era_rows", "era_sensitivity",
           "add_era_sensitivity", "era_lines"]

RAFLE_N = 40
"""The simultaneous part's RAFLE memory (``experiment.RAFLE_N``; this
module does not import the experiment, which imports it)."""

OURS = "linux-3.2"
"""The experiment's own era (its simultaneous part's runs)."""

ERAS: tuple[tuple[str, str, bool | None], ...] = (
    (ERA_ALT, ERA_ALT, None),
    ("linux-3.2 + RACK", "linux-3.2", True),
)
"""(label, the hosts' ``profile``, RACK forced on or None for the
profile's): the eras part ``era`` reruns the simultaneous transfer under."""

QUICK_ROUTERS: tuple[tuple[str, str], ...] = (("droptail", "fifo"), ("run2c", "prio"), ("rafle", "prio"),
                                              ("rafle", "rr"))
"""Quick scale's routers of part ``era``: drop-tail (the gains' base) and
the routers whose claims carry a ``model`` account (RAFLE's two, RuN2C
with priority); paper scale runs every router."""

_ORDER = ("droptail", "ideal", "run2c", "rafle")
"""The classifiers in the experiment's order (``COMBOS``; within one,
``prio`` before ``rr``)."""

_METRICS = ("fct_mean_s", "fct_std_s", "gain", "gain_std", "fig5_peak")


def _routers(scale: str, combos: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return QUICK_ROUTERS if scale == "quick" else combos


def _shared(cfg: dict[str, Any], parts: tuple[str, ...]) -> str | None:
    """The scheduler whose RAFLE at the simultaneous part's N under
    :data:`ERA_ALT` part ``memory-sensitivity`` runs (its era arm at
    :data:`RAFLE_N`), or None."""
    if "memory-sensitivity" not in parts or RAFLE_N not in cfg["memory"]["n"]:
        return None
    return next((sch for arm, sch, _ in memory_arms(cfg["memory"]["schedulers"]) if arm == "era"), None)


def era_jobs(scale: str, cfg: dict[str, Any], parts: tuple[str, ...], combos: tuple[tuple[str, str], ...],
             r: int, seed: int, make: Callable[[str, str, str], Any]) -> list[Job]:
    """Part ``era``'s runs of realization ``r``: ``make(classifier,
    scheduler, profile)`` is the simultaneous part's scenario with the
    hosts of ``profile``. A run part ``memory-sensitivity`` makes (its era
    arm at N = 40) is not made twice (:func:`era_aliases` reuses it)."""
    if "era" not in parts:
        return []
    shared = _shared(cfg, parts)
    jobs = []
    for label, profile, rack in ERAS:
        for cls, sch in _routers(scale, combos):
            if label == ERA_ALT and cls == "rafle" and sch == shared:
                continue
            sc = make(cls, sch, profile)
            if rack is not None:
                for w in sc.workloads:
                    w.tcp = w.tcp.model_copy(update={"rack": rack})
            jobs.append(Job(("era", cls, sch, label, r), sc, seed))
    return jobs


def era_aliases(outcomes: list[Outcome], cfg: dict[str, Any], parts: tuple[str, ...]) -> list[Outcome]:
    """Part ``memory-sensitivity``'s era arm at N = 40 under part ``era``'s
    key (the very run)."""
    shared = _shared(cfg, parts)
    if "era" not in parts or shared is None:
        return []
    return [Outcome(("era", "rafle", shared, ERA_ALT, o.key[4]), o.job, o.record) for o in outcomes
            if o.key[:4] == ("memory-sensitivity", f"era {ERA_ALT}", shared, RAFLE_N)]


def era_rows(outcomes: list[Outcome], buffer_rows: Callable[[list[Outcome]], list[dict[str, Any]]],
             buffer_pkts: int) -> list[dict[str, Any]]:
    """Part ``era``: the Table 2 bins, first-bin gains (over drop-tail in
    the same era), Figure 5's peak (``fig5_peak``) and, on RAFLE's ``all``
    rows, Table 1's PA_c and PA_l at N = 40, per era (``setting``).
    ``buffer_rows`` is the buffer part's row maker (it groups by the key's
    fourth element, here the era)."""
    mine = [Outcome(("buffer", *o.key[1:]), o.job, o.record) for o in outcomes if o.key[0] == "era"]
    # The run shared with part memory-sensitivity comes last among the
    # outcomes: the routers in the experiment's order.
    mine.sort(key=lambda o: (_ORDER.index(o.key[1]), o.key[2]))
    if not mine:
        return []
    acc: dict[tuple[str, str, str], dict[str, list[float]]] = {}
    for o in mine:
        if o.key[1] == "rafle":
            c = o.table("classification").filter((pl.col("node") == "router") & (pl.col("peer") == "client"))
            d = acc.setdefault(o.key[1:4], {"pa_c": [], "pa_l": []})
            for k in d:
                d[k].append(float(c[k][0]))
    rows = buffer_rows(mine)
    for row in rows:
        label = row["buffer_pkts"]
        row |= {"part": "era", "setting": label, "buffer_pkts": buffer_pkts}
        got = acc.get((row["classifier"], row["scheduler"], label))
        if got and row["bin_kb"] == "all":
            row |= {k: sum(v) / len(v) for k, v in got.items()}
    order = [label for label, _, _ in ERAS]
    return sorted(rows, key=lambda r: order.index(r["setting"]))


def era_sensitivity(rows: pl.DataFrame, claim: dict[str, Any]) -> str | None:
    """A claim of the simultaneous part or a Table 1 claim at N = 40 under
    the experiment's era (its own value) and each era of part ``era``, in
    words; None for other claims or when the part did not run."""
    part, metric = claim["part"], str(claim["metric"])
    if claim.get("ours") is None or claim["classifier"] == "fair-share":
        return None
    if part == "simultaneous":
        metric = "fig5_peak" if metric.startswith("max finished") else metric
        where = (pl.col("bin_kb") == ("all" if metric == "fig5_peak" else claim["bin_kb"]))
    elif part == "memory" and metric in ("pa_c", "pa_l") and claim["n"] == RAFLE_N:
        where = pl.col("bin_kb") == "all"
    else:
        return None
    if metric not in _METRICS + ("pa_c", "pa_l"):
        return None
    e = rows.filter((pl.col("part") == "era") & (pl.col("classifier") == claim["classifier"])
                    & (pl.col("scheduler") == claim["scheduler"]) & where)
    got = [(r["setting"], float(r[metric])) for r in e.iter_rows(named=True) if r[metric] is not None]
    if not got:
        return None
    text = ", ".join(f"{k} {v:.4g}" for k, v in [(f"{OURS} (ours)", float(claim["ours"])), *got])
    return f"the hosts' kernel era (part era): {text}"


def add_era_sensitivity(rows: pl.DataFrame, claims: list[dict[str, Any]]) -> None:
    """Appends :func:`era_sensitivity` to each claim's ``sensitivity`` (after
    its other part's, ``; `` between); ``sensitivity_lo`` and
    ``sensitivity_hi`` stay the other part's range (the accounts that cite
    a range name that part)."""
    for c in claims:
        t = era_sensitivity(rows, c)
        if t:
            c["sensitivity"] = f"{c['sensitivity']}; {t}" if c.get("sensitivity") else t


def era_lines(rows: pl.DataFrame) -> list[str]:
    """The printed report's part ``era``: per era and router, each Table 2
    bin's mean (σ), the first-bin gain, Figure 5's peak, retransmissions and
    RAFLE's PA_c/PA_l, beside ours (the simultaneous part's)."""
    e = rows.filter(pl.col("part") == "era")
    if not e.height:
        return []
    combos = set(zip(e["classifier"].to_list(), e["scheduler"].to_list()))
    sim = rows.filter(pl.col("part") == "simultaneous")
    ours = sim.filter(pl.Series([(c, s) in combos for c, s in zip(sim["classifier"], sim["scheduler"])]))
    bins = [b for b in dict.fromkeys(e["bin_kb"].to_list()) if b != "all"]
    body = [["era", "router", *(f"{b} KB" for b in bins), "gain %", "Fig. 5", "retransmits", "PA_c/PA_l"]]
    for label, f in ((f"{OURS} (ours)", ours), *((lb, e.filter(pl.col("setting") == lb)) for lb, _, _ in ERAS)):
        for (cls, sch), g in f.group_by(["classifier", "scheduler"], maintain_order=True):
            by = {r["bin_kb"]: r for r in g.iter_rows(named=True)}
            a, first = by.get("all", {}), by.get("0-100", {})
            cells = [f"{by[b]['fct_mean_s']:.1f} ({by[b]['fct_std_s']:.1f})" if b in by else "-" for b in bins]
            gain = f"{100 * first['gain']:+.1f}" if first.get("gain") is not None else "-"
            peak = next((r["fig5_peak"] for r in e.filter((pl.col("classifier") == cls) & (pl.col("scheduler") == sch)
                                                          & (pl.col("bin_kb") == "all")).iter_rows(named=True)
                         if label != f"{OURS} (ours)" and r["setting"] == label), None)
            pa = f"{a['pa_c']:.3f}/{a['pa_l']:.3f}" if a.get("pa_c") is not None else "-"
            body.append([label, f"{cls} {sch}", *cells, gain, "-" if peak is None else f"{peak:.2f}",
                         "-" if a.get("retransmits") is None else f"{a['retransmits']:.0f}", pa])
    widths = [max(len(row[i]) for row in body) for i in range(len(body[0]))]
    return ["", "[era] the simultaneous transfer with the hosts' loss detection of another kernel era: completion "
                "per bin, mean (σ) in s, first-bin gain over drop-tail of the same era, Figure 5's peak"] + [
        "  " + "  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in body]
