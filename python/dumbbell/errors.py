"""The exceptions dumbbell raises, one per kind of failure.

- :class:`ConfigError`: bad input, found before any simulation starts. It
  names the field at fault with a path into the scenario (``links[1].rate_bps``,
  ``flows[0].cc``, ``record.queues[0].peer``) or, for a whole file, its path.
  The CLI prints it as one line and exits with status 2.
- :class:`SimulationError`: an invariant broke during a run (packet
  conservation, ...). A bug in dumbbell, not in the input; the CLI exits 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["DumbbellError", "ConfigError", "SimulationError", "field_path", "from_validation_error"]


class DumbbellError(Exception):
    """Base class of dumbbell's own exceptions."""


class ConfigError(DumbbellError, ValueError):
    """Bad input, naming the field at fault.

    ``field`` is a path into the scenario in the names the user wrote (a TOML
    key path such as ``links[1].rate_bps``), ``message`` says what is wrong.
    ``str(err)`` is ``"field: message"``, always on one line.
    """

    def __init__(self, field: str, message: str) -> None:
        message = " ".join(str(message).split())
        super().__init__(field, message)
        self.field = field
        self.message = message

    def __str__(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message

    def within(self, prefix: str) -> ConfigError:
        """The same error with its field placed under ``prefix``."""
        if not prefix:
            return self
        if not self.field:
            return ConfigError(prefix, self.message)
        sep = "" if self.field.startswith("[") else "."
        return ConfigError(f"{prefix}{sep}{self.field}", self.message)


class SimulationError(DumbbellError, RuntimeError):
    """An internal failure during a run (an invariant of the simulator broke)."""


# Tags of the tagged unions (`kind = ...`): pydantic puts the tag in an
# error's location (`flows.0.tcp.cc`); users never wrote it, so it is removed.
_UNION_TAGS = frozenset(
    {"tcp", "udp", "droptail", "red", "step", "hysteresis", "reno", "cubic", "dctcp", "bbr", "highspeed", "vegas",
     "linear", "fractional", "expolinear", "ideal", "run2c", "rafle", "prio", "rr", "drr",
     "files", "cdf", "all_at_once", "closed_loop", "poisson"}
)
_UNION_FIELDS = frozenset(
    {"queue_ab", "queue_ba", "queue", "cc", "classifier", "scheduler", "long_queue", "sizes", "arrivals"}
)


def field_path(loc: Sequence[Any]) -> str:
    """``("links", 1, "rate_bps")`` → ``"links[1].rate_bps"``, without union tags."""
    parts: list[str] = []
    prev: Any = None
    for item in loc:
        skip = isinstance(item, str) and item in _UNION_TAGS and (isinstance(prev, int) or prev in _UNION_FIELDS)
        if not skip:
            if isinstance(item, int):
                parts.append(f"[{item}]")
            else:
                parts.append(("." if parts else "") + str(item))
        prev = item
    return "".join(parts)


def from_validation_error(err: Any, prefix: str = "") -> ConfigError:
    """Turns a pydantic ``ValidationError`` into one :class:`ConfigError`.

    The first error names the field; if there are more, the message says how
    many. A :class:`ConfigError` raised inside a validator (graph checks) keeps
    its own field, placed under the location where it was raised.
    """
    errors = err.errors()
    first = errors[0]
    loc = field_path(first.get("loc", ()))
    inner = (first.get("ctx") or {}).get("error")
    if isinstance(inner, ConfigError):
        out = inner.within(loc)
    else:
        msg = str(first.get("msg", "invalid value"))
        for noise in ("Value error, ", "Assertion failed, "):
            if msg.startswith(noise):
                msg = msg[len(noise):]
        if first.get("type") == "union_tag_invalid":
            ctx = first.get("ctx") or {}
            loc = f"{loc}.kind" if loc else "kind"
            msg = f"unknown kind {ctx.get('tag')!r} (known: {str(ctx.get('expected_tags', '')).replace(chr(39), '')})"
        elif first.get("type") == "missing":
            msg = "required field is missing"
        elif first.get("type") == "extra_forbidden":
            msg = "unknown field"
        out = ConfigError(loc or "scenario", msg)
    if len(errors) > 1:
        out = ConfigError(out.field, f"{out.message} (and {len(errors) - 1} more error(s))")
    return out.within(prefix)
