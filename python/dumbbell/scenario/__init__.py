"""The scenario room: what one run is, as validated models, and what builds it.

- :mod:`~dumbbell.scenario.models`: :class:`Scenario` and its nodes, links,
  queues, controls, flows and records (``from dumbbell.scenario import
  Scenario`` reads them from there);
- :mod:`~dumbbell.scenario.base`: the base of every model (strict fields,
  errors that name the field);
- :mod:`~dumbbell.scenario.twoclass`: the two-class ports' classifiers and
  schedulers;
- :mod:`~dumbbell.scenario.workloads`: file-transfer tasks and their arrivals;
- :mod:`~dumbbell.scenario.topology` and :mod:`~dumbbell.scenario.fabric`:
  the topology builders (star, dumbbell, chain, fat tree, leaf-spine);
- :mod:`~dumbbell.scenario.shorthand`: the ``hosts``/``switches`` shorthand;
- :mod:`~dumbbell.scenario.units`: human units to exact integers;
- :mod:`~dumbbell.scenario.plausible`: warnings for valid but unlikely values;
- :mod:`~dumbbell.scenario.doc`: ``docs/scenario.md``, generated from the models.

Importing this package loads nothing heavy: names resolve on first use.
"""

from typing import TYPE_CHECKING

from .._rooms import forward

if TYPE_CHECKING:
    from .models import *  # noqa: F403

__getattr__, __dir__ = forward(
    __name__,
    "models",
    frozenset({"models", "base", "twoclass", "workloads", "topology", "fabric", "shorthand", "units", "plausible",
               "doc"}),
)
