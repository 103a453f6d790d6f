"""Human units in, exact integers out.

Scenarios are written in seconds and bit/s (``delay_s = 75e-6``,
``rate_bps = "100Mbps"``); the core wants integer picoseconds and bit/s.
Strings are parsed with :class:`decimal.Decimal`, so ``"0.075ms"`` is exactly
75 000 000 ps; floats are rounded to the nearest picosecond.

Rates: a number (bit/s) or a string ``<number><prefix><unit>`` with an SI
prefix ``k``, ``M``, ``G``, ``T`` (powers of 1000, case-insensitive) and/or a
unit ``bps``, ``b/s``, ``bit/s`` or ``bit``: ``"100Mbps"``, ``"1Gbps"``,
``"10G"``, ``"2.5 Gbit/s"``, ``"9600bps"``. Bytes per second (``"MBps"``) are
refused rather than guessed.

Times: a number of seconds or a string with a unit ``s``, ``ms``, ``us``
(or ``µs``), ``ns``, ``ps``: ``"75us"``, ``"0.075 ms"``, ``"20s"``.

One rule for strings: **a string carries its unit**. A string without one
(``"50"``) is refused, with the field's name and a suggestion (``"50Mbps"``,
``"50ms"``), because the bare number it stands for (50 bit/s, 50 s) is rarely
what was meant; a plain number is the unit-less form (bit/s, seconds).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

__all__ = ["parse_rate_bps", "parse_seconds", "seconds_to_ps", "PS_PER_S"]

PS_PER_S = 10**12

_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_RATE_RE = re.compile(rf"^\s*({_NUM})\s*([kKmMgGtT]?)\s*(bps|b/s|bit/s|bits/s|bit)?\s*$")
_BARE_RE = re.compile(rf"^\s*({_NUM})\s*$")
_RATE_PREFIX = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_TIME_RE = re.compile(rf"^\s*({_NUM})\s*(s|ms|us|µs|ns|ps)?\s*$")
_TIME_UNIT = {None: Decimal(1), "s": Decimal(1), "ms": Decimal("1e-3"), "us": Decimal("1e-6"),
              "µs": Decimal("1e-6"), "ns": Decimal("1e-9"), "ps": Decimal("1e-12")}


def _number(v: object, what: str) -> Decimal:
    if isinstance(v, bool):
        raise ValueError(f"{what} must be a number, got {v!r}")
    if isinstance(v, int):
        return Decimal(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{what} must be finite, got {v!r}")
        return Decimal(repr(v))
    raise ValueError(f"{what} must be a number or a string with a unit, got {v!r}")


def parse_rate_bps(v: object) -> int:
    """A positive rate in whole bit/s from a number or a string such as ``"100Mbps"``."""
    if isinstance(v, str):
        if _BARE_RE.match(v):
            raise ValueError(
                f"the rate {v!r} has no unit: write e.g. '{v.strip()}Mbps' or '{v.strip()}kbps' "
                f"(or the number {v.strip()} for bit/s)"
            )
        m = _RATE_RE.match(v)
        if not m:
            raise ValueError(f"cannot read rate {v!r} (write e.g. 100e6, '100Mbps', '1Gbps', '10G')")
        try:
            value = Decimal(m.group(1)) * _RATE_PREFIX[m.group(2).lower()]
        except InvalidOperation:  # pragma: no cover - the regex admits only numbers
            raise ValueError(f"cannot read rate {v!r}") from None
    else:
        value = _number(v, "rate")
    if value <= 0:
        raise ValueError(f"rate must be positive, got {v!r}")
    bps = int(value.to_integral_value())
    if bps < 1:
        raise ValueError(f"rate must be at least 1 bit/s, got {v!r}")
    if bps >= 2**64:
        raise ValueError(f"rate too large: {v!r}")
    return bps


def parse_seconds(v: object) -> float:
    """A non-negative time in seconds from a number or a string such as ``"75us"``."""
    if isinstance(v, str):
        if _BARE_RE.match(v):
            raise ValueError(
                f"the time {v!r} has no unit: write e.g. '{v.strip()}ms' or '{v.strip()}s' "
                f"(or the number {v.strip()} for seconds)"
            )
        m = _TIME_RE.match(v)
        if not m:
            raise ValueError(f"cannot read time {v!r} (write seconds, e.g. 75e-6, or '75us', '0.075ms', '20s')")
        value = Decimal(m.group(1)) * _TIME_UNIT[m.group(2)]
    else:
        value = _number(v, "time")
    if value < 0:
        raise ValueError(f"time must not be negative, got {v!r}")
    if value * PS_PER_S >= 2**64:
        raise ValueError(f"time too large: {v!r}")
    return float(value)


def seconds_to_ps(s: float) -> int:
    """Seconds to integer picoseconds, rounded to the nearest."""
    return int(round(Decimal(repr(float(s))) * PS_PER_S))
