"""`import dumbbell` is light: it loads none of the heavy libraries, and
every public name still resolves (on first use) to the object it names.

Checked in a fresh interpreter (a subprocess), since this test session has
long since imported everything. Behaviour, not timing: which modules are in
``sys.modules``, never how long the import took.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import dumbbell as db

HEAVY = ["polars", "numpy", "pydantic", "scipy", "matplotlib", "duckdb", "pyarrow", "typer", "dask"]


def fresh(code: str) -> dict:
    """Runs ``code`` in a new interpreter; it prints one JSON value."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_import_dumbbell_loads_no_heavy_library() -> None:
    loaded = fresh(
        "import json, sys, dumbbell\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    )
    assert loaded == [], f"import dumbbell loaded {loaded}"


def test_first_use_of_a_model_loads_pydantic_but_not_the_table_libraries() -> None:
    loaded = fresh(
        "import json, sys, dumbbell as db\n"
        "s = db.star(['a', 'b'], rate='1Gbps', delay='1us', duration_s=0.01)\n"
        "s.add_flow(db.TcpFlow(src='a', dst='b'))\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pydantic', 'polars', 'matplotlib', 'duckdb', 'scipy'))))"
    )
    roots = {m.split(".")[0] for m in loaded}
    assert roots == {"pydantic"}, roots


def test_every_public_name_resolves_to_what_its_module_defines() -> None:
    modules = ("scenario.twoclass", "controls", "errors", "run.fct", "kmod", "run.runner", "scenario.models",
               "scenario.topology", "scenario.workloads", "scenario.traffic")
    homes = [importlib.import_module(f"dumbbell.{m}") for m in modules]
    for name in db.__all__:
        value = getattr(db, name)
        if name == "__version__":
            assert isinstance(value, str) and value
        elif name == "sweep":
            assert callable(value)
        else:
            assert any(getattr(m, name, None) is value for m in homes), name
    assert set(db.__all__) <= set(dir(db))


def test_the_static_imports_say_what_the_name_table_says() -> None:
    # `dumbbell/__init__.py` has one table of public names (`_NAMES`); the
    # `if TYPE_CHECKING:` imports, there for static analysis, must agree.
    import ast
    from pathlib import Path

    tree = ast.parse(Path(db.__file__).read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    static = {("." + (i.module or ""), a.name) if i.module else (f".{a.name}", a.name)
              for i in block.body if isinstance(i, ast.ImportFrom) for a in i.names}
    table = {(m, n) for m, names in db._NAMES if m not in db._EAGER for n in names} | {(".sweep", "sweep")}
    assert static == table


def test_run_stays_the_function_after_its_module_is_imported() -> None:
    # `dumbbell.run` is both a submodule and the function: importing the
    # submodule elsewhere must not shadow the function.
    got = fresh(
        "import json, dumbbell, dumbbell.run, dumbbell.sweep\n"
        "print(json.dumps([type(dumbbell.run).__name__, dumbbell.run.__module__]))"
    )
    assert got == ["function", "dumbbell.run.runner"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        db.NoSuchThing  # noqa: B018
    except AttributeError as e:
        assert "NoSuchThing" in str(e)
    else:
        raise AssertionError("db.NoSuchThing resolved")
