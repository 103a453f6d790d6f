"""Verified reads of the results store: every file of a stored run is checked
against the checksum written with it before it is used, and a run that fails
the check is moved aside and computed again, never served.

What a run's ``run.json`` vouches for (written by :meth:`Store.put`):

- ``tables``: each table's size and SHA-256 (as it always was);
- ``config_sha256``: the SHA-256 of ``config.json``, the exact core document
  that was run;
- ``seal``: the SHA-256 of the manifest itself (everything in it but the
  seal, canonical JSON, behind a version tag), so the run's id, seed, status,
  summary, metrics and every checksum are bound together. A valid Parquet
  file copied from another run fails its table's checksum; another run's
  whole directory, or its ``run.json``, fails the check that the manifest's
  ``run_id`` is the directory's name (and the run asked for); a hand-edited
  manifest fails its seal; and when the run is asked for by the sweep
  engine, ``config.json`` must also be the document asked for.

Runs written before the seal existed carry table checksums only: those are
checked, the rest is accepted as it was.

``timing.json`` (wall time, host) is not part of a run's result and differs
from machine to machine; it is read leniently and never trusted for a result.

A run that fails is **quarantined**: its directory is renamed to
``quarantine/<run_id>-<UTC time>-<tag>/`` in the same store (nothing is
deleted; ``dumbbell store gc`` removes it), with ``quarantine.json`` saying
which file and why, and its catalog row is dropped. The sweep engine logs one
line (logger ``dumbbell.sweep.store``, which prints on stderr when nothing else is
configured) naming the run, the file and the reason, and computes the run
again. A table that changes after its run was checked (read later, through
:meth:`RunRecord.table`) is caught when it is read: :class:`CorruptRun`
names the file, and the run is quarantined if this process holds the
writer's lock, so the next command computes it again.

No reader's panic (polars decoding a damaged file) reaches the user: the
checksum is checked on the bytes before they are decoded, and a decoder
failure that gets through anyway becomes a :class:`CorruptRun`.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError

__all__ = ["CorruptRun", "SEAL_DOMAIN", "seal_of", "config_bytes", "check_run", "check_table_bytes", "decode_table",
           "quarantine", "QUARANTINE", "log"]

log = logging.getLogger("dumbbell.store")

SEAL_DOMAIN = "dumbbell/run-seal/v1"
"""The version tag hashed in front of a manifest (a change of what the seal
covers changes the tag)."""

QUARANTINE = "quarantine"
"""The store's folder of runs set aside (``<store>/quarantine/``)."""


class CorruptRun(ConfigError):
    """A stored run's file is not what was written: ``field`` is the file's
    path, ``message`` the run and the reason. One line, like every
    :class:`ConfigError`; the CLI exits with status 2."""

    def __init__(self, run_id: str, path: Path | str, reason: str, hint: str = "") -> None:
        super().__init__(str(path), f"stored run {run_id} is damaged: {reason}{'; ' + hint if hint else ''}")
        self.run_id = run_id
        self.path = Path(path)
        self.reason = reason


def _canonical(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False)


def seal_of(manifest: Mapping[str, Any]) -> str:
    """The seal of a manifest: SHA-256 of the tag and the canonical JSON of
    every key but ``seal``."""
    body = {k: v for k, v in manifest.items() if k != "seal"}
    return hashlib.sha256(f"{SEAL_DOMAIN}\n{_canonical(body)}".encode()).hexdigest()


def config_bytes(config: Mapping[str, Any]) -> bytes:
    """``config.json`` exactly as the store writes it."""
    return (json.dumps(config, sort_keys=True, indent=1, allow_nan=False) + "\n").encode()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read(path: Path, run_id: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise CorruptRun(run_id, path, "the file is missing") from None
    except IsADirectoryError:
        raise CorruptRun(run_id, path, "a directory stands where the file should be") from None
    except OSError as e:
        raise CorruptRun(run_id, path, f"the file cannot be read ({e.strerror or e})") from None


def read_manifest(d: Path, run_id: str) -> dict[str, Any]:
    """``run.json`` of the run directory ``d``, parsed and checked for shape
    and seal (not its files). Raises :class:`CorruptRun`."""
    p = d / "run.json"
    data = _read(p, run_id)
    if not data.strip():
        raise CorruptRun(run_id, p, "the file is empty")
    try:
        man = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise CorruptRun(run_id, p, "not valid JSON (damaged or cut short)") from None
    if not isinstance(man, dict):
        raise CorruptRun(run_id, p, "not a run manifest (a JSON object)")
    if man.get("run_id") != d.name:
        raise CorruptRun(run_id, p, f"it describes run {man.get('run_id')!r}, not the run of its directory "
                                    "(copied from another run?)")
    tables = man.get("tables")
    if not isinstance(tables, dict) or not all(
            isinstance(t, dict) and isinstance(t.get("sha256"), str) and isinstance(t.get("bytes"), int)
            for t in tables.values()):
        raise CorruptRun(run_id, p, "its table checksums are missing or malformed")
    if not isinstance(man.get("status"), str) or not isinstance(man.get("seed"), int):
        raise CorruptRun(run_id, p, "its status or seed is missing")
    if "seal" in man and man["seal"] != seal_of(man):
        raise CorruptRun(run_id, p, "its seal does not match its contents (edited or damaged)")
    return man


def check_table_bytes(run_id: str, path: Path, data: bytes, info: Mapping[str, Any]) -> None:
    """Raises :class:`CorruptRun` unless ``data`` is the table ``info``
    (``{"bytes", "sha256"}``) describes."""
    if len(data) != info.get("bytes"):
        what = "cut short" if len(data) < int(info.get("bytes") or 0) else "longer than written"
        raise CorruptRun(run_id, path, f"{what}: {len(data)} bytes, {info.get('bytes')} were written")
    if _sha(data) != info.get("sha256"):
        raise CorruptRun(run_id, path, "its SHA-256 is not the one written with it (the content changed)")


def decode_table(run_id: str, path: Path, data: bytes) -> Any:
    """The polars DataFrame of verified Parquet bytes; a decoder failure
    (even a panic inside polars) becomes :class:`CorruptRun`."""
    import polars as pl

    try:
        return pl.read_parquet(io.BytesIO(data))
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as e:  # noqa: BLE001 - pyo3's PanicException is a BaseException
        raise CorruptRun(run_id, path, f"Parquet cannot be decoded ({type(e).__name__})") from None


@dataclass
class Checked:
    """A run that passed :func:`check_run`: its manifest."""

    manifest: dict[str, Any]


def check_run(d: Path, run_id: str | None = None, config: Mapping[str, Any] | None = None) -> Checked:
    """Checks every file of the stored run in ``d`` against its manifest
    (and, with ``config``, that it is the run of that core document).
    Raises :class:`CorruptRun` at the first fault."""
    rid = run_id or d.name
    if run_id is not None and d.name != run_id:
        raise CorruptRun(rid, d, f"the directory is named {d.name}")
    man = read_manifest(d, rid)
    cfg_path = d / "config.json"
    want_cfg = man.get("config_sha256")
    if want_cfg is not None or config is not None:
        data = _read(cfg_path, rid)
        got = _sha(data)
        if want_cfg is not None and got != want_cfg:
            raise CorruptRun(rid, cfg_path, "its SHA-256 is not the one written with it (the content changed)")
        if config is not None and data != config_bytes(config):
            raise CorruptRun(rid, cfg_path, "it is not the document of this run (copied from another run?)")
    for name, info in sorted(man["tables"].items()):
        p = d / f"{name}.parquet"
        check_table_bytes(rid, p, _read(p, rid), info)
    listed = {f"{n}.parquet" for n in man["tables"]}
    try:
        extra = sorted(f.name for f in d.iterdir() if f.suffix == ".parquet" and f.name not in listed)
    except OSError as e:
        raise CorruptRun(rid, d, f"the directory cannot be listed ({e.strerror or e})") from None
    if extra:
        raise CorruptRun(rid, d / extra[0], "a table its manifest does not list")
    return Checked(manifest=man)


def quarantine(root: Path, d: Path, run_id: str, fault: CorruptRun) -> Path | None:
    """Moves the run directory ``d`` to ``<root>/quarantine/`` with a note of
    the fault; returns where it went (None if it was already gone)."""
    qroot = root / QUARANTINE
    qroot.mkdir(parents=True, exist_ok=True)
    dest = qroot / f"{run_id}-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{uuid.uuid4().hex[:6]}"
    try:
        os.rename(d, dest)
    except FileNotFoundError:
        return None
    note = {"run_id": run_id, "file": str(fault.path), "reason": fault.reason,
            "quarantined_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    try:
        (dest / "quarantine.json").write_text(json.dumps(note, indent=1, sort_keys=True) + "\n")
    except OSError:
        pass  # the note is a courtesy: the folder's name already says which run
    return dest


def describe(man: Mapping[str, Any] | None) -> str:
    """What a run is in the user's terms: its experiment or sweep and point."""
    if not man:
        return ""
    parts = [str(man.get("experiment") or man.get("scenario") or "")]
    if man.get("point") is not None:
        parts.append(f"point {_canonical(man.get('point'))}")
    if man.get("rep") is not None:
        parts.append(f"repetition {man.get('rep')}")
    return ", ".join(p for p in parts if p)


def fault_line(fault: CorruptRun, root: Path, moved: Path | None, labels: Mapping[str, Any] | None = None,
               action: str = "computing it again") -> str:
    """The one line logged for a damaged run."""
    try:
        where = fault.path.relative_to(root)
    except ValueError:
        where = fault.path
    what = describe(labels)
    run = f"run {fault.run_id}" + (f" ({what})" if what else "")
    aside = f"moved to {moved.relative_to(root)}/, " if moved is not None else ""
    return f"dumbbell: store {root}: {run}: {where}: {fault.reason}; {aside}{action}"
