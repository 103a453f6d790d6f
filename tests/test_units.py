"""Human units → exact integers."""

import pytest

from dumbbell.scenario.units import parse_rate_bps, parse_seconds, seconds_to_ps


@pytest.mark.parametrize(
    "text, bps",
    [
        (100e6, 100_000_000),
        (1_000_000_000, 1_000_000_000),
        ("100Mbps", 100_000_000),
        ("1Gbps", 1_000_000_000),
        ("10G", 10_000_000_000),
        ("2.5 Gbit/s", 2_500_000_000),
        ("100 Mb/s", 100_000_000),
        ("64kbps", 64_000),
        ("1e9bps", 1_000_000_000),
        ("0.5T", 500_000_000_000),
        ("9600bps", 9600),
    ],
)
def test_rates(text, bps):
    assert parse_rate_bps(text) == bps


@pytest.mark.parametrize("bad", [-1, 0, "0Mbps", "-5G", "fast", "10MBps", True, float("nan"), None, "1Gbpsx", "50", "1e9"])
def test_bad_rates(bad):
    with pytest.raises(ValueError):
        parse_rate_bps(bad)


@pytest.mark.parametrize(("parse", "text", "hint"), [(parse_rate_bps, "50", "'50Mbps'"), (parse_rate_bps, " 2.5 ", "'2.5Mbps'"),
                                                    (parse_seconds, "13", "'13ms'"), (parse_seconds, "0.5", "'0.5s'")])
def test_a_string_without_a_unit_is_refused_with_a_suggestion(parse, text, hint):
    # One rule for strings (README, docs/scenario.md): a string carries its
    # unit; "50" would be 50 bit/s or 50 s, rarely what was meant.
    with pytest.raises(ValueError, match="has no unit") as info:
        parse(text)
    assert hint in str(info.value)


@pytest.mark.parametrize(
    "text, ps",
    [
        (0.075e-3, 75_000_000),
        ("75us", 75_000_000),
        ("75µs", 75_000_000),
        ("0.075ms", 75_000_000),
        ("20s", 20_000_000_000_000),
        (20, 20_000_000_000_000),
        ("3ns", 3_000),
        ("1ps", 1),
        (0, 0),
    ],
)
def test_times_to_ps(text, ps):
    assert seconds_to_ps(parse_seconds(text)) == ps


@pytest.mark.parametrize("bad", [-1e-6, "-3ms", "3 fortnights", "", False, float("inf"), "20", "0"])
def test_bad_times(bad):
    with pytest.raises(ValueError):
        parse_seconds(bad)
