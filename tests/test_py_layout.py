"""The Python package keeps the layout issue 28 set: no import cycle between
its modules, no source file over 1200 lines, no function over 150 lines
(measured by tools/py_cycles.py and tools/py_fn_lengths.py, which print the
same numbers for a person)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "dumbbell"


def tool(name: str):
    spec = importlib.util.spec_from_file_location(f"_tool_{name}", ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_no_import_cycle_between_the_packages_modules() -> None:
    cycles = tool("py_cycles")
    graph = cycles.graph_of(PACKAGE)
    assert cycles.cycles(graph) == []
    # the measure sees imports at all: the run room uses the scenario room, lazily or not
    assert "dumbbell.scenario.models" in graph["dumbbell.run.runner"]


def test_the_cycle_finder_finds_a_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import x\n")
    (pkg / "b.py").write_text("def x():\n    from . import a\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import y\n")
    cycles = tool("py_cycles")
    assert cycles.cycles(cycles.graph_of(pkg)) == [["pkg.a", "pkg.b"]]


def test_no_file_over_1200_lines_and_no_function_over_150() -> None:
    lengths = tool("py_fn_lengths")
    long_files = [(n, f) for n, f in lengths.files(PACKAGE) if n > 1200]
    long_functions = [(n, where, name) for n, where, name in lengths.functions(PACKAGE) if n > 150]
    assert long_files == [] and long_functions == []
