"""One run: scenario in, :class:`Result` (polars tables) out.

The scenario is validated and serialized once (:meth:`Scenario.to_core`),
handed to the core, which runs with the GIL released; each output column
comes back as one buffer and becomes a polars Series through
``numpy.frombuffer`` (no per-row conversion). Tables and columns are those of
``docs/output.md``; a ``time_s`` column (float seconds) is added after every
``time_ps`` column.

Stopping a run. Every run has a :class:`RunHandle` (``dumbbell._native``)
that the core polls every 1 024 events (a few hundred microseconds):

- **Ctrl-C.** Called from the main thread, :func:`run` lets the core run in
  a helper thread and waits for it, so a ``KeyboardInterrupt`` reaches
  Python at once: the core is stopped, returns what it has, and
  :class:`~dumbbell.errors.Interrupted` (a ``KeyboardInterrupt``) is raised
  carrying that partial :class:`Result` (``err.result``, marked stopped).
  A loop of runs therefore still ends on Ctrl-C, and nothing computed is lost.
- **From code.** ``timeout_s`` stops the run after that much wall time, and
  ``handle.stop()`` (a handle passed in, from any thread) stops it when you
  say; either way :func:`run` *returns* the partial result, with
  ``result.stopped`` true.
- **Everything at once.** ``dumbbell._native.request_stop()`` stops every run
  of this process that is in progress (each returns or raises as above);
  runs started afterwards are not affected. A sweep uses it to cancel its
  running jobs.

``progress``, if given, is called about every ``progress_every_s`` seconds of
wall time with a :class:`Progress` (simulated time reached, events, phase).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from .. import _native
from ..errors import ConfigError, ControlError, Interrupted, LimitError, SimulationError
from ..scenario.units import PS_PER_S
from .result import Result

# polars, numpy and the scenario models are imported where a run needs
# them, so that `import dumbbell` (which binds `run`) stays light.
if TYPE_CHECKING:
    import polars as pl

    from ..scenario.models import Scenario
    from .tables import Tables

__all__ = ["run", "run_config", "check_config", "Result", "Progress", "RunHandle", "request_stop", "tables_from_native"]

RunHandle = _native.RunHandle
request_stop = _native.request_stop


@dataclass(frozen=True)
class Progress:
    """Where a run is: ``phase`` ("building", "running", "done"), simulated
    time reached and the run's end (picoseconds), events executed, and wall
    seconds since the run was handed to the core."""

    phase: str
    now_ps: int
    end_ps: int
    events: int
    wall_s: float

    @property
    def fraction(self) -> float:
        """Share of the simulated duration done, in [0, 1]."""
        return min(1.0, self.now_ps / self.end_ps) if self.end_ps else 0.0

def tables_from_native(raw: Mapping[str, Mapping[str, tuple[str, Any]]]) -> dict[str, pl.DataFrame]:
    """The native module's ``{table: {column: (dtype, data)}}`` as DataFrames,
    with ``time_s`` added after ``time_ps`` (every table converted now; a
    run's :class:`~dumbbell.run.tables.Tables` converts each when first read)."""
    from .tables import convert_table

    return {tname: convert_table(dict(cols)) for tname, cols in raw.items()}


def _user_field(core_field: str) -> str:
    """A core field path in the scenario's names (``delay_ps`` → ``delay_s``;
    a queue's ``aqm.max_th`` → ``max_th``, as the scenario writes it)."""
    parts = [p for p in core_field.split(".") if p != "aqm"]
    fixed = []
    for p in parts:
        head, bracket, rest = p.partition("[")
        if head.endswith("_ps"):
            head = head[:-3] + "_s"
        fixed.append(head + bracket + rest)
    return ".".join(fixed)


def _native_errors(e: BaseException) -> BaseException:
    """The native module's exception as dumbbell's own."""
    if isinstance(e, _native.NativeLimitError):
        fld, msg = (e.args[0], e.args[1]) if len(e.args) >= 2 else ("record", str(e))
        return LimitError(_user_field(str(fld)), str(msg))
    if isinstance(e, _native.NativeConfigError):
        fld, msg = (e.args[0], e.args[1]) if len(e.args) >= 2 else ("config", str(e))
        return ConfigError(_user_field(str(fld)), str(msg))
    if isinstance(e, _native.NativeControlError):
        fld, control, hook, time_ps, msg = e.args
        out = ControlError(str(fld), str(control), str(hook), time_ps / PS_PER_S, str(msg))
        out.__cause__ = e.__cause__
        return out
    if isinstance(e, _native.NativeInternalError):
        return SimulationError(str(e.args[0]) if e.args else "internal error")
    return e


_NATIVE = (_native.NativeConfigError, _native.NativeLimitError, _native.NativeInternalError,
           _native.NativeControlError)


def _reraise(e: BaseException) -> NoReturn:
    """Raises the native error ``e`` as dumbbell's own (a control's error
    keeps the hook's exception as its cause)."""
    out = _native_errors(e)
    if isinstance(out, ControlError):
        raise out from out.__cause__
    raise out from None


def check_config(config: Mapping[str, Any], controls: Mapping[str, Any] | None = None) -> None:
    """Checks a core configuration exactly as a run would before simulating
    (decoding, every range, the topology, the recording estimate), builds its
    world and throws it away. ``controls``: the Python controls by id (see
    :meth:`Scenario.python_controls`). Raises :class:`ConfigError`."""
    text = json.dumps(config, allow_nan=False)
    modules = _module_ids(config, text)
    if modules:
        from .. import kmod

        kmod.build_all(modules)
    try:
        _native.check_config(text, dict(controls) if controls else None, modules or None)
    except _NATIVE as e:
        _reraise(e)
    except ValueError as e:
        if modules:  # a module's load error (a parameter, its init)
            from .. import kmod

            raise ConfigError(kmod.field_of(modules, str(e)), str(e)) from None
        raise


def _module_ids(config: Mapping[str, Any], text: str) -> list[str]:
    """The kernel-module controls' ids of a configuration (``dumbbell.kmod``;
    imported only when the configuration holds one)."""
    if '"kmod:' not in text:
        return []
    from .. import kmod

    return kmod.module_ids(dict(config))


def _progress_of(handle: Any, t0: float) -> Progress:
    phase, now_ps, end_ps, events = handle.progress()
    return Progress(phase, now_ps, end_ps, events, time.monotonic() - t0)


def _run_native(
    text: str,
    handle: Any,
    timeout_s: float | None,
    progress: Callable[[Progress], None] | None,
    progress_every_s: float,
    controls: dict[str, Any] | None = None,
    modules: list[str] | None = None,
) -> tuple[Any, bool]:
    """Runs the core; returns (raw tables, interrupted by Ctrl-C).
    ``modules``: the ids of kernel-module controls (``dumbbell.kmod``)."""
    t0 = time.monotonic()
    watched = timeout_s is not None or progress is not None
    if not watched and threading.current_thread() is not threading.main_thread():
        # Nobody to watch and no Ctrl-C to catch here: run in this thread.
        return _native.run_json(text, handle, controls, modules), False
    box: dict[str, Any] = {}
    # Completion is signalled by an Event: an interrupted Thread.join marks
    # the thread stopped while it still runs (CPython bpo-45274's fix).
    done = threading.Event()

    def work() -> None:
        try:
            box["raw"] = _native.run_json(text, handle, controls, modules)
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = e
        finally:
            done.set()

    worker = threading.Thread(target=work, name="dumbbell-run", daemon=True)
    deadline = None if timeout_s is None else t0 + timeout_s
    interrupted = False
    worker.start()
    try:
        while not done.is_set():
            wait = progress_every_s if progress is not None else 0.25
            if deadline is not None:
                wait = max(0.0, min(wait, deadline - time.monotonic()))
            done.wait(wait)
            if deadline is not None and time.monotonic() >= deadline:
                handle.stop()
            if progress is not None and not done.is_set():
                progress(_progress_of(handle, t0))
    except KeyboardInterrupt:
        handle.stop()
        interrupted = True
        done.wait()
    if "error" in box:
        raise box["error"]
    if progress is not None:
        progress(_progress_of(handle, t0))
    return box["raw"], interrupted


def run_config(
    config: Mapping[str, Any],
    *,
    handle: Any = None,
    timeout_s: float | None = None,
    progress: Callable[[Progress], None] | None = None,
    progress_every_s: float = 0.5,
    controls: Mapping[str, Any] | None = None,
) -> dict[str, pl.DataFrame]:
    """Runs a core configuration (the ``config.rs`` document as a dict) and
    returns its tables (the summary's ``stopped`` says whether it ran to its
    end). ``controls``: the Python controls its ``external`` entries name,
    by id (:meth:`Scenario.python_controls`). Raises :class:`ConfigError`,
    :class:`LimitError`, :class:`SimulationError` (:class:`ControlError`
    when a Python control's hook fails); on Ctrl-C, :class:`Interrupted`
    whose ``result`` holds the partial tables. See the module doc for
    stopping."""
    tables, interrupted = _run_config(config, handle, timeout_s, progress, progress_every_s, controls)
    if interrupted:
        raise Interrupted(tables)
    return tables


class _Connections:
    """Stands for a control written in Python in the native run: hands each
    new connection its copy (``_dumbbell_connect``) and keeps it, so the
    result can show the copies' state after the run."""

    def __init__(self, template: Any) -> None:
        self.template = template
        self.made: list[Any] = []

    def _dumbbell_connect(self, seed: int) -> Any:
        c = self.template._dumbbell_connect(seed)
        self.made.append(c)
        return c


def _run_config(
    config: Mapping[str, Any],
    handle: Any,
    timeout_s: float | None,
    progress: Callable[[Progress], None] | None,
    progress_every_s: float,
    controls: Mapping[str, Any] | None = None,
    made: dict[str, list[Any]] | None = None,
) -> tuple[Tables, bool]:
    """Runs the core; fills ``made`` (if given) with each Python control's
    per-connection copies, by id, in the order connections were made."""
    text = json.dumps(config, allow_nan=False)
    modules = _module_ids(config, text)
    if modules:
        from .. import kmod

        # Kernel modules run in a child process: a crash costs this run only.
        if controls:
            raise ConfigError(next(iter(controls)), "a run cannot hold both a control written in Python and "
                              "a kernel module (the module runs in a child process)")
        raw, _ = kmod.run_in_child(text, modules, timeout_s)
        from .tables import Tables

        return Tables(raw), False
    handle = _native.RunHandle() if handle is None else handle
    wrapped = {k: _Connections(v) for k, v in (controls or {}).items()}
    try:
        raw, interrupted = _run_native(text, handle, timeout_s, progress, progress_every_s, wrapped or None)
    except _NATIVE as e:
        _reraise(e)
    finally:
        if made is not None:
            made.update({k: w.made for k, w in wrapped.items()})
    from .tables import Tables

    tables = Tables(raw)  # each table converted when first read
    del raw
    return tables, interrupted


def _as_scenario(scenario: Scenario | Mapping[str, Any] | str | Path) -> Scenario:
    from ..scenario.models import Scenario

    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, Path)):
        return Scenario.from_toml(scenario)
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(dict(scenario))
    raise TypeError(f"expected a Scenario, a dict or a TOML path, got {type(scenario).__name__}")


def run(
    scenario: Scenario | Mapping[str, Any] | str | Path,
    seed: int | None = None,
    *,
    handle: Any = None,
    timeout_s: float | None = None,
    progress: Callable[[Progress], None] | None = None,
    progress_every_s: float = 0.5,
) -> Result:
    """Runs one scenario (a :class:`Scenario`, plain data, or a TOML path).

    ``seed`` overrides the scenario's seed. Raises :class:`ConfigError` for
    bad input (before anything runs), :class:`LimitError` if a recording
    budget or the memory runs out while running, and
    :class:`SimulationError` if the run fails. ``timeout_s`` (wall seconds)
    or ``handle.stop()`` stop the run early: the partial result is returned,
    ``result.stopped`` true. Ctrl-C stops it too and raises
    :class:`Interrupted` carrying the partial result (``err.result``).
    Implausible values (a rate below 1 kb/s, a delay above 10 s) and a run
    in which no flow delivered data give a :class:`DumbbellWarning` naming
    the field (:mod:`dumbbell.scenario.plausible`).
    """
    from ..scenario.plausible import warn_result, warn_scenario

    s = _as_scenario(scenario)
    config = s.to_core(seed)
    warn_scenario(s)  # a rate below 1 kb/s, a delay above 10 s: one warning each
    controls = s.python_controls()
    made: dict[str, list[Any]] = {}
    tables, interrupted = _run_config(config, handle, timeout_s, progress, progress_every_s, controls, made)
    result = Result(scenario=s, seed=config["seed"], config=config, tables=tables, controls=made)
    if interrupted:
        raise Interrupted(result)
    # rows: the check reads the two small tables from the native buffers,
    # converting nothing (a table is converted only when the caller reads it,
    # and a run that nobody reads a table of never imports polars or numpy)
    summary = tables.rows("summary")
    stopped = bool(summary and summary[0].get("stopped", False))
    warn_result(tables.rows("flows"), s.duration_s, stopped)
    return result
