""""Did you mean": the closest known name to a misspelt one.

Every error about an unknown name (a field, a control, a queue kind, a node,
an experiment) ends with the closest known name when there is one close
enough (:func:`difflib.get_close_matches`, cutoff 0.6, the same measure as
Python's own ``NameError`` hints), so ``dealy_s`` points at ``delay_s`` and
``cubc`` at ``cubic``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(name: object, known: Iterable[str]) -> str | None:
    """The known name closest to ``name``, or None if none is close."""
    if not isinstance(name, str) or not name:
        return None
    names = [k for k in known if isinstance(k, str)]
    if name in names:
        return None
    hit = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if not hit:
        # a case slip ("Cubic", "DropTail") is close whatever its length
        lower = {k.lower(): k for k in names}
        hit = [lower[name.lower()]] if name.lower() in lower else []
    return hit[0] if hit else None


def did_you_mean(name: object, known: Iterable[str]) -> str:
    """``" (did you mean 'delay_s'?)"`` or ``""``: appended to a message."""
    hit = closest(name, known)
    return f" (did you mean {hit!r}?)" if hit else ""
