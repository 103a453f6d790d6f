"""Sweeps and the results store (dumbbell.sweep, dumbbell.sweep.store): grid paths,
run identity, local and Dask executors giving byte-identical stores, resuming
after SIGKILL, failed runs, the catalog's SQL."""

from __future__ import annotations

import hashlib
import io
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import dumbbell as db
from dumbbell.errors import ConfigError
from dumbbell.sweep.store import Store
from dumbbell.sweep import Display, RichDisplay, RunSpec, execute, expand_grid, run_id_of, set_path, using

from .conftest import REPO, two_flow_star
from .helpers.fresh_process import in_fresh_process

GRID = {"links[c-s1].loss_ba": [0.0, 0.02], "flows[*].cc": ["reno", "cubic"]}


def _files(store: Path) -> dict[str, str]:
    """Every file of every stored run (but timing.json) → its SHA-256."""
    out = {}
    for p in sorted((store / "runs").rglob("*")):
        if p.is_file() and p.name != "timing.json":
            out[str(p.relative_to(store))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _catalog(store: Path) -> list[tuple]:
    df = Store(store).query("SELECT * EXCLUDE (wall_s, finished_at) FROM runs ORDER BY run_id")
    return [tuple(r) for r in df.iter_rows()]


# ---------------------------------------------------------------- grid paths


def test_grid_paths_reach_lists_by_index_star_name_and_link_pair():
    s = two_flow_star()
    doc = s.model_dump(mode="json")
    set_path(doc, "flows[*].cc", "reno")
    set_path(doc, "flows[a->c].start_s", 0.1)
    set_path(doc, "links[s1-c].loss_ba", 0.03)  # the link c-s1, named in either order
    set_path(doc, "links[0].delay_s", "1ms")
    set_path(doc, "duration_s", 0.2)
    t = db.Scenario.from_dict(doc)
    assert [f.cc.kind for f in t.flows] == ["reno", "reno"]
    assert t.flows[0].start_s == 0.1 and t.flows[1].start_s == 0.0
    assert t.link("c", "s1").loss_ba == 0.03
    assert t.links[0].delay_s == pytest.approx(1e-3)
    assert t.duration_s == 0.2


def test_bad_grid_keys_and_values_name_the_field():
    s = two_flow_star()
    with pytest.raises(ConfigError, match=r"links\[9\]"):
        expand_grid(s, {"links[9].loss_ab": [0.1]})
    with pytest.raises(ConfigError, match="no element named 'nowhere'"):
        expand_grid(s, {"flows[nowhere].cc": ["reno"]})
    with pytest.raises(ConfigError) as e:
        expand_grid(s, {"links[0].rate_bps": ["1Gbps", "-5"]})
    assert e.value.field == "links[0].rate_bps" and "grid point" in e.value.message and "-5" in e.value.message
    with pytest.raises(ConfigError, match="flows.0..cc"):
        expand_grid(s, {"flows[*].cc": ["reno", "warp"]})


def test_grid_order_last_key_fastest_and_seeds_common_to_points():
    s = two_flow_star(duration_s=0.2)
    pts = [p for p, _ in expand_grid(s, GRID)]
    assert pts == [{"links[c-s1].loss_ba": 0.0, "flows[*].cc": "reno"}, {"links[c-s1].loss_ba": 0.0, "flows[*].cc": "cubic"},
                   {"links[c-s1].loss_ba": 0.02, "flows[*].cc": "reno"}, {"links[c-s1].loss_ba": 0.02, "flows[*].cc": "cubic"}]
    res = db.sweep(s, grid={"flows[*].cc": ["reno", "cubic"]}, repeats=3, store=False, workers=2)
    seeds = res.runs["seed"].to_list()
    assert seeds[:3] == seeds[3:] and seeds[0] == s.seed and len(set(seeds[:3])) == 3


def test_run_identity_is_the_resolved_document_and_seed():
    s = two_flow_star(duration_s=0.2)
    a = run_id_of(s.to_core(1))
    assert a == run_id_of(two_flow_star(duration_s=0.2).to_core(1))
    assert a != run_id_of(s.to_core(2))
    t = two_flow_star(duration_s=0.2)
    t.link("c", "s1").loss_ba = 1e-9
    assert a != run_id_of(t.to_core(1))
    # Units written differently resolve to the same document, hence the same run.
    doc = s.model_dump(mode="json")
    doc["links"][0]["delay_s"] = "0.075ms"
    doc["links"][1]["rate_bps"] = "100Mbps"
    assert run_id_of(db.Scenario.from_dict(doc).to_core(1)) == a
    assert a != run_id_of(s.to_core(1), version="0.0.0+other")


# ---------------------------------------------------------------- executors and store


def test_local_and_dask_give_byte_identical_stores(tmp_path):
    s = two_flow_star(duration_s=0.3)
    local = db.sweep(s, grid=GRID, repeats=2, store=tmp_path / "local", workers=1)
    dask = db.sweep(s, grid=GRID, repeats=2, store=tmp_path / "dask", executor="dask", workers=2)
    assert local.runs["status"].to_list() == ["ok"] * 8
    files = _files(tmp_path / "local")
    assert len([f for f in files if f.endswith("flows.parquet")]) == 8
    assert files == _files(tmp_path / "dask")
    assert _catalog(tmp_path / "local") == _catalog(tmp_path / "dask")
    # Loss makes a difference, and repetitions are distinct realizations of it.
    g = local.points()
    lossy = g.filter(pl.col("links[c-s1].loss_ba") == 0.02)
    clean = g.filter(pl.col("links[c-s1].loss_ba") == 0.0)
    assert (lossy["retransmits"] > 0).all() and (clean["retransmits"] == 0).all()
    reps = local.runs.filter(pl.col("links[c-s1].loss_ba") == 0.02)["goodput_bps"].to_list()
    assert len(set(reps)) == 4


def test_second_identical_sweep_computes_nothing(tmp_path):
    s = two_flow_star(duration_s=0.3)
    first = db.sweep(s, grid=GRID, store=tmp_path / "st", workers=2)
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "st" / "runs").rglob("*")}
    with using(store=tmp_path / "st") as ctx:
        again = db.sweep(s, grid=GRID)
    assert ctx.stats[-1].computed == 0 and ctx.stats[-1].cached == 4
    assert again.runs["cached"].to_list() == [True] * 4
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "st" / "runs").rglob("*")} == before
    assert again.table("flows").equals(first.table("flows"))


def test_a_failing_run_is_stored_failed_and_the_others_complete(tmp_path):
    s = two_flow_star(duration_s=0.3)
    good = [RunSpec.of(s, seed, {"experiment": "t", "point": [seed], "rep": 0}, db.sweep.simulator_version())
            for seed in (1, 2, 3)]
    bad_cfg = s.to_core(4)
    bad_cfg["links"][0]["rate_bps"] = 0  # passes no Python check: the core refuses it when the run starts
    bad = RunSpec(run_id=run_id_of(bad_cfg), seed=4, config=bad_cfg, labels={"experiment": "t", "point": [4], "rep": 0})
    specs = [good[0], bad, *good[1:]]
    with using(store=tmp_path / "st", workers=2):
        recs = execute(specs, label="t")
    assert [r.status for r in recs] == ["ok", "failed", "ok", "ok"]
    assert "ConfigError" in recs[1].error and "rate" in recs[1].error
    cat = Store(tmp_path / "st").query("SELECT status, error FROM runs ORDER BY status")
    assert cat["status"].to_list() == ["failed", "ok", "ok", "ok"]
    assert "rate" in cat["error"][0]
    # A failed run is tried again by the next sweep; the ones that worked are not.
    with using(store=tmp_path / "st") as ctx:
        execute(specs, label="t")
    assert (ctx.stats[-1].computed, ctx.stats[-1].cached, ctx.stats[-1].failed) == (1, 3, 1)


_KILL_SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
import dumbbell as db
from conftest import two_flow_star
s = two_flow_star(duration_s=1.5, loss=0.005)
db.sweep(s, grid={{"links[c-s1].loss_ba": [0.0, 0.005, 0.01]}}, repeats=4, store=sys.argv[1], workers=1)
"""


def _complete_runs(store: Path) -> list[Path]:
    runs = store / "runs"
    return [d for d in runs.glob("*/*") if (d / "run.json").exists()] if runs.is_dir() else []


def _check_run_dir(d: Path) -> None:
    man = json.loads((d / "run.json").read_text())
    assert man["run_id"] == d.name and man["status"] == "ok"
    for name, info in man["tables"].items():
        data = (d / f"{name}.parquet").read_bytes()
        assert hashlib.sha256(data).hexdigest() == info["sha256"], f"{d.name}/{name}.parquet is not what was written"
        pl.read_parquet(io.BytesIO(data))


def test_sigkill_half_way_then_resume_gives_the_complete_store(tmp_path):
    store = tmp_path / "st"
    script = tmp_path / "sweep.py"
    script.write_text(_KILL_SCRIPT.format(tests=str(REPO / "tests")))
    proc = subprocess.Popen([sys.executable, str(script), str(store)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while len(_complete_runs(store)) < 4:
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    done = _complete_runs(store)
    assert 4 <= len(done) < 12, "killed half way"
    for d in done:
        _check_run_dir(d)
    s = two_flow_star(duration_s=1.5, loss=0.005)
    with using(store=store, workers=2) as ctx:
        res = db.sweep(s, grid={"links[c-s1].loss_ba": [0.0, 0.005, 0.01]}, repeats=4)
    st = ctx.stats[-1]
    assert st.cached >= len(done) and st.computed + st.cached == 12 and st.failed == 0
    assert res.runs["status"].to_list() == ["ok"] * 12
    final = _complete_runs(store)
    assert sorted(d.name for d in final) == sorted(res.runs["run_id"].to_list())
    for d in final:
        _check_run_dir(d)
    n, distinct, ok = Store(store).query("SELECT count(*), count(DISTINCT run_id), count(*) FILTER (status = 'ok') FROM runs").row(0)
    assert (n, distinct, ok) == (12, 12, 12)
    with using(store=store):
        pass
    assert list((store / "tmp").iterdir()) == []


def test_catalog_is_rebuilt_from_the_files(tmp_path):
    s = two_flow_star(duration_s=0.2)
    db.sweep(s, grid={"flows[*].cc": ["reno", "cubic", "dctcp"]}, store=tmp_path / "st", workers=2)
    want = _catalog(tmp_path / "st")
    cat = tmp_path / "st" / "catalog.duckdb"
    cat.unlink()
    assert _catalog(tmp_path / "st") == want  # a reader rebuilds a missing catalog
    cat.write_bytes(b"this is not a DuckDB file" * 100)
    with using(store=tmp_path / "st"):
        pass
    assert _catalog(tmp_path / "st") == want
    assert list((tmp_path / "st").glob("catalog.duckdb.broken-*"))


def test_catalog_answers_sql(tmp_path):
    s = two_flow_star(duration_s=0.3, loss=0.01)
    res = db.sweep(s, grid={"flows[*].cc": ["reno", "cubic"]}, repeats=2, store=tmp_path / "st", workers=2, name="demo")
    st = Store(tmp_path / "st")
    per = st.query("SELECT r.point, count(DISTINCT r.run_id) AS runs, sum(f.goodput_bps) AS g FROM runs r "
                   "JOIN flows f USING (run_id) GROUP BY 1 ORDER BY 1")
    assert per["runs"].to_list() == [2, 2]
    want = res.runs.group_by("flows[*].cc").agg(pl.col("goodput_bps").sum()).sort("flows[*].cc")
    assert per["g"].to_list() == pytest.approx(want["goodput_bps"].to_list())
    sw = st.query("SELECT experiment, runs, computed, cached FROM sweeps")
    assert sw.row(0) == ("demo", 4, 4, 0)
    drops = st.query("SELECT sum(packets_dropped) FROM runs").item()
    assert drops == sum(r.summary["packets_dropped"] for r in res.records) > 0


def test_rich_display_shows_runs_running_failed_rate_and_time_left():
    from rich.console import Console

    buf = io.StringIO()
    d = RichDisplay(Console(file=buf, force_terminal=True, width=160))
    d.start("lossy-cc", total=10, cached=2, slots=2)
    d.advance(failed=False, packets=3_000_000)
    d.advance(failed=True, packets=0)
    text = Console(file=io.StringIO(), width=160)
    with text.capture() as cap:
        text.print(d._render())
    d.finish()
    line = cap.get()
    for word in ("lossy-cc", "4/10 runs", "2 running", "1 failed", "2 from the store", "M pkt/s", "left"):
        assert word in line, line
    assert isinstance(Display(), Display)


def test_dumbbell_sweep_is_the_module_and_the_function():
    import dumbbell.sweep as mod

    assert db.sweep is mod and callable(db.sweep)
    out = subprocess.run([sys.executable, "-c", "import sys, dumbbell; print(sorted(m for m in ('duckdb', 'dask', "
                          "'distributed', 'rich', 'dumbbell.sweep', 'dumbbell.sweep.store') if m in sys.modules))"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", "import dumbbell must not import the sweep machinery"


# ---------------------------------------------------------------- optimize


def test_optimize_refines_to_the_known_optimum_and_keeps_its_history(tmp_path):
    from dumbbell.sweep.optimize import optimize, parse_param

    s = db.Scenario.from_toml(REPO / "examples" / "dctcp_queue_red_1g.toml")
    # The run's own simulated time, so the optimum is known: 0.06 s, found in round 2.
    with using(store=tmp_path / "st"):
        res = optimize(s, [parse_param("duration_s=0.02..0.1")], "-abs(summary['sim_time_ps'] / 1e12 - 0.06)",
                       points=5, rounds=2)
    assert res.best["params"] == {"duration_s": 0.06} and res.best["metric"] == 0.0
    assert res.trials["duration_s"].to_list() == [0.02, 0.04, 0.06, 0.08, 0.1, 0.05, 0.07]
    st = Store(tmp_path / "st")
    trials = st.query("SELECT round, metric FROM trials ORDER BY trial")
    assert trials.height == 7 and trials["round"].to_list() == [0] * 5 + [1] * 2
    doc = json.loads(next((tmp_path / "st" / "studies").glob("*.json")).read_text())
    assert doc["best"]["params"] == {"duration_s": 0.06}
    with using(store=tmp_path / "st") as ctx:
        optimize(s, [parse_param("duration_s=0.02..0.1")], "-abs(summary['sim_time_ps'] / 1e12 - 0.06)", points=5, rounds=2)
    assert sum(x.computed for x in ctx.stats) == 0, "a search started again computes nothing it already did"


def test_optimize_red_thresholds_dctcp_queue_follows_k_and_bad_points_are_invalid():
    from dumbbell.sweep.optimize import optimize, parse_param

    s = db.Scenario.from_toml(REPO / "examples" / "dctcp_queue_red_1g.toml")
    s.duration_s = 0.1
    res = optimize(s, [parse_param("links[c-s1].queue_ba.min_th=3000..30000"),
                       parse_param("links[c-s1].queue_ba.max_th=4500..33000")],
                   "queue_mean_pkts('s1', 'c')", maximize=False, points=2, rounds=1)
    by = {(r["links[c-s1].queue_ba.min_th"], r["links[c-s1].queue_ba.max_th"]): r for r in res.trials.to_dicts()}
    assert by[(30000, 4500)]["status"] == "invalid" and "max_th" in by[(30000, 4500)]["error"]
    # DCTCP holds the queue near where RED starts marking: ~2 packets at
    # min 3000 B, ~20 at min 30000 B (the paper's K).
    low, high = by[(3000, 4500)]["metric"], by[(30000, 33000)]["metric"]
    assert low < 5 and 12 < high < 30
    assert res.best["params"] == {"links[c-s1].queue_ba.min_th": 3000, "links[c-s1].queue_ba.max_th": 4500}
    with pytest.raises(ConfigError, match="LO < HI"):
        parse_param("duration_s=1..0.5")
    with pytest.raises(ConfigError, match="--metric"):
        optimize(s, [parse_param("duration_s=0.01..0.02")], "goodput_bps(", points=2, rounds=1)


def test_slurm_example_builds_its_job_script():
    res = subprocess.run([sys.executable, str(REPO / "examples" / "slurm_sweep.py"), "--dry-run", "--queue", "normal",
                          "--cores", "8"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "#SBATCH -p normal" in res.stdout and "#SBATCH --cpus-per-task=8" in res.stdout
    assert "--nthreads 1" in res.stdout and "--nworkers 8" in res.stdout


@in_fresh_process
def test_ctrl_c_stops_the_running_runs_stores_nothing_partial_and_the_block_goes_on(tmp_path):
    """A real SIGINT to this process while two one-hour runs simulate (four
    more queued) stops them at once, stores none of them, and leaves the
    execution context usable: the next sweep in the same block computes."""
    import os
    import threading

    long = db.star(["a", "b", "c"], rate="1Gbps", delay="75us", duration_s=3600.0, name="long")
    for h in ("a", "b"):
        long.add_flow(db.TcpFlow(name=f"{h}->c", src=h, dst="c", cc="cubic"))
    with using(store=tmp_path / "st", workers=2):
        timer = threading.Timer(1.5, os.kill, (os.getpid(), signal.SIGINT))
        t0 = time.monotonic()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            db.sweep(long, repeats=6)
        took = time.monotonic() - t0
        timer.join()
        short = db.sweep(two_flow_star(duration_s=0.2), repeats=2)
    assert took < 1.5 + 2.0, took
    assert [r.status for r in short.records] == ["ok", "ok"]
    stored = Store(tmp_path / "st").query("SELECT count(*) AS n, count(*) FILTER (status = 'ok') AS ok FROM runs")
    assert stored.row(0) == (2, 2)
