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
what it holds; see :mod:`dumbbell.sweep` and :mod:`dumbbell.store`).
"""

import importlib
from typing import TYPE_CHECKING, Any

from . import _native
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

# `run` is bound eagerly: a lazily bound name would be shadowed by the
# submodule `dumbbell.run` once anything imports it. run.py itself imports
# polars, numpy and the scenario models only when a run needs them.
from .run import Progress, Result, RunHandle, request_stop, run

__version__ = _native.version()

# Importing dumbbell costs almost nothing: the other public names are
# resolved on first use (PEP 562 `__getattr__` below), so `import dumbbell` loads
# neither pydantic nor polars, numpy, scipy, matplotlib or duckdb; the
# modules that need them load them when they are used. `_LAZY` maps each
# public name to the submodule that defines it.
_LAZY: dict[str, str] = {
    "Drr": ".classes",
    "Ideal": ".classes",
    "Rafle": ".classes",
    "RoundRobin": ".classes",
    "Run2c": ".classes",
    "StrictPriority": ".classes",
    **dict.fromkeys(
        [
            "Bbr",
            "CoDel",
            "Cubic",
            "Dctcp",
            "DropTail",
            "Expolinear",
            "FqCoDel",
            "Fractional",
            "HighSpeed",
            "Hysteresis",
            "Linear",
            "Link",
            "Netem",
            "Node",
            "PacketRecord",
            "PcapPoint",
            "Pie",
            "Pipeline",
            "QueueRecord",
            "Record",
            "Red",
            "Reno",
            "Return",
            "Scenario",
            "Step",
            "TcpFlow",
            "TcpOptions",
            "UdpFlow",
            "Vegas",
            "Workload",
        ],
        ".scenario",
    ),
    "CongestionControl": ".controls",
    "RenoPy": ".controls",
    "fat_tree": ".fabric",
    "leaf_spine": ".fabric",
    "fct_table": ".fct",
    "slowdown_percentiles": ".fct",
    "plot_slowdown": ".fct",
    "KernelModule": ".kmod",
    "chain": ".topology",
    "dumbbell": ".topology",
    "star": ".topology",
    **dict.fromkeys(
        ["AllAtOnce", "Cdf", "ClosedLoop", "Control", "Files", "Poisson", "load_cdf", "permutation", "incast",
         "poisson_load"],
        ".workloads",
    ),
}

if TYPE_CHECKING:  # what static analysis sees; at run time, `__getattr__`
    from . import sweep
    from .classes import Drr, Ideal, Rafle, RoundRobin, Run2c, StrictPriority
    from .controls import CongestionControl, RenoPy
    from .kmod import KernelModule
    from .scenario import (
        Bbr,
        CoDel,
        Cubic,
        Dctcp,
        DropTail,
        Expolinear,
        FqCoDel,
        Fractional,
        HighSpeed,
        Hysteresis,
        Linear,
        Link,
        Netem,
        Node,
        PacketRecord,
        PcapPoint,
        Pie,
        Pipeline,
        QueueRecord,
        Record,
        Red,
        Reno,
        Return,
        Scenario,
        Step,
        TcpFlow,
        TcpOptions,
        UdpFlow,
        Vegas,
        Workload,
    )
    from .fabric import fat_tree, leaf_spine
    from .fct import fct_table, plot_slowdown, slowdown_percentiles
    from .topology import chain, dumbbell, star
    from .workloads import AllAtOnce, Cdf, ClosedLoop, Control, Files, Poisson, incast, load_cdf, permutation, poisson_load

__all__ = [
    "__version__",
    "ConfigError",
    "DumbbellError",
    "DumbbellWarning",
    "SimulationError",
    "ControlError",
    "ModuleCrash",
    "LimitError",
    "Interrupted",
    "Result",
    "Progress",
    "RunHandle",
    "request_stop",
    "run",
    "sweep",
    "Scenario",
    "Node",
    "Link",
    "Netem",
    "DropTail",
    "Red",
    "Step",
    "Hysteresis",
    "CoDel",
    "FqCoDel",
    "Pie",
    "Return",
    "Pipeline",
    "Reno",
    "Cubic",
    "Dctcp",
    "Linear",
    "Fractional",
    "Expolinear",
    "Bbr",
    "HighSpeed",
    "Vegas",
    "CongestionControl",
    "RenoPy",
    "KernelModule",
    "PacketRecord",
    "PcapPoint",
    "TcpOptions",
    "TcpFlow",
    "UdpFlow",
    "QueueRecord",
    "Record",
    "Ideal",
    "Run2c",
    "Rafle",
    "StrictPriority",
    "RoundRobin",
    "Drr",
    "Workload",
    "Files",
    "Cdf",
    "AllAtOnce",
    "ClosedLoop",
    "Poisson",
    "Control",
    "load_cdf",
    "permutation",
    "incast",
    "poisson_load",
    "star",
    "dumbbell",
    "chain",
    "fat_tree",
    "leaf_spine",
    "fct_table",
    "slowdown_percentiles",
    "plot_slowdown",
]


_LAZY_MODULES = frozenset(
    {"sweep", "experiments", "analysis", "plots", "runplots", "store", "report", "papers", "claims", "listing",
     "fairshare", "filebase", "optimize", "bench", "topology", "workloads", "classes", "units", "controls"}
)
"""Submodules imported on first use, so that ``import dumbbell`` stays light
and ``dumbbell.experiments.dctcp_queue.run()`` still works after a bare
``import dumbbell``."""


def __getattr__(name: str) -> Any:
    # `dumbbell.sweep` is the module and, called, the function (see
    # sweep.py); submodules in `_LAZY_MODULES` are imported on first use;
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
