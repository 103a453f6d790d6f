"""Topology builders: a :class:`~dumbbell.scenario.Scenario` with nodes and
links, ready for flows.

Every builder takes rates in bit/s (numbers or strings such as ``"1Gbps"``)
and delays in seconds (numbers or strings such as ``"75us"``), and returns a
scenario with no flows; add them with ``scenario.flows.append(TcpFlow(...))``
or :meth:`~dumbbell.scenario.Scenario.add_flow`.

- :func:`star`: hosts around one switch (seeds 000 and 002);
- :func:`dumbbell`: senders and receivers on both sides of one bottleneck;
- :func:`chain`: two hosts joined by a line of switches.

Datacenter fabrics (``db.fat_tree``, ``db.leaf_spine``) are in
:mod:`dumbbell.fabric`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .scenario import CoDel, DropTail, DualPi2, FqCoDel, Hysteresis, Link, Node, Pie, Red, Scenario, Step

__all__ = ["star", "dumbbell", "chain"]

Queue = DropTail | Red | Step | Hysteresis | CoDel | FqCoDel | Pie | DualPi2


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
