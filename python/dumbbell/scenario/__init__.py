"""The scenario room: what one run is, as validated models, and what builds it.

- :mod:`~dumbbell.scenario.models`: :class:`Scenario`, its flows, workloads
  and records, and every model's name (``from dumbbell.scenario import
  Scenario`` reads them from there);
- :mod:`~dumbbell.scenario.network` (nodes, links, netem),
  :mod:`~dumbbell.scenario.queues` (the queue kinds),
  :mod:`~dumbbell.scenario.tcp` (congestion controls, TCP options),
  :mod:`~dumbbell.scenario.ranges` (the ranges of numbers, unit types) and
  :mod:`~dumbbell.scenario.core_params` (controls' and queues' parameters
  from the core's schema);
- :mod:`~dumbbell.scenario.base`: the base of every model (strict fields,
  errors that name the field);
- :mod:`~dumbbell.scenario.twoclass`: the two-class ports' classifiers and
  schedulers;
- :mod:`~dumbbell.scenario.workloads`: file-transfer tasks and their arrivals;
  :mod:`~dumbbell.scenario.traffic`: permutation, incast and Poisson traffic;
- :mod:`~dumbbell.scenario.topology`: the builders (star, dumbbell, chain,
  fat tree, leaf-spine); :mod:`~dumbbell.scenario.fabric` lays out the
  fabrics' nodes and links (and the ``topology = {...}`` shorthand);
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
    frozenset({"models", "base", "ranges", "network", "queues", "tcp", "twoclass", "workloads", "traffic", "topology",
               "fabric", "shorthand", "units", "plausible", "doc"}),
)
