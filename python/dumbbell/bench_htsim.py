"""``htsim-equal-work`` of ``dumbbell bench``: CPU per data packet against
htsim's on equal work (issue 29, ``docs/performance.md``).

The scenarios of ``tools/htsim/compare.sh`` (``reno-1g``, ``reno-10g``,
``dctcp-100m``, from ``tools/htsim/configs.py``) with one ACK per data
packet on our side (``delayed_ack=False``, htsim's policy), so that both
simulators do the same work per packet. Ours: the installed extension's
core alone (``_native.run_json``, tables not converted), process CPU, one
fresh process per run; htsim: the ``htsim_compare`` binary that
``compare.sh`` builds (``$DUMBBELL_HTSIM``, else compare.sh's default
``/tmp/htsim-compare/plain/htsim_compare``), its event loop's CPU. The two
run interleaved, alternating which goes first, ``RUNS`` times per
scenario; the record gives the medians and the range of the per-run
ratios. Run by ``dumbbell bench`` when that binary and a checkout's
``tools/htsim/configs.py`` are there.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import resource
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

EQUAL_WORK = "htsim-equal-work"
SCENARIOS = ("reno-1g", "reno-10g", "dctcp-100m")
RUNS = 3
_CONFIGS = Path(__file__).resolve().parents[2] / "tools" / "htsim" / "configs.py"


def htsim_binary() -> Path | None:
    """The ``htsim_compare`` binary, if built, and this is a checkout."""
    p = Path(os.environ.get("DUMBBELL_HTSIM") or "/tmp/htsim-compare/plain/htsim_compare")
    return p if p.is_file() and os.access(p, os.X_OK) and _CONFIGS.is_file() else None


def why_unavailable() -> str:
    return ("needs htsim's htsim_compare (built by tools/htsim/compare.sh; $DUMBBELL_HTSIM names it) "
            "and a checkout's tools/htsim/configs.py")


def _config_json(name: str) -> str:
    spec = importlib.util.spec_from_file_location("_htsim_configs", _CONFIGS)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return json.dumps(mod.scenarios(delayed_ack=False)[name].to_core(1), allow_nan=False)


def _ours_here(name: str) -> dict[str, Any]:
    """One run of our core on ``name`` in this process (the child's side)."""
    from . import _native
    from .run.tables import rows_of

    text = _config_json(name)

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    c0 = cpu()
    raw = _native.run_json(text, _native.RunHandle(), None, None)
    spent = cpu() - c0
    s = rows_of(raw["summary"])[0]
    return {"cpu_s": spent, "data_packets_sent": int(s["data_packets_sent"]), "events": int(s["events"])}


def _ours(name: str) -> tuple[float, int, int]:
    out = subprocess.run([sys.executable, "-m", "dumbbell.bench_htsim", name],
                         capture_output=True, text=True, check=True).stdout
    r = json.loads(out)
    return r["cpu_s"] * 1e9 / r["data_packets_sent"], r["data_packets_sent"], r["events"]


def _htsim(binary: Path, name: str) -> tuple[float, int]:
    out = subprocess.run([str(binary), name], capture_output=True, text=True, check=True).stdout
    m = re.search(r"data_pkts (\d+) cpu \S+ cpu_ns_per_pkt ([\d.]+)", out)
    if m is None:
        raise RuntimeError(f"{binary}: no 'data_pkts ... cpu_ns_per_pkt' line in its output")
    return float(m.group(2)), int(m.group(1))


def measure(binary: Path, runs: int = RUNS, scenarios: tuple[str, ...] = SCENARIOS) -> dict[str, Any]:
    """The record: per scenario the medians, the ratio and its per-run range."""
    rows = []
    for s in scenarios:
        h: list[float] = []
        d: list[float] = []
        for i in range(runs):
            if i % 2 == 0:
                hn, hp = _htsim(binary, s)
                dn, dp, ev = _ours(s)
            else:
                dn, dp, ev = _ours(s)
                hn, hp = _htsim(binary, s)
            h.append(hn)
            d.append(dn)
        ratios = sorted(y / x for x, y in zip(h, d))
        rows.append({
            "scenario": s,
            "htsim_ns_per_packet": statistics.median(h),
            "ours_ns_per_packet": statistics.median(d),
            "ratio": statistics.median(d) / statistics.median(h),
            "ratio_min": ratios[0],
            "ratio_max": ratios[-1],
            "runs": runs,
            "ours_events_per_packet": ev / dp,
            "data_packets": {"htsim": hp, "ours": dp},
        })
    return {"name": EQUAL_WORK, "htsim": str(binary), "scenarios": rows}


def line(r: dict[str, Any]) -> str:
    """The line ``dumbbell bench`` prints for the record."""
    parts = [f"{x['scenario']} {x['ratio']:.2f}x ({x['ratio_min']:.2f}..{x['ratio_max']:.2f}; ours "
             f"{x['ours_ns_per_packet']:.0f}, htsim {x['htsim_ns_per_packet']:.0f} ns)" for x in r["scenarios"]]
    return f"bench: {EQUAL_WORK}: CPU per data packet, ours / htsim, one ACK per packet on both: " + "; ".join(parts)


if __name__ == "__main__":
    print(json.dumps(_ours_here(sys.argv[1])))
