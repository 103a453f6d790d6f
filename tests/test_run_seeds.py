"""Per-run seeds (issue "nothing misleading left behind"): every experiment
and every sweep repetition derives its runs' seeds with
:func:`dumbbell.sweep.round_seed` over the full 64 bits of the seed, so two
seeds that agree in their low 40 bits (0 and 2^40, which the old
``seed mod 2^40`` derivation confused) give different runs and tables; and
a scenario saved by ``run --out`` reruns to byte-identical tables."""

from __future__ import annotations

import hashlib

import polars as pl
import pytest

import dumbbell as db
from dumbbell.experiments import highspeed, lossy_cc, rafle
from dumbbell.sweep import round_seed

from .conftest import MINIMAL_TOML, two_flow_star, write_toml

LOW, HIGH = 0, 2**40  # equal modulo 2^40


@pytest.mark.parametrize(
    "jobs_of",
    [
        lambda s: highspeed._jobs("quick", s, highspeed.PARTS),
        lambda s: lossy_cc._jobs("quick", s, lossy_cc.PARTS, None),
        lambda s: rafle._jobs("quick", s, rafle.PARTS),
    ],
    ids=["highspeed", "lossy-cc", "rafle"],
)
def test_experiments_derive_unrelated_seeds_from_0_and_2_40(jobs_of):
    low = [j.seed for j in jobs_of(LOW)]
    high = [j.seed for j in jobs_of(HIGH)]
    assert len(low) == len(high) > 0
    assert not set(low) & set(high), "seeds 0 and 2^40 share run seeds"
    # Both are the same derivation, applied to the full seed.
    assert len(set(low)) == len(set(high))


def test_highspeed_runs_of_seeds_0_and_2_40_differ():
    """The same E5 point (80 ms, loss 1e-3 or the first lossy one, TCP)
    with the seeds derived from 0 and from 2^40: the random losses fall
    differently, so the flows' tables differ (shortened to 3 s to stay
    cheap; the random stream does not depend on the duration)."""
    def lossy_job(seed):
        for job in highspeed._jobs("quick", seed, ("single",)):
            _, cc, (lat, loss, cap), r = job.key
            if loss > 0 and lat > 0 and cc == "reno" and r == 0:
                return job
        raise AssertionError("E5 quick has no lossy single-flow point")

    a, b = lossy_job(LOW), lossy_job(HIGH)
    assert a.key == b.key and a.seed != b.seed
    short = a.scenario.model_copy(update={"duration_s": 3.0})
    ra, rb = db.run(short, seed=a.seed), db.run(short, seed=b.seed)
    fa, fb = ra.flows, rb.flows
    assert fa["retransmits"][0] > 0 and fb["retransmits"][0] > 0  # the losses happened in both
    assert (fa["bytes_delivered"][0], fa["retransmits"][0]) != (fb["bytes_delivered"][0], fb["retransmits"][0])


def test_sweep_repetitions_of_seeds_0_and_2_40_differ():
    s = two_flow_star(duration_s=0.3, loss=0.02)
    lo = db.sweep(s, repeats=2, seed=LOW, store=False)
    hi = db.sweep(s, repeats=2, seed=HIGH, store=False)
    assert [r.seed for r in lo.records] == [LOW, round_seed(LOW, 1)]
    assert [r.seed for r in hi.records] == [HIGH, round_seed(HIGH, 1)]
    for a, b in zip(lo.records, hi.records):
        assert a.seed != b.seed
        fa, fb = a.table("flows"), b.table("flows")
        assert fa["bytes_delivered"].to_list() != fb["bytes_delivered"].to_list()


def _digests(d) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.iterdir())
            if p.suffix in (".parquet", ".json")}


def test_a_saved_scenario_reruns_to_byte_identical_tables(cli, tmp_path):
    """`run X --seed 3 --out D` saves the seed it used (3, not the file's 1)
    in D/scenario.toml; running that file again gives the same bytes in
    every table and in config.json."""
    # Random loss on s1 -> b, so the seed decides what happens.
    text = MINIMAL_TOML.format(rate="100Mbps", cc="cubic").replace("[[flows]]", "loss_ba = 0.01\n\n[[flows]]", 1)
    path = write_toml(tmp_path, text)
    assert db.Scenario.from_toml(path).seed == 1
    d, d2, d4 = tmp_path / "D", tmp_path / "D2", tmp_path / "D4"
    assert cli("run", str(path), "--seed", "3", "--out", str(d)).code == 0
    assert db.Scenario.from_toml(d / "scenario.toml").seed == 3
    res = cli("run", str(d / "scenario.toml"), "--out", str(d2))
    assert res.code == 0, res.stderr
    assert "seed 3" in res.stderr
    first, again = _digests(d), _digests(d2)
    assert "flows.parquet" in first and "config.json" in first
    assert first == again
    # And the seed matters: another seed gives other bytes somewhere.
    assert cli("run", str(path), "--seed", "4", "--out", str(d4)).code == 0
    other = _digests(d4)
    assert other["config.json"] != first["config.json"] and other["flows.parquet"] != first["flows.parquet"]
    assert pl.read_parquet(d / "flows.parquet")["retransmits"][0] > 0
