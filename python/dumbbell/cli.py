"""The ``dumbbell`` command.

- ``dumbbell run SCENARIO.toml``: one run;
- ``dumbbell reproduce NAME``: one of the seed papers' experiments;
- ``dumbbell bench``: simulator speed.

Contract (SPEC §7): with ``--json`` exactly one JSON document goes to
stdout; progress, logs and human tables go to stderr. Exit status 0 on
success, 2 on bad input (one line on stderr naming the field, no
traceback), 1 on an internal failure (set ``DUMBBELL_DEBUG=1`` for the
traceback).
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


def _err(msg: str) -> None:
    print(" ".join(str(msg).split()), file=sys.stderr)


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


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


def _print_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(_json_safe(doc), allow_nan=False) + "\n")
    sys.stdout.flush()


def _check_seed(seed: int | None) -> None:
    if seed is not None and not 0 <= seed < 2**64:
        raise ConfigError("--seed", f"must be an integer in [0, 2^64), got {seed}")


SeedOpt = Annotated[Optional[int], typer.Option("--seed", help="Run seed (default: the scenario's, or 1).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout (logs go to stderr).")]


@app.command("run")
def run_cmd(
    scenario: Annotated[str, typer.Argument(metavar="SCENARIO.toml", help="Scenario file (TOML).", show_default=False)],
    seed: SeedOpt = None,
    out: Annotated[
        Optional[Path],
        typer.Option("--out", help="Write every table as Parquet, the core config and the scenario into this directory."),
    ] = None,
    json_out: JsonOpt = False,
) -> None:
    """Run one scenario from a TOML file.

    Prints the flows and the run summary (on stderr); with --json, prints
    {"scenario", "seed", "summary", "flows", "queues"} on stdout.
    """
    with _exit_codes():
        from .run import run
        from .scenario import Scenario

        _check_seed(seed)
        s = Scenario.from_toml(scenario)
        _progress(f"dumbbell: running {s.name!r} ({s.duration_s:g} s simulated) ...")
        res = run(s, seed=seed)
        if out is not None:
            res.to_parquet(out)
            (out / "scenario.toml").write_text(s.to_toml())
            _progress(f"dumbbell: tables written to {out}/")
        summary = res.summary
        if json_out:
            _print_json(
                {
                    "scenario": s.name,
                    "seed": res.seed,
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
    name: Annotated[str, typer.Argument(metavar="NAME", help="Experiment: dctcp-queue (E1), hysteresis (E2), lossy-cc (E3), rafle (E4) or highspeed (E5).", show_default=False)],
    scale: Annotated[str, typer.Option("--scale", help="quick (seconds, for tests and demos) or paper (the paper's full scale).")] = "quick",
    seed: Annotated[int, typer.Option("--seed", help="Run seed.")] = 1,
    out: Annotated[
        Optional[Path], typer.Option("--out", help="Output directory (default: out/NAME).", show_default=False)
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

        module = experiments.get(name)
        experiments.check_scale(scale)
        _check_seed(seed)
        out_dir = out if out is not None else Path("out") / name
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

        results = bench.run_all(only=only, progress=_progress)
        if json_out:
            _print_json(results)


def main() -> None:
    """Console-script entry point."""
    app(prog_name="dumbbell")


if __name__ == "__main__":
    main()
