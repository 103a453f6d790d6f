"""Congestion controls written in Python, run by the simulator's own TCP stack.

Subclass :class:`CongestionControl`, implement its hooks, and pass an
instance as ``cc=`` to any :class:`~dumbbell.TcpFlow` or
:class:`~dumbbell.Workload`::

    import dumbbell as db
    from dumbbell.controls import CongestionControl, tcp_reno_cong_avoid

    class HalfReno(CongestionControl):
        name = "half_reno"

        def ssthresh(self, tp):
            return max(tp.snd_cwnd * 3 // 4, 2)

        def cong_avoid(self, tp, ack, acked):
            tcp_reno_cong_avoid(tp, acked)

    s = db.topology.dumbbell(...)
    s.add_flow(db.TcpFlow(src="h1", dst="h2", cc=HalfReno()))
    db.run(s)

The hooks are those of the core's ``CongestionControl`` trait
(``crates/dumbbell-core/src/cc/mod.rs``), which mirrors Linux's
``struct tcp_congestion_ops``, called at the same points of the same per-ACK
path as the Rust controls (the order is in ``docs/controls.md``). Each hook
receives ``tp``, the sender's state (``dumbbell._native.TcpSock``): windows
in packets, times in picoseconds (``_ps``), rates in bit/s. A hook writes
the window fields a control owns (``snd_cwnd``, ``snd_ssthresh``,
``snd_cwnd_cnt``, ``snd_cwnd_clamp``, ``prior_cwnd``, ``pacing_rate_bps``,
``app_limited``); the rest belong to the stack and are read-only.
``ssthresh`` and ``undo_cwnd`` return a window instead of writing one.

Each connection gets its own copy of the object passed as ``cc=``
(:meth:`CongestionControl.clone`, a deep copy by default) before
:meth:`~CongestionControl.init`, so one object can serve many flows; the
copy's :attr:`~CongestionControl.rng` is a :class:`random.Random` seeded
from the connection's own random stream, so a control that draws is as
reproducible as the rest of the run.

A hook that raises stops the run: :func:`dumbbell.run` raises
:class:`~dumbbell.errors.ControlError` naming the flow's field, the control
and the hook, with the hook's exception as its cause.

:class:`RenoPy` is Reno written this way; it gives the same tables, bit for
bit, as the core's Rust ``reno`` (``tests/test_controls.py``).
"""

from __future__ import annotations

import copy
import random
from enum import IntEnum
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from ._native import AckSample, RateSample, TcpSock

__all__ = [
    "CongestionControl",
    "RenoPy",
    "CaState",
    "CaEvent",
    "AckFlags",
    "INFINITE_SSTHRESH",
    "REQUIRED_HOOKS",
    "OPTIONAL_HOOKS",
    "tcp_slow_start",
    "tcp_cong_avoid_ai",
    "tcp_reno_cong_avoid",
    "tcp_reno_ssthresh",
    "check_control",
]

INFINITE_SSTHRESH = 0x7FFF_FFFF
"""Linux ``TCP_INFINITE_SSTHRESH``: ``tp.snd_ssthresh`` of a new connection."""


class CaState(IntEnum):
    """Linux ``enum tcp_ca_state``: ``tp.ca_state`` and ``set_state``'s argument."""

    OPEN = 0
    DISORDER = 1
    CWR = 2
    RECOVERY = 3
    LOSS = 4


class CaEvent(IntEnum):
    """Linux ``enum tcp_ca_event``: ``cwnd_event``'s argument."""

    TX_START = 0
    """A data segment leaves with nothing in flight."""
    CWND_RESTART = 1
    COMPLETE_CWR = 2
    """A CWR or Recovery reduction completed."""
    LOSS = 3
    """A retransmission timeout."""
    ECN_NO_CE = 4
    ECN_IS_CE = 5


class AckFlags(IntEnum):
    """``in_ack_event``'s flags (Linux ``enum tcp_ca_ack_event_flags``), a bit set."""

    SLOWPATH = 1
    WIN_UPDATE = 2
    ECE = 4


REQUIRED_HOOKS = ("ssthresh", "cong_avoid")
"""Every control implements these (``cong_avoid`` unless it has ``cong_control``)."""

OPTIONAL_HOOKS = ("init", "set_state", "cwnd_event", "in_ack_event", "pkts_acked", "undo_cwnd")
"""Hooks with defaults; only those a class overrides are called (each call costs)."""


class CongestionControl:
    """Base class of a congestion control written in Python.

    Required: :meth:`ssthresh`, and :meth:`cong_avoid` unless the class
    defines :meth:`cong_control`. The other hooks have the core's defaults
    and are not called unless overridden.

    Class attributes: :attr:`name` (the ``cc`` column of the flows table;
    default the class name in lower case), :attr:`needs_ecn` (Linux
    ``TCP_CONG_NEEDS_ECN``: the connection negotiates ECN and the receiver
    echoes every CE mark, as for DCTCP), :attr:`wants_pacing` (the stack
    paces at ``tp.pacing_rate_bps``).
    """

    name: ClassVar[str] = ""
    needs_ecn: ClassVar[bool] = False
    wants_pacing: ClassVar[bool] = False

    _seed: int | None = None
    _rng: random.Random | None = None

    # -- the hooks ------------------------------------------------------

    def init(self, tp: TcpSock) -> None:
        """Once, when the connection is established."""

    def ssthresh(self, tp: TcpSock) -> int:
        """The new slow-start threshold, packets, on entering a reduction
        (loss, ECN echo, RTO). ``tp`` is read-only here."""
        raise NotImplementedError(f"{type(self).__name__} must implement ssthresh(tp)")

    def cong_avoid(self, tp: TcpSock, ack: int, acked: int) -> None:
        """Window growth on an ACK when the stack may raise cwnd: ``ack`` is
        the cumulative ACK (bytes), ``acked`` the packets it newly acked or
        SACKed. Write ``tp.snd_cwnd`` (and ``snd_cwnd_cnt``)."""
        raise NotImplementedError(f"{type(self).__name__} must implement cong_avoid(tp, ack, acked)")

    def set_state(self, tp: TcpSock, new_state: int) -> None:
        """Before ``tp.ca_state`` changes to ``new_state`` (a :class:`CaState`)."""

    def cwnd_event(self, tp: TcpSock, ev: int) -> None:
        """An event of the window (a :class:`CaEvent`)."""

    def in_ack_event(self, tp: TcpSock, flags: int) -> None:
        """At the start of processing an ACK; ``flags`` of :class:`AckFlags`."""

    def pkts_acked(self, tp: TcpSock, sample: AckSample) -> None:
        """After an ACK newly acked or SACKed packets: ``sample.pkts_acked``,
        ``sample.rtt_ps`` (None when Karn forbids one), ``sample.in_flight``."""

    def undo_cwnd(self, tp: TcpSock) -> int:
        """The window after a reduction turned out spurious (default: the
        larger of ``snd_cwnd`` and ``prior_cwnd``). ``tp`` is read-only."""
        return max(tp.snd_cwnd, tp.prior_cwnd)

    # Optional: define ``cong_control(self, tp, ack, rs)`` (``rs`` a
    # ``RateSample``) to set cwnd and pacing from rate samples on every ACK;
    # the stack then skips its own reduction and ``cong_avoid``.
    cong_control: Any = None

    # -- per connection -------------------------------------------------

    def clone(self) -> CongestionControl:
        """This object's copy for one connection (default: a deep copy).
        Override to share something between connections on purpose."""
        return copy.deepcopy(self)

    @property
    def rng(self) -> random.Random:
        """A random stream of this connection's own, seeded from the run's
        seed and the flow's name (the stream the Rust controls draw from)."""
        if self._rng is None:
            self._rng = random.Random(self._seed)
        return self._rng

    def _dumbbell_connect(self, seed: int) -> CongestionControl:
        """Called by the simulator for each new connection."""
        c = self.clone()
        if not isinstance(c, CongestionControl):
            raise TypeError(f"{type(self).__name__}.clone() returned {type(c).__name__}, not a CongestionControl")
        c._seed = seed
        c._rng = None
        return c

    def _dumbbell_spec(self) -> dict[str, Any]:
        """What the simulator reads once per connection."""
        cls = type(self)
        return {
            "name": control_name(self),
            "overridden": [h for h in OPTIONAL_HOOKS if getattr(cls, h) is not getattr(CongestionControl, h)],
            "cong_control": callable(getattr(self, "cong_control", None)),
            "needs_ecn": bool(self.needs_ecn),
            "wants_pacing": bool(self.wants_pacing),
        }

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({params})"


def control_name(c: CongestionControl) -> str:
    """The name a control reports in the flows table."""
    return type(c).name or type(c).__name__.lower()


def check_control(obj: Any) -> CongestionControl:
    """``obj`` if it is a usable control instance; else ``ValueError`` saying why."""
    if isinstance(obj, type):
        if issubclass(obj, CongestionControl):
            raise ValueError(f"pass an instance, not the class: cc={obj.__name__}()")
        raise ValueError(f"{obj.__name__} is a class, not a dumbbell.controls.CongestionControl instance")
    if not isinstance(obj, CongestionControl):
        raise ValueError(
            f"expected a control name, a table with `kind`, or an instance of a subclass of "
            f"dumbbell.controls.CongestionControl; got {type(obj).__name__}"
        )
    cls = type(obj)
    has_cc = callable(getattr(obj, "cong_control", None))
    missing = [
        h for h in REQUIRED_HOOKS
        if getattr(cls, h) is getattr(CongestionControl, h) and not (h == "cong_avoid" and has_cc)
    ]
    if missing:
        raise ValueError(
            f"{cls.__name__} does not implement {' and '.join(missing)} "
            f"(required: ssthresh, and cong_avoid unless it defines cong_control)"
        )
    for h in (*REQUIRED_HOOKS, *OPTIONAL_HOOKS):
        if not callable(getattr(obj, h, None)):
            raise ValueError(f"{cls.__name__}.{h} is not a method")
    name = control_name(obj)
    if not isinstance(name, str) or not name:
        raise ValueError(f"{cls.__name__}.name must be a non-empty string")
    return obj


# ---------------------------------------------------------------- shared helpers
# The core's (and Linux's) helpers, for controls written in Python.


def tcp_slow_start(tp: TcpSock, acked: int) -> int:
    """Linux ``tcp_slow_start``: grow by ``acked`` up to ssthresh; returns
    the acked packets left over."""
    cwnd = min(tp.snd_cwnd + acked, tp.snd_ssthresh)
    left = acked - min(cwnd - tp.snd_cwnd, acked)
    tp.snd_cwnd = min(cwnd, tp.snd_cwnd_clamp)
    return left


def tcp_cong_avoid_ai(tp: TcpSock, w: int, acked: int) -> None:
    """Linux ``tcp_cong_avoid_ai``: one packet more every ``w`` packets acked."""
    w = max(w, 1)
    cwnd, cnt = tp.snd_cwnd, tp.snd_cwnd_cnt
    if cnt >= w:
        cnt = 0
        cwnd += 1
    cnt += acked
    if cnt >= w:
        delta = cnt // w
        cnt -= delta * w
        cwnd += delta
    tp.snd_cwnd_cnt = cnt
    tp.snd_cwnd = min(cwnd, tp.snd_cwnd_clamp)


def tcp_reno_cong_avoid(tp: TcpSock, acked: int) -> None:
    """Linux ``tcp_reno_cong_avoid``: slow start below ssthresh, then one
    packet per window; no growth unless the window was fully used."""
    if not tp.is_cwnd_limited:
        return
    if tp.in_slow_start():
        acked = tcp_slow_start(tp, acked)
        if acked == 0:
            return
    tcp_cong_avoid_ai(tp, tp.snd_cwnd, acked)


def tcp_reno_ssthresh(tp: TcpSock) -> int:
    """Linux ``tcp_reno_ssthresh``: half the window, at least 2."""
    return max(tp.snd_cwnd >> 1, 2)


# ---------------------------------------------------------------- Reno


class RenoPy(CongestionControl):
    """Reno/NewReno (RFC 5681; Linux ``tcp_reno_cong_avoid``,
    ``tcp_reno_ssthresh``) written in Python: the worked example of
    ``docs/controls.md``, equal bit for bit to the core's ``reno``."""

    name = "reno_py"

    def ssthresh(self, tp: TcpSock) -> int:
        return tcp_reno_ssthresh(tp)

    def cong_avoid(self, tp: TcpSock, ack: int, acked: int) -> None:
        tcp_reno_cong_avoid(tp, acked)
