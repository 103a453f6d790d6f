"""``dumbbell module ...``: Linux congestion-control modules (``docs/kernel-modules.md``)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Optional

import typer

module_app = typer.Typer(
    help="Linux congestion-control modules run from their C source (docs/kernel-modules.md).",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _params(items: list[str]) -> dict[str, object]:
    from .errors import ConfigError

    out: dict[str, object] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ConfigError("--param", f"expects NAME=VALUE, got {item!r}")
        try:
            out[key] = int(value)
        except ValueError:
            out[key] = value
    return out


def port_config(kind: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """The core configuration of the built-in control ``kind`` with its
    core ``params``: ``{"kind": "cubic", "hz": 1000}``, or for a control
    of the core's registry (``bbr3``) ``{"kind": "registered", "name":
    "bbr3", "params": {...}}``."""
    from .scenario.tcp import BUILTIN_CONTROLS, REGISTERED  # kmod itself must not import it (a cycle)

    if kind in REGISTERED and kind not in BUILTIN_CONTROLS:
        return {"kind": "registered", "name": kind, "params": dict(params or {})}
    return {"kind": kind, **(params or {})}


@module_app.command("compare")
def compare_cmd(
    path: Annotated[str, typer.Argument(metavar="PATH.c", help="The module's C source (e.g. net/ipv4/tcp_cubic.c).",
                                        show_default=False)],
    as_: Annotated[str, typer.Option("--as", help="The built-in control to compare with (cubic, dctcp, reno, "
                                     "highspeed, vegas, bbr, bbr3, ...).", show_default=False)],
    as_params: Annotated[Optional[str], typer.Option(
        "--as-params", help='The built-in control\'s core parameters as JSON, e.g. \'{"mode": "linux_table"}\' '
        "for highspeed.", show_default=False)] = None,
    param: Annotated[Optional[list[str]], typer.Option(
        "--param", help="NAME=VALUE: a module_param of the module (repeatable).", show_default=False)] = None,
    linux_version: Annotated[str, typer.Option("--linux-version", help="The kernel the module is written for.")] = "6.12",
    hz: Annotated[int, typer.Option("--hz", help="The kernel's jiffies per second (Debian: 250).")] = 250,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")] = False,
) -> None:
    """Runs fixed scenarios (slow start into a drop-tail overflow with SACK, ECN marks, an RTO, app- and
    rwnd-limited phases, 1 % random loss, 10 Gb/s, two flows) with the built-in control and with the module,
    and reports for each the ACKs compared and the first hook call where cwnd, ssthresh, the pacing rate, the
    recovery state or a returned window differ. Exit 0 if every scenario is identical, 1 otherwise."""
    from .exits import _err, _exit_codes
    from .errors import ConfigError, ModuleCrash

    with _exit_codes():
        from .kmod import compare

        port: dict[str, object] = {}
        if as_params:
            try:
                extra = json.loads(as_params)
            except ValueError as e:
                raise ConfigError("--as-params", f"not JSON: {e}") from None
            if not isinstance(extra, dict):
                raise ConfigError("--as-params", "must be a JSON object")
            port.update(extra)
        port = port_config(as_, port)
        try:
            report = compare(path, port, _params(param or []), linux_version=linux_version, hz=hz)
        except ModuleCrash as e:  # the module's fault, not dumbbell's
            _err(f"dumbbell: error: {e}")
            raise typer.Exit(1) from None
    identical = all(s["first_difference"] is None for s in report["scenarios"])
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        typer.echo(f"{report['module']} against the built-in {report['as']}:")
        for s in report["scenarios"]:
            d = s["first_difference"]
            if d is None:
                typer.echo(f"  {s['name']:<26} {s['acks']:>7} ACKs  identical")
            else:
                typer.echo(
                    f"  {s['name']:<26} {s['acks']:>7} ACKs  differs at t={d['time_ps'] / 1e12:.6f} s, "
                    f"connection {d['connection']}, call {d['call']} ({d['hook']}): {d['field']} "
                    f"port {d['port']}, module {d['module']}"
                )
    raise typer.Exit(0 if identical else 1)
