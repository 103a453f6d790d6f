"""The ranges of a scenario's numbers and their unit types (``Rate``,
``Seconds``, ``Pkts``, ``Bytes``), shared by every scenario model.

The core refuses the same values by itself
(``crates/dumbbell-core/src/validate.rs``, which explains each bound).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field

from .base import U32_MAX, U64_MAX
from .units import parse_rate_bps, parse_seconds


# ---- Ranges of the run document's own fields (links, flows, TCP options,
# records). The core refuses the same values by itself
# (crates/dumbbell-core/src/validate.rs, which explains each bound); a test
# checks that the two agree. Every numeric field states its range in its
# `Field` (ge/gt/le/lt), with its unit in the name or the description, where
# a documentation generator can read it. A control's or a queue discipline's
# parameters are not here: their ranges are the core's schema's
# (`core_params.py`).

MAX_RATE_BPS = 10**13
"""Fastest link or sending rate: 10 Tb/s."""
MAX_TIME_S = (2**64 - 1) / 10**12
"""The simulated clock's range: 2^64 ps, about 213 days."""
MAX_LINK_DELAY_S = 1e4
"""Longest one-way propagation delay or jitter of a link (Mars is 1 300 s away)."""
MIN_RTO_S, MAX_RTO_S = 1e-6, 3600.0
"""RTO bounds: 1 µs (fine-grained data-center timers) to one hour."""
MIN_DELACK_S, MAX_DELACK_S = 1e-6, 60.0
"""Delayed-ACK timer bounds (Linux: 40 ms to 200 ms)."""
MIN_SAMPLE_S = 1e-9
"""Shortest sampling period of a periodic recorder."""
MIN_MSS_BYTES, MAX_MSS_BYTES = 48, 65495
"""Linux's smallest sender MSS to the largest IPv4 MSS."""
MAX_HEADER_BYTES = 1024
MAX_INIT_CWND_PKTS = 2**20
MAX_RWND_BYTES = 65535 << 14
"""Linux's largest receive window (window scale 14)."""
MAX_DUPTHRESH = 65535
MAX_TSQ_BYTES = 2**40
MAX_GSO_BYTES = 512 * 1024
"""Largest skb of a sender's TSO bursts: Linux's gso_max_size, 64 KB, up to 512 KB with BIG TCP."""
MAX_FLOW_BYTES = 2**62
DEFAULT_RECORD_MAX_BYTES = 2 * 2**30
MIN_RECORD_MAX_BYTES, MAX_RECORD_MAX_BYTES = 2**20, 2**50

Rate = Annotated[int, BeforeValidator(parse_rate_bps), Field(ge=1, le=MAX_RATE_BPS)]
"""A positive rate in bit/s, at most 10 Tb/s: a number or a string such as ``"100Mbps"``."""

Seconds = Annotated[float, BeforeValidator(parse_seconds), Field(ge=0, le=MAX_TIME_S)]
"""A non-negative time in seconds: a number or a string such as ``"75us"``."""

Pkts = Annotated[int, Field(ge=0, le=U32_MAX)]
Bytes = Annotated[int, Field(ge=0, le=U64_MAX)]
