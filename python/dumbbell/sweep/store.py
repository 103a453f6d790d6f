"""The results store: one directory per run, one Parquet file per table, and a
DuckDB catalog over them, built so that nothing is lost whatever kills the
process that writes it.

Layout of a store directory (default ``./dumbbell-results``)::

    catalog.duckdb            the catalog: an index over the files below
    runs/<ab>/<run_id>/       one run (<ab>: the run id's first two digits)
        run.json              its manifest: identity, labels, status, error,
                              summary metrics, tables (bytes and SHA-256 each),
                              config_sha256, seal (dumbbell.sweep.storecheck)
        config.json           the exact core document that was run
        <table>.parquet       every table the run returned (docs/output.md)
        timing.json           wall time, host, finish time
    sweeps/<sweep_id>.json    one per sweep: experiment, counts, wall time
    studies/<name>.json       the history of each ``dumbbell optimize`` search
    quarantine/<run_id>-...   damaged runs set aside (``store gc`` removes them)
    tmp/                      runs being written; removed by the next writer
    .lock                     held (``flock``) by the one process writing

The design choice: **the files are the truth and the catalog is an index
rebuilt from them.**

- A run appears whole or not at all. Its files are written into a fresh
  directory under ``tmp/``, each one flushed and ``fsync``-ed, then the
  directory is renamed to its place (an atomic ``rename``) and its parent
  directory ``fsync``-ed. A SIGKILL or power cut at any moment leaves either
  the complete run or a temporary directory that the next writer deletes;
  never a truncated Parquet file under ``runs/``.
- The catalog row of a run is written after its files. When a writer opens
  the store it reconciles the catalog with ``runs/`` (rows added for runs the
  catalog misses, removed for runs that are gone, refreshed where the status
  differs), and if ``catalog.duckdb`` cannot be opened at all it is moved
  aside and rebuilt from the manifests. So a kill between a run's rename and
  its catalog row costs nothing: the next start finds the run and indexes it.
  ``sweeps/`` and ``studies/`` are files too, for the same reason.
- One writer at a time: an exclusive ``flock`` on ``.lock``, which the kernel
  releases when the holder dies, so a killed sweep never leaves a stale lock.
  A second writer waits for it. Readers (``dumbbell store ls|show|sql``)
  never take it; they open the catalog read-only.
- Nothing is served unchecked: the sweep engine takes a run from the store
  only after every file of it matched the checksums of its manifest, and a
  table is checked again when it is read (:mod:`dumbbell.sweep.storecheck`); a
  damaged run is quarantined, named in one line and computed again.
- Out of space anywhere, the writer removes the run's temporary folder and
  raises :class:`~dumbbell.sweep.diskfull.DiskFull` naming the store or its
  catalog (:mod:`dumbbell.sweep.diskfull`).
- Manifests, configurations and tables depend only on the run, never on when
  or where it ran (wall times live in ``timing.json``), so the same sweep run
  by any executor on any number of workers leaves byte-identical files.

DuckDB is imported only when the catalog is opened, so ``import dumbbell``
does not pay for it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import socket
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from ..errors import ConfigError
from ..jsondoc import json_safe

_json_safe = json_safe  # the name before issue 28

__all__ = ["Store", "RunRecord", "CATALOG_COLUMNS", "DEFAULT_STORE", "atomic_write_bytes", "atomic_write_text"]

DEFAULT_STORE = Path("dumbbell-results")
"""Where ``dumbbell sweep`` and ``dumbbell reproduce`` keep results unless told."""

CATALOG_COLUMNS: dict[str, str] = {
    "run_id": "VARCHAR PRIMARY KEY",
    "experiment": "VARCHAR",
    "point": "VARCHAR",
    "rep": "INTEGER",
    "seed": "UBIGINT",
    "status": "VARCHAR",
    "error": "VARCHAR",
    "wall_s": "DOUBLE",
    "version": "VARCHAR",
    "scenario": "VARCHAR",
    "sim_s": "DOUBLE",
    "events": "UBIGINT",
    "data_packets_sent": "UBIGINT",
    "packets_dropped": "UBIGINT",
    "conservation_ok": "BOOLEAN",
    "flows": "INTEGER",
    "goodput_bps": "DOUBLE",
    "flow_goodput_bps": "DOUBLE[]",
    "fairness": "DOUBLE",
    "retransmits": "UBIGINT",
    "timeouts": "UBIGINT",
    "tables": "VARCHAR[]",
    "path": "VARCHAR",
    "finished_at": "VARCHAR",
}
"""The ``runs`` table of the catalog, column by column. ``point`` is the grid
point (or an experiment's job key) as JSON, ``rep`` the repetition index,
``path`` the run's directory relative to the store; ``sim_s`` ..
``timeouts`` are the run's summary metrics (``flows``: how many;
``goodput_bps``, ``flow_goodput_bps``: all flows' and each flow's goodput
over one window, ``fairness``: Jain's index, see :mod:`dumbbell.run.goodput`);
``finished_at`` is UTC ISO 8601."""

SWEEP_COLUMNS: dict[str, str] = {
    "sweep_id": "VARCHAR PRIMARY KEY",
    "experiment": "VARCHAR",
    "started_at": "VARCHAR",
    "finished_at": "VARCHAR",
    "runs": "INTEGER",
    "computed": "INTEGER",
    "cached": "INTEGER",
    "failed": "INTEGER",
    "executor": "VARCHAR",
    "workers": "INTEGER",
    "wall_s": "DOUBLE",
    "sim_packets": "UBIGINT",
    "version": "VARCHAR",
}
"""The ``sweeps`` table: one row per sweep (or per ``run_jobs`` call of an
experiment). ``computed`` + ``cached`` = ``runs``: ``cached`` counts runs
taken from the store and runs identical to another run of the same sweep
(computed once); ``failed`` counts runs computed that failed."""

TRIAL_COLUMNS: dict[str, str] = {
    "study": "VARCHAR",
    "trial": "INTEGER",
    "round": "INTEGER",
    "params": "VARCHAR",
    "metric": "DOUBLE",
    "status": "VARCHAR",
    "run_ids": "VARCHAR[]",
}
"""The ``trials`` table: the history of every ``dumbbell optimize`` search."""

_METRICS = ("sim_s", "events", "data_packets_sent", "packets_dropped", "conservation_ok", "flows", "goodput_bps",
            "flow_goodput_bps", "fairness", "retransmits", "timeouts")


# ---------------------------------------------------------------- atomic files


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Writes ``data`` to ``path`` atomically: a temporary file beside it,
    flushed and fsync-ed, renamed over ``path``, the directory fsync-ed. A
    reader sees the old file or the new one, never a part of it."""
    from .diskfull import naming

    p = Path(path)
    with naming(p):
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(f".{p.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            _write_synced(tmp, data)
            os.replace(tmp, p)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        _fsync_dir(p.parent)
    return p


def atomic_write_text(path: str | Path, text: str) -> Path:
    """:func:`atomic_write_bytes` for text (UTF-8)."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def canonical_json(doc: Any) -> str:
    """JSON with sorted keys and no spaces: the form that is hashed and stored,
    identical for identical data."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _pretty(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, indent=1, allow_nan=False) + "\n"


def _utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# ---------------------------------------------------------------- records


@dataclass
class RunRecord:
    """One run as the store (or an executor) holds it.

    ``tables`` maps each table name to its Parquet bytes while the record is
    in memory; a record read from a store has ``directory`` instead and
    reads its tables from there. :meth:`table` works either way.
    """

    run_id: str
    seed: int
    status: str
    error: str | None
    summary: dict[str, Any]
    metrics: dict[str, Any]
    wall_s: float
    version: str
    config: dict[str, Any] | None = None
    table_names: tuple[str, ...] = ()
    tables: dict[str, bytes] | None = field(default=None, repr=False)
    directory: Path | None = None
    cached: bool = False
    labels: dict[str, Any] = field(default_factory=dict)
    checksums: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    """Each stored table's ``{"bytes", "sha256"}`` from ``run.json``: a
    table read from ``directory`` is checked against it before use."""
    store: Store | None = field(default=None, repr=False, compare=False)
    """The store it was read from (to quarantine it if a table is damaged)."""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def table(self, name: str) -> pl.DataFrame:
        """The table ``name`` of this run (docs/output.md). A table read from
        the store is checked against its checksum first: a damaged one raises
        :class:`~dumbbell.sweep.storecheck.CorruptRun` naming the file (and the run
        is quarantined when this process writes the store)."""
        if name not in self.table_names:
            raise KeyError(f"run {self.run_id} has no table {name!r} (have: {', '.join(self.table_names) or 'none'})")
        if self.tables is not None and name in self.tables:
            import io

            return pl.read_parquet(io.BytesIO(self.tables[name]))
        if self.directory is not None:
            from .storecheck import CorruptRun, _read, check_table_bytes, decode_table

            path = self.directory / f"{name}.parquet"
            try:
                data = _read(path, self.run_id)
                info = self.checksums.get(name)
                if info is None:
                    raise CorruptRun(self.run_id, self.directory / "run.json", f"no checksum for table {name!r}")
                check_table_bytes(self.run_id, path, data, info)
                return decode_table(self.run_id, path, data)
            except CorruptRun as fault:
                raise self._corrupt(fault) from None
        raise KeyError(f"run {self.run_id}: table {name!r} is not held in memory")

    def _corrupt(self, fault: Any) -> Any:
        """The error to raise for a damaged table found after the run was
        served: quarantined (and computed again by the next command) if this
        process writes the store."""
        from .storecheck import CorruptRun, log

        st = self.store
        if st is not None and st.writing_now and self.directory is not None and self.directory.exists():
            st.quarantine(self.run_id, fault, labels=self.labels, action="stopping")
            return CorruptRun(self.run_id, fault.path, fault.reason,
                              "it was moved to the store's quarantine; run the command again to compute it again")
        log.debug("damaged run %s not quarantined (this process does not write the store)", self.run_id)
        return CorruptRun(self.run_id, fault.path, fault.reason,
                          "`dumbbell store verify --quarantine` sets it aside, and the next run computes it again")

    def manifest(self) -> dict[str, Any]:
        """``run.json``: everything about the run but when and where it ran,
        with the checksum of every file it consists of and a seal over all
        of it (:mod:`dumbbell.sweep.storecheck`)."""
        import hashlib

        from .storecheck import config_bytes, seal_of

        tables = {}
        if self.tables is not None:
            for name in self.table_names:
                data = self.tables[name]
                tables[name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        man = json_safe({
            "run_id": self.run_id,
            "seed": self.seed,
            "status": self.status,
            "error": self.error,
            "version": self.version,
            "experiment": self.labels.get("experiment"),
            "point": self.labels.get("point"),
            "rep": self.labels.get("rep"),
            "scenario": self.labels.get("scenario"),
            "summary": self.summary,
            "metrics": self.metrics,
            "tables": tables,
        })
        if self.config is not None:
            man["config_sha256"] = hashlib.sha256(config_bytes(self.config)).hexdigest()
        man["seal"] = seal_of(man)
        return man


def metrics_of(summary: Mapping[str, Any], flows: pl.DataFrame | None) -> dict[str, Any]:
    """The summary metrics the catalog keeps for a run."""
    m: dict[str, Any] = {
        "sim_s": summary.get("sim_time_ps", 0) / 1e12 if summary.get("sim_time_ps") is not None else None,
        "events": summary.get("events"),
        "data_packets_sent": summary.get("data_packets_sent"),
        "packets_dropped": summary.get("packets_dropped"),
        "conservation_ok": summary.get("conservation_ok"),
        "flows": None, "goodput_bps": None, "flow_goodput_bps": None, "fairness": None, "retransmits": None,
        "timeouts": None,
    }
    if flows is not None:
        m["flows"] = flows.height
        if flows.height:
            from ..run.goodput import window_goodput

            # one window for every flow, not a sum of each flow's own average
            g = window_goodput(flows)
            m["goodput_bps"], m["flow_goodput_bps"], m["fairness"] = g["goodput_bps"], g["flow_goodput_bps"], g["fairness"]
            m["retransmits"] = int(flows["retransmits"].sum())
            m["timeouts"] = int(flows["timeouts"].sum())
    return json_safe(m)


# ---------------------------------------------------------------- the store


class StoreLocked(RuntimeError):
    pass


class Store:
    """A results store in ``root`` (created on first write).

    Writing happens between :meth:`open_writer` and :meth:`close` (or in a
    ``with store.writing():`` block), reading any time.
    """

    def __init__(self, root: str | Path = DEFAULT_STORE) -> None:
        self.root = Path(root)
        self._lock_fd: int | None = None
        self._pending: list[dict[str, Any]] = []
        self._pending_sweeps: list[dict[str, Any]] = []
        self._pending_trials: list[dict[str, Any]] = []
        self._last_flush = 0.0
        self.flush_every_s = 1.0

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    # -- paths -------------------------------------------------------------

    @property
    def catalog_path(self) -> Path:
        return self.root / "catalog.duckdb"

    def run_dir(self, run_id: str) -> Path:
        return self.root / "runs" / run_id[:2] / run_id

    def exists(self) -> bool:
        return (self.root / "runs").is_dir()

    def require(self) -> Store:
        """Itself, or :class:`ConfigError` if ``root`` holds no store."""
        if not self.exists():
            raise ConfigError("--store", f"no results store at {self.root} (a sweep or reproduce creates one)")
        return self

    # -- writing session ---------------------------------------------------

    @property
    def writing_now(self) -> bool:
        return self._lock_fd is not None

    def open_writer(self, wait: bool = True, notify: Any = None) -> Store:
        """Takes the writer's lock (waiting for another writer if ``wait``),
        removes what a killed writer left in ``tmp/``, and reconciles the
        catalog with the files."""
        if self._lock_fd is not None:
            return self
        from .diskfull import naming

        with naming(self.root):
            return self._open_writer(wait, notify)

    def _open_writer(self, wait: bool, notify: Any) -> Store:
        for sub in ("runs", "tmp", "sweeps", "studies"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EACCES) or not wait:
                os.close(fd)
                raise StoreLocked(f"the store {self.root} is being written by another process") from None
            if notify:
                holder = os.pread(fd, 200, 0).decode(errors="replace").strip()
                notify(f"dumbbell: waiting for another process writing to {self.root} ({holder or 'unknown'}) ...")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode(), 0)
        self._lock_fd = fd
        try:
            shutil.rmtree(self.root / "tmp", ignore_errors=True)
            (self.root / "tmp").mkdir(exist_ok=True)
            self.reconcile()
        except BaseException:
            self._unlock()
            raise
        return self

    def close(self) -> None:
        """Flushes pending catalog rows and releases the writer's lock."""
        if self._lock_fd is None:
            return
        try:
            self.flush()
        finally:
            self._unlock()

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    @contextlib.contextmanager
    def writing(self, notify: Any = None) -> Iterator[Store]:
        """``with store.writing(): ...``: a writing session (nested ones share
        the outer session)."""
        if self._lock_fd is not None:
            yield self
            return
        self.open_writer(notify=notify)
        try:
            yield self
        finally:
            self.close()

    # -- runs ----------------------------------------------------------------

    def put(self, rec: RunRecord, timing: Mapping[str, Any] | None = None) -> RunRecord:
        """Stores a run computed in memory (``rec.tables`` set), atomically;
        replaces a stored failed run with the same id. Returns the record,
        now pointing at its directory."""
        if self._lock_fd is None:
            raise RuntimeError("Store.put outside a writing session (use `with store.writing():`)")
        from .diskfull import naming

        man = rec.manifest()
        tmp = self.root / "tmp" / f"{rec.run_id}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        try:
            with naming(self.root / "runs"):
                finished = self._put_files(rec, man, tmp, timing)
        except BaseException:
            # Out of space (or any failure) before the rename: the run's
            # temporary folder goes, what was stored before is untouched.
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        rec.directory = self.run_dir(rec.run_id)
        rec.tables = None
        self._pending.append(self._catalog_row(man, rec.wall_s, finished))
        self._maybe_flush()
        return rec

    def _put_files(self, rec: RunRecord, man: Mapping[str, Any], tmp: Path, timing: Mapping[str, Any] | None) -> str:
        final = self.run_dir(rec.run_id)
        tmp.mkdir(parents=True)
        for name in rec.table_names:
            _write_synced(tmp / f"{name}.parquet", rec.tables[name])  # type: ignore[index]
        if rec.config is not None:
            from .storecheck import config_bytes

            _write_synced(tmp / "config.json", config_bytes(rec.config))
        finished = _utc_now()
        _write_synced(tmp / "timing.json", _pretty(json_safe({
            "wall_s": rec.wall_s, "finished_at": finished, "host": socket.gethostname(), **(timing or {})
        })).encode())
        _write_synced(tmp / "run.json", _pretty(man).encode())
        _fsync_dir(tmp)
        final.parent.mkdir(parents=True, exist_ok=True)
        if final.exists():
            # Only a failed run is ever replaced; move it out of the way first
            # (a kill between the two renames leaves the run missing, and the
            # next sweep computes it again).
            trash = self.root / "tmp" / f"old-{rec.run_id}.{uuid.uuid4().hex[:8]}"
            os.rename(final, trash)
            os.rename(tmp, final)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.rename(tmp, final)
        _fsync_dir(final.parent)
        return finished

    def get(self, run_id: str) -> RunRecord | None:
        """The stored run ``run_id``, or None."""
        d = self.run_dir(run_id)
        try:
            man = _read_json(d / "run.json")
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, ValueError):
            return None  # unreadable: treated as absent and computed again
        if not isinstance(man, dict) or not isinstance(man.get("tables") or {}, dict):
            return None
        return self._record_of(d, man)

    def _record_of(self, d: Path, man: Mapping[str, Any]) -> RunRecord:
        timing = _read_json_or(d / "timing.json", {})
        if not isinstance(timing, dict):
            timing = {}
        try:
            wall_s = float(timing.get("wall_s") or 0.0)
        except (TypeError, ValueError):
            wall_s = 0.0  # timing.json is not part of the result: read leniently
        tables = man.get("tables") or {}
        return RunRecord(
            run_id=man["run_id"], seed=int(man["seed"]), status=man["status"], error=man.get("error"),
            summary=man.get("summary") or {}, metrics=man.get("metrics") or {},
            wall_s=wall_s, version=man.get("version", ""),
            config=None, table_names=tuple(tables), directory=d, cached=True,
            labels={k: man.get(k) for k in ("experiment", "point", "rep", "scenario")},
            checksums={k: dict(v) for k, v in tables.items() if isinstance(v, dict)}, store=self,
        )

    def get_checked(self, run_id: str, config: Mapping[str, Any] | None = None,
                    labels: Mapping[str, Any] | None = None) -> RunRecord | None:
        """The stored run ``run_id`` after checking every one of its files
        against its checksums (and, with ``config``, that it is the run of
        that document; ``labels`` name it in the logged line); None if the
        store does not hold it. A damaged run is
        quarantined (when this process writes the store), one line naming
        the run, the file and the reason is logged, and None is returned, so
        the caller computes it again."""
        from .storecheck import CorruptRun, check_run

        d = self.run_dir(run_id)
        if not d.exists():
            return None
        try:
            checked = check_run(d, run_id, config)
        except CorruptRun as fault:
            if labels is None:
                man = _read_json_or(d / "run.json", None)
                labels = man if isinstance(man, dict) else None
            self.quarantine(run_id, fault, labels=labels)
            return None
        return self._record_of(d, checked.manifest)

    def quarantine(self, run_id: str, fault: Any, labels: Mapping[str, Any] | None = None,
                   action: str = "computing it again") -> Path | None:
        """Moves the damaged run ``run_id`` to ``quarantine/`` (if this
        process writes the store; else leaves it) and logs one line naming
        the run, the file and the reason. Returns where it went."""
        from .storecheck import fault_line, log, quarantine

        moved = None
        if self._lock_fd is not None:
            moved = quarantine(self.root, self.run_dir(run_id), run_id, fault)
            self._pending = [r for r in self._pending if r.get("run_id") != run_id]
            with contextlib.suppress(Exception):
                with self._connect() as con:
                    con.execute("DELETE FROM runs WHERE run_id = ?", [run_id])
        log.warning(fault_line(fault, self.root, moved, labels, action=action))
        return moved

    def verify(self, quarantine: bool = False, progress: Any = None) -> dict[str, Any]:
        """Checks every stored run's files against their checksums (see
        :mod:`dumbbell.sweep.storecheck`). Returns ``{"runs": checked, "bad":
        [{"run_id", "file", "reason", "quarantined"}]}``; with
        ``quarantine``, moves each bad run aside (taking the writer's lock)."""
        from .storecheck import CorruptRun, check_run, fault_line, quarantine as move

        self.require()
        bad: list[dict[str, Any]] = []
        n = 0
        ctx = self.writing() if quarantine else contextlib.nullcontext()
        with ctx:
            for d in self._run_dirs():
                n += 1
                try:
                    check_run(d)
                except CorruptRun as fault:
                    moved = move(self.root, d, d.name, fault) if quarantine else None
                    labels = _read_json_or(d / "run.json", None) if moved is None else None
                    if progress:
                        progress(fault_line(fault, self.root, moved, labels if isinstance(labels, dict) else None,
                                            action="computed again when next asked for" if moved else "left in place"))
                    bad.append({"run_id": d.name, "file": str(fault.path), "reason": fault.reason,
                                "quarantined": str(moved) if moved is not None else None})
            if quarantine and bad:
                self.reconcile()
        return {"runs": n, "bad": bad}

    def _run_dirs(self) -> Iterator[Path]:
        """Every run directory under ``runs/`` (readable manifest or not)."""
        runs = self.root / "runs"
        if not runs.is_dir():
            return
        for sub in sorted(runs.iterdir()):
            if sub.is_dir():
                yield from sorted(d for d in sub.iterdir() if d.is_dir())

    def config_of(self, run_id: str) -> dict[str, Any]:
        return _read_json(self.run_dir(run_id) / "config.json")

    def iter_manifests(self) -> Iterator[tuple[Path, dict[str, Any]]]:
        runs = self.root / "runs"
        if not runs.is_dir():
            return
        for sub in sorted(runs.iterdir()):
            if not sub.is_dir():
                continue
            for d in sorted(sub.iterdir()):
                try:
                    yield d, _read_json(d / "run.json")
                except (OSError, ValueError):
                    continue

    def remove_run(self, run_id: str) -> None:
        """Deletes a stored run (its directory first, then its catalog row)."""
        if self._lock_fd is None:
            raise RuntimeError("Store.remove_run outside a writing session")
        d = self.run_dir(run_id)
        if d.exists():
            trash = self.root / "tmp" / f"gc-{run_id}.{uuid.uuid4().hex[:8]}"
            os.rename(d, trash)
            shutil.rmtree(trash, ignore_errors=True)
        with self._connect() as con:
            con.execute("DELETE FROM runs WHERE run_id = ?", [run_id])

    # -- sweeps and studies -----------------------------------------------------

    def put_sweep(self, doc: Mapping[str, Any]) -> None:
        """Records one sweep (``sweeps/<sweep_id>.json``, then the catalog)."""
        doc = json_safe(dict(doc))
        atomic_write_text(self.root / "sweeps" / f"{doc['sweep_id']}.json", _pretty(doc))
        if self._lock_fd is not None:
            self._pending_sweeps.append(doc)
            self._maybe_flush()

    def put_study(self, name: str, doc: Mapping[str, Any]) -> Path:
        """Records an optimize search's whole history (``studies/<name>.json``)."""
        doc = json_safe(dict(doc))
        p = atomic_write_text(self.root / "studies" / f"{name}.json", _pretty(doc))
        if self._lock_fd is not None:
            self._pending_trials.append(doc)
            self._maybe_flush(force=True)
        return p

    # -- the catalog --------------------------------------------------------------

    def _catalog_row(self, man: Mapping[str, Any], wall_s: float | None, finished_at: str | None) -> dict[str, Any]:
        metrics = man.get("metrics") or {}
        run_id = man["run_id"]
        row = {
            "run_id": run_id,
            "experiment": man.get("experiment"),
            "point": canonical_json(man.get("point")) if man.get("point") is not None else None,
            "rep": man.get("rep"),
            "seed": man.get("seed"),
            "status": man.get("status"),
            "error": man.get("error"),
            "wall_s": wall_s,
            "version": man.get("version"),
            "scenario": man.get("scenario"),
            **{k: metrics.get(k) for k in _METRICS},
            "tables": sorted((man.get("tables") or {}).keys()),
            "path": f"runs/{run_id[:2]}/{run_id}",
            "finished_at": finished_at,
        }
        return row

    def _connect(self, read_only: bool = False, tries: float = 30.0):
        """A DuckDB connection to the catalog (retrying while another process
        holds it, for up to ``tries`` seconds)."""
        import duckdb

        deadline = time.monotonic() + tries
        while True:
            try:
                con = duckdb.connect(str(self.catalog_path), read_only=read_only)
                break
            except duckdb.IOException as e:
                if "lock" not in str(e).lower() or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        if not read_only:
            _create_tables(con)
        return con

    def _maybe_flush(self, force: bool = False) -> None:
        if force or time.monotonic() - self._last_flush >= self.flush_every_s:
            self.flush()

    def flush(self) -> None:
        """Writes pending catalog rows (one transaction)."""
        if not (self._pending or self._pending_sweeps or self._pending_trials):
            return
        from .diskfull import naming

        with naming(self.catalog_path), self._connect() as con:
            con.execute("BEGIN")
            _upsert(con, "runs", CATALOG_COLUMNS, self._pending)
            _upsert(con, "sweeps", SWEEP_COLUMNS, [_sweep_row(d) for d in self._pending_sweeps])
            for study in self._pending_trials:
                con.execute("DELETE FROM trials WHERE study = ?", [study["study"]])
                _insert(con, "trials", TRIAL_COLUMNS, _trial_rows(study))
            con.execute("COMMIT")
        self._pending.clear()
        self._pending_sweeps.clear()
        self._pending_trials.clear()
        self._last_flush = time.monotonic()

    def reconcile(self) -> dict[str, int]:
        """Makes the catalog agree with the files (a writer does it when it
        opens the store). Returns how many rows were added, removed and
        refreshed; a catalog DuckDB cannot open is moved aside and rebuilt."""
        import duckdb

        from .diskfull import DiskFull, is_disk_full, naming

        try:
            con = self._connect()
        except duckdb.Error as e:
            if is_disk_full(e):  # full, not broken: the catalog stays as it is
                raise DiskFull(self.catalog_path) from None
            broken = self.catalog_path.with_name(f"catalog.duckdb.broken-{int(time.time())}")
            os.replace(self.catalog_path, broken)
            with contextlib.suppress(FileNotFoundError):
                os.replace(self.catalog_path.with_name("catalog.duckdb.wal"), broken.with_name(broken.name + ".wal"))
            con = self._connect()
        counts = {"added": 0, "removed": 0, "refreshed": 0}
        with naming(self.catalog_path), con:
            have = dict(con.execute("SELECT run_id, status FROM runs").fetchall())
            rows = []
            seen = set()
            for d, man in self.iter_manifests():
                rid = man.get("run_id")
                if rid != d.name:
                    continue
                seen.add(rid)
                if have.get(rid) == man.get("status"):
                    continue
                timing = _read_json_or(d / "timing.json", {})
                rows.append(self._catalog_row(man, timing.get("wall_s"), timing.get("finished_at")))
                counts["refreshed" if rid in have else "added"] += 1
            gone = [rid for rid in have if rid not in seen]
            con.execute("BEGIN")
            _upsert(con, "runs", CATALOG_COLUMNS, rows)
            for rid in gone:
                con.execute("DELETE FROM runs WHERE run_id = ?", [rid])
            counts["removed"] = len(gone)
            sweeps = [_read_json_or(p, None) for p in sorted((self.root / "sweeps").glob("*.json"))]
            _upsert(con, "sweeps", SWEEP_COLUMNS, [_sweep_row(s) for s in sweeps if s])
            con.execute("DELETE FROM trials")
            for p in sorted((self.root / "studies").glob("*.json")):
                study = _read_json_or(p, None)
                if study:
                    _insert(con, "trials", TRIAL_COLUMNS, _trial_rows(study))
            con.execute("COMMIT")
        return counts

    def query(self, sql: str, params: Sequence[Any] | None = None) -> pl.DataFrame:
        """Runs SQL over the catalog and returns a polars DataFrame.

        Tables: ``runs``, ``sweeps``, ``trials`` (the catalog), and one view
        per output table present in the store (``flows``, ``summary``,
        ``queues``, ...) over every run's Parquet file, with a ``run_id``
        column to join on ``runs``.
        """
        import re

        words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", sql))
        with self.reader(verify=words) as con:
            cur = con.execute(sql, params or [])
            if cur.description is None:
                return pl.DataFrame()
            names = [d[0] for d in cur.description]
            rows = cur.fetchall()
        return pl.DataFrame([dict(zip(names, r)) for r in rows], infer_schema_length=None) if rows else pl.DataFrame(
            {n: [] for n in names})

    @contextlib.contextmanager
    def reader(self, verify: Iterable[str] | None = None) -> Iterator[Any]:
        """An in-memory DuckDB connection with the catalog attached read-only
        and the per-table views of :meth:`query`. The files under the views
        named in ``verify`` (every view if None) are checked against their
        checksums first: a damaged one raises
        :class:`~dumbbell.sweep.storecheck.CorruptRun` naming it, so SQL never
        reads what was not written."""
        import duckdb

        self.require()
        if not self.catalog_path.exists():
            with self.writing():
                pass
        con = duckdb.connect(":memory:")
        deadline = time.monotonic() + 30.0
        while True:
            try:
                con.execute(f"ATTACH '{_sql_str(self.catalog_path)}' AS cat (READ_ONLY)")
                break
            except duckdb.Error as e:
                if "lock" not in str(e).lower() or time.monotonic() > deadline:
                    con.close()
                    raise
                time.sleep(0.1)
        try:
            for t in ("runs", "sweeps", "trials"):
                con.execute(f"CREATE VIEW {t} AS SELECT * FROM cat.main.{t}")
            names = self._table_names()
            checked = self._checked_files([n for n in names if verify is None or n in set(verify)])
            for name in names:
                files = checked.get(name)
                if files is None:  # not read by this query: a glob, never opened
                    source = f"'{_sql_str(self.root.resolve() / 'runs' / '*' / '*' / f'{name}.parquet')}'"
                elif files:
                    source = "[" + ", ".join(f"'{_sql_str(f)}'" for f in files) + "]"
                else:
                    continue
                con.execute(
                    f"CREATE VIEW \"{name}\" AS SELECT regexp_extract(filename, '([0-9a-f]+)/[^/]+\\.parquet$', 1) "
                    f"AS run_id, * EXCLUDE (filename) FROM read_parquet({source}, filename = true, union_by_name = true)"
                )
            yield con
        finally:
            con.close()

    def _checked_files(self, names: Sequence[str]) -> dict[str, list[Path]]:
        """For each table name, the stored runs' files of that table, each
        checked against its manifest (raises ``CorruptRun`` at the first
        damaged one)."""
        from .storecheck import CorruptRun, _read, check_table_bytes, read_manifest

        out: dict[str, list[Path]] = {n: [] for n in names}
        if not names:
            return out
        root = self.root.resolve()
        for d in self._run_dirs():
            d = root / d.relative_to(self.root)
            try:
                man = read_manifest(d, d.name)
            except CorruptRun as fault:
                raise CorruptRun(fault.run_id, fault.path, fault.reason,
                                 "`dumbbell store verify --quarantine` sets it aside") from None
            for n in names:
                info = man["tables"].get(n)
                if info is None:
                    continue
                p = d / f"{n}.parquet"
                try:
                    check_table_bytes(d.name, p, _read(p, d.name), info)
                except CorruptRun as fault:
                    raise CorruptRun(fault.run_id, fault.path, fault.reason,
                                     "`dumbbell store verify --quarantine` sets it aside") from None
                out[n].append(p)
        return out

    def _table_names(self) -> list[str]:
        """Output table names present in the store (looked up in the catalog)."""
        import duckdb

        try:
            with self._connect(read_only=True, tries=5.0) as con:
                rows = con.execute("SELECT DISTINCT unnest(tables) FROM runs").fetchall()
        except duckdb.Error:
            return []
        names = sorted(r[0] for r in rows if r[0] and r[0].isidentifier())
        return [n for n in names if n not in ("runs", "sweeps", "trials")]

    # -- maintenance -----------------------------------------------------------------

    def gc(self, *, failed: bool = False, stale_versions: bool = False, current_version: str | None = None,
           experiment: str | None = None, dry_run: bool = False) -> dict[str, Any]:
        """Removes leftovers of killed writers and quarantined runs (always),
        and stored runs that match: ``failed`` (failed runs), ``stale_versions`` (runs of another
        simulator version than ``current_version``), ``experiment`` (every
        run labelled with it). Returns what was (or would be) removed."""
        from .storecheck import QUARANTINE

        with self.writing():
            victims = []
            qroot = self.root / QUARANTINE
            quarantined = sorted(p for p in qroot.iterdir() if p.is_dir()) if qroot.is_dir() else []
            for q in quarantined:
                note = _read_json_or(q / "quarantine.json", {})
                why = f"quarantined: {note.get('reason', 'damaged')}" if isinstance(note, dict) else "quarantined"
                victims.append((q.name.split("-", 1)[0], why, _dir_bytes(q)))
            for d, man in self.iter_manifests():
                why = []
                if failed and man.get("status") != "ok":
                    why.append("failed")
                if stale_versions and current_version is not None and man.get("version") != current_version:
                    why.append(f"version {man.get('version')}")
                if experiment is not None and man.get("experiment") == experiment:
                    why.append(f"experiment {experiment}")
                if why:
                    victims.append((man["run_id"], ", ".join(why), _dir_bytes(d)))
            if not dry_run:
                for q in quarantined:
                    shutil.rmtree(q, ignore_errors=True)
                for rid, _, _ in victims[len(quarantined):]:
                    self.remove_run(rid)
            return {"runs": [{"run_id": r, "why": w, "bytes": b} for r, w, b in victims],
                    "bytes": sum(b for _, _, b in victims), "dry_run": dry_run}


# ---------------------------------------------------------------- helpers


def _read_json(p: Path) -> Any:
    return json.loads(p.read_text())


def _read_json_or(p: Path, default: Any) -> Any:
    try:
        return _read_json(p)
    except (OSError, ValueError):
        return default


def _dir_bytes(d: Path) -> int:
    return sum(f.stat().st_size for f in d.iterdir() if f.is_file())


def _sql_str(p: Any) -> str:
    return str(p).replace("'", "''")


def _create_tables(con: Any) -> None:
    for name, cols in (("runs", CATALOG_COLUMNS), ("sweeps", SWEEP_COLUMNS), ("trials", TRIAL_COLUMNS)):
        body = ", ".join(f'"{c}" {t}' for c, t in cols.items())
        con.execute(f"CREATE TABLE IF NOT EXISTS {name} ({body})")
    # catalogs written before flow_goodput_bps and fairness (issue 27) get the columns
    for col in ("flow_goodput_bps", "fairness"):
        con.execute(f'ALTER TABLE runs ADD COLUMN IF NOT EXISTS "{col}" {CATALOG_COLUMNS[col]}')


def _insert(con: Any, table: str, cols: Mapping[str, str], rows: Iterable[Mapping[str, Any]], verb: str = "INSERT") -> None:
    rows = list(rows)
    if not rows:
        return
    names = list(cols)
    marks = ", ".join("?" for _ in names)
    con.executemany(f"{verb} INTO {table} ({', '.join(chr(34) + n + chr(34) for n in names)}) VALUES ({marks})",
                    [[r.get(n) for n in names] for r in rows])


def _upsert(con: Any, table: str, cols: Mapping[str, str], rows: Iterable[Mapping[str, Any]]) -> None:
    _insert(con, table, cols, rows, verb="INSERT OR REPLACE")


def _sweep_row(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {k: doc.get(k) for k in SWEEP_COLUMNS}


def _trial_rows(study: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {"study": study["study"], "trial": t.get("trial"), "round": t.get("round"),
         "params": canonical_json(t.get("params")), "metric": t.get("metric"), "status": t.get("status"),
         "run_ids": list(t.get("run_ids") or [])}
        for t in study.get("trials", [])
    ]
