"""Grids of parameters: a scenario path (``links[2].loss_ba``, ``flows[*].cc``) set to
each value of a grid, and :func:`expand_grid`, the scenarios of every point.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ConfigError
from ..scenario.models import Scenario


# ---------------------------------------------------------------- grids

_SEG = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[[^\]]*\])*)$")


def _split_path(path: str) -> list[str | int | tuple[str, str]]:
    """``links[2].queue_ba.min_th`` → ``["links", 2, "queue_ba", "min_th"]``;
    ``[*]`` → ``("*", "")``, ``[name]`` → ``("name", name)``."""
    out: list[str | int | tuple[str, str]] = []
    if not path or path.strip() != path:
        raise ConfigError(f"--grid {path}", "an empty or space-padded path")
    for part in path.split("."):
        m = _SEG.match(part)
        if not m:
            raise ConfigError(f"--grid {path}", f"cannot read {part!r} (write e.g. links[2].loss_ab or flows[*].cc)")
        out.append(m.group(1))
        for idx in re.findall(r"\[([^\]]*)\]", m.group(2)):
            if idx == "*":
                out.append(("*", ""))
            elif re.fullmatch(r"-?\d+", idx):
                out.append(int(idx))
            elif idx:
                out.append(("name", idx))
            else:
                raise ConfigError(f"--grid {path}", "an empty index []")
    return out


def _select(lst: list[Any], sel: str | int | tuple[str, str], where: str) -> list[int]:
    if isinstance(sel, int):
        if not -len(lst) <= sel < len(lst):
            raise ConfigError(f"{where}[{sel}]", f"out of range: there are {len(lst)}")
        return [sel % len(lst)]
    if isinstance(sel, tuple) and sel[0] == "*":
        return list(range(len(lst)))
    assert isinstance(sel, tuple)
    name = sel[1]
    hits = [i for i, x in enumerate(lst) if isinstance(x, dict) and x.get("name") == name]
    if not hits and "-" in name:
        a, _, b = name.partition("-")
        hits = [i for i, x in enumerate(lst) if isinstance(x, dict) and {x.get("a"), x.get("b")} == {a, b}]
    if not hits:
        raise ConfigError(f"{where}[{name}]", f"no element named {name!r}")
    return hits


def set_path(doc: dict[str, Any], path: str, value: Any) -> None:
    """Sets ``path`` (see the module docs) to ``value`` in the plain-data
    scenario ``doc``, in place."""
    parts = _split_path(path)

    def walk(node: Any, i: int, where: str) -> None:
        key = parts[i]
        last = i == len(parts) - 1
        if isinstance(key, str):
            if not isinstance(node, dict):
                raise ConfigError(f"--grid {path}", f"{where or 'the scenario'} is not a table")
            here = f"{where}.{key}" if where else key
            if last:
                node[key] = value
                return
            if node.get(key) is None:
                raise ConfigError(here, f"is not set in the scenario, so {path} cannot be swept (set it first)")
            walk(node[key], i + 1, here)
            return
        if not isinstance(node, list):
            raise ConfigError(f"--grid {path}", f"{where} is not a list")
        for j in _select(node, key, where):
            here = f"{where}[{j}]"
            if last:
                node[j] = value
            else:
                walk(node[j], i + 1, here)

    walk(doc, 0, "")


def expand_grid(scenario: Scenario, grid: Mapping[str, Sequence[Any]] | None) -> list[tuple[dict[str, Any], Scenario]]:
    """Every grid point (``{key: value}``) with its validated scenario, in
    order (the last key varies fastest). Raises :class:`ConfigError` for a
    bad key or a point the scenario does not accept."""
    grid = dict(grid or {})
    keys = list(grid)
    values = []
    for k in keys:
        v = grid[k]
        if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
            raise ConfigError(f"--grid {k}", "needs a list of values")
        if not v:
            raise ConfigError(f"--grid {k}", "has no values")
        values.append(list(v))
    base = scenario.model_dump(mode="json")
    controls = scenario.python_controls()
    out = []
    for combo in itertools.product(*values):
        point = dict(zip(keys, combo))
        doc = json.loads(json.dumps(base))
        for k, v in point.items():
            set_path(doc, k, v)
        _put_back(doc, controls)
        try:
            s = Scenario.from_dict(doc).validated()
        except ConfigError as e:
            where = ", ".join(f"{k}={v!r}" for k, v in point.items())
            raise ConfigError(e.field, f"{e.message} (at grid point {where})") from None
        out.append((point, s))
    return out


def _put_back(doc: dict[str, Any], controls: Mapping[str, Any]) -> None:
    """Puts the Python controls (``flows[0].cc`` → object) back into a JSON
    dump of their scenario, where the grid left them."""
    for path, obj in controls.items():
        key, _, rest = path.partition("[")
        item = doc[key][int(rest.split("]", 1)[0])]
        cc = item.get("cc")
        if isinstance(cc, dict) and cc.get("kind") == "python":
            item["cc"] = obj
