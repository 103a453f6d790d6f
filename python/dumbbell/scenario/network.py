"""The network of a scenario: nodes (hosts and switches, with their
processing ``Pipeline``), links and their ``Netem`` stages.
"""

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from ..errors import ConfigError
from .base import BUILT_AT_IMPORT, Model as _Model, U32_MAX
from .queues import QueueConfig
from .ranges import MAX_LINK_DELAY_S, Rate, Seconds
from .units import seconds_to_ps


# ---------------------------------------------------------------- nodes


class Pipeline(_Model):
    """A software switch's shared packet-processing pipeline (bmv2 in the
    hysteresis paper's Mininet testbed): every packet entering the switch,
    returned copies included, is processed one at a time at
    ``capacity_pps``; arrivals wait in a buffer of ``buffer_pkts`` packets.
    When it is full they are dropped (reason ``pipeline``), or, with
    ``blocking``, the links into the switch hold their packets until a
    place frees (bmv2's input buffer: the senders' interface queues grow,
    nothing is dropped at the switch's input)."""

    capacity_pps: Annotated[
        float, Field(ge=1, le=1e12, allow_inf_nan=False, description="Packets processed per second.")
    ]
    buffer_pkts: Annotated[int, Field(ge=0, le=U32_MAX, description="Packets that may wait (the one in service not counted).")]
    blocking: bool = Field(
        False,
        description="A full buffer holds the links into the switch instead of dropping (bmv2's input buffer); "
        "needs buffer_pkts >= 1.",
    )

    @model_validator(mode="after")
    def _blocking_needs_a_place(self) -> "Pipeline":
        if self.blocking and self.buffer_pkts < 1:
            raise ConfigError("buffer_pkts", "a blocking input buffer needs at least 1 place")
        return self

    def to_core(self) -> dict[str, Any]:
        out: dict[str, Any] = {"capacity_pps": float(self.capacity_pps), "buffer_pkts": self.buffer_pkts}
        if self.blocking:
            out["blocking"] = True
        return out


class Node(_Model):
    """A host (TCP/UDP endpoint) or a switch/router. A switch may model a
    software switch's shared ``pipeline``; without one it forwards in zero
    time."""

    model_config = BUILT_AT_IMPORT

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


# ---------------------------------------------------------------- links


class Netem(_Model):
    """A network emulator in front of one direction of a link, as Linux's
    ``sch_netem`` on a router's egress: a packet is lost with probability
    ``loss`` when it arrives (it never reaches the queue or the wire), else it
    waits ``delay_s`` in a delay line and then joins the port's queue; the
    stage holds at most ``limit_pkts`` packets, delay line and queue together
    (netem's ``limit``, 1000 by default; ``None``: no limit).

    ``unit="gso"`` applies the loss and the limit per GSO skb instead, as a
    router VM's netem sees a Linux sender's TSO skbs: one TCP flow's
    consecutive segments, as many as the sender's TSO autosizing puts in one
    skb (about 1 ms of its pacing rate, all of ``gso_max_bytes`` when its
    minimum RTT is under 512 µs), share one loss draw, and the limit counts
    skbs."""

    loss: Annotated[float, Field(ge=0, lt=1)] = Field(0.0, description="Loss probability at arrival.")
    delay_s: Annotated[Seconds, Field(le=MAX_LINK_DELAY_S)] = Field(0.0, description="Delay line, s.")
    limit_pkts: Annotated[int, Field(ge=1, le=U32_MAX)] | None = Field(
        1000, description="Packets (skbs with unit gso) held at most, delay line and queue (None: no limit)."
    )
    unit: Literal["packet", "gso"] = Field(
        "packet", description="What loss and limit apply to: each packet, or each GSO skb of a TCP sender."
    )
    gso_max_bytes: Annotated[int, Field(ge=1, le=512 * 1024)] = Field(
        65536, description="Largest skb with unit gso, bytes (Linux gso_max_size)."
    )

    def to_core(self) -> dict[str, Any]:
        core: dict[str, Any] = {"loss": float(self.loss), "delay_ps": seconds_to_ps(self.delay_s),
                                "limit_pkts": self.limit_pkts}
        # Written only when set, so that per-packet documents stay as they were.
        if self.unit != "packet":
            core["unit"] = self.unit
        if self.gso_max_bytes != 65536:
            core["gso_max_bytes"] = self.gso_max_bytes
        return core


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

    model_config = BUILT_AT_IMPORT

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
    def _reorder_delay(self) -> "Link":
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
