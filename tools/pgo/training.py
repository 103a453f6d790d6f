"""Writes the training runs of the profile-guided build (``tools/pgo/build.sh``).

    .venv/bin/python tools/pgo/training.py            # rewrite tools/pgo/training.jsonl
    .venv/bin/python tools/pgo/training.py --check    # exit 1 if it is out of date

The optimiser learns from these runs which branches are taken and which
code is hot, so they must exercise what the experiments exercise: every
congestion control, queue discipline, marking policy, classifier, switch
pipeline and workload the experiments use. They are taken from the experiments
themselves (every one the registry, ``dumbbell.experiments.EXPERIMENTS``,
holds: a new experiment joins without a touch here): each runs at its
quick scale, every run it makes is recorded (its core configuration, as
the sweep engine hands it to the core), and of the first repetitions at
most ``PER_KIND`` runs of each kind are kept, with their simulated time
cut to ``MAX_SIM_S``, so that the whole set takes some ten seconds.

One JSON configuration per line (``config.rs``'s document), in experiment
order. The file is generated, not written by hand; a test
(``tests/test_pgo.py``) checks that every line is still a configuration
the core accepts. Regenerate it when an experiment's scenarios change:
``--check`` says whether they did.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "training.jsonl"

# Simulated seconds kept per run, by experiment: enough for each run to
# leave its start-up and reach the steady state its experiment measures
# (rafle's tasks at 1 Mb/s need minutes of simulated time, and cost little;
# an experiment not named here keeps 1 s).
MAX_SIM_S = {"dctcp-queue": 1.0, "hysteresis": 2.0, "lossy-cc": 0.5, "rafle": 600.0, "highspeed": 2.0}

# At most this many runs per kind of run in each experiment (a kind: its
# controls, queue disciplines and marking, netem, workloads and pipelines),
# so that the sweeps' many similar points do not dominate the profile and
# no kind is left out.
PER_KIND = 2


def _shape(v: Any) -> Any:
    """``v`` with every number replaced by 0: what kind of thing it is, not
    its parameters."""
    if isinstance(v, dict):
        return {k: _shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_shape(x) for x in v[:1]]
    return 0 if isinstance(v, (int, float)) and not isinstance(v, bool) else v


def _kind(cfg: dict[str, Any]) -> str:
    queues = sorted({json.dumps(_shape(q), sort_keys=True)
                     for link in cfg["links"] for q in (link.get("queue_ab"), link.get("queue_ba")) if q})
    return json.dumps([
        sorted({f["cc"]["kind"] for f in cfg["flows"] if f.get("cc")}),
        sorted({f["kind"] for f in cfg["flows"]}),
        sorted({w["cc"]["kind"] for w in cfg.get("workloads", [])}),
        queues,
        any(link.get("netem_ab") or link.get("netem_ba") for link in cfg["links"]),
        len(cfg.get("workloads", [])),
        any(n.get("pipeline") for n in cfg["nodes"]),
    ], sort_keys=True)


def collect() -> list[dict[str, Any]]:
    """Runs every experiment at quick scale and returns the configurations of
    its runs, first repetitions only, thinned and shortened (see above)."""
    from dumbbell.experiments import EXPERIMENTS, get
    from dumbbell.experiments import repeat
    from dumbbell.sweep import using

    seen: list[tuple[str, int | None, dict[str, Any]]] = []
    real_execute = repeat.execute

    def recording(specs, **kw):
        for s in specs:
            if s.config is not None:
                seen.append((s.labels.get("experiment", ""), s.labels.get("rep"), s.config))
        return real_execute(specs, **kw)

    repeat.execute = recording
    try:
        with using(store=None, workers=2):
            for name in EXPERIMENTS:
                get(name).run(scale="quick", seed=1)
    finally:
        repeat.execute = real_execute

    out: list[dict[str, Any]] = []
    kept: dict[tuple[str, str], int] = {}
    unique: set[str] = set()
    for label, rep, cfg in seen:
        name = next((n for n in EXPERIMENTS if label.startswith(n)), label)
        if rep not in (0, None):
            continue
        cap_ps = int(MAX_SIM_S.get(name, 1.0) * 1e12)
        cfg = {**cfg, "duration_ps": min(int(cfg["duration_ps"]), cap_ps)}
        text = json.dumps(cfg, sort_keys=True)
        kind = (name, _kind(cfg))
        if text not in unique and kept.get(kind, 0) < PER_KIND:
            unique.add(text)
            kept[kind] = kept.get(kind, 0) + 1
            out.append(cfg)
    return out


def render(configs: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(c, sort_keys=True, separators=(",", ":")) + "\n" for c in configs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if training.jsonl is out of date")
    args = ap.parse_args(argv)
    text = render(collect())
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is out of date: run {Path(__file__).name} to rewrite it", file=sys.stderr)
            return 1
        print(f"{OUT}: up to date ({text.count(chr(10))} runs)")
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}: {text.count(chr(10))} runs, {len(text) / 1e3:.0f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
