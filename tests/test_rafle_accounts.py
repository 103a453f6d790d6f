"""E4 ``rafle``'s accounts of known differences traced on branch
``rafle-trace``: each condition holds in the state it names and fails
when that state does not hold (no account covers the opposite result)."""

from __future__ import annotations

import polars as pl
import pytest

from dumbbell.experiments import claims
from dumbbell.experiments.rafle import KNOWN
from dumbbell.experiments.rafle.accounts import (monotone_fit, own_scatter, paper_uptick, rafle_rr_spread,
                                                 within_own_scatter)

# The paper's Table 1 PA_l column (N -> value) and ours under strict
# priority at paper scale (main 415d751, seed 1).
PAPER_PA_L = {10: 0.140, 30: 0.096, 40: 0.139, 50: 0.094, 60: 0.079, 100: 0.087}
OURS_PA_L = {10: 0.1198, 30: 0.0909, 40: 0.0818, 50: 0.0750, 60: 0.0695, 100: 0.0544}


def _table1(ours: dict[int, float], metric: str = "pa_l", paper: dict[int, float] = PAPER_PA_L) -> list[dict]:
    return [{"part": "memory", "classifier": "rafle", "scheduler": "prio", "n": n, "bin_kb": None, "metric": metric,
             "value": paper[n], "ours": ours[n]} for n in sorted(paper)]


def _row(rows: list[dict], n: int) -> dict:
    return {**next(r for r in rows if r["n"] == n), "_rows": rows}


def _bin(dt: float, prio: float, rr: float, paper: float = 127.435) -> list[dict]:
    """Table 2's σ of the 200-300 KB bin under three routers."""
    return [{"part": "simultaneous", "classifier": c, "scheduler": s, "bin_kb": "200-300", "metric": "fct_std_s",
             "value": v, "ours": o} for c, s, v, o in (("droptail", "fifo", 126.085, dt), ("rafle", "prio", 154.693, prio),
                                                        ("rafle", "rr", paper, rr))]


def test_rafle_rrs_spread_needs_ours_above_the_paper_and_both_other_routers():
    traced = _bin(dt=98.0, prio=50.3, rr=209.7)
    assert rafle_rr_spread({**traced[2], "_rows": traced})
    below = _bin(dt=98.0, prio=50.3, rr=110.0)               # below the paper's 127.4
    assert not rafle_rr_spread({**below[2], "_rows": below})
    fifo = _bin(dt=230.0, prio=50.3, rr=209.7)               # the FIFO spreads as much
    assert not rafle_rr_spread({**fifo[2], "_rows": fifo})
    prio = _bin(dt=98.0, prio=215.0, rr=209.7)               # RAFLE under priority as much
    assert not rafle_rr_spread({**prio[2], "_rows": prio})
    missing = _bin(dt=98.0, prio=50.3, rr=209.7)[1:]          # no drop-tail row to compare
    assert not rafle_rr_spread({**missing[1], "_rows": missing})


def test_monotone_fit_pools_adjacent_violators():
    assert monotone_fit([0.140, 0.096, 0.139, 0.094, 0.079, 0.087], increasing=False) == pytest.approx(
        [0.140, 0.1175, 0.1175, 0.094, 0.083, 0.083])
    assert monotone_fit([1.0, 2.0, 3.0], increasing=True) == [1.0, 2.0, 3.0]
    assert monotone_fit([3.0, 1.0], increasing=True) == [2.0, 2.0]


def test_table1s_own_scatter_is_its_departure_from_a_monotone_trend():
    rows = _table1(OURS_PA_L)
    # The paper's PA_l departs from its falling trend by 0.0215 at most (N =
    # 30 and 40), far less than its range over N (0.061) that the earlier
    # account tripled.
    assert own_scatter(_row(rows, 10)) == pytest.approx(0.0215)
    assert within_own_scatter(_row(rows, 10))          # 0.1198 against 0.140: 0.020
    assert within_own_scatter(_row(rows, 60))
    assert not within_own_scatter(_row(rows, 40))      # 0.082 against 0.139
    assert not within_own_scatter(_row(rows, 100))     # 0.054 against 0.087
    # PA_c's column rises monotonically: no scatter, so only equality holds.
    pa_c = {10: 0.937, 30: 0.976, 40: 0.979, 50: 0.983, 60: 0.986, 100: 0.989}
    c_rows = _table1({n: v - 0.01 for n, v in pa_c.items()}, "pa_c", pa_c)
    assert own_scatter(_row(c_rows, 40)) == 0.0
    assert not within_own_scatter(_row(c_rows, 40))


def test_the_papers_uptick_holds_only_where_ours_falls_below_it():
    rows = _table1(OURS_PA_L)
    assert paper_uptick(_row(rows, 40)) and paper_uptick(_row(rows, 100))
    assert not paper_uptick(_row(rows, 30))            # the paper falls from N = 10 to 30
    assert not paper_uptick(_row(rows, 10))            # no smaller N
    rising = _table1({**OURS_PA_L, 40: 0.095})         # ours rises from N = 30 to 40
    assert not paper_uptick(_row(rising, 40))
    above = _table1({**OURS_PA_L, 30: 0.2, 40: 0.15})  # ours above the paper's
    assert not paper_uptick(_row(above, 40))


def _judged(rows: list[dict]) -> pl.DataFrame:
    cols = {"relation": "=", "ours_ci95": None, "not_run": None, "basis": None, "sensitivity": None,
            "sensitivity_lo": None, "sensitivity_hi": None, "paper_se": None, "ours_se": None,
            "ours_loo_lo": None, "ours_loo_hi": None, "n": None}
    return claims.judge("rafle", "paper", pl.DataFrame([cols | r for r in rows]), known=KNOWN)


def test_the_traced_bin_is_a_model_difference_and_its_opposite_is_not_covered():
    got = _judged(_bin(dt=98.0, prio=50.3, rr=209.7)).filter(pl.col("classifier") == "rafle")
    rr = got.filter(pl.col("scheduler") == "rr").row(0, named=True)
    assert (rr["verdict"], rr["cause"]) == ("differs", "model")
    assert rr["doc"].endswith("#rafle-rrs-spread-above-the-first-bin")
    # The same σ with our drop-tail spreading as much: not this account, and
    # no other covers a σ above the paper's.
    fifo = _judged(_bin(dt=230.0, prio=50.3, rr=209.7)).filter(pl.col("scheduler") == "rr").row(0, named=True)
    assert fifo["cause"] == "ours" and "not yet traced" in fifo["reason"]


def test_an_upper_bins_mean_needs_the_paper_inside_the_buffer_range():
    acc = next(k for k in KNOWN if k.condition.startswith("the paper's value within the range") and
               k.covers({"part": "simultaneous", "metric": "fct_mean_s", "bin_kb": "100-200"}, "paper"))
    assert acc.holds({"value": 242.2, "sensitivity_lo": 205.5, "sensitivity_hi": 710.3})
    assert not acc.holds({"value": 242.2, "sensitivity_lo": 250.0, "sensitivity_hi": 710.3})
    assert not acc.holds({"value": 242.2, "sensitivity_lo": None, "sensitivity_hi": None})
    # "Within 20 %" is gone: no account holds by closeness alone.
    assert not any(k.condition == "ours within 20 % of the paper's" for k in KNOWN)


def test_the_sigma_below_account_claims_no_untraced_number():
    acc = next(k for k in KNOWN if k.condition == "our σ below the paper's")
    assert acc.holds({"ours": 98.0, "value": 126.1}) and not acc.holds({"ours": 209.7, "value": 127.4})
    assert "1 %" not in acc.reason


def test_the_era_text_joins_the_buffer_text_and_keeps_its_range():
    from dumbbell.experiments.rafle.era import add_era_sensitivity

    era = pl.DataFrame([{"part": "era", "setting": s, "classifier": "rafle", "scheduler": "rr", "bin_kb": b,
                         "fct_std_s": v, "pa_c": None, "pa_l": None, "fct_mean_s": None, "gain": None,
                         "gain_std": None, "fig5_peak": None}
                        for s, b, v in (("linux-6.12", "200-300", 85.8), ("linux-3.2 + RACK", "200-300", 79.1),
                                        ("linux-6.12", "all", None))])
    claim = {"part": "simultaneous", "classifier": "rafle", "scheduler": "rr", "n": 40, "bin_kb": "200-300",
             "metric": "fct_std_s", "ours": 209.7, "sensitivity": "router buffer (part buffer): 250 pkts 120",
             "sensitivity_lo": 120.0, "sensitivity_hi": 209.7}
    other = {**claim, "bin_kb": "300-400", "sensitivity": None}
    table1 = {"part": "memory", "classifier": "rafle", "scheduler": "rr", "n": 10, "bin_kb": None, "metric": "pa_l",
              "ours": 0.2, "sensitivity": "x"}
    add_era_sensitivity(era, [claim, other, table1])
    assert claim["sensitivity"] == ("router buffer (part buffer): 250 pkts 120; the hosts' kernel era (part era): "
                                    "linux-3.2 (ours) 209.7, linux-6.12 85.8, linux-3.2 + RACK 79.1")
    assert (claim["sensitivity_lo"], claim["sensitivity_hi"]) == (120.0, 209.7)
    # No era run of that bin, and no era run at that N: nothing added.
    assert other["sensitivity"] is None and table1["sensitivity"] == "x"
