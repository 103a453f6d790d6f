"""dumbbell: a fast, deterministic, packet-level network simulator for
congestion-control and queue-management research.

The simulator is a Rust core (``dumbbell._native``); this package builds
scenarios, runs them and returns polars tables::

    import dumbbell as db

    s = db.star(["a", "b", "c"], rate="100Mbps", delay="75us", duration_s=2)
    s.add_flow(db.TcpFlow(src="a", dst="c", cc="dctcp"))
    r = db.run(s, seed=1)
    r.flows, r.summary

A congestion control written in Python: subclass
``db.CongestionControl`` and pass an instance as ``cc=`` (see
:mod:`dumbbell.controls` and ``docs/controls.md``).

Many runs: ``dumbbell.sweep(scenario, grid={...}, repeats=N)`` (a grid of
parameters, repetitions, local threads or Dask, a results store that skips
what it holds; see :mod:`dumbbell.sweep` and :mod:`dumbbell.sweep.store`).
"""

import importlib
from typing import TYPE_CHECKING, Any

from . import _native, _rooms
from .errors import (
    ConfigError,
    ControlError,
    DumbbellError,
    DumbbellWarning,
    Interrupted,
    LimitError,
    ModuleCrash,
    SimulationError,
)

_rooms.install()  # old module paths (`dumbbell.store`, ...) lead to their rooms

# `run` is bound eagerly: a lazily bound name would be shadowed by the
# sub-package `dumbbell.run` once anything imports it. run/runner.py imports
# polars, numpy and the scenario models only when a run needs them.
from .run.runner import Progress, Result, RunHandle, request_stop, run

__version__ = _native.version()

# Importing dumbbell costs almost nothing: the other public names are
# resolved on first use (PEP 562 `__getattr__` below), so `import dumbbell` loads
# neither pydantic nor polars, numpy, scipy, matplotlib or duckdb; the
# modules that need them load them when they are used.
#
# `_NAMES` is the one table of the public names: each module, then the names
# it gives `dumbbell`, in the order `__all__` lists them. `__all__` and the
# lazy imports (`_LAZY`) are generated from it; the `TYPE_CHECKING` imports
# below say the same for static analysis, and tests/test_import.py holds the
# two equal.
_NAMES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (".errors", ("ConfigError", "DumbbellError", "DumbbellWarning", "SimulationError", "ControlError", "ModuleCrash",
                 "LimitError", "Interrupted")),
    (".run.runner", ("Result", "Progress", "RunHandle", "request_stop", "run")),
    (".sweep", ("sweep",)),
    (".scenario.models", ("Scenario",)),
    (".scenario.network", ("Node", "Link", "Netem")),
    (".scenario.queues", ("DropTail", "Red", "Step", "Hysteresis", "Codel", "FqCodel", "Pie", "Cake", "DualPi2", "Return")),
    (".scenario.network", ("Pipeline",)),
    (".scenario.tcp", ("Reno", "Cubic", "Dctcp", "Linear", "Fractional", "Expolinear", "Bbr", "HighSpeed", "Vegas")),
    (".controls", ("CongestionControl", "RenoPy")),
    (".kmod", ("KernelModule",)),
    (".scenario.tcp", ("TcpOptions",)),
    (".scenario.models", ("TcpFlow", "UdpFlow", "QueueRecord", "Record", "PcapPoint", "PacketRecord")),
    (".scenario.twoclass", ("Ideal", "Run2c", "Rafle", "StrictPriority", "RoundRobin", "Drr")),
    (".scenario.models", ("Workload",)),
    (".scenario.workloads", ("Files", "Cdf", "AllAtOnce", "ClosedLoop", "Poisson", "Control", "load_cdf")),
    (".scenario.traffic", ("permutation", "incast", "poisson_load")),
    (".scenario.topology", ("star", "dumbbell", "chain", "fat_tree", "leaf_spine")),
    (".run.fct", ("fct_table", "slowdown_percentiles", "plot_slowdown")),
    (".scenario.queues", ("CoDel", "FqCoDel")),  # the names before issue 28 (aliases of Codel, FqCodel)
)
"""(module, the names it gives ``dumbbell``), in ``__all__``'s order."""

_EAGER = frozenset({".errors", ".run.runner", ".sweep"})
"""Modules whose names are bound above (or, for ``sweep``, by ``__getattr__``
as the callable room itself) rather than read from the module."""

__all__ = ["__version__", *(n for _, names in _NAMES for n in names)]

_LAZY: dict[str, str] = {n: m for m, names in _NAMES if m not in _EAGER for n in names}
"""Each lazily resolved public name -> the module that defines it."""

if TYPE_CHECKING:  # what static analysis sees; at run time, `__getattr__`
    from . import sweep
    from .controls import CongestionControl, RenoPy
    from .kmod import KernelModule
    from .run.fct import fct_table, plot_slowdown, slowdown_percentiles
    from .scenario.models import PacketRecord, PcapPoint, QueueRecord, Record, Scenario, TcpFlow, UdpFlow, Workload
    from .scenario.network import Link, Netem, Node, Pipeline
    from .scenario.queues import Cake, CoDel, Codel, DropTail, DualPi2, FqCoDel, FqCodel, Hysteresis, Pie, Red, Return, Step
    from .scenario.tcp import Bbr, Cubic, Dctcp, Expolinear, Fractional, HighSpeed, Linear, Reno, TcpOptions, Vegas
    from .scenario.topology import chain, dumbbell, fat_tree, leaf_spine, star
    from .scenario.traffic import incast, permutation, poisson_load
    from .scenario.twoclass import Drr, Ideal, Rafle, RoundRobin, Run2c, StrictPriority
    from .scenario.workloads import AllAtOnce, Cdf, ClosedLoop, Control, Files, Poisson, load_cdf


_LAZY_MODULES = frozenset({"scenario", "sweep", "experiments", "listing", "bench", "controls",
                           *(m for m in _rooms.MOVED if "." not in m)})
"""Submodules imported on first use, so that ``import dumbbell`` stays light
and ``dumbbell.experiments.dctcp_queue.run()`` still works after a bare
``import dumbbell``; the old module paths (``db.store``, ``db.claims``) lead
to their rooms."""


def __getattr__(name: str) -> Any:
    # `dumbbell.sweep` is the room and, called, the function (see
    # sweep/__init__.py); submodules in `_LAZY_MODULES` are imported on first use;
    # every other public name comes from the module `_LAZY` names, imported
    # on first use and then cached in this module.
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _LAZY_MODULES)
