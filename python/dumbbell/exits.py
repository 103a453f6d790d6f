"""How the ``dumbbell`` command speaks and ends: one line per message on
stderr (never stdout, which may carry ``--json``), and the exit codes: bad
input 2 with one line naming the field, any other failure 1, Ctrl-C 130.
Shared by :mod:`dumbbell.cli`, :mod:`dumbbell.kmod_cli` and the fast
start of ``dumbbell run`` (:mod:`dumbbell.entry`), which does not load click:
click is imported here only when it is already loaded."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from .errors import ConfigError, SimulationError


def _to_stderr(text: str) -> None:
    """Writes to stderr; never to stdout (which may carry the JSON), and a
    closed or failing stderr is not an error of its own."""
    if sys.stderr is None:
        return
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _err(msg: str) -> None:
    _to_stderr(" ".join(str(msg).split()) + "\n")


def _progress(msg: str) -> None:
    _to_stderr(f"{msg}\n")


@contextlib.contextmanager
def _exit_codes() -> Iterator[None]:
    """Bad input → exit 2 with one line; anything else that fails → exit 1."""
    try:
        yield
    except ConfigError as e:
        _err(f"dumbbell: error: {e}")
        raise _exit(2) from None
    except KeyboardInterrupt:
        _err("dumbbell: interrupted")
        _exit_now(130)
    except Exception as e:  # noqa: BLE001 - the CLI's last line of defence
        if _is_click(e):  # click's own ending (an Exit, an Abort, a usage error) goes on to click
            raise
        if _is_interrupt(e):
            _err("dumbbell: interrupted")
            _exit_now(130)
        from .sweep.diskfull import DiskFull, is_disk_full, path_of

        if is_disk_full(e):  # a write no writer named: the path the error knows
            _err(f"dumbbell: error: {DiskFull(path_of(e, 'a file being written') or 'a file being written')}")
            raise _exit(2) from None
        if os.environ.get("DUMBBELL_DEBUG"):
            import traceback

            traceback.print_exc()
        kind = "internal error" if isinstance(e, SimulationError) else f"internal error ({type(e).__name__})"
        _err(f"dumbbell: {kind}: {e}")
        raise _exit(1) from None


def _exit(code: int) -> BaseException:
    """What ends the command with status ``code``: click's ``Exit`` (typer's)
    under the click app, which returns it as the status; ``SystemExit`` on
    the fast start of ``dumbbell run`` (:mod:`dumbbell.entry`), which has not
    loaded click and takes either."""
    click = sys.modules.get("click")
    return click.exceptions.Exit(code) if click is not None else SystemExit(code)


def _is_click(e: BaseException) -> bool:
    """One of click's exceptions (only possible once click is loaded)."""
    click = sys.modules.get("click")
    return click is not None and isinstance(e, (click.exceptions.Exit, click.exceptions.Abort, click.ClickException))


def _is_interrupt(e: BaseException) -> bool:
    """A Ctrl-C that reached us disguised: DuckDB, when the signal lands
    during one of its queries (the store's catalog), turns the
    KeyboardInterrupt into its own "Query interrupted" error."""
    seen: set[int] = set()
    x: BaseException | None = e
    while x is not None and id(x) not in seen:
        seen.add(id(x))
        if isinstance(x, KeyboardInterrupt) or type(x).__name__ == "InterruptException":
            return True
        if type(x).__module__.split(".")[0] in ("duckdb", "_duckdb", "builtins") and str(x).strip() == "Query interrupted":
            return True
        x = x.__cause__ or x.__context__
    return False


def _exit_now(code: int) -> None:
    """Ctrl-C: everything that needed cleaning (runs stopped, the pool
    joined, the store's lock released, temporary output removed) was done on
    the way here. The interpreter's own teardown of the native libraries
    takes a second or more on a busy machine, so it is skipped: the streams
    are flushed and the process exits at once, as promised."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
