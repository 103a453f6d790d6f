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
import hashlib
import io
import itertools
import json
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from .. import _native
from ..errors import ConfigError, SimulationError
from ..scenario.models import Scenario
from .store import DEFAULT_STORE, RunRecord, Store, canonical_json, metrics_of
from ..jsondoc import json_safe

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

EXECUTORS = ("local", "dask")


def simulator_version() -> str:
    """``<Cargo version>+<hash of the simulator's sources>``: part of every
    run's identity, so a store never serves a result an edited simulator
    would not produce."""
    return f"{_native.version()}+{_native.source_hash()}"


SEED_DOMAIN = b"dumbbell/round_seed/v1\x00"
"""Prefix of the bytes hashed by :func:`round_seed` (a version tag, so a
future change of the derivation cannot silently reuse these seeds)."""


def round_seed(seed: int, index: int) -> int:
    """The seed of run ``index`` (the run key) of an experiment or sweep run
    with ``seed``; the one derivation every experiment and every sweep
    repetition uses.

    Spec: the first 8 bytes, read as a little-endian unsigned integer, of
    ``SHA-256(SEED_DOMAIN || seed as 8 bytes little-endian || index as 8
    bytes little-endian)``. Both inputs count over their full 64 bits (seeds
    0 and 2^40 give unrelated runs), the result is a valid 64-bit seed, and
    distinct (seed, index) pairs collide only by chance (about n²/2^65 for n
    runs). Raises ``ValueError`` if either input is outside [0, 2^64).
    """
    for what, v in (("seed", seed), ("run index", index)):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 1 << 64:
            raise ValueError(f"{what} {v!r} out of range [0, 2^64)")
    digest = hashlib.sha256(SEED_DOMAIN + seed.to_bytes(8, "little") + index.to_bytes(8, "little")).digest()
    return int.from_bytes(digest[:8], "little")


def default_workers() -> int:
    """Local cores (``os.process_cpu_count`` where available)."""
    count = getattr(os, "process_cpu_count", os.cpu_count)()
    return max(1, count or 1)


def run_id_of(config: Mapping[str, Any], version: str | None = None) -> str:
    """The identity of the run of core document ``config`` (seed included)."""
    doc = {"config": config, "simulator": version or simulator_version()}
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()[:32]


# ---------------------------------------------------------------- one run


@dataclass(frozen=True)
class RunSpec:
    """One run to make: its resolved core document (None if the scenario did
    not resolve, then ``error`` says why), its identity and its labels
    (``experiment``, ``point``, ``rep``, ``scenario``: stored with it for
    people and SQL, not part of its identity)."""

    run_id: str
    seed: int
    config: dict[str, Any] | None
    labels: dict[str, Any]
    error: str | None = None
    controls: dict[str, Any] | None = None
    """The Python controls the config's ``external`` entries name, by id."""

    @classmethod
    def of(cls, scenario: Scenario, seed: int, labels: Mapping[str, Any], version: str) -> RunSpec:
        labels = {"scenario": scenario.name, **labels}
        try:
            config = scenario.to_core(seed)
        except ConfigError as e:
            dump = scenario.model_dump(mode="json")
            rid = hashlib.sha256(canonical_json({"unresolved": dump, "seed": seed, "simulator": version}).encode())
            return cls(run_id=rid.hexdigest()[:32], seed=seed, config=None, labels=labels,
                       error=f"ConfigError: {e}")
        controls = scenario.python_controls() or None
        ident = config if not controls else {**config, "python_controls": {k: _fingerprint(c) for k, c in controls.items()}}
        return cls(run_id=run_id_of(ident, version), seed=config["seed"], config=config, labels=labels,
                   controls=controls)


def _fingerprint(control: Any) -> str:
    """A Python control's identity: its class (module, name, source) and its
    attributes."""
    import inspect

    cls = type(control)
    try:
        source = "".join(inspect.getsource(k) for k in cls.__mro__ if k.__module__ != "builtins")
    except (OSError, TypeError):
        source = "<no source>"
    state = repr(sorted((k, repr(v)) for k, v in vars(control).items()))
    return hashlib.sha256(f"{cls.__module__}.{cls.__qualname__}\n{source}\n{state}".encode()).hexdigest()[:32]


def _parquet(df: pl.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.write_parquet(buf, compression="zstd", compression_level=3, statistics=True)
    return buf.getvalue()


def compute(config: Mapping[str, Any], controls: Mapping[str, Any] | None = None,
            handle: Any = None) -> dict[str, Any]:
    """Runs one core document (with the Python controls it names, by id) and
    returns its outcome as plain data (tables as Parquet bytes): what an
    executor's worker sends back. Never raises: a failure comes back as
    ``{"status": "failed", "error": ...}``, and a run stopped before its end
    (``handle.stop()``, ``request_stop``) as ``{"status": "cancelled"}``
    without tables (never stored as a result)."""
    from ..run.runner import run_config

    t0 = time.perf_counter()
    try:
        tables = run_config(config, controls=controls, handle=handle)
        summary = tables["summary"].row(0, named=True)
        if summary.get("stopped"):
            return {"status": "cancelled", "error": "stopped before its end", "summary": {}, "metrics": {},
                    "tables": {}, "wall_s": time.perf_counter() - t0}
        if not summary["conservation_ok"]:
            raise SimulationError("packet conservation failed")
        metrics = metrics_of(summary, tables.get("flows"))
        # one table at a time: converted, written as Parquet, released
        # (with its native columns), so the peak holds one converted table
        parquet = {name: _parquet(tables.pop(name)) for name in list(tables)}
        del tables
        return {
            "status": "ok", "error": None, "summary": json_safe(summary),
            "metrics": metrics, "tables": parquet, "wall_s": time.perf_counter() - t0,
        }
    except Exception as e:  # noqa: BLE001 - a failed run is data, not a crash
        return {"status": "failed", "error": f"{type(e).__name__}: {' '.join(str(e).split())}", "summary": {},
                "metrics": {}, "tables": {}, "wall_s": time.perf_counter() - t0}


def _record(spec: RunSpec, out: Mapping[str, Any], version: str) -> RunRecord:
    tables = dict(out.get("tables") or {})
    return RunRecord(
        run_id=spec.run_id, seed=spec.seed, status=out["status"], error=out.get("error"),
        summary=dict(out.get("summary") or {}), metrics=dict(out.get("metrics") or {}),
        wall_s=float(out.get("wall_s") or 0.0), version=version, config=spec.config,
        table_names=tuple(sorted(tables)), tables=tables, labels=dict(spec.labels),
    )


# ---------------------------------------------------------------- executors


_POLL_S = 0.1
"""How often the thread waiting for runs returns to the interpreter (so a
Ctrl-C is acted on within about that long)."""


class _LocalPool:
    """Threads in this process (the core runs with the GIL released).

    :meth:`cancel` (Ctrl-C) cancels the runs not started and stops the
    running ones through their :class:`~dumbbell.run.RunHandle`; a run that
    starts after it does not simulate at all. Runs stopped that way are
    never returned (nor stored): :meth:`run` is abandoned by then."""

    name = "local"

    def __init__(self, workers: int) -> None:
        import threading
        from concurrent.futures import ThreadPoolExecutor

        self.workers = workers
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dumbbell-run")
        self._lock = threading.Lock()
        self._handles: set[Any] = set()
        self._cancelled = False

    def slots(self) -> int:
        return self.workers

    def _compute(self, config: Mapping[str, Any], controls: Mapping[str, Any] | None) -> dict[str, Any]:
        handle = _native.RunHandle()
        with self._lock:
            if self._cancelled:
                return {"status": "cancelled", "error": "cancelled", "summary": {}, "metrics": {}, "tables": {},
                        "wall_s": 0.0}
            self._handles.add(handle)
        try:
            return compute(config, controls, handle)
        finally:
            with self._lock:
                self._handles.discard(handle)

    def run(self, configs: Sequence[tuple[Any, Mapping[str, Any], Any]]) -> Iterator[tuple[Any, dict[str, Any]]]:
        import queue

        finished: queue.SimpleQueue[Any] = queue.SimpleQueue()
        futures = {}
        for tag, cfg, controls in configs:
            fut = self._pool.submit(self._compute, cfg, controls)
            futures[fut] = tag
            fut.add_done_callback(finished.put)
        left = len(futures)
        try:
            while left:
                # Never block without a timeout: a Ctrl-C that the kernel hands
                # to a worker thread only reaches Python when the main thread
                # returns to the interpreter, which a bare lock wait never does.
                try:
                    fut = finished.get(timeout=_POLL_S)
                except queue.Empty:
                    continue
                left -= 1
                yield futures[fut], fut.result()
        finally:
            for fut in futures:
                fut.cancel()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            handles = list(self._handles)
        for h in handles:
            h.stop()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """Blocks SIGINT in this thread while the block runs, then lets a
    Ctrl-C that came meanwhile through (a ``KeyboardInterrupt`` at the end).

    Processes and threads started inside inherit the blocked signal, and a
    blocked signal stays blocked across ``exec``: so the worker processes of
    a LocalCluster never see the terminal's Ctrl-C (which the kernel sends
    to the whole process group) and never print their own
    ``KeyboardInterrupt`` tracebacks; this process alone handles it, stops
    the runs and closes the cluster, and the user sees one line."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # multiprocessing's resource tracker, when the first worker starts it,
    # unblocks SIGINT in the thread that starts it, and every later process
    # started from that thread would get the terminal's Ctrl-C: start it now,
    # before the block (it ignores SIGINT itself).
    with contextlib.suppress(Exception):
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class _DaskPool:
    """A Dask cluster: a new ``LocalCluster`` or an existing scheduler."""

    name = "dask"

    def __init__(self, workers: int | None, scheduler: Any) -> None:
        self._own: list[Any] = []
        try:
            with _sigint_held():  # from the import on: distributed starts its threads there
                try:
                    import distributed
                except ImportError:
                    raise ConfigError("--executor",
                                      "dask needs the `distributed` package: pip install 'dumbbell[dask]'") from None
                self._connect(distributed, workers, scheduler)
        except BaseException:
            # a Ctrl-C held during the start lands here: close what started
            self.close()
            raise

    def _connect(self, distributed: Any, workers: int | None, scheduler: Any) -> None:
        if scheduler is None:
            # Even without a dashboard the scheduler serves HTTP (health,
            # metrics), on port 8787 unless told otherwise; a second cluster
            # on the machine (another sweep) then makes distributed warn and
            # leak a socket. An ephemeral loopback port, no dashboard.
            cluster = distributed.LocalCluster(
                n_workers=workers or default_workers(), threads_per_worker=1, processes=True,
                dashboard_address="127.0.0.1:0", scheduler_kwargs={"dashboard": False},
                # CRITICAL only: a worker's heartbeat that races the scheduler's
                # close after a Ctrl-C logs an ERROR with a traceback; a run's
                # own failure reaches us as its task's exception, not as a log
                silence_logs=50,
            )
            self._own.append(cluster)
            self.client = distributed.Client(cluster)
            self._own.insert(0, self.client)
        elif isinstance(scheduler, distributed.Client):
            self.client = scheduler
        elif isinstance(scheduler, str):
            try:
                self.client = distributed.Client(scheduler, timeout="20s")
            except (OSError, TimeoutError) as e:
                raise ConfigError("--scheduler", f"cannot reach a Dask scheduler at {scheduler}: {e}") from None
            self._own.append(self.client)
        else:  # a cluster object (LocalCluster, dask-jobqueue's SLURMCluster, ...)
            self.client = distributed.Client(scheduler)
            self._own.append(self.client)

    def slots(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def run(self, configs: Sequence[tuple[Any, Mapping[str, Any], Any]]) -> Iterator[tuple[Any, dict[str, Any]]]:
        from distributed import as_completed

        futures = {}
        self._futures = futures
        for tag, cfg, _controls in configs:  # execute() refuses Python controls here
            fut = self.client.submit(compute, cfg, key=f"dumbbell-run-{uuid.uuid4().hex}", pure=False)
            futures[fut] = tag
        done = as_completed(list(futures))
        try:
            while not done.is_empty():
                if not done.has_ready():
                    time.sleep(_POLL_S)  # not a blocking wait: see _LocalPool.run
                    continue
                fut = next(done)
                tag = futures.pop(fut)
                try:
                    out = fut.result()
                except Exception as e:  # noqa: BLE001 - a worker died: the run failed, the others go on
                    out = {"status": "failed", "error": f"{type(e).__name__}: {e}", "summary": {}, "metrics": {},
                           "tables": {}, "wall_s": 0.0}
                fut.release()
                yield tag, out
        finally:
            for fut in futures:
                fut.cancel()

    def cancel(self) -> None:
        """Cancels the runs not finished. A run already on a worker of a
        cluster this pool started ends with the cluster (:meth:`close`); on
        a cluster it did not start, Dask cannot interrupt it, and its result
        is dropped."""
        with contextlib.suppress(Exception):
            self.client.cancel(list(getattr(self, "_futures", {})))

    def close(self) -> None:
        for thing in self._own:
            with contextlib.suppress(Exception):
                thing.close()


# ---------------------------------------------------------------- progress


class Display:
    """Receives a sweep's progress; the default shows nothing."""

    def start(self, label: str, total: int, cached: int, slots: int) -> None: ...

    def advance(self, *, failed: bool, packets: int) -> None: ...

    def finish(self) -> None: ...


class LineDisplay(Display):
    """One line when runs start (for a stderr that is not a terminal):
    ``NAME: N runs (M from the store), K at a time ...``."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self.write = write

    def start(self, label: str, total: int, cached: int, slots: int) -> None:
        self.write(f"dumbbell: {label}: {total} runs ({cached} from the store), {slots} at a time ...")


class RichDisplay(Display):
    """A live line on stderr (``rich``): runs done of total, running, failed,
    taken from the store, simulated packets per second, time left."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self._live: Any = None

    def start(self, label: str, total: int, cached: int, slots: int) -> None:
        from rich.live import Live

        self.label, self.total, self.cached, self.slots = label, total, cached, slots
        self.done = cached
        self.failed = 0
        self.computed = 0
        self.packets = 0
        self.t0 = time.monotonic()
        self._live = Live(self._render(), console=self.console, refresh_per_second=4, transient=True,
                          get_renderable=self._render)
        self._live.start()

    def _render(self) -> Any:
        from rich.progress_bar import ProgressBar
        from rich.table import Table

        elapsed = max(1e-9, time.monotonic() - self.t0)
        todo = self.total - self.done
        running = min(self.slots, todo)
        left = "-"
        if self.computed and todo:
            left = _hms(elapsed / self.computed * todo)
        elif not todo:
            left = "0:00:00"
        grid = Table.grid(padding=(0, 1))
        grid.add_row(
            f"[bold]{self.label}[/]",
            ProgressBar(total=max(1, self.total), completed=self.done, width=30),
            f"{self.done}/{self.total} runs",
            f"{running} running",
            f"[red]{self.failed} failed[/]" if self.failed else "0 failed",
            f"{self.cached} from the store",
            f"{self.packets / elapsed / 1e6:.2f} M pkt/s",
            f"{left} left",
        )
        return grid

    def advance(self, *, failed: bool, packets: int) -> None:
        self.done += 1
        self.computed += 1
        self.failed += int(failed)
        self.packets += packets

    def finish(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


def _hms(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


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
) -> Iterator[Execution]:
    """Runs everything inside the block with this store, executor and display.

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
    st = Store(store) if isinstance(store, (str, Path)) else store
    ctx = Execution(store=st, executor=executor, workers=workers, scheduler=scheduler, display=display or Display())
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


# ---------------------------------------------------------------- grids

_SEG = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[[^\]]*\])*)$")


def _split_path(path: str) -> list[str | int | tuple[str, str]]:
    """``links[2].queue_ba.min_th`` → ``["links", 2, "queue_ba", "min_th"]``;
    ``[*]`` → ``("*", "")``, ``[name]`` → ``("name", name)``."""
    out: list[str | int | tuple[str, str]] = []
    if not path or path.strip() != path:
        raise ConfigError(f"--grid {path}", "an empty or space-padded path")
    for part in path.split("."):
        m = _SEG.match(part)
        if not m:
            raise ConfigError(f"--grid {path}", f"cannot read {part!r} (write e.g. links[2].loss_ab or flows[*].cc)")
        out.append(m.group(1))
        for idx in re.findall(r"\[([^\]]*)\]", m.group(2)):
            if idx == "*":
                out.append(("*", ""))
            elif re.fullmatch(r"-?\d+", idx):
                out.append(int(idx))
            elif idx:
                out.append(("name", idx))
            else:
                raise ConfigError(f"--grid {path}", "an empty index []")
    return out


def _select(lst: list[Any], sel: str | int | tuple[str, str], where: str) -> list[int]:
    if isinstance(sel, int):
        if not -len(lst) <= sel < len(lst):
            raise ConfigError(f"{where}[{sel}]", f"out of range: there are {len(lst)}")
        return [sel % len(lst)]
    if isinstance(sel, tuple) and sel[0] == "*":
        return list(range(len(lst)))
    assert isinstance(sel, tuple)
    name = sel[1]
    hits = [i for i, x in enumerate(lst) if isinstance(x, dict) and x.get("name") == name]
    if not hits and "-" in name:
        a, _, b = name.partition("-")
        hits = [i for i, x in enumerate(lst) if isinstance(x, dict) and {x.get("a"), x.get("b")} == {a, b}]
    if not hits:
        raise ConfigError(f"{where}[{name}]", f"no element named {name!r}")
    return hits


def set_path(doc: dict[str, Any], path: str, value: Any) -> None:
    """Sets ``path`` (see the module docs) to ``value`` in the plain-data
    scenario ``doc``, in place."""
    parts = _split_path(path)

    def walk(node: Any, i: int, where: str) -> None:
        key = parts[i]
        last = i == len(parts) - 1
        if isinstance(key, str):
            if not isinstance(node, dict):
                raise ConfigError(f"--grid {path}", f"{where or 'the scenario'} is not a table")
            here = f"{where}.{key}" if where else key
            if last:
                node[key] = value
                return
            if node.get(key) is None:
                raise ConfigError(here, f"is not set in the scenario, so {path} cannot be swept (set it first)")
            walk(node[key], i + 1, here)
            return
        if not isinstance(node, list):
            raise ConfigError(f"--grid {path}", f"{where} is not a list")
        for j in _select(node, key, where):
            here = f"{where}[{j}]"
            if last:
                node[j] = value
            else:
                walk(node[j], i + 1, here)

    walk(doc, 0, "")


def expand_grid(scenario: Scenario, grid: Mapping[str, Sequence[Any]] | None) -> list[tuple[dict[str, Any], Scenario]]:
    """Every grid point (``{key: value}``) with its validated scenario, in
    order (the last key varies fastest). Raises :class:`ConfigError` for a
    bad key or a point the scenario does not accept."""
    grid = dict(grid or {})
    keys = list(grid)
    values = []
    for k in keys:
        v = grid[k]
        if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
            raise ConfigError(f"--grid {k}", "needs a list of values")
        if not v:
            raise ConfigError(f"--grid {k}", "has no values")
        values.append(list(v))
    base = scenario.model_dump(mode="json")
    controls = scenario.python_controls()
    out = []
    for combo in itertools.product(*values):
        point = dict(zip(keys, combo))
        doc = json.loads(json.dumps(base))
        for k, v in point.items():
            set_path(doc, k, v)
        _put_back(doc, controls)
        try:
            s = Scenario.from_dict(doc).validated()
        except ConfigError as e:
            where = ", ".join(f"{k}={v!r}" for k, v in point.items())
            raise ConfigError(e.field, f"{e.message} (at grid point {where})") from None
        out.append((point, s))
    return out


def _put_back(doc: dict[str, Any], controls: Mapping[str, Any]) -> None:
    """Puts the Python controls (``flows[0].cc`` → object) back into a JSON
    dump of their scenario, where the grid left them."""
    for path, obj in controls.items():
        key, _, rest = path.partition("[")
        item = doc[key][int(rest.split("]", 1)[0])]
        cc = item.get("cc")
        if isinstance(cc, dict) and cc.get("kind") == "python":
            item["cc"] = obj


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
) -> SweepResult:
    """Runs ``scenario`` at every point of ``grid``, ``repeats`` times each,
    and returns the runs (see the module docs for keys, seeds and identity).

    ``store``: a directory or :class:`Store` (default: the one of the
    enclosing :func:`using` block, else ``./dumbbell-results``); ``False``
    keeps everything in memory. ``executor``, ``workers``, ``scheduler``:
    as in :func:`using` (default: the enclosing block's, else local threads
    on every core). ``name`` labels the runs in the catalog (default
    ``sweep:<scenario name>``).
    """
    from ..run.runner import _as_scenario

    s = _as_scenario(scenario)
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
    label = name or f"sweep:{s.name}"
    version = simulator_version()
    specs = []
    for point, ps in points:
        for r in range(repeats):
            rs = base_seed if r == 0 else round_seed(base_seed, r)
            specs.append(RunSpec.of(ps, rs, {"experiment": label, "point": json_safe(point), "rep": r}, version))
    outer = _CURRENT.get()
    if outer is not None and store is None and executor is None and workers is None and scheduler is None:
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
        with using(store=st, executor=ex, workers=workers, scheduler=scheduler, display=display) as ctx:
            records = execute(specs, label=label, ctx=ctx)
            if outer is not None:
                outer.stats.extend(ctx.stats)
    return SweepResult(name=label, grid={k: list(v) for k, v in (grid or {}).items()}, repeats=repeats, seed=base_seed,
                       records=records, points_list=[p for p, _ in points], store=st)

