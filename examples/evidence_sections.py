"""The command line the evidence scripts share (`lossy_cc_evidence.py`,
`highspeed_evidence.py`): run one named section, every section, or list them."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable


def _about(fn: Callable[[], object]) -> str:
    return " ".join((fn.__doc__ or "").split())


def main(sections: dict[str, Callable[[], object]], description: str, argv: list[str] | None = None) -> int:
    """``SECTION`` runs one (``all``, the default, runs each in turn),
    printing its docstring, what it prints and its wall time; ``--list``
    names the sections. An unknown name exits 2."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("section", nargs="?", default="all", help="a section name, or all")
    p.add_argument("--list", action="store_true", help="list the sections")
    a = p.parse_args(argv)
    if a.list:
        for name, fn in sections.items():
            print(f"{name}: {_about(fn)}")
        return 0
    names = list(sections) if a.section == "all" else [a.section]
    for name in names:
        if name not in sections:
            print(f"unknown section {name!r} (known: {', '.join(sections)})", file=sys.stderr)
            return 2
        t0 = time.perf_counter()
        print(f"[{name}] {_about(sections[name])}")
        sections[name]()
        print(f"  ({time.perf_counter() - t0:.0f} s wall)")
    return 0
