"""Linux congestion-control modules from their C source (``dumbbell.kmod``,
``docs/kernel-modules.md``): dumbbell's own small modules (``tests/kmod/``)
for the shim and the errors, and Linux 6.12's own files against the ports
when Debian's ``linux-source-6.12`` is installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import dumbbell as db
from dumbbell import kmod
from dumbbell.kmod_cli import port_config

from .helpers.authors_modules import SKIP_REASON, authors_modules_dir

HERE = Path(__file__).parent / "kmod"

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on this machine")


def scenario(cc, loss: float = 0.0, duration_s: float = 1.0) -> db.Scenario:
    return db.Scenario(
        name="kmod",
        duration_s=duration_s,
        seed=5,
        nodes=[db.Node(name="a"), db.Node(name="s", kind="switch"), db.Node(name="c")],
        links=[
            db.Link(a="a", b="s", rate_bps="1Gbps", delay_s=0.001),
            db.Link(a="s", b="c", rate_bps="50Mbps", delay_s=0.009, loss_ab=loss,
                    queue_ab=db.DropTail(limit_pkts=60)),
        ],
        flows=[db.TcpFlow(name="f", src="a", dst="c", cc=cc)],
        record=db.Record(cwnd_every_ack=True),
    )


def cwnd(result: db.Result) -> pl.Series:
    return result.table("cwnd")["cwnd_pkts"]


def test_a_fixed_window_module_holds_the_window_its_parameter_sets() -> None:
    for window in (17, 33):
        r = db.run(scenario(db.KernelModule(HERE / "fixed_window.c", params={"window": window})))
        w = cwnd(r)
        assert len(w) > 300
        assert w.unique().to_list() == [window]
        assert r.flows["cc"][0] == "kmod:fixed"


def test_the_rfc5681_reno_module_traces_the_builtin_renos_window_ack_by_ack() -> None:
    ours = db.run(scenario(db.KernelModule(HERE / "reno_rfc5681.c"), loss=0.01))
    builtin = db.run(scenario("reno", loss=0.01))
    a, b = cwnd(ours), cwnd(builtin)
    assert builtin.flows["retransmits"][0] > 5, "losses happen"
    assert a.n_unique() > 20, "the window moves"
    assert a.to_list() == b.to_list()
    assert ours.table("cwnd")["time_ps"].to_list() == builtin.table("cwnd")["time_ps"].to_list()


def test_every_shim_helper_answers_as_documented_and_its_reno_is_the_builtin() -> None:
    # The module traps (a crash) on any helper's wrong answer.
    ours = db.run(scenario(db.KernelModule(HERE / "every_helper.c", params={"checks": 1, "verbose": True}),
                           loss=0.01))
    assert cwnd(ours).to_list() == cwnd(db.run(scenario("reno", loss=0.01))).to_list()


def test_a_module_that_does_not_compile_is_one_error_with_file_and_line() -> None:
    with pytest.raises(db.ConfigError) as e:
        db.run(scenario(db.KernelModule(HERE / "does_not_compile.c")))
    assert e.value.field == "flows[0].cc.module"
    assert "does_not_compile.c:9" in e.value.message and "expected ';'" in e.value.message


def test_a_symbol_the_shim_lacks_is_named() -> None:
    with pytest.raises(db.ConfigError) as e:
        db.run(scenario(db.KernelModule(HERE / "missing_symbol.c")))
    assert "`tcp_imaginary_helper`" in e.value.message
    assert "shim does not provide" in e.value.message


def test_an_unknown_parameter_lists_the_modules_parameters() -> None:
    with pytest.raises(db.ConfigError) as e:
        db.run(scenario(db.KernelModule(HERE / "every_helper.c", params={"chekcs": 1})))
    assert e.value.field == "flows[0].cc.params"
    assert '"chekcs"' in e.value.message and "checks, verbose" in e.value.message
    with pytest.raises(db.ConfigError) as bad:
        db.run(scenario(db.KernelModule(HERE / "fixed_window.c", params={"window": -4})))
    assert bad.value.field == "flows[0].cc.params"


def test_a_missing_file_is_named() -> None:
    with pytest.raises(db.ConfigError) as e:
        db.run(scenario(db.KernelModule(HERE / "no_such_module.c")))
    assert e.value.field == "flows[0].cc.module"


def test_a_crashing_module_is_one_simulation_error_and_the_interpreter_lives() -> None:
    with pytest.raises(db.SimulationError) as e:
        db.run(scenario(db.KernelModule(HERE / "crashes.c", params={"crash_after": 40})))
    msg = str(e.value)
    assert "crashes.c" in msg and "cong_avoid" in msg and "SIGFPE" in msg
    assert "simulated time 0." in msg
    crash = e.value
    assert isinstance(crash, db.ModuleCrash)
    assert (crash.hook, crash.signal) == ("cong_avoid", "SIGFPE") and 0 < crash.time_s < 1
    # the interpreter goes on: the next run works
    assert len(cwnd(db.run(scenario(db.KernelModule(HERE / "fixed_window.c"))))) > 300


def test_a_module_is_written_to_and_read_from_toml(tmp_path: Path) -> None:
    s = scenario(db.KernelModule(HERE / "fixed_window.c", params={"window": 12}, hz=1000))
    text = s.to_toml()
    assert "module = " in text and "kind" not in text.split("[flows.cc]")[1].split("[")[0]
    path = tmp_path / "s.toml"
    path.write_text(text)
    back = db.Scenario.from_toml(path)
    cc = back.flows[0].cc
    assert isinstance(cc, kmod.KernelModuleCc) and cc.params == {"window": 12} and cc.hz == 1000
    assert cwnd(db.run(back)).unique().to_list() == [12]


def test_module_statics_are_per_host() -> None:
    # crashes.c counts cong_avoid calls in a static and crashes at crash_after:
    # two flows from two hosts, each under the limit alone, together over it,
    # survive only if each host has its own kernel.
    base = scenario(db.KernelModule(HERE / "crashes.c", params={"crash_after": 10**9}), duration_s=0.5)
    one = db.run(base)
    calls = len(cwnd(one))  # cong_avoid runs at most once per ACK
    limit = int(calls * 0.75)
    cc = db.KernelModule(HERE / "crashes.c", params={"crash_after": limit})
    s = db.Scenario(
        name="hosts", duration_s=0.5, seed=5,
        nodes=[db.Node(name="a"), db.Node(name="b"), db.Node(name="s", kind="switch"), db.Node(name="c")],
        links=[db.Link(a="a", b="s", rate_bps="1Gbps", delay_s=0.001),
               db.Link(a="b", b="s", rate_bps="1Gbps", delay_s=0.001),
               db.Link(a="s", b="c", rate_bps="100Mbps", delay_s=0.009, queue_ab=db.DropTail(limit_pkts=120))],
        flows=[db.TcpFlow(name="f0", src="a", dst="c", cc=cc), db.TcpFlow(name="f1", src="b", dst="c", cc=cc)],
        record=db.Record(cwnd_every_ack=True),
    )
    r = db.run(s)  # would crash if the two hosts shared the counter
    assert r.flows["bytes_delivered"].min() > 0
    same_host = s.model_copy(deep=True)
    same_host.flows[1].src = "a"
    with pytest.raises(db.SimulationError, match="crashes.c"):
        db.run(same_host)


def test_the_cli_says_a_modules_crash_is_the_modules(tmp_path: Path) -> None:
    path = tmp_path / "crash.toml"
    path.write_text(scenario(db.KernelModule(HERE / "crashes.c", params={"crash_after": 30})).to_toml())
    out = subprocess.run([sys.executable, "-m", "dumbbell", "run", str(path)], capture_output=True, text=True,
                         check=False)
    assert out.returncode == 1
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("dumbbell: error: kernel module crashes.c") and "bug report" not in last, last


def test_the_cli_compares_a_module_with_a_port(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "dumbbell", "module", "compare", str(HERE / "reno_rfc5681.c"), "--as", "reno",
           "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["as"] == "reno" and len(doc["scenarios"]) == 7
    assert all(s["first_difference"] is None and s["acks"] > 0 for s in doc["scenarios"])
    cmd[5:7] = [str(HERE / "fixed_window.c"), "--as"]
    diff = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert diff.returncode == 1, diff.stderr
    first = json.loads(diff.stdout)["scenarios"][0]["first_difference"]
    assert first["field"] in ("cwnd", "returned") and first["port"] != first["module"]


# ------------------------------------------------- Linux 6.12's own files

KERNEL, WHY = kmod.kernel_sources("6.12")
needs_kernel = pytest.mark.skipif(KERNEL is None, reason=WHY or "no kernel sources")


@needs_kernel
@pytest.mark.parametrize(
    "file, port, hz",
    [
        ("tcp_vegas.c", {"kind": "vegas"}, 250),
        ("tcp_dctcp.c", {"kind": "dctcp"}, 250),
        ("tcp_highspeed.c", {"kind": "highspeed", "mode": "linux_table"}, 250),
        ("tcp_cubic.c", {"kind": "cubic"}, 250),
        ("tcp_cubic.c", {"kind": "cubic", "hz": 1000}, 1000),
        ("tcp_bbr.c", {"kind": "bbr"}, 250),
    ],
)
def test_linux_612_modules_are_identical_to_their_ports(file: str, port: dict, hz: int) -> None:
    assert KERNEL is not None
    report = kmod.compare(KERNEL / file, port, hz=hz)
    for s in report["scenarios"]:
        assert s["first_difference"] is None, (s["name"], s["first_difference"])
        assert s["acks"] > 500, s


@needs_kernel
def test_cubics_clock_is_the_kernels_jiffies() -> None:
    # Cubic's curve runs on jiffies: a 1000 Hz kernel's module differs from
    # the port at its default 250 Hz (Debian's) once the curve matters.
    assert KERNEL is not None
    report = kmod.compare(KERNEL / "tcp_cubic.c", {"kind": "cubic"}, hz=1000)
    by_name = {s["name"]: s for s in report["scenarios"]}
    d = by_name["random-loss-1pct"]["first_difference"]
    assert d is not None and d["hook"] in ("cong_avoid", "pkts_acked"), d
    # the private state (cnt, W_max, K, ...) is compared too: the first
    # difference is in it, before any window differs
    assert d["field"] in ("cnt", "w_max", "k_s", "origin_point", "w_est", "delay_min_us", "hystart_found"), d


# ------------------------------------- lossy-cc: Madeira and Mattos's modules

AUTHORS = authors_modules_dir()
needs_authors = pytest.mark.skipif(AUTHORS is None or not (AUTHORS / "linha01.c").is_file(), reason=SKIP_REASON)


@needs_authors
@pytest.mark.parametrize("file, kind", [("linha01.c", "linear"), ("frac01.c", "fractional"),
                                        ("expolin01.c", "expolinear")])
def test_the_authors_modules_load_unmodified_and_match_their_ports(file: str, kind: str) -> None:
    assert AUTHORS is not None
    port = {"kind": kind} if kind == "fractional" else {"kind": kind, "module_hook": True}
    report = kmod.compare(AUTHORS / file, port, linux_version="6.1")
    identical = [s for s in report["scenarios"] if s["first_difference"] is None]
    assert len(identical) >= 4, report
    for s in report["scenarios"]:
        d = s["first_difference"]
        if d is None:
            continue
        # docs/kernel-modules.md: only windows past 2^31 - 1 (the port's clamp)
        # or past 2^32 / 5 (the module's 32-bit `cwnd * 5`) differ
        assert d["hook"] == "cong_control" and d["field"] == "cwnd", (s["name"], d)
        assert int(d["port"]) == 2**31 - 1 or int(d["module"]) > 2**32 // 5 - 2**26, (s["name"], d)


def test_in_a_sweep_only_the_crashing_run_is_lost() -> None:
    s = scenario(db.KernelModule(HERE / "crashes.c", params={"crash_after": 10**6}), duration_s=0.5)
    res = db.sweep(s, grid={"flows[0].cc.params.crash_after": [30, 10**6]}, store=False, workers=2)
    (failed,) = res.failed
    assert failed.labels["point"] == {"flows[0].cc.params.crash_after": 30}
    assert failed.error.startswith("ModuleCrash: kernel module crashes.c") and "cong_avoid" in failed.error
    ok = [r for r in res.records if r.ok]
    assert len(ok) == 1 and ok[0].labels["point"] == {"flows[0].cc.params.crash_after": 10**6}


@needs_kernel
def test_the_kernels_own_tcp_cong_helpers_replace_the_shims_and_match_reno(tmp_path: Path) -> None:
    # tcp_cong.c is not a module: its helpers and Reno are taken from the
    # user's file into a scratch module that overrides the shim's (weak) ones.
    assert KERNEL is not None
    reno = kmod.cong_provider(KERNEL / "tcp_cong.c", tmp_path / "kernel_reno.c")
    report = kmod.compare(reno, {"kind": "reno"})
    for s in report["scenarios"]:
        assert s["first_difference"] is None and s["acks"] > 500, s
    # the kernel's functions are the ones that run: altering one changes the result
    altered = tmp_path / "kernel_reno_altered.c"
    altered.write_text(reno.read_text().replace("tcp_snd_cwnd(tp) >> 1U", "tcp_snd_cwnd(tp) >> 2U"))
    first = kmod.compare(altered, {"kind": "reno"})["scenarios"][0]["first_difference"]
    assert first is not None and first["hook"] == "ssthresh" and first["field"] == "returned", first


# ------------------------------------------------ BBRv3 (google/bbr, v3)


def test_the_skb_marked_lost_hook_gets_each_lost_segments_send_snapshot() -> None:
    # marked_lost.c traps on a wrong snapshot (one packet, in flight >= 1,
    # counted in tp->lost since it left), and at its `stop_after`-th call.
    ok = db.run(scenario(db.KernelModule(HERE / "marked_lost.c"), loss=0.01))
    assert ok.flows["retransmits"][0] > 5
    assert cwnd(ok).to_list() == cwnd(db.run(scenario("reno", loss=0.01))).to_list()
    with pytest.raises(db.ModuleCrash) as e:
        db.run(scenario(db.KernelModule(HERE / "marked_lost.c", params={"stop_after": 3}), loss=0.01))
    assert e.value.hook == "skb_marked_lost" and e.value.signal == "SIGFPE"


def _tso_run(params: dict) -> db.Result:
    """tso_hooks.c paced at 50 Mb/s with TSO-sized bursts on, its NIC traced."""
    s = scenario(db.KernelModule(HERE / "tso_hooks.c", params=params), duration_s=0.6)
    s.flows[0].tcp = db.TcpOptions(gso_max_bytes=65536, max_rate_bps=50e6)
    s.record.cwnd_every_ack = False
    s.record.packets.append(db.PacketRecord(node="a", peer="s"))
    return db.run(s)


def _skb_segments(r: db.Result, from_s: float) -> list[int]:
    """Data segments the NIC received at one instant, per instant, after ``from_s``."""
    p = r.table("packets").filter((pl.col("event") == "enqueue") & (pl.col("size_bytes") > 40)
                                  & (pl.col("time_ps") >= int(from_s * 1e12)))
    return p.group_by("time_ps").len()["len"].to_list()


def test_a_modules_tso_segs_sizes_its_skbs_and_a_crash_in_it_is_named() -> None:
    # the autosize at 50 Mb/s is 4 segments; the module's hook asks for 7
    assert set(_skb_segments(_tso_run({}), 0.3)) == {4}
    assert set(_skb_segments(_tso_run({"segs": 7}), 0.3)) == {7}
    # the hook traps when the stack hands it another sk_gso_max_size
    with pytest.raises(db.ModuleCrash) as e:
        _tso_run({"segs": 7, "gso": 32768})
    assert e.value.hook == "tso_segs" and e.value.signal in ("SIGILL", "SIGTRAP"), e.value


def test_the_cli_compares_a_module_with_bbr3() -> None:
    cmd = [sys.executable, "-m", "dumbbell", "module", "compare", str(HERE / "fixed_window.c"), "--as", "bbr3",
           "--as-params", '{"beta": 0.5}', "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert out.returncode == 1, out.stderr
    doc = json.loads(out.stdout)
    assert doc["as"] == "bbr3" and len(doc["scenarios"]) == 7
    assert all(s["first_difference"] is not None for s in doc["scenarios"])
    assert port_config("bbr3", {"beta": 0.5}) == {"kind": "registered", "name": "bbr3",
                                                        "params": {"beta": 0.5}}
    assert port_config("cubic", {"hz": 1000}) == {"kind": "cubic", "hz": 1000}


BBR3, WHY3 = kmod.bbr3_source()
needs_bbr3 = pytest.mark.skipif(BBR3 is None, reason=WHY3 or "no BBRv3 source")


@needs_bbr3
def test_google_bbr3_module_is_identical_to_the_bbr3_port() -> None:
    # docs/kernel-modules.md: google/bbr v3's tcp_bbr.c loads unmodified and
    # the port follows it call for call in every scenario
    assert BBR3 is not None
    report = kmod.compare(BBR3, port_config("bbr3"))
    assert report["as"] == "bbr3"
    for s in report["scenarios"]:
        assert s["first_difference"] is None, (s["name"], s["first_difference"])
        assert s["acks"] > 500, s


@needs_bbr3
def test_bbr3s_loss_threshold_is_the_modules(tmp_path: Path) -> None:
    # the comparison sees v3's 2 % loss threshold: the module at 5 % differs,
    # first in inflight_hi as a lost segment sets it (its private state)
    assert BBR3 is not None
    altered = tmp_path / "tcp_bbr.c"
    text = BBR3.read_text()
    assert text.count("BBR_UNIT * 2 / 100") == 1
    altered.write_text(text.replace("BBR_UNIT * 2 / 100", "BBR_UNIT * 5 / 100"))
    report = kmod.compare(altered, port_config("bbr3"))
    firsts = [s["first_difference"] for s in report["scenarios"] if s["first_difference"] is not None]
    assert any(d["field"] == "inflight_hi" and d["hook"] == "skb_marked_lost" for d in firsts), report
    same = kmod.compare(altered, port_config("bbr3", {"loss_thresh": 12 / 256}))  # 256·5/100, floored
    assert all(s["first_difference"] is None for s in same["scenarios"]), same
