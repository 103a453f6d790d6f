"""``dumbbell bench --only python-path-1g``: what the Python path costs.

One fresh process (``python -m dumbbell.bench_pypath``) builds
``cubic-1g`` (one Cubic flow, 1 Gb/s, 60 s simulated, about five million
data packets) and runs it, alternating, through :func:`dumbbell.run` and
through the core alone (``_native.run_json`` on the configuration's JSON,
tables left unconverted), ``RUNS`` times each, the first :func:`~dumbbell.run`
first of all. The figure is process CPU time (user + system, every thread:
``resource.getrusage``), ``import dumbbell`` and building the scenario not
counted. Reported: ``core_cpu_s`` (median of the core's runs),
``first_run_cpu_s`` (the process's first :func:`~dumbbell.run`: lazy imports
and first-touch costs land here), ``later_run_cpu_s`` (median of the
others), and their ratios to the core, ``first_vs_core`` and
``later_vs_core`` (the goal, issue 29: at most 1.1 both). Then the command,
``RUNS`` times, alternating with ``python -c 'import dumbbell'``, each a
fresh process (``python -m dumbbell run FILE.toml --json`` on the scenario
written as TOML): ``command_cpu_s`` (median, the whole process),
``import_cpu_s`` (median) and ``command_vs_core``, the command's CPU beyond
``import dumbbell`` over the core's (the same goal). Every run is checked
to give the same ``events`` as the core's. Wall times on a loaded machine
say little; tests never assert on these numbers.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["measure"]

RUNS = 3


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _events_of(raw: Any) -> int:
    from .run.tables import rows_of

    return int(rows_of(raw["summary"])[0]["events"])


def _child_cpu(args: list[str]) -> tuple[float, str]:
    """A child process's CPU time (user + system) and its stdout."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(args, capture_output=True, text=True, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime), proc.stdout


def _command(s: Any, runs: int) -> tuple[list[float], list[float], set[int]]:
    """``dumbbell run`` on ``s`` as TOML and ``import dumbbell``, alternating,
    ``runs`` fresh processes each: their CPU times, and the runs' events."""
    cpu: list[float] = []
    imports: list[float] = []
    events: set[int] = set()
    with tempfile.TemporaryDirectory(prefix="dumbbell-pypath-") as tmp:
        path = Path(tmp) / f"{s.name}.toml"
        path.write_text(s.to_toml())
        for _ in range(runs):
            t, out = _child_cpu([sys.executable, "-m", "dumbbell", "run", str(path), "--seed", "1", "--json"])
            cpu.append(t)
            events.add(int(json.loads(out)["summary"]["events"]))
            imports.append(_child_cpu([sys.executable, "-c", "import dumbbell"])[0])
    return cpu, imports, events


def measure(runs: int = RUNS, bench: str = "cubic-1g") -> dict[str, Any]:
    """The child's side: the figures above, in this process (which must not
    have run anything yet, for ``first_run_cpu_s`` to mean the first run).
    ``bench``: the scenario of another benchmark (``dumbbell.bench``)."""
    from . import _native
    from .bench import PYTHON_PATH, scenario_for
    from .run.runner import run

    s = scenario_for(bench)
    text = json.dumps(s.to_core(1), allow_nan=False)
    core: list[float] = []
    py: list[float] = []
    events: set[int] = set()
    for _ in range(runs):
        c0 = _cpu()
        res = run(s, seed=1)
        py.append(_cpu() - c0)
        events.add(int(res.summary["events"]))
        del res
        c0 = _cpu()
        raw = _native.run_json(text, _native.RunHandle(), None, None)
        core.append(_cpu() - c0)
        events.add(_events_of(raw))
        del raw
    command, imports, command_events = _command(s, runs)
    events |= command_events
    core_s = statistics.median(core)
    later_s = statistics.median(py[1:]) if len(py) > 1 else py[0]
    command_s, import_s = statistics.median(command), statistics.median(imports)
    return {
        "name": PYTHON_PATH,
        "scenario": bench,
        "runs": runs,
        "core_cpu_s": core_s,
        "core_cpu_s_all": core,
        "first_run_cpu_s": py[0],
        "later_run_cpu_s": later_s,
        "run_cpu_s_all": py,
        "first_vs_core": py[0] / core_s if core_s > 0 else None,
        "later_vs_core": later_s / core_s if core_s > 0 else None,
        "command_cpu_s": command_s,
        "command_cpu_s_all": command,
        "import_cpu_s": import_s,
        "command_vs_core": (command_s - import_s) / core_s if core_s > 0 else None,
        "same_events": len(events) == 1,
        "events": events.pop() if len(events) == 1 else None,
    }


if __name__ == "__main__":
    # python -m dumbbell.bench_pypath [RUNS [BENCHMARK]]
    print(json.dumps(measure(int(sys.argv[1]) if len(sys.argv) > 1 else RUNS, *sys.argv[2:3])))
