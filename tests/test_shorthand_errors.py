"""Errors in the ``hosts = [...]`` / ``switches = [...]`` shorthand name what
the user wrote (``switches[0]``), not the ``nodes`` list it expands to."""

from __future__ import annotations

import pytest

import dumbbell as db
from dumbbell.errors import ConfigError

from .conftest import run_cli

BASE = {"name": "x", "duration_s": 0.1}


@pytest.mark.parametrize(("hosts", "switches", "field", "words"), [
    (["a", "b"], [""], "switches[0]", "empty"),
    (["a", "b", "c"], ["s1", ""], "switches[1]", "empty"),
    (["a", ""], ["s1"], "hosts[1]", "empty"),
    (["a", 3], ["s1"], "hosts[1]", "string"),
    (["a", "b"], ["a"], "switches[0]", "duplicate node name 'a' (also hosts[0])"),
    (["a", "b", "a"], [], "hosts[2]", "duplicate node name 'a' (also hosts[0])"),
])
def test_shorthand_errors_name_hosts_or_switches(hosts, switches, field, words):
    with pytest.raises(ConfigError) as err:
        db.Scenario.from_dict({**BASE, "hosts": hosts, "switches": switches})
    assert err.value.field == field and words in err.value.message
    assert "nodes" not in str(err.value)


def test_a_shorthand_name_clashing_with_nodes_names_both():
    with pytest.raises(ConfigError) as err:
        db.Scenario.from_dict({**BASE, "nodes": [{"name": "s1", "kind": "switch"}], "hosts": ["a", "s1"]})
    assert err.value.field == "hosts[1]" and "also nodes[0]" in err.value.message


def test_the_command_line_names_switches_index(tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text('name = "x"\nduration_s = 0.1\nhosts = ["a", "b"]\nswitches = [""]\n'
                    '[[links]]\na = "a"\nb = "b"\nrate = "1Mbps"\ndelay = "1ms"\n')
    res = run_cli("run", str(toml))
    assert res.code == 2
    assert res.stderr.strip().splitlines() == [f"dumbbell: error: {toml}: switches[0]: a node name must not be empty"]
