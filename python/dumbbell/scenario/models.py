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

import json
import tomllib
from collections import deque
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from ..controls import CongestionControl
from ..errors import ConfigError
from ..kmod import KernelModuleCc, module_id
from ..suggest import did_you_mean
from .base import BUILT_AT_IMPORT, Model as _Model, U64_MAX, kind_of as _kind_of
from .lazy_union import lazy_union
from .network import Link, Netem, Node, Pipeline
from .queues import (
    Cake, CoDel, Codel, DropTail, DualPi2, FqCoDel, FqCodel, Hysteresis, Pie, QueueConfig, Red, Return, Step, red_wlog_for_burst,
)
from .ranges import (
    Bytes, DEFAULT_RECORD_MAX_BYTES, MAX_DELACK_S, MAX_DUPTHRESH, MAX_FLOW_BYTES, MAX_HEADER_BYTES,
    MAX_INIT_CWND_PKTS, MAX_LINK_DELAY_S, MAX_MSS_BYTES, MAX_RATE_BPS, MAX_RECORD_MAX_BYTES, MAX_RTO_S,
    MAX_RWND_BYTES, MAX_TIME_S, MAX_TSQ_BYTES, MIN_DELACK_S, MIN_MSS_BYTES, MIN_RECORD_MAX_BYTES,
    MIN_RTO_S, MIN_SAMPLE_S, Pkts, Rate, Seconds,
)
from .tcp import (
    BUILTIN_CONTROLS, Bbr, CONTROLS, CcConfig, Cubic, Dctcp, Expolinear, Fractional, HighSpeed, Linear, PythonCc,
    REGISTERED, Registered, Reno, TcpOptions, Vegas,
)
from .units import seconds_to_ps
from .workloads import Arrivals, Control, MAX_TASKS, Sizes

# Re-exported above: the queues (queues.py), controls and TCP options (tcp.py), nodes and links
# (network.py) and ranges (ranges.py) are also names of this module, as before the split.

__all__ = [
    "Rate",
    "Seconds",
    "Node",
    "DropTail",
    "Red",
    "Step",
    "Hysteresis",
    "Codel",
    "FqCodel",
    "Pie",
    "Cake",
    "DualPi2",
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
    "PacketRecord",
    "PcapPoint",
    "QueueRecord",
    "Record",
    "Scenario",
    "red_wlog_for_burst",
    "CONTROLS",
    "CoDel",  # the names before issue 28 (aliases of Codel and FqCodel)
    "FqCoDel",
]


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


Flow = lazy_union({"tcp": TcpFlow, "udp": UdpFlow}, _kind_of("tcp"))
"""A flow, tagged by ``kind`` (default ``tcp``)."""


# ---------------------------------------------------------------- workloads


class Workload(_Model):
    """File-transfer tasks from ``servers`` to ``clients`` (see
    :mod:`dumbbell.scenario.workloads`): ``sizes`` (a file base or a CDF),
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
    def _check(self) -> "Workload":
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
    def _window(self) -> "QueueRecord":
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


class PcapPoint(_Model):
    """A packet capture point (``record.pcap``): a port (``node`` toward
    ``peer``: every packet it puts on the wire) or a ``host`` (every packet
    it sends and receives); docs/output.md, "Packet capture"."""

    node: Annotated[str, Field(min_length=1)] | None = None
    peer: Annotated[str, Field(min_length=1)] | None = None
    host: Annotated[str, Field(min_length=1)] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "PcapPoint":
        if not ((self.host is not None and self.node is None and self.peer is None)
                or (self.host is None and self.node is not None and self.peer is not None)):
            raise ConfigError("host", "give either host (every packet a host sends and receives) "
                              "or node and peer (a port)")
        return self

    def to_core(self) -> dict[str, Any]:
        return {"host": self.host} if self.host is not None else {"node": self.node, "peer": self.peer}


class PacketRecord(_Model):
    """Trace every packet event (enqueue, dequeue, drop, mark) at ``node``'s
    port toward ``peer`` (``record.packets``; the ``packets`` table)."""

    node: Annotated[str, Field(min_length=1)]
    peer: Annotated[str, Field(min_length=1)]

    def to_core(self) -> dict[str, Any]:
        return {"node": self.node, "peer": self.peer}


class Record(_Model):
    """What to record. Everything is off unless asked (the summary, flows and
    queues tables are always there)."""

    model_config = BUILT_AT_IMPORT

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
    pcap: list[PcapPoint] = Field(
        default_factory=list,
        description="Packet capture points, each a port (`node`, `peer`) or a `host`: one pcap file each "
        "beside the run's tables (docs/output.md, \"Packet capture\").",
    )
    packets: list[PacketRecord] = Field(
        default_factory=list,
        description="Ports whose every packet event (enqueue, dequeue, drop, mark) is a row of the "
        "`packets` table, with flow, sequence number, size and time queued.",
    )
    rtt_samples: bool = Field(
        False,
        description="Each TCP sender's RTT samples: a row of the `rtt_samples` table (rtt, srtt, min_rtt) "
        "at every ACK that gave one; `Result.plot_rtt` draws them.",
    )
    pcap_snap_bytes: Annotated[int, Field(ge=80, le=65535)] = Field(
        128, description="Bytes of each captured packet written to the pcap files (headers first)."
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
    def _tcp_vars_sampled(self) -> "Record":
        if self.tcp_vars and not self.flow_sample_s and not self.cwnd_every_ack:
            raise ConfigError("tcp_vars", "traces at each flow sample or ACK: set flow_sample_s or cwnd_every_ack too")
        return self

    def to_core(self) -> dict[str, Any]:
        budget = {} if self.max_bytes == DEFAULT_RECORD_MAX_BYTES else {"max_bytes": self.max_bytes}
        warmup = {"warmup_ps": seconds_to_ps(self.warmup_s)} if self.warmup_s else {}
        tcp_vars = {"tcp_vars": True} if self.tcp_vars else {}
        pcap: dict[str, Any] = {"pcap": [p.to_core() for p in self.pcap]} if self.pcap else {}
        if self.pcap_snap_bytes != 128:
            pcap["pcap_snap_bytes"] = self.pcap_snap_bytes
        if self.packets:
            pcap["packets"] = [p.to_core() for p in self.packets]
        if self.rtt_samples:
            pcap["rtt_samples"] = True
        return {
            **pcap,
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

    Build it in Python (or with :mod:`dumbbell.scenario.topology`), or load it with
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
    def _check_graph(self) -> "Scenario":
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

    def validated(self) -> "Scenario":
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
        self, node: str, peer: str, queue: DropTail | Red | Step | Hysteresis | Codel | FqCodel | Pie | Cake | DualPi2
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

    def add_workload(self, workload: Workload) -> "Workload":
        """Appends ``workload`` (file-transfer tasks) and returns it."""
        self.workloads.append(workload)
        return workload

    def add_flow(self, flow: TcpFlow | UdpFlow) -> TcpFlow | UdpFlow:
        """Appends ``flow`` and returns it (checked, like every edit, by :meth:`to_core`)."""
        self.flows.append(flow)
        return flow

    # -- in and out -------------------------------------------------------

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Scenario":
        """From plain data (as in a TOML file). Raises :class:`ConfigError`."""
        if not isinstance(data, dict):
            raise ConfigError("scenario", f"expected a table of fields, got {type(data).__name__}")
        return cls.model_validate(data)

    @classmethod
    def from_toml(cls, path: str | Path) -> "Scenario":
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
