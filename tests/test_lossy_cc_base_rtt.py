"""``lossy-cc``'s ``base-rtt`` part asks for exactly the cells its claims read.

The part reruns cells of the ``loss`` part at other base round trips for
the ``sensitivity`` of C5 (worst proposal / best of Cubic, Reno, Vegas) and
C7 (Linear / BBR). At paper scale a cell is ten rounds of 100 s at 10 Gb/s,
and BBR at 5 and 10 % loss, which neither claim reads, carried about half
the part's packets (issue 29). These tests build the part's runs without
running them, and find which cells the claims read by moving one cell of
synthetic rows at a time through the experiment's own claim computation.
"""

from __future__ import annotations

from collections import defaultdict

import polars as pl
import pytest

from dumbbell.experiments.lossy_cc import base_rtt
from dumbbell.experiments.lossy_cc import experiment as e3

Cell = tuple[str, float, float]
"""(control, base RTT in ms, loss)."""


def _rows(scale: str, goodput: dict[Cell, float]) -> pl.DataFrame:
    """The part's rows as the experiment writes them, one per cell."""
    schema = e3._rows(scale, []).schema
    rate = int(e3.POINTS[scale][base_rtt.PART]["rate_bps"])
    rows = [{"part": base_rtt.PART, "cc": cc, "rate_bps": rate, "loss": loss, "base_rtt_ms": b, "goodput_bps": v,
             "rounds": e3.POINTS[scale]["rounds"], "impl": "port"} for (cc, b, loss), v in goodput.items()]
    return pl.DataFrame([{c: r.get(c) for c in schema} for r in rows], schema=schema)


def _cells_read(scale: str) -> set[Cell]:
    """The cells of the whole grid (every final control, base RTT and loss of
    the scale) whose goodput moves a claim's sensitivity (its text or range)
    when it alone is multiplied or divided by 1000."""
    p = e3.POINTS[scale][base_rtt.PART]
    grid = [(cc, b, loss) for b in p["base_rtts_ms"] for loss in p["losses"] for cc in e3.FINAL]
    # Distinct, arbitrary goodputs: no ties that a min or a max would hide.
    base = {c: 1e6 * (1 + (7919 * k) % 101) for k, c in enumerate(grid)}
    claims = e3._paper_frame(_rows(scale, {}))
    memo: dict[tuple, pl.DataFrame] = {}

    def paper_frame(rows: pl.DataFrame) -> pl.DataFrame:
        # attach computes one frame per base RTT; one cell moves one of them.
        key = tuple(rows.select("cc", "loss", "goodput_bps").iter_rows())
        if key not in memo:
            memo[key] = e3._paper_frame(rows)
        return memo[key]

    def sensitivity(goodput: dict[Cell, float]) -> list[tuple]:
        f = base_rtt.attach(claims, _rows(scale, goodput), paper_frame)
        return list(f.select("sensitivity", "sensitivity_lo", "sensitivity_hi").iter_rows())

    ref = sensitivity(base)
    # Every claim the part moves, at each loss the scale runs, has one.
    moved = [r["metric"] in base_rtt.KEY_METRICS and float(r["point"].removeprefix("loss=")) in p["losses"]
             if r["part"] == "loss" and r["point"].startswith("loss=") else False
             for r in claims.iter_rows(named=True)]
    assert [s is not None for s, _, _ in ref] == moved and any(moved)
    read = set()
    for c in grid:
        if any(sensitivity({**base, c: base[c] * f}) != ref for f in (1e3, 1e-3)):
            read.add(c)
    return read


def _part_jobs(scale: str) -> dict[Cell, list[e3.Job]]:
    jobs: dict[Cell, list[e3.Job]] = defaultdict(list)
    for j in e3._jobs(scale, 1, (base_rtt.PART,), None):
        part, cc, (b, loss), _ = j.key
        assert part == base_rtt.PART
        jobs[(cc, b, loss)].append(j)
    return jobs


@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_the_part_asks_for_exactly_the_cells_its_claims_read(scale):
    jobs = _part_jobs(scale)
    assert set(jobs) == _cells_read(scale)
    assert all(len(js) == e3.POINTS[scale]["rounds"] for js in jobs.values())
    p = e3.POINTS[scale][base_rtt.PART]
    for b in p["base_rtts_ms"]:
        # C7 (Linear / BBR) reads BBR at 20 % only; C5 reads every other control at each loss.
        assert {loss for cc, bb, loss in jobs if cc == "bbr" and bb == b} == {x for x in p["losses"] if x == 0.20}
        for loss in p["losses"]:
            assert {cc for cc, bb, x in jobs if bb == b and x == loss} >= set(e3.FINAL) - {"bbr"}


def test_the_part_keeps_the_loss_parts_seeds_and_no_two_cells_share_a_run():
    """Each cell's rounds have the ``loss`` part's seeds at that loss, and
    the runs at paper scale are all distinct (none dropped as a repeat)."""
    from dumbbell.sweep import RunSpec

    loss_seeds = {(j.key[1], j.key[2], j.key[3]): j.seed for j in e3._jobs("paper", 1, ("loss",), None)}
    jobs = _part_jobs("paper")
    for (cc, _, loss), js in jobs.items():
        assert [j.seed for j in js] == [loss_seeds[(cc, loss, r)] for r in range(len(js))]
    ids = {RunSpec.of(j.scenario, j.seed, {}, "v").run_id for js in jobs.values() for j in js}
    assert len(ids) == sum(len(js) for js in jobs.values())
