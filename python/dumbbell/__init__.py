"""dumbbell: a fast, deterministic, packet-level network simulator for
congestion-control and queue-management research.

The simulator is a Rust core (``dumbbell._native``); this package builds
scenarios, runs them and returns polars tables::

    import dumbbell as db

    s = db.star(["a", "b", "c"], rate="100Mbps", delay="75us", duration_s=2)
    s.add_flow(db.TcpFlow(src="a", dst="c", cc="dctcp"))
    r = db.run(s, seed=1)
    r.flows, r.summary
"""

from . import _native
from .errors import ConfigError, DumbbellError, SimulationError
from .run import Result, run
from .scenario import (
    Bbr,
    Cubic,
    Dctcp,
    DropTail,
    Expolinear,
    Fractional,
    HighSpeed,
    Hysteresis,
    Linear,
    Link,
    Netem,
    Node,
    QueueRecord,
    Record,
    Red,
    Reno,
    Scenario,
    Step,
    TcpFlow,
    TcpOptions,
    UdpFlow,
    Vegas,
)
from .topology import chain, dumbbell, star

__version__ = _native.version()

__all__ = [
    "__version__",
    "ConfigError",
    "DumbbellError",
    "SimulationError",
    "Result",
    "run",
    "Scenario",
    "Node",
    "Link",
    "Netem",
    "DropTail",
    "Red",
    "Step",
    "Hysteresis",
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
    "star",
    "dumbbell",
    "chain",
]
