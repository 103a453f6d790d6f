"""The package's rooms (scenario, run, sweep, experiments) and the old import
paths that lead into them: a user's script written before the move keeps
running, and reaches the very module (private names and monkeypatching
included), not a copy."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import dumbbell as db
from dumbbell._rooms import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_module_path_is_the_module_in_its_room(old: str) -> None:
    before = importlib.import_module(f"dumbbell.{old}")
    now = importlib.import_module(f"dumbbell.{MOVED[old]}")
    assert before is now
    assert now.__spec__.name == f"dumbbell.{MOVED[old]}"  # the alias does not rename the module
    if "." not in old:  # a top-level name: `db.store`, `db.claims`, ... as before
        assert getattr(db, old) is now


def test_the_old_paths_work_in_a_fresh_interpreter() -> None:
    code = (
        "import json, dumbbell as db\n"
        "from dumbbell.store import Store, _json_safe\n"
        "from dumbbell.scenario import Scenario, QueueConfig\n"
        "from dumbbell.classes import Rafle\n"
        "from dumbbell.run import Result, run\n"
        "from dumbbell.sweep import using, sweep\n"
        "import dumbbell.claims as claims, dumbbell.sweep.store as store\n"
        "print(json.dumps([Store.__module__, Scenario.__module__, Rafle.__module__, Result.__module__,\n"
        "                  claims.__name__, type(db.run).__name__, callable(db.sweep), db.Scenario is Scenario]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [
        "dumbbell.sweep.store",
        "dumbbell.scenario.models",
        "dumbbell.scenario.twoclass",
        "dumbbell.run.result",
        "dumbbell.experiments.claims",
        "function",
        True,
        True,
    ]


def test_an_old_module_path_still_runs_with_python_m() -> None:
    # `python -m dumbbell.scenario_doc` (the docs' command before the move) runs dumbbell.scenario.doc
    out = subprocess.run([sys.executable, "-m", "dumbbell.scenario_doc"], capture_output=True, text=True, check=True)
    new = subprocess.run([sys.executable, "-m", "dumbbell.scenario.doc"], capture_output=True, text=True, check=True)
    assert out.stdout == new.stdout and out.stdout.startswith("# Scenario format")


def test_a_room_names_an_unknown_attribute() -> None:
    import dumbbell.scenario

    with pytest.raises(AttributeError, match="NoSuchModel"):
        dumbbell.scenario.NoSuchModel  # noqa: B018
