"""E4 ``rafle``: the sensitivity parts, what moves a claim and how far.

- ``buffer`` (a part of :mod:`dumbbell.experiments.rafle.experiment`): each claim of
  the simultaneous transfer under every router buffer;
- ``memory-sensitivity``: each claim of Table 1 (RAFLE's accuracy against
  its memory N) under the other scheduler, the other kernel era and a
  lossless router.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

__all__ = ["ARMS", "ERA_ALT", "buffer_label", "buffer_sensitivity",
           "memory_arm_aliases", "memory_arms", "memory_sensitivity", "memory_sensitivity_lines"]


def buffer_label(buffer_pkts: int | None) -> str:
    """``1000 pkts``, or ``lossless``."""
    return "lossless" if buffer_pkts is None else f"{buffer_pkts} pkts"


def buffer_sensitivity(rows: pl.DataFrame, claim: dict[str, Any]) -> tuple[str | None, float | None, float | None]:
    """A claim of the simultaneous part (a Table 2 bin, a Table 3 gain,
    Figure 5's peak) under each buffer of part ``buffer``: in words, and
    the lowest and highest of ours; Nones for the other claims or when the
    part did not run."""
    none = (None, None, None)
    if claim["part"] != "simultaneous" or claim["classifier"] == "fair-share":
        return none
    metric = "fig5_peak" if str(claim["metric"]).startswith("max finished") else claim["metric"]
    if metric not in ("fct_mean_s", "fct_std_s", "gain", "gain_std", "fig5_peak"):
        return none
    b = rows.filter((pl.col("part") == "buffer") & (pl.col("classifier") == claim["classifier"])
                    & (pl.col("scheduler") == claim["scheduler"])
                    & (pl.col("bin_kb") == ("all" if metric == "fig5_peak" else claim["bin_kb"])))
    got = [(r["buffer_pkts"], float(r[metric])) for r in b.iter_rows(named=True) if r[metric] is not None]
    if not got:
        return none
    text = ", ".join(f"{buffer_label(k)} {v:.4g}" for k, v in got)
    vals = [v for _, v in got]
    return f"router buffer (part buffer): {text}", min(vals), max(vals)


# ---------------------------------------------------------------- Table 1

ERA_ALT = "linux-6.12"
"""Part ``memory-sensitivity``'s other kernel era: today's, with RACK and
TLP, against the experiment's ``linux-3.2`` (DupThresh and its reordering
adaptation)."""

ARMS = ("scheduler", "era", "router")
"""Part ``memory-sensitivity``: RAFLE's accuracy at each N of the memory
part with one setting changed: the other scheduler (only where the memory
part does not run it), the other kernel era (:data:`ERA_ALT`), a lossless
router."""


def memory_arms(schedulers: tuple[str, ...]) -> list[tuple[str, str, str]]:
    """(arm, scheduler, label) of the runs of part ``memory-sensitivity``
    for a memory part running ``schedulers``: the scheduler Table 1 is
    scored under (strict priority where run) with the other era and the
    lossless router, and each scheduler the memory part leaves out."""
    scored = "prio" if "prio" in schedulers else schedulers[0]
    out = [("scheduler", s, f"scheduler {s}") for s in ("prio", "rr") if s not in schedulers]
    return out + [("era", scored, f"era {ERA_ALT}"), ("router", scored, "router lossless")]


def memory_arm_aliases(cfg: dict[str, Any], parts: tuple[str, ...]) -> list[tuple[str, str, bool]]:
    """The arms of part ``memory-sensitivity`` whose run at the
    simultaneous part's N is another part's, for a scale's points ``cfg``:
    (label, scheduler, True for the simultaneous part's run, False for the
    buffer part's lossless one)."""
    out = []
    for arm, sch, label in memory_arms(cfg["memory"]["schedulers"]):
        if arm == "scheduler" and "simultaneous" in parts:
            out.append((label, sch, True))
        elif arm == "router" and "buffer" in parts and None in cfg["buffer"]["buffers"]:
            out.append((label, sch, False))
    return out


def memory_sensitivity(rows: pl.DataFrame, claim: dict[str, Any]) -> tuple[str | None, float | None, float | None]:
    """A Table 1 claim (PA_c or PA_l at one N, or the N of the best index)
    under each arm of part ``memory-sensitivity`` that ran its scheduler or
    N: in words, and the lowest and highest of ours (its own value
    included); Nones for other claims or when the part did not run."""
    none = (None, None, None)
    if claim["part"] != "memory" or claim.get("ours") is None:
        return none
    m = rows.filter(pl.col("part") == "memory-sensitivity")
    if not m.height:
        return none
    metric = claim["metric"]
    got: list[tuple[str, float]] = []
    for setting in dict.fromkeys(m["setting"].to_list()):
        g = m.filter(pl.col("setting") == setting)
        if metric in ("pa_c", "pa_l"):
            arm_sch = g["scheduler"][0]
            same = g.filter(pl.col("n") == claim["n"])
            if same.height and (setting.startswith("scheduler") or arm_sch == claim["scheduler"]):
                got.append((setting, float(same[metric][0])))
        elif metric.startswith("N of the best") and g.filter(pl.col("index").is_not_null()).height:
            got.append((setting, float(g.sort("index", descending=True)["n"][0])))
    if not got:
        return none
    vals = [float(claim["ours"])] + [v for _, v in got]
    text = ", ".join(f"{k} {v:.4g}" for k, v in got)
    return f"Table 1's settings (part memory-sensitivity): {text}", min(vals), max(vals)


def memory_sensitivity_lines(rows: pl.DataFrame, paper_table1: Mapping[int, tuple[float, ...]]) -> list[str]:
    """The printed report's part ``memory-sensitivity``: PA_c, PA_l and the
    index at each N under each arm, the paper's [in brackets]."""
    m = rows.filter(pl.col("part") == "memory-sensitivity")
    if not m.height:
        return []
    body = [["setting", "sched", "N", "PA_c", "PA_l", "PA_c·PA_l"]]
    for r in m.sort(["setting", "n"]).iter_rows(named=True):
        pv = paper_table1.get(r["n"])
        cells = [f"{r[k]:.3f}" + (f" [{pv[i]:.3f}]" if pv else "") for k, i in (("pa_c", 0), ("pa_l", 2), ("index", 4))]
        body.append([r["setting"], r["scheduler"], str(r["n"]), *cells])
    widths = [max(len(row[i]) for row in body) for i in range(len(body[0]))]
    return ["", "[memory-sensitivity] RAFLE's accuracy with one setting changed [paper]  — Table 1"] + [
        "  " + "  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in body]
