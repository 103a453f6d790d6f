"""The ``dumbbell`` command's entry point (``python -m dumbbell`` and the
console script).

A plain ``dumbbell run SCENARIO.toml`` (the file and any of ``--seed N``,
``--json``, ``--out DIR``, ``--plot``, each at most once) goes straight to
:func:`dumbbell.run_command.run_file`, without importing click and typer and
building the command line (about 17 ms of CPU, issue 29: ``dumbbell run``'s
start); it ends as the click app ends it (the same messages and exit
status, 130 for Ctrl-C). Anything else (help, another command, an option
this reading does not know, a value it would not take as click takes it)
goes to the click app (:func:`dumbbell.cli.main`), which parses, reports
usage errors and prints help as always.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main", "plain_run"]

_FLAGS = {"--json": "json_out", "--plot": "plot"}
_VALUED = {"--seed": "seed", "--out": "out"}


def plain_run(args: Sequence[str]) -> dict[str, Any] | None:
    """``run_file``'s arguments if ``args`` is a plain ``run`` command line
    that click would read the same way; ``None`` for anything else."""
    if not args or args[0] != "run" or "_DUMBBELL_COMPLETE" in os.environ:  # click's shell completion
        return None
    found: dict[str, Any] = {}
    files: list[str] = []
    i = 1
    while i < len(args):
        arg = args[i]
        i += 1
        if not arg.startswith("-"):
            files.append(arg)
            continue
        key, eq, value = arg.partition("=")
        if arg in _FLAGS:
            name, parsed = _FLAGS[arg], True
        elif key in _VALUED:
            if not eq:
                if i == len(args):
                    return None
                value, i = args[i], i + 1
            if not value or value.startswith("-"):
                return None
            name, parsed = _VALUED[key], value
            if name == "seed":
                if not (value.isascii() and value.isdigit()):
                    return None
                parsed = int(value)
        else:
            return None  # --help, -h, --, -, an unknown or misspelt option
        if name in found:
            return None
        found[name] = parsed
    if len(files) != 1:
        return None
    return {"scenario": files[0], **found}


def main(argv: Sequence[str] | None = None) -> None:
    """The command: a plain ``dumbbell run`` here, anything else through the
    click app."""
    plain = plain_run(sys.argv[1:] if argv is None else argv)
    if plain is None:
        from .cli import main as through_click

        through_click(None if argv is None else list(argv))
        return
    from .exits import _err, _exit_now, _is_click, _to_stderr
    from .run_command import run_file
    from .scenario.plausible import one_line_warnings

    one_line_warnings()  # `dumbbell: warning: links[0].rate_bps: ...`, one line each
    code: Any = None
    try:
        run_file(**plain)
    except SystemExit as e:
        code = e.code
    except (EOFError, KeyboardInterrupt):  # as click's Abort, then dumbbell.cli.main
        _to_stderr("\n")
        _err("dumbbell: interrupted")
        code = 130
    except OSError as e:
        if e.errno != errno.EPIPE:
            raise
        from click.utils import PacifyFlushWrapper  # as click: a closed pipe is status 1, quietly

        sys.stdout = PacifyFlushWrapper(sys.stdout)  # type: ignore[assignment]
        sys.stderr = PacifyFlushWrapper(sys.stderr)  # type: ignore[assignment]
        code = 1
    except Exception as e:
        if not _is_click(e) or not hasattr(e, "exit_code"):
            raise
        code = e.exit_code  # click was loaded on the way (by a user's module): its Exit
    if code == 130:
        _exit_now(130)
    sys.exit(code if isinstance(code, int) else 0)
