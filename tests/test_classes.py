"""Two-class ports and file-transfer tasks from Python: the scenario model's
checks (each naming its field, before anything runs), the CLI's exit code 2,
TOML round trips, and the ``classification`` and ``tasks`` tables."""

from __future__ import annotations

import polars as pl
import pytest

import dumbbell as db

from .conftest import MINIMAL_TOML, write_toml
from .test_cli import assert_bad_input


def ftp_net(classifier=None, scheduler=None, duration_s: float = 200.0) -> db.Scenario:
    """Client c — router r — server s; r → c at 1 Mb/s with a deep queue."""
    deep = dict(limit_pkts=100_000)
    bottleneck = db.DropTail(**deep, classifier=classifier, scheduler=scheduler)
    return db.Scenario(
        name="ftp", duration_s=duration_s, hosts=["c", "s"], switches=["r"],
        links=[
            db.Link(a="s", b="r", rate_bps="100Mbps", delay_s="50us",
                    queue_ab=db.DropTail(**deep), queue_ba=db.DropTail(**deep)),
            db.Link(a="r", b="c", rate_bps="1Mbps", delay_s="50us", queue_ab=bottleneck),
        ],
    )


@pytest.mark.parametrize(
    ("queue", "field", "words"),
    [
        (dict(classifier={"kind": "rafle", "n": 0}), "classifier.n", ["at least 1"]),
        (dict(classifier={"kind": "run2c", "threshold_bytes": -1}), "classifier.threshold_bytes", ["0"]),
        (dict(classifier="oracle"), "classifier", ["unknown classifier", "rafle"]),
        (dict(classifier="rafle", scheduler="wfq"), "scheduler", ["unknown scheduler", "drr"]),
        (dict(long_queue={"limit_pkts": 10}), "long_queue", ["needs a classifier"]),
        (dict(scheduler="rr"), "scheduler", ["classifier"]),
        (dict(classifier="ideal", long_queue={"classifier": "rafle"}), "long_queue.classifier", ["nest"]),
        (dict(classifier="ideal", scheduler={"kind": "drr", "quantum_short_bytes": 0}),
         "scheduler.quantum_short_bytes", ["1"]),
    ],
)
def test_bad_two_class_ports_name_the_field(queue, field, words):
    with pytest.raises(db.ConfigError) as e:
        db.Link(a="r", b="c", rate_bps="1Mbps", queue_ab=queue)
    assert e.value.field == f"queue_ab.{field}"
    for w in words:
        assert w in e.value.message


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ('classifier = { kind = "rafle", n = 0 }', "links[1].queue_ba.classifier.n"),
        ('classifier = { kind = "run2c", threshold_bytes = -16384 }', "links[1].queue_ba.classifier.threshold_bytes"),
        ('classifier = "oracle"', "links[1].queue_ba.classifier"),
        ('classifier = "rafle"\nscheduler = "fair"', "links[1].queue_ba.scheduler"),
        ('long_queue = { limit_pkts = 10 }', "links[1].queue_ba.long_queue"),
    ],
)
def test_the_cli_exits_2_naming_the_field(cli, tmp_path, table, field):
    text = MINIMAL_TOML.format(rate="100Mbps", cc="reno").replace(
        "[[flows]]", f"[links.queue_ba]\nlimit_pkts = 100\n{table}\n\n[[flows]]"
    )
    assert_bad_input(cli("run", str(write_toml(tmp_path, text))), field)


def test_a_two_class_port_round_trips_through_toml():
    s = ftp_net(classifier=db.Rafle(n=30), scheduler=db.Drr(quantum_short_bytes=3000))
    s.link("r", "c").queue_ab.long_queue = db.Red(limit_pkts=500, min_th=30000, max_th=60000, ecn=True)
    core = s.to_core()
    q = core["links"][1]["queue_ab"]
    assert q["classifier"] == {"kind": "rafle", "n": 30}
    assert q["scheduler"] == {"kind": "drr", "quantum_short_bytes": 3000, "quantum_long_bytes": 1514}
    assert q["long_queue"]["aqm"]["kind"] == "red"
    back = db.Scenario.from_dict(__import__("tomllib").loads(s.to_toml()))
    assert back.to_core() == core
    # A queue without a classifier sends nothing new to the core.
    assert "classifier" not in core["links"][0]["queue_ab"]


def test_bad_workloads_name_the_field():
    s = ftp_net()
    good = dict(clients=["c"], servers=["s"], sizes=db.Files(bytes=[1000]), arrivals=db.AllAtOnce())
    for change, field in [
        (dict(servers=["x"]), "workloads[0].servers[0]"),
        (dict(clients=["r"]), "workloads[0].clients[0]"),
        (dict(servers=["c"]), "workloads[0].servers[0]"),
        (dict(sizes={"kind": "files", "bytes": [10, 0]}), "workloads[0].sizes.bytes[1]"),
        (dict(arrivals={"kind": "closed_loop", "concurrency": 0}), "workloads[0].arrivals.concurrency"),
        (dict(arrivals={"kind": "poisson", "rate_per_s": -1}), "workloads[0].arrivals.rate_per_s"),
        (dict(sizes={"kind": "cdf", "points": [[1, 0], [2, 0.5]]}), "workloads[0].sizes.points"),
        (dict(sizes={"kind": "cdf", "points": [[1, 0], [2, 1]]}), "workloads[0].max_tasks"),
        (dict(control={"request_bytes": 0}), "workloads[0].control.request_bytes"),
    ]:
        data = s.model_dump(mode="python")
        data["workloads"] = [{**good, **change}]
        with pytest.raises(db.ConfigError) as e:
            db.Scenario.model_validate(data)
        assert e.value.field == field, (change, e.value)


def test_ftp_tasks_run_and_report_one_row_each():
    s = ftp_net(classifier="ideal", scheduler="prio")
    files = [1_000, 12_000, 16_384, 16_385, 80_000, 250_000]
    s.add_workload(db.Workload(name="ftp", clients=["c"], servers=["s"], sizes=db.Files(bytes=files),
                               arrivals=db.AllAtOnce(), control=db.Control(), cc="reno"))
    r = db.run(s, seed=1)
    t = r.tables["tasks"]
    assert t["size_bytes"].to_list() == files
    assert t["long"].to_list() == [False, False, False, True, True, True]
    assert (t["completion_ps"] > 0).all() and (t["fct_ps"] == t["completion_ps"] - t["start_ps"]).all()
    c = r.tables["classification"].row(0, named=True)
    assert (c["node"], c["peer"], c["classifier"], c["scheduler"]) == ("r", "c", "ideal", "prio")
    assert c["pa_c"] == 1.0 and c["pa_l"] == 1.0 and c["short_as_long"] == 0 and c["long_as_short"] == 0
    # Under strict priority with the ideal classifier, every short task
    # completes before any long one.
    done = t.sort("completion_ps")
    first_long = done["long"].to_list().index(True)
    assert not any(done["long"].to_list()[:first_long]) and first_long == 3
    assert r.summary["packets_dropped"] == 0


def test_the_shipped_cdfs_load_and_run():
    for name, mean in (("websearch", 1.71e6), ("datamining", 12.7e6)):
        cdf = db.load_cdf(name)
        assert cdf.points[-1][1] == 1.0
        assert abs(cdf.mean_bytes() / mean - 1) < 0.01
    s = ftp_net(duration_s=2.0)
    s.link("r", "c").rate_bps = 1_000_000_000
    s.add_workload(db.Workload(name="web", clients=["c"], servers=["s"], sizes=db.load_cdf("websearch"),
                               arrivals=db.Poisson(rate_per_s=20), stop_s=1.0))
    r = db.run(s, seed=2)
    t = r.tables["tasks"]
    assert 5 <= t.height <= 45
    assert t.filter(pl.col("completion_ps") > 0).height > 0


def test_load_cdf_reports_bad_files(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text("size_bytes,cdf\n10,0.5\n5,1\n")
    with pytest.raises(db.ConfigError) as e:
        db.load_cdf(p)
    assert str(p) in e.value.field and "non-decreasing" in e.value.message
    with pytest.raises(db.ConfigError):
        db.load_cdf(tmp_path / "missing.csv")
