"""The training step of the profile-guided build (``tools/pgo/build.sh``).

    VENV/bin/python tools/pgo/train.py tools/pgo/training.jsonl

Runs every core configuration of the file, one after the other, through the
extension installed in this interpreter's environment: ``build.sh``
installs it instrumented (rustc ``-Cprofile-generate``) first, so the counts
are those of the very library ``make setup`` ships. (Training a separate
Rust example instead does not carry over: Cargo builds the core for it
against a serde with the features the dev-dependencies add, which changes
the core's crate hash, hence every mangled name, and the optimiser then
finds no counts for the extension's functions.) Prints one
line per run and the total; exits with status 1 if a run is refused or
fails.
"""

from __future__ import annotations

import sys
import time


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: train.py TRAINING.jsonl", file=sys.stderr)
        return 2
    from dumbbell import _native

    with open(argv[0], encoding="utf-8") as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    t0 = time.perf_counter()
    events = failed = 0
    for i, line in enumerate(lines, 1):
        t = time.perf_counter()
        try:
            out = _native.run_json(line)
        except Exception as e:  # noqa: BLE001 - reported, counted, the others go on
            print(f"run {i}: {type(e).__name__}: {e}", file=sys.stderr)
            failed += 1
            continue
        n = _summary_u64(out["summary"], "events")
        events += n
        print(f"run {i:3}: {n:>10} events in {time.perf_counter() - t:.2f} s")
    print(f"{len(lines)} runs, {events} events in {time.perf_counter() - t0:.1f} s, {failed} failed")
    return 1 if failed else 0


def _summary_u64(table: dict, name: str) -> int:
    """One value of the summary table as the binding hands it over: a
    column is ``(type, data)``, ``data`` a native-endian buffer
    (``_native.Buffer``, read through a memoryview)."""
    kind, data = table[name]
    assert kind == "u64", f"summary.{name} is {kind}"
    return int.from_bytes(memoryview(data)[:8], sys.byteorder)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
