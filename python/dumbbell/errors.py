"""The exceptions dumbbell raises, one per kind of failure.

- :class:`ConfigError`: bad input, found before any simulation starts. It
  names the field at fault with a path into the scenario (``links[1].rate_bps``,
  ``flows[0].cc``, ``record.queues[0].peer``) or, for a whole file, its path.
  The CLI prints it as one line and exits with status 2.
- :class:`LimitError` (a :class:`ConfigError`): a limit that a field sets
  was reached while running (``record.max_bytes``, or the machine's memory
  for what that field governs). The CLI prints it as one line and exits 2.
- :class:`SimulationError`: an invariant broke during a run (packet
  conservation, a loop that makes no progress, a panic in the core). A bug
  in dumbbell, not in the input; the CLI exits 1.
- :class:`ControlError` (a :class:`SimulationError`): a hook of a control
  written in Python (:mod:`dumbbell.controls`) raised, or returned what is
  not a window; the run stopped. It names the flow's field, the control and
  the hook; the hook's exception is its ``__cause__``. The CLI exits 1.
- :class:`Interrupted` (a ``KeyboardInterrupt``): Ctrl-C stopped a run; its
  ``result`` is what the run had computed, marked stopped.

And one warning, :class:`DumbbellWarning` (a ``UserWarning``): a value that
is valid but implausible (a rate below 1 kb/s, a delay above 10 s), or a run
in which no flow delivered data (:mod:`dumbbell.scenario.plausible`). The value is used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .suggest import did_you_mean

__all__ = [
    "DumbbellError",
    "ConfigError",
    "LimitError",
    "SimulationError",
    "ControlError",
    "ModuleCrash",
    "Interrupted",
    "DumbbellWarning",
    "field_path",
    "from_validation_error",
]


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


class LimitError(ConfigError):
    """A limit named by ``field`` was reached while running (a recording
    budget, or memory): the run ended, nothing was aborted."""


class SimulationError(DumbbellError, RuntimeError):
    """An internal failure during a run (an invariant of the simulator broke,
    or the core panicked: the message says where)."""


class ControlError(SimulationError):
    """A hook of a control written in Python failed and stopped the run.

    ``field`` is the control's path in the scenario (``flows[0].cc``),
    ``control`` its name, ``hook`` the hook (``cong_avoid``), ``time_s`` the
    simulated time of the call; the hook's exception is ``__cause__``.
    """

    def __init__(self, field: str, control: str, hook: str, time_s: float, message: str) -> None:
        message = " ".join(str(message).split())
        super().__init__(
            f"{field}: control {control!r} failed in {hook}() at t = {time_s:.9g} s: {message}"
        )
        self.field = field
        self.control = control
        self.hook = hook
        self.time_s = time_s
        self.message = message


class ModuleCrash(SimulationError):
    """A Linux kernel module control (:func:`dumbbell.KernelModule`) crashed
    (a segfault, a division by zero, ``BUG()``) in the run's child process:
    ``module`` names its file and registered name, ``hook`` the hook it was
    in (``cong_avoid``), ``time_s`` the simulated time, ``signal`` the
    signal's name. The run is lost; the calling process is unharmed."""

    def __init__(self, module: str, hook: str, time_s: float, signal: str) -> None:
        where = f"in its {hook} hook" if not hook.startswith("(") else hook
        super().__init__(
            f"kernel module {module} crashed ({signal}) {where} at simulated time {time_s:.9f} s; "
            "the run is lost, this process is unharmed"
        )
        self.module = module
        self.hook = hook
        self.time_s = time_s
        self.signal = signal


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run. ``result`` holds what it had computed (a
    :class:`~dumbbell.Result`, or the tables for ``run_config``), marked
    stopped. A ``KeyboardInterrupt``, so loops and scripts still end."""

    def __init__(self, result: Any) -> None:
        super().__init__("interrupted")
        self.result = result


class DumbbellWarning(UserWarning):
    """A valid but implausible value, or a run that delivered nothing: the
    message begins with the field it names (``links[0].rate_bps: ...``)."""


# Tags of the tagged unions (`kind = ...`): pydantic puts the tag in an
# error's location (`flows.0.tcp.cc`); users never wrote it, so it is removed.
_UNION_TAGS = frozenset(
    {"tcp", "udp", "droptail", "red", "step", "hysteresis", "codel", "fq_codel", "pie", "reno", "cubic", "dctcp", "bbr", "highspeed", "vegas",
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


def _show(v: Any) -> str:
    """A value as the user wrote it (TOML spelling for booleans)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return repr(v)
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


_KIND = {bool: "a boolean", str: "a string", float: "a float", int: "an integer", list: "a list", dict: "a table"}


def _plain_message(error: Mapping[str, Any]) -> str | None:
    """pydantic's range and type messages in our words, with the value given."""
    kind = error.get("type")
    ctx = error.get("ctx") or {}
    got = error.get("input")
    what = _KIND.get(type(got), type(got).__name__)
    if kind == "greater_than":
        bound = ctx.get("gt")
        return f"must be positive, got {_show(got)}" if bound == 0 else f"must be greater than {_show(bound)}, got {_show(got)}"
    if kind == "greater_than_equal":
        return f"must be at least {_show(ctx.get('ge'))}, got {_show(got)}"
    if kind == "less_than":
        return f"must be below {_show(ctx.get('lt'))}, got {_show(got)}"
    if kind == "less_than_equal":
        return f"must be at most {_show(ctx.get('le'))}, got {_show(got)}"
    if kind == "finite_number":
        return f"must be a finite number, got {_show(got)}"
    if kind in ("int_type", "int_from_float", "int_parsing"):
        return f"must be an integer, got {_show(got)} ({what})"
    if kind in ("float_type", "float_parsing"):
        return f"must be a number, got {_show(got)} ({what})"
    if kind in ("bool_type", "bool_parsing"):
        return f"must be true or false, got {_show(got)} ({what})"
    if kind in ("string_type",):
        return f"must be a string, got {_show(got)} ({what})"
    if kind in ("list_type",):
        return f"must be a list, got {_show(got)} ({what})"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"must be a table of fields, got {_show(got)} ({what})"
    return None


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
            known = str(ctx.get("expected_tags", "")).replace(chr(39), "")
            msg = f"unknown kind {ctx.get('tag')!r}{did_you_mean(ctx.get('tag'), known.split(', '))} (known: {known})"
        elif first.get("type") == "missing":
            msg = "required field is missing"
        elif first.get("type") == "extra_forbidden":
            msg = "unknown field"
        else:
            msg = _plain_message(first) or msg
        out = ConfigError(loc or "scenario", msg)
    if len(errors) > 1:
        out = ConfigError(out.field, f"{out.message} (and {len(errors) - 1} more error(s))")
    return out.within(prefix)
