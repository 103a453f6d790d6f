"""The scenario: the single source of truth for one run's configuration.

A :class:`Scenario` mirrors the core's run configuration
(``crates/dumbbell-core/src/config.rs``) in human units: rates in bit/s
(numbers or strings such as ``"100Mbps"``), times in seconds (numbers or
strings such as ``"75us"``). :meth:`Scenario.to_core` produces exactly the
core's JSON document (integer picoseconds and bit/s, every enum tagged by
``kind``).

Everything is checked before any simulation starts, and every error is a
:class:`~dumbbell.errors.ConfigError` naming the field at fault with the path
the user wrote (``links[1].rate_bps``, ``flows[0].cc``): bad numbers, unknown
controls or queue kinds, unknown nodes, links to nowhere, a disconnected
topology, hysteresis thresholds out of order, loss outside [0, 1).

Defaults: fields left unset (``None``) in :class:`TcpOptions` and in the
control parameters are not sent, so the core's defaults (Linux's) apply; they
are listed in each field's description.

A scenario in TOML::

    name = "two-flows"
    duration_s = 2.0
    hosts = ["a", "b", "c"]
    switches = ["s1"]

    [[links]]
    a = "a"
    b = "s1"
    rate_bps = "100Mbps"
    delay_s = "75us"

    # ... links b-s1, c-s1; the queue at s1's port toward c:
    [links.queue_ba]          # in a link a-b, queue_ab is a's port, queue_ba b's
    kind = "red"
    ...

    [[flows]]
    kind = "tcp"
    src = "a"
    dst = "c"
    cc = "dctcp"
"""

from __future__ import annotations

import json
import tomllib
from collections import deque
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BeforeValidator,
    ConfigDict,
    field_serializer,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)

from .classes import Classifier, Scheduler
from .controls import CongestionControl, check_control
from .errors import ConfigError
from .kmod import KernelModuleCc, module_id
from .model import U32_MAX, U64_MAX
from .model import Model as _Model
from .model import kind_of as _kind_of
from .suggest import did_you_mean
from .units import parse_rate_bps, parse_seconds, seconds_to_ps
from .workloads import MAX_TASKS, Arrivals, Control, Sizes

__all__ = [
    "Rate",
    "Seconds",
    "Node",
    "DropTail",
    "Red",
    "Step",
    "Hysteresis",
    "CoDel",
    "FqCoDel",
    "Pie",
    "QueueConfig",
    "Return",
    "Pipeline",
    "Link",
    "Reno",
    "Cubic",
    "Dctcp",
    "Linear",
    "Fractional",
    "Expolinear",
    "Bbr",
    "HighSpeed",
    "Vegas",
    "PythonCc",
    "Registered",
    "CcConfig",
    "TcpOptions",
    "TcpFlow",
    "UdpFlow",
    "Flow",
    "Workload",
    "QueueRecord",
    "Record",
    "Scenario",
    "red_wlog_for_burst",
    "CONTROLS",
]

# ---- Ranges. The core refuses the same values by itself
# (crates/dumbbell-core/src/validate.rs, which explains each bound); a test
# checks that the two agree. Every numeric field below states its range in
# its `Field` (ge/gt/le/lt), with its unit in the name or the description,
# where a documentation generator can read it.

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
MAX_FLOW_BYTES = 2**62
MAX_RED_TH = 1e12
MIN_AQM_TIME_S, MAX_AQM_TIME_S = 1e-6, 3600.0
"""CoDel's, FQ-CoDel's and PIE's target, interval and update period: 1 µs to one hour."""
MAX_FQ_FLOWS = 65536
"""Linux's largest number of FQ-CoDel flow queues."""
MIN_FQ_QUANTUM_BYTES, MAX_FQ_QUANTUM_BYTES = 256, 2**20
MAX_PIE_GAIN = 2.0
"""PIE's alpha and beta: Linux takes 0 to 32 sixteenths."""
MAX_PKT_BYTES = 65535
DEFAULT_RECORD_MAX_BYTES = 2 * 2**30
MIN_RECORD_MAX_BYTES, MAX_RECORD_MAX_BYTES = 2**20, 2**50

Rate = Annotated[int, BeforeValidator(parse_rate_bps), Field(ge=1, le=MAX_RATE_BPS)]
"""A positive rate in bit/s, at most 10 Tb/s: a number or a string such as ``"100Mbps"``."""

Seconds = Annotated[float, BeforeValidator(parse_seconds), Field(ge=0, le=MAX_TIME_S)]
"""A non-negative time in seconds: a number or a string such as ``"75us"``."""

Pkts = Annotated[int, Field(ge=0, le=U32_MAX)]
Bytes = Annotated[int, Field(ge=0, le=U64_MAX)]


# ---------------------------------------------------------------- nodes


class Pipeline(_Model):
    """A software switch's shared packet-processing pipeline (bmv2 in the
    hysteresis paper's Mininet testbed): every packet entering the switch,
    returned copies included, is processed one at a time at
    ``capacity_pps``; arrivals wait in a buffer of ``buffer_pkts`` packets
    and are dropped (reason ``pipeline``) when it is full."""

    capacity_pps: Annotated[
        float, Field(ge=1, le=1e12, allow_inf_nan=False, description="Packets processed per second.")
    ]
    buffer_pkts: Annotated[int, Field(ge=0, le=U32_MAX, description="Packets that may wait (the one in service not counted).")]

    def to_core(self) -> dict[str, Any]:
        return {"capacity_pps": float(self.capacity_pps), "buffer_pkts": self.buffer_pkts}


class Node(_Model):
    """A host (TCP/UDP endpoint) or a switch/router. A switch may model a
    software switch's shared ``pipeline``; without one it forwards in zero
    time."""

    name: Annotated[str, Field(min_length=1)]
    kind: Literal["host", "switch"] = "host"
    pipeline: Pipeline | None = None
    role: Literal["host", "leaf", "spine", "core"] | None = Field(
        None,
        description="Tier in a fabric (set by fat_tree and leaf_spine), named in Result.queues; "
        "unset: host for a host, none for a switch.",
    )

    def to_core(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.pipeline is not None:
            out["pipeline"] = self.pipeline.to_core()
        return out


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
        None, description="Makes this a two-class port (see dumbbell.classes): ideal, run2c or rafle."
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


class CoDel(_DelayAqm):
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


class FqCoDel(_DelayAqm):
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


_QUEUE_KINDS = ("droptail", "red", "step", "hysteresis", "codel", "fq_codel", "pie")


QueueConfig = Annotated[
    Union[
        Annotated[DropTail, Tag("droptail")],
        Annotated[Red, Tag("red")],
        Annotated[Step, Tag("step")],
        Annotated[Hysteresis, Tag("hysteresis")],
        Annotated[CoDel, Tag("codel")],
        Annotated[FqCoDel, Tag("fq_codel")],
        Annotated[Pie, Tag("pie")],
    ],
    Discriminator(_kind_of("droptail")),
]
"""A queue discipline, tagged by ``kind`` (default ``droptail``)."""

for _q in (DropTail, Red, Step, Hysteresis, CoDel, FqCoDel, Pie):
    _q.model_rebuild()


# ---------------------------------------------------------------- links


class Netem(_Model):
    """A network emulator in front of one direction of a link, as Linux's
    ``sch_netem`` on a router's egress: a packet is lost with probability
    ``loss`` when it arrives (it never reaches the queue or the wire), else it
    waits ``delay_s`` in a delay line and then joins the port's queue; the
    stage holds at most ``limit_pkts`` packets, delay line and queue together
    (netem's ``limit``, 1000 by default; ``None``: no limit)."""

    loss: Annotated[float, Field(ge=0, lt=1)] = Field(0.0, description="Loss probability at arrival.")
    delay_s: Annotated[Seconds, Field(le=MAX_LINK_DELAY_S)] = Field(0.0, description="Delay line, s.")
    limit_pkts: Annotated[int, Field(ge=1, le=U32_MAX)] | None = Field(
        1000, description="Packets held at most, delay line and queue (None: no limit)."
    )

    def to_core(self) -> dict[str, Any]:
        return {"loss": float(self.loss), "delay_ps": seconds_to_ps(self.delay_s), "limit_pkts": self.limit_pkts}


class Link(_Model):
    """A full-duplex link between nodes ``a`` and ``b``.

    Each direction has its own egress queue: ``queue_ab`` at ``a``'s port
    toward ``b``, ``queue_ba`` at ``b``'s port toward ``a`` (unset: drop-tail
    of 1000 packets), and its own Bernoulli loss probability. ``jitter_s``
    adds a uniform random extra delay per packet (both directions, drawn from
    the link's own random streams) without reordering. ``reorder_ab`` /
    ``reorder_ba`` hold each packet back ``reorder_delay_s`` longer with that
    probability, so that the packets behind it overtake it. ``loss_ab`` drops
    a packet after it was serialized (an impaired wire: the lost packet used
    the link); ``netem_ab`` puts a :class:`Netem` stage in front of ``a``'s
    port instead (loss at arrival, a delay line, one limit).
    """

    a: Annotated[str, Field(min_length=1)]
    b: Annotated[str, Field(min_length=1)]
    rate_bps: Rate
    delay_s: Annotated[Seconds, Field(le=MAX_LINK_DELAY_S)] = Field(0.0, description="One-way propagation delay, s.")
    loss_ab: Annotated[float, Field(ge=0, lt=1)] = Field(0.0, description="Loss probability from a to b.")
    loss_ba: Annotated[float, Field(ge=0, lt=1)] = Field(0.0, description="Loss probability from b to a.")
    jitter_s: Annotated[Seconds, Field(le=MAX_LINK_DELAY_S)] = Field(
        0.0,
        description="Extra one-way delay per packet, s, uniform in [0, jitter_s], in each direction; "
        "FIFO order is kept.",
    )
    reorder_ab: Annotated[float, Field(ge=0, lt=1)] = Field(
        0.0, description="Probability that a packet from a to b is held back reorder_delay_s."
    )
    reorder_ba: Annotated[float, Field(ge=0, lt=1)] = Field(0.0, description="The same from b to a.")
    reorder_delay_s: Annotated[Seconds, Field(le=MAX_LINK_DELAY_S)] = Field(
        0.0, description="Extra one-way delay of a reordered packet, s."
    )
    queue_ab: QueueConfig | None = None
    queue_ba: QueueConfig | None = None
    netem_ab: Netem | None = None
    netem_ba: Netem | None = None

    @model_validator(mode="after")
    def _reorder_delay(self) -> Link:
        if (self.reorder_ab or self.reorder_ba) and self.reorder_delay_s <= 0:
            raise ConfigError("reorder_delay_s", "reordering needs a positive extra delay")
        return self

    def to_core(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "rate_bps": self.rate_bps,
            "delay_ps": seconds_to_ps(self.delay_s),
            "loss_ab": float(self.loss_ab),
            "loss_ba": float(self.loss_ba),
            "jitter_ps": seconds_to_ps(self.jitter_s),
            "queue_ab": self.queue_ab.to_core() if self.queue_ab is not None else None,
            "queue_ba": self.queue_ba.to_core() if self.queue_ba is not None else None,
            **(
                {"reorder_ab": float(self.reorder_ab), "reorder_ba": float(self.reorder_ba),
                 "reorder_delay_ps": seconds_to_ps(self.reorder_delay_s)}
                if self.reorder_ab or self.reorder_ba else {}
            ),
            **{k: v.to_core() for k, v in (("netem_ab", self.netem_ab), ("netem_ba", self.netem_ba)) if v is not None},
        }


# ---------------------------------------------------------------- congestion control


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


class Reno(_Model):
    """Reno/NewReno (RFC 5681, 6582; Linux ``tcp_reno_cong_avoid``)."""

    kind: Literal["reno"] = "reno"

    def to_core(self) -> dict[str, Any]:
        return {"kind": "reno"}


class Cubic(_Model):
    """Cubic (RFC 9438, Linux ``tcp_cubic.c``). Unset parameters take the
    core's defaults: beta 717/1024, C 0.4, fast convergence, TCP-friendly
    region and HyStart (ACK train and delay) on, HyStart low window 16,
    ACK-train delta 2000 µs, a 250 Hz jiffies clock (Debian's kernel)."""

    kind: Literal["cubic"] = "cubic"
    beta: Annotated[float, Field(gt=0, lt=1, description="Multiplicative decrease factor.")] | None = None
    c: Annotated[float, Field(gt=0, le=100, description="Cubic constant C, packets/s³.")] | None = None
    fast_convergence: bool | None = None
    tcp_friendliness: bool | None = None
    hystart: bool | None = None
    hystart_ack_train: bool | None = None
    hystart_delay: bool | None = None
    hystart_low_window: Annotated[int, Field(ge=0, le=U32_MAX)] | None = None
    hystart_ack_delta_us: Annotated[int, Field(ge=0, le=U32_MAX, description="ACK-train spacing threshold, µs.")] | None = None
    hz: Annotated[int, Field(ge=1, le=1_000_000, description="Jiffies per second of Cubic's clock (Linux CONFIG_HZ; 250 = Debian's kernel, 1000 = Fedora's).")] | None = None

    def to_core(self) -> dict[str, Any]:
        return {"kind": "cubic", **_drop_none(self.model_dump(exclude={"kind"}))}


class Dctcp(_Model):
    """DCTCP (RFC 8257, Linux ``tcp_dctcp.c``). Unset parameters take the
    core's defaults: g = 2^-4 (``shift_g`` 4), initial alpha 1."""

    kind: Literal["dctcp"] = "dctcp"
    shift_g: Annotated[int, Field(ge=0, le=31)] | None = None
    alpha_init: Annotated[float, Field(ge=0, le=1)] | None = None

    def to_core(self) -> dict[str, Any]:
        return {"kind": "dctcp", **_drop_none(self.model_dump(exclude={"kind"}))}


# ---- Madeira and Mattos (E3 `lossy-cc`): Linear, Fractional, Expolinear. Unset
# parameters take the core's defaults, the constants of the authors' kernel
# modules; t is in whole milliseconds since the session start or last loss.

_Slope = Annotated[float, Field(ge=0, le=1e6, description="Packets per ms (slow start: per ms³).")]
_Pct = Annotated[int, Field(ge=1, le=99)]
_PosPkts = Annotated[int, Field(ge=1, le=U32_MAX)]


class Linear(_Model):
    """Linear (Madeira and Mattos §4, ``linha01.c``). Defaults: slow start J += max(2·t³, 2)
    per ACK event (``ss_alpha`` 2, ``ss_min_pkts`` 2), recovery J = b_r + 1·t
    (``beta_r``), avoidance J = threshold + 2·t (``beta_a``), reduction 10 %
    (``reduction_pct``; the paper's variants 20, 50), or with ``adaptive``
    R = 15 + 35·lost/sent % (``adaptive_min_pct``, ``adaptive_span_pct``),
    lost/sent counted over rounds of data (``adaptive_count="round"``) or on
    the loss-reporting ACK alone (``"ack"``);
    initial threshold 200 and b_r 1 packets. ``module_hook`` (default
    false) makes the ``ssthresh`` hook enter recovery as ``linha01.c``'s
    does (see ``cc/loss_phases.rs``). ``wrap_seq`` compares sequence numbers
    in 32 bits from a random initial one in the reduction gate, as the
    compiled module does; unset, it follows ``module_hook`` (the module's
    hook moves the recovery point at every Recovery entry; without it a
    wrapped point would shut the gate for 4 GiB of data)."""

    kind: Literal["linear"] = "linear"
    ss_alpha: _Slope | None = None
    ss_min_pkts: Pkts | None = None
    beta_r: _Slope | None = None
    beta_a: _Slope | None = None
    reduction_pct: _Pct | None = None
    adaptive: bool | None = None
    adaptive_min_pct: _Pct | None = None
    adaptive_span_pct: Annotated[int, Field(ge=0, le=98)] | None = None
    adaptive_count: Literal["round", "ack"] | None = None
    initial_threshold_pkts: _PosPkts | None = None
    initial_base_pkts: _PosPkts | None = None
    module_hook: bool | None = None
    wrap_seq: bool | None = None

    @model_validator(mode="after")
    def _check(self) -> Linear:
        lo = 15 if self.adaptive_min_pct is None else self.adaptive_min_pct
        span = 35 if self.adaptive_span_pct is None else self.adaptive_span_pct
        if lo + span > 99:
            raise ConfigError("adaptive_span_pct", f"adaptive_min_pct + adaptive_span_pct = {lo + span} must be at most 99")
        return self

    def to_core(self) -> dict[str, Any]:
        return {"kind": "linear", **_drop_none(self.model_dump(exclude={"kind"}))}


class Fractional(_Model):
    """Fractional, "Fracionário" (Madeira and Mattos §4, ``frac01.c``). Defaults: slow start
    J += 1 per ACK event, what the module does as compiled (its ``time_in_ms``
    is never assigned; ``slow_start="cubic_time"`` gives the J += max(2·t³, 1)
    its source seems to say, see ``cc/fractional.rs``), reduction 20 %,
    Δ_r = 10 % of the reduction (``delta_pct``), recovery J += γ_r·Δ_r per
    ACK event with γ_r cycling through ``gamma_r`` = [0, 4, 5, 1], avoidance
    J += max(J·5/100, 1) per ACK event (``gamma_a_pct``); ``wrap_seq``
    (default true) compares sequence numbers in the reduction gate in 32
    bits from a random initial one, as the compiled module does."""

    kind: Literal["fractional"] = "fractional"
    slow_start: Literal["per_ack", "cubic_time"] | None = None
    ss_alpha: _Slope | None = None
    ss_min_pkts: Pkts | None = None
    reduction_pct: _Pct | None = None
    delta_pct: Annotated[int, Field(ge=1, le=100)] | None = None
    gamma_r: Annotated[list[Annotated[int, Field(ge=0, le=1000)]], Field(min_length=1)] | None = None
    gamma_a_pct: Annotated[int, Field(ge=0, le=1000)] | None = None
    wrap_seq: bool | None = None

    def to_core(self) -> dict[str, Any]:
        return {"kind": "fractional", **_drop_none(self.model_dump(exclude={"kind"}))}


class Expolinear(_Model):
    """Expolinear (Madeira and Mattos §4, ``expolin01.c``). Defaults: slow start
    J += max(2·t³, 2) per ACK event, reduction 20 %, recovery
    J = b_r + η_r·Δ_r·(1 − 2^(−⌊σt⌋)) + 1 with Δ_r the whole reduction,
    η_r 1 (``eta_r``) and σ 1/4 per ms (``sigma_per_ms``), avoidance
    J = threshold + 2·t (``eta_a``); initial threshold 200, b_r 1, Δ_r 1.
    2^(−k) is the module's ``65536 >> k`` with the shift count taken modulo
    32 as x86 executes it (``shift_mod_32``, default true: the recovery
    window falls back every 128 ms while recovery lasts). ``module_hook``
    (default false) makes the ``ssthresh`` hook enter recovery as
    ``expolin01.c``'s does (see ``cc/loss_phases.rs``); ``wrap_seq`` as for
    Linear."""

    kind: Literal["expolinear"] = "expolinear"
    ss_alpha: _Slope | None = None
    ss_min_pkts: Pkts | None = None
    reduction_pct: _Pct | None = None
    eta_r: _Slope | None = None
    sigma_per_ms: Annotated[float, Field(gt=0, le=1000, description="σ, per ms.")] | None = None
    eta_a: _Slope | None = None
    initial_threshold_pkts: _PosPkts | None = None
    initial_base_pkts: _PosPkts | None = None
    initial_delta_pkts: Pkts | None = None
    shift_mod_32: bool | None = None
    module_hook: bool | None = None
    wrap_seq: bool | None = None

    def to_core(self) -> dict[str, Any]:
        return {"kind": "expolinear", **_drop_none(self.model_dump(exclude={"kind"}))}


class Bbr(_Model):
    """BBR v1 (Linux ``tcp_bbr.c``). Unset parameters take the core's
    defaults, Linux's: Startup gain 2.885 (2/ln 2), Drain gain 1/high gain,
    cwnd gain 2, ProbeBW gains 5/4 and 3/4 (then 1 × 6), a 10-round
    bandwidth window, a 10 s min-RTT window, 200 ms of ProbeRTT (0 disables
    it), a full pipe after 3 rounds under 25 % growth, pacing 1 % below the
    estimate, a 1.2 Mb/s TSO threshold, and the ACK-aggregation
    (``extra_acked``) and long-term policer (``lt_bw``) estimators on."""

    kind: Literal["bbr"] = "bbr"
    high_gain: Annotated[float, Field(gt=1, le=16)] | None = None
    drain_gain: Annotated[float, Field(gt=0, le=1)] | None = None
    cwnd_gain: Annotated[float, Field(ge=1, le=16)] | None = None
    probe_bw_up_gain: Annotated[float, Field(ge=1, le=16)] | None = None
    probe_bw_down_gain: Annotated[float, Field(gt=0, le=1)] | None = None
    bw_win_rounds: Annotated[int, Field(ge=1, le=U32_MAX)] | None = None
    min_rtt_win_s: Annotated[float, Field(gt=0, le=1e6)] | None = None
    probe_rtt_mode_ms: Annotated[float, Field(ge=0, le=1e9)] | None = None
    full_bw_thresh: Annotated[float, Field(gt=1, le=16)] | None = None
    full_bw_cnt: Annotated[int, Field(ge=1, le=U32_MAX)] | None = None
    pacing_margin_percent: Annotated[int, Field(ge=0, lt=100)] | None = None
    min_tso_rate_bps: Annotated[int, Field(ge=0, le=U64_MAX)] | None = None
    extra_acked: bool | None = None
    lt_bw: bool | None = None

    def to_core(self) -> dict[str, Any]:
        return {"kind": "bbr", **_drop_none(self.model_dump(exclude={"kind"}))}


class HighSpeed(_Model):
    """HighSpeed TCP (RFC 3649; de Rezende, Costa and Rubinstein §III; Linux ``tcp_highspeed.c``).
    Unset parameters take the core's defaults: ``mode`` ``"formula"``
    (RFC 3649's a(w), b(w) from the parameters; ``"linux_table"`` uses
    Linux's table and counts its increase per ACK, ignoring the rest),
    Low_Window 38 and High_Window 83000 packets, Low_P 1e-3, High_P 1e-7,
    High_Decrease 0.1."""

    kind: Literal["highspeed"] = "highspeed"
    mode: Literal["formula", "linux_table"] | None = None
    low_window: Annotated[int, Field(ge=1, le=U32_MAX)] | None = None
    high_window: Annotated[int, Field(ge=2, le=U32_MAX)] | None = None
    low_p: Annotated[float, Field(gt=0, lt=1)] | None = None
    high_p: Annotated[float, Field(gt=0, lt=1)] | None = None
    high_decrease: Annotated[float, Field(gt=0, le=0.5)] | None = None

    @model_validator(mode="after")
    def _order(self) -> HighSpeed:
        # Unset values are the core's defaults.
        low_w = 38 if self.low_window is None else self.low_window
        high_w = 83000 if self.high_window is None else self.high_window
        low_p = 1e-3 if self.low_p is None else self.low_p
        high_p = 1e-7 if self.high_p is None else self.high_p
        if high_w <= low_w:
            raise ConfigError("high_window", f"must be above low_window ({high_w} <= {low_w})")
        if high_p >= low_p:
            raise ConfigError("high_p", f"must be below low_p ({high_p:g} >= {low_p:g})")
        return self

    def to_core(self) -> dict[str, Any]:
        return {"kind": "highspeed", **_drop_none(self.model_dump(exclude={"kind"}))}


class Vegas(_Model):
    """TCP Vegas (Linux ``tcp_vegas.c``). Unset parameters take the core's
    defaults: alpha 2, beta 4, gamma 1 (packets this flow keeps queued)."""

    kind: Literal["vegas"] = "vegas"
    alpha: Annotated[int, Field(ge=0, le=U32_MAX)] | None = None
    beta: Annotated[int, Field(ge=0, le=U32_MAX)] | None = None
    gamma: Annotated[int, Field(ge=0, le=U32_MAX)] | None = None

    @model_validator(mode="after")
    def _order(self) -> Vegas:
        alpha = 2 if self.alpha is None else self.alpha  # the core's defaults
        beta = 4 if self.beta is None else self.beta
        if alpha > beta:
            raise ConfigError("beta", f"must be at least alpha ({beta} < {alpha})")
        return self

    def to_core(self) -> dict[str, Any]:
        return {"kind": "vegas", **_drop_none(self.model_dump(exclude={"kind"}))}


BUILTIN_CONTROLS = ("reno", "cubic", "dctcp", "highspeed", "vegas", "bbr", "linear", "fractional", "expolinear")
"""The controls with their own model here (and configuration variant in the core)."""


def _registered() -> dict[str, str]:
    from . import _native

    return dict(_native.registered_controls())


REGISTERED: dict[str, str] = _registered()
"""The core's registered controls (``cc/registry.rs``), name → one sentence:
added with one file and one line in the core, no model here (see
``docs/controls.md``)."""

CONTROLS = BUILTIN_CONTROLS + tuple(n for n in REGISTERED if n not in BUILTIN_CONTROLS)
"""The congestion controls the core implements today, by name."""


class Registered(_Model):
    """A control of the core's registry (``crates/dumbbell-core/src/cc/registry.rs``),
    by name, with its parameters: ``cc = "scalable"`` or ``cc = {kind =
    "scalable", ai_cnt = 50}``. The core checks the parameters before the
    run, naming ``cc.params.<name>``; unset ones take the control's
    defaults (see its file in ``crates/dumbbell-core/src/cc/``)."""

    kind: Annotated[str, Field(min_length=1, description="The registered name (`dumbbell list`).")]
    params: dict[str, Any] = Field(default_factory=dict, description="The control's parameters (its own names and units).")

    @field_validator("kind")
    @classmethod
    def _known(cls, v: str) -> str:
        if v not in REGISTERED:
            raise ValueError(
                f"unknown registered control {v!r}{did_you_mean(v, REGISTERED)} (known: {', '.join(REGISTERED) or 'none'})"
            )
        return v

    def to_core(self) -> dict[str, Any]:
        return {"kind": "registered", "name": self.kind, "params": dict(self.params)}


class PythonCc(_Model):
    """A congestion control written in Python: an instance of a subclass of
    :class:`dumbbell.controls.CongestionControl`, passed as ``cc=`` (see
    ``docs/controls.md``). The core runs it through the embedding's
    ``external`` controls; it exists in Python only, so a scenario holding
    one cannot be written to TOML nor sent to another process."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    kind: Literal["python"] = "python"
    control: Any = Field(
        description="An instance of a subclass of `dumbbell.controls.CongestionControl`, written `cc=MyControl()` "
        "(Python only: a TOML file cannot hold one)."
    )

    @field_validator("control", mode="plain")
    @classmethod
    def _usable(cls, v: Any) -> CongestionControl:
        return check_control(v)

    @field_serializer("control", when_used="json")
    def _as_text(self, v: CongestionControl) -> str:
        return f"python:{type(v).__module__}.{type(v).__qualname__}"

    def to_core(self) -> dict[str, Any]:
        # The id is the control's path in the scenario, set by Scenario.to_core.
        return {"kind": "external", "id": ""}


def _cc_shorthand(v: Any) -> Any:
    """``"dctcp"`` → ``{"kind": "dctcp"}``; a :class:`CongestionControl`
    instance → a :class:`PythonCc`; refuses unknown controls by name."""
    if isinstance(v, CongestionControl) or isinstance(v, type):
        return PythonCc(control=check_control(v))
    if isinstance(v, str) and v.startswith("python:"):
        raise ValueError(
            f"{v[7:]} is a control written in Python: it cannot be read from a file; "
            "pass an instance as cc= in Python"
        )
    if isinstance(v, (PythonCc, KernelModuleCc)):
        return v
    if isinstance(v, dict) and "module" in v and v.get("kind", "module") == "module":
        return v  # a kernel module: `{module = "tcp_cubic.c", params = {...}}`
    if not isinstance(v, (str, dict)) and getattr(v, "kind", None) is None:
        check_control(v)  # says what a cc= value may be
    kind = v if isinstance(v, str) else (v.get("kind") if isinstance(v, dict) else getattr(v, "kind", None))
    if kind == "python" and isinstance(v, dict):
        if isinstance(v.get("control"), str):
            raise ValueError(
                f"{v['control'].removeprefix('python:')} is a control written in Python: it cannot be read "
                "from a file; pass an instance as cc= in Python"
            )
        return v
    if isinstance(v, dict) and kind is None:
        raise ValueError(f"missing `kind` (one of {', '.join(CONTROLS)})")
    if kind not in CONTROLS:
        raise ValueError(f"unknown congestion control {kind!r}{did_you_mean(kind, CONTROLS)} (known: {', '.join(CONTROLS)})")
    if kind in REGISTERED and kind not in BUILTIN_CONTROLS:
        # `{kind = "scalable", ai_cnt = 50}` is `{kind = "scalable", params = {ai_cnt = 50}}`
        if isinstance(v, str):
            return {"kind": v}
        if isinstance(v, dict) and "params" not in v:
            return {"kind": kind, "params": {k: x for k, x in v.items() if k != "kind"}}
    return {"kind": v} if isinstance(v, str) else v


def _cc_tag(v: Any) -> str | None:
    """The union member of a control: its kind, or ``registered``."""
    if isinstance(v, KernelModuleCc) or (isinstance(v, dict) and "module" in v and "kind" not in v):
        return "module"
    kind = _kind_of("cubic")(v)
    return "registered" if kind in REGISTERED and kind not in BUILTIN_CONTROLS else kind


CcConfig = Annotated[
    Union[
        Annotated[Reno, Tag("reno")],
        Annotated[Cubic, Tag("cubic")],
        Annotated[Dctcp, Tag("dctcp")],
        Annotated[Linear, Tag("linear")],
        Annotated[Fractional, Tag("fractional")],
        Annotated[Expolinear, Tag("expolinear")],
        Annotated[Bbr, Tag("bbr")],
        Annotated[HighSpeed, Tag("highspeed")],
        Annotated[Vegas, Tag("vegas")],
        Annotated[PythonCc, Tag("python")],
        Annotated[KernelModuleCc, Tag("module")],
        Annotated[Registered, Tag("registered")],
    ],
    Discriminator(_cc_tag),
    BeforeValidator(_cc_shorthand),
]
"""A congestion control: a name (``"dctcp"``), a table with ``kind`` and
parameters, a Linux module's C source (``{module = "tcp_cubic.c"}``,
:func:`dumbbell.KernelModule`), or (in Python) an instance of a subclass of
:class:`dumbbell.controls.CongestionControl`."""


class TcpOptions(_Model):
    """TCP stack options. Unset fields take the core's defaults (Linux's):
    MSS 1448 B, 40 B of headers, initial window 10, receive window 64 MiB,
    SACK on, ECN off (forced on by DCTCP), handshake on, delayed ACKs on
    (40 ms timer, quick-ACK for the first 16 segments), RTO min 200 ms,
    max 120 s, initial 1 s, dupthresh 3, TSQ 128 KiB, no rate cap; and the
    loss recovery Linux runs by default, each switchable: ``tlp`` (tail loss
    probe, RFC 8985 §7), ``rack`` (RACK time-based loss detection, RFC 8985
    §6; off: RFC 6675's DupThresh), ``timestamps`` (RFC 7323: RTT samples
    Karn forbids and Eifel detection of spurious retransmissions, RFC 3522),
    ``dsack`` (RFC 2883) and ``frto`` (F-RTO, RFC 5682); spurious reductions
    are undone through the control's ``undo_cwnd``. TLP and RACK need SACK."""

    mss_bytes: Annotated[int, Field(ge=MIN_MSS_BYTES, le=MAX_MSS_BYTES)] | None = Field(
        None, description="Segment payload, bytes (1448)."
    )
    header_bytes: Annotated[int, Field(ge=0, le=MAX_HEADER_BYTES)] | None = Field(
        None, description="TCP/IP header bytes on the wire per segment (40)."
    )
    init_cwnd_pkts: Annotated[int, Field(ge=1, le=MAX_INIT_CWND_PKTS)] | None = Field(
        None, description="Initial window, packets (10)."
    )
    rwnd_bytes: Annotated[int, Field(ge=1, le=MAX_RWND_BYTES)] | None = Field(
        None, description="Receive window, bytes, at least one MSS (64 MiB)."
    )
    sack: bool | None = None
    ecn: bool | None = None
    handshake: bool | None = None
    delayed_ack: bool | None = None
    delack_timeout_s: Annotated[Seconds, Field(ge=MIN_DELACK_S, le=MAX_DELACK_S)] | None = Field(
        None, description="Delayed-ACK timer, s (0.04)."
    )
    quickack_segments: Annotated[int, Field(ge=0, le=U32_MAX)] | None = Field(
        None, description="Segments ACKed at once at the start, segments (16)."
    )
    min_rto_s: Annotated[Seconds, Field(ge=MIN_RTO_S, le=MAX_RTO_S)] | None = Field(
        None, description="Smallest RTO, s (0.2)."
    )
    max_rto_s: Annotated[Seconds, Field(ge=MIN_RTO_S, le=MAX_RTO_S)] | None = Field(
        None, description="Largest RTO, s, at least min_rto_s (120)."
    )
    init_rto_s: Annotated[Seconds, Field(ge=MIN_RTO_S, le=MAX_RTO_S)] | None = Field(
        None, description="RTO before the first RTT sample, s (1)."
    )
    dupthresh: Annotated[int, Field(ge=1, le=MAX_DUPTHRESH)] | None = Field(
        None, description="Duplicate-ACK threshold, packets (3)."
    )
    tsq_bytes: Annotated[int, Field(ge=0, le=MAX_TSQ_BYTES)] | None = Field(
        None, description="TCP-small-queues cap, bytes; 0 disables it (131072)."
    )
    max_rate_bps: Rate | None = Field(None, description="Sender rate cap, bit/s (none).")
    tlp: bool | None = Field(None, description="Tail loss probe, RFC 8985 (on; needs SACK).")
    rack: bool | None = Field(None, description="RACK loss detection, RFC 8985 (on; needs SACK).")
    timestamps: bool | None = Field(None, description="TCP timestamps with Eifel undo, RFC 7323/3522 (on).")
    dsack: bool | None = Field(None, description="D-SACK, RFC 2883 (on).")
    frto: bool | None = Field(None, description="F-RTO, RFC 5682 (on).")

    @model_validator(mode="after")
    def _order(self) -> TcpOptions:
        # Unset values are the core's defaults.
        lo = 0.2 if self.min_rto_s is None else self.min_rto_s
        hi = 120.0 if self.max_rto_s is None else self.max_rto_s
        if hi < lo:
            raise ConfigError("max_rto_s", f"must be at least min_rto_s ({hi:g} < {lo:g})")
        mss = 1448 if self.mss_bytes is None else self.mss_bytes
        if self.rwnd_bytes is not None and self.rwnd_bytes < mss:
            raise ConfigError("rwnd_bytes", f"must hold one MSS ({self.rwnd_bytes} < {mss})")
        if self.sack is False:
            for name in ("tlp", "rack"):
                if getattr(self, name):
                    raise ConfigError(name, f"{name} needs SACK (sack is false)")
        return self

    def to_core(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in self.model_dump().items():
            if value is None:
                continue
            if name.endswith("_s"):
                out[name[:-2] + "_ps"] = seconds_to_ps(value)
            else:
                out[name] = value
        return out


# ---------------------------------------------------------------- flows


class _FlowBase(_Model):
    name: Annotated[str, Field(min_length=1)] | None = Field(None, description="Unique; default `<kind><index>`.")
    src: Annotated[str, Field(min_length=1)]
    dst: Annotated[str, Field(min_length=1)]
    start_s: Seconds = Field(0.0, description="When the flow starts, s.")
    stop_s: Seconds | None = Field(None, description="Stop sending new data, s (unset: at the end of the run).")

    @model_validator(mode="after")
    def _times(self):
        if self.stop_s is not None and self.stop_s <= self.start_s:
            raise ConfigError("stop_s", f"must be after start_s ({self.stop_s:g} <= {self.start_s:g})")
        return self

    def _core_common(self, index: int) -> dict[str, Any]:
        return {
            "kind": self.kind,  # type: ignore[attr-defined]
            "name": self.name or f"{self.kind}{index}",  # type: ignore[attr-defined]
            "src": self.src,
            "dst": self.dst,
            "start_ps": seconds_to_ps(self.start_s),
            "stop_ps": seconds_to_ps(self.stop_s) if self.stop_s is not None else None,
        }


class TcpFlow(_FlowBase):
    """A bulk TCP transfer (iperf-like): unlimited, or ``bytes`` long."""

    kind: Literal["tcp"] = "tcp"
    bytes: Annotated[int, Field(ge=1, le=MAX_FLOW_BYTES)] | None = Field(
        None, description="Bytes to transfer (unset: unlimited)."
    )
    cc: CcConfig = Field(default_factory=Cubic)
    tcp: TcpOptions = Field(default_factory=TcpOptions)

    def to_core(self, index: int) -> dict[str, Any]:
        return {**self._core_common(index), "bytes": self.bytes, "cc": self.cc.to_core(), "tcp": self.tcp.to_core()}


class UdpFlow(_FlowBase):
    """UDP constant bit rate (iperf -u -b), not ECN-capable."""

    kind: Literal["udp"] = "udp"
    rate_bps: Rate
    payload_bytes: Annotated[int, Field(ge=1, le=65507)] = Field(1470, description="Datagram payload, bytes.")

    def to_core(self, index: int) -> dict[str, Any]:
        return {**self._core_common(index), "rate_bps": self.rate_bps, "payload_bytes": self.payload_bytes}


Flow = Annotated[
    Union[Annotated[TcpFlow, Tag("tcp")], Annotated[UdpFlow, Tag("udp")]],
    Discriminator(_kind_of("tcp")),
]
"""A flow, tagged by ``kind`` (default ``tcp``)."""


# ---------------------------------------------------------------- workloads


class Workload(_Model):
    """File-transfer tasks from ``servers`` to ``clients`` (see
    :mod:`dumbbell.workloads`): ``sizes`` (a file base or a CDF),
    ``arrivals`` (all at once, a closed loop of C tasks, or Poisson), an
    optional FTP-like ``control`` dialogue before each file. Every
    connection uses ``cc`` and ``tcp``. One row per task in the run's
    ``tasks`` table."""

    name: Annotated[str, Field(min_length=1)] = "tasks"
    clients: Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)]
    servers: Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)]
    sizes: Sizes
    arrivals: Arrivals
    start_s: Seconds = 0.0
    stop_s: Seconds | None = Field(None, description="No task starts at or after this time.")
    max_tasks: Annotated[int, Field(ge=1, le=MAX_TASKS)] | None = Field(None, description="At most this many tasks start.")
    control: Control | None = Field(None, description="The FTP-like dialogue; unset: one connection per task.")
    cc: CcConfig = Field(default_factory=Cubic)
    tcp: TcpOptions = Field(default_factory=TcpOptions)

    @model_validator(mode="after")
    def _check(self) -> Workload:
        if self.stop_s is not None and self.stop_s <= self.start_s:
            raise ConfigError("stop_s", f"must be after start_s ({self.stop_s:g} <= {self.start_s:g})")
        if self.arrivals.kind == "all_at_once" and self.sizes.kind == "cdf" and self.max_tasks is None:
            raise ConfigError("max_tasks", "starting tasks all at once from a CDF needs their number")
        both = set(self.clients) & set(self.servers)
        if both:
            j = next(i for i, h in enumerate(self.servers) if h in both)
            raise ConfigError(f"servers[{j}]", f"{self.servers[j]!r} is also a client of this workload")
        return self

    def to_core(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "clients": list(self.clients),
            "servers": list(self.servers),
            "sizes": self.sizes.to_core(),
            "arrivals": self.arrivals.to_core(),
            "start_ps": seconds_to_ps(self.start_s),
            "stop_ps": seconds_to_ps(self.stop_s) if self.stop_s is not None else None,
            "max_tasks": self.max_tasks,
            "control": self.control.to_core() if self.control is not None else None,
            "cc": self.cc.to_core(),
            "tcp": self.tcp.to_core(),
        }


# ---------------------------------------------------------------- recording


def _sample_period(v: float) -> float:
    if v != 0 and v < MIN_SAMPLE_S:
        raise ValueError(f"a sampling period is 0 (off / every change) or at least 1 ns, got {v:g} s")
    return v


class QueueRecord(_Model):
    """Trace the occupancy of ``node``'s port toward ``peer``."""

    node: Annotated[str, Field(min_length=1)]
    peer: Annotated[str, Field(min_length=1)]
    sample_s: Seconds = Field(
        0.0, description="0: every change; otherwise the sampling period, s (at least 1 ns)."
    )
    dequeue_times: bool = Field(False, description="Also record the start of every transmission.")
    from_s: Seconds = Field(0.0, description="Record from this time on, s.")
    to_s: Seconds | None = Field(None, description="Record until this time, s (unset: the end).")

    @field_validator("sample_s")
    @classmethod
    def _period(cls, v: float) -> float:
        return _sample_period(v)

    @model_validator(mode="after")
    def _window(self) -> QueueRecord:
        if self.to_s is not None and self.to_s <= self.from_s:
            raise ConfigError("to_s", f"must be after from_s ({self.to_s:g} <= {self.from_s:g})")
        return self

    def to_core(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "peer": self.peer,
            "sample_ps": seconds_to_ps(self.sample_s),
            "dequeue_times": self.dequeue_times,
            "from_ps": seconds_to_ps(self.from_s),
            "to_ps": seconds_to_ps(self.to_s) if self.to_s is not None else None,
        }


class Record(_Model):
    """What to record. Everything is off unless asked (the summary, flows and
    queues tables are always there)."""

    flow_sample_s: Seconds = Field(0.0, description="Per-flow sampling period, s (0: off; at least 1 ns).")
    cwnd_every_ack: bool = False
    queues: list[QueueRecord] = Field(default_factory=list)
    drop_log: bool = False
    tcp_vars: bool = Field(
        False,
        description="With each flow sample (or ACK, with `cwnd_every_ack`), also trace each TCP sender's "
        "loss recovery into `cc_vars` as `tcp.*` variables: retransmits, timeouts, recoveries, loss probes, "
        "D-SACKs and undos so far, and RACK's reordering window (needs `flow_sample_s` or `cwnd_every_ack`).",
    )
    warmup_s: Annotated[Seconds, Field(le=MAX_LINK_DELAY_S)] = Field(
        0.0,
        description="End of a warm-up, s (0: none); the flows table then adds `steady_goodput_bps`, "
        "each flow's goodput after it.",
    )
    max_bytes: Annotated[int, Field(ge=MIN_RECORD_MAX_BYTES, le=MAX_RECORD_MAX_BYTES)] = Field(
        DEFAULT_RECORD_MAX_BYTES,
        description="Budget of the recorded tables, bytes (2 GiB): periodic recorders are estimated "
        "against it before the run, the others held to it while it runs.",
    )

    @field_validator("flow_sample_s")
    @classmethod
    def _period(cls, v: float) -> float:
        return _sample_period(v)

    @model_validator(mode="after")
    def _tcp_vars_sampled(self) -> Record:
        if self.tcp_vars and not self.flow_sample_s and not self.cwnd_every_ack:
            raise ConfigError("tcp_vars", "traces at each flow sample or ACK: set flow_sample_s or cwnd_every_ack too")
        return self

    def to_core(self) -> dict[str, Any]:
        budget = {} if self.max_bytes == DEFAULT_RECORD_MAX_BYTES else {"max_bytes": self.max_bytes}
        warmup = {"warmup_ps": seconds_to_ps(self.warmup_s)} if self.warmup_s else {}
        tcp_vars = {"tcp_vars": True} if self.tcp_vars else {}
        return {
            **budget,
            **warmup,
            **tcp_vars,
            "flow_sample_ps": seconds_to_ps(self.flow_sample_s),
            "cwnd_every_ack": self.cwnd_every_ack,
            "queues": [q.to_core() for q in self.queues],
            "drop_log": self.drop_log,
        }


# ---------------------------------------------------------------- the scenario


class Scenario(_Model):
    """One run: topology, queues, flows, what to record, for how long.

    Build it in Python (or with :mod:`dumbbell.topology`), or load it with
    :meth:`from_toml`. Nodes are listed in ``nodes`` or, as a shorthand, in
    ``hosts`` and ``switches`` (lists of names).
    """

    name: Annotated[str, Field(min_length=1)] = "scenario"
    duration_s: Annotated[Seconds, Field(gt=0)] = Field(
        description="Simulated time, s: positive, and with the longest delay any component can schedule "
        "within the clock's 2^64 ps (about 213 days)."
    )
    seed: Annotated[int, Field(ge=0, le=U64_MAX)] = Field(1, description="Run seed; every random stream derives from it.")
    nodes: list[Node] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)
    flows: list[Flow] = Field(default_factory=list)
    workloads: list[Workload] = Field(default_factory=list)
    short_flow_max_bytes: Bytes = Field(
        16 * 1024,
        description="Ground truth of classification: a flow (or a task) is short if it moves at most this many bytes.",
    )
    record: Record = Field(default_factory=Record)
    routing: Literal["ecmp", "single", "spray"] = Field(
        "ecmp",
        description="Among equal-cost next hops: a per-switch hash of the 5-tuple (ecmp), the lowest port "
        "(single) or a draw per packet (spray, refused on a topology with one path).",
    )

    @model_validator(mode="before")
    @classmethod
    def _topology_shorthand(cls, data: Any) -> Any:
        from .fabric import expand_topology

        return expand_topology(data)

    __shorthand_fields__ = ("hosts", "switches")  # for "did you mean"

    @model_validator(mode="before")
    @classmethod
    def _node_shorthand(cls, data: Any) -> Any:
        from .shorthand import expand_nodes

        return expand_nodes(data)

    @model_validator(mode="after")
    def _check_graph(self) -> Scenario:
        self.check_graph()
        return self

    # -- checks -----------------------------------------------------------

    def check_graph(self) -> None:
        """Cross-field checks: names, endpoints, connectivity. Raises
        :class:`ConfigError` naming the field."""
        if self.duration_s <= 0:
            raise ConfigError("duration_s", f"must be positive, got {self.duration_s:g}")
        kinds: dict[str, str] = {}
        for i, n in enumerate(self.nodes):
            if n.name in kinds:
                raise ConfigError(f"nodes[{i}].name", f"duplicate node name {n.name!r}")
            if n.pipeline is not None and n.kind != "switch":
                raise ConfigError(f"nodes[{i}].pipeline", f"{n.name!r} is a host; only switches have a pipeline")
            kinds[n.name] = n.kind
        if not kinds:
            raise ConfigError("nodes", "the scenario has no nodes")
        adj: dict[str, set[str]] = {n: set() for n in kinds}
        for i, link in enumerate(self.links):
            for end in ("a", "b"):
                name = getattr(link, end)
                if name not in kinds:
                    raise ConfigError(f"links[{i}].{end}", f"unknown node {name!r}{_known(kinds, name)}")
            if link.a == link.b:
                raise ConfigError(f"links[{i}].b", f"a link must join two different nodes (both are {link.a!r})")
            if link.b in adj[link.a]:
                raise ConfigError(f"links[{i}]", f"a second link between {link.a!r} and {link.b!r}")
            for qname, owner in (("queue_ab", link.a), ("queue_ba", link.b)):
                q = getattr(link, qname)
                if q is not None and q.feedback is not None and kinds[owner] != "switch":
                    raise ConfigError(
                        f"links[{i}].{qname}.feedback",
                        f"packet return is a switch policy; this queue is host {owner!r}'s port",
                    )
            adj[link.a].add(link.b)
            adj[link.b].add(link.a)
        first = next(iter(kinds))
        seen = {first}
        todo = deque([first])
        while todo:
            for nxt in adj[todo.popleft()]:
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        if len(seen) != len(kinds):
            cut = [n for n in kinds if n not in seen]
            raise ConfigError(
                "links",
                f"disconnected topology: {', '.join(repr(n) for n in cut[:5])}"
                f"{' ...' if len(cut) > 5 else ''} cannot reach {first!r}",
            )
        names: set[str] = set()
        for i, f in enumerate(self.flows):
            for end in ("src", "dst"):
                name = getattr(f, end)
                if name not in kinds:
                    raise ConfigError(f"flows[{i}].{end}", f"unknown node {name!r}{_known(kinds, name)}")
                if kinds[name] != "host":
                    raise ConfigError(f"flows[{i}].{end}", f"{name!r} is a switch; flows run between hosts")
            if f.src == f.dst:
                raise ConfigError(f"flows[{i}].dst", f"a flow needs two different hosts (both are {f.src!r})")
            if f.start_s >= self.duration_s:
                raise ConfigError(
                    f"flows[{i}].start_s",
                    f"the flow starts at {f.start_s:g} s, at or after the run's end (duration_s = {self.duration_s:g})",
                )
            fname = f.name or f"{f.kind}{i}"
            if fname in names:
                raise ConfigError(f"flows[{i}].name", f"duplicate flow name {fname!r}")
            names.add(fname)
        wnames: set[str] = set()
        for i, w in enumerate(self.workloads):
            if w.name in wnames:
                raise ConfigError(f"workloads[{i}].name", f"duplicate workload name {w.name!r}")
            wnames.add(w.name)
            if w.start_s >= self.duration_s:
                raise ConfigError(
                    f"workloads[{i}].start_s",
                    f"the tasks start at {w.start_s:g} s, at or after the run's end (duration_s = {self.duration_s:g})",
                )
            for key in ("clients", "servers"):
                for j, h in enumerate(getattr(w, key)):
                    if h not in kinds:
                        raise ConfigError(f"workloads[{i}].{key}[{j}]", f"unknown node {h!r}{_known(kinds, h)}")
                    if kinds[h] != "host":
                        raise ConfigError(f"workloads[{i}].{key}[{j}]", f"{h!r} is a switch; tasks run between hosts")
        for i, q in enumerate(self.record.queues):
            for end in ("node", "peer"):
                if getattr(q, end) not in kinds:
                    raise ConfigError(f"record.queues[{i}].{end}", f"unknown node {getattr(q, end)!r}{_known(kinds, getattr(q, end))}")
            if q.peer not in adj[q.node]:
                raise ConfigError(f"record.queues[{i}].peer", f"no link between {q.node!r} and {q.peer!r}")

    def validated(self) -> Scenario:
        """A fresh, fully validated copy (catches edits made after construction)."""
        return type(self).model_validate(self.model_dump(mode="python", round_trip=True))

    # -- convenience edits ------------------------------------------------

    def link(self, a: str, b: str) -> Link:
        """The link between ``a`` and ``b`` (either order)."""
        for link in self.links:
            if {link.a, link.b} == {a, b}:
                return link
        raise KeyError(f"no link between {a!r} and {b!r}")

    def set_queue(
        self, node: str, peer: str, queue: DropTail | Red | Step | Hysteresis | CoDel | FqCoDel | Pie
    ) -> None:
        """Puts ``queue`` at ``node``'s port toward ``peer``."""
        link = self.link(node, peer)
        if link.a == node:
            link.queue_ab = queue
        else:
            link.queue_ba = queue

    def node(self, name: str) -> Node:
        """The node called ``name``."""
        for n in self.nodes:
            if n.name == name:
                return n
        raise KeyError(f"no node {name!r}")

    def add_workload(self, workload: Workload) -> Workload:
        """Appends ``workload`` (file-transfer tasks) and returns it."""
        self.workloads.append(workload)
        return workload

    def add_flow(self, flow: TcpFlow | UdpFlow) -> TcpFlow | UdpFlow:
        """Appends ``flow`` and returns it (checked, like every edit, by :meth:`to_core`)."""
        self.flows.append(flow)
        return flow

    # -- in and out -------------------------------------------------------

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scenario:
        """From plain data (as in a TOML file). Raises :class:`ConfigError`."""
        if not isinstance(data, dict):
            raise ConfigError("scenario", f"expected a table of fields, got {type(data).__name__}")
        return cls.model_validate(data)

    @classmethod
    def from_toml(cls, path: str | Path) -> Scenario:
        """Loads a TOML file. Every error is a :class:`ConfigError` whose field
        starts with the file's path (missing file, malformed TOML, bad field)."""
        p = Path(path)
        try:
            text = p.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raise ConfigError(str(p), "no such file") from None
        except IsADirectoryError:
            raise ConfigError(str(p), "is a directory, not a scenario file") from None
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(str(p), f"cannot read: {e}") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(str(p), f"malformed TOML: {e}") from None
        try:
            return cls.from_dict(data)
        except ConfigError as e:
            raise ConfigError(f"{p}: {e.field}", e.message) from None

    def to_toml(self, *, python_controls: Literal["error", "name"] = "error") -> str:
        """The scenario as TOML (round-trips through :meth:`from_toml`).

        A control written in Python cannot be written: with
        ``python_controls="error"`` (the default) that is a
        :class:`ConfigError` naming its field; with ``"name"`` its class's
        import path is written in its place (``control =
        "python:module.Class"``), a record for people that
        :meth:`from_toml` refuses, naming the field."""
        import tomli_w

        for path, c in self.python_controls().items():
            if python_controls == "name":
                break
            raise ConfigError(
                path,
                f"{type(c).__name__} is a control written in Python: a scenario holding one cannot be "
                "written to TOML (a file names the core's controls only; see docs/controls.md to move "
                "it to Rust)",
            )
        data = self.model_dump(mode="json", exclude_none=True)
        return tomli_w.dumps(data)

    def python_controls(self) -> dict[str, CongestionControl]:
        """The controls written in Python, by their path in the scenario
        (``flows[0].cc``): the ids :meth:`to_core` gives them."""
        out: dict[str, CongestionControl] = {}
        for key, items in (("flows", self.flows), ("workloads", self.workloads)):
            for i, item in enumerate(items):
                cc = getattr(item, "cc", None)
                if isinstance(cc, PythonCc):
                    out[f"{key}[{i}].cc"] = cc.control
        return out

    def to_core(self, seed: int | None = None) -> dict[str, Any]:
        """The core's run configuration (``config.rs``): integer picoseconds and
        bit/s, enums tagged by ``kind``. ``seed`` overrides the scenario's.
        A control written in Python becomes ``{"kind": "external", "id":
        "<its path>"}``; :meth:`python_controls` gives the objects by id."""
        s = self.validated()
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= U64_MAX:
                raise ConfigError("seed", f"must be an integer in [0, 2^64), got {seed!r}")
            run_seed = seed
        else:
            run_seed = s.seed
        flows = [f.to_core(i) for i, f in enumerate(s.flows)]
        workloads = [w.to_core() for w in s.workloads]
        for key, docs, items in (("flows", flows, s.flows), ("workloads", workloads, s.workloads)):
            for i, doc in enumerate(docs):
                if doc.get("cc", {}).get("kind") == "external":
                    cc = getattr(items[i], "cc", None)
                    if isinstance(cc, KernelModuleCc):
                        # one kernel per sending host (a workload's tasks: one for the workload)
                        host = getattr(items[i], "src", None) or f"workload:{getattr(items[i], 'name', i)}"
                        doc["cc"]["id"] = module_id(cc, f"{key}[{i}].cc", host)
                    else:
                        doc["cc"]["id"] = f"{key}[{i}].cc"
        return {
            "seed": run_seed,
            "duration_ps": seconds_to_ps(s.duration_s),
            "nodes": [n.to_core() for n in s.nodes],
            "links": [link.to_core() for link in s.links],
            "flows": flows,
            "workloads": workloads,
            "short_flow_max_bytes": s.short_flow_max_bytes,
            "record": s.record.to_core(),
            # only when not the default: earlier documents (and the store's keys) stay as they were
            **({"routing": s.routing} if s.routing != "ecmp" else {}),
        }

    def to_json(self, seed: int | None = None) -> str:
        """:meth:`to_core` as a JSON string, as the core reads it."""
        return json.dumps(self.to_core(seed), allow_nan=False)


def _known(kinds: dict[str, str], name: object = None) -> str:
    names = list(kinds)
    return f"{did_you_mean(name, names)} (known: {', '.join(names[:8])}{' ...' if len(names) > 8 else ''})"
