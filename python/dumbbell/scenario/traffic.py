"""Traffic patterns of datacenter studies, as flows and workloads to add to a
scenario (a fabric of :func:`~dumbbell.scenario.topology.fat_tree` and
:func:`~dumbbell.scenario.topology.leaf_spine` or any topology): a
permutation of long flows, incast rounds, and Poisson arrivals of flow sizes
drawn from a CDF at a given load.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from .models import TcpFlow, Workload
from .units import parse_rate_bps
from .workloads import Cdf, Poisson, load_cdf

__all__ = ["permutation", "incast", "poisson_load"]

def _hosts_of(scenario: Any) -> list[str]:
    return [n.name for n in scenario.nodes if n.kind == "host"]


def permutation(
    scenario: Any, *, seed: int = 1, bytes: int | None = None, start_s: float = 0.0, **flow: Any
) -> list[Any]:
    """Permutation traffic: every host sends one TCP flow (unlimited, or
    ``bytes`` long) to another host, each host receiving exactly one flow
    (a random derangement, the same for the same ``seed``). ``flow`` holds
    further :class:`~dumbbell.scenario.TcpFlow` fields (``cc``, ``tcp``).
    Returns the flows (named ``perm<i>``), already added to ``scenario``."""
    import random

    hosts = _hosts_of(scenario)
    if len(hosts) < 2:
        raise ConfigError("scenario", f"a permutation needs at least two hosts, got {len(hosts)}")
    rng = random.Random(f"permutation:{seed}")
    dst = list(hosts)
    while True:
        rng.shuffle(dst)
        if all(a != b for a, b in zip(hosts, dst)):
            break
    flows = [
        TcpFlow(name=f"perm{i}", src=a, dst=b, bytes=bytes, start_s=start_s, **flow)
        for i, (a, b) in enumerate(zip(hosts, dst))
    ]
    scenario.flows.extend(flows)
    return flows


def incast(
    scenario: Any,
    requester: str,
    n: int,
    bytes_each: int,
    *,
    rate_per_s: float | None = None,
    rounds: int = 1,
    start_s: float = 0.0,
    seed: int = 1,
    **flow: Any,
) -> list[Any]:
    """Incast: ``n`` senders (drawn from the other hosts, the same for the
    same ``seed``) each answer ``requester`` with ``bytes_each`` bytes at
    the same instant, ``rounds`` times, a round every ``1/rate_per_s``
    seconds from ``start_s`` (the request itself is not simulated: the
    answers start together, as in the partition-aggregate pattern of the
    DCTCP paper, §2.3). Returns the flows (``incast<round>_<i>``), already
    added to ``scenario``; ``flow`` holds further TcpFlow fields."""
    import random

    hosts = _hosts_of(scenario)
    if requester not in hosts:
        raise ConfigError("requester", f"{requester!r} is not a host of the scenario")
    others = [h for h in hosts if h != requester]
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ConfigError("n", f"must be a positive integer, got {n!r}")
    if n > len(others):
        raise ConfigError("n", f"{n} senders, but the scenario has only {len(hosts)} hosts ({len(others)} besides the requester)")
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ConfigError("rounds", f"must be a positive integer, got {rounds!r}")
    if rounds > 1 and (rate_per_s is None or not rate_per_s > 0):
        raise ConfigError("rate_per_s", "repeated rounds need a positive rate (rounds per second)")
    senders = random.Random(f"incast:{seed}").sample(others, n)
    flows = []
    for r in range(rounds):
        t = start_s + (r / rate_per_s if rate_per_s else 0.0)
        flows += [
            TcpFlow(name=f"incast{r}_{i}", src=s, dst=requester, bytes=bytes_each, start_s=t, **flow)
            for i, s in enumerate(senders)
        ]
    scenario.flows.extend(flows)
    return flows


def poisson_load(
    scenario: Any,
    sizes: Cdf | str,
    load: float,
    host_rate: float | str,
    *,
    name: str = "poisson",
    **workload: Any,
) -> list[Any]:
    """Poisson arrivals of flows whose sizes follow ``sizes`` (a :class:`Cdf`
    or a shipped name, ``"websearch"`` or ``"datamining"``) between random
    pairs of hosts, at ``load`` (0 < load < 1) of the hosts' access capacity:
    the total arrival rate is ``load * host_rate * hosts / (8 * mean size)``
    (the convention of pFabric and Homa). Every host serves flows to every
    other: one :class:`~dumbbell.scenario.Workload` per server (named
    ``<name>_<host>``) with a share of the rate. ``workload`` holds further
    Workload fields (``cc``, ``tcp``, ``stop_s``, ``max_tasks``). Returns
    them, already added to ``scenario``."""

    cdf = load_cdf(sizes) if isinstance(sizes, str) else sizes
    if isinstance(load, bool) or not isinstance(load, (int, float)) or not 0 < load < 1:
        raise ConfigError("load", f"must be in (0, 1), got {load!r}")
    try:
        rate = parse_rate_bps(host_rate)
    except (ValueError, TypeError) as e:
        raise ConfigError("host_rate", str(e)) from None
    hosts = _hosts_of(scenario)
    if len(hosts) < 2:
        raise ConfigError("scenario", f"Poisson traffic between hosts needs at least two, got {len(hosts)}")
    total = load * rate * len(hosts) / (8 * cdf.mean_bytes())
    out = [
        Workload(
            name=f"{name}_{h}",
            clients=[c for c in hosts if c != h],
            servers=[h],
            sizes=cdf,
            arrivals=Poisson(rate_per_s=total / len(hosts)),
            **workload,
        )
        for h in hosts
    ]
    scenario.workloads.extend(out)
    return out
