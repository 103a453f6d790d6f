"""The experiments' registry (issue 28): each experiment is one package that
declares its paper, parts and accounts, found on disk; naming the experiments
imports neither numpy nor polars."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import dumbbell.experiments as experiments
from dumbbell.experiments import claims, papers
from dumbbell.experiments.known import Known
from dumbbell.experiments.papers import Paper
from dumbbell.experiments.registry import REQUIRED, rooms

HOME = Path(experiments.__file__).parent


def test_every_experiment_package_is_registered_in_its_papers_order() -> None:
    packages = sorted(p.parent.name for p in HOME.glob("*/experiment.py"))
    found = rooms()
    assert sorted(room.__name__.rsplit(".", 1)[1] for room in found.values()) == packages
    labels = [int(room.PAPER.label[1:]) for room in found.values()]
    assert labels == sorted(labels) and len(set(labels)) == len(labels)
    assert list(experiments.EXPERIMENTS) == list(found) == list(experiments.PAPERS)


def test_each_package_declares_its_paper_and_accounts() -> None:
    for name, room in rooms().items():
        assert all(k in vars(room) for k in REQUIRED), name
        assert room.NAME == name and isinstance(room.PAPER, Paper) and room.PAPER.experiment == name
        assert room.PAPER.doc == f"docs/experiments/{name}.md"
        assert all(isinstance(k, Known) for k in room.KNOWN), name
        assert all(k.doc.startswith(f"docs/experiments/{name}.md#") for k in room.KNOWN), name
        # the body's names are the package's (the body reads NAME and PARTS from it)
        body = experiments.get(name)
        assert body.__name__ == f"{room.__name__}.experiment" and body.NAME == name
        assert getattr(body, "PARTS", None) == getattr(room, "PARTS", None)
        assert callable(room.run) and room.run is body.run  # old `experiments.X.run` still works


def test_judge_and_the_citations_read_the_registry() -> None:
    for name, room in rooms().items():
        assert claims.known_of(name) == list(room.KNOWN)
        assert claims.not_scored_of(name) == list(room.NOT_SCORED)
        assert papers.citation(name) == room.PAPER.citation
    assert claims.KNOWN == {n: list(r.KNOWN) for n, r in rooms().items()}  # the old tables, for old scripts
    assert papers.PAPERS == {n: r.PAPER for n, r in rooms().items()}
    assert claims.known_of("no-such-experiment") == []


def test_naming_the_experiments_imports_neither_numpy_nor_polars() -> None:
    code = ("import sys, json\nfrom dumbbell.experiments import EXPERIMENTS, PAPERS\n"
            "from dumbbell.experiments.registry import rooms\n"
            "n = sum(len(r.KNOWN) for r in rooms().values())\n"
            "print(json.dumps([list(EXPERIMENTS), n, 'numpy' in sys.modules, 'polars' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    names, accounts, numpy, polars = json.loads(out.stdout)
    assert names == list(experiments.EXPERIMENTS) and accounts > 0
    assert not numpy and not polars
