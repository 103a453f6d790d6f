"""The order a sweep hands its runs to the workers (dumbbell.sweep.cost, issue 29):
longest first by a guess from the document, with every record, table and
stored file the same as in the order the runs were asked for."""

from __future__ import annotations

import hashlib
from pathlib import Path

from dumbbell.sweep import RunSpec, execute, simulator_version, using
from dumbbell.sweep.cost import estimate, order
from dumbbell.sweep.executors import _LocalPool

from .conftest import two_flow_star


class _Recording(_LocalPool):
    """One thread, so runs finish in the order they are handed out; keeps that order
    (each run by its duration, which tells the specs below apart)."""

    def __init__(self, asked: list[int] | None = None) -> None:
        super().__init__(1)
        self.handed: list[int] = []
        self.asked = asked

    def run(self, configs):
        configs = list(configs)
        if self.asked is not None:  # the order a sweep used before issue 29: the specs' own
            configs.sort(key=lambda c: self.asked.index(c[1]["duration_ps"]))
        self.handed = [c[1]["duration_ps"] for c in configs]
        return super().run(configs)


def _specs() -> list[RunSpec]:
    version = simulator_version()
    # shortest first in the asked order, and one run asked twice
    durations = [0.1, 0.3, 0.2, 0.3]
    return [RunSpec.of(two_flow_star(duration_s=d), 7, {"experiment": "order", "point": [d], "rep": 0}, version)
            for d in durations]


def _files(store: Path) -> dict[str, str]:
    return {str(p.relative_to(store)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((store / "runs").rglob("*")) if p.is_file() and p.name != "timing.json"}


def test_the_estimate_grows_with_the_bottleneck_rate_and_the_run_length():
    short, long = two_flow_star(duration_s=0.1).to_core(1), two_flow_star(duration_s=0.3).to_core(1)
    assert estimate(long) == 3 * estimate(short) > 0
    slow = dict(long, links=[{**link, "rate_bps": link["rate_bps"] // 10} for link in long["links"]])
    assert estimate(slow) == estimate(long) / 10
    assert estimate(None) == 0.0
    # ties keep their order; the costliest first
    assert order([short, long, short, long]) == [1, 3, 0, 2]


def test_runs_go_out_longest_first_and_every_result_is_what_the_asked_order_gives(tmp_path):
    specs = _specs()
    d = [s.config["duration_ps"] for s in specs]
    results = {}
    for name, asked in (("longest-first", None), ("asked-order", d)):
        with using(store=tmp_path / name) as ctx:
            pool = ctx._pool = _Recording(asked)
            records = execute(specs, label="order")
        # the run asked twice is computed once; records come back in the specs' order
        assert ctx.stats[-1].computed == 3 and ctx.stats[-1].cached == 1
        assert [r.run_id for r in records] == [s.run_id for s in specs]
        assert all(r.ok for r in records)
        results[name] = (pool.handed, [r.table("flows") for r in records], _files(tmp_path / name))
    handed, flows, files = results["longest-first"]
    assert handed == [d[1], d[2], d[0]] and d[1] > d[2] > d[0]
    assert results["asked-order"][0] == [d[0], d[1], d[2]]
    assert all(a.equals(b) for a, b in zip(flows, results["asked-order"][1], strict=True))
    assert files == results["asked-order"][2] and len(files) > 3
