"""The evidence scripts behind docs/experiments/e3.md and e5.md run, and what
they print is what the docs quote (the cheap sections)."""

from __future__ import annotations

import re
import subprocess
import sys

from .conftest import REPO


def run_script(name: str, *args: str) -> str:
    out = subprocess.run([sys.executable, str(REPO / "examples" / name), *args], capture_output=True, text=True,
                         timeout=600, check=True)
    return out.stdout


def test_evidence_scripts_list_their_sections_and_the_docs_name_only_those():
    for script, doc in (("e3_evidence.py", "e3.md"), ("e5_evidence.py", "e5.md")):
        sections = {line.split(":")[0] for line in run_script(script, "--list").splitlines() if line}
        assert len(sections) >= 4
        text = (REPO / "docs" / "experiments" / doc).read_text()
        named = {n for n in re.findall(rf"examples/{script} ([a-z0-9-]+)", text) if not n.startswith("-")}
        assert named and named <= sections, named - sections


def test_small_link_section_prints_what_e3_docs_quote():
    """10 Mb/s, 20 s, seed 1: Expolinear overflows the router and
    retransmits what it lost; Reno much less; every segment sent is either
    dropped, delivered in order, or still on its way at the end."""
    text = run_script("e3_evidence.py", "small-link")
    rows = {}
    for line in text.splitlines():
        m = re.match(r"\s+(\w+): goodput ([\d.]+) Mb/s; sent (\d+), retransmits (\d+), overflow drops (\d+), "
                     r"link utilization ([\d.]+), final cwnd \d+; segments not dropped (\d+), delivered in order (\d+)", line)
        if m:
            rows[m.group(1)] = [float(x) for x in m.groups()[1:]]
    assert set(rows) == {"expolinear", "linear", "reno"}
    g, sent, retx, drops, util, kept, in_order = rows["expolinear"]
    assert (g, drops) == (8.49, 10704)  # quoted in docs/experiments/e3.md
    assert util == 1.0 and kept == sent - drops and in_order < kept
    assert abs(retx - drops) <= 1, "every overflow is retransmitted once"
    assert rows["reno"][0] == 9.65 and rows["reno"][3] < drops / 10
