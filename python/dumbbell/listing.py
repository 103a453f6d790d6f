"""What this build of dumbbell offers, as ``dumbbell list`` prints it:
experiments, congestion controls, queue kinds, classifiers, schedulers and
benchmarks, each with one line saying what it is.

Controls, queue kinds, classifiers and schedulers are read from the
scenario models' tagged unions (the same ones that validate a scenario), so
the list cannot name a kind the models refuse or miss one they accept.
"""

from __future__ import annotations

import typing
from typing import Any

__all__ = ["listing", "kinds_of"]


def _first_sentence(doc: str | None) -> str:
    text = " ".join((doc or "").replace("``", "`").split())
    if not text:
        return ""
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def kinds_of(union: Any) -> list[tuple[str, type]]:
    """``(tag, model)`` for every member of a tagged union (``CcConfig``,
    ``QueueConfig``, ...), in declaration order."""
    from pydantic import Tag

    out: list[tuple[str, type]] = []

    def walk(tp: Any) -> None:
        if typing.get_origin(tp) is typing.Annotated:
            base, *meta = typing.get_args(tp)
            tags = [m for m in meta if isinstance(m, Tag)]
            if tags and isinstance(base, type):
                out.append((tags[0].tag, base))
                return
            walk(base)
            return
        if typing.get_origin(tp) in (typing.Union, getattr(__import__("types"), "UnionType", None)):
            for a in typing.get_args(tp):
                walk(a)

    walk(union)
    return out


def _bench_about(build: Any) -> str:
    s = build()
    ccs = sorted({f.cc.kind for f in s.flows if getattr(f, "cc", None) is not None})
    return f"{len(s.flows)} flow(s) ({', '.join(ccs)}), {s.duration_s:g} s simulated."


def listing() -> dict[str, list[dict[str, str]]]:
    """``{section: [{"name", "about"}, ...]}`` for every section of
    ``dumbbell list``."""
    from . import bench
    from .scenario import twoclass as classes, models as scenario
    from .experiments.registry import rooms

    exps = []
    for name, room in rooms().items():
        p = room.PAPER
        exps.append({"name": name, "about": f"{p.label}: {p.title}; reproduces {p.short}"})
    out = {
        "experiments": exps,
        # the names a scenario (or a TOML file) may give `cc`; a control
        # written in Python is an object, not a name (docs/controls.md), and
        # a kernel module is a file (docs/kernel-modules.md)
        # (the registry's controls share one model: each is listed by name)
        "controls": [
            *({"name": t, "about": _first_sentence(m.__doc__)} for t, m in kinds_of(scenario.CcConfig)
              if t not in ("python", "module", "registered")),
            *({"name": n, "about": about} for n, about in scenario.REGISTERED.items()),
        ],
        "queues": [{"name": t, "about": _first_sentence(m.__doc__)} for t, m in kinds_of(scenario.QueueConfig)],
        "classifiers": [{"name": t, "about": _first_sentence(m.__doc__)} for t, m in kinds_of(classes.Classifier)],
        "schedulers": [{"name": t, "about": _first_sentence(m.__doc__)} for t, m in kinds_of(classes.Scheduler)],
        "benchmarks": [{"name": n, "about": getattr(bench, "ABOUT", {}).get(n) or _bench_about(f)}
                       for n, f in bench.BENCHMARKS.items()],
    }
    return out
