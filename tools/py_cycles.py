"""Import cycles of the Python package, module by module (issue 28's measure).

How it counts: every import a module executes (at the top, in a function or
under a condition; those under ``if TYPE_CHECKING:`` aside, since they never
run) is an edge from that module to the module it names: ``from .store
import Store`` -> ``sweep/store.py``; ``from . import plots`` ->
``experiments/plots.py`` when ``plots`` is a module, else the package's
``__init__.py``. Importing ``a.b`` also runs ``a/__init__.py``, but that
implied edge is not counted (the rooms' ``__init__`` files import nothing
until a name is used). Cycles are the strongly connected components of more
than one module. ``--edges`` prints every edge.

    python3 tools/py_cycles.py [--edges] [PACKAGE_DIR]
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def module_name(root: Path, f: Path) -> str:
    parts = list(f.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports_of(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    found: list[ast.Import | ast.ImportFrom] = []

    def walk(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking_only(child):
                for other in child.orelse:  # the `else:` branch does run
                    walk(other)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            walk(child)

    walk(tree)
    return found


def graph_of(root: Path) -> dict[str, set[str]]:
    files = {module_name(root, f): f for f in root.rglob("*.py")}
    # extension modules (`_native`) are modules too, described by their stubs
    nodes = set(files) | {module_name(root, f) for f in root.rglob("*.pyi")}
    edges: dict[str, set[str]] = {m: set() for m in nodes}
    for me, f in files.items():
        package = me if f.name == "__init__.py" else me.rpartition(".")[0]
        for node in imports_of(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in nodes else mod for a in node.names]
            for t in targets:
                while t and t not in nodes and "." in t:  # `import a.b.c` of a name, not a module
                    t = t.rpartition(".")[0]
                if t in nodes and t != me:
                    edges[me].add(t)
    return edges


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    sccs: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(sccs, key=len, reverse=True)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = Path(args[0] if args else "python/dumbbell")
    graph = graph_of(root)
    if "--edges" in sys.argv:
        for m in sorted(graph):
            print(f"{m} -> {' '.join(sorted(graph[m]))}")
    found = cycles(graph)
    print(f"{len(graph)} modules, {sum(len(v) for v in graph.values())} edges, {len(found)} cycle(s)")
    for c in found:
        print(f"  {len(c)}: {' '.join(c)}")


if __name__ == "__main__":
    main()
