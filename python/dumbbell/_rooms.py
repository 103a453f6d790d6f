"""The package's rooms and the old module paths that lead into them.

The package is arranged in rooms (issue 28): ``dumbbell.scenario`` (the
models and what builds them), ``dumbbell.run`` (one run and its tables),
``dumbbell.sweep`` (many runs, the results store and its reports) and
``dumbbell.experiments`` (the reproduced papers). Modules that used to sit
at the top level keep their old import path: :data:`MOVED` maps each old
name to its module, and :class:`_MovedFinder` (installed by
``dumbbell/__init__.py``) makes ``import dumbbell.store`` give the very
module ``dumbbell.sweep.store``, private names and monkeypatching included.

:func:`forward` gives a room's ``__init__`` a PEP 562 ``__getattr__``: its
sub-modules are imported on first use, and any other name comes from the
room's main module (``from dumbbell.scenario import Scenario``), so that
importing a room costs nothing until a name is used.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

MOVED: dict[str, str] = {
    # dumbbell.scenario: the models and what builds them
    "model": "scenario.base",
    "classes": "scenario.twoclass",
    "scenario_doc": "scenario.doc",
    "fabric": "scenario.topology",  # fat_tree and leaf_spine; their parts are in scenario.fabric, re-exported there
    **{m: f"scenario.{m}" for m in ("topology", "units", "workloads", "shorthand", "plausible")},
    # dumbbell.run: one run, its tables and figures
    "runplots": "run.plots",
    **{m: f"run.{m}" for m in ("tables", "goodput", "fct", "analysis")},
    # dumbbell.sweep: many runs, the results store, the HTML reports
    **{m: f"sweep.{m}" for m in ("store", "storecheck", "budget", "diskfull", "report", "sweepreport", "outdir",
                                  "pointtable", "optimize")},
    # dumbbell.experiments: the reproduced papers
    **{m: f"experiments.{m}" for m in ("papers", "claims", "fairshare", "filebase", "plots")},
    # each experiment in its own package (issue 28): helper modules moved beside their experiment
    "experiments.lossy_cc_base_rtt": "experiments.lossy_cc.base_rtt",
}
"""Old module (``dumbbell.X``, ``X`` possibly dotted) -> its module now (``dumbbell.Y``)."""


class _Alias(importlib.abc.Loader):
    """Loads an old module path as the module it moved to (the same object)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.spec: Any = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system set the alias's spec on the module: give it back its own
        module.__spec__ = self.spec

    def get_code(self, fullname: str) -> Any:
        """For ``python -m dumbbell.scenario_doc`` and the like: code that
        runs the moved module as ``__main__``, in its own package."""
        return compile(f"import runpy\nrunpy.run_module({self.target!r}, run_name='__main__', alter_sys=True)\n",
                       f"<{fullname}: moved to {self.target}>", "exec")

    def is_package(self, fullname: str) -> bool:
        return False


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        pkg, _, leaf = fullname.partition(".")
        if pkg != "dumbbell" or leaf not in MOVED:  # leaf: the rest of the path, dotted or not
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(f"dumbbell.{MOVED[leaf]}"))


def install() -> None:
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())


def forward(package: str, home: str, submodules: frozenset[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A room's ``__getattr__`` and ``__dir__``: sub-modules on first use,
    every other name from ``home`` (the room's main module)."""

    def __getattr__(name: str) -> Any:
        if name in submodules:
            return importlib.import_module(f"{package}.{name}")
        if name.startswith("__") and name != "__all__":
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = importlib.import_module(f"{package}.{home}")
        try:
            return getattr(module, name)
        except AttributeError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    def __dir__() -> list[str]:
        module = importlib.import_module(f"{package}.{home}")
        return sorted(set(vars(sys.modules[package])) | submodules | set(getattr(module, "__all__", dir(module))))

    return __getattr__, __dir__
