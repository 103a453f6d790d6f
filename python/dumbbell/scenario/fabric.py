"""Datacenter fabrics: the nodes and links of a k-ary fat tree and of a
two-tier leaf-spine, with every node's tier (``Node.role``) set, and the
scenario's ``topology = {...}`` shorthand that adds them. The builders that
return a whole scenario, :func:`~dumbbell.scenario.topology.fat_tree` and
:func:`~dumbbell.scenario.topology.leaf_spine`, are in
:mod:`dumbbell.scenario.topology`, beside ``star``, ``dumbbell`` and ``chain``.

Both have many equal-cost paths between hosts of different racks; the
scenario's ``routing`` (default ``"ecmp"``, see ``docs/scenario.md``) says
how switches spread packets over them.

- :func:`fat_tree_parts`: the k-ary fat tree of Al-Fares et al. (SIGCOMM 2008):
  ``k`` pods of ``k/2`` edge (``e{pod}_{i}``) and ``k/2`` aggregation
  (``a{pod}_{i}``) switches, ``(k/2)^2`` core switches (``c{i}``), ``k^3/4``
  hosts (``h0``..), ``k/2`` per edge switch. Aggregation switch
  ``a{pod}_{i}`` links to cores ``c{i*k/2}``..``c{i*k/2+k/2-1}``.
- :func:`leaf_spine_parts`: ``leaves`` leaf switches (``leaf0``..), each linked to
  every one of ``spines`` spine switches (``spine0``..), ``hosts_per_leaf``
  hosts (``h0``..) per leaf.

Both are also available from TOML: ``topology = { kind = "fat_tree", k = 4,
rate = "10Gbps", delay = "1us" }`` (or ``kind = "leaf_spine"``), with the
same arguments as the functions; the nodes and links of the scenario's own
``nodes``/``links`` are added to the fabric's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ConfigError
from .network import Link, Node
from .queues import Codel, DropTail, FqCodel, Hysteresis, Pie, Red, Step
from .units import parse_rate_bps

__all__ = ["fat_tree_parts", "leaf_spine_parts", "expand_topology", "MAX_FAT_TREE_K"]

Queue = DropTail | Red | Step | Hysteresis | Codel | FqCodel | Pie

MAX_FAT_TREE_K = 64
"""Largest fat tree (65 536 hosts, 5 120 switches)."""


def _check_count(field: str, v: Any, least: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError(field, f"must be an integer, got {v!r}")
    if v < least:
        raise ConfigError(field, f"must be at least {least}, got {v}")
    return v


def _rate(field: str, v: Any) -> int:
    try:
        return parse_rate_bps(v)
    except (ValueError, TypeError) as e:
        raise ConfigError(field, str(e)) from None


def _copy(q: Queue | None) -> Queue | None:
    return q.model_copy(deep=True) if q is not None else None


def _link(a: str, b: str, rate: int, delay: Any, queue: Queue | None) -> Link:
    """A link whose both directions (switch ports and host NICs alike) get a copy of ``queue``."""
    return Link(a=a, b=b, rate_bps=rate, delay_s=delay, queue_ab=_copy(queue), queue_ba=_copy(queue))


def fat_tree_parts(
    k: int, rate: float | str, delay: float | str = 0.0, oversubscription: float = 1, queue: Queue | None = None
) -> tuple[list[Node], list[Link]]:
    """The nodes and links of :func:`~dumbbell.scenario.topology.fat_tree`."""
    _check_count("k", k, 2)
    if k % 2:
        raise ConfigError("k", f"a fat tree needs an even k (k/2 ports up, k/2 down), got {k}")
    if k > MAX_FAT_TREE_K:
        raise ConfigError("k", f"at most {MAX_FAT_TREE_K} ({MAX_FAT_TREE_K**3 // 4} hosts), got {k}")
    if isinstance(oversubscription, bool) or not isinstance(oversubscription, (int, float)) or not (
        1 <= oversubscription < float("inf")
    ):
        raise ConfigError("oversubscription", f"must be a number >= 1, got {oversubscription!r}")
    host_rate = _rate("rate", rate)
    up_rate = max(1, round(host_rate / oversubscription))
    half = k // 2
    hosts = k**3 // 4
    nodes = [Node(name=f"h{i}", kind="host", role="host") for i in range(hosts)]
    nodes += [Node(name=f"e{p}_{i}", kind="switch", role="leaf") for p in range(k) for i in range(half)]
    nodes += [Node(name=f"a{p}_{i}", kind="switch", role="spine") for p in range(k) for i in range(half)]
    nodes += [Node(name=f"c{i}", kind="switch", role="core") for i in range(half * half)]
    links = [_link(f"h{h}", f"e{h // (half * half)}_{(h // half) % half}", host_rate, delay, queue) for h in range(hosts)]
    links += [
        _link(f"e{p}_{i}", f"a{p}_{j}", up_rate, delay, queue) for p in range(k) for i in range(half) for j in range(half)
    ]
    links += [
        _link(f"a{p}_{i}", f"c{i * half + m}", up_rate, delay, queue)
        for p in range(k)
        for i in range(half)
        for m in range(half)
    ]
    return nodes, links


def leaf_spine_parts(
    leaves: int,
    spines: int,
    hosts_per_leaf: int,
    host_rate: float | str,
    fabric_rate: float | str | None = None,
    delay: float | str = 0.0,
    queue: Queue | None = None,
) -> tuple[list[Node], list[Link]]:
    """The nodes and links of :func:`~dumbbell.scenario.topology.leaf_spine`."""
    _check_count("leaves", leaves, 1)
    if isinstance(spines, int) and not isinstance(spines, bool) and spines == 0:
        raise ConfigError("spines", "a leaf-spine needs at least one spine (leaves reach each other through spines)")
    _check_count("spines", spines, 1)
    _check_count("hosts_per_leaf", hosts_per_leaf, 1)
    hr = _rate("host_rate", host_rate)
    fr = _rate("fabric_rate", fabric_rate) if fabric_rate is not None else hr
    nodes = [Node(name=f"h{i}", kind="host", role="host") for i in range(leaves * hosts_per_leaf)]
    nodes += [Node(name=f"leaf{i}", kind="switch", role="leaf") for i in range(leaves)]
    nodes += [Node(name=f"spine{i}", kind="switch", role="spine") for i in range(spines)]
    links = [_link(f"h{h}", f"leaf{h // hosts_per_leaf}", hr, delay, queue) for h in range(leaves * hosts_per_leaf)]
    links += [_link(f"leaf{i}", f"spine{j}", fr, delay, queue) for i in range(leaves) for j in range(spines)]
    return nodes, links


_KINDS: dict[str, tuple[Callable[..., tuple[list[Node], list[Link]]], set[str]]] = {
    "fat_tree": (fat_tree_parts, {"k", "rate", "delay", "oversubscription", "queue"}),
    "leaf_spine": (
        leaf_spine_parts,
        {"leaves", "spines", "hosts_per_leaf", "host_rate", "fabric_rate", "delay", "queue"},
    ),
}


def expand_topology(data: Any) -> Any:
    """A scenario document's ``topology = { kind = ..., ... }`` table
    replaced by the fabric's nodes and links (placed before the document's
    own). Errors name ``topology.<field>``."""
    if not isinstance(data, dict) or "topology" not in data:
        return data
    data = dict(data)
    spec = data.pop("topology")
    if not isinstance(spec, dict):
        raise ConfigError("topology", f"expected a table with a kind (fat_tree, leaf_spine), got {spec!r}")
    spec = dict(spec)
    kind = spec.pop("kind", None)
    if kind not in _KINDS:
        raise ConfigError("topology.kind", f"unknown fabric {kind!r} (known: {', '.join(_KINDS)})")
    build, allowed = _KINDS[kind]
    for key in spec:
        if key not in allowed:
            raise ConfigError(f"topology.{key}", f"unknown field for a {kind} (known: {', '.join(sorted(allowed))})")
    if "queue" in spec:
        from pydantic import TypeAdapter, ValidationError

        from ..errors import from_validation_error
        from .queues import QueueConfig

        try:
            spec["queue"] = TypeAdapter(QueueConfig).validate_python(spec["queue"])
        except ValidationError as e:
            raise from_validation_error(e, "topology.queue") from None
    import inspect

    for name, param in inspect.signature(build).parameters.items():
        if param.default is inspect.Parameter.empty and name not in spec:
            raise ConfigError(f"topology.{name}", f"missing: a {kind} needs {name}")
    try:
        nodes, links = build(**spec)
    except ConfigError as e:
        raise ConfigError(f"topology.{e.field}", e.message) from None
    data["nodes"] = [*nodes, *(data.get("nodes") or [])]
    data["links"] = [*links, *(data.get("links") or [])]
    return data
