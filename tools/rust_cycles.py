"""Import cycles of the Rust core, file by file (issue 28's measure).

How it counts: every `crate::a::b`, `super::x` and `child::` path in a
file's code (comments, `#[cfg(test)] mod tests` blocks and test files
aside) is an edge from that file to the deepest source file of the path
(`crate::cc::cubic::Cubic` -> `cc/cubic.rs`, `crate::cc::make` ->
`cc/mod.rs`). Cycles are the strongly connected components of more than
one file. `--modules` folds files into top-level modules (`cc`, `config`,
`queue`, ...) first: the layering. A module file using its own direct
parts (`cc/mod.rs` -> `cc/cubic.rs`, which uses `super::CongestionControl`)
is not counted as a cycle unless `--all` is given. Glob imports
(`use super::*`, which the parts of `world/` and `tcp/sender/` use to see
their parent's state) name no file and are not counted.

    python3 tools/rust_cycles.py [--modules] [--all] [SRC_DIR]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from py_cycles import cycles  # Tarjan's components, shared with the Python package's measure (same folder)


def module_path(src: Path, f: Path) -> list[str]:
    parts = list(f.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return parts


def code_of(text: str) -> str:
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("#[cfg(test)]") and lines[i + 1 : i + 2] and lines[i + 1].startswith("mod "):
            break  # a file's test module comes last
        out.append(re.sub(r"//.*", "", line))
    return "\n".join(out)


def graph_of(src: Path, modules: bool = False, count_parts: bool = False) -> dict[str, set[str]]:
    """The import graph below `src`: file -> files it uses (paths relative to
    `src`), or with `modules` top-level module -> modules it uses."""
    files = [f for f in src.rglob("*.rs") if f.name not in ("tests.rs", "testkit.rs")]
    by_mod = {tuple(module_path(src, f)): f for f in files}

    def resolve(path: list[str]) -> Path | None:
        for n in range(len(path), -1, -1):
            f = by_mod.get(tuple(path[:n]))
            if f is not None:
                return f
        return None

    edges: dict[Path, set[Path]] = {f: set() for f in files}
    for f in files:
        me = module_path(src, f)
        text = code_of(f.read_text())
        # `use a::{b, c::d}` -> a::b, a::c::d (one level of braces)
        expanded = re.sub(
            r"([\w:]+)::\{([^{}]*)\}",
            lambda m: " ".join(f"{m.group(1)}::{p.strip()}" for p in m.group(2).split(",") if p.strip()),
            text,
        )
        children = set(re.findall(r"^\s*(?:pub(?:\([\w:]+\))? )?mod (\w+);", text, re.M))
        for m in re.finditer(r"(?<![\w:])((?:crate|super|self|\w+)(?:::\w+)+)", expanded):
            segs = m.group(1).split("::")
            if segs[0] == "crate":
                target = segs[1:]
            elif segs[0] == "super":
                up = me[:]
                while segs and segs[0] == "super":
                    up, segs = up[:-1], segs[1:]
                target = up + segs
            elif segs[0] == "self":
                target = me + segs[1:]
            elif segs[0] in children:
                target = me + segs
            else:
                continue
            t = resolve(target)
            if t is not None and t != f:
                if not count_parts and module_path(src, t)[:-1] == me:
                    continue  # a module using its own parts
                edges[f].add(t)

    if modules:
        top = lambda f: (module_path(src, f) or ["lib"])[0]
        medges: dict[str, set[str]] = {}
        for f, ts in edges.items():
            medges.setdefault(top(f), set()).update(top(t) for t in ts if top(t) != top(f))
        return medges
    name = lambda f: str(f.relative_to(src))
    return {name(f): {name(t) for t in ts} for f, ts in edges.items()}


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    modules = "--modules" in sys.argv
    src = Path(args[0] if args else "crates/dumbbell-core/src")
    graph = graph_of(src, modules, "--all" in sys.argv)
    found = cycles(graph)
    print(f"{len(graph)} {'modules' if modules else 'files'}, {sum(len(v) for v in graph.values())} edges, "
          f"{len(found)} cycle(s)")
    for c in found:
        print(f"  {len(c)}: {' '.join(c)}")


if __name__ == "__main__":
    main()
