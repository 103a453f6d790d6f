"""lossy-cc with kernel modules in place of the Linear, Fractional and
Expolinear ports (``lossy_cc.run(module_dir=...)``, ``dumbbell reproduce
lossy-cc --module-dir DIR``): the machinery on dumbbell's own test module,
the authors' modules when ``$DUMBBELL_LOSSY_CC_MODULES`` names them, and the
missing-file error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dumbbell.experiments.claims import claims_lines
from dumbbell.errors import ConfigError
from dumbbell.experiments import lossy_cc

from .helpers.authors_modules import SKIP_REASON, authors_modules_dir
from .test_cli import assert_bad_input

HERE = Path(__file__).parent / "kmod"
needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on this machine")

TINY = {"rounds": 1, "bandwidth": {"rates_bps": (1e9,), "duration_s": 0.2}}
"""One round of the bandwidth part at 1 Gb/s for 0.2 s: seconds, not minutes."""


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(lossy_cc.POINTS, "quick", {**lossy_cc.POINTS["quick"], **TINY})


def _run(module_dir: Path | None, controls: tuple[str, ...]):
    return lossy_cc.run("quick", seed=3, parts=("bandwidth",), controls=controls, workers=1, module_dir=module_dir)


@needs_cc
def test_modules_replace_the_three_proposals_and_are_judged_like_the_ports(tiny: None, tmp_path: Path) -> None:
    # dumbbell's RFC 5681 Reno module (identical to the built-in reno ACK by
    # ACK, docs/kernel-modules.md) under the three authors' file names
    for name in lossy_cc.MODULE_FILES.values():
        shutil.copy(HERE / "reno_rfc5681.c", tmp_path / name)
    controls = ("reno", "cubic", "linear", "fractional", "expolinear")
    mods = _run(tmp_path, controls)
    ports = _run(None, controls)

    impl = dict(zip(mods.rows["cc"], mods.rows["impl"]))
    assert impl == {"reno": "port", "cubic": "port", "linear": "module", "fractional": "module",
                    "expolinear": "module"}
    assert set(ports.rows["impl"]) == {"port"}
    good = dict(zip(mods.rows["cc"], mods.rows["goodput_bps"]))
    # each "proposal" ran the Reno module: the built-in Reno's goodput, to the bit
    for cc in lossy_cc.MODULE_FILES:
        assert good[cc] == good["reno"], (cc, good)
    # and not the port it replaced (Linear's cubic slow start is not Reno's)
    port_good = dict(zip(ports.rows["cc"], ports.rows["goodput_bps"]))
    assert port_good["linear"] != good["linear"]
    assert port_good["reno"] == good["reno"] and port_good["cubic"] == good["cubic"]
    assert 0 < min(good.values()) and max(good.values()) <= 1e9

    # the claims take the module rows as they take the ports'
    claim = mods.paper.filter(mods.paper["part"] == "bandwidth").row(0, named=True)
    assert claim["ours"] == pytest.approx(min(good.values()) / 1e9)
    assert any("bandwidth" in line for line in claims_lines(mods.paper, experiment=lossy_cc.NAME))
    assert mods.params["modules"] == lossy_cc.MODULE_FILES
    assert "from the authors' module linha01.c" in lossy_cc.report(mods)
    assert "modules" not in ports.params and "dumbbell's ports" in lossy_cc.report(ports)


AUTHORS = authors_modules_dir()


@needs_cc
@pytest.mark.skipif(
    AUTHORS is None or not all((AUTHORS / f).is_file() for f in lossy_cc.MODULE_FILES.values()),
    reason=SKIP_REASON,
)
def test_lossy_cc_runs_the_authors_modules_as_the_ports_with_the_modules_ssthresh_hook(
        tiny: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/kernel-modules.md: the modules' ssthresh hook enters recovery
    # itself (the ports' module_hook); below 2^31 - 1 packets (2^32 / 5 for
    # frac01.c) nothing else differs
    assert AUTHORS is not None
    controls = ("cubic", *lossy_cc.MODULE_FILES)
    mods = _run(AUTHORS, controls)
    paper = _run(None, controls)
    for cc in ("linear", "expolinear"):
        monkeypatch.setitem(lossy_cc.CC, cc, {**lossy_cc.CC[cc], "module_hook": True})
    hook = _run(None, controls)
    assert dict(zip(mods.rows["cc"], mods.rows["impl"])) == {"cubic": "port", "linear": "module",
                                                             "fractional": "module", "expolinear": "module"}
    good = dict(zip(mods.rows["cc"], mods.rows["goodput_bps"]))
    assert good == dict(zip(hook.rows["cc"], hook.rows["goodput_bps"]))
    assert 0 < min(good.values()) and max(good.values()) <= 1e9
    # the hook collapses Expolinear's window at its first loss: a fraction of
    # what the paper's equations get on the same link
    paper_good = dict(zip(paper.rows["cc"], paper.rows["goodput_bps"]))
    assert good["expolinear"] < 0.5 * paper_good["expolinear"]
    assert good["fractional"] == paper_good["fractional"]
    # and the bandwidth claim's difference has its account (the hook), not
    # "not yet traced"; the ports' run is not given that account
    claim = mods.paper.filter(mods.paper["part"] == "bandwidth").row(0, named=True)
    assert claim["impl"] == "module" and paper.paper["impl"].null_count() == paper.paper.height
    line = next(x for x in claims_lines(mods.paper, experiment=lossy_cc.NAME) if "goodput / link rate" in x)
    assert "differs (paper)" in line and "ssthresh hook" in line and "not yet traced" not in line, line


def test_a_missing_module_is_one_error_naming_the_field_and_the_file(tmp_path: Path) -> None:
    for name in ("linha01.c", "expolin01.c"):
        (tmp_path / name).write_text("/* present */\n")
    with pytest.raises(ConfigError) as e:
        lossy_cc.run("quick", parts=("bandwidth",), module_dir=tmp_path)
    assert e.value.field == "module_dir"
    assert str(tmp_path / "frac01.c") in e.value.message
    assert "linha01.c," not in e.value.message.split(":")[0]


def test_the_cli_names_module_dir_and_the_missing_file_before_running(cli, tmp_path: Path) -> None:
    res = cli("reproduce", "lossy-cc", "--module-dir", str(tmp_path), "--out", str(tmp_path / "out"))
    assert_bad_input(res, "--module-dir", str(tmp_path / "linha01.c"), "frac01.c", "expolin01.c")
    assert not (tmp_path / "out").exists()
    assert_bad_input(cli("reproduce", "rafle", "--module-dir", str(tmp_path)), "--module-dir", "lossy-cc")


def test_the_authors_modules_directory_is_read_from_its_variable_then_the_former_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DUMBBELL_LOSSY_CC_MODULES", raising=False)
    monkeypatch.delenv("DUMBBELL_SEED001_MODULES", raising=False)
    assert authors_modules_dir() is None
    # an existing setup keeps working under the variable's former name
    monkeypatch.setenv("DUMBBELL_SEED001_MODULES", str(tmp_path / "old"))
    assert authors_modules_dir() == tmp_path / "old"
    monkeypatch.setenv("DUMBBELL_LOSSY_CC_MODULES", str(tmp_path / "new"))
    assert authors_modules_dir() == tmp_path / "new"
    assert "DUMBBELL_LOSSY_CC_MODULES" in SKIP_REASON and "SEED" not in SKIP_REASON
