"""The run room: one run, scenario in, polars tables out.

- :mod:`~dumbbell.run.runner`: :func:`run`, :class:`Result`, :class:`RunHandle`
  and the calls into the native core;
- :mod:`~dumbbell.run.tables`: a run's tables, converted when asked for;
- :mod:`~dumbbell.run.plots`: the figures of one run;
- :mod:`~dumbbell.run.analysis`: measurements computed from the tables;
- :mod:`~dumbbell.run.goodput`: goodput over a window and Jain's index;
- :mod:`~dumbbell.run.fct`: flow completion times and slowdowns.

``import dumbbell as db; db.run(...)`` calls the function :func:`run`:
``dumbbell/__init__.py`` binds the name after this package is imported, so
the attribute ``dumbbell.run`` is the function while ``from dumbbell.run
import Result`` (which reads ``sys.modules``) reaches this package.
"""

from .._rooms import forward
from .runner import Progress, Result, RunHandle, check_config, request_stop, run, run_config

__all__ = ["Progress", "Result", "RunHandle", "check_config", "request_stop", "run", "run_config"]

__getattr__, __dir__ = forward(
    __name__, "runner", frozenset({"runner", "tables", "plots", "analysis", "goodput", "fct"})
)
