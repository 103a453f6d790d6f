"""tools/htsim/configs.py: the configurations compare.sh runs, and its
--ack-every-packet option (one ACK per data packet, htsim's policy)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "htsim" / "configs.py"
COMPARED = ("reno-1g", "reno-10g", "dctcp-100m")


def _write(out: Path, *args: str) -> dict[str, dict]:
    subprocess.run([sys.executable, str(TOOL), str(out), *args], check=True, capture_output=True, text=True)
    return {p.stem: json.loads(p.read_text()) for p in out.glob("*.json")}


def test_ack_every_packet_turns_delayed_acks_off_and_changes_nothing_else(tmp_path):
    default = _write(tmp_path / "d")
    every = _write(tmp_path / "e", "--ack-every-packet")
    assert set(default) == set(every) >= set(COMPARED)
    for name in COMPARED:
        flows = every[name]["flows"]
        assert flows and all(f["tcp"]["delayed_ack"] is False for f in flows), name
        assert all(f["tcp"].get("delayed_ack", True) is True for f in default[name]["flows"]), name  # the default
        undo = {**every[name], "flows": [{**f, "tcp": {k: v for k, v in f["tcp"].items() if k != "delayed_ack"}}
                                         for f in flows]}
        assert undo == default[name], name
    # the two cases beyond htsim's comparison keep their defaults
    assert every["cubic-10g"] == default["cubic-10g"] and every["many-10g"] == default["many-10g"]
