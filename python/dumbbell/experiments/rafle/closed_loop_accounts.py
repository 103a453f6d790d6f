"""E4 ``rafle``: the accounts of Table 4's differences (the closed loop),
each checking on the run the mechanism it names.

Light (no numpy or polars): the package's ``__init__`` lists these in its
``KNOWN``. The numbers they read are the Table 4 claim's columns that
:func:`dumbbell.experiments.rafle.closed_loop.loop_claim_fields` fills
(``ours_*`` for the claim's router, ``dt_*`` for drop-tail, both from the
closed-loop part's ``all`` rows) and the sensitivity range of part
``closed-loop-sensitivity`` (``sensitivity_lo``, ``sensitivity_hi``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..known import Known, across_sensitivity, below, doc, number

__all__ = ["RETX_FACTOR", "reordering_retransmits", "dialogue_keeps_tasks_out", "inside_our_interval", "LOOP_KNOWN"]

RETX_FACTOR = 1.5
"""RAFLE RR's account holds where its router retransmits at least this
many times drop-tail's segments in the same loop."""

_DOC = doc("rafle", "closed-loop-table-4")


def reordering_retransmits(r: Mapping[str, Any]) -> bool:
    """A gain below the paper's, and the router's senders retransmit at
    least :data:`RETX_FACTOR` times drop-tail's segments."""
    mine, dt = number(r.get("ours_retransmits")), number(r.get("dt_retransmits"))
    return below(1.0)(r) and mine is not None and dt is not None and mine >= RETX_FACTOR * dt


def dialogue_keeps_tasks_out(r: Mapping[str, Any]) -> bool:
    """A gain below the paper's, with fewer of the 300 tasks transferring
    under drop-tail than under this router (drop-tail's FIFO holds up the
    dialogue) and this router's slots holding more file data at the
    window's end than drop-tail's (large files pile up)."""
    got = [number(r.get(k)) for k in ("ours_in_transfer", "dt_in_transfer", "ours_inventory_mb", "dt_inventory_mb")]
    if not below(1.0)(r) or any(x is None for x in got):
        return False
    mine_t, dt_t, mine_mb, dt_mb = got
    return mine_t > dt_t and mine_mb > dt_mb


def inside_our_interval(r: Mapping[str, Any]) -> bool:
    """The paper's value lies inside our 95 % interval (ours ±
    ``ours_ci95``, over the closed loop's realizations)."""
    o, v, h = number(r.get("ours")), number(r.get("value")), number(r.get("ours_ci95"))
    return o is not None and v is not None and h is not None and abs(o - v) <= h


LOOP_KNOWN: list[Known] = [
    Known({"part": "closed-loop", "scheduler": "rr", "classifier": "rafle"}, cause="model",
          when=reordering_retransmits,
          condition=f"a gain below the paper's with at least {RETX_FACTOR:g} times drop-tail's retransmitted segments",
          reason="RAFLE with round robin puts one flow's packets in both queues, and the reordering costs "
                 "retransmissions: {ours_retransmits} segments ({ours_retx_pct} % of the link's time) against "
                 "drop-tail's {dt_retransmits} ({dt_retx_pct} %)",
          doc=_DOC, scales=("paper",)),
    Known({"part": "closed-loop", "scheduler": lambda s: s in ("prio", "rr")}, cause="model",
          when=dialogue_keeps_tasks_out,
          condition="a gain below the paper's, fewer tasks transferring under drop-tail than under this router and "
                    "more file data held in this router's slots at the window's end",
          reason="the FTP dialogue crosses drop-tail's FIFO six times ({dt_dialogue_s} s), so only {dt_in_transfer} "
                 "of the 300 tasks transfer on average; this router's dialogues take {ours_dialogue_s} s, "
                 "{ours_in_transfer} transfer, and large files pile up in its slots ({ours_inventory_mb} MB held at "
                 "the window's end against drop-tail's {dt_inventory_mb} MB)",
          doc=_DOC, scales=("paper",)),
    Known({"part": "closed-loop"}, cause="testbed", when=across_sensitivity,
          condition="the paper's value within the range ours spans over part closed-loop-sensitivity's settings",
          reason="the router's buffer and the hosts' kernel era, which the paper does not give, move ours from "
                 "{sensitivity_lo} to {sensitivity_hi}, across the paper's value",
          doc=_DOC, scales=("paper",)),
    Known({"part": "closed-loop"}, cause="testbed", when=inside_our_interval,
          condition="the paper's value inside our 95 % interval over the closed loop's realizations",
          reason="the paper's value lies inside our 95 % interval (ours ±{ours_ci95} over our realizations; the "
                 "paper gives none for its three): the loop's realizations scatter too widely to tell them apart",
          doc=_DOC, scales=("paper",)),
]
"""Table 4's accounts, most specific first (the first whose condition
holds gives the verdict's cause)."""
