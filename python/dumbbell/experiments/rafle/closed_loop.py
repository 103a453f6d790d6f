"""E4 ``rafle``: the closed loop (§6, Table 4) and its sensitivity part.

- ``closed-loop``: 300 tasks active at all times, a random file of the base
  started whenever one completes; files served per bin in the paper's
  window and the first bin's gain over drop-tail (Table 4). Its ``all``
  rows carry what the accounts of Table 4's differences name, measured on
  the run: tasks transferring their file (``in_transfer``, the mean over
  the window of tasks whose data connection is open), the FTP dialogue's
  duration (``dialogue_s``, task start to data connection, tasks started
  in the window), the files the 300 slots hold (``inventory_w0_mb``,
  ``inventory_w1_mb``: their sizes in MB at the window's start and end)
  and the segments retransmitted (``retransmits``).
- ``closed-loop-sensitivity``: the same loop (same draws) with one setting
  the paper leaves open changed (``setting``): every router queue holding
  250, 500 or 2000 packets, or lossless (§3.1 says the router limits the
  rate by dropping, §5 that its queues never dropped; neither gives their
  capacity), or hosts of the other kernel era (the paper names none).
  Each Table 4 claim prints its gain under every setting (its
  ``sensitivity``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import filebase
from ..repeat import Outcome, by_point, mean_ci
from .sensitivity import ERA_ALT, buffer_label
from .tasks import BIN_BYTES, bin_label, tasks_of

__all__ = ["PART", "SENSITIVITY_PART", "LOOP_BUFFERS", "WIRE_BYTES", "MECHANISM", "CLAIM_SCHEMA", "loop_arms", "mechanism",
           "closed_loop_rows", "loop_claim_fields", "loop_sensitivity", "closed_loop_lines"]

PART = "closed-loop"
SENSITIVITY_PART = "closed-loop-sensitivity"
LOOP_BUFFERS: tuple[int | None, ...] = (250, 500, 2000, None)
"""Part ``closed-loop-sensitivity``'s router buffers (packets per queue;
None: lossless), beside the experiment's 1000 (Click's default Queue)."""
WIRE_BYTES = 1500
"""A full segment on the wire (MSS 1448, TCP/IP headers with timestamps):
what one retransmitted segment costs the 1 Mb/s link."""
MECHANISM = ("in_transfer", "dialogue_s", "inventory_w0_mb", "inventory_w1_mb", "retransmits")
"""The closed loop's ``all`` row's measures of what moves its gains."""
_GRID = 200
"""Instants in the window at which ``in_transfer`` is counted."""
LEVEL = 0.95


def loop_arms(buffer_pkts: int, profile: str) -> list[tuple[str, int | None, str]]:
    """(setting, router buffer, hosts' era) of each run of part
    ``closed-loop-sensitivity``, for the experiment's ``buffer_pkts`` and
    ``profile``: each other buffer of :data:`LOOP_BUFFERS`, then the
    other era (:data:`ERA_ALT`) at ``buffer_pkts``."""
    return [(f"router {buffer_label(b)}", b, profile) for b in LOOP_BUFFERS if b != buffer_pkts] + [
        (f"era {ERA_ALT}", buffer_pkts, ERA_ALT)]


def mechanism(t: pl.DataFrame, window: tuple[float, float]) -> dict[str, float]:
    """One run's measures (:data:`MECHANISM`) from its tasks table
    (:func:`.tasks.tasks_of`) over ``window``."""
    w0, w1 = window
    start = t["start_ps"].to_numpy() / 1e12
    ds = t["data_start_ps"].to_numpy() / 1e12
    done = t["done_s"].fill_null(np.inf).to_numpy()
    size = t["size_bytes"].to_numpy().astype(float)
    grid = np.linspace(w0, w1, _GRID)[:, None]
    transferring = ((ds[None, :] >= 0) & (ds[None, :] <= grid) & (done[None, :] > grid)).sum(axis=1)
    opened = (start >= w0) & (ds >= 0) & (ds <= w1)

    def held_mb(at: float) -> float:
        return float(size[(start <= at) & (done > at)].sum()) / 1e6

    return {"in_transfer": float(transferring.mean()),
            "dialogue_s": float(np.mean(ds[opened] - start[opened])) if opened.any() else float("nan"),
            "inventory_w0_mb": held_mb(w0), "inventory_w1_mb": held_mb(w1 - 1e-9),
            "retransmits": float(t["retransmits"].sum())}


def _served(o: Outcome, window: tuple[float, float]) -> tuple[dict[int, int], dict[str, float]]:
    """Files served per bin in ``window`` (-1: all bins), and the run's
    :func:`mechanism`."""
    w0, w1 = window
    t = tasks_of(o)
    s = t.filter((pl.col("done_s") >= w0) & (pl.col("done_s") < w1))
    counts = s.group_by("bin").len()
    c = dict(zip(counts["bin"].to_list(), counts["len"].to_list()))
    per = {b: int(c.get(b, 0)) for b in range(filebase.MAX_BYTES // BIN_BYTES)}
    per[-1] = s.height
    return per, mechanism(t, window)


def closed_loop_rows(outcomes: Sequence[Outcome], window: tuple[float, float], part: str = PART,
                     rafle_n: int = 40) -> list[dict[str, Any]]:
    """Part ``part``'s rows (its runs' keys: part, classifier, scheduler,
    setting or None, realization): files served per bin in ``window`` over
    the realizations, the gain over drop-tail at the same setting, and the
    :data:`MECHANISM` measures on the ``all`` row."""
    groups = by_point([o for o in outcomes if o.key[0] == part])
    served: dict[tuple[Any, ...], dict[int, list[int]]] = {}
    mech: dict[tuple[Any, ...], dict[str, list[float]]] = {}
    for (_, cls, sch, setting), outs in groups.items():
        per_bin: dict[int, list[int]] = {}
        m: dict[str, list[float]] = {k: [] for k in MECHANISM}
        for o in outs:
            per, got = _served(o, window)
            for b, v in per.items():
                per_bin.setdefault(b, []).append(v)
            for k in MECHANISM:
                m[k].append(got[k])
        served[(cls, sch, setting)], mech[(cls, sch, setting)] = per_bin, m
    rows = []
    for (cls, sch, setting), per_bin in served.items():
        dt = served.get(("droptail", "fifo", setting), {})
        for b, v in sorted(per_bin.items(), key=lambda kv: (kv[0] < 0, kv[0])):
            mean, half, n = mean_ci([float(x) for x in v], LEVEL)
            row: dict[str, Any] = {
                "part": part, "classifier": cls, "scheduler": sch, "setting": setting,
                "bin_kb": "all" if b < 0 else bin_label(b), "files_served": mean, "files_served_ci95": half,
                "realizations": n, "n": rafle_n if cls == "rafle" else None,
            }
            if cls != "droptail" and b in dt and np.mean(dt[b]) > 0:
                row["gain"] = mean / float(np.mean(dt[b])) - 1
                if len(dt[b]) == len(v) and all(x > 0 for x in dt[b]):
                    _, row["gain_ci95"], _ = mean_ci([x / y - 1 for x, y in zip(v, dt[b])], LEVEL)
            if b < 0:
                row |= {k: float(np.nanmean(x)) if not np.all(np.isnan(x)) else None
                        for k, x in ((k, np.array(mech[(cls, sch, setting)][k])) for k in MECHANISM)}
            rows.append(row)
    return rows


def _all_row(rows: pl.DataFrame, cls: str, sch: str, part: str = PART, setting: str | None = None
             ) -> dict[str, Any] | None:
    f = rows.filter((pl.col("part") == part) & (pl.col("classifier") == cls) & (pl.col("scheduler") == sch)
                    & (pl.col("bin_kb") == "all")
                    & (pl.col("setting").is_null() if setting is None else pl.col("setting") == setting))
    return f.row(0, named=True) if f.height else None


def loop_claim_fields(rows: pl.DataFrame, cls: str, sch: str, link_bps: float, duration_s: float
                      ) -> dict[str, float | int | None]:
    """A Table 4 claim's measures of its router (``ours_*``) and of
    drop-tail (``dt_*``) in the closed-loop part: tasks transferring,
    dialogue (s), files held at the window's end (MB), segments
    retransmitted and their share of the link's time over the run, in %
    (``*_retx_pct``); Nones when the part did not run."""
    out: dict[str, float | int | None] = {}
    for pre, (c, s) in (("ours", (cls, sch)), ("dt", ("droptail", "fifo"))):
        r = _all_row(rows, c, s) or {}
        retx = r.get("retransmits")
        out |= {f"{pre}_in_transfer": r.get("in_transfer"), f"{pre}_dialogue_s": r.get("dialogue_s"),
                f"{pre}_inventory_mb": r.get("inventory_w1_mb"),
                f"{pre}_retransmits": None if retx is None else round(retx),
                f"{pre}_retx_pct": None if retx is None else 100 * retx * WIRE_BYTES * 8 / (link_bps * duration_s)}
    return out


CLAIM_SCHEMA = {f"{pre}_{k}": pl.Int64 if k == "retransmits" else pl.Float64 for pre in ("ours", "dt")
                for k in ("in_transfer", "dialogue_s", "inventory_mb", "retransmits", "retx_pct")}
"""The columns :func:`loop_claim_fields` adds to the paper frame."""


def loop_sensitivity(rows: pl.DataFrame, claim: Mapping[str, Any], buffer_pkts: int
                     ) -> tuple[str | None, float | None, float | None]:
    """A Table 4 claim's gain under each setting of part
    ``closed-loop-sensitivity`` (ours at the experiment's ``buffer_pkts``
    first): in words, and the lowest and highest (ours included); Nones for
    other claims or when the part did not run."""
    none = (None, None, None)
    if claim["part"] != PART or claim.get("metric") != "gain":
        return none
    s = rows.filter((pl.col("part") == SENSITIVITY_PART) & (pl.col("classifier") == claim["classifier"])
                    & (pl.col("scheduler") == claim["scheduler"]) & (pl.col("bin_kb") == claim["bin_kb"]))
    got = [(r["setting"], float(r["gain"])) for r in s.iter_rows(named=True) if r["gain"] is not None]
    if not got:
        return none
    if claim.get("ours") is not None:
        got.insert(0, (f"router {buffer_label(buffer_pkts)} (the part's)", float(claim["ours"])))
    vals = [v for _, v in got]
    text = ", ".join(f"{k} {v:.4g}" for k, v in got)
    return f"Table 4's settings (part {SENSITIVITY_PART}): {text}", min(vals), max(vals)


def _f(v: Any, fmt: str = "{:.1f}") -> str:
    return "-" if v is None or (isinstance(v, float) and v != v) else fmt.format(v)


def _pct(v: Any) -> str:
    return _f(None if v is None else 100 * v)


def closed_loop_lines(rows: pl.DataFrame, paper: pl.DataFrame, combos: Sequence[tuple[str, str]],
                      label: Any, text_table: Any) -> list[str]:
    """The printed report's parts ``closed-loop`` (Table 4 beside the
    paper's, with the measures behind it) and ``closed-loop-sensitivity``
    (the first bin's gain and the measures under each setting)."""
    lines: list[str] = []

    def pgain(cls: str, sch: str) -> float | None:
        f = paper.filter((pl.col("part") == PART) & (pl.col("classifier") == cls) & (pl.col("scheduler") == sch)
                         & (pl.col("metric") == "gain"))
        return f["value"][0] if f.height else None

    def table(part: str, settings: list[str | None]) -> list[list[str]]:
        body = []
        for setting in settings:
            for cls, sch in combos:
                sel = rows.filter((pl.col("part") == part) & (pl.col("classifier") == cls)
                                  & (pl.col("scheduler") == sch)
                                  & (pl.col("setting").is_null() if setting is None else pl.col("setting") == setting))
                r0, ra = sel.filter(pl.col("bin_kb") == "0-100"), sel.filter(pl.col("bin_kb") == "all")
                if not r0.height or not ra.height:
                    continue
                r0, ra = r0.row(0, named=True), ra.row(0, named=True)
                pg = pgain(cls, sch)
                body.append(([setting] if part != PART else []) + [
                    label((cls, sch)), f"{_f(r0['files_served'])}±{_f(r0['files_served_ci95'])}",
                    _f(ra["files_served"]), _pct(r0["gain"]) + (f" [{100 * pg:.2f}]" if pg is not None else ""),
                    _f(ra["in_transfer"]), _f(ra["dialogue_s"]),
                    f"{_f(ra['inventory_w0_mb'], '{:.0f}')} → {_f(ra['inventory_w1_mb'], '{:.0f}')}",
                    _f(ra["retransmits"], "{:.0f}")])
        return body

    head = ["router", "0-100 KB", "all", "gain % [paper]", "in transfer", "dialogue s", "held MB", "retransmits"]
    body = table(PART, [None])
    if body:
        lines += ["", "[closed-loop] files served in the window: first bin, all, first-bin gain [paper]  — Table 4; "
                      "tasks transferring (mean over the window), the FTP dialogue's mean duration, the sizes of the "
                      "files the 300 slots hold at the window's start → end, segments retransmitted"]
        lines += text_table([head, *body], indent="  ")
    settings = rows.filter(pl.col("part") == SENSITIVITY_PART)["setting"].unique(maintain_order=True).to_list()
    body = table(SENSITIVITY_PART, settings)
    if body:
        lines += ["", f"[{SENSITIVITY_PART}] the closed loop with one setting the paper leaves open changed: "
                      "the router's buffer, the hosts' kernel era (same columns)"]
        lines += text_table([["setting", *head], *body], indent="  ")
    return lines
