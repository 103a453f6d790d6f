"""dumbbell: a fast, deterministic, packet-level network simulator for
congestion-control and queue-management research.

The simulator is a Rust core (``dumbbell._native``); this package builds
scenarios, runs them and returns polars tables::

    import dumbbell as db

    s = db.star(["a", "b", "c"], rate="100Mbps", delay="75us", duration_s=2)
    s.add_flow(db.TcpFlow(src="a", dst="c", cc="dctcp"))
    r = db.run(s, seed=1)
    r.flows, r.summary

Many runs: ``dumbbell.sweep(scenario, grid={...}, repeats=N)`` (a grid of
parameters, repetitions, local threads or Dask, a results store that skips
what it holds; see :mod:`dumbbell.sweep` and :mod:`dumbbell.store`).
"""

from . import _native
from .classes import Drr, Ideal, Rafle, RoundRobin, Run2c, StrictPriority
from .errors import ConfigError, DumbbellError, Interrupted, LimitError, SimulationError
from .run import Progress, Result, RunHandle, request_stop, run
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
from .topology import chain, dumbbell, star
from .workloads import AllAtOnce, Cdf, ClosedLoop, Control, Files, Poisson, load_cdf

__version__ = _native.version()

__all__ = [
    "__version__",
    "ConfigError",
    "DumbbellError",
    "SimulationError",
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
    "star",
    "dumbbell",
    "chain",
]


def __getattr__(name: str):
    # `dumbbell.sweep` is imported on first use (import dumbbell stays
    # light); it is the module and, called, the function (see sweep.py).
    if name == "sweep":
        import importlib

        return importlib.import_module(".sweep", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
