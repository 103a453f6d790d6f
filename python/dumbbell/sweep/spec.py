"""One run as a sweep sees it: :class:`RunSpec` (its configuration, controls and labels), its
identity in the store (:func:`run_id_of`, the simulator's version), the per-run seeds
(:func:`round_seed`) and :func:`compute`, what a worker executes.
"""

from __future__ import annotations

import hashlib
import io
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import polars as pl

from .. import _native
from ..errors import ConfigError, SimulationError
from ..jsondoc import json_safe
from ..scenario.models import Scenario
from .store import RunRecord, canonical_json, metrics_of


EXECUTORS = ("local", "dask")


def simulator_version() -> str:
    """``<Cargo version>+<hash of the simulator's sources>``: part of every
    run's identity, so a store never serves a result an edited simulator
    would not produce."""
    return f"{_native.version()}+{_native.source_hash()}"


SEED_DOMAIN = b"dumbbell/round_seed/v1\x00"
"""Prefix of the bytes hashed by :func:`round_seed` (a version tag, so a
future change of the derivation cannot silently reuse these seeds)."""


def round_seed(seed: int, index: int) -> int:
    """The seed of run ``index`` (the run key) of an experiment or sweep run
    with ``seed``; the one derivation every experiment and every sweep
    repetition uses.

    Spec: the first 8 bytes, read as a little-endian unsigned integer, of
    ``SHA-256(SEED_DOMAIN || seed as 8 bytes little-endian || index as 8
    bytes little-endian)``. Both inputs count over their full 64 bits (seeds
    0 and 2^40 give unrelated runs), the result is a valid 64-bit seed, and
    distinct (seed, index) pairs collide only by chance (about n²/2^65 for n
    runs). Raises ``ValueError`` if either input is outside [0, 2^64).
    """
    for what, v in (("seed", seed), ("run index", index)):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 1 << 64:
            raise ValueError(f"{what} {v!r} out of range [0, 2^64)")
    digest = hashlib.sha256(SEED_DOMAIN + seed.to_bytes(8, "little") + index.to_bytes(8, "little")).digest()
    return int.from_bytes(digest[:8], "little")


def default_workers() -> int:
    """Local cores (``os.process_cpu_count`` where available)."""
    count = getattr(os, "process_cpu_count", os.cpu_count)()
    return max(1, count or 1)


def run_id_of(config: Mapping[str, Any], version: str | None = None) -> str:
    """The identity of the run of core document ``config`` (seed included)."""
    doc = {"config": config, "simulator": version or simulator_version()}
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()[:32]


# ---------------------------------------------------------------- one run


@dataclass(frozen=True)
class RunSpec:
    """One run to make: its resolved core document (None if the scenario did
    not resolve, then ``error`` says why), its identity and its labels
    (``experiment``, ``point``, ``rep``, ``scenario``: stored with it for
    people and SQL, not part of its identity)."""

    run_id: str
    seed: int
    config: dict[str, Any] | None
    labels: dict[str, Any]
    error: str | None = None
    controls: dict[str, Any] | None = None
    """The Python controls the config's ``external`` entries name, by id."""

    @classmethod
    def of(cls, scenario: Scenario, seed: int, labels: Mapping[str, Any], version: str) -> RunSpec:
        labels = {"scenario": scenario.name, **labels}
        try:
            config = scenario.to_core(seed)
        except ConfigError as e:
            dump = scenario.model_dump(mode="json")
            rid = hashlib.sha256(canonical_json({"unresolved": dump, "seed": seed, "simulator": version}).encode())
            return cls(run_id=rid.hexdigest()[:32], seed=seed, config=None, labels=labels,
                       error=f"ConfigError: {e}")
        controls = scenario.python_controls() or None
        return cls(run_id=_identity(config, controls, version), seed=config["seed"], config=config, labels=labels,
                   controls=controls)

    def with_tcp(self, settings: Any, version: str) -> RunSpec:
        """This run with TCP options set on every connection
        (:class:`~dumbbell.sweep.tcpset.TcpSettings`), its identity computed
        from the changed document. An unresolved spec stays as it is."""
        if self.config is None or not settings:
            return self
        config = settings.apply(self.config)
        return RunSpec(run_id=_identity(config, self.controls, version), seed=self.seed, config=config,
                       labels=self.labels, error=self.error, controls=self.controls)


def _identity(config: Mapping[str, Any], controls: Mapping[str, Any] | None, version: str) -> str:
    """A run's id: its core document, with its Python controls' fingerprints."""
    ident = config if not controls else {**config, "python_controls": {k: _fingerprint(c) for k, c in controls.items()}}
    return run_id_of(ident, version)


def _fingerprint(control: Any) -> str:
    """A Python control's identity: its class (module, name, source) and its
    attributes."""
    import inspect

    cls = type(control)
    try:
        source = "".join(inspect.getsource(k) for k in cls.__mro__ if k.__module__ != "builtins")
    except (OSError, TypeError):
        source = "<no source>"
    state = repr(sorted((k, repr(v)) for k, v in vars(control).items()))
    return hashlib.sha256(f"{cls.__module__}.{cls.__qualname__}\n{source}\n{state}".encode()).hexdigest()[:32]


def _parquet(df: pl.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.write_parquet(buf, compression="zstd", compression_level=3, statistics=True)
    return buf.getvalue()


def compute(config: Mapping[str, Any], controls: Mapping[str, Any] | None = None,
            handle: Any = None) -> dict[str, Any]:
    """Runs one core document (with the Python controls it names, by id) and
    returns its outcome as plain data (tables as Parquet bytes): what an
    executor's worker sends back. Never raises: a failure comes back as
    ``{"status": "failed", "error": ...}``, and a run stopped before its end
    (``handle.stop()``, ``request_stop``) as ``{"status": "cancelled"}``
    without tables (never stored as a result)."""
    from ..run.runner import run_config

    t0 = time.perf_counter()
    try:
        tables = run_config(config, controls=controls, handle=handle)
        summary = tables["summary"].row(0, named=True)
        if summary.get("stopped"):
            return {"status": "cancelled", "error": "stopped before its end", "summary": {}, "metrics": {},
                    "tables": {}, "wall_s": time.perf_counter() - t0}
        if not summary["conservation_ok"]:
            raise SimulationError("packet conservation failed")
        metrics = metrics_of(summary, tables.get("flows"))
        # one table at a time: converted, written as Parquet, released
        # (with its native columns), so the peak holds one converted table
        parquet = {name: _parquet(tables.pop(name)) for name in list(tables)}
        del tables
        return {
            "status": "ok", "error": None, "summary": json_safe(summary),
            "metrics": metrics, "tables": parquet, "wall_s": time.perf_counter() - t0,
        }
    except Exception as e:  # noqa: BLE001 - a failed run is data, not a crash
        return {"status": "failed", "error": f"{type(e).__name__}: {' '.join(str(e).split())}", "summary": {},
                "metrics": {}, "tables": {}, "wall_s": time.perf_counter() - t0}


def _record(spec: RunSpec, out: Mapping[str, Any], version: str) -> RunRecord:
    tables = dict(out.get("tables") or {})
    return RunRecord(
        run_id=spec.run_id, seed=spec.seed, status=out["status"], error=out.get("error"),
        summary=dict(out.get("summary") or {}), metrics=dict(out.get("metrics") or {}),
        wall_s=float(out.get("wall_s") or 0.0), version=version, config=spec.config,
        table_names=tuple(sorted(tables)), tables=tables, labels=dict(spec.labels),
    )
