"""Repetitions, confidence intervals and parallel execution for experiments.

Experiments with many independent runs describe each run as a :class:`Job`
(a key, a scenario and a seed) and hand the list to :func:`run_jobs`, which
goes through the sweep engine (:func:`dumbbell.sweep.execute`): the runs are
made by the executor of the enclosing :func:`dumbbell.sweep.using` block
(local threads by default, or Dask), stored in its results store when there
is one (``dumbbell reproduce`` always sets one), and taken from that store
instead of computed when it already holds them. So an interrupted
experiment resumes where it stopped, and a finished one re-renders without
simulating anything.

What :func:`run_jobs` guarantees: outcomes come back in job order whatever
order the runs finish in, so results do not depend on the executor or the
number of workers. A run that fails is recorded (in the store, as
``failed`` with its error) and reported: :func:`run_jobs` raises once
everything else has finished, never silently dropping a run and never
letting one take the others with it.

Each job's outcome carries its summary and its wall time; its tables
(``flows`` and every other table the run recorded) are read when asked for,
from the store's Parquet files or from memory.

Confidence intervals are Student-t intervals for the mean of independent
repetitions: ``half = t_{(1+level)/2, n-1} · s / √n`` with ``s`` the sample
standard deviation (``scipy.stats.t``).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from ..errors import SimulationError
from ..run.result import Result
from ..scenario.models import Scenario
from ..sweep.store import RunRecord
from ..jsondoc import json_safe
from ..sweep.engine import RunSpec, default_workers, execute, round_seed, simulator_version
from ..sweep.intervals import mean_ci

__all__ = ["Job", "Outcome", "run_jobs", "by_point", "mean_ci", "round_seed", "default_workers"]


@dataclass(frozen=True)
class Job:
    """One run: ``key`` names it (any hashable, for example
    ``("loss", "bbr", 0.01, 3)``; by convention its last element is the
    repetition index), ``scenario`` and ``seed`` define it."""

    key: Hashable
    scenario: Scenario
    seed: int


class Outcome:
    """What a run leaves: its summary, its wall time and its tables.

    ``flows`` (and :meth:`table` for any other table) is read on first use
    and kept; :meth:`result` rebuilds the :class:`~dumbbell.run.Result` of
    the run for code that measures from one.
    """

    def __init__(self, key: Hashable, job: Job, record: RunRecord) -> None:
        self.key = key
        self.seed = record.seed
        self.job = job
        self.record = record
        self.summary: dict[str, Any] = record.summary
        self.wall_s: float = record.wall_s
        self._tables: dict[str, pl.DataFrame] = {}

    def __repr__(self) -> str:
        return f"Outcome(key={self.key!r}, seed={self.seed}, run_id={self.run_id!r})"

    @property
    def run_id(self) -> str:
        return self.record.run_id

    @property
    def cached(self) -> bool:
        """True if the run came from the store rather than being computed."""
        return self.record.cached

    def table(self, name: str) -> pl.DataFrame:
        """The run's table ``name`` (docs/output.md)."""
        if name not in self._tables:
            self._tables[name] = self.record.table(name)
        return self._tables[name]

    @property
    def flows(self) -> pl.DataFrame:
        """One row per flow (docs/output.md)."""
        return self.table("flows")

    def result(self) -> Result:
        """The run as a :class:`~dumbbell.run.Result` (every table loaded)."""
        from ..sweep.engine import current

        config = self.job.scenario.to_core(self.job.seed)
        if current().tcp:  # reproduce --tcp: the document as it ran
            config = current().tcp.apply(config)
        return Result(scenario=self.job.scenario, seed=self.seed, config=config,
                      tables={n: self.table(n) for n in self.record.table_names})

    def goodput_bps(self, name: str) -> float:
        """The goodput of the flow called ``name`` over its whole life, like
        iperf's final report (payload bits delivered in order / duration)."""
        row = self.flows.filter(pl.col("name") == name)
        if row.height != 1:
            raise KeyError(f"no flow {name!r} in run {self.key!r}")
        return float(row["goodput_bps"][0])


def _labels(key: Hashable, label: str) -> dict[str, Any]:
    if isinstance(key, tuple) and key and isinstance(key[-1], int) and not isinstance(key[-1], bool):
        return {"experiment": label, "point": json_safe(list(key[:-1])), "rep": key[-1]}
    return {"experiment": label, "point": json_safe(key), "rep": None}


def run_jobs(
    jobs: Sequence[Job],
    *,
    workers: int | None = None,
    progress: Callable[[str], None] | None = None,
    label: str = "runs",
) -> list[Outcome]:
    """Runs every job through the sweep engine (see the module docs), with
    ``workers`` local threads if the context sets none (default: every
    local core), and returns the outcomes in job order. ``label`` names the
    runs in the store's catalog (the experiment's name).

    If some runs fail, the others still complete and are stored; then
    :class:`SimulationError` is raised listing every failed key and its
    error.
    """
    t0 = time.perf_counter()
    version = simulator_version()
    specs = [RunSpec.of(job.scenario, job.seed, _labels(job.key, label), version) for job in jobs]
    records = execute(specs, label=label, workers=workers)
    failures = [f"{job.key!r} (seed {job.seed}): {rec.error}" for job, rec in zip(jobs, records) if not rec.ok]
    if progress:
        cached = sum(1 for r in records if r.cached)
        progress(f"{label}: {len(jobs)}/{len(jobs)} runs ({len(jobs) - cached} computed, {cached} from the store, "
                 f"{len(failures)} failed), {time.perf_counter() - t0:.1f} s")
    if failures:
        raise SimulationError(f"{len(failures)} of {len(jobs)} runs failed:\n  " + "\n  ".join(sorted(failures)))
    return [Outcome(job.key, job, rec) for job, rec in zip(jobs, records)]


def by_point(outcomes: Sequence[Outcome]) -> dict[Hashable, list[Outcome]]:
    """Outcomes grouped by their key without its last element (the
    repetition index), in first-seen order: one group per measured point."""
    groups: dict[Hashable, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        groups[o.key[:-1]].append(o)  # type: ignore[index]
    return dict(groups)
