"""Kernel-era TCP profiles: what changed in Linux's TCP between the kernels
the reproduced papers ran, as values of :class:`~dumbbell.TcpOptions`.

``TcpOptions(profile="linux-2.4")`` takes the era's values for every option
it leaves unset; an option set explicitly wins over the profile. The
default, ``linux-6.12``, is the core's defaults: a run without a profile and
one with ``profile="linux-6.12"`` are the same document.

What each profile sets, and the kernel release that changed it (sources in
``docs/model.md``, "Kernel-era profiles"):

- ``init_cwnd_pkts``: RFC 3390's initial window (2 to 4 segments by MSS:
  3 at 1448 B) until 2.6.39 raised it to 10;
- ``init_rto_s``: 3 s until 3.1 (RFC 6298's 1 s);
- ``growth_per_ack``: slow start and avoidance counted ACKs, not the
  segments they covered (``tcp_abc`` = 0), until the stretch-ACK fixes of
  3.18 (slow start) and 4.0 (avoidance);
- ``frto``: F-RTO on by default from 2.6.24 (``tcp_frto`` = 2);
- ``tlp``: the tail loss probe from 3.10; ``rack``: RACK from 4.4;
- ``tsq_bytes``: TCP small queues from 3.6 (0: none before);
- ``max_reordering``: the reordering adaptation's cap, the constant 127
  until 3.16 made it ``tcp_max_reordering`` = 300 (the adaptation itself,
  ``reordering_adapt``, is in every era).

Not set by a profile, and why: the receive window (``rwnd_bytes``). The
era's ``tcp_rmem`` maximum (:data:`TCP_RMEM`) caps an untuned host's
window, but receive-buffer autotuning and the papers' testbeds (tuned for
their paths) make the ceiling a property of the host, not of the kernel
release; the profiles record the defaults and leave the window to the
scenario. Linux 2.4's FACK, its rate-halving (PRR came in 3.2) and the
pre-3.10 F-RTO are not modelled: our recovery is PRR and the 3.10 F-RTO in
every era.
"""

from __future__ import annotations

from typing import Any

from ..suggest import did_you_mean

__all__ = ["DEFAULT_PROFILE", "PROFILES", "TCP_RMEM", "TCP_WMEM", "profile_values", "rfc3390_iw"]

DEFAULT_PROFILE = "linux-6.12"


def rfc3390_iw(mss_bytes: int) -> int:
    """RFC 3390's initial window in segments, as Linux computed it before
    2.6.39: min(4·MSS, max(2·MSS, 4380 B)), i.e. 2 above 1460 B, 3 above
    1095 B, else 4."""
    if mss_bytes > 1460:
        return 2
    return 3 if mss_bytes > 1095 else 4


_OLD_RECOVERY = {"rack": False, "tlp": False, "tsq_bytes": 0, "max_reordering": 127, "growth_per_ack": True}

#: Each profile's values, by option name; ``init_cwnd_pkts`` of ``None``
#: means RFC 3390's window for the flow's MSS (:func:`rfc3390_iw`).
PROFILES: dict[str, dict[str, Any]] = {
    "linux-2.4": {**_OLD_RECOVERY, "init_cwnd_pkts": None, "init_rto_s": 3.0, "frto": False},
    "linux-2.6.32": {**_OLD_RECOVERY, "init_cwnd_pkts": None, "init_rto_s": 3.0},
    "linux-3.2": {**_OLD_RECOVERY, "init_cwnd_pkts": 10},
    "linux-6.8": {},
    "linux-6.12": {},
}

#: The era's default ``net.ipv4.tcp_rmem`` / ``tcp_wmem`` (min, default,
#: max bytes; the 2.6/3.x maxima as computed on a host with 1 GiB or more).
#: Recorded, not applied: see the module's docstring.
TCP_RMEM = {
    "linux-2.4": (4096, 87380, 174760),
    "linux-2.6.32": (4096, 87380, 4194304),
    "linux-3.2": (4096, 87380, 4194304),
    "linux-6.8": (4096, 131072, 6291456),
    "linux-6.12": (4096, 131072, 6291456),
}
TCP_WMEM = {
    "linux-2.4": (4096, 16384, 131072),
    "linux-2.6.32": (4096, 16384, 4194304),
    "linux-3.2": (4096, 16384, 4194304),
    "linux-6.8": (4096, 16384, 4194304),
    "linux-6.12": (4096, 16384, 4194304),
}


def check_profile(name: str) -> str:
    """``name`` if it is a known profile, else a ValueError with the closest."""
    if name not in PROFILES:
        raise ValueError(f"unknown kernel-era profile {name!r}{did_you_mean(name, PROFILES)} (known: {', '.join(PROFILES)})")
    return name


def profile_values(name: str, mss_bytes: int) -> dict[str, Any]:
    """The option values profile ``name`` sets, for a flow of ``mss_bytes``."""
    values = dict(PROFILES[check_profile(name)])
    if "init_cwnd_pkts" in values and values["init_cwnd_pkts"] is None:
        values["init_cwnd_pkts"] = rfc3390_iw(mss_bytes)
    return values
