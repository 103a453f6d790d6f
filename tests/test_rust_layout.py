"""The Rust core keeps the layering issue 28 set: no import cycle between its
files, nor between its top-level modules (measured by tools/rust_cycles.py,
which prints the same graph for a person). The packet is a layer of its own
below `net` and `queue`: ports hold queues, and queues read packets."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE_SRC = ROOT / "crates" / "dumbbell-core" / "src"


def tool(name: str):
    sys.path.insert(0, str(ROOT / "tools"))  # rust_cycles imports py_cycles from its folder
    try:
        spec = importlib.util.spec_from_file_location(f"_tool_{name}", ROOT / "tools" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "tools"))


def test_no_import_cycle_between_the_cores_files_or_modules() -> None:
    rc = tool("rust_cycles")
    files = rc.graph_of(CORE_SRC)
    modules = rc.graph_of(CORE_SRC, modules=True)
    assert rc.cycles(files) == []
    assert rc.cycles(modules) == []
    # the measure sees imports at all: ports hold queues, and both read packets
    assert {"queue", "packet"} <= modules["net"]
    assert "packet" in modules["queue"] and "net" not in modules["queue"]


def test_the_cycle_finder_finds_a_module_cycle(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    (src / "b").mkdir()
    (src / "lib.rs").write_text("pub mod a;\npub mod b;\n")
    (src / "a" / "mod.rs").write_text("use crate::b::Thing;\npub struct Other;\n")
    (src / "b" / "mod.rs").write_text("use crate::a::Other;\npub struct Thing;\n")
    rc = tool("rust_cycles")
    assert rc.cycles(rc.graph_of(src, modules=True)) == [["a", "b"]]
