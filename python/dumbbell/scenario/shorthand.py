"""The ``hosts`` and ``switches`` shorthand of a scenario: lists of names
that stand for ``nodes`` entries of kind host and switch
(``hosts = ["a", "b"]`` is ``nodes = [{name = "a", kind = "host"}, ...]``).

The names are checked here, before the expansion, so that an error names
what the user wrote (``hosts[1]``), not the node list the shorthand expands
to (``nodes[4].name``)."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError

__all__ = ["expand_nodes"]


def expand_nodes(data: Any) -> Any:
    """``data`` (a scenario's plain data) with ``hosts`` and ``switches``
    appended to ``nodes``; anything else is returned as it is."""
    if not isinstance(data, dict) or not ("hosts" in data or "switches" in data):
        return data
    data = dict(data)
    nodes = list(data.get("nodes") or [])
    seen = {n.get("name") if isinstance(n, dict) else getattr(n, "name", None): f"nodes[{i}]"
            for i, n in enumerate(nodes)}
    for key, kind in (("hosts", "host"), ("switches", "switch")):
        names = data.pop(key, None) or []
        if isinstance(names, str) or not isinstance(names, list):
            raise ConfigError(key, "must be a list of node names")
        for i, n in enumerate(names):
            if not isinstance(n, str):
                raise ConfigError(f"{key}[{i}]", f"must be a node name (a string), got {n!r}")
            if not n:
                raise ConfigError(f"{key}[{i}]", "a node name must not be empty")
            if n in seen:
                raise ConfigError(f"{key}[{i}]", f"duplicate node name {n!r} (also {seen[n]})")
            seen[n] = f"{key}[{i}]"
        nodes += [{"name": n, "kind": kind} for n in names]
    data["nodes"] = nodes
    return data
