"""The training runs of the profile-guided build (``tools/pgo``).

``make setup`` builds the extension with profile-guided optimisation,
trained on ``tools/pgo/training.jsonl`` (``tools/pgo/build.sh``). A training
file the core no longer accepts would make every build fall back to the
plain one; a stale one would train the optimiser on scenarios the
experiments no longer run. Both are checked here.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from dumbbell import _native

ROOT = Path(__file__).resolve().parent.parent
PGO = ROOT / "tools" / "pgo"


def _training_module():
    spec = importlib.util.spec_from_file_location("pgo_training", PGO / "training.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["pgo_training"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_every_training_run_is_a_configuration_the_core_accepts():
    lines = [line for line in (PGO / "training.jsonl").read_text().splitlines() if line.strip()]
    assert len(lines) >= 50
    for i, line in enumerate(lines, 1):
        try:
            _native.check_config(line)
        except Exception as e:  # the message names the field
            raise AssertionError(f"training run {i} is rejected: {e}") from e


def test_training_covers_every_control_queue_and_classifier_the_experiments_use():
    cfgs = [json.loads(line) for line in (PGO / "training.jsonl").read_text().splitlines() if line.strip()]
    controls = {f["cc"]["kind"] for c in cfgs for f in c["flows"] if f.get("cc")}
    controls |= {w["cc"]["kind"] for c in cfgs for w in c.get("workloads", [])}
    queues = [q for c in cfgs for link in c["links"] for q in (link.get("queue_ab"), link.get("queue_ba")) if q]
    aqms = {q["aqm"]["kind"] for q in queues if "aqm" in q}
    classifiers = {(q["classifier"]["kind"], q["scheduler"]["kind"]) for q in queues if "classifier" in q}
    assert {"reno", "cubic", "dctcp", "bbr", "vegas", "highspeed", "linear", "fractional", "expolinear"} <= controls
    assert {"none", "red", "step", "hysteresis", "codel", "fq_codel", "pie"} <= aqms
    assert {(c, s) for c in ("ideal", "run2c", "rafle") for s in ("prio", "rr")} <= classifiers
    assert any(n.get("pipeline") for c in cfgs for n in c["nodes"]), "E2's software-switch pipeline"
    assert any(link.get("netem_ab") for c in cfgs for link in c["links"]), "E3's lossy link"
    assert all(c["duration_ps"] <= 600 * 10**12 for c in cfgs)


def test_training_file_is_what_the_experiments_run_now():
    mod = _training_module()
    want = mod.render(mod.collect())
    assert (PGO / "training.jsonl").read_text() == want, (
        "tools/pgo/training.jsonl is stale: the experiments' runs changed; "
        "rewrite it with `.venv/bin/python tools/pgo/training.py`")


def test_the_training_driver_runs_through_the_extension_and_counts_its_events(tmp_path, capsys):
    """tools/pgo/train.py is what records the profile: it must read the
    binding's tables as they are handed over today (a read-only buffer per
    column), or the profile-guided build silently falls back to plain."""
    spec = importlib.util.spec_from_file_location("pgo_train", PGO / "train.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    lines = [line for line in (PGO / "training.jsonl").read_text().splitlines() if line.strip()][:2]
    runs = tmp_path / "two.jsonl"
    runs.write_text("\n".join(lines) + "\n")
    assert mod.main([str(runs)]) == 0
    out = capsys.readouterr().out
    counted = [int(line.split()[2]) for line in out.splitlines() if line.startswith("run ")]
    from dumbbell.run.tables import Tables

    expected = [int(Tables(_native.run_json(line))["summary"]["events"][0]) for line in lines]
    assert counted == expected and all(n > 1000 for n in counted)
