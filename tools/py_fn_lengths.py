"""The longest functions and files of the Python package (issue 28's measure).

How it counts: a function (or method) runs from its ``def`` line (its
decorators aside) to its last line, as the parser reports them, docstring
and nested functions included; a nested function is also counted on its
own. Files are counted in lines.

    python3 tools/py_fn_lengths.py [N] [PACKAGE_DIR]
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def functions(root: Path) -> list[tuple[int, str, str]]:
    found = []
    for f in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((node.end_lineno - node.lineno + 1, f"{f.relative_to(root)}:{node.lineno}", node.name))
    return sorted(found, reverse=True)


def files(root: Path) -> list[tuple[int, str]]:
    return sorted(((len(f.read_text().splitlines()), str(f.relative_to(root))) for f in root.rglob("*.py")), reverse=True)


def main() -> None:
    args = sys.argv[1:]
    n = int(args[0]) if args else 15
    root = Path(args[1] if len(args) > 1 else "python/dumbbell")
    print("longest functions:")
    for length, where, name in functions(root)[:n]:
        print(f"{length:5d}  {name:32s} {where}")
    print("longest files:")
    for length, where in files(root)[:n]:
        print(f"{length:5d}  {where}")


if __name__ == "__main__":
    main()
