"""What a new user meets first (issue 10): assignment after construction,
flows that start too late, the README's code as written, `--version`,
`dumbbell list`, the figures of any run and reading a run back."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings

import numpy as np
import polars as pl
import pytest

import dumbbell as db
from dumbbell import scenario as sc

from .conftest import REPO, two_flow_star

# ---------------------------------------------------------------- assignment


def test_assignment_parses_units_as_construction_does():
    s = db.star(["a", "b", "c"], rate="100Mbps", delay="75us", duration_s=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # pydantic's serializer warning was the symptom
        s.link("a", "s1").rate_bps = "50Mbps"
        s.link("a", "s1").jitter_s = "10us"
        s.link("c", "s1").queue_ba = {"kind": "red", "min_th": 30000, "max_th": 35000, "max_p": 1.0}
        s.record.flow_sample_s = "10ms"
        core = s.to_core()
        text = s.to_toml()
    link = s.link("a", "s1")
    assert link.rate_bps == 50_000_000 and isinstance(link.rate_bps, int)
    assert link.jitter_s == pytest.approx(10e-6)
    assert isinstance(s.link("c", "s1").queue_ba, db.Red)
    assert core["links"][0]["rate_bps"] == 50_000_000 and core["links"][0]["jitter_ps"] == 10_000_000
    assert core["record"]["flow_sample_ps"] == 10_000_000_000
    assert db.Scenario.from_dict(__import__("tomllib").loads(text)).to_core() == core


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [("rate_bps", "-1G", "positive"), ("rate_bps", "fast", "cannot read"), ("jitter_s", True, "number"),
     ("loss_ab", 1.5, "below")],
)
def test_a_bad_assigned_value_is_one_error_naming_the_field(field, value, words):
    link = db.Link(a="a", b="s1", rate_bps="1G")
    with pytest.raises(db.ConfigError) as e:
        setattr(link, field, value)
    assert e.value.field == field and words in e.value.message
    assert getattr(link, field) == getattr(db.Link(a="a", b="s1", rate_bps="1G"), field)  # unchanged


def test_cross_field_checks_wait_for_the_whole_edit():
    # reorder_ab needs reorder_delay_s: set one after the other, each is
    # parsed at once and the pair is checked when the scenario is used.
    s = db.star(["a", "b"], rate="1G", delay="1ms", duration_s=1)
    link = s.link("a", "s1")
    link.reorder_ab = 0.01
    with pytest.raises(db.ConfigError, match=r"links\[0\]\.reorder_delay_s"):
        s.to_core()
    link.reorder_delay_s = "0.5ms"
    assert s.to_core()["links"][0]["reorder_delay_ps"] == 500_000_000


# ---------------------------------------------------------------- flows after the end


@pytest.mark.parametrize("start", [2.0, 3.5])
def test_a_flow_starting_at_or_after_the_end_is_refused(start):
    s = db.star(["a", "b"], rate="1G", duration_s=2)
    s.add_flow(db.TcpFlow(src="a", dst="b"))
    s.add_flow(db.TcpFlow(src="b", dst="a", start_s=start))
    with pytest.raises(db.ConfigError) as e:
        s.to_core()
    assert e.value.field == "flows[1].start_s" and "run's end" in e.value.message
    s.flows[1].start_s = 1.999
    assert s.to_core()["flows"][1]["start_ps"] == 1_999_000_000_000


def test_a_workload_starting_after_the_end_is_refused():
    from dumbbell import filebase

    s = db.star(["c", "v"], rate="1G", duration_s=1)
    s.add_workload(db.Workload(clients=["c"], servers=["v"], sizes=db.Files(bytes=filebase.load()[:3]),
                               arrivals=db.AllAtOnce(), start_s=1.0))
    with pytest.raises(db.ConfigError, match=r"workloads\[0\]\.start_s"):
        s.to_core()


def test_cli_refuses_a_late_flow_before_running(cli, tmp_path):
    from .conftest import MINIMAL_TOML

    p = tmp_path / "late.toml"
    p.write_text(MINIMAL_TOML.format(rate="1Gbps", cc="reno") + "start_s = 0.25\n")
    res = cli("run", str(p))
    assert res.code == 2, res.stderr
    assert "flows[0].start_s" in res.stderr and "running" not in res.stderr


# ---------------------------------------------------------------- the README as written


def test_import_dumbbell_then_experiments_as_the_readme_writes():
    code = ("import dumbbell; m = dumbbell.experiments.dctcp_queue; "
            "print(m.NAME, callable(m.run), dumbbell.experiments.get('rafle').NAME)")
    out = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["dctcp-queue", "True", "rafle"]


def _readme_python_blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_the_readme_scenario_is_examples_dctcp_star():
    block = _readme_python_blocks()[0]
    build = block.split("r = db.run(")[0]
    ns: dict = {}
    exec(build, ns)  # noqa: S102 - the README's own code
    from_python = ns["s"]
    from_file = db.Scenario.from_toml(REPO / "examples" / "dctcp_star.toml")
    assert from_python.to_core() == from_file.to_core()
    assert from_python.name == from_file.name == "dctcp-star"


# ---------------------------------------------------------------- --version, list


def test_version(cli):
    res = cli("--version")
    assert res.code == 0 and res.stdout.strip() == f"dumbbell {db.__version__}"


def test_list_names_what_the_models_accept(cli):
    from dumbbell import bench, experiments

    res = cli("list", "--json")
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    names = {k: [i["name"] for i in v] for k, v in doc.items()}
    assert names["experiments"] == list(experiments.EXPERIMENTS)
    assert set(names["controls"]) == set(sc.CONTROLS)
    assert names["benchmarks"] == list(bench.BENCHMARKS)
    for cc in names["controls"]:
        assert db.TcpFlow(src="a", dst="b", cc=cc).cc.kind == cc
    for kind in names["queues"]:
        need = {"red": {"min_th": 30000, "max_th": 35000, "max_p": 0.1}, "hysteresis": {"upper_pkts": 2, "lower_pkts": 1},
                "step": {"k_pkts": 1}}.get(kind, {})
        assert db.Link(a="a", b="s1", rate_bps="1G", queue_ab={"kind": kind, **need}).queue_ab.kind == kind
    assert {"droptail", "red", "step", "hysteresis"} <= set(names["queues"])
    assert all(i["about"] for k in ("experiments", "controls", "queues", "benchmarks") for i in doc[k])
    text = cli("list")
    assert text.code == 0
    for k, v in names.items():
        for n in v:
            assert n in text.stdout, (k, n)
    assert "seed 00" not in text.stdout.lower() and "seed 00" not in res.stdout.lower()


def test_run_help_points_to_the_scenario_reference(cli):
    res = cli("run", "--help")
    assert res.code == 0 and "docs/scenario.md" in " ".join(res.stdout.split())


def test_the_scenario_reference_names_topology_nodes_and_tcp_defaults():
    text = (REPO / "docs" / "scenario.md").read_text()
    for needle in ("db.star(", "db.dumbbell(", "db.chain(", "`snd1`", "`r1`", "`s1`", "1488 bytes on the wire",
                   "`header_bytes = 52`", "RFC 6928", "s.to_toml()", "completion_ps"):
        assert needle in text, needle
    # The defaults written there are the core's.
    core = db.TcpOptions().to_core()
    assert core == {} or core.get("mss_bytes") in (None, 1448)
    s = db.star(2, "1G", duration_s=1)
    assert [n.name for n in s.nodes] == ["h1", "h2", "s1"]
    d = db.dumbbell(2, 1, "1G", "100M", duration_s=1)
    assert [n.name for n in d.nodes] == ["snd1", "snd2", "rcv1", "r1", "r2"]
    c = db.chain(2, "1G", duration_s=1)
    assert [n.name for n in c.nodes] == ["a", "b", "s1", "s2"]


def test_the_default_packet_is_1488_bytes_on_the_wire():
    # MSS 1448 + 40 bytes of headers: what docs/model.md and the E1 docs say.
    s = db.star(["a", "b"], rate="1G", delay="10us", duration_s=0.05)
    s.add_flow(db.TcpFlow(src="a", dst="b", cc="reno"))
    s.record.queues.append(db.QueueRecord(node="a", peer="s1", dequeue_times=True))
    r = db.run(s)
    sizes = r.dequeues("a", "s1")["size_bytes"]
    assert sizes.max() == 1488
    for doc in ("docs/model.md", "docs/experiments/dctcp-queue.md", "docs/scenario.md"):
        assert "1488" in (REPO / doc).read_text(), doc


# ---------------------------------------------------------------- figures and reading back


@pytest.fixture(scope="module")
def star_run():
    return db.run(two_flow_star(duration_s=0.5), seed=3)


def test_goodput_intervals_integrate_to_the_delivered_bytes(star_run):
    g = star_run.goodput_intervals()
    samples = star_run.flow_samples
    for flow in (0, 1):
        part = g.filter(pl.col("flow") == flow)
        last = samples.filter(pl.col("flow") == flow).sort("time_ps")["delivered_bytes"][-1]
        area = float(((part["end_s"] - part["start_s"]) * part["goodput_mbps"]).sum()) * 1e6 / 8
        assert area == pytest.approx(last, rel=1e-9)
        assert last <= star_run.flows["bytes_delivered"][flow]
    # Two flows sharing 100 Mb/s: once started, their sum is near the link's rate.
    late = g.filter(pl.col("start_s") >= 0.2).group_by("end_s").agg(pl.col("goodput_mbps").sum())
    assert 85 < late["goodput_mbps"].mean() <= 100.0


def test_plot_goodput_draws_those_rates_in_mbps(star_run, tmp_path):
    fig = star_run.plot_goodput(tmp_path / "g.png")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "in-order delivery rate (Mb/s)" and ax.get_xlabel() == "time (s)"
    g = star_run.goodput_intervals()
    lines = ax.get_lines()
    assert [ln.get_label() for ln in lines] == ["a->c", "b->c"]
    for flow, ln in enumerate(lines):
        x, y = ln.get_xdata(), ln.get_ydata()
        # A step line: each interval's rate held over [start, end]; its area
        # is the flow's delivered bytes.
        area_bits = float(np.sum(np.diff(x) * y[:-1])) * 1e6
        last = star_run.flow_samples.filter(pl.col("flow") == flow)["delivered_bytes"].max()
        assert area_bits / 8 == pytest.approx(last, rel=1e-9)
        assert np.allclose(y[:-1], g.filter(pl.col("flow") == flow)["goodput_mbps"].to_numpy())
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_queue_and_cwnd_draw_the_traced_values(star_run):
    fig = star_run.plot_queue("s1", "c")
    (line,) = fig.axes[0].get_lines()
    trace = star_run.queue("s1", "c")
    assert np.array_equal(line.get_ydata(), trace["pkts"].to_numpy())
    assert line.get_ydata().max() > 0 and fig.axes[0].get_ylabel() == "queue (packets)"
    fig = star_run.plot_cwnd()
    lines = fig.axes[0].get_lines()
    assert len(lines) == 2 and fig.axes[0].get_ylabel() == "cwnd (packets)"
    s0 = star_run.flow_samples.filter(pl.col("flow") == 0).sort("time_ps")
    assert np.array_equal(lines[0].get_ydata(), s0["cwnd_pkts"].to_numpy())
    with pytest.raises(ValueError, match="record.queues"):
        star_run.plot_queue("s1", "a")


def test_load_reads_back_what_to_parquet_wrote(star_run, tmp_path):
    out = star_run.to_parquet(tmp_path / "run")
    back = db.Result.load(out)
    assert set(back.tables) == set(star_run.tables)
    for name, df in star_run.tables.items():
        assert back.tables[name].equals(df), name
        assert back.tables[name].schema == df.schema, name
    assert back.config == star_run.config and back.seed == 3
    assert back.scenario.to_core(3) == star_run.scenario.to_core(3)
    with pytest.raises(db.ConfigError, match="config.json"):
        (out / "config.json").unlink()
        db.Result.load(out)


def test_run_plot_writes_figures_beside_the_parquet(cli, tmp_path):
    toml = tmp_path / "star.toml"
    toml.write_text(two_flow_star(duration_s=0.3).to_toml())
    out = tmp_path / "out"
    res = cli("run", str(toml), "--out", str(out), "--plot")
    assert res.code == 0, res.stderr
    for f in ("queue_s1-c.png", "cwnd.png", "rtt.png", "goodput.png", "flows.parquet", "scenario.toml"):
        assert (out / f).is_file(), f
    back = db.Result.load(out)
    assert back.flows["bytes_delivered"].sum() > 0
    res = cli("run", str(toml), "--plot")
    assert res.code == 2 and "--plot" in res.stderr and "--out" in res.stderr


def test_completion_ps_is_the_completion_time_and_end_ps_is_not():
    s = db.star(["a", "b", "c"], rate="100Mbps", delay="50us", duration_s=0.5)
    s.add_flow(db.TcpFlow(name="short", src="a", dst="c", bytes=200_000, start_s=0.01))
    s.add_flow(db.TcpFlow(name="bulk", src="b", dst="c"))
    f = db.run(s).flows
    short, bulk = f.row(0, named=True), f.row(1, named=True)
    assert short["bytes_delivered"] == 200_000
    fct_s = (short["completion_ps"] - short["start_ps"]) / 1e12
    assert 200_000 * 8 / 100e6 < fct_s < 0.2  # at least its bytes' serialization, done well before the end
    assert short["end_ps"] >= short["completion_ps"] > short["start_ps"]
    assert bulk["completion_ps"] == 0 and bulk["end_ps"] == 500_000_000_000
    text = (REPO / "docs" / "output.md").read_text()
    assert "Which is the completion time" in text and "completion_ps −" in text


def test_run_progress_is_quiet_when_stderr_is_not_a_terminal(monkeypatch):
    """Progress lines (simulated time, events/s, time left) are for a
    person at a terminal; a pipe or a log file gets the announcement alone
    (the terminal case: tests/test_cli_robust.py)."""
    from dumbbell import cli as cli_module

    class Pipe:
        text = ""

        def isatty(self):
            return False

        def write(self, s):
            Pipe.text += s

        def flush(self):
            pass

    monkeypatch.setattr(sys, "stderr", Pipe())
    a = cli_module._Announcer("dumbbell: running 'x' ...")
    for i in range(5):
        a(db.Progress("running", i * 10**12, 10 * 10**12, i * 10**7, 1.0 + i))
    a.done()
    assert Pipe.text == "dumbbell: running 'x' ...\n"


def test_the_readme_tour_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(_readme_python_blocks()[0], ns)  # noqa: S102 - the README's own code
    r, r2 = ns["r"], ns["r2"]
    assert set(r2.tables) == set(r.tables) and r2.flows.equals(r.flows)
    assert (tmp_path / "goodput.png").is_file() and (tmp_path / "out" / "my-run" / "scenario.toml").is_file()
    # DCTCP at K = 20 on 100 Mb/s: the link stays busy and the queue near K.
    g = r.goodput_intervals().filter(pl.col("start_s") >= 0.5).group_by("end_s").agg(pl.col("goodput_mbps").sum())
    assert 90 < g["goodput_mbps"].mean() <= 100
