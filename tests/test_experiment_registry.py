"""The experiments' registry (issue 28): each experiment is one package that
declares its paper, parts and accounts, found on disk; naming the experiments
imports neither numpy nor polars."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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


# ---------------------------------------------------------------- a new experiment: one package

TOY_INIT = '''"""``toy``: a made-up experiment, to show the registry finds one package."""
from dumbbell.experiments.known import Known, below
from dumbbell.experiments.papers import Paper

NAME = "toy"
PAPER = Paper(experiment="toy", label="E99", title="a toy", authors="A. Author", surnames="Author",
              paper_title="Toys", venue="nowhere, 2026", doc="docs/experiments/toy.md")
KNOWN = [Known({"metric": "m"}, cause="model", when=below(1.0), condition="ours below the paper's",
               reason="the toy is slow ({ours})", doc="docs/experiments/toy.md#slow")]
NOT_SCORED = [("the toy's abstract", "it names no number")]
'''

TOY_BODY = '''"""The toy's body: what `dumbbell reproduce toy` would call."""
import polars as pl

from dumbbell.experiments import ExperimentResult
from dumbbell.experiments.base import claims_section, head
from . import NAME


def run(scale="quick", seed=1, progress=None):
    rows = pl.DataFrame({"metric": ["m"], "value": [2.0]})
    paper = pl.DataFrame({"metric": ["m"], "relation": ["="], "value": [4.0], "ours": [2.0], "source": ["§1"]})
    return ExperimentResult(experiment=NAME, scale=scale, seed=seed, rows=rows, paper=paper)


def figures(result, out_dir):
    return []


def report(result):
    return "\\n".join([*head(result, "toys"), *claims_section(result)])
'''


def _toy_tree(tmp_path: Path, init: str = TOY_INIT, package: str = "toyexps") -> Path:
    home = tmp_path / package
    (home / "toy").mkdir(parents=True)
    (home / "__init__.py").write_text("")
    (home / "notes").mkdir()  # a directory that is no package: skipped
    (home / "toy" / "__init__.py").write_text(init)
    (home / "toy" / "experiment.py").write_text(TOY_BODY)
    return home


def test_a_new_experiment_package_is_discovered_and_judged(tmp_path, monkeypatch) -> None:
    from dumbbell.experiments import registry

    home = _toy_tree(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    found = registry.discover(home, "toyexps")
    assert list(found) == ["toy"] and found["toy"].PAPER.label == "E99"
    # registered beside the built-in experiments: judge, the citations, get() and `dumbbell list` read it
    monkeypatch.setattr(registry, "_rooms", {**rooms(), **found})
    body = experiments.get("toy")
    assert body.__name__ == "toyexps.toy.experiment"
    result = body.run()
    row = result.paper.row(0, named=True)
    assert (row["verdict"], row["cause"], row["doc"]) == ("differs", "model", "docs/experiments/toy.md#slow")
    assert "the toy is slow (2)" in row["reason"]
    text = body.report(result)
    assert text.splitlines()[0] == 'E99 toy, reproducing Author, "Toys"'
    assert "scale quick, run seed 1; toys" in text and "the toy's abstract -- it names no number" in text
    from dumbbell.listing import listing

    assert {"name": "toy", "about": 'E99: a toy; reproduces Author, "Toys"'} in listing()["experiments"]


def test_a_package_missing_a_declaration_is_an_error_naming_it(tmp_path, monkeypatch) -> None:
    from dumbbell.experiments import registry

    home = _toy_tree(tmp_path, TOY_INIT.replace("NOT_SCORED = ", "NOT_SCORED_ = "), "toyexps_missing")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match="toyexps_missing.toy does not declare NOT_SCORED"):
        registry.discover(home, "toyexps_missing")
