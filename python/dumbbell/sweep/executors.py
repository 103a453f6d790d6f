"""Where a sweep's runs execute: the local process pool and a Dask cluster, both stopping
cleanly on Ctrl-C (runs in flight stopped, nothing half-written).
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .. import _native
from ..errors import ConfigError
from .spec import compute, default_workers


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
