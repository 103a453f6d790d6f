"""A full disk, said in one line that names the path.

Writing the results store, an experiment's output directory or ``--out`` can
run out of space at any moment, and the failure comes in many shapes: an
``OSError`` with errno ``ENOSPC`` (or ``EDQUOT``) that often lacks the file
name (a failed ``write`` on an open file), a DuckDB ``IOException`` or
``TransactionException`` about its WAL, a polars or matplotlib error
wrapping the OS's. :func:`naming` turns every one of them into
:class:`DiskFull` naming the file (when the error knows it) or the
directory being written, which the CLI prints as one line with exit status
2. The writers themselves make sure nothing already stored is lost and no
temporary folder is left (``Store.put``, ``outdir.write_atomically``).
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator
from pathlib import Path

from ..errors import ConfigError

__all__ = ["DiskFull", "is_disk_full", "naming"]

_ERRNOS = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_WORDS = ("no space left on device", "disk quota exceeded", "not enough space on the disk")


class DiskFull(ConfigError):
    """Out of space while writing ``field`` (a path)."""

    def __init__(self, path: Path | str, what: str = "") -> None:
        super().__init__(str(path), f"the disk is full (no space left on device{'; ' + what if what else ''}): "
                                    "free some space and run the command again; nothing stored before was lost")
        self.path = Path(path)


def _chain(e: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    x: BaseException | None = e
    while x is not None and id(x) not in seen:
        seen.add(id(x))
        yield x
        x = x.__cause__ or x.__context__


def is_disk_full(e: BaseException) -> bool:
    """True if ``e`` (or what caused it) is the disk or quota being full."""
    for x in _chain(e):
        if isinstance(x, DiskFull):
            return True
        if isinstance(x, OSError) and x.errno in _ERRNOS:
            return True
        if any(w in str(x).lower() for w in _WORDS):
            return True
    return False


def path_of(e: BaseException, default: Path | str | None = None) -> Path | str | None:
    """The file an error names (``OSError.filename``), else ``default``."""
    for x in _chain(e):
        if isinstance(x, DiskFull):
            return x.path
        if isinstance(x, OSError) and x.filename:
            return x.filename
    return default


@contextlib.contextmanager
def naming(path: Path | str) -> Iterator[None]:
    """Inside the block, running out of space raises :class:`DiskFull`
    naming ``path`` (what the user knows: the store's folder or catalog, not
    a temporary file that is gone by the time the message is read)."""
    try:
        yield
    except DiskFull:
        raise
    except Exception as e:
        if is_disk_full(e):
            raise DiskFull(path) from None
        raise
