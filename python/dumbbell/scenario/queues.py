"""The queues of a port: drop-tail, RED, step and hysteresis marking,
CoDel, FQ-CoDel, PIE and CAKE, the packet-return feature (``Return``), and
``QueueConfig``, the union a link's ``queue_ab``/``queue_ba`` takes.
"""

from typing import Annotated, Any, Literal, Optional

from pydantic import BeforeValidator, Field, model_validator

from ..errors import ConfigError
from .core_params import choice as _choice, field as _core_field
from .base import Model as _Model, U32_MAX, U64_MAX, kind_of as _kind_of
from .lazy_union import lazy_union
from .ranges import Rate, Seconds
from .twoclass import Classifier, Scheduler
from .units import parse_rate_bps, seconds_to_ps


# ---------------------------------------------------------------- queues
# A discipline's parameters (their bounds, defaults and descriptions) are the
# core's, read from its schema (:mod:`.core_params`); times in seconds here
# (``target_s``) are the core's picoseconds (``target_ps``).


def _core(kind: str):
    def field(name: str, **given: Any):
        return _core_field(kind, name, **given)

    return field


_red, _step, _hysteresis, _codel, _fq_codel, _pie, _cake, _dualpi2 = map(
    _core, ("red", "step", "hysteresis", "codel", "fq_codel", "pie", "cake", "dualpi2")
)
_StepAt = _choice("step", "at")
_HysteresisAt = _choice("hysteresis", "at")
_FlowMode = _choice("cake", "flow_mode")
_AckFilter = _choice("cake", "ack_filter")


def red_wlog_for_burst(burst_pkts: int, min_bytes: float, avpkt_bytes: int) -> int:
    """``tc``'s choice of RED's EWMA weight exponent (``tc_red_eval_ewma``).

    The smallest Wlog with ``burst + 1 - min/avpkt <= (1 - (1 - W)^burst) / W``,
    W = 2^-Wlog: the same computation as ``RedParams::wlog_for_burst`` in the
    core. For E1 (burst 20, min 30000 B, avpkt 1500 B) it is 1.
    """
    a = burst_pkts + 1.0 - min_bytes / avpkt_bytes
    if a < 1.0:
        raise ValueError(
            f"burst {burst_pkts} is too small for min {min_bytes:g} B and avpkt {avpkt_bytes} B "
            f"(tc needs burst >= {1 + int(min_bytes // avpkt_bytes)})"
        )
    w = 0.5
    for wlog in range(1, 32):
        if a <= (1.0 - (1.0 - w) ** burst_pkts) / w:
            return wlog
        w /= 2.0
    raise ValueError(f"no RED weight fits burst {burst_pkts}")


class Return(_Model):
    """Packet return (Silva, Vieira and Nacif, "Data Center TCP com Histerese
    em Switches P4", §4.2): when the queue is congested, the switch sends a
    copy of each TCP data segment that is neither a copy nor CE-marked back
    to its sender and forwards the original unmarked. By default the sender
    takes the copy as a congestion echo (DCTCP: one marked segment; at most
    one window reduction per RTT); with ``TcpOptions(copy_effect="linux")``
    it drops it as Linux's receive path would and sends a duplicate ACK. On
    a switch with a pipeline a copy crosses it twice (clone and
    recirculation), ahead of the packets waiting.

    The decision is a step at ``k_pkts`` or, with ``upper_pkts`` (L_S) and
    ``lower_pkts`` (L_I), the paper's hysteresis; it reads the queue at
    ``dequeue`` (the paper's P4 egress) or ``enqueue``. Copies are full-size
    (as the paper's clones) or, with ``header_only``, 64-byte headers.
    Switch ports only.
    """

    k_pkts: Annotated[int, Field(ge=0, le=U32_MAX, description="Step threshold K.")] | None = None
    upper_pkts: Annotated[int, Field(ge=1, le=U32_MAX, description="L_S")] | None = None
    lower_pkts: Annotated[int, Field(ge=0, le=U32_MAX, description="L_I, below L_S")] | None = None
    at: Literal["enqueue", "dequeue"] = "dequeue"
    header_only: bool = Field(False, description="64-byte copies instead of full-size ones.")

    @model_validator(mode="after")
    def _check(self) -> "Return":
        hyst = self.upper_pkts is not None or self.lower_pkts is not None
        if (self.k_pkts is not None) == hyst:
            raise ConfigError("k_pkts", "give either k_pkts (a step) or upper_pkts and lower_pkts (hysteresis)")
        if hyst:
            if self.upper_pkts is None:
                raise ConfigError("upper_pkts", "hysteresis needs upper_pkts (L_S) with lower_pkts (L_I)")
            if self.lower_pkts is None:
                raise ConfigError("lower_pkts", "hysteresis needs lower_pkts (L_I) with upper_pkts (L_S)")
            if self.lower_pkts >= self.upper_pkts:
                raise ConfigError(
                    "lower_pkts",
                    f"L_I (lower_pkts = {self.lower_pkts}) must be below L_S (upper_pkts = {self.upper_pkts})",
                )
        return self

    @property
    def policy(self) -> str:
        """``"step"`` or ``"hysteresis"``."""
        return "step" if self.k_pkts is not None else "hysteresis"

    def to_core(self) -> dict[str, Any]:
        copy = "header" if self.header_only else "full"
        if self.k_pkts is not None:
            return {"kind": "step", "k_pkts": self.k_pkts, "at": self.at, "copy": copy}
        return {"kind": "hysteresis", "upper_pkts": self.upper_pkts, "lower_pkts": self.lower_pkts,
                "at": self.at, "copy": copy}


class _QueueLimits(_Model):
    """What every queue of a port has: limits, a service rate, packet return."""

    limit_pkts: Annotated[int, Field(ge=1, le=U32_MAX)] | None = Field(
        None, description="Packet limit, packets. If neither limit is given: 1000 packets (the core's default queue)."
    )
    limit_bytes: Annotated[int, Field(ge=1, le=U64_MAX)] | None = Field(
        None, description="Byte limit, bytes (the packet being admitted included)."
    )
    service_pps: Annotated[float, Field(ge=1, le=1e12, allow_inf_nan=False)] | None = Field(
        None,
        description="Egress service rate in packets/s, below the link rate (bmv2's set_queue_rate); "
        "unset: the link rate.",
    )
    feedback: Return | None = Field(None, description="Packet return at this queue (switch ports only).")

    def _core_limits(self) -> dict[str, Any]:
        if self.limit_pkts is None and self.limit_bytes is None:
            limits: dict[str, Any] = {"limit_pkts": 1000, "limit_bytes": None}
        else:
            limits = {"limit_pkts": self.limit_pkts, "limit_bytes": self.limit_bytes}
        if self.service_pps is not None:
            limits["service_pps"] = float(self.service_pps)
        if self.feedback is not None:
            limits["feedback"] = self.feedback.to_core()
        return limits


class _QueueBase(_QueueLimits):
    """A FIFO with a marking policy; two of them make a two-class port."""

    classifier: Classifier | None = Field(
        None, description="Makes this a two-class port (see dumbbell.scenario.twoclass): ideal, run2c or rafle."
    )
    scheduler: Scheduler | None = Field(None, description="Two-class ports only: prio (default), rr or drr.")
    long_queue: "QueueConfig | None" = Field(
        None, description="Two-class ports only: the long-flow queue (default: a copy of this one)."
    )

    @model_validator(mode="after")
    def _two_class(self):
        if self.classifier is None:
            if self.long_queue is not None:
                raise ConfigError("long_queue", "a second (long-flow) queue needs a classifier on this port")
            if self.scheduler is not None:
                raise ConfigError("scheduler", "a scheduler needs two queues: give this port a classifier")
        elif self.long_queue is not None:
            lq = self.long_queue
            if lq.kind in ("codel", "fq_codel", "pie", "cake", "dualpi2"):
                raise ConfigError("long_queue", f"{lq.kind} is a whole discipline, not a class of a two-class port "
                                  "(which takes droptail, red, step or hysteresis queues)")
            for name in ("classifier", "scheduler", "long_queue"):
                if getattr(lq, name) is not None:
                    raise ConfigError(f"long_queue.{name}", "two-class ports do not nest: the long-flow queue is one queue")
            for name in ("feedback", "service_pps"):
                if getattr(lq, name) is not None:
                    raise ConfigError(f"long_queue.{name}", "packet return and the service rate belong to the port: "
                                      "set them on its first queue")
        return self

    def _core_limits(self) -> dict[str, Any]:
        limits = super()._core_limits()
        if self.classifier is not None:
            limits["classifier"] = self.classifier.to_core()
            limits["scheduler"] = (self.scheduler.to_core() if self.scheduler is not None else {"kind": "prio"})
            if self.long_queue is not None:
                limits["long_queue"] = self.long_queue.to_core()
        return limits


class DropTail(_QueueBase):
    """A FIFO that drops arrivals when full."""

    kind: Literal["droptail"] = "droptail"

    def to_core(self) -> dict[str, Any]:
        return {**self._core_limits(), "aqm": {"kind": "none"}}


class Red(_QueueBase):
    """RED with Linux ``sch_red`` semantics (EWMA average, min/max, max_p,
    gentle, ECN marking of ECT packets, byte or packet mode).

    Give ``wlog`` directly, or ``burst_pkts`` and let it be derived as ``tc``
    does; with neither, ``tc``'s default burst ``(2 min + max) / (3 avpkt)``
    is used.
    """

    kind: Literal["red"] = "red"
    min_th: float = _red("min_th")
    max_th: float = _red("max_th")
    max_p: float = _red("max_p", default=0.02, description="Marking probability at max_th (tc's default 0.02).")
    wlog: int | None = _red("wlog", default=None, description="EWMA weight W = 2^-wlog; unset: derived from burst_pkts.")
    burst_pkts: Annotated[int, Field(ge=1, le=U32_MAX)] | None = Field(
        None, description="tc's `burst`, packets, to derive wlog."
    )
    ecn: bool = _red("ecn")
    harddrop: bool = _red("harddrop")
    gentle: bool = _red("gentle")
    bytes_mode: bool = _red("bytes_mode")
    avpkt_bytes: int = _red("avpkt_bytes")
    bandwidth_bps: Rate | None = _red("bandwidth_bps", default=None, description="For idle decay; unset: the link's rate.")

    @model_validator(mode="after")
    def _check(self) -> "Red":
        if self.max_th <= self.min_th:
            raise ConfigError("max_th", f"must exceed min_th ({self.max_th:g} <= {self.min_th:g})")
        if self.wlog is not None and self.burst_pkts is not None:
            raise ConfigError("burst_pkts", "give either wlog or burst_pkts, not both")
        try:
            self.effective_wlog()
        except ValueError as e:
            raise ConfigError("burst_pkts", str(e)) from None
        return self

    def effective_wlog(self) -> int:
        """The Wlog sent to the core: explicit, or derived as ``tc`` does."""
        if self.wlog is not None:
            return self.wlog
        min_bytes = self.min_th if self.bytes_mode else self.min_th * self.avpkt_bytes
        max_bytes = self.max_th if self.bytes_mode else self.max_th * self.avpkt_bytes
        burst = self.burst_pkts
        if burst is None:  # iproute2 q_red.c: burst = (2 * qmin + qmax) / (3 * avpkt)
            burst = max(1, int((2 * min_bytes + max_bytes) // (3 * self.avpkt_bytes)))
        return red_wlog_for_burst(burst, min_bytes, self.avpkt_bytes)

    def to_core(self) -> dict[str, Any]:
        return {
            **self._core_limits(),
            "aqm": {
                "kind": "red",
                "min_th": float(self.min_th),
                "max_th": float(self.max_th),
                "max_p": float(self.max_p),
                "wlog": self.effective_wlog(),
                "ecn": self.ecn,
                "harddrop": self.harddrop,
                "gentle": self.gentle,
                "bytes_mode": self.bytes_mode,
                "avpkt_bytes": self.avpkt_bytes,
                "bandwidth_bps": self.bandwidth_bps or 0,
            },
        }


class Step(_QueueBase):
    """DCTCP's step marking: CE on ECT packets when the instantaneous queue is
    at or above K (in packets or bytes), measured at enqueue or dequeue."""

    kind: Literal["step"] = "step"
    k_pkts: int | None = _step("k_pkts")
    k_bytes: int | None = _step("k_bytes")
    at: _StepAt = _step("at")

    @model_validator(mode="after")
    def _check(self) -> "Step":
        if (self.k_pkts is None) == (self.k_bytes is None):
            raise ConfigError("k_pkts", "give exactly one of k_pkts and k_bytes")
        return self

    def to_core(self) -> dict[str, Any]:
        return {**self._core_limits(), "aqm": {"kind": "step", "k_pkts": self.k_pkts, "k_bytes": self.k_bytes, "at": self.at}}


class Hysteresis(_QueueBase):
    """Hysteresis ECN marking (Silva, Vieira and Nacif, E2 `hysteresis`, Algorithm 1): upper threshold L_S,
    lower threshold L_I < L_S, one congestion bit per queue."""

    kind: Literal["hysteresis"] = "hysteresis"
    upper_pkts: int = _hysteresis("upper_pkts")
    lower_pkts: int = _hysteresis("lower_pkts")
    at: _HysteresisAt = _hysteresis("at")

    @model_validator(mode="after")
    def _check(self) -> "Hysteresis":
        if self.lower_pkts >= self.upper_pkts:
            raise ConfigError(
                "lower_pkts",
                f"L_I (lower_pkts = {self.lower_pkts}) must be below L_S (upper_pkts = {self.upper_pkts})",
            )
        return self

    def to_core(self) -> dict[str, Any]:
        return {
            **self._core_limits(),
            "aqm": {"kind": "hysteresis", "upper_pkts": self.upper_pkts, "lower_pkts": self.lower_pkts, "at": self.at},
        }


class _DelayAqm(_QueueLimits):
    """A discipline of its own (CoDel, FQ-CoDel, PIE): a whole port's queue,
    never a class of a two-class port (so it has no classifier)."""


class Codel(_DelayAqm):
    """CoDel with Linux ``sch_codel`` semantics (Nichols and Jacobson; RFC 8289):
    drops (or, with ``ecn``, marks) at dequeue once packets have waited more
    than ``target_s`` for a whole ``interval_s``, then at intervals of
    ``interval_s / sqrt(count)``. Linux's defaults: 5 ms, 100 ms, ECN off,
    1000 packets."""

    kind: Literal["codel"] = "codel"
    target_s: Seconds = _codel("target_s")
    interval_s: Seconds = _codel("interval_s")
    ecn: bool = _codel("ecn")

    def to_core(self) -> dict[str, Any]:
        return {
            **self._core_limits(),
            "aqm": {"kind": "codel", "target_ps": seconds_to_ps(self.target_s),
                    "interval_ps": seconds_to_ps(self.interval_s), "ecn": self.ecn},
        }


class FqCodel(_DelayAqm):
    """FQ-CoDel with Linux ``sch_fq_codel`` semantics (RFC 8290): flows hashed
    to ``flows`` queues (the hash key drawn from the run's seed), deficit round
    robin with ``quantum_bytes`` over new and old flow lists (a sparse flow is
    served first), a CoDel per queue, and on overflow drops from the head of
    the fattest queue. Linux's defaults: 1024 queues, 1514 B, 5 ms, 100 ms,
    ECN on, 10240 packets (the limit counts all queues together)."""

    kind: Literal["fq_codel"] = "fq_codel"
    limit_pkts: Annotated[int, Field(ge=1, le=U32_MAX)] | None = Field(
        None, description="Packet limit over all flow queues, packets. If neither limit is given: 10240 (Linux's)."
    )
    target_s: Seconds = _fq_codel("target_s")
    interval_s: Seconds = _fq_codel("interval_s")
    ecn: bool = _fq_codel("ecn")
    flows: int = _fq_codel("flows")
    quantum_bytes: int = _fq_codel("quantum_bytes")

    def to_core(self) -> dict[str, Any]:
        limits = self._core_limits()
        if self.limit_pkts is None and self.limit_bytes is None:
            limits["limit_pkts"] = 10240
        return {
            **limits,
            "aqm": {"kind": "fq_codel", "target_ps": seconds_to_ps(self.target_s),
                    "interval_ps": seconds_to_ps(self.interval_s), "ecn": self.ecn,
                    "flows": self.flows, "quantum_bytes": self.quantum_bytes},
        }


class Pie(_DelayAqm):
    """PIE with Linux ``sch_pie`` semantics (RFC 8033), in Linux's default
    timestamp mode (the delay is the last departure's sojourn time): every
    ``tupdate_s`` the drop probability moves by ``alpha (delay - target) +
    beta (delay - previous delay)``; arrivals are dropped (with ``ecn``,
    ECT ones marked while the probability is at most 10 %) after a burst
    allowance of ``max_burst_s``. Linux's defaults: 15 ms, 15 ms, 1/8, 5/4,
    150 ms, ECN off, 1000 packets."""

    kind: Literal["pie"] = "pie"
    target_s: Seconds = _pie("target_s")
    tupdate_s: Seconds = _pie("tupdate_s")
    alpha: float = _pie("alpha")
    beta: float = _pie("beta")
    max_burst_s: Seconds = _pie("max_burst_s")
    ecn: bool = _pie("ecn")

    def to_core(self) -> dict[str, Any]:
        return {
            **self._core_limits(),
            "aqm": {"kind": "pie", "target_ps": seconds_to_ps(self.target_s),
                    "tupdate_ps": seconds_to_ps(self.tupdate_s), "alpha": float(self.alpha),
                    "beta": float(self.beta), "max_burst_ps": seconds_to_ps(self.max_burst_s),
                    "ecn": self.ecn},
        }


def parse_rate_bps_or_zero(v: object) -> object:
    """A rate as :data:`Rate` reads it, or 0 (CAKE's "unlimited"); other
    non-positive numbers are left to the range check."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v <= 0:
        return v
    return parse_rate_bps(v)


class Cake(_DelayAqm):
    """CAKE with Linux ``sch_cake`` semantics (Høiland-Jørgensen, Täht and Morton, "Piece of CAKE",
    IEEE LANMAN 2018): a shaper at ``rate_bps`` (0: unlimited), 1024 flow queues found by 8-way
    set-associative hashing, host isolation (``flow_mode``, default triple-isolate: each host's flows
    share one host's worth of quantum), DRR++ serving sparse flows first, and COBALT (CoDel marking
    ECT packets or dropping, plus BLUE on overflow) per queue. Only the best-effort tin is modelled
    (packets carry no DSCP). Linux's defaults: unlimited rate, triple-isolate, 5 ms, 100 ms, no
    overhead compensation, ACK filter off; buffer four intervals at the shaped rate (at least 4 MiB),
    capped at ``limit_pkts`` (10240) MTUs; ``limit_bytes`` is Linux's ``memlimit``."""

    kind: Literal["cake"] = "cake"
    limit_pkts: Annotated[int, Field(ge=1, le=U32_MAX)] | None = Field(
        None, description="Linux's limit, packets: caps the buffer at this many MTUs (unset: 10240)."
    )
    rate_bps: Annotated[int, BeforeValidator(parse_rate_bps_or_zero)] = _cake("rate_bps")
    flow_mode: _FlowMode = _cake("flow_mode")
    target_s: Seconds = _cake("target_s")
    interval_s: Seconds = _cake("interval_s")
    overhead_bytes: int = _cake("overhead_bytes")
    mpu_bytes: int = _cake("mpu_bytes")
    ack_filter: _AckFilter = _cake("ack_filter")

    def to_core(self) -> dict[str, Any]:
        limits = self._core_limits()
        if self.limit_pkts is None and self.limit_bytes is None:
            limits["limit_pkts"] = 10240
        return {
            **limits,
            "aqm": {"kind": "cake", "rate_bps": self.rate_bps, "flow_mode": self.flow_mode,
                    "target_ps": seconds_to_ps(self.target_s), "interval_ps": seconds_to_ps(self.interval_s),
                    "overhead_bytes": self.overhead_bytes, "mpu_bytes": self.mpu_bytes,
                    "ack_filter": self.ack_filter},
        }


class DualPi2(_DelayAqm):
    """DualPI2, the DualQ Coupled AQM of RFC 9332, with Linux ``sch_dualpi2``'s
    defaults: ECT(1) and CE packets go to the L4S queue, which CE-marks every
    packet that waited over ``step_thresh_s`` (1 ms) and otherwise with the
    coupled probability ``k·p'``; the rest go to the classic queue, dropped
    (or CE-marked if ECT(0)) with ``p'²``. As Linux's ``must_drop``: nothing
    but the step while both queues hold less than two MTUs, and once
    overloaded (``k·p'`` > 1) ECN-capable packets of either queue are dropped
    at ``p'²`` too (the L queue marks the rest). A PI2 controller moves p' every
    ``tupdate_s`` from the larger head sojourn time toward ``target_s``. The
    scheduler is Linux's weighted round robin: the classic queue gets
    ``c_protection_pct`` % (10) of the bytes when both are backlogged. Linux's
    defaults: 15 ms, 16 ms, 0.16, 3.2, 1 ms, k = 2, 10 %, 10000 packets."""

    kind: Literal["dualpi2"] = "dualpi2"
    limit_pkts: Annotated[int, Field(ge=1, le=U32_MAX)] | None = Field(
        None, description="Packet limit over both queues, packets. If neither limit is given: 10000 (Linux's)."
    )
    target_s: Seconds = _dualpi2("target_s")
    tupdate_s: Seconds = _dualpi2("tupdate_s")
    alpha: float = _dualpi2("alpha")
    beta: float = _dualpi2("beta")
    step_thresh_s: Seconds = _dualpi2("step_thresh_s")
    min_qlen_step: int = _dualpi2("min_qlen_step")
    k: float = _dualpi2("k")
    c_protection_pct: int = _dualpi2("c_protection_pct")
    drop_overload: bool = _dualpi2("drop_overload")

    def to_core(self) -> dict[str, Any]:
        limits = self._core_limits()
        if self.limit_pkts is None and self.limit_bytes is None:
            limits["limit_pkts"] = 10000
        return {
            **limits,
            "aqm": {"kind": "dualpi2", "target_ps": seconds_to_ps(self.target_s),
                    "tupdate_ps": seconds_to_ps(self.tupdate_s), "alpha": float(self.alpha),
                    "beta": float(self.beta), "step_thresh_ps": seconds_to_ps(self.step_thresh_s),
                    "min_qlen_step": self.min_qlen_step, "k": float(self.k),
                    "c_protection_pct": self.c_protection_pct, "drop_overload": self.drop_overload},
        }


CoDel = Codel
"""The name before issue 28 (one capital per word, as ``Pie``, ``Red``, ``Dctcp``): :class:`Codel`."""
FqCoDel = FqCodel
"""The name before issue 28: :class:`FqCodel`."""

_QUEUE_KINDS = ("droptail", "red", "step", "hysteresis", "codel", "fq_codel", "pie", "cake", "dualpi2")


QueueConfig = lazy_union(
    {"droptail": DropTail, "red": Red, "step": Step, "hysteresis": Hysteresis, "codel": Codel, "fq_codel": FqCodel,
     "pie": Pie, "cake": Cake, "dualpi2": DualPi2},
    _kind_of("droptail"),
)
"""A queue discipline, tagged by ``kind`` (default ``droptail``); each
built on first use (:mod:`.lazy_union`)."""

for _q in (_QueueBase, DropTail, Red, Step, Hysteresis):
    # ``long_queue`` names QueueConfig before it exists; pydantic resolves it
    # when the model is first built. Until then, those who read the fields
    # (the documentation, ``dumbbell list``) see the union, not a ForwardRef.
    _q.model_fields["long_queue"].annotation = Optional[QueueConfig]
