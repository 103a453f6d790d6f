"""The verdict rule on claims (dumbbell.claims), on made-up paper tables:
each row gets agrees / differs / not measurable / not run at this scale,
a difference carries the reason and doc section of its account, and one
that no account covers fails the experiments' claim checks
(tests/claims_check.py, run by tests/test_e1.py ... test_e5.py on every
experiment's real output)."""

from __future__ import annotations

import polars as pl
import pytest

from dumbbell import claims
from dumbbell.claims import Known, anchors, count_line, interval, judge

from .claims_check import check_claims
from .conftest import REPO


def _paper(rows):
    return pl.DataFrame(rows, schema={"metric": pl.String, "relation": pl.String, "value": pl.Float64,
                                      "ours": pl.Float64, "ours_ci": pl.Float64})


KNOWN = [Known({"metric": "b"}, reason="b is measured differently", doc="docs/experiments/e1.md#link-fidelity-at-1-gbs"),
         Known({"metric": "hw"}, verdict="not measurable", reason="no hardware",
               doc="docs/experiments/e1.md#mininet-hifi-against-hardware")]


def test_verdicts_and_count():
    p = judge("x", "quick", _paper([
        {"metric": "a", "relation": "=", "value": 10.0, "ours": 10.3, "ours_ci": None},   # within 5 %
        {"metric": "b", "relation": "~", "value": 10.0, "ours": 13.0, "ours_ci": None},   # 30 % off, explained
        {"metric": "c", "relation": ">", "value": 1.0, "ours": 0.5, "ours_ci": None},     # no account
        {"metric": "hw", "relation": "<=", "value": 2.0, "ours": None, "ours_ci": None},
        {"metric": "d", "relation": "=", "value": 5.0, "ours": None, "ours_ci": None},
    ]), known=KNOWN)
    assert p["verdict"].to_list() == ["agrees", "differs", "differs", "not measurable", "not run at this scale"]
    assert p["reason"].to_list()[1:4] == ["b is measured differently", claims.NOT_TRACED, "no hardware"]
    assert p["doc"][2] == ""
    line = count_line(p)
    assert line.startswith("Claims: 1 agrees, 2 differ (explained in docs/experiments/e1.md#link-fidelity-at-1-gbs)")
    assert "1 not measurable, 1 not run at this scale" in line
    # A difference no account covers is a failure of the claim checks.
    with pytest.raises(AssertionError, match="without an account"):
        check_claims(p.to_dicts())


def test_intervals_from_two_samples_do_not_make_agreement():
    row = {"metric": "a", "relation": "=", "value": 10.0, "ours": 11.5, "ours_ci": 1.8}
    assert judge("x", "paper", _paper([row]), known=[], samples=10)["verdict"][0] == "agrees"  # intervals overlap
    assert judge("x", "quick", _paper([row]), known=[], samples=2)["verdict"][0] == "differs"  # a point


def test_interval_printing():
    assert interval(100.0, 4.0, 10, 0.95) == "100.0±4.0"
    # Two samples 90 and 110: the 95 % half-width is t(0.975, 1)·|x1 − x2|/2.
    half = 12.706204736174698 * 10.0
    assert interval(100.0, half, 2, 0.95) == "100.0 [90.0..110.0]"
    assert interval(5.0, float("nan"), 1, 0.95) == "5.0 (1 sample)"


def test_every_account_points_to_an_existing_section():
    for name, accounts in claims.KNOWN.items():
        for k in accounts:
            path, _, anchor = k.doc.partition("#")
            assert anchor in anchors((REPO / path).read_text()), (name, k.doc)


def test_anchors_are_githubs():
    text = "# E1\n## Link fidelity at 1 Gb/s\n```\n# not a heading\n```\n### RAFLE's accuracy (Table 1)\n"
    assert anchors(text) == {"e1", "link-fidelity-at-1-gbs", "rafles-accuracy-table-1"}
