"""TCP options set on every connection of every run: ``dumbbell reproduce
NAME --tcp KEY=VALUE`` and ``dumbbell sweep SCENARIO.toml --tcp KEY=VALUE``
(issue 29: an experiment or a sweep under another TCP setting, such as
TSO-sized bursts with ``gso_max_bytes=65536``).

A setting is checked once, before anything runs, by the scenario's own
model (:class:`~dumbbell.scenario.tcp.TcpOptions`: its ranges and types;
an unknown key is refused naming the closest one). The sweep engine
(:func:`dumbbell.sweep.engine.execute`, through ``using(tcp=...)``) then
writes it into every TCP connection of each run's core document, the bulk
flows' ``tcp`` and the workloads' ``tcp`` alike, over what the experiment
set, *before* the run's identity is computed: the store keeps a run with
the setting apart from the one without, and a document without settings is
left untouched (the same run id as before). A connection whose own options
conflict with the setting (``gso_max_bytes`` below its MSS) is refused by
the same cross-field rules as a scenario, naming the run's field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError

__all__ = ["TcpSettings", "parse_tcp", "tcp_settings"]

# a profile sets many options at once, from an era; over a run document it
# has no single value to write
_NOT_SETTABLE = ("profile",)


def _value(text: str) -> Any:
    """A value as TOML reads it (numbers, booleans, quoted strings), else the
    bare word as a string (``linux``, ``100Mbps``)."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _shown(v: Any) -> str:
    """A value as the user writes it (``true``, not ``True``)."""
    return str(v).lower() if isinstance(v, bool) else str(v)


def _core_name(key: str) -> str:
    # TcpOptions.to_core: seconds in the scenario, picoseconds in the core
    return key[:-2] + "_ps" if key.endswith("_s") else key


def _scenario_form(core: Mapping[str, Any]) -> dict[str, Any]:
    """A connection's core ``tcp`` options back in the scenario's names and
    units, for the model's cross-field rules (0 is the core's "none" for the
    send buffer, which the model spells as unset)."""
    out: dict[str, Any] = {}
    for k, v in core.items():
        if k.endswith("_ps"):
            out[k[:-3] + "_s"] = v / 1e12
        elif not (k == "sndbuf_bytes" and v == 0):
            out[k] = v
    return out


@dataclass(frozen=True)
class TcpSettings:
    """TCP options set on every connection: ``given`` as the user wrote them
    (scenario names and values, in order), ``core`` as the core document
    spells them (``min_rto_s`` → ``min_rto_ps``)."""

    given: tuple[tuple[str, Any], ...]
    core: tuple[tuple[str, Any], ...]
    #: how errors name the setting: ``--tcp`` (the command line) or ``tcp``
    #: (``db.sweep(..., tcp={...})``)
    origin: str = "--tcp"

    def __bool__(self) -> bool:
        return bool(self.given)

    def as_dict(self) -> dict[str, Any]:
        """``{key: value}`` in the scenario's names (result.json, meta.json)."""
        return dict(self.given)

    def describe(self, paper: bool = True) -> str:
        """One sentence for reports: what was set, and (``paper``, for a
        reproduction) that it overrides the experiment's own setting (which
        may already be the same: E1 and E6 send TSO-sized skbs)."""
        parts = [f"{k} = {_shown(v)}" for k, v in self.given]
        noun = "option" if len(parts) == 1 else "options"
        tail = ", over the experiment's own setting" if paper else ""
        return f"TCP {noun} {', '.join(parts)} set on every connection{tail}"

    def label_suffix(self) -> str:
        """What ``dumbbell sweep --tcp`` appends to the sweep's default
        catalog label: ``+tcp:gso_max_bytes=65536`` (several joined by
        commas), so that the variant's runs are a sweep of their own."""
        return "+tcp:" + ",".join(f"{k}={_shown(v)}" for k, v in self.given)

    def apply(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """``config`` with the settings written into every TCP connection's
        ``tcp`` (bulk flows and workloads); the input is not modified. Raises
        :class:`ConfigError` naming the connection's field when its own
        options and a setting break a cross-field rule."""
        out = dict(config)
        checked: set[str] = set()
        for section, is_tcp in (("flows", lambda f: f.get("kind") == "tcp"), ("workloads", lambda w: True)):
            items = config.get(section)
            if not items:
                continue
            new = []
            for i, item in enumerate(items):
                if not is_tcp(item):
                    new.append(item)
                    continue
                tcp = {**(item.get("tcp") or {}), **dict(self.core)}
                self._check(tcp, f"{section}[{i}].tcp", checked)
                new.append({**item, "tcp": tcp})
            out[section] = new
        return out

    def _check(self, tcp: Mapping[str, Any], where: str, checked: set[str]) -> None:
        import json

        from pydantic import ValidationError

        from ..errors import from_validation_error
        from ..scenario.tcp import TcpOptions

        key = json.dumps(tcp, sort_keys=True)
        if key in checked:  # the connections of a run mostly share their options
            return
        checked.add(key)
        try:
            TcpOptions.model_validate(_scenario_form(tcp))
        except ConfigError as e:
            raise ConfigError(f"{self.origin} ({where}.{e.field})", e.message) from None
        except ValidationError as e:
            err = from_validation_error(e)
            raise ConfigError(f"{self.origin} ({where}.{err.field})", err.message) from None


def parse_tcp(items: Iterable[str]) -> TcpSettings:
    """``["gso_max_bytes=65536", ...]`` → :class:`TcpSettings`, each key and
    value checked by :class:`~dumbbell.scenario.tcp.TcpOptions` (an unknown
    key: its closest name; a bad value: the field's own error)."""
    pairs = []
    for item in items:
        key, eq, text = item.partition("=")
        key, text = key.strip(), text.strip()
        if not eq or not key or not text:
            raise ConfigError("--tcp", f"expected KEY=VALUE, got {item!r}")
        pairs.append((key, _value(text)))
    return _settings(pairs, "--tcp")


def tcp_settings(tcp: TcpSettings | Mapping[str, Any] | None) -> TcpSettings | None:
    """The Python API's form (``db.sweep(..., tcp={"gso_max_bytes": 65536})``)
    → :class:`TcpSettings`, checked as ``--tcp`` is; errors name
    ``tcp.KEY``. ``None`` or an empty mapping: no setting."""
    if tcp is None or isinstance(tcp, TcpSettings):
        return tcp or None
    if not isinstance(tcp, Mapping):
        raise ConfigError("tcp", f"expected a mapping of TCP options to values, got {type(tcp).__name__}")
    return _settings(list(tcp.items()), "tcp") or None


def _settings(pairs: list[tuple[str, Any]], origin: str) -> TcpSettings:
    from pydantic import ValidationError

    from ..errors import from_validation_error
    from ..scenario.tcp import TcpOptions
    from ..suggest import did_you_mean

    def field(key: str) -> str:
        return f"{origin} {key}" if origin.startswith("-") else f"{origin}.{key}" if key else origin

    known = [k for k in TcpOptions.model_fields if k not in _NOT_SETTABLE]
    given: dict[str, Any] = {}
    for key, value in pairs:
        if not isinstance(key, str) or not key:
            raise ConfigError(origin, f"expected option names as keys, got {key!r}")
        if key in _NOT_SETTABLE:
            each = ", one --tcp KEY=VALUE each" if origin == "--tcp" else ""
            raise ConfigError(field(key), f"a profile sets many options from a kernel era; set the options "
                                          f"themselves{each}")
        if key not in known:
            raise ConfigError(field(key), f"unknown TCP option{did_you_mean(key, known)} "
                                          f"(known: {', '.join(known)})")
        if key in given:
            raise ConfigError(field(key), "given twice")
        given[key] = value
    try:
        opts = TcpOptions.model_validate(given)
    except ConfigError as e:
        raise ConfigError(field(e.field), e.message) from None
    except ValidationError as e:
        err = from_validation_error(e)
        raise ConfigError(field(err.field), err.message) from None
    resolved = opts.to_core()
    core = tuple((_core_name(k), resolved[_core_name(k)]) for k in given)
    shown = tuple((k, getattr(opts, k)) for k in given)
    return TcpSettings(given=shown, core=core, origin=origin)
