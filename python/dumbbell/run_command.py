"""``dumbbell run SCENARIO.toml``: what the command does, apart from its
command line (:mod:`dumbbell.cli` declares the options; :mod:`dumbbell.entry`
calls :func:`run_file` straight for a plain command line, without loading
click and typer, issue 29), and the helpers the other commands share:
checking ``--seed`` and stdout, printing the one JSON document.

Nothing here imports click or typer: a failure ends the command through
:func:`dumbbell.exits._exit` (click's ``Exit`` under click, ``SystemExit``
otherwise).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from . import startup_gc
from .errors import ConfigError
from .exits import _err, _exit, _exit_codes, _progress, _to_stderr
from .jsondoc import json_safe

__all__ = ["run_file"]


def _check_stdout() -> None:
    """``--json`` needs a usable stdout: refuse a closed one before any work."""
    try:
        if sys.stdout is None:
            raise OSError("closed")
        os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError) as e:
        raise ConfigError("stdout", f"is closed, and --json writes its document there ({e})") from None


def _print_json(doc: Any) -> None:
    text = json.dumps(json_safe(doc), allow_nan=False) + "\n"
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e) or type(e).__name__
        with contextlib.suppress(Exception):  # do not fail again at exit
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        raise ConfigError("stdout", f"cannot write the JSON document: {reason}") from None


def _check_seed(seed: int | None) -> None:
    if seed is not None and not 0 <= seed < 2**64:
        raise ConfigError("--seed", f"must be an integer in [0, 2^64), got {seed}")


class _Announcer:
    """Announces the run once the core has built its world (so a scenario it
    refuses never gets a "running" line), then shows progress on stderr for
    runs longer than a second, when stderr is a terminal."""

    def __init__(self, announce: str) -> None:
        self.announce = announce
        self.announced = False
        self.tty = sys.stderr is not None and sys.stderr.isatty()
        self.last: Any = None
        self.shown = False

    def __call__(self, p: Any) -> None:
        if p.phase != "building" and not self.announced:
            self.announced = True
            _progress(self.announce)
        if not (self.tty and p.phase == "running" and p.wall_s >= 1.0):
            self.last = p
            return
        line = f"  t = {p.now_ps / 1e12:.4g} of {p.end_ps / 1e12:g} s simulated ({100 * p.fraction:.0f} %)"
        if self.last is not None and p.wall_s > self.last.wall_s:
            dt = p.wall_s - self.last.wall_s
            rate = (p.events - self.last.events) / dt
            sim_rate = (p.now_ps - self.last.now_ps) / dt
            line += f", {rate / 1e6:.1f} M events/s"
            if sim_rate > 0:
                line += f", about {_human_s((p.end_ps - p.now_ps) / sim_rate)} left"
        self.last = p
        self.shown = True
        _to_stderr("\r\x1b[K" + line)

    def done(self) -> None:
        if self.shown:
            _to_stderr("\r\x1b[K")
            self.shown = False
        if not self.announced:
            self.announced = True
            _progress(self.announce)


def _human_s(s: float) -> str:
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def _bug_report(scenario: Any, seed: int | None, error: BaseException) -> str | None:
    """Writes the scenario that broke the simulator (with its seed) to a file
    for a bug report; returns its path."""
    import hashlib
    import tempfile

    from . import __version__

    try:
        s = scenario if seed is None else scenario.model_copy(update={"seed": seed})
        body = s.to_toml()
        digest = hashlib.sha256(body.encode()).hexdigest()[:12]
        path = Path(tempfile.gettempdir()) / f"dumbbell-bug-{digest}.toml"
        head = "".join(f"# {line}\n" for line in str(error).splitlines() or [""])
        path.write_text(f"# dumbbell {__version__}: internal error\n{head}\n{body}")
        return str(path)
    except Exception:  # noqa: BLE001 - the report is a courtesy, never a second failure
        return None

def run_file(scenario: str, seed: int | None = None, out: str | None = None, plot: bool = False,
             json_out: bool = False) -> None:
    """``dumbbell run``: checks everything, runs, prints (``--json``: one
    document on stdout), writes ``--out``; ends through
    :func:`~dumbbell.exits._exit` for status 1 (a simulation error), 2 (bad
    input) or 130 (stopped by Ctrl-C, partial results printed)."""
    with _exit_codes():
        with startup_gc.paused():  # the models' import and build: no collection, then frozen
            from .errors import Interrupted, SimulationError
            from .sweep.outdir import check_out_dir
            from .run.runner import run
            from .scenario.models import Scenario

            _check_seed(seed)
            out_dir = check_out_dir(out, "--out")
            if plot and out_dir is None:
                raise ConfigError("--plot", "writes the figures beside the Parquet files: give --out DIR too")
            if json_out:
                _check_stdout()
            s = Scenario.from_toml(scenario)
            config_seed = s.to_core(seed)["seed"]  # every check of the model, before announcing
            _warn_peak(s, seed)
        announcer = _Announcer(f"dumbbell: running {s.name!r} ({s.duration_s:g} s simulated, seed {config_seed}) ...")
        try:
            res = run(s, seed=seed, progress=announcer, progress_every_s=0.1)
            interrupted = False
        except Interrupted as stop:
            res, interrupted = stop.result, True
        except SimulationError as e:
            announcer.done()
            if type(e).__name__ == "ModuleCrash":  # the user's module, not dumbbell (docs/kernel-modules.md)
                _err(f"dumbbell: error: {e}")
                raise _exit(1) from None
            report = _bug_report(s, config_seed, e)
            where = f"; the scenario is saved in {report} for a bug report" if report else ""
            _err(f"dumbbell: internal error: {e}{where}")
            raise _exit(1) from None
        announcer.done()
        _report_run(s, res, out_dir, json_out, plot)
        if interrupted:
            at = res.summary["sim_time_ps"] / 1e12
            _err(f"dumbbell: stopped by Ctrl-C at t = {at:g} s of {s.duration_s:g} s simulated; partial results above")
            raise _exit(130)


def _warn_peak(s: Any, seed: int | None) -> None:
    """One line on stderr if handing the run's recorded tables to Python may
    take more memory than ``record.max_bytes`` (:mod:`dumbbell.sweep.budget`)."""
    from .sweep.budget import peak_warning

    try:
        line = peak_warning(s.to_core(seed), s.python_controls())
    except ConfigError:
        return  # the real checks name it
    if line:
        _progress(line)


def _report_run(s: Any, res: Any, out_dir: Path | None, json_out: bool, plot: bool = False) -> None:
    """Writes --out (and, with --plot, the figures), prints the JSON document
    or the human tables."""
    if out_dir is not None:
        from .sweep.outdir import write_atomically

        figures: list[Path] = []

        def write(tmp: Path) -> None:
            res.to_parquet(tmp)  # tables, config.json, scenario.toml (with the run's seed)
            if plot:
                figures.extend(res.plot_all(tmp))

        write_atomically(out_dir, write)
        mark = " (stopped early)" if res.stopped else ""
        _progress(f"dumbbell: tables written to {out_dir}/{mark}")
        if plot:
            names = ", ".join(p.name for p in figures) or "none (no recorded queue, no flow samples)"
            _progress(f"dumbbell: figures: {names}")
    summary = res.summary
    if json_out:
        _print_json(
            {
                "scenario": s.name,
                "seed": res.seed,
                "status": res.status,
                "summary": summary,
                "flows": res.rows("flows"),
                "queues": res.rows("queues"),
            }
        )
    else:
        from .sweep.pointtable import run_text

        _progress(run_text(res.rows("flows"), summary))  # plain text within 80 columns, goodput in Mb/s
