"""The queues of a port: drop-tail, RED, step and hysteresis marking,
CoDel, FQ-CoDel and PIE, the packet-return feature (``Return``), and
``QueueConfig``, the union a link's ``queue_ab``/``queue_ba`` takes.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag, model_validator

from ..errors import ConfigError
from .base import Model as _Model, U32_MAX, U64_MAX, kind_of as _kind_of
from .ranges import (
    Bytes, MAX_AQM_TIME_S, MAX_FQ_FLOWS, MAX_FQ_QUANTUM_BYTES, MAX_PIE_GAIN, MAX_PKT_BYTES, MAX_RED_TH,
    MIN_AQM_TIME_S, MIN_FQ_QUANTUM_BYTES, Rate, Seconds,
)
from .twoclass import Classifier, Scheduler
from .units import seconds_to_ps


# ---------------------------------------------------------------- queues


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
    to its sender and forwards the original unmarked. The sender takes the
    copy as a congestion echo (DCTCP: one marked segment; at most one window
    reduction per RTT).

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
    def _check(self) -> Return:
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
    long_queue: QueueConfig | None = Field(
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
            if lq.kind in ("codel", "fq_codel", "pie"):
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
    min_th: Annotated[float, Field(ge=0, le=MAX_RED_TH, description="Lower threshold, bytes (bytes_mode) or packets.")]
    max_th: Annotated[float, Field(gt=0, le=MAX_RED_TH, description="Upper threshold, bytes (bytes_mode) or packets.")]
    max_p: Annotated[float, Field(gt=0, le=1, description="Marking/drop probability at max_th.")] = 0.02
    wlog: Annotated[int, Field(ge=1, le=31)] | None = Field(None, description="EWMA weight W = 2^-wlog.")
    burst_pkts: Annotated[int, Field(ge=1, le=U32_MAX)] | None = Field(
        None, description="tc's `burst`, packets, to derive wlog."
    )
    ecn: bool = False
    harddrop: bool = False
    gentle: bool = False
    bytes_mode: bool = True
    avpkt_bytes: Annotated[int, Field(ge=1, le=MAX_PKT_BYTES, description="Average packet size, bytes.")] = 1000
    bandwidth_bps: Rate | None = Field(None, description="For idle decay; unset: the link's rate.")

    @model_validator(mode="after")
    def _check(self) -> Red:
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
    k_pkts: Annotated[int, Field(ge=0, le=U32_MAX)] | None = None
    k_bytes: Bytes | None = None
    at: Literal["enqueue", "dequeue"] = "enqueue"

    @model_validator(mode="after")
    def _check(self) -> Step:
        if (self.k_pkts is None) == (self.k_bytes is None):
            raise ConfigError("k_pkts", "give exactly one of k_pkts and k_bytes")
        return self

    def to_core(self) -> dict[str, Any]:
        return {**self._core_limits(), "aqm": {"kind": "step", "k_pkts": self.k_pkts, "k_bytes": self.k_bytes, "at": self.at}}


class Hysteresis(_QueueBase):
    """Hysteresis ECN marking (Silva, Vieira and Nacif, E2 `hysteresis`, Algorithm 1): upper threshold L_S,
    lower threshold L_I < L_S, one congestion bit per queue."""

    kind: Literal["hysteresis"] = "hysteresis"
    upper_pkts: Annotated[int, Field(ge=1, le=U32_MAX, description="L_S")]
    lower_pkts: Annotated[int, Field(ge=0, le=U32_MAX, description="L_I, below L_S")]
    at: Literal["enqueue", "dequeue"] = "dequeue"

    @model_validator(mode="after")
    def _check(self) -> Hysteresis:
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


AqmTime = Annotated[Seconds, Field(ge=MIN_AQM_TIME_S, le=MAX_AQM_TIME_S)]


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
    target_s: AqmTime = Field(0.005, description="Acceptable standing sojourn time, s.")
    interval_s: AqmTime = Field(
        0.1, description="Window the sojourn must stay above target before dropping; control-law scale, s."
    )
    ecn: bool = Field(False, description="Mark ECT packets instead of dropping them.")

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
    target_s: AqmTime = Field(0.005, description="CoDel's target per flow queue, s.")
    interval_s: AqmTime = Field(0.1, description="CoDel's interval per flow queue, s.")
    ecn: bool = Field(True, description="Mark ECT packets instead of dropping them (Linux: on).")
    flows: Annotated[int, Field(ge=1, le=MAX_FQ_FLOWS)] = Field(1024, description="Number of flow queues.")
    quantum_bytes: Annotated[int, Field(ge=MIN_FQ_QUANTUM_BYTES, le=MAX_FQ_QUANTUM_BYTES)] = Field(
        1514, description="DRR quantum, bytes."
    )

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
    target_s: AqmTime = Field(0.015, description="Target queueing delay, s.")
    tupdate_s: AqmTime = Field(0.015, description="Period of the probability update, s.")
    alpha: Annotated[float, Field(ge=0, le=MAX_PIE_GAIN)] = Field(
        0.125, description="Gain on the delay error, per second of delay (Linux: 2/16)."
    )
    beta: Annotated[float, Field(ge=0, le=MAX_PIE_GAIN)] = Field(
        1.25, description="Gain on the delay change, per second of delay (Linux: 20/16)."
    )
    max_burst_s: Annotated[Seconds, Field(le=MAX_AQM_TIME_S)] = Field(
        0.15, description="Burst allowance: no early drop for this long after the queue was quiet, s."
    )
    ecn: bool = Field(False, description="Mark ECT packets while the probability is at most 10 %.")

    def to_core(self) -> dict[str, Any]:
        return {
            **self._core_limits(),
            "aqm": {"kind": "pie", "target_ps": seconds_to_ps(self.target_s),
                    "tupdate_ps": seconds_to_ps(self.tupdate_s), "alpha": float(self.alpha),
                    "beta": float(self.beta), "max_burst_ps": seconds_to_ps(self.max_burst_s),
                    "ecn": self.ecn},
        }


CoDel = Codel
"""The name before issue 28 (one capital per word, as ``Pie``, ``Red``, ``Dctcp``): :class:`Codel`."""
FqCoDel = FqCodel
"""The name before issue 28: :class:`FqCodel`."""

_QUEUE_KINDS = ("droptail", "red", "step", "hysteresis", "codel", "fq_codel", "pie")


QueueConfig = Annotated[
    Union[
        Annotated[DropTail, Tag("droptail")],
        Annotated[Red, Tag("red")],
        Annotated[Step, Tag("step")],
        Annotated[Hysteresis, Tag("hysteresis")],
        Annotated[Codel, Tag("codel")],
        Annotated[FqCodel, Tag("fq_codel")],
        Annotated[Pie, Tag("pie")],
    ],
    Discriminator(_kind_of("droptail")),
]
"""A queue discipline, tagged by ``kind`` (default ``droptail``)."""

for _q in (DropTail, Red, Step, Hysteresis, Codel, FqCodel, Pie):
    _q.model_rebuild()
