"""Parameter search through the sweep engine: a coarse grid over the box the
user gives, then finer grids around the best point found so far.

::

    dumbbell optimize examples/dctcp_queue_red_1g.toml \\
        --param 'links[c-s1].queue_ba.min_th=6000..90000' \\
        --param 'links[c-s1].queue_ba.max_th=9000..120000' \\
        --metric "goodput_bps() / (300e-6 + queue_delay_s('s1', 'c'))"

Why a refined grid and not a Bayesian optimizer (optuna): the simulator is
deterministic, the boxes are small (two to four parameters), and a grid
makes the search itself reproducible and resumable for free: every trial is
a run of the sweep engine, so it lands in the results store, and a search
started again computes nothing it already did. Round 0 evaluates
``points`` values per parameter spread evenly over its range (their product);
each later round centres a box of ± one previous grid step on the best
trial and evaluates ``points`` values per parameter in it again, skipping
points already evaluated. Points the scenario refuses (a RED ``max_th``
below its ``min_th``) are recorded as ``invalid`` and cost nothing.

The metric is a Python expression evaluated once per run over its tables
(``flows``, ``queues``, ``summary``, ``queue_trace``, ... as polars
DataFrames; ``summary`` also as a dict) and helpers: ``goodput_bps()``
(sum over flows), ``queue_delay_s(node, peer)`` and
``queue_mean_pkts(node, peer)`` (time-weighted means of a traced port),
``utilization(node, peer)``, ``drops(node, peer)``, with ``np``, ``pl``
and ``math``. A trial's metric is the mean over its repetitions. The
history (every trial: round, parameters, metric, status, run ids) is stored
as ``studies/<study>.json`` and in the catalog's ``trials`` table.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..errors import ConfigError
from ..scenario.models import Scenario
from .store import RunRecord
from ..jsondoc import json_safe
from .engine import RunSpec, current, execute, expand_grid, round_seed, simulator_version

__all__ = ["Param", "parse_param", "metric_function", "optimize", "StudyResult"]


@dataclass(frozen=True)
class Param:
    """A parameter to search: a grid path (see :mod:`dumbbell.sweep`) and its
    range; integer if both bounds are written as integers."""

    path: str
    lo: float
    hi: float
    integer: bool

    def axis(self, lo: float, hi: float, points: int) -> list[float | int]:
        vals = np.linspace(lo, hi, points) if points > 1 else np.array([(lo + hi) / 2])
        if self.integer:
            return sorted({int(round(v)) for v in vals})
        return sorted({float(f"{v:.12g}") for v in vals})  # 0.04, not 0.04000000000000001: seen once


_RANGE = re.compile(r"^\s*([^=]+?)\s*=\s*([-+0-9.eE]+)\s*\.\.\s*([-+0-9.eE]+)\s*$")


def parse_param(text: str) -> Param:
    """``PATH=LO..HI`` → :class:`Param`."""
    m = _RANGE.match(text)
    if not m:
        raise ConfigError("--param", f"expected PATH=LO..HI (e.g. links[2].queue_ba.min_th=3000..60000), got {text!r}")
    path, lo_s, hi_s = m.groups()
    try:
        lo, hi = float(lo_s), float(hi_s)
    except ValueError:
        raise ConfigError(f"--param {path}", f"bounds must be numbers, got {lo_s!r}..{hi_s!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        raise ConfigError(f"--param {path}", f"needs LO < HI, got {lo_s}..{hi_s}")
    integer = all(re.fullmatch(r"[-+]?\d+", x) for x in (lo_s, hi_s))
    return Param(path=path, lo=lo, hi=hi, integer=integer)


class _RunNamespace(dict):
    """The names a metric expression sees for one run (tables read lazily)."""

    def __init__(self, rec: RunRecord) -> None:
        super().__init__()
        self.rec = rec
        self.update(np=np, pl=pl, math=math, metrics=dict(rec.metrics))
        self.update(goodput_bps=self._goodput, queue_delay_s=self._queue_delay_s,
                    queue_mean_pkts=self._queue_mean_pkts, utilization=self._utilization, drops=self._drops)

    def __missing__(self, key: str) -> Any:
        if key in self.rec.table_names:
            df = self.rec.table(key)
            self[key] = df.row(0, named=True) if key == "summary" else df
            return self[key]
        raise KeyError(key)  # eval goes on to the builtins

    def _port(self, node: str, peer: str) -> dict[str, Any]:
        q = self["queues"].filter((pl.col("node") == node) & (pl.col("peer") == peer))
        if q.height == 0:
            raise KeyError(f"no port of {node!r} toward {peer!r}")
        return q.row(0, named=True)

    def _goodput(self) -> float:
        return float(self["flows"]["goodput_bps"].sum())

    def _trace(self, node: str, peer: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from ..run.analysis import hold_weights

        port = self._port(node, peer)
        tr = self["queue_trace"].filter(pl.col("port") == port["port"])
        if tr.height == 0:
            raise KeyError(f"the port of {node!r} toward {peer!r} is not traced (add it to record.queues)")
        t = tr["time_ps"].to_numpy()
        return tr["pkts"].to_numpy(), tr["bytes"].to_numpy(), hold_weights(t, int(self["summary"]["sim_time_ps"]))

    def _queue_mean_pkts(self, node: str, peer: str) -> float:
        pkts, _, w = self._trace(node, peer)
        return float(np.average(pkts, weights=w)) if w.sum() > 0 else float("nan")

    def _queue_delay_s(self, node: str, peer: str) -> float:
        _, byts, w = self._trace(node, peer)
        rate = self._port(node, peer)["rate_bps"]
        return float(np.average(byts, weights=w)) * 8 / rate if w.sum() > 0 else float("nan")

    def _utilization(self, node: str, peer: str) -> float:
        return float(self._port(node, peer)["utilization"])

    def _drops(self, node: str, peer: str) -> int:
        p = self._port(node, peer)
        return int(p["drops_overflow"] + p["drops_red_early"] + p["drops_red_forced"])


def metric_function(expr: str) -> Callable[[RunRecord], float]:
    """The metric ``expr`` as a function of a stored run (see the module docs)."""
    try:
        code = compile(expr, "<metric>", "eval")
    except SyntaxError as e:
        raise ConfigError("--metric", f"not a Python expression: {e.msg} in {expr!r}") from None
    safe = {"abs": abs, "min": min, "max": max, "sum": sum, "len": len, "float": float, "int": int, "round": round}

    def f(rec: RunRecord) -> float:
        try:
            v = eval(code, {"__builtins__": safe}, _RunNamespace(rec))  # noqa: S307 - the user's own expression
        except NameError as e:
            raise NameError(f"{e} (tables: {', '.join(rec.table_names)}; helpers: goodput_bps, queue_delay_s, "
                            "queue_mean_pkts, utilization, drops)") from None
        return float(v)

    return f


@dataclass
class StudyResult:
    """The search's history (one row per trial) and its best trial."""

    study: str
    trials: pl.DataFrame
    best: dict[str, Any] | None
    maximize: bool


def optimize(
    scenario: Scenario,
    params: Sequence[Param],
    metric: str,
    *,
    maximize: bool = True,
    points: int = 5,
    rounds: int = 3,
    repeats: int = 1,
    seed: int | None = None,
    study: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> StudyResult:
    """Searches ``params`` for the best ``metric`` (see the module docs), in
    the execution context of the enclosing :func:`dumbbell.sweep.using`
    block (its store receives the runs and the history)."""
    if not params:
        raise ConfigError("--param", "give at least one parameter to search")
    if points < 2:
        raise ConfigError("--points", f"must be at least 2, got {points}")
    if rounds < 1:
        raise ConfigError("--rounds", f"must be at least 1, got {rounds}")
    if repeats < 1:
        raise ConfigError("--repeats", f"must be at least 1, got {repeats}")
    f = metric_function(metric)
    name = study or f"optimize:{scenario.name}"
    base_seed = scenario.seed if seed is None else seed
    version = simulator_version()
    box = [(p.lo, p.hi) for p in params]
    trials: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    best: dict[str, Any] | None = None
    sign = 1.0 if maximize else -1.0
    for rnd in range(rounds):
        axes = [p.axis(lo, hi, points) for p, (lo, hi) in zip(params, box)]
        steps = [(hi - lo) / (points - 1) for lo, hi in box]
        batch, specs = [], []
        for combo in itertools.product(*axes):
            if combo in seen:
                continue
            seen.add(combo)
            point = {p.path: v for p, v in zip(params, combo)}
            trial = {"trial": len(trials), "round": rnd, "params": point, "metric": None, "status": "ok",
                     "run_ids": [], "error": None}
            trials.append(trial)
            try:
                ((_, s),) = expand_grid(scenario, {k: [v] for k, v in point.items()})
            except ConfigError as e:
                trial.update(status="invalid", error=str(e))
                continue
            first = len(specs)
            for r in range(repeats):
                rs = base_seed if r == 0 else round_seed(base_seed, r)
                specs.append(RunSpec.of(s, rs, {"experiment": name, "point": json_safe(point), "rep": r}, version))
            batch.append((trial, first, len(specs)))
        if specs:
            records = execute(specs, label=name)
            for trial, a, b in batch:
                recs = records[a:b]
                trial["run_ids"] = [r.run_id for r in recs]
                bad = [r for r in recs if not r.ok]
                if bad:
                    trial.update(status="failed", error=bad[0].error)
                    continue
                try:
                    vals = [f(r) for r in recs]
                except Exception as e:  # noqa: BLE001 - a metric that cannot be computed marks the trial
                    trial.update(status="metric-error", error=f"{type(e).__name__}: {e}")
                    continue
                trial["metric"] = float(np.mean(vals))
        ok = [t for t in trials if t["status"] == "ok" and t["metric"] is not None and math.isfinite(t["metric"])]
        if not ok:
            errors = sorted({t["error"] for t in trials if t["error"]})
            raise ConfigError("--metric", "no trial gave a metric: " + "; ".join(errors[:3]))
        best = max(ok, key=lambda t: (sign * t["metric"], -t["trial"]))
        if progress:
            shown = ", ".join(f"{k}={v:g}" for k, v in best["params"].items())
            progress(f"{name}: round {rnd + 1}/{rounds}: {len(trials)} trials, best {best['metric']:.6g} at {shown}")
        box = []
        for p, step, (k, v) in zip(params, steps, best["params"].items()):
            box.append((max(p.lo, v - step), min(p.hi, v + step)))
    doc = {"study": name, "scenario": scenario.name, "metric": metric, "maximize": maximize, "points": points,
           "rounds": rounds, "repeats": repeats, "seed": base_seed, "version": version,
           "params": [{"path": p.path, "lo": p.lo, "hi": p.hi, "integer": p.integer} for p in params],
           "best": best, "trials": trials}
    st = current().store
    if st is not None and st.writing_now:
        st.put_study(_study_file_name(name), doc)
    rows = [{"trial": t["trial"], "round": t["round"], **{k: v for k, v in t["params"].items()},
             "metric": t["metric"], "status": t["status"], "error": t["error"]} for t in trials]
    return StudyResult(study=name, trials=pl.DataFrame(rows, infer_schema_length=None), best=best, maximize=maximize)


def _study_file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)
