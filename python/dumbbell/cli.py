"""The ``dumbbell`` command.

- ``dumbbell run SCENARIO.toml``: one run;
- ``dumbbell sweep SCENARIO.toml --grid KEY=V1,V2 --repeats N``: many runs;
- ``dumbbell reproduce NAME|all``: the reproduced papers' experiments (and,
  for ``all``, the HTML report);
- ``dumbbell list``: experiments, controls, queue kinds, benchmarks;
- ``dumbbell store ls|show|verify|gc|sql``: the results store;
- ``dumbbell report DIR``: the HTML report of reproduced experiments;
- ``dumbbell optimize SCENARIO.toml --param KEY=LO..HI --metric EXPR``;
- ``dumbbell bench``: simulator speed.

``sweep``, ``reproduce`` and ``optimize`` run through the sweep engine
(:mod:`dumbbell.sweep`) with ``--executor local|dask``, ``--scheduler``,
``--workers`` and ``--store DIR`` (default ``./dumbbell-results``): what
the store holds is not computed again. A live progress line goes to stderr
when it is a terminal.

Contract (SPEC §7): with ``--json`` exactly one JSON document goes to
stdout; progress, logs and human tables go to stderr. Exit status 0 on
success, 2 on bad input (one line on stderr naming the field or option, no
traceback: a bad scenario, a bad option value, an unusable ``--out``, a
closed or full stdout, a damaged stored run found after it was served, a
full disk, naming the path), 1 on an internal failure (set ``DUMBBELL_DEBUG=1``
for the traceback), 130 when Ctrl-C stopped the work. Everything that can
be checked is checked before the simulation starts, and only then is
"running ..." announced.
"""

from __future__ import annotations

import copy
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Annotated, Any, Optional

import click
import typer

from .errors import ConfigError
from .exits import _err, _exit_codes, _exit_now, _progress, _to_stderr
from .jsondoc import json_safe
from .run_command import (  # noqa: F401 - `_Announcer`: its old place
    _Announcer,
    _check_seed,
    _check_stdout,
    _print_json,
    _report_run,
    _warn_peak,
    run_file,
)

app = typer.Typer(
    name="dumbbell",
    help="dumbbell: a fast, deterministic packet-level network simulator for "
    "congestion-control and queue-management research.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version_callback(value: bool) -> None:
    if value:
        from . import __version__

        sys.stdout.write(f"dumbbell {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print dumbbell's version and exit.", callback=_version_callback,
                     is_eager=True),
    ] = False,
) -> None:
    """dumbbell: a fast, deterministic packet-level network simulator for
    congestion-control and queue-management research.

    `dumbbell list` shows the experiments, controls, queue kinds and
    benchmarks; docs/scenario.md is the reference of the scenario format.
    """


SeedOpt = Annotated[Optional[int], typer.Option("--seed", help="Run seed (default: the scenario's, or 1).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout (logs go to stderr).")]


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
    plot: Annotated[
        bool,
        typer.Option("--plot", help="Also write figures beside the Parquet files (needs --out): queue_NODE-PEER.png for "
                     "each recorded queue, cwnd.png, rtt.png and goodput.png (Mb/s per sampling interval) when the "
                     "run sampled flows.", show_default=False),
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """Run one scenario from a TOML file.

    The scenario format (every field, its unit, default and range, in TOML
    and Python spelling; the topology helpers' node names; the TCP
    defaults) is docs/scenario.md; `s.to_toml()` prints any Python scenario
    in it. Prints the flows and the run summary (on stderr); with --json,
    prints {"scenario", "seed", "status", "summary", "flows", "queues"} on
    stdout. Ctrl-C stops the run: what it computed is printed (and written
    to --out), marked stopped, and the exit status is 130. Progress
    (simulated time, events/s, time left) shows on stderr for runs longer
    than a second when stderr is a terminal.
    """
    run_file(scenario, seed, out, plot, json_out)


# ---------------------------------------------------------------- execution options

ExecutorOpt = Annotated[
    str, typer.Option("--executor", help="Where runs are made: local (threads on this machine) or dask.")
]
SchedulerOpt = Annotated[
    Optional[str],
    typer.Option("--scheduler", help="Address of an existing Dask scheduler (tcp://HOST:PORT); with --executor dask. "
                 "Without it, dask starts a LocalCluster.", show_default=False),
]
WorkersOpt = Annotated[
    Optional[int],
    typer.Option("--workers", help="Parallel runs (local threads, or LocalCluster worker processes). Default: every core.",
                 show_default=False),
]
StoreOpt = Annotated[
    Path, typer.Option("--store", envvar="DUMBBELL_STORE",
                       help="Results store directory: runs it holds are not computed again.")
]


def _display() -> Any:
    from .sweep.display import LineDisplay, RichDisplay

    return RichDisplay() if sys.stderr.isatty() else LineDisplay(_progress)


def _execution(store: Path | None, executor: str, scheduler: str | None, workers: int | None, tcp: Any = None):
    from .sweep.engine import using

    return using(store=store, executor=executor, workers=workers, scheduler=scheduler, display=_display(),
                 notify=_progress, tcp=tcp)


# ---------------------------------------------------------------- sweep


def _split_values(text: str) -> list[str]:
    """``a,b,{x=1, y=2},"c,d"`` → four values (commas inside brackets,
    braces or quotes do not split)."""
    out, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur).strip())
    return out


def _grid_value(text: str) -> Any:
    """A grid value as TOML reads it (numbers, booleans, quoted strings,
    inline tables), else the bare word as a string (``reno``, ``100Mbps``)."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_grid(items: list[str]) -> dict[str, list[Any]]:
    grid: dict[str, list[Any]] = {}
    for item in items:
        key, eq, values = item.partition("=")
        key = key.strip()
        if not eq or not key or not values.strip():
            raise ConfigError("--grid", f"expected KEY=V1,V2,..., got {item!r}")
        if key in grid:
            raise ConfigError(f"--grid {key}", "given twice")
        vals = _split_values(values)
        if any(v == "" for v in vals):
            raise ConfigError(f"--grid {key}", f"an empty value in {values!r}")
        grid[key] = [_grid_value(v) for v in vals]
    return grid


@app.command("sweep")
def sweep_cmd(
    scenario: Annotated[str, typer.Argument(metavar="SCENARIO.toml", help="Scenario file (TOML).", show_default=False)],
    grid: Annotated[
        Optional[list[str]],
        typer.Option("--grid", help="KEY=V1,V2,...: a path into the scenario (links[2].loss_ab, flows[*].cc, "
                     "links[s1-c].queue_ba.min_th, duration_s) and its values; repeat for a product of grids.",
                     show_default=False),
    ] = None,
    repeats: Annotated[int, typer.Option("--repeats", help="Runs per grid point (seeds: the scenario's, then derived).")] = 1,
    seed: SeedOpt = None,
    name: Annotated[
        Optional[str], typer.Option("--name", help="Label of the runs in the catalog (default sweep:<scenario name>).",
                                    show_default=False)
    ] = None,
    executor: ExecutorOpt = "local",
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    store: StoreOpt = Path("dumbbell-results"),
    json_out: JsonOpt = False,
    tcp: Annotated[
        Optional[list[str]],
        typer.Option("--tcp", metavar="KEY=VALUE", help="Set a TCP option (a TcpOptions field of docs/scenario.md, "
                     "e.g. gso_max_bytes=65536) on every TCP connection of every run, flows and workloads, over "
                     "the scenario's and the grid's own; repeatable. The runs are stored apart from those without "
                     "it, under the name sweep:<scenario>+tcp:KEY=VALUE unless --name gives one.",
                     show_default=False),
    ] = None,
) -> None:
    """Run a scenario over a grid of parameters, with repetitions.

    Every point is checked before anything runs. Prints one line per grid
    point (mean and 95 % Student-t interval of the goodput over the
    repetitions) on stderr; with --json, prints {"sweep", "scenario",
    "seed", "repeats", "grid", "store", "runs", "points"} on stdout (and
    "tcp" with --tcp). A run
    that fails is stored as failed and the others go on; the exit status is
    then 1. Ctrl-C cancels the runs left and exits with status 130 (runs
    finished before it stay in the store).
    """
    with _exit_codes():
        from .scenario.models import Scenario
        from .sweep.engine import sweep
        from .sweep.tcpset import parse_tcp

        _check_seed(seed)
        g = parse_grid(grid or [])
        tcp_set = parse_tcp(tcp or ())  # a bad key or value: before anything runs
        s = Scenario.from_toml(scenario)
        _warn_peak(s, seed)
        if tcp_set and name is None:  # the variant's own catalog label: report --sweep keeps them apart
            name = f"sweep:{s.name}{tcp_set.label_suffix()}"
        with _execution(store, executor, scheduler, workers, tcp_set) as ctx:
            res = sweep(s, grid=g, repeats=repeats, seed=seed, name=name)
            st = ctx.stats[-1]
        pts = res.points()
        from .sweep.pointtable import points_text

        _progress(points_text(pts, list(g.keys())))  # plain text: no wrapping, no 1.85e-8 for a zero interval
        _progress(f"dumbbell: {res.name}: {st.runs} runs ({st.computed} computed, {st.cached} from the store, "
                  f"{st.failed} failed) in {st.wall_s:.1f} s; store {store}/")
        for rec in res.failed:
            _progress(f"dumbbell: run {rec.run_id} failed: {rec.error}")
        if tcp_set:
            _progress(f"dumbbell: {tcp_set.describe(paper=False)}")
        if json_out:
            doc = {"sweep": res.name, "scenario": s.name, "seed": res.seed, "repeats": repeats, "grid": g,
                   "store": str(store), "runs": res.runs.to_dicts(), "points": pts.to_dicts()}
            if tcp_set:
                doc["tcp"] = tcp_set.as_dict()
            _print_json(doc)
        if res.failed:
            raise typer.Exit(1)


# ---------------------------------------------------------------- reproduce


IMAGE_SUFFIXES = (".png", ".svg", ".jpg", ".jpeg")


def _reproduce_one(name: str, scale: str, seed: int, out_dir: Path, ctx: Any, **run_kw: Any) -> Any:
    """Runs one experiment in the execution context ``ctx``, then writes its
    tables, figures, meta.json and timings.json into ``out_dir`` atomically
    (a temporary directory beside it, renamed into place once complete: a
    kill or Ctrl-C leaves the earlier output or the new one, never a mix);
    returns its result and module. ``run_kw`` goes to the experiment's
    ``run`` (``module_dir`` for lossy-cc)."""
    import time

    from . import experiments
    from .sweep.outdir import write_atomically
    from .sweep.engine import simulator_version

    module = experiments.get(name)
    n0 = len(ctx.stats)
    t0 = time.perf_counter()
    result = module.run(scale=scale, seed=seed, progress=_progress, **run_kw)
    wall = time.perf_counter() - t0
    if ctx.tcp:  # reproduce --tcp: the report, result.json and meta.json say so
        result.tcp = ctx.tcp.as_dict()
        result.tcp_note = ctx.tcp.describe()
    stats = ctx.stats[n0:]
    info = experiments.PAPERS.get(name, {})
    params = result.params or (getattr(module, "POINTS", {}) or {}).get(scale, {})
    packets = sum(st.sim_packets for st in stats)
    computed_packets = sum(st.computed_packets for st in stats)
    # Everything that depends on the clock or the machine goes to
    # timings.json only, so the other files of two reproductions with the
    # same seed are byte-identical (docs/output.md).
    timings = {
        "wall_s": wall, "runs": sum(st.runs for st in stats), "computed": sum(st.computed for st in stats),
        "cached": sum(st.cached for st in stats), "failed": sum(st.failed for st in stats),
        "sim_packets": packets, "computed_packets": computed_packets,
        "sim_packets_per_s": computed_packets / wall if wall > 0 and computed_packets else None,
        "executor": ctx.executor, "workers": ctx._pool.slots() if ctx._pool is not None else None,
        "store": str(ctx.store.root) if ctx.store is not None else None,
    }
    written: list[Path] = []

    def write(tmp: Path) -> None:
        files = result.write(tmp)
        figs = module.figures(result, tmp)
        meta = {
            "experiment": name, "id": info.get("id", ""), "title": info.get("title", ""),
            "paper": info.get("paper", ""), "scale": scale, "seed": seed, "version": simulator_version(),
            "params": params,
            "figures": [p.name for p in figs if p.suffix.lower() in IMAGE_SUFFIXES],
            "files": [p.name for p in figs if p.suffix.lower() not in IMAGE_SUFFIXES],
            "setup": (module.__doc__ or "").strip(),
        }
        if ctx.tcp:
            meta["tcp"] = ctx.tcp.as_dict()
            meta["note"] = ctx.tcp.describe()
        (tmp / "meta.json").write_text(json.dumps(json_safe(meta), indent=1, sort_keys=True) + "\n")
        (tmp / "timings.json").write_text(json.dumps(json_safe(timings), indent=1, sort_keys=True) + "\n")
        written.extend(files + figs)

    write_atomically(out_dir, write)
    label = f"{info.get('id', '')} {name}".strip()
    rate = f", {timings['sim_packets_per_s'] / 1e6:.2f} M packets/s" if timings["sim_packets_per_s"] else ""
    _progress(f"dumbbell: {label} done in {wall:.1f} s: {timings['runs']} runs ({timings['computed']} computed, "
              f"{timings['cached']} from the store, {timings['failed']} failed), {packets / 1e6:.1f} M simulated "
              f"packets{rate}; {len(written)} files in {out_dir}/")
    return result, module


def _experiments_help() -> str:
    """``reproduce NAME``'s help, from the experiments' registry."""
    from .experiments import PAPERS

    names = ", ".join(f"{name} ({p['id']})" for name, p in PAPERS.items())
    return f"Experiment: {names}, or all (every registered one, then the HTML report)."


@app.command("reproduce")
def reproduce_cmd(
    name: Annotated[
        str,
        typer.Argument(metavar="NAME", help=_experiments_help(), show_default=False),
    ],
    scale: Annotated[str, typer.Option("--scale", help="quick (seconds, for tests and demos) or paper (the paper's full scale).")] = "quick",
    seed: Annotated[int, typer.Option("--seed", help="Run seed.")] = 1,
    out: Annotated[
        Optional[str],
        typer.Option("--out", metavar="DIR", help="Output directory (default: out/NAME; for all, out/ with one "
                     "directory per experiment).", show_default=False),
    ] = None,
    executor: ExecutorOpt = "local",
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    store: StoreOpt = Path("dumbbell-results"),
    json_out: JsonOpt = False,
    module_dir: Annotated[
        Optional[Path],
        typer.Option("--module-dir", metavar="DIR", help="lossy-cc only: run Linear, Fractional and Expolinear "
                     "from the authors' kernel modules DIR/linha01.c, DIR/frac01.c, DIR/expolin01.c (GitHub "
                     "marcosvcm/CCAChikorita) instead of dumbbell's ports (docs/kernel-modules.md).",
                     show_default=False),
    ] = None,
    tcp: Annotated[
        Optional[list[str]],
        typer.Option("--tcp", metavar="KEY=VALUE", help="Set a TCP option (a TcpOptions field of docs/scenario.md, "
                     "e.g. gso_max_bytes=65536) on every TCP connection of every run, flows and workloads, over "
                     "the experiment's own setting; repeatable. The runs are stored apart from the paper's "
                     "setting, and the report, result.json and meta.json say they used it.", show_default=False),
    ] = None,
) -> None:
    """Reproduce a paper's experiment, the paper's numbers beside ours.

    Runs go through the results store: what it holds is not computed again,
    so a reproduction that was interrupted resumes, and one that finished
    only re-renders. Writes rows.parquet, rows.csv, paper.parquet,
    paper.csv, result.json, meta.json, timings.json (the only file that
    depends on the clock) and the figures (PNG) into --out, atomically (an
    earlier output there is replaced whole, never mixed with the new one),
    and prints the comparison table on stderr. Ctrl-C cancels the runs,
    writes nothing and exits with status 130 (runs finished before it stay
    in the store). With --json,
    prints {"experiment", "scale", "seed", "rows", "paper"} on stdout (for
    all: {"experiment": "all", "scale", "seed", "experiments": [...]}).
    `reproduce all` runs every registered experiment (one failing does not
    stop the others; the exit status is then 1) and writes the HTML report
    (out/index.html).
    """
    with _exit_codes():
        from . import experiments

        if name != "all":
            experiments.get(name)  # an unknown name is bad input, before anything runs
        names = list(experiments.EXPERIMENTS) if name == "all" else [name]
        experiments.check_scale(scale)
        _check_seed(seed)
        from .sweep.tcpset import parse_tcp

        tcp_set = parse_tcp(tcp or ())  # a bad key or value: before anything runs
        run_kw: dict[str, Any] = {}
        if module_dir is not None:
            if name != "lossy-cc":
                raise ConfigError("--module-dir", f"only lossy-cc (E3) runs the authors' modules, not {name}")
            from .experiments import lossy_cc

            lossy_cc.module_files(module_dir, field="--module-dir")  # a missing file: before anything runs
            run_kw["module_dir"] = module_dir
        if json_out:
            _check_stdout()
        from .sweep.outdir import check_out_dir

        if name == "all":
            root = check_out_dir(out if out is not None else Path("out"), "--out", replaced_whole=False)
            assert root is not None
            for n in names:  # each experiment's directory is replaced whole: check them all first
                check_out_dir(root / n, "--out")
            docs, failures = [], []
            with _execution(store, executor, scheduler, workers, tcp_set) as ctx:
                for n in names:
                    try:
                        result, _ = _reproduce_one(n, scale, seed, root / n, ctx)
                        docs.append(result.to_json_doc())
                    except ConfigError:
                        raise
                    except Exception as e:  # noqa: BLE001 - one experiment failing does not stop the others
                        if os.environ.get("DUMBBELL_DEBUG"):
                            traceback.print_exc()
                        failures.append(f"{n}: {type(e).__name__}: {' '.join(str(e).split())}")
                        _progress(f"dumbbell: {n} failed: {failures[-1]}")
            from .sweep.report import write_report

            if docs:
                index = write_report(root)
                _progress(f"dumbbell: report written to {index}")
            if json_out:
                _print_json({"experiment": "all", "scale": scale, "seed": seed, "experiments": docs})
            if failures:
                _err(f"dumbbell: {len(failures)} of {len(names)} experiments failed: " + "; ".join(failures))
                raise typer.Exit(1)
            return
        out_dir = check_out_dir(out if out is not None else Path("out") / name, "--out")
        assert out_dir is not None
        with _execution(store, executor, scheduler, workers, tcp_set) as ctx:
            result, module = _reproduce_one(name, scale, seed, out_dir, ctx, **run_kw)
        _progress("")
        _progress(module.report(result))
        _progress("")
        _progress(f"dumbbell: wrote {out_dir}/ (dumbbell report {out_dir} renders it as HTML)")
        if json_out:
            _print_json(result.to_json_doc())


# ---------------------------------------------------------------- report


@app.command("report")
def report_cmd(
    directory: Annotated[
        Path, typer.Argument(metavar="DIR", help="A directory written by `dumbbell reproduce` (one experiment, or "
                             "one subdirectory per experiment); with --sweep, a results store.", show_default=False)
    ],
    sweep_name: Annotated[
        Optional[str], typer.Option("--sweep", metavar="NAME", help="Report the sweep NAME of the store DIR (its label "
                                    "in the catalog, e.g. sweep:pair, or pair): its metrics against its parameters.")
    ] = None,
    out: Annotated[
        Optional[Path], typer.Option("--out", help="With --sweep: where to write the report (default "
                                     "DIR/reports/NAME/).", show_default=False)
    ] = None,
) -> None:
    """Write the HTML report of reproduced experiments, or of any sweep.

    DIR/index.html lists the experiments; DIR/NAME/index.html holds one
    experiment's figures, the paper's numbers beside ours (agreement
    highlighted), the parameters, the seed, the simulator version and the
    wall time. With --sweep NAME, DIR is a results store and the report
    shows that sweep's metrics (goodput, fairness, retransmissions,
    timeouts, drops: mean and 95 % interval per grid point) in a table and
    in figures against its parameters. Plain HTML beside the PNG figures:
    readable offline.
    """
    with _exit_codes():
        from .sweep.report import write_report

        if not directory.is_dir():
            raise ConfigError("DIR", f"{directory} is not a directory")
        if sweep_name is not None:
            from .sweep.sweepreport import write_sweep_report

            index = write_sweep_report(directory, sweep_name, out)
        elif out is not None:
            raise ConfigError("--out", "needs --sweep (a reproduce report is written into DIR)")
        else:
            index = write_report(directory)
        _progress(f"dumbbell: report written to {index}")


# ---------------------------------------------------------------- store

store_app = typer.Typer(
    help="The results store: list, show, verify, clean and query runs (the catalog is DuckDB; "
    "see docs/sweeps.md for its tables).",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(store_app, name="store")

from .kmod_cli import module_app  # noqa: E402 - `dumbbell module ...`

app.add_typer(module_app, name="module")


def _open_store(path: Path):
    from .sweep.store import Store

    return Store(path).require()


def _show_frame(df: Any, json_out: bool) -> None:
    if json_out:
        _print_json(df.to_dicts())
        return
    import polars as pl

    with pl.Config(tbl_rows=500, tbl_cols=40, tbl_hide_dataframe_shape=True, fmt_str_lengths=80, tbl_width_chars=200):
        _progress(str(df))


@store_app.command("ls")
def store_ls(
    store: StoreOpt = Path("dumbbell-results"),
    runs: Annotated[bool, typer.Option("--runs", help="List runs, not experiments.")] = False,
    experiment: Annotated[
        Optional[str], typer.Option("--experiment", help="Only runs of this experiment or sweep.", show_default=False)
    ] = None,
    status: Annotated[Optional[str], typer.Option("--status", help="Only runs with this status (ok, failed).",
                                                  show_default=False)] = None,
    json_out: JsonOpt = False,
) -> None:
    """List what the store holds: per experiment (runs, ok, failed, wall
    time, simulated packets), or with --runs one line per run."""
    with _exit_codes():
        st = _open_store(store)
        where, params = [], []
        if experiment is not None:
            where.append("experiment = ?")
            params.append(experiment)
        if status is not None:
            where.append("status = ?")
            params.append(status)
        cond = f"WHERE {' AND '.join(where)}" if where else ""
        if runs:
            sql = (f"SELECT run_id, experiment, point, rep, seed, status, goodput_bps, wall_s, error FROM runs {cond} "
                   "ORDER BY experiment, point, rep")
        else:
            sql = (f"SELECT experiment, count(*) AS runs, count(*) FILTER (status = 'ok') AS ok, "
                   f"count(*) FILTER (status <> 'ok') AS failed, round(sum(wall_s), 1) AS wall_s, "
                   f"sum(data_packets_sent) AS sim_packets, max(finished_at) AS last FROM runs {cond} "
                   "GROUP BY experiment ORDER BY experiment")
        _show_frame(st.query(sql, params), json_out)


@store_app.command("show")
def store_show(
    run_id: Annotated[str, typer.Argument(metavar="RUN_ID", help="A run id, or a unique prefix of one.", show_default=False)],
    store: StoreOpt = Path("dumbbell-results"),
    json_out: JsonOpt = False,
) -> None:
    """Show one run: its labels, status and error, summary metrics, tables
    (rows each) and where its files are."""
    with _exit_codes():
        st = _open_store(store)
        hits = st.query("SELECT run_id FROM runs WHERE starts_with(run_id, ?) ORDER BY run_id", [run_id])
        if hits.height == 0:
            raise ConfigError("RUN_ID", f"no run {run_id!r} in {store}")
        if hits.height > 1:
            raise ConfigError("RUN_ID", f"{run_id!r} matches {hits.height} runs; give more digits")
        rid = hits["run_id"][0]
        rec = st.get(rid)
        if rec is None:
            raise ConfigError("RUN_ID", f"run {rid} is in the catalog but its files are gone (dumbbell store gc repairs it)")
        from .sweep.storecheck import check_run

        man = check_run(rec.directory, rid).manifest  # a damaged file: one line naming it (exit 2)
        timing = json.loads((rec.directory / "timing.json").read_text()) if (rec.directory / "timing.json").exists() else {}
        tables = {n: rec.table(n).height for n in rec.table_names}
        doc = {**man, "timing": timing, "directory": str(rec.directory), "table_rows": tables}
        doc.pop("tables", None)
        if json_out:
            _print_json(doc)
            return
        for k in ("run_id", "experiment", "point", "rep", "scenario", "seed", "status", "error", "version"):
            _progress(f"{k:12s} {doc.get(k)}")
        _progress(f"{'wall_s':12s} {timing.get('wall_s')}")
        _progress(f"{'directory':12s} {rec.directory}")
        _progress("metrics      " + ", ".join(f"{k}={v}" for k, v in (man.get("metrics") or {}).items()))
        _progress("tables       " + ", ".join(f"{k} ({v} rows)" for k, v in tables.items()))


@store_app.command("gc")
def store_gc(
    store: StoreOpt = Path("dumbbell-results"),
    failed: Annotated[bool, typer.Option("--failed", help="Remove failed runs.")] = False,
    stale: Annotated[bool, typer.Option("--stale", help="Remove runs made by another simulator version than this one.")] = False,
    experiment: Annotated[
        Optional[str], typer.Option("--experiment", help="Remove every run of this experiment or sweep.", show_default=False)
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only say what would be removed.")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Clean the store: always removes what killed writers left and the
    quarantined (damaged) runs, and repairs the catalog from the files; --failed, --stale and --experiment also
    remove those runs."""
    with _exit_codes():
        from .sweep.engine import simulator_version

        st = _open_store(store)
        res = st.gc(failed=failed, stale_versions=stale, current_version=simulator_version(), experiment=experiment,
                    dry_run=dry_run)
        verb = "would remove" if dry_run else "removed"
        _progress(f"dumbbell: {verb} {len(res['runs'])} runs ({res['bytes'] / 1e6:.1f} MB) from {store}/")
        if json_out:
            _print_json(res)


@store_app.command("verify")
def store_verify(
    store: StoreOpt = Path("dumbbell-results"),
    quarantine: Annotated[bool, typer.Option("--quarantine", help="Move each damaged run to the store's quarantine/ "
                                             "folder (the next sweep or reproduce computes it again).")] = False,
    json_out: JsonOpt = False,
) -> None:
    """Check every stored run's files against the checksums written with
    them and name each damaged run, its file and what is wrong (one line
    each, on stderr). Exit status 0 if every run is intact, 1 if one is
    not. With --json, prints {"runs", "bad": [{"run_id", "file", "reason",
    "quarantined"}]} on stdout."""
    with _exit_codes():
        st = _open_store(store)
        res = st.verify(quarantine=quarantine, progress=_progress)
        _progress(f"dumbbell: {store}/: {res['runs']} runs checked, {len(res['bad'])} damaged"
                  + ("" if not res["bad"] or quarantine else " (--quarantine sets them aside)"))
        if json_out:
            _print_json(res)
        if res["bad"]:
            raise typer.Exit(1)


@store_app.command("sql")
def store_sql(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="SQL (DuckDB). Tables: runs, sweeps, trials, and one "
                                         "view per output table (flows, summary, queues, ...) with a run_id column.",
                                         show_default=False)],
    store: StoreOpt = Path("dumbbell-results"),
    json_out: JsonOpt = False,
    csv_out: Annotated[bool, typer.Option("--csv", help="Print CSV on stdout.")] = False,
) -> None:
    """Run SQL over the catalog and the stored tables.

    Example: dumbbell store sql "SELECT r.point, avg(f.goodput_bps) FROM
    runs r JOIN flows f USING (run_id) GROUP BY 1". The result goes to
    stdout (a table, or --json / --csv).
    """
    with _exit_codes():
        import duckdb

        st = _open_store(store)
        try:
            df = st.query(query)
        except duckdb.Error as e:
            raise ConfigError("QUERY", str(e).splitlines()[0]) from None
        if json_out:
            _print_json(df.to_dicts())
        elif csv_out:
            sys.stdout.write(df.write_csv())
        else:
            import polars as pl

            with pl.Config(tbl_rows=500, tbl_cols=40, tbl_hide_dataframe_shape=True, fmt_str_lengths=80,
                           tbl_width_chars=200):
                sys.stdout.write(str(df) + "\n")


# ---------------------------------------------------------------- optimize


@app.command("optimize")
def optimize_cmd(
    scenario: Annotated[str, typer.Argument(metavar="SCENARIO.toml", help="Scenario file (TOML).", show_default=False)],
    param: Annotated[
        list[str],
        typer.Option("--param", help="PATH=LO..HI: a grid path (links[c-s1].queue_ba.min_th) and its range; "
                     "integers if both bounds are. Repeat for more parameters.", show_default=False),
    ],
    metric: Annotated[
        str,
        typer.Option("--metric", help="Python expression over a run's tables and helpers, e.g. "
                     "\"goodput_bps() / (300e-6 + queue_delay_s('s1', 'c'))\" (see docs/sweeps.md).",
                     show_default=False),
    ],
    minimize: Annotated[bool, typer.Option("--minimize", help="Minimize the metric (default: maximize).")] = False,
    points: Annotated[int, typer.Option("--points", help="Grid points per parameter and round.")] = 5,
    rounds: Annotated[int, typer.Option("--rounds", help="Rounds: the first covers the whole range, each next one "
                                        "± one grid step around the best so far.")] = 3,
    repeats: Annotated[int, typer.Option("--repeats", help="Runs per trial (the metric is their mean).")] = 1,
    seed: SeedOpt = None,
    study: Annotated[
        Optional[str], typer.Option("--study", help="Name of the search in the store (default optimize:<scenario name>).",
                                    show_default=False)
    ] = None,
    executor: ExecutorOpt = "local",
    scheduler: SchedulerOpt = None,
    workers: WorkersOpt = None,
    store: StoreOpt = Path("dumbbell-results"),
    json_out: JsonOpt = False,
) -> None:
    """Search parameters for the best metric through the sweep engine.

    A coarse grid over the ranges, then finer grids around the best trial;
    every trial is a stored run, so a search started again computes nothing
    it already did. The history goes to the store (studies/ and the trials
    table). Prints the best trial and the ten best on stderr; with --json,
    prints {"study", "best", "trials"} on stdout.
    """
    with _exit_codes():
        from .sweep.optimize import optimize, parse_param
        from .scenario.models import Scenario

        _check_seed(seed)
        params = [parse_param(p) for p in param]
        s = Scenario.from_toml(scenario)
        with _execution(store, executor, scheduler, workers):
            res = optimize(s, params, metric, maximize=not minimize, points=points, rounds=rounds, repeats=repeats,
                           seed=seed, study=study, progress=_progress)
        import polars as pl

        ok = res.trials.filter(pl.col("status") == "ok").sort("metric", descending=not minimize)
        with pl.Config(tbl_rows=10, tbl_cols=20, tbl_hide_dataframe_shape=True):
            _progress(str(ok.head(10).drop("error")))
        shown = ", ".join(f"{k}={v:g}" for k, v in res.best["params"].items()) if res.best else "-"
        _progress(f"dumbbell: {res.study}: best {res.best['metric']:.6g} at {shown} after {res.trials.height} trials"
                  if res.best else f"dumbbell: {res.study}: no trial gave a metric")
        if json_out:
            _print_json({"study": res.study, "best": res.best, "trials": res.trials.to_dicts()})


@app.command("list")
def list_cmd(json_out: JsonOpt = False) -> None:
    """List what this build offers: experiments (with the paper each
    reproduces), congestion controls, queue kinds, classifiers, schedulers
    and benchmarks.

    Printed on stdout; with --json, one document {"experiments", "controls",
    "queues", "classifiers", "schedulers", "benchmarks"}, each a list of
    {"name", "about"}.
    """
    with _exit_codes():
        from .listing import listing

        doc = listing()
        if json_out:
            _print_json(doc)
            return
        titles = {"experiments": "Experiments (dumbbell reproduce NAME)", "controls": "Congestion controls (cc = NAME)",
                  "queues": "Queue kinds (kind = NAME)", "classifiers": "Classifiers (two-class ports)",
                  "schedulers": "Schedulers (two-class ports)", "benchmarks": "Benchmarks (dumbbell bench --only NAME)"}
        lines = []
        for section, items in doc.items():
            lines.append(titles.get(section, section) + ":")
            width = max((len(i["name"]) for i in items), default=0)
            lines += [f"  {i['name']:<{width}}  {i['about']}".rstrip() for i in items]
            lines.append("")
        try:
            sys.stdout.write("\n".join(lines))
            sys.stdout.flush()
        except (OSError, ValueError) as e:
            raise ConfigError("stdout", f"cannot write the list: {e}") from None


@app.command("bench")
def bench_cmd(
    json_out: JsonOpt = False,
    only: Annotated[
        Optional[str],
        typer.Option(
            "--only",
            help="Run only these benchmarks (comma-separated): dctcp-100m, cubic-1g, cubic-10g, many-10g, "
            "reno-1g, reno-py-1g, cubic-module-1g; python-path-1g (only when named: dumbbell.run against the "
            "core alone on cubic-1g, CPU ratio, first run apart); htsim-equal-work (run when htsim's "
            "htsim_compare from tools/htsim/compare.sh is there, $DUMBBELL_HTSIM: CPU per data packet "
            "against htsim, one ACK per packet on both).",
        ),
    ] = None,
) -> None:
    """Measure simulator speed: events/s, simulated packets/s, CPU ns per
    packet, events per packet, peak memory.

    Each benchmark runs in its own subprocess. With --json, prints a list of
    {"name", "events", "wall_s", "cpu_s", "events_per_s", "sim_packets_per_s",
    "ns_per_packet", "events_per_packet", "peak_rss_bytes", "sim_s", "flows",
    "data_packets_sent", "build"} on stdout ("build": how the extension was
    compiled, "plain" or "profile-guided (...)": make setup's profile-guided
    build is 1.1-1.25x faster). reno-1g and reno-py-1g run the same Reno
    in Rust and in Python (docs/controls.md); when both run (--only
    reno-1g,reno-py-1g), reno-py-1g's
    record adds "ns_per_packet_over_rust", "cpu_vs_rust" and
    "same_packets_as_rust". python-path-1g's record holds "core_cpu_s",
    "first_run_cpu_s", "later_run_cpu_s", "first_vs_core", "later_vs_core"
    and "same_events" instead (docs/performance.md). htsim-equal-work's
    record holds "htsim" and "scenarios" (per scenario: our and htsim's
    median CPU ns per data packet, "ratio", "ratio_min", "ratio_max").
    """
    with _exit_codes():
        from . import bench

        if json_out:
            _check_stdout()
        results = bench.run_all(only=only, progress=_progress)
        if json_out:
            _print_json(results)


def _only_named(typer_app: typer.Typer, args: list[str]) -> typer.Typer:
    """The app with only the command ``args`` names (``dumbbell run ...``
    builds ``run`` alone: typer reads every command's signature and help to
    build the whole group, 15 ms of a run's start, issue 29); the whole app
    for anything else (``--help``, ``--version``, a group, a misspelt
    command). What the command parses and prints is the same."""
    if not args or args[0].startswith("-"):
        return typer_app
    named = [info for info in typer_app.registered_commands if info.name == args[0]]
    if len(named) != 1:
        return typer_app
    only = copy.copy(typer_app)
    only.registered_commands = named
    only.registered_groups = []
    return only


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point. Click's usage errors (an unknown option, a
    bad option value, a missing argument) become one line on stderr and exit
    status 2, like every other bad input; ``--help`` and a bare ``dumbbell``
    print the help."""
    from .scenario.plausible import one_line_warnings

    one_line_warnings()  # `dumbbell: warning: links[0].rate_bps: ...`, one line each
    command = typer.main.get_command(_only_named(app, sys.argv[1:] if argv is None else argv))
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
    if code == 130:
        _exit_now(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
