"""Output directories that are never left half-written.

A command that writes several files into ``--out DIR`` must not leave a mix
of two runs behind if it is killed (new tables beside old figures, a
0-byte Parquet file, a ``config.json`` naming another seed). So:

- :func:`check_out_dir` is called before any work starts: it refuses, as a
  :class:`~dumbbell.errors.ConfigError` naming the option, an empty path, a
  path that exists as a file or lies under a file, a directory that cannot
  be created or written, and an existing non-empty directory that is not a
  dumbbell output (it would be replaced);
- :func:`write_atomically` writes everything into a fresh temporary
  directory beside DIR and only then puts it in place: DIR holds either the
  earlier output, complete, or the new one, complete. Replacing an earlier
  output is one atomic exchange of the two directories (Linux
  ``renameat2(RENAME_EXCHANGE)``), so there is no moment without DIR; where
  that call is missing (other systems, old kernels or file systems) it is
  two renames, and a kill between them leaves DIR briefly absent with the
  earlier output complete in ``.DIR.old-*``. Leftovers of killed writes
  (``.DIR.tmp-PID-*``, ``.DIR.old-PID-*``) are hidden, never read, and
  removed by the next write into DIR once their process is gone.

A dumbbell output directory is recognised by the marker file
:data:`MARKER`, written last into the temporary directory.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from ..errors import ConfigError

__all__ = ["MARKER", "check_out_dir", "write_atomically"]

MARKER = ".dumbbell-output"
"""Empty file marking a directory as written (completely) by dumbbell."""


def _first_existing(p: Path) -> Path:
    for q in (p, *p.parents):
        if os.path.lexists(q):
            return q
    return Path(".")


def check_out_dir(
    value: str | os.PathLike[str] | None, option: str = "--out", *, replaced_whole: bool = True
) -> Path | None:
    """The output directory ``value`` if it can be written; raises
    :class:`ConfigError` naming ``option`` otherwise. ``None`` passes.
    ``replaced_whole``: the directory will be replaced by
    :func:`write_atomically`, so a non-empty one dumbbell did not write is
    refused; without it, files are written into the directory as it is."""
    if value is None:
        return None
    raw = os.fspath(value)
    if not raw.strip():
        raise ConfigError(option, "is empty; give a directory")
    out = Path(raw).expanduser()
    if out.exists() and not out.is_dir():
        raise ConfigError(option, f"{raw} exists and is not a directory")
    if out.is_dir():
        entries = [e for e in os.listdir(out) if e != MARKER]
        if replaced_whole and entries and not (out / MARKER).exists():
            raise ConfigError(
                option,
                f"{raw} is a non-empty directory that dumbbell did not write; "
                "give a new or empty directory (a dumbbell output directory is replaced whole)",
            )
        where = out.parent if out.parent != out else out
    else:
        base = _first_existing(out.parent if out.parent != out else out)
        if not base.is_dir():
            raise ConfigError(option, f"{raw} lies under {base}, which is not a directory")
        where = base
    if not os.access(where, os.W_OK | os.X_OK):
        raise ConfigError(option, f"cannot write {raw}: {where} is not writable")
    return out


def write_atomically(out: Path, write: Callable[[Path], object]) -> Path:
    """Calls ``write(tmp)`` to fill a temporary directory beside ``out``, then
    puts it in place of ``out`` (replacing an earlier dumbbell output)."""
    out = Path(out)
    parent = out.parent if str(out.parent) else Path(".")
    parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(parent, out.name)
    pid = os.getpid()
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-{pid}-", dir=parent))
    try:
        write(tmp)
        (tmp / MARKER).write_text("")
        os.chmod(tmp, 0o777 & ~_umask())
        if out.exists():
            if _exchange(tmp, out):
                shutil.rmtree(tmp, ignore_errors=True)  # tmp now holds the earlier output
            else:
                old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{pid}-", dir=parent))
                os.rmdir(old)
                os.rename(out, old)
                os.rename(tmp, out)
                shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, out)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        from .diskfull import DiskFull, is_disk_full, path_of

        if isinstance(e, Exception) and is_disk_full(e):
            # named as the user knows it: the file inside --out, not the temporary folder
            where = Path(path_of(e, out) or out)
            with contextlib.suppress(ValueError):
                where = out / where.relative_to(tmp)
            raise DiskFull(where) from None
        raise
    return out


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swaps directories ``a`` and ``b`` in one atomic step; False if the
    system cannot (then nothing happened)."""
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fn = libc.renameat2
    except (OSError, AttributeError):
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    if fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    import errno

    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, f"cannot put {a} in place of {b}: {os.strerror(err)}")


def _remove_leftovers(parent: Path, name: str) -> None:
    """Removes ``.NAME.tmp-PID-*`` and ``.NAME.old-PID-*`` left by writers
    that were killed (their process no longer exists)."""
    for kind in ("tmp", "old"):
        for p in parent.glob(f".{name}.{kind}-*"):
            pid_text = p.name[len(f".{name}.{kind}-"):].partition("-")[0]
            if not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
                continue
            shutil.rmtree(p, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
