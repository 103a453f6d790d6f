"""Topology builders: a :class:`~dumbbell.scenario.Scenario` with nodes and
links, ready for flows.

Every builder takes rates in bit/s (numbers or strings such as ``"1Gbps"``)
and delays in seconds (numbers or strings such as ``"75us"``), and returns a
scenario with no flows; add them with ``scenario.flows.append(TcpFlow(...))``
or :meth:`~dumbbell.scenario.Scenario.add_flow`.

- :func:`star`: hosts around one switch (seeds 000 and 002);
- :func:`dumbbell`: senders and receivers on both sides of one bottleneck;
- :func:`chain`: two hosts joined by a line of switches.

- :func:`fat_tree` and :func:`leaf_spine`: datacenter fabrics, whose nodes
  and links :mod:`dumbbell.scenario.fabric` lays out;
- :func:`link_roles`: each node's tier.
"""

from __future__ import annotations

from collections.abc import Sequence

from .fabric import MAX_FAT_TREE_K, expand_topology, fat_tree_parts, leaf_spine_parts  # noqa: F401 (dumbbell.fabric's names)
from .models import Codel, DropTail, FqCodel, Hysteresis, Link, Node, Pie, Red, Scenario, Step

__all__ = ["star", "dumbbell", "chain", "fat_tree", "leaf_spine", "link_roles"]

Queue = DropTail | Red | Step | Hysteresis | Codel | FqCodel | Pie


def _names(spec: int | Sequence[str], prefix: str) -> list[str]:
    if isinstance(spec, int):
        if spec < 1:
            raise ValueError(f"need at least one {prefix} node, got {spec}")
        return [f"{prefix}{i}" for i in range(1, spec + 1)]
    return list(spec)


def star(
    hosts: int | Sequence[str],
    rate: float | str,
    delay: float | str = 0.0,
    switch: str = "s1",
    *,
    queue: Queue | None = None,
    loss: float = 0.0,
    duration_s: float | str = 10.0,
    name: str = "star",
) -> Scenario:
    """Hosts around one switch, every link at ``rate`` with one-way ``delay``.

    ``hosts`` is a count (hosts ``h1``..``hN``) or a list of names. ``queue``
    (a copy per port) goes at every switch port toward a host; ``loss`` is
    the loss probability in both directions of every link.
    """
    names = _names(hosts, "h")
    links = [
        Link(
            a=h,
            b=switch,
            rate_bps=rate,
            delay_s=delay,
            loss_ab=loss,
            loss_ba=loss,
            queue_ba=queue.model_copy(deep=True) if queue is not None else None,
        )
        for h in names
    ]
    nodes = [Node(name=h, kind="host") for h in names] + [Node(name=switch, kind="switch")]
    return Scenario(name=name, duration_s=duration_s, nodes=nodes, links=links)


def dumbbell(
    senders: int | Sequence[str],
    receivers: int | Sequence[str],
    access_rate: float | str,
    bottleneck_rate: float | str,
    *,
    access_delay: float | str = 0.0,
    bottleneck_delay: float | str = 0.0,
    left: str = "r1",
    right: str = "r2",
    queue: Queue | None = None,
    bottleneck_loss: float = 0.0,
    duration_s: float | str = 10.0,
    name: str = "dumbbell",
) -> Scenario:
    """Senders on router ``left``, receivers on router ``right``, one
    bottleneck link ``left``–``right``.

    ``senders``/``receivers`` are counts (``snd1``.., ``rcv1``..) or names.
    ``queue`` goes at ``left``'s port toward ``right`` (the bottleneck in the
    sender→receiver direction); ``bottleneck_loss`` applies in that direction.
    """
    snd = _names(senders, "snd")
    rcv = _names(receivers, "rcv")
    links = [Link(a=h, b=left, rate_bps=access_rate, delay_s=access_delay) for h in snd]
    links.append(
        Link(a=left, b=right, rate_bps=bottleneck_rate, delay_s=bottleneck_delay, loss_ab=bottleneck_loss, queue_ab=queue)
    )
    links += [Link(a=right, b=h, rate_bps=access_rate, delay_s=access_delay) for h in rcv]
    nodes = [Node(name=h, kind="host") for h in snd + rcv] + [
        Node(name=left, kind="switch"),
        Node(name=right, kind="switch"),
    ]
    return Scenario(name=name, duration_s=duration_s, nodes=nodes, links=links)


def chain(
    switches: int,
    rate: float | str,
    delay: float | str = 0.0,
    *,
    hosts: tuple[str, str] = ("a", "b"),
    queue: Queue | None = None,
    duration_s: float | str = 10.0,
    name: str = "chain",
) -> Scenario:
    """``hosts[0]`` — ``s1`` — ... — ``sN`` — ``hosts[1]``, every link alike.

    ``queue`` (a copy per port) goes at every switch port toward the next hop
    in the ``hosts[0]`` → ``hosts[1]`` direction.
    """
    if switches < 1:
        raise ValueError(f"a chain needs at least one switch, got {switches}")
    sw = [f"s{i}" for i in range(1, switches + 1)]
    path = [hosts[0], *sw, hosts[1]]
    links = []
    for i, (a, b) in enumerate(zip(path, path[1:])):
        q = queue.model_copy(deep=True) if (queue is not None and i > 0) else None
        links.append(Link(a=a, b=b, rate_bps=rate, delay_s=delay, queue_ab=q))
    nodes = [Node(name=hosts[0]), Node(name=hosts[1])] + [Node(name=s, kind="switch") for s in sw]
    return Scenario(name=name, duration_s=duration_s, nodes=nodes, links=links)


# ---------------------------------------------------------------- datacenter fabrics


def fat_tree(
    k: int,
    rate: float | str,
    delay: float | str = 0.0,
    oversubscription: float = 1,
    *,
    queue: Queue | None = None,
    routing: str = "ecmp",
    duration_s: float | str = 1.0,
    name: str = "fat_tree",
) -> Scenario:
    """A k-ary fat tree (``k`` even, >= 2): ``k^3/4`` hosts ``h0``..,
    edge switches ``e{pod}_{i}``, aggregation ``a{pod}_{i}``, core ``c{i}``.

    Host links run at ``rate``; links above the edge at
    ``rate / oversubscription`` (1: full bisection bandwidth). Every link has
    one-way ``delay``; ``queue`` (a copy per port, both directions, host
    NICs included) replaces the default 1000-packet drop-tail. Nodes' roles:
    host, leaf (edge), spine (aggregation), core.
    """
    nodes, links = fat_tree_parts(k, rate, delay, oversubscription, queue)
    return Scenario(name=name, duration_s=duration_s, nodes=nodes, links=links, routing=routing)


def leaf_spine(
    leaves: int,
    spines: int,
    hosts_per_leaf: int,
    host_rate: float | str,
    fabric_rate: float | str | None = None,
    delay: float | str = 0.0,
    *,
    queue: Queue | None = None,
    routing: str = "ecmp",
    duration_s: float | str = 1.0,
    name: str = "leaf_spine",
) -> Scenario:
    """A two-tier leaf-spine: hosts ``h0``.. (``hosts_per_leaf`` per leaf,
    in order), leaves ``leaf0``.., spines ``spine0``.., every leaf linked to
    every spine. Host links at ``host_rate``, leaf-spine links at
    ``fabric_rate`` (unset: ``host_rate``), all with one-way ``delay``;
    ``queue`` as in :func:`fat_tree`."""
    nodes, links = leaf_spine_parts(leaves, spines, hosts_per_leaf, host_rate, fabric_rate, delay, queue)
    return Scenario(name=name, duration_s=duration_s, nodes=nodes, links=links, routing=routing)


def link_roles(scenario: Scenario) -> dict[str, str | None]:
    """Each node's tier: its ``role``, else ``"host"`` for a host and None for a switch."""
    return {n.name: n.role or ("host" if n.kind == "host" else None) for n in scenario.nodes}
