"""The scenario fuzzer that stays (issue: robustness): Hypothesis mutates
seed scenarios and every case must be refused cleanly, naming its field, or
run to its end or be stopped — never a traceback, a panic, an abort or a
hang. Every case that ever broke the rule is replayed from
``tests/fuzz_cases.jsonl``.

Budget: ``DUMBBELL_FUZZ_EXAMPLES`` cases (default 300, about 20 s
in CI); ``make fuzz`` runs 5 000 and keeps what it finds (see
``tests/helpers/fuzzing.py``). The core's own fuzzer is
``crates/dumbbell-core/tests/fuzz.rs``.
"""

from __future__ import annotations

import copy
import os
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dumbbell as db

from .helpers import fuzzing

fuzzing.adopt_leftover()

EXAMPLES = int(os.environ.get("DUMBBELL_FUZZ_EXAMPLES", "300"))
SEEDS = fuzzing.seeds()
CENSUS: Counter[str] = Counter()

mutations = st.lists(
    st.tuples(st.integers(0, 2**16), st.integers(0, 4), st.integers(0, len(fuzzing.NASTY) - 1)),
    min_size=1,
    max_size=4,
)


def test_every_seed_runs():
    """The seeds themselves are valid and run: mutations start from sense."""
    for doc in SEEDS:
        assert fuzzing.outcome(copy.deepcopy(doc)) in ("finished", "stopped"), doc["name"]


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
@given(seed=st.integers(0, len(SEEDS) - 1), muts=mutations)
def test_mutated_scenarios_are_refused_cleanly_or_run(seed, muts):
    doc = copy.deepcopy(SEEDS[seed])
    for pick, op, value in muts:
        fuzzing.mutate(doc, pick, op, value)
    CENSUS[fuzzing.checked(doc)] += 1


def test_census_of_this_session(capsys):
    """Prints what the fuzzer saw (``pytest -s``); also checks it saw both
    refusals and runs, so the mutations reach past validation."""
    if not CENSUS:
        pytest.skip("the fuzz test did not run in this session (selected out)")
    with capsys.disabled():
        print(f"\nscenario fuzzer: {sum(CENSUS.values())} cases: {dict(sorted(CENSUS.items()))}")
    assert CENSUS["refused"] > 0
    assert CENSUS["finished"] + CENSUS["stopped"] > 0


@pytest.mark.parametrize("case", fuzzing.load_cases(), ids=lambda c: c["why"][:60])
def test_every_case_ever_found_is_refused_cleanly_or_runs(case):
    """Each case names what it must do: be refused naming a field, run, or
    (for cases the fuzzer saved) just satisfy the rule."""
    doc = case["scenario"]
    expect = case["expect"]
    if expect.startswith("refused "):
        with pytest.raises(db.ConfigError) as info:
            s = db.Scenario.from_dict(copy.deepcopy(doc))
            db.run(s, timeout_s=fuzzing.RUN_BUDGET_S)
        fuzzing._clean(info.value)
        assert info.value.field == expect.removeprefix("refused "), str(info.value)
    else:
        got = fuzzing.outcome(copy.deepcopy(doc))
        if expect == "runs":
            assert got in ("finished", "stopped"), got
