"""The sweep room: many runs, the results store and the reports over it.

- :mod:`~dumbbell.sweep.engine`: :func:`sweep`, grid expansion, the local and
  Dask executors, the progress displays;
- :mod:`~dumbbell.sweep.store` and :mod:`~dumbbell.sweep.storecheck`: the
  results store and its verified reads;
- :mod:`~dumbbell.sweep.report` and :mod:`~dumbbell.sweep.sweepreport`: the
  HTML reports (reproduced experiments; any sweep);
- :mod:`~dumbbell.sweep.optimize`: parameter search through the sweep engine;
- :mod:`~dumbbell.sweep.budget`, :mod:`~dumbbell.sweep.diskfull`,
  :mod:`~dumbbell.sweep.outdir`, :mod:`~dumbbell.sweep.pointtable`: the
  recording budget, full disks, output directories, the per-point table.

``dumbbell.sweep`` is this package and, called, :func:`sweep`: the
documented ``dumbbell.sweep(scenario, grid=..., ...)`` without shadowing the
package (``from dumbbell.sweep import using`` keeps working). Names resolve
on first use, from :mod:`~dumbbell.sweep.engine`.
"""

import sys
import types
from typing import TYPE_CHECKING, Any

from .._rooms import forward

if TYPE_CHECKING:
    from .engine import *  # noqa: F403

__getattr__, __dir__ = forward(
    __name__,
    "engine",
    frozenset({"engine", "store", "storecheck", "report", "sweepreport", "optimize", "budget", "diskfull", "outdir",
               "pointtable"}),
)


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from .engine import sweep

        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
