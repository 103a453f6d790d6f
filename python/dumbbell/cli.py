"""The ``dumbbell`` command.

- ``dumbbell run SCENARIO.toml``: one run;
- ``dumbbell reproduce NAME``: one of the seed papers' experiments;
- ``dumbbell bench``: simulator speed.

Contract (SPEC §7): with ``--json`` exactly one JSON document goes to
stdout; progress, logs and human tables go to stderr. Exit status 0 on
success, 2 on bad input (one line on stderr naming the field or option, no
traceback: a bad scenario, a bad option value, an unusable ``--out``, a
closed or full stdout), 1 on an internal failure (set ``DUMBBELL_DEBUG=1``
for the traceback), 130 when Ctrl-C stopped the work. Everything that can
be checked is checked before the simulation starts, and only then is
"running ..." announced.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Optional

import click
import typer

from .errors import ConfigError, SimulationError

app = typer.Typer(
    name="dumbbell",
    help="dumbbell: a fast, deterministic packet-level network simulator for "
    "congestion-control and queue-management research.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _to_stderr(text: str) -> None:
    """Writes to stderr; never to stdout (which may carry the JSON), and a
    closed or failing stderr is not an error of its own."""
    if sys.stderr is None:
        return
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _err(msg: str) -> None:
    _to_stderr(" ".join(str(msg).split()) + "\n")


def _progress(msg: str) -> None:
    _to_stderr(f"{msg}\n")


@contextlib.contextmanager
def _exit_codes() -> Iterator[None]:
    """Bad input → exit 2 with one line; anything else that fails → exit 1."""
    try:
        yield
    except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
        raise
    except ConfigError as e:
        _err(f"dumbbell: error: {e}")
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        _err("dumbbell: interrupted")
        raise typer.Exit(130) from None
    except Exception as e:  # noqa: BLE001 - the CLI's last line of defence
        if os.environ.get("DUMBBELL_DEBUG"):
            traceback.print_exc()
        kind = "internal error" if isinstance(e, SimulationError) else f"internal error ({type(e).__name__})"
        _err(f"dumbbell: {kind}: {e}")
        raise typer.Exit(1) from None


def _json_safe(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: _json_safe(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_json_safe(x) for x in v]
    return v


def _check_stdout() -> None:
    """``--json`` needs a usable stdout: refuse a closed one before any work."""
    try:
        if sys.stdout is None:
            raise OSError("closed")
        os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError) as e:
        raise ConfigError("stdout", f"is closed, and --json writes its document there ({e})") from None


def _print_json(doc: Any) -> None:
    text = json.dumps(_json_safe(doc), allow_nan=False) + "\n"
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


SeedOpt = Annotated[Optional[int], typer.Option("--seed", help="Run seed (default: the scenario's, or 1).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout (logs go to stderr).")]


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


@app.command("run")
def run_cmd(
    scenario: Annotated[str, typer.Argument(metavar="SCENARIO.toml", help="Scenario file (TOML).", show_default=False)],
    seed: SeedOpt = None,
    out: Annotated[
        Optional[str],
        typer.Option(
            "--out",
            metavar="DIR",
            help="Write every table as Parquet, the core config and the scenario (with the run's seed) "
            "into this directory, atomically: it holds the earlier output or the new one, never a mix.",
            show_default=False,
        ),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Run one scenario from a TOML file.

    Prints the flows and the run summary (on stderr); with --json, prints
    {"scenario", "seed", "status", "summary", "flows", "queues"} on stdout.
    Ctrl-C stops the run: what it computed is printed (and written to --out),
    marked stopped, and the exit status is 130.
    """
    with _exit_codes():
        from .errors import Interrupted, SimulationError
        from .outdir import check_out_dir
        from .run import run
        from .scenario import Scenario

        _check_seed(seed)
        out_dir = check_out_dir(out, "--out")
        if json_out:
            _check_stdout()
        s = Scenario.from_toml(scenario)
        config_seed = s.to_core(seed)["seed"]  # every check of the model, before announcing
        announcer = _Announcer(f"dumbbell: running {s.name!r} ({s.duration_s:g} s simulated, seed {config_seed}) ...")
        try:
            res = run(s, seed=seed, progress=announcer, progress_every_s=0.1)
            interrupted = False
        except Interrupted as stop:
            res, interrupted = stop.result, True
        except SimulationError as e:
            announcer.done()
            report = _bug_report(s, config_seed, e)
            where = f"; the scenario is saved in {report} for a bug report" if report else ""
            _err(f"dumbbell: internal error: {e}{where}")
            raise typer.Exit(1) from None
        announcer.done()
        _report_run(s, res, out_dir, json_out)
        if interrupted:
            at = res.summary["sim_time_ps"] / 1e12
            _err(f"dumbbell: stopped by Ctrl-C at t = {at:g} s of {s.duration_s:g} s simulated; partial results above")
            raise typer.Exit(130)


def _report_run(s: Any, res: Any, out_dir: Path | None, json_out: bool) -> None:
    """Writes --out, prints the JSON document or the human tables."""
    if out_dir is not None:
        from .outdir import write_atomically

        saved = s.model_copy(update={"seed": res.seed})

        def write(tmp: Path) -> None:
            res.to_parquet(tmp)
            (tmp / "scenario.toml").write_text(saved.to_toml())

        write_atomically(out_dir, write)
        mark = " (stopped early)" if res.stopped else ""
        _progress(f"dumbbell: tables written to {out_dir}/{mark}")
    summary = res.summary
    if json_out:
        _print_json(
            {
                "scenario": s.name,
                "seed": res.seed,
                "status": res.status,
                "summary": summary,
                "flows": res.flows.to_dicts(),
                "queues": res.queues.to_dicts(),
            }
        )
    else:
        import polars as pl

        cols = [c for c in ("name", "src", "dst", "cc", "goodput_bps", "retransmits", "timeouts") if c in res.flows.columns]
        with pl.Config(tbl_rows=50, tbl_cols=20, tbl_hide_dataframe_shape=True):
            _progress(str(res.flows.select(cols)))
        _progress("summary: " + ", ".join(f"{k}={v}" for k, v in summary.items()))


@app.command("reproduce")
def reproduce_cmd(
    name: Annotated[str, typer.Argument(metavar="NAME", help="Experiment: dctcp-queue (E1), hysteresis (E2), lossy-cc (E3) or highspeed (E5).", show_default=False)],
    scale: Annotated[str, typer.Option("--scale", help="quick (seconds, for tests and demos) or paper (the paper's full scale).")] = "quick",
    seed: Annotated[int, typer.Option("--seed", help="Run seed.")] = 1,
    out: Annotated[
        Optional[str],
        typer.Option("--out", metavar="DIR", help="Output directory (default: out/NAME).", show_default=False),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Reproduce a seed paper's experiment, the paper's numbers beside ours.

    Writes rows.parquet, rows.csv, paper.parquet, paper.csv, result.json and
    the figures (PNG) into --out, and prints the comparison table on stderr.
    With --json, prints {"experiment", "scale", "seed", "rows", "paper"} on
    stdout.
    """
    with _exit_codes():
        from . import experiments

        from .outdir import check_out_dir

        module = experiments.get(name)
        experiments.check_scale(scale)
        _check_seed(seed)
        if json_out:
            _check_stdout()
        out_dir = check_out_dir(out if out is not None else Path("out") / name, "--out", replaced_whole=False)
        result = module.run(scale=scale, seed=seed, progress=_progress)
        written = result.write(out_dir)
        figs = module.figures(result, out_dir)
        _progress("")
        _progress(module.report(result))
        _progress("")
        _progress(f"dumbbell: wrote {', '.join(p.name for p in written + figs)} to {out_dir}/")
        if json_out:
            _print_json(result.to_json_doc())


@app.command("bench")
def bench_cmd(
    json_out: JsonOpt = False,
    only: Annotated[
        Optional[str], typer.Option("--only", help="Run one benchmark: dctcp-100m, cubic-1g or cubic-10g.")
    ] = None,
) -> None:
    """Measure simulator speed: events/s, simulated packets/s, peak memory.

    Each benchmark runs in its own subprocess. With --json, prints a list of
    {"name", "events", "wall_s", "events_per_s", "sim_packets_per_s",
    "peak_rss_bytes", "sim_s", "data_packets_sent"} on stdout.
    """
    with _exit_codes():
        from . import bench

        if json_out:
            _check_stdout()
        results = bench.run_all(only=only, progress=_progress)
        if json_out:
            _print_json(results)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point. Click's usage errors (an unknown option, a
    bad option value, a missing argument) become one line on stderr and exit
    status 2, like every other bad input; ``--help`` and a bare ``dumbbell``
    print the help."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args=argv, prog_name="dumbbell", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as e:
        _to_stderr(e.ctx.get_help() + "\n" if e.ctx else "")
        code = 2
    except click.UsageError as e:
        hint = ""
        if e.ctx is not None:
            hint = f" (see '{e.ctx.command_path} --help')"
        _err(f"dumbbell: error: {e.format_message()}{hint}")
        code = 2
    except click.exceptions.Abort:
        _err("dumbbell: interrupted")
        code = 130
    except click.ClickException as e:
        _err(f"dumbbell: error: {e.format_message()}")
        code = e.exit_code
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
