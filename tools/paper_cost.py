"""Where a reproduction's time goes, by experiment and part, read from stores (issue 29).

Builds every experiment's runs exactly as ``dumbbell reproduce NAME --scale
SCALE`` does, but instead of computing them serves each one from the given
results stores (read only: nothing is written into them), looked up by the
run id it had under each simulator version the stores hold. The experiment
then measures its tables as usual, so experiments whose later runs depend on
earlier results (hysteresis's calibration) build the same runs they would.

Prints in markdown, per experiment and part: the runs the part asks for, the
distinct runs among them, simulated seconds, data packets and worker seconds
(each run's wall time on its worker, ``timing.json``), and the share of the
total; then the runs that two parts (or two experiments) ask for with the same
core document (same run id: computed once), and the makespan of every sweep
on ``--workers`` workers, in the order the sweep hands its runs out and
longest first.

    python3 tools/paper_cost.py --store /tmp/after/store --store /tmp/after2/store [--scale paper] [NAME ...]

Runs the stores do not hold are counted as missing and stop that experiment
(its later sweeps, if any, are not seen).
"""

from __future__ import annotations

import argparse
import heapq
import importlib
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))


@dataclass
class Served:
    """One run a sweep asked for, as a store holds it."""

    experiment: str
    part: str
    run_id: str
    sim_s: float
    packets: int
    worker_s: float
    estimate: float
    physics: str
    """The run id of its document without ``record`` (what it records, not what it simulates)."""
    config: dict = field(repr=False, default_factory=dict)


@dataclass
class Ledger:
    runs: list[Served] = field(default_factory=list)
    sweeps: list[list[Served]] = field(default_factory=list)
    missing: dict[str, int] = field(default_factory=lambda: defaultdict(int))


class Missing(RuntimeError):
    pass


def _versions(root: Path) -> list[str]:
    """The simulator versions a store's sweeps were made with (its ``sweeps/`` files)."""
    found = []
    for p in sorted((root / "sweeps").glob("*.json")):
        v = json.loads(p.read_text()).get("version")
        if v and v not in found:
            found.append(v)
    return found[::-1]  # the newest first


def _part(key: Any, parts: Sequence[str]) -> str:
    if isinstance(key, tuple) and key and isinstance(key[0], str) and key[0] in parts:
        return key[0]
    return "(all)"


def _serve(stores: list[tuple[Any, list[str]]], ledger: Ledger, experiment: str, parts: Sequence[str]):
    from dumbbell.sweep.cost import estimate
    from dumbbell.sweep.spec import run_id_of

    def execute(specs, *, label="runs", workers=None, ctx=None):
        records, sweep = [], []
        for spec in specs:
            rec = None
            for store, versions in stores:
                for v in versions:
                    rec = store.get(run_id_of(spec.config, v))
                    if rec is not None and rec.ok:
                        break
                    rec = None
                if rec is not None:
                    break
            key = spec.labels.get("point")
            part = _part(tuple(key) if isinstance(key, list) else key, parts)
            if rec is None:
                ledger.missing[f"{experiment}/{part}"] += 1
                continue
            s = Served(experiment, part, rec.run_id, float(rec.summary.get("sim_time_ps", 0)) / 1e12,
                       int(rec.summary.get("data_packets_sent") or 0), rec.wall_s, estimate(spec.config),
                       run_id_of({k: v for k, v in spec.config.items() if k != "record"}, "physics"),
                       spec.config)
            sweep.append(s)
            records.append(rec)
        if len(records) < len(specs):
            raise Missing(f"{experiment}: {len(specs) - len(records)} of {len(specs)} runs not in the stores")
        ledger.runs.extend(sweep)
        ledger.sweeps.append(sweep)
        return records

    return execute


def makespan(costs: Sequence[float], workers: int) -> float:
    """List scheduling: each run goes, in the order given, to the first free worker."""
    free = [0.0] * workers
    for c in costs:
        t = heapq.heappop(free)
        heapq.heappush(free, t + c)
    return max(free) if costs else 0.0


def _distinct(runs: Sequence[Served]) -> list[Served]:
    seen: dict[str, Served] = {}
    for r in runs:
        seen.setdefault(r.run_id, r)
    return list(seen.values())


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="experiments (default: every registered one)")
    ap.add_argument("--store", action="append", required=True, type=Path, help="a results store (read only)")
    ap.add_argument("--scale", default="paper")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sample", type=int, default=0,
                    help="compute this many runs of each part again here (one at a time) and compare their CPU "
                         "time with the stored wall time")
    args = ap.parse_args(argv)

    from dumbbell.experiments import repeat
    from dumbbell.experiments.registry import body_of, rooms
    from dumbbell.sweep.store import Store

    stores = [(Store(p), _versions(p)) for p in args.store]
    ledger = Ledger()
    names = args.names or list(rooms())
    for name in names:
        room = rooms()[name]
        parts = tuple(getattr(room, "PARTS", ()))
        body = importlib.import_module(body_of(room))
        saved = repeat.execute
        repeat.execute = _serve(stores, ledger, name, parts)
        try:
            body.run(scale=args.scale, seed=args.seed)
        except Missing as e:
            print(f"<!-- {e} -->", file=sys.stderr)
        finally:
            repeat.execute = saved
    _print(ledger, args.workers)
    if args.sample:
        _sample(ledger, args.sample)
    return 0


def _sample(ledger: Ledger, n: int) -> None:
    """Each part's CPU time per data packet, from ``n`` of its distinct runs computed again here, one at a
    time: the runs at evenly spaced quantiles of the part's packets (a sample in proportion to packets, so
    the runs that carry the part's packets carry its estimate). The part's CPU time is its packets times
    the sample's mean CPU per packet; the stored wall times, which a busy machine inflates, are not used."""
    import time

    from dumbbell.sweep.spec import compute

    groups: dict[tuple[str, str], list[Served]] = defaultdict(list)
    for r in _distinct(ledger.runs):
        groups[(r.experiment, r.part)].append(r)
    print(f"\n| experiment | part | runs sampled | their packets (M) | CPU ns per packet | same packets | "
          f"stored wall s of the part | CPU s of the part (estimate) |")
    print("|---|---|---:|---:|---:|---|---:|---:|")
    tot = 0.0
    for (exp, part), runs in groups.items():
        pick = _quantile_pick(runs, n)
        per, pk, same = [], 0, True
        for r in pick:
            c0 = time.process_time()
            out = compute(r.config)
            cpu = time.process_time() - c0
            got = int(out["summary"].get("data_packets_sent") or 0)
            same &= got == r.packets
            per.append(cpu / max(got, 1))
            pk += got
        ns = sum(per) / len(per) if per else 0.0
        est = ns * sum(r.packets for r in runs)
        tot += est
        print(f"| {exp} | {part} | {len(pick)} | {pk / 1e6:,.1f} | {ns * 1e9:,.0f} | {'yes' if same else 'no'} | "
              f"{sum(r.worker_s for r in runs):,.0f} | {est:,.0f} |", flush=True)
    print(f"| **all** | | | | | | {sum(r.worker_s for r in _distinct(ledger.runs)):,.0f} | {tot:,.0f} |")


def _quantile_pick(runs: Sequence[Served], n: int) -> list[Served]:
    """The runs at the packet quantiles (k + 1/2)/n, k < n, of ``runs`` sorted by packets (distinct)."""
    order = sorted(runs, key=lambda r: (r.packets, r.run_id))
    total = sum(r.packets for r in order)
    if total == 0:
        return order[:1]
    picks: list[Served] = []
    acc, k = 0, 0
    for r in order:
        acc += r.packets
        while k < n and acc >= (k + 0.5) / n * total:
            if r not in picks:
                picks.append(r)
            k += 1
    return picks


def _print(ledger: Ledger, workers: int) -> None:
    total = _distinct(ledger.runs)
    tot_s = sum(r.worker_s for r in total) or 1.0
    print(f"| experiment | part | runs | distinct | simulated s | data packets (M) | worker s | share |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    groups: dict[tuple[str, str], list[Served]] = defaultdict(list)
    for r in ledger.runs:
        groups[(r.experiment, r.part)].append(r)
    first_owner: dict[str, tuple[str, str]] = {}
    for r in ledger.runs:
        first_owner.setdefault(r.run_id, (r.experiment, r.part))
    for (exp, part), runs in groups.items():
        own = [r for r in _distinct(runs) if first_owner[r.run_id] == (exp, part)]
        ws = sum(r.worker_s for r in own)
        print(f"| {exp} | {part} | {len(runs)} | {len(own)} | {sum(r.sim_s for r in own):,.0f} | "
              f"{sum(r.packets for r in own) / 1e6:,.1f} | {ws:,.0f} | {100 * ws / tot_s:.1f} % |")
    print(f"| **all** | | {len(ledger.runs)} | {len(total)} | {sum(r.sim_s for r in total):,.0f} | "
          f"{sum(r.packets for r in total) / 1e6:,.1f} | {tot_s:,.0f} | 100 % |")
    print()
    shared: dict[tuple[tuple[str, str], tuple[str, str]], list[Served]] = defaultdict(list)
    for r in ledger.runs:
        owner = first_owner[r.run_id]
        if owner != (r.experiment, r.part):
            shared[(owner, (r.experiment, r.part))].append(r)
    print("| asked for by | again by | runs | worker s saved |")
    print("|---|---|---:|---:|")
    for (a, b), runs in shared.items():
        print(f"| {'/'.join(a)} | {'/'.join(b)} | {len(runs)} | {sum(r.worker_s for r in _distinct(runs)):,.0f} |")
    within = len(ledger.runs) - len(total) - sum(len(v) for v in shared.values())
    print(f"\nruns asked twice within one part: {within}")
    same: dict[str, list[Served]] = defaultdict(list)
    for r in total:
        same[r.physics].append(r)
    twins = [g for g in same.values() if len(g) > 1]
    print(f"distinct runs that simulate the same thing and differ only in what they record: "
          f"{sum(len(g) - 1 for g in twins)} (worker s {sum(r.worker_s for g in twins for r in g[1:]):,.0f})")
    for g in twins[:10]:
        print("  " + ", ".join(f"{r.experiment}/{r.part}" for r in g))
    print()
    print(f"| experiment | sweeps | runs | makespan on {workers}, as handed out (s) | longest first, "
          f"by the estimate (s) | longest first, by the measured time (s) | lower bound (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    by_exp: dict[str, list[list[Served]]] = defaultdict(list)
    for sweep in ledger.sweeps:
        if sweep:
            by_exp[sweep[0].experiment].append(sweep)
    sums = [0.0] * 4
    for exp, sweeps in by_exp.items():
        cols = [0.0] * 4
        n = 0
        for sweep in sweeps:
            d = _distinct(sweep)
            n += len(d)
            cost = [r.worker_s for r in d]
            cols[0] += makespan(cost, workers)
            cols[1] += makespan([r.worker_s for r in sorted(d, key=lambda r: -r.estimate)], workers)
            cols[2] += makespan(sorted(cost, reverse=True), workers)
            cols[3] += max(sum(cost) / workers, max(cost, default=0.0))
        sums = [a + b for a, b in zip(sums, cols)]
        print(f"| {exp} | {len(sweeps)} | {n} | " + " | ".join(f"{c:,.0f}" for c in cols) + " |")
    print("| **all** | | | " + " | ".join(f"{c:,.0f}" for c in sums) + " |")
    if ledger.missing:
        print("\nmissing from the stores: " + ", ".join(f"{k} {v}" for k, v in ledger.missing.items()))


if __name__ == "__main__":
    raise SystemExit(main())
