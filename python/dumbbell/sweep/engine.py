"""Sweeps: many runs of a scenario over a grid of parameters and seeds, on the
local cores or a Dask cluster, into a results store that skips what it holds.

::

    import dumbbell as db

    s = db.Scenario.from_toml("examples/dctcp_star.toml")
    res = db.sweep(s, grid={"links[2].loss_ba": [0, 1e-4, 1e-3], "flows[*].cc": ["reno", "dctcp"]},
                   repeats=5, executor="dask")
    res.runs      # one row per run: grid point, rep, seed, status, metrics
    res.points()  # one row per point: mean and 95 % Student-t interval of each metric

The design, in order of what a run goes through:

- **Grid.** Each key is a path into the scenario as its TOML file spells it
  (``links[2].loss_ab``, ``flows[*].cc``, ``record.flow_sample_s``); an index
  is a number, ``*`` (every element) or a name (``flows[a->c]``, and for
  links the pair ``links[s1-c]``, either order). The grid is the Cartesian
  product of the keys' values, the last key varying fastest. Every point is
  validated before any run starts; a bad one is a
  :class:`~dumbbell.errors.ConfigError` naming the field and the point.
- **Seeds.** Repetition 0 of every point runs with the scenario's seed (so a
  one-repetition sweep repeats ``dumbbell run``), repetition ``r`` with
  ``round_seed(seed, r)`` (a SHA-256 of the full 64-bit seed and ``r``):
  the same seeds at every point (common random numbers, which makes
  differences between points less noisy).
- **Identity.** A run is the SHA-256 (first 128 bits, hex) of its fully
  resolved core document (:meth:`Scenario.to_core`, seed included) and the
  simulator's version (:func:`simulator_version`: the Cargo version and a
  hash of the simulator's sources). Nothing else: not the grid, not the
  experiment, not the executor. A store that holds a run with that identity
  and status ``ok`` serves it instead of computing it; a failed run is
  computed again.
- **Order.** The runs to compute go to the workers longest first, by a
  guess from each document (:func:`dumbbell.sweep.cost.estimate`: packets
  at its slowest link's rate over its simulated time), so a long run does
  not start last and leave one worker alone at the end. The order changes
  when a run finishes, never what it computes.
- **Executors.** ``local`` (default) runs on a thread pool: the core releases
  the GIL, so every local core is busy without pickling. ``dask`` starts a
  ``distributed.LocalCluster`` of single-threaded worker processes, or
  connects to ``scheduler`` (an address such as ``tcp://host:8786``, or a
  ``distributed`` Client or cluster object, e.g. dask-jobqueue's
  ``SLURMCluster``). Workers only compute: each returns its tables as
  Parquet bytes, and this process alone writes the store, so workers need no
  shared file system and the store has one writer.
- **Controls written in Python** (``cc=`` an instance of
  :class:`~dumbbell.controls.CongestionControl`) run with the ``local``
  executor only: they live in this process and are not sent to Dask
  workers, which is refused naming the field. Their identity is the class's
  module, name and source code and the instance's attributes, so editing the
  class computes its runs again.
- **Determinism.** A run's tables depend on its document and seed only;
  results come back in the order of the runs asked for whatever order they
  finish in; so the output does not depend on the executor or the number of
  workers (``tests/test_sweep.py`` compares stores byte for byte).
- **Failures.** A run that raises (bad input the core refuses, a broken
  invariant, a worker that died) is stored with status ``failed`` and its
  error, and the other runs go on.
- **Ctrl-C.** The first ``KeyboardInterrupt`` while runs are made cancels
  the runs not started, stops the running ones through the core's stop flag
  (local threads; a Dask cluster this process started is closed), and is
  raised again: nothing is stored for the stopped runs, the ones finished
  before it stay in the store (a later sweep resumes from them). A
  LocalCluster's workers never see the terminal's Ctrl-C (they start with
  SIGINT blocked), so they print nothing.
- **Verified reads.** A stored run is served only after every one of its
  files matched the checksums of its manifest (:meth:`Store.get_checked`);
  a damaged one is quarantined, named in one line and computed again.

:func:`using` sets the store, executor and progress display for everything
run inside it (``dumbbell reproduce`` and ``dumbbell sweep`` use it); the
experiments' :func:`dumbbell.experiments.repeat.run_jobs` goes through
:func:`execute` too, so every experiment gets the store, resumption and Dask.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import ConfigError
from ..jsondoc import json_safe
from ..scenario.models import Scenario
from .cost import order as cost_order
from .display import Display, LineDisplay, RichDisplay
from .executors import _DaskPool, _LocalPool
from .grid import expand_grid, set_path
from .spec import (
    EXECUTORS, RunSpec, SEED_DOMAIN, _record, compute, default_workers, round_seed, run_id_of, simulator_version,
)
from .store import DEFAULT_STORE, RunRecord, Store, canonical_json

__all__ = [
    "sweep",
    "SweepResult",
    "RunSpec",
    "Execution",
    "using",
    "current",
    "execute",
    "expand_grid",
    "set_path",
    "run_id_of",
    "simulator_version",
    "round_seed",
    "SEED_DOMAIN",
    "default_workers",
    "EXECUTORS",
]


# ---------------------------------------------------------------- context


@dataclass
class SweepStats:
    """What one :func:`execute` call did."""

    label: str
    runs: int = 0
    computed: int = 0
    cached: int = 0
    failed: int = 0
    sim_packets: int = 0
    computed_packets: int = 0
    wall_s: float = 0.0


@dataclass
class Execution:
    """Where and how runs are made: the store (None: in memory only), the
    executor, its workers or scheduler, the progress display. The executor
    is started on first use and kept until the :func:`using` block ends."""

    store: Store | None = None
    executor: str = "local"
    workers: int | None = None
    scheduler: Any = None
    display: Display = field(default_factory=Display)
    stats: list[SweepStats] = field(default_factory=list)
    tcp: Any = None
    """TCP options set on every connection of every run
    (:class:`~dumbbell.sweep.tcpset.TcpSettings`; ``dumbbell reproduce --tcp``)."""
    _pool: Any = None

    def pool(self, workers: int | None = None) -> Any:
        if self.executor not in EXECUTORS:
            raise ConfigError("--executor", f"unknown executor {self.executor!r} (known: {', '.join(EXECUTORS)})")
        if self._pool is None:
            if self.executor == "dask":
                self._pool = _DaskPool(self.workers or workers, self.scheduler)
            else:
                self._pool = _LocalPool(self.workers or workers or default_workers())
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


_CURRENT: contextvars.ContextVar[Execution | None] = contextvars.ContextVar("dumbbell_execution", default=None)


def current() -> Execution:
    """The execution context in force (a fresh in-memory, local one if none)."""
    ctx = _CURRENT.get()
    return ctx if ctx is not None else Execution()


@contextlib.contextmanager
def using(
    store: Store | str | Path | None = None,
    executor: str = "local",
    workers: int | None = None,
    scheduler: Any = None,
    display: Display | None = None,
    notify: Callable[[str], None] | None = None,
    tcp: Any = None,
) -> Iterator[Execution]:
    """Runs everything inside the block with this store, executor and display.

    ``tcp`` (a mapping such as ``{"gso_max_bytes": 65536}``, or
    :class:`~dumbbell.sweep.tcpset.TcpSettings` from
    :func:`~dumbbell.sweep.tcpset.parse_tcp`): TCP options written into
    every connection of every run's core document before its identity is
    computed, so the store keeps those runs apart.

    The store's writer lock is held for the whole block; the executor (a
    thread pool or a Dask client) is started on first use and closed at the
    end. ``executor="dask"`` with ``scheduler=None`` starts a LocalCluster of
    ``workers`` processes.
    """
    if executor not in EXECUTORS:
        from ..suggest import did_you_mean

        raise ConfigError("--executor", f"unknown executor {executor!r}{did_you_mean(executor, EXECUTORS)} "
                                        f"(known: {', '.join(EXECUTORS)})")
    if workers is not None and workers < 1:
        raise ConfigError("--workers", f"must be at least 1, got {workers}")
    if scheduler is not None and executor != "dask":
        raise ConfigError("--scheduler", "needs --executor dask")
    from .tcpset import tcp_settings

    tcp = tcp_settings(tcp)
    st = Store(store) if isinstance(store, (str, Path)) else store
    ctx = Execution(store=st, executor=executor, workers=workers, scheduler=scheduler, display=display or Display(),
                    tcp=tcp)
    token = _CURRENT.set(ctx)
    try:
        with st.writing(notify=notify) if st is not None else contextlib.nullcontext():
            yield ctx
    finally:
        _CURRENT.reset(token)
        ctx.close()


# ---------------------------------------------------------------- the engine


def execute(specs: Sequence[RunSpec], *, label: str = "runs", workers: int | None = None,
            ctx: Execution | None = None) -> list[RunRecord]:
    """Makes every run of ``specs`` that the store does not hold (all of
    them without a store) and returns one record per spec, in order. Runs
    that fail are recorded failed; nothing is raised for them."""
    ctx = ctx or current()
    t0 = time.perf_counter()
    version = simulator_version()
    if ctx.tcp:  # TCP options on every connection (tcpset.py), before the runs' identities
        specs = [spec.with_tcp(ctx.tcp, version) for spec in specs]
    store = ctx.store
    n = len(specs)
    records: list[RunRecord | None] = [None] * n
    todo: dict[str, list[int]] = {}
    stats = SweepStats(label=label, runs=n)
    sweep_id = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{uuid.uuid4().hex[:8]}"
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for i, spec in enumerate(specs):
        if spec.run_id in todo:
            todo[spec.run_id].append(i)
            continue
        # every file checked against its checksum; a damaged run is set aside and computed again
        got = store.get_checked(spec.run_id, spec.config, spec.labels) if store is not None else None
        if got is not None and got.ok:
            records[i] = got
            stats.cached += 1
            stats.sim_packets += int(got.summary.get("data_packets_sent") or 0)
        else:
            todo[spec.run_id] = [i]
    # a spec that did not resolve fails at once, without an executor
    unresolved = [rid for rid, idx in todo.items() if specs[idx[0]].config is None]
    for rid in unresolved:
        spec = specs[todo[rid][0]]
        out = {"status": "failed", "error": spec.error, "summary": {}, "metrics": {}, "tables": {}, "wall_s": 0.0}
        _finish(ctx, stats, store, spec, out, version, todo.pop(rid), records, count=False)
    pending = [(rid, specs[idx[0]].config, specs[idx[0]].controls) for rid, idx in todo.items()]
    # longest first (sweep/cost.py), so no long run starts last; records keep the specs' order
    pending = [pending[i] for i in cost_order([cfg for _, cfg, _ in pending])]
    if ctx.executor != "local":
        for _, _, controls in pending:
            _refuse_remote(controls, ctx.executor)
    if pending:
        pool = ctx.pool(workers)
        ctx.display.start(label, n, n - sum(len(v) for v in todo.values()), pool.slots())
        try:
            for rid, out in pool.run(pending):
                idx = todo.pop(rid)
                _finish(ctx, stats, store, specs[idx[0]], out, version, idx, records)
        except BaseException:
            # Ctrl-C (or the store failing, e.g. a full disk): nothing more is
            # started, the running runs are stopped (and dropped, not stored);
            # the runs that finished before it stay in the store, so the work
            # resumes from there.
            pool.cancel()
            ctx.close()  # a later sweep in this block starts a fresh executor
            raise
        finally:
            ctx.display.finish()
    stats.wall_s = time.perf_counter() - t0
    ctx.stats.append(stats)
    if store is not None and store.writing_now:
        store.put_sweep({
            "sweep_id": sweep_id, "experiment": label, "started_at": started,
            "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "runs": n,
            "computed": stats.computed, "cached": stats.cached, "failed": stats.failed,
            "executor": ctx.executor, "workers": (ctx._pool.slots() if ctx._pool is not None else None),
            "wall_s": stats.wall_s, "sim_packets": stats.sim_packets, "version": version,
        })
        store.flush()
    return [r for r in records if r is not None]


def _refuse_remote(controls: Mapping[str, Any] | None, executor: str) -> None:
    """Python controls live in this process: a remote executor cannot run them."""
    for path, c in (controls or {}).items():
        raise ConfigError(
            path,
            f"{type(c).__name__} is a control written in Python: it runs in this process only, so "
            f"executor {executor!r} (Dask workers in other processes) cannot run it; use executor='local'",
        )


def _finish(ctx: Execution, stats: SweepStats, store: Store | None, spec: RunSpec, out: Mapping[str, Any],
            version: str, idx: list[int], records: list[RunRecord | None], count: bool = True) -> None:
    rec = _record(spec, out, version)
    if store is not None and store.writing_now and out["status"] != "cancelled":
        rec = store.put(rec, timing={"executor": ctx.executor})
        # read back the way a later sweep would, so both paths give the same thing
        rec = store.get(rec.run_id) or rec
        rec.cached = False
    packets = int(rec.summary.get("data_packets_sent") or 0)
    stats.computed += 1
    stats.cached += len(idx) - 1  # identical runs of the same sweep: computed once
    stats.failed += int(not rec.ok)
    stats.sim_packets += packets * len(idx)
    stats.computed_packets += packets
    if count:
        for k in range(len(idx)):
            ctx.display.advance(failed=not rec.ok, packets=packets if k == 0 else 0)
    for i in idx:
        records[i] = rec


# ---------------------------------------------------------------- sweep()


@dataclass
class SweepResult:
    """The runs of a sweep, in grid order, repetitions innermost."""

    name: str
    grid: dict[str, list[Any]]
    repeats: int
    seed: int
    records: list[RunRecord]
    points_list: list[dict[str, Any]]
    store: Store | None

    @property
    def runs(self) -> pl.DataFrame:
        """One row per run: the grid keys, ``rep``, ``seed``, ``run_id``,
        ``status``, ``error``, ``cached``, ``wall_s`` and the summary metrics."""
        rows = []
        for k, rec in enumerate(self.records):
            point = self.points_list[k // self.repeats]
            rows.append({**{key: _cell(v) for key, v in point.items()}, "rep": k % self.repeats, "seed": rec.seed,
                         "run_id": rec.run_id, "status": rec.status, "error": rec.error, "cached": rec.cached,
                         "wall_s": rec.wall_s, **{m: rec.metrics.get(m) for m in _METRIC_COLS}})
        return pl.DataFrame(rows, infer_schema_length=None)

    @property
    def failed(self) -> list[RunRecord]:
        return [r for r in self.records if not r.ok]

    def table(self, name: str) -> pl.DataFrame:
        """Table ``name`` of every successful run, stacked, with the grid keys,
        ``rep`` and ``run_id`` in front."""
        frames = []
        for k, rec in enumerate(self.records):
            if not rec.ok:
                continue
            point = self.points_list[k // self.repeats]
            df = rec.table(name)
            front = [pl.lit(_cell(v)).alias(key) for key, v in point.items()]
            frames.append(df.select([*front, pl.lit(k % self.repeats).alias("rep"), pl.lit(rec.run_id).alias("run_id"),
                                     pl.all()]))
        return pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()

    def points(self, level: float = 0.95) -> pl.DataFrame:
        """One row per grid point: runs ok and failed, then for each summary
        metric its mean and the half-width of its ``level`` Student-t
        interval over the repetitions."""
        from .intervals import mean_ci

        rows = []
        for p, point in enumerate(self.points_list):
            recs = self.records[p * self.repeats:(p + 1) * self.repeats]
            ok = [r for r in recs if r.ok]
            row: dict[str, Any] = {**{k: _cell(v) for k, v in point.items()}, "ok": len(ok), "failed": len(recs) - len(ok)}
            for m in ("goodput_bps", "fairness", "retransmits", "timeouts", "packets_dropped", "data_packets_sent"):
                vals = [float(r.metrics[m]) for r in ok if r.metrics.get(m) is not None]
                mean, half, _ = mean_ci(vals, level)
                row[m] = mean
                row[f"{m}_ci"] = half
            rows.append(row)
        return pl.DataFrame(rows, infer_schema_length=None)


_METRIC_COLS = ("sim_s", "events", "data_packets_sent", "packets_dropped", "conservation_ok", "flows", "goodput_bps",
                "fairness", "retransmits", "timeouts")


def _cell(v: Any) -> Any:
    """A grid value as a table cell: scalars as they are, tables as JSON."""
    return v if isinstance(v, (int, float, str, bool)) or v is None else canonical_json(v)


def sweep(
    scenario: Scenario | Mapping[str, Any] | str | Path,
    grid: Mapping[str, Sequence[Any]] | None = None,
    repeats: int = 1,
    *,
    seed: int | None = None,
    executor: str | None = None,
    workers: int | None = None,
    scheduler: Any = None,
    store: Store | str | Path | bool | None = None,
    name: str | None = None,
    tcp: Mapping[str, Any] | None = None,
) -> SweepResult:
    """Runs ``scenario`` at every point of ``grid``, ``repeats`` times each,
    and returns the runs (see the module docs for keys, seeds and identity).

    ``store``: a directory or :class:`Store` (default: the one of the
    enclosing :func:`using` block, else ``./dumbbell-results``); ``False``
    keeps everything in memory. ``executor``, ``workers``, ``scheduler``:
    as in :func:`using` (default: the enclosing block's, else local threads
    on every core). ``name`` labels the runs in the catalog (default
    ``sweep:<scenario name>``). ``tcp``: TCP options set on every TCP
    connection of every run, flows and workloads, over the scenario's and
    the grid's own (``{"gso_max_bytes": 65536}``; as ``dumbbell sweep
    --tcp``: checked before anything runs, the runs stored apart from those
    without it, the default label ``sweep:<scenario name>+tcp:KEY=VALUE``).
    """
    from ..run.runner import _as_scenario
    from .tcpset import tcp_settings

    s = _as_scenario(scenario)
    tcp_set = tcp_settings(tcp)  # a bad key or value: before anything runs
    outer = _CURRENT.get()
    if tcp_set and outer is not None and outer.tcp:
        raise ConfigError("tcp", "the enclosing using(tcp=...) block already sets TCP options; set them in one place")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ConfigError("--repeats", f"must be a positive integer, got {repeats!r}")
    base_seed = s.seed if seed is None else seed
    if isinstance(base_seed, bool) or not isinstance(base_seed, int) or not 0 <= base_seed < 2**64:
        raise ConfigError("--seed", f"must be an integer in [0, 2^64), got {base_seed!r}")
    ex_asked = executor or (_CURRENT.get().executor if _CURRENT.get() is not None else "local")
    if ex_asked != "local":
        _refuse_remote(s.python_controls(), ex_asked)
    points = expand_grid(s, grid)
    from ..scenario.plausible import warn_points

    warn_points(points, stacklevel=4)  # a rate below 1 kb/s, a delay above 10 s: once each, naming the points
    in_effect = tcp_set or (outer.tcp if outer is not None else None)
    label = name or f"sweep:{s.name}{in_effect.label_suffix() if in_effect else ''}"
    version = simulator_version()
    specs = []
    for point, ps in points:
        for r in range(repeats):
            rs = base_seed if r == 0 else round_seed(base_seed, r)
            specs.append(RunSpec.of(ps, rs, {"experiment": label, "point": json_safe(point), "rep": r}, version))
    if outer is not None and store is None and executor is None and workers is None and scheduler is None \
            and not tcp_set:
        records = execute(specs, label=label, ctx=outer)
        st = outer.store
    else:
        if store is False:
            st = None
        elif store is None or store is True:
            st = outer.store if outer is not None and outer.store is not None else Store(DEFAULT_STORE)
        else:
            st = store if isinstance(store, Store) else Store(store)
            if outer is not None and outer.store is not None and outer.store.root.resolve() == st.root.resolve():
                st = outer.store  # one writer's lock per process
        ex = executor or (outer.executor if outer is not None else "local")
        display = outer.display if outer is not None else None
        with using(store=st, executor=ex, workers=workers, scheduler=scheduler, display=display,
                   tcp=tcp_set or (outer.tcp if outer is not None else None)) as ctx:
            records = execute(specs, label=label, ctx=ctx)
            if outer is not None:
                outer.stats.extend(ctx.stats)
    return SweepResult(name=label, grid={k: list(v) for k, v in (grid or {}).items()}, repeats=repeats, seed=base_seed,
                       records=records, points_list=[p for p, _ in points], store=st)
