"""The cyclic garbage collector during a command's start (issue 29).

Importing the scenario models and building their validators allocates some
100 000 container objects; the collector would traverse them again and again
while they are made (every few hundred allocations), and twice more when the
interpreter exits, though none of them is garbage: about 60 ms of CPU of a
``dumbbell run`` that costs the core 0.6 s. :func:`paused` holds the
collector off while the command starts and then moves what exists into the
permanent generation (``gc.freeze``), which later collections skip. Memory
is freed as before by reference counting; only reference cycles made during
the start stay until the process ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["paused"]


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No collection inside; what exists at the end is frozen (not
    collected again); the collector is then as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
