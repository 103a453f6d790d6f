"""``dumbbell bench``: simulator speed on fixed scenarios.

Each benchmark runs in its own Python subprocess (``python -m
dumbbell.bench NAME``), so that its peak memory is its own: the parent reads
the child's ``ru_maxrss`` from ``os.wait4``. Nothing is recorded beyond the
standard tables (no traces). Reported per benchmark: ``name``, ``events``,
``wall_s`` (the run only, building the scenario excluded), ``cpu_s`` (the
CPU time the run used, all threads: on a loaded machine it moves less than
the wall time), ``events_per_s``, ``sim_packets_per_s``
(``data_packets_sent / wall_s``), ``ns_per_packet`` (``cpu_s`` per data
packet sent), ``events_per_packet``, ``peak_rss_bytes``, plus ``sim_s``,
``flows``, ``data_packets_sent`` and ``build`` (how the extension was
compiled: ``plain``, or ``profile-guided (<profile>)`` as ``make setup``
builds it, 1.1-1.25x faster; the results are the same either way).

- ``dctcp-100m``: E1's DCTCP case at 100 Mb/s, 20 s;
- ``cubic-1g``: one Cubic flow, ``snd`` —10 Gb/s, 0 delay— ``r`` —1 Gb/s,
  10 ms— ``rcv`` (RTT 20 ms), drop-tail of one BDP (1667 packets of
  1500 B) at the bottleneck, 60 s (about five million data packets);
- ``cubic-10g``: the same at 10 Gb/s (access 40 Gb/s, 16667 packets), 10 s;
- ``many-10g``: ``cubic-10g`` shared by 1000 Cubic flows (starting 0.1 ms
  apart), 5 s: the cost per packet with many flows, to set beside
  ``cubic-10g``'s;
- ``reno-1g`` and ``reno-py-1g``: ``cubic-1g``'s path for 10 s with one
  Reno flow, the core's Rust ``reno`` and :class:`~dumbbell.controls.RenoPy`
  (Reno written in Python, called back on every ACK): the same packets bit
  for bit, so the difference in CPU per packet is the cost of a control
  written in Python (``docs/controls.md``). Run together (``dumbbell bench
  --only reno-1g,reno-py-1g``), the report adds ``reno-py-1g``'s cost
  relative to ``reno-1g``;
- ``cubic-module-1g``: ``cubic-1g`` with Linux 6.12's own ``tcp_cubic.c``
  as the control (``docs/kernel-modules.md``; needs Debian's
  ``linux-source-6.12`` or ``$DUMBBELL_KERNEL_SRC``, and is left out of a
  full ``dumbbell bench`` without them): the cost of calling a compiled
  module through the kernel shim, in the run's child process (its CPU
  time is counted). Run with ``cubic-1g`` (``--only cubic-1g,cubic-module-1g``),
  the report adds its cost relative to ``cubic-1g``;
- ``python-path-1g`` (only with ``--only``): ``cubic-1g`` through
  :func:`dumbbell.run` and through the core alone, alternating in one
  process: the CPU the Python path adds, its first run apart, then
  ``dumbbell run`` on it as TOML in fresh processes
  (:mod:`dumbbell.bench_pypath`; its record has its own fields);
- ``htsim-equal-work`` (run when htsim's ``htsim_compare``, built by
  ``tools/htsim/compare.sh``, is there): ``compare.sh``'s three scenarios
  with one ACK per data packet, our core against htsim, interleaved
  (:mod:`dumbbell.bench_htsim`; its record has its own fields).

Wall times depend on the machine and its load; tests never assert on them.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from .errors import ConfigError, SimulationError
from .scenario.models import DropTail, Link, Node, Scenario, TcpFlow, TcpOptions

__all__ = ["BENCHMARKS", "PYTHON_PATH", "scenario_for", "run_benchmark", "run_all", "python_path_line"]

PKT_BYTES = 1500
MSS_BYTES = 1460


def _cubic(name: str, access_bps: int, bottleneck_bps: int, duration_s: float, flows: int = 1,
           cc: Any = "cubic") -> Scenario:
    one_way_s = 0.010
    bdp_pkts = math.ceil(bottleneck_bps * 2 * one_way_s / (PKT_BYTES * 8))
    return Scenario(
        name=name,
        duration_s=duration_s,
        nodes=[Node(name="snd"), Node(name="r", kind="switch"), Node(name="rcv")],
        links=[
            Link(a="snd", b="r", rate_bps=access_bps, delay_s=0.0),
            Link(a="r", b="rcv", rate_bps=bottleneck_bps, delay_s=one_way_s, queue_ab=DropTail(limit_pkts=bdp_pkts)),
        ],
        flows=[
            TcpFlow(
                name="cubic" if flows == 1 else f"cubic{i}",
                src="snd",
                dst="rcv",
                cc=cc,
                start_s=i * 1e-4,
                tcp=TcpOptions(mss_bytes=MSS_BYTES),
            )
            for i in range(flows)
        ],
    )


def _dctcp_100m() -> Scenario:
    from .experiments import dctcp_queue

    return dctcp_queue.scenario("dctcp", 100_000_000, 20.0, record=False)


BENCHMARKS: dict[str, Callable[[], Scenario]] = {
    "dctcp-100m": _dctcp_100m,
    "cubic-1g": lambda: _cubic("cubic-1g", 10_000_000_000, 1_000_000_000, 60.0),
    "cubic-10g": lambda: _cubic("cubic-10g", 40_000_000_000, 10_000_000_000, 10.0),
    "many-10g": lambda: _cubic("many-10g", 40_000_000_000, 10_000_000_000, 5.0, flows=1000),
    "reno-1g": lambda: _cubic("reno-1g", 10_000_000_000, 1_000_000_000, 10.0, cc="reno"),
    "reno-py-1g": lambda: _reno_py("reno-py-1g"),
    "cubic-module-1g": lambda: _cubic_module("cubic-module-1g"),
}
"""Benchmark name → scenario builder."""

ABOUT: dict[str, str] = {
    "dctcp-100m": "E1's DCTCP case at 100 Mb/s: two DCTCP senders into one RED/ECN port, 20 s simulated.",
    "cubic-1g": "One Cubic flow through a 1 Gb/s bottleneck (20 ms RTT, one-BDP drop-tail buffer), 60 s simulated.",
    "cubic-10g": "One Cubic flow through a 10 Gb/s bottleneck (20 ms RTT, one-BDP drop-tail buffer), 10 s simulated.",
    "reno-1g": "One Reno flow (the core's, in Rust) on cubic-1g's path, 10 s simulated.",
    "reno-py-1g": "reno-1g with Reno written in Python (dumbbell.controls.RenoPy): the cost of a Python control.",
    "cubic-module-1g": "cubic-1g with Linux 6.12's own tcp_cubic.c (a kernel module through dumbbell's shim).",
}
"""Benchmark name → what it runs (``dumbbell list``)."""


def _reno_py(name: str) -> Scenario:
    from .controls import RenoPy

    return _cubic(name, 10_000_000_000, 1_000_000_000, 10.0, cc=RenoPy())


def _cubic_module(name: str) -> Scenario:
    from .kmod import KernelModule, kernel_sources

    src, why = kernel_sources("6.12")
    if src is None:
        raise ConfigError("--only", f"{name} needs Linux 6.12's tcp_cubic.c: {why}")
    return _cubic(name, 10_000_000_000, 1_000_000_000, 60.0, cc=KernelModule(src / "tcp_cubic.c"))


def _default_names() -> list[str]:
    """Every benchmark; ``cubic-module-1g`` only where the kernel's source is."""
    from .kmod import kernel_sources

    names = list(BENCHMARKS)
    if kernel_sources("6.12")[0] is None:
        names.remove("cubic-module-1g")
    return names


def scenario_for(name: str) -> Scenario:
    try:
        return BENCHMARKS[name]()
    except KeyError:
        from .suggest import did_you_mean

        raise ConfigError("--only", f"unknown benchmark {name!r}{did_you_mean(name, BENCHMARKS)} "
                                    f"(known: {', '.join(BENCHMARKS)})") from None


def _measure_here(name: str) -> dict[str, Any]:
    """Runs one benchmark in this process (the child's side)."""
    from .run.runner import run

    s = scenario_for(name)
    c0, t0, k0 = time.process_time(), time.perf_counter(), os.times()
    res = run(s, seed=1)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    k1 = os.times()  # a kernel-module run's child process counts too
    cpu += (k1.children_user - k0.children_user) + (k1.children_system - k0.children_system)
    summary = res.summary
    return {
        "name": name,
        "events": int(summary["events"]),
        "wall_s": wall,
        "cpu_s": cpu,
        "sim_s": s.duration_s,
        "flows": len(s.flows),
        "data_packets_sent": int(summary["data_packets_sent"]),
    }


def run_benchmark(name: str) -> dict[str, Any]:
    """Runs benchmark ``name`` in a fresh subprocess and returns its figures."""
    scenario_for(name)  # unknown names fail here, before any process starts
    proc = subprocess.Popen(
        [sys.executable, "-m", "dumbbell.bench", name],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stdout.close()  # type: ignore[union-attr]
    proc.stderr.close()  # type: ignore[union-attr]
    if proc.returncode != 0:
        last = (err.strip().splitlines() or ["no output"])[-1]
        raise SimulationError(f"benchmark {name} failed (exit {proc.returncode}): {last}")
    r = json.loads(out)
    # ru_maxrss is in kilobytes on Linux, bytes on macOS.
    rss = usage.ru_maxrss if sys.platform == "darwin" else usage.ru_maxrss * 1024
    wall, pkts = r["wall_s"], r["data_packets_sent"]
    return {
        "name": name,
        "events": r["events"],
        "wall_s": wall,
        "cpu_s": r["cpu_s"],
        "events_per_s": r["events"] / wall if wall > 0 else None,
        "sim_packets_per_s": pkts / wall if wall > 0 else None,
        "ns_per_packet": r["cpu_s"] * 1e9 / pkts if pkts > 0 else None,
        "events_per_packet": r["events"] / pkts if pkts > 0 else None,
        "peak_rss_bytes": int(rss),
        "sim_s": r["sim_s"],
        "flows": r["flows"],
        "data_packets_sent": pkts,
    }


PYTHON_PATH = "python-path-1g"
"""The benchmark of the Python path (:mod:`dumbbell.bench_pypath`), run only when named."""


def python_path_line(r: dict[str, Any]) -> str:
    """The line ``dumbbell bench`` prints for ``python-path-1g``'s record."""
    return (f"bench: {PYTHON_PATH}: the core alone {r['core_cpu_s']:.3f} s CPU; dumbbell.run first in the process "
            f"{r['first_run_cpu_s']:.3f} s ({r['first_vs_core']:.2f}x the core), later runs "
            f"{r['later_run_cpu_s']:.3f} s ({r['later_vs_core']:.2f}x); dumbbell run {r['command_cpu_s']:.3f} s, "
            f"{r['command_vs_core']:.2f}x the core beyond import dumbbell ({r['import_cpu_s']:.3f} s); "
            f"same events: {r['same_events']}")


def _run_python_path() -> dict[str, Any]:
    """``python-path-1g`` (:mod:`dumbbell.bench_pypath`) in a fresh process."""
    proc = subprocess.run([sys.executable, "-m", "dumbbell.bench_pypath"], capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise SimulationError(f"benchmark python-path-1g failed (exit {proc.returncode}): {last}")
    return dict(json.loads(proc.stdout))


def run_all(only: str | None = None, progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Runs every benchmark (or only ``only``: a name, or names separated by
    commas), one subprocess each."""
    from . import bench_htsim

    names = [n.strip() for n in only.split(",")] if only is not None else _default_names()
    htsim = bench_htsim.htsim_binary()
    if only is None and htsim is not None:
        names.append(bench_htsim.EQUAL_WORK)
    for n in names:
        if n == bench_htsim.EQUAL_WORK and htsim is None:
            raise ConfigError("--only", f"{n} {bench_htsim.why_unavailable()}")
        if n not in (PYTHON_PATH, bench_htsim.EQUAL_WORK):
            scenario_for(n)
    from . import _native

    build = _native.build()
    if progress:
        progress(f"bench: extension built {build}" + ("" if build != "plain" else
                 " (make setup builds it profile-guided, 1.1-1.25x faster: docs/performance.md)"))
    results = []
    for n in names:
        if progress:
            progress(f"bench: {n} ...")
        if n == bench_htsim.EQUAL_WORK:
            assert htsim is not None
            r = bench_htsim.measure(htsim)
            r["build"] = build
            if progress:
                progress(bench_htsim.line(r))
            results.append(r)
            continue
        if n == PYTHON_PATH:
            r = _run_python_path()
            r["build"] = build
            if progress:
                progress(python_path_line(r))
            results.append(r)
            continue
        r = run_benchmark(n)
        r["build"] = build
        if progress:
            progress(
                f"bench: {n}: {r['events']} events in {r['wall_s']:.2f} s "
                f"({r['events_per_s'] / 1e6:.2f} M events/s, {r['sim_packets_per_s'] / 1e6:.2f} M packets/s, "
                f"{r['ns_per_packet']:.0f} CPU ns/packet, {r['events_per_packet']:.2f} events/packet), "
                f"peak RSS {r['peak_rss_bytes'] / 2**20:.0f} MiB"
            )
        results.append(r)
    by_name = {r["name"]: r for r in results}
    if "reno-1g" in by_name and "reno-py-1g" in by_name:
        rust, py = by_name["reno-1g"], by_name["reno-py-1g"]
        py["ns_per_packet_over_rust"] = py["ns_per_packet"] - rust["ns_per_packet"]
        py["cpu_vs_rust"] = py["cpu_s"] / rust["cpu_s"] if rust["cpu_s"] > 0 else None
        py["same_packets_as_rust"] = py["data_packets_sent"] == rust["data_packets_sent"]
        if progress:
            progress(
                f"bench: Reno in Python costs {py['ns_per_packet_over_rust']:.0f} CPU ns/packet more than in Rust "
                f"({py['cpu_vs_rust']:.1f}x the CPU time; same packets: {py['same_packets_as_rust']})"
            )
    if "cubic-1g" in by_name and "cubic-module-1g" in by_name:
        port, mod = by_name["cubic-1g"], by_name["cubic-module-1g"]
        mod["ns_per_packet_vs_port"] = (mod["ns_per_packet"] / port["ns_per_packet"]
                                        if port["ns_per_packet"] else None)
        if progress:
            progress(f"bench: Linux's tcp_cubic.c through the shim costs {mod['ns_per_packet_vs_port']:.2f}x "
                     "the CPU per packet of the built-in cubic")
    return results


def _child(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m dumbbell.bench NAME", file=sys.stderr)
        return 2
    try:
        print(json.dumps(_measure_here(argv[0])))
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
