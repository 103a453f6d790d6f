"""What a run will cost, guessed from its core document before it runs: the
sweep hands its runs to the workers longest first (:func:`order`), so the
longest runs do not start last and leave one worker alone at the end.

The guess is the data packets the run's slowest link carries if it is busy
for the whole run: its rate times the simulated time, in 1500-byte packets.
The simulator's cost is nearly proportional to the packets it moves
(``docs/performance.md``), and a run's packets are bounded by its
bottleneck's. The guess orders runs only: it never changes what a run
computes, and results come back in the order the runs were asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["estimate", "order"]

_PACKET_BITS = 1500 * 8


def estimate(config: Mapping[str, Any] | None) -> float:
    """The guessed cost of the run of core document ``config`` (0 for a
    document that did not resolve): packets at its slowest link's rate over
    its simulated time."""
    if not config:
        return 0.0
    rates = [int(link.get("rate_bps") or 0) for link in config.get("links") or ()]
    rates = [r for r in rates if r > 0]
    seconds = int(config.get("duration_ps") or 0) / 1e12
    return seconds * (min(rates) if rates else 0) / _PACKET_BITS


def order(configs: Sequence[Mapping[str, Any] | None]) -> list[int]:
    """The indices of ``configs``, the costliest guess first; equal guesses
    keep their order (a stable sort), so the order is deterministic."""
    costs = [estimate(c) for c in configs]
    return sorted(range(len(configs)), key=lambda i: -costs[i])
