"""E4 ``rafle``'s closed loop (Table 4) without running it: the measures
its accounts read (tasks transferring, the FTP dialogue, the files the
slots hold) from a tasks table whose answer is known, and each account
holding only in the state it names; a Table 4 row whose mechanism is gone
is untraced (cause ``ours``), not covered by construction."""

from __future__ import annotations

import polars as pl
import pytest

from dumbbell.experiments.claims import judge
from dumbbell.experiments.rafle.closed_loop import SENSITIVITY_PART, loop_arms, loop_sensitivity, mechanism
from dumbbell.experiments.rafle.closed_loop_accounts import (
    RETX_FACTOR,
    dialogue_keeps_tasks_out,
    inside_our_interval,
    reordering_retransmits,
)

PS = 10**12


def test_mechanism_counts_transfers_dialogues_and_held_files():
    # Window [100, 200] s. Task a: starts at 0, data from 50 s, done at
    # 150 s (transferring half the window). Task b: starts at 120 s, data
    # from 130 s (a 10 s dialogue), never done (transferring 130-200 s).
    # Task c: starts at 110 s, still in its dialogue at the end.
    t = pl.DataFrame({
        "start_ps": [0, 120 * PS, 110 * PS], "data_start_ps": [50 * PS, 130 * PS, -1],
        "done_s": [150.0, None, None], "size_bytes": [1_000_000, 3_000_000, 500_000], "retransmits": [4, 6, 0],
    })
    m = mechanism(t, (100.0, 200.0))
    # a over [100, 150) and b over [130, 200): 0.5 + 0.7 tasks on average.
    assert m["in_transfer"] == pytest.approx(1.2, abs=0.02)
    assert m["dialogue_s"] == pytest.approx(10.0)  # b only: c has not opened its data connection
    assert m["inventory_w0_mb"] == pytest.approx(1.0)  # a alone at 100 s
    assert m["inventory_w1_mb"] == pytest.approx(3.5)  # b and c at the end; a done
    assert m["retransmits"] == 10


def test_the_sensitivity_arms_are_the_settings_the_paper_leaves_open():
    arms = loop_arms(1000, "linux-3.2")
    assert [a[0] for a in arms] == ["router 250 pkts", "router 500 pkts", "router 2000 pkts", "router lossless",
                                    "era linux-6.12"]
    assert all(era == "linux-3.2" for _, buf, era in arms[:-1]) and arms[-1][1:] == (1000, "linux-6.12")
    # The experiment's own buffer is never an arm (the closed-loop part is that run).
    assert all(buf != 1000 for _, buf, _ in arms[:-1])


def test_loop_sensitivity_lists_every_setting_and_spans_ours():
    rows = pl.DataFrame([
        {"part": SENSITIVITY_PART, "classifier": "ideal", "scheduler": "rr", "bin_kb": "0-100", "setting": s, "gain": g}
        for s, g in (("router 250 pkts", -0.37), ("router lossless", -0.11), ("era linux-6.12", -0.32))
    ] + [{"part": SENSITIVITY_PART, "classifier": "ideal", "scheduler": "prio", "bin_kb": "0-100",
          "setting": "router 250 pkts", "gain": 0.5}])
    claim = {"part": "closed-loop", "classifier": "ideal", "scheduler": "rr", "bin_kb": "0-100", "metric": "gain",
             "ours": -0.28}
    text, lo, hi = loop_sensitivity(rows, claim, 1000)
    assert text.startswith(f"Table 4's settings (part {SENSITIVITY_PART}): router 1000 pkts (the part's) -0.28")
    assert "router lossless -0.11" in text and "era linux-6.12 -0.32" in text and "0.5" not in text
    assert (lo, hi) == (-0.37, -0.11)
    assert loop_sensitivity(rows, {**claim, "part": "simultaneous"}, 1000) == (None, None, None)


def _claim(**kw):
    base = {"part": "closed-loop", "classifier": "run2c", "scheduler": "prio", "n": None, "bin_kb": "0-100",
            "metric": "gain", "relation": "=", "value": 0.0557, "ours": -0.33, "ours_ci95": 0.17,
            "ours_in_transfer": 300.0, "dt_in_transfer": 271.5, "ours_dialogue_s": 0.07, "dt_dialogue_s": 94.2,
            "ours_inventory_mb": 758.0, "dt_inventory_mb": 671.0, "ours_retransmits": 73504,
            "dt_retransmits": 67991, "ours_retx_pct": 22.0, "dt_retx_pct": 20.0,
            "sensitivity": None, "sensitivity_lo": None, "sensitivity_hi": None, "not_run": None}
    return base | kw


def test_the_dialogue_account_holds_only_where_drop_tail_keeps_tasks_out():
    assert dialogue_keeps_tasks_out(_claim())
    # Drop-tail transferring as many tasks as the router: the mechanism is gone.
    assert not dialogue_keeps_tasks_out(_claim(dt_in_transfer=300.0))
    # The router's slots holding no more file data than drop-tail's.
    assert not dialogue_keeps_tasks_out(_claim(ours_inventory_mb=600.0))
    # A gain above the paper's is not what it explains.
    assert not dialogue_keeps_tasks_out(_claim(ours=0.2))
    assert not dialogue_keeps_tasks_out(_claim(dt_in_transfer=None))


def test_the_reordering_account_needs_the_retransmissions():
    rr = _claim(classifier="rafle", scheduler="rr", value=0.1415, ours=-0.3)
    assert not reordering_retransmits(rr)  # 1.08 times drop-tail's
    assert reordering_retransmits(rr | {"ours_retransmits": RETX_FACTOR * 67991.0})
    assert not reordering_retransmits(rr | {"ours_retransmits": 3e5, "ours": 0.2})


def test_inside_our_interval():
    assert inside_our_interval(_claim(ours=0.043, value=0.1415, ours_ci95=0.118))
    assert not inside_our_interval(_claim(ours=0.043, value=0.1415, ours_ci95=0.05))
    assert not inside_our_interval(_claim(ours_ci95=None))


def _judged(**kw):
    return judge("rafle", "paper", pl.DataFrame([_claim(**kw)], infer_schema_length=None)).row(0, named=True)


def test_a_table4_row_without_its_mechanism_is_untraced():
    got = _judged()
    assert (got["verdict"], got["cause"]) == ("differs", "model"), got
    # The reason gives this run's numbers, not a canned sentence.
    assert "94.2 s" in got["reason"] and "271.5 of the 300" in got["reason"] and "758 MB" in got["reason"]
    # The same row with drop-tail transferring as many tasks, a narrow
    # interval and no sensitivity range across the paper's value: no
    # account holds.
    gone = _judged(dt_in_transfer=300.0, ours_ci95=0.05, sensitivity_lo=-0.4, sensitivity_hi=-0.2)
    assert (gone["verdict"], gone["cause"]) == ("differs", "ours"), gone
    # A sensitivity range across the paper's value is the router's buffer or the hosts' era.
    across = _judged(dt_in_transfer=300.0, ours_ci95=0.05, sensitivity_lo=-0.4, sensitivity_hi=0.1)
    assert (across["verdict"], across["cause"]) == ("differs", "testbed"), across
    assert "from -0.4 to 0.1" in across["reason"]


def test_rafle_rr_without_retransmissions_falls_to_the_next_account():
    rr = dict(classifier="rafle", scheduler="rr", n=40, value=0.1415, ours=0.043, ours_ci95=0.118,
              ours_in_transfer=267.5, ours_retransmits=70410)
    got = _judged(**rr)
    # Its retransmissions are drop-tail's and fewer of its tasks transfer:
    # only the interval account holds.
    assert (got["verdict"], got["cause"]) == ("differs", "testbed") and "95 % interval" in got["reason"], got
    many = _judged(**(rr | {"ours_retransmits": 152702, "ours_retx_pct": 46.0}))
    assert many["cause"] == "model", many
    assert "152702 segments (46 % of the link's time)" in many["reason"] and "67991 (20 %)" in many["reason"], many
