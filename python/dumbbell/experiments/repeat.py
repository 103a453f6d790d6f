"""Repetitions, confidence intervals and parallel execution for experiments.

Experiments with many independent runs (E3, E5) describe each run as a
:class:`Job` (a key, a scenario and a seed) and hand the list to
:func:`run_jobs`. The core releases the GIL while it simulates, so a thread
pool keeps every local core busy without pickling scenarios or results. Each
job's outcome (its ``flows`` table and ``summary``, small) comes back in job
order whatever order the runs finish in, so results do not depend on the
number of workers. A run that fails is reported (its error is kept and
:func:`run_jobs` raises once everything else has finished), never silently
dropped, and never takes the other runs with it.

Confidence intervals are Student-t intervals for the mean of independent
repetitions: ``half = t_{(1+level)/2, n-1} · s / √n`` with ``s`` the sample
standard deviation (``scipy.stats.t``).
"""

from __future__ import annotations

import math
import os
import time
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
from scipy import stats

from ..errors import SimulationError
from ..run import run as run_scenario
from ..scenario import Scenario

__all__ = ["Job", "Outcome", "run_jobs", "by_point", "mean_ci", "round_seed", "default_workers"]


@dataclass(frozen=True)
class Job:
    """One run: ``key`` names it (any hashable, for example
    ``("loss", "bbr", 0.01, 3)``), ``scenario`` and ``seed`` define it."""

    key: Hashable
    scenario: Scenario
    seed: int


@dataclass
class Outcome:
    """What a run leaves: its per-flow table, its summary, its wall time and
    every table it recorded (:meth:`table`)."""

    key: Hashable
    seed: int
    flows: pl.DataFrame
    summary: dict[str, Any]
    wall_s: float
    tables: dict[str, pl.DataFrame] = field(default_factory=dict, repr=False)

    def table(self, name: str) -> pl.DataFrame:
        """The run's table ``name`` (docs/output.md)."""
        try:
            return self.tables[name]
        except KeyError:
            raise KeyError(f"run {self.key!r} has no table {name!r}") from None

    def goodput_bps(self, name: str) -> float:
        """The goodput of the flow called ``name`` over its whole life, like
        iperf's final report (payload bits delivered in order / duration)."""
        row = self.flows.filter(pl.col("name") == name)
        if row.height != 1:
            raise KeyError(f"no flow {name!r} in run {self.key!r}")
        return float(row["goodput_bps"][0])


def round_seed(seed: int, index: int) -> int:
    """The seed of run ``index`` of an experiment run with ``seed``: distinct
    for every (seed, index) with seed < 2^40 and index < 2^24, and a valid
    64-bit seed."""
    if not (0 <= index < 1 << 24):
        raise ValueError(f"run index {index} out of range [0, 2^24)")
    return ((seed % (1 << 40)) << 24) | index


def default_workers() -> int:
    """Local cores (``os.process_cpu_count`` where available)."""
    count = getattr(os, "process_cpu_count", os.cpu_count)()
    return max(1, count or 1)


def _one(job: Job) -> Outcome:
    t0 = time.perf_counter()
    res = run_scenario(job.scenario, seed=job.seed)
    wall = time.perf_counter() - t0
    if not res.summary["conservation_ok"]:
        raise SimulationError(f"run {job.key!r}: packet conservation failed")
    return Outcome(key=job.key, seed=job.seed, flows=res.flows, summary=res.summary, wall_s=wall,
                   tables=res.tables)


def run_jobs(
    jobs: Sequence[Job],
    *,
    workers: int | None = None,
    progress: Callable[[str], None] | None = None,
    label: str = "runs",
) -> list[Outcome]:
    """Runs every job, ``workers`` at a time (default: every local core), and
    returns the outcomes in job order.

    If some runs fail, the others still complete; then :class:`SimulationError`
    is raised listing every failed key and its error.
    """
    n = len(jobs)
    workers = default_workers() if workers is None else max(1, workers)
    results: list[Outcome | None] = [None] * n
    failures: list[str] = []
    t0 = time.perf_counter()
    step = max(1, n // 20)
    done = 0
    with ThreadPoolExecutor(max_workers=min(workers, max(1, n))) as pool:
        futures = {pool.submit(_one, job): i for i, job in enumerate(jobs)}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                results[i] = fut.result()
            except Exception as e:  # noqa: BLE001 - every failure is reported below
                failures.append(f"{jobs[i].key!r} (seed {jobs[i].seed}): {type(e).__name__}: {e}")
            done += 1
            if progress and (done % step == 0 or done == n):
                progress(f"{label}: {done}/{n} runs, {time.perf_counter() - t0:.1f} s")
    if failures:
        raise SimulationError(f"{len(failures)} of {n} runs failed:\n  " + "\n  ".join(sorted(failures)))
    return [r for r in results if r is not None]


def by_point(outcomes: Sequence[Outcome]) -> dict[Hashable, list[Outcome]]:
    """Outcomes grouped by their key without its last element (the
    repetition index), in first-seen order: one group per measured point."""
    groups: dict[Hashable, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.key[:-1]].append(o)  # type: ignore[index]
    return dict(groups)


def mean_ci(values: Sequence[float], level: float) -> tuple[float, float, int]:
    """(mean, half-width of the ``level`` Student-t interval, n). The
    half-width is NaN with fewer than two values, 0 if they are all equal."""
    x = np.asarray(values, dtype=np.float64)
    n = int(x.size)
    if n == 0:
        return float("nan"), float("nan"), 0
    mean = float(x.mean())
    if n < 2:
        return mean, float("nan"), n
    sd = float(x.std(ddof=1))
    half = float(stats.t.ppf(0.5 + level / 2.0, n - 1)) * sd / math.sqrt(n)
    return mean, half, n
