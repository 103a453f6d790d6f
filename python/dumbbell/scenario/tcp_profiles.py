"""Kernel-era TCP profiles: what changed in Linux's TCP between the kernels
the reproduced papers ran, as values of :class:`~dumbbell.TcpOptions`.

``TcpOptions(profile="linux-2.4")`` takes the era's values for every option
it leaves unset; an option set explicitly wins over the profile. The
default era, ``linux-6.12``, is the core's defaults, but for the buffers a
profile given by name sets (below).

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

The buffers: a profile given explicitly also sets ``rwnd_bytes``, the
receive window's ceiling, from the era's ``tcp_rmem`` maximum
(:data:`TCP_RMEM`) by Linux's rule from receive buffer to window
(:func:`rcvbuf_window`), and ``sndbuf_bytes`` from its ``tcp_wmem`` maximum
(:data:`TCP_WMEM`): the ceilings buffer autotuning reaches on an untuned
host. Without a profile the run keeps the core's defaults (a 64 MiB window,
no send buffer), so documents written before the profiles existed stay as
they were; ``profile="linux-6.12"`` written out is therefore not the same
document as no profile. Explicit ``rwnd_bytes`` and ``sndbuf_bytes`` win,
as every option does. Linux 2.4's FACK, its rate-halving (PRR came in 3.2)
and the pre-3.10 F-RTO are not modelled: our recovery is PRR and the 3.10
F-RTO in every era.
"""

from __future__ import annotations

from typing import Any

from ..suggest import did_you_mean

__all__ = ["DEFAULT_PROFILE", "PROFILES", "TCP_RMEM", "TCP_WMEM", "profile_values", "rcvbuf_window", "rfc3390_iw"]

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
#: A profile given by name applies the maxima: see the module's docstring.
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


ADV_WIN_SCALE = {"linux-2.4": 2, "linux-2.6.32": 2, "linux-3.2": 2}
"""``tcp_adv_win_scale`` of the eras before 3.4 (2: a quarter of the buffer
is overhead). 3.4 made it 1 (half) with ``tcp_rmem``'s maximum raised to
6 MiB; 6.6 replaced it with a measured ``scaling_ratio`` that starts at
50 % (``TCP_DEFAULT_SCALING_RATIO``), the share used here for 6.8 and 6.12."""


def rcvbuf_window(profile: str) -> int:
    """The receive window Linux of era ``profile`` advertises at most from
    its ``tcp_rmem`` maximum: the buffer less ``buffer >> tcp_adv_win_scale``
    (``tcp_win_from_space``) before 6.6, the buffer times ``scaling_ratio``
    / 256 (initially 128) after. 3 MiB for 2.6.32 to 6.12, 128 KiB for 2.4."""
    space = TCP_RMEM[check_profile(profile)][2]
    scale = ADV_WIN_SCALE.get(profile)
    if scale is None:
        return space * 128 // 256
    return space - (space >> scale)


def check_profile(name: str) -> str:
    """``name`` if it is a known profile, else a ValueError with the closest."""
    if name not in PROFILES:
        raise ValueError(f"unknown kernel-era profile {name!r}{did_you_mean(name, PROFILES)} (known: {', '.join(PROFILES)})")
    return name


def profile_values(name: str, mss_bytes: int, buffers: bool = True) -> dict[str, Any]:
    """The option values profile ``name`` sets, for a flow of ``mss_bytes``;
    with ``buffers`` (a profile given by name) also the receive window's
    ceiling and the send buffer from the era's ``tcp_rmem``/``tcp_wmem``."""
    values = dict(PROFILES[check_profile(name)])
    if buffers:
        values["rwnd_bytes"] = rcvbuf_window(name)
        values["sndbuf_bytes"] = TCP_WMEM[name][2]
    if "init_cwnd_pkts" in values and values["init_cwnd_pkts"] is None:
        values["init_cwnd_pkts"] = rfc3390_iw(mss_bytes)
    return values
