"""What a test session may not change: the checkout's top level and the
results stores a user has (the checkout's and the working directory's
``dumbbell-results``, and ``$DUMBBELL_STORE``). Used by ``conftest.py``'s
session check and tested in ``test_leftovers.py``."""

from __future__ import annotations

import os
from pathlib import Path

# Written by the tools that run the tests, not by the tests.
IGNORED_TOP = frozenset({".pytest_cache", "__pycache__", ".hypothesis", ".ruff_cache", ".mypy_cache", ".coverage"})


def stores(repo: Path) -> list[Path]:
    """The default stores a test could write into by mistake."""
    places = [repo / "dumbbell-results", Path.cwd() / "dumbbell-results"]
    if os.environ.get("DUMBBELL_STORE"):
        places.append(Path(os.environ["DUMBBELL_STORE"]))
    out: list[Path] = []
    for p in places:
        if p.resolve() not in [q.resolve() for q in out]:
            out.append(p)
    return out


def _entries(d: Path) -> set[tuple[str, int, int]]:
    """(name, size, mtime) of ``d``'s entries and of its subdirectories'
    entries: a run added to a store adds a directory and rewrites its
    catalog, either of which shows here, without walking a big store."""
    out: set[tuple[str, int, int]] = set()
    if not d.is_dir():
        return out
    for e in os.scandir(d):
        st = e.stat(follow_symlinks=False)
        out.add((e.name, st.st_size, st.st_mtime_ns))
        if e.is_dir(follow_symlinks=False):
            for f in os.scandir(e.path):
                fst = f.stat(follow_symlinks=False)
                out.add((f"{e.name}/{f.name}", fst.st_size, fst.st_mtime_ns))
    return out


def snapshot(repo: Path) -> dict[str, object]:
    snap: dict[str, object] = {"top": {n for n in os.listdir(repo) if n not in IGNORED_TOP}}
    for p in stores(repo):
        snap[str(p)] = (p.exists(), _entries(p))
    return snap


def changes(before: dict[str, object], after: dict[str, object]) -> list[str]:
    """What changed between two snapshots, in words (empty if nothing)."""
    out: list[str] = []
    new_top = sorted(set(after["top"]) - set(before["top"]))  # type: ignore[arg-type]
    if new_top:
        out.append(f"new in the checkout: {', '.join(new_top)}")
    for place in [k for k in after if k != "top"]:
        if before.get(place) != after[place]:
            out.append(f"store {place} changed")
    return out
