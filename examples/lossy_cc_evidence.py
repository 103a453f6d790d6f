"""The traced runs behind docs/experiments/lossy-cc.md (E3 ``lossy-cc``).

Each section runs a few single simulations on E3's network
(``dumbbell.experiments.lossy_cc.scenario``) with the senders' internal
state recorded (``record.flow_sample_s`` and ``record.tcp_vars``) and prints
what the docs quote: goodput, loss-recovery counters (timeouts, loss probes,
recoveries, undos) and the control's own state (BBR's mode and long-term
bandwidth, Cubic's HyStart exit, Vegas's diff, the phase and window of the
paper's controls Linear, Fractional and Expolinear). Runs are deterministic: the same section prints the same
numbers on every machine with the same build.

    python examples/lossy_cc_evidence.py --list
    python examples/lossy_cc_evidence.py heavy-loss
    python examples/lossy_cc_evidence.py all
"""

from __future__ import annotations

import statistics
import sys

import polars as pl

import dumbbell as db
import evidence_sections  # beside this file
from dumbbell.experiments import lossy_cc as e3

SAMPLE_S = 0.1
BBR_MODES = {0: "STARTUP", 1: "DRAIN", 2: "PROBE_BW", 3: "PROBE_RTT"}
LOSS_PHASES = {0: "slow start", 1: "recovery", 2: "avoidance"}


def traced(s: db.Scenario, seed: int, sample_s: float = SAMPLE_S) -> db.Result:
    s.record = db.Record(flow_sample_s=sample_s, tcp_vars=True)
    return db.run(s, seed=seed)


def var(r: db.Result, flow: int, name: str) -> list[float]:
    v = r.tables["cc_vars"]
    return v.filter((pl.col("flow") == flow) & (pl.col("var") == name)).sort("time_ps")["value"].to_list()


def cwnd(r: db.Result, flow: int) -> list[int]:
    f = r.tables["flow_samples"]
    return f.filter(pl.col("flow") == flow).sort("time_ps")["cwnd_pkts"].to_list()


def srtt_ms(r: db.Result, flow: int) -> list[float]:
    f = r.tables["flow_samples"]
    return [x / 1e9 for x in f.filter(pl.col("flow") == flow).sort("time_ps")["srtt_ps"].to_list() if x]


def counters(r: db.Result, flow: int) -> str:
    f = r.flows.row(flow, named=True)
    return (f"goodput {f['goodput_bps'] / 1e6:.1f} Mb/s, data sent {f['data_pkts_sent']}, retransmits "
            f"{f['retransmits']}, timeouts {f['timeouts']}, loss probes {f['loss_probes']}, recoveries "
            f"{f['recoveries']}, undos {f['undos']}, D-SACKs {f['dsack_dups']}")


def share(values: list[float], names: dict[int, str]) -> str:
    n = len(values) or 1
    parts = []
    for k, label in names.items():
        c = sum(1 for v in values if int(v) == k)
        if c:
            parts.append(f"{label} {100 * c / n:.0f} %")
    return ", ".join(parts)


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def bottleneck(r: db.Result) -> str:
    q = r.tables["queues"].filter((pl.col("node") == "r") & (pl.col("peer") == "srv")).row(0, named=True)
    return (f"router→server port: netem loss {q['drops_link_loss']}, overflow (queue or netem limit) "
            f"{q['drops_overflow']}, most queued {q['max_pkts']} packets")


# ---------------------------------------------------------------- sections


def module_hook() -> None:
    """Expolinear with the authors' ssthresh hook (module_hook) and with the
    paper's equations, clean 1 Gb/s link, 20 s, seed 1."""
    for add_ms in (0, 20, 100):
        for hook in (False, True):
            s = e3.network(1e9, rtt_add_s=add_ms / 1e3, duration_s=20.0)
            s.add_flow(db.TcpFlow(name="a", src="a", dst="srv", cc=db.Expolinear(module_hook=hook), tcp=e3._tcp()))
            r = traced(s.validated(), seed=1)
            w = cwnd(r, 0)
            print(f"  +{add_ms} ms, module_hook={hook}: {counters(r, 0)}; cwnd median over the run "
                  f"{med(w):.0f}, last 10 s {med(w[len(w) // 2:]):.0f} packets")


def adaptive() -> None:
    """The adaptive Linear's reduction R on the loss part's network (10 Gb/s),
    counted over the current window (the paper's eq. 3, the default), over
    two rounds and per loss-reporting ACK, 5 s, seed 1."""
    for loss in (0.01, 0.05, 0.20):
        for count in ("window", "round", "ack"):
            r, n, g = e3.adaptive_reduction(loss, count, duration_s=5.0)
            print(f"  loss {loss:.0%}, count per {count}: mean R {r:.1f} % over {n} reductions, goodput {g / 1e6:.1f} Mb/s")


def _single(cc: str, rate: float, rtt_ms: float, loss: float, dur: float, seed: int) -> db.Result:
    return traced(e3.scenario(cc, rate, rtt_add_s=rtt_ms / 1e3, loss=loss, duration_s=dur), seed=seed)


def _describe(cc: str, r: db.Result) -> None:
    print(f"    {counters(r, 0)}")
    w = cwnd(r, 0)
    print(f"    cwnd median {med(w):.0f}, max {max(w) if w else 0} packets; srtt median {med(srtt_ms(r, 0)):.1f} ms")
    if cc == "bbr":
        modes = var(r, 0, "mode")
        lt = var(r, 0, "lt_use_bw")
        bw = var(r, 0, "bw_bps")
        print(f"    BBR mode: {share(modes, BBR_MODES)}; long-term (policed) bandwidth in use "
              f"{100 * sum(lt) / max(len(lt), 1):.0f} % of samples; bw estimate median {med(bw) / 1e6:.1f} Mb/s")
    elif cc in ("expolinear", "linear", "fractional") or cc.startswith("linear"):
        ph = var(r, 0, "phase")
        print(f"    phase: {share(ph, LOSS_PHASES)}")
    elif cc == "cubic":
        print(f"    HyStart exit found: {var(r, 0, 'hystart_found')[-1:]}, w_max last {var(r, 0, 'w_max')[-1:]}")
    print(f"    {bottleneck(r)}")


def heavy_loss() -> None:
    """Figure 5a's 20 % point (1 Gb/s, 20 ms added) and Figure 3b's (10 Gb/s,
    no delay): BBR, Expolinear, Linear, 50 s and 20 s, seeds 1 and 2."""
    for rate, rtt, dur in ((1e9, 20, 50.0), (10e9, 0, 20.0)):
        for cc in ("bbr", "expolinear", "linear"):
            for seed in (1, 2):
                print(f"  {rate / 1e9:g} Gb/s, +{rtt} ms, 20 % loss, {cc}, {dur:g} s, seed {seed}:")
                _describe(cc, _single(cc, rate, rtt, 0.20, dur, seed))


def bbr_100ms() -> None:
    """Figure 5b's 5 and 10 % points (1 Gb/s, 100 ms added): BBR and
    Expolinear, 50 s, seed 1, with their state."""
    for loss in (0.05, 0.10):
        for cc in ("bbr", "expolinear", "linear"):
            print(f"  1 Gb/s, +100 ms, {loss:.0%} loss, {cc}, 50 s, seed 1:")
            _describe(cc, _single(cc, 1e9, 100, loss, 50.0, 1))


def collapse() -> None:
    """Figure 3b's 3, 5 and 10 % points (10 Gb/s): the final controls, 10 s,
    seed 1, with their RTOs and median window."""
    for loss in (0.03, 0.05, 0.10):
        for cc in e3.FINAL:
            r = _single(cc, 10e9, 0, loss, 10.0, 1)
            f = r.flows.row(0, named=True)
            print(f"  {loss:.0%} {cc}: goodput {f['goodput_bps'] / 1e6:.1f} Mb/s, timeouts {f['timeouts']}, "
                  f"recoveries {f['recoveries']}, cwnd median {med(cwnd(r, 0)):.0f}")


def fractional_modes() -> None:
    """Fractional at Figure 5b's 1 and 3 % points (1 Gb/s, 100 ms added),
    50 s, seed 1: the state behind its two outcomes."""
    for loss in (0.01, 0.03):
        print(f"  1 Gb/s, +100 ms, {loss:.0%} loss, fractional, 50 s, seed 1:")
        r = _single("fractional", 1e9, 100, loss, 50.0, 1)
        _describe("fractional", r)
        w = cwnd(r, 0)
        print(f"    cwnd at 1, 2, 5, 10, 20, 50 s: {[w[min(len(w) - 1, int(t / SAMPLE_S) - 1)] for t in (1, 2, 5, 10, 20, 50)]}")


def delay() -> None:
    """Figure 4b's ends (5 and 500 ms added, 1 Gb/s, no loss): every final
    control, 20 s, seed 1, with netem's 1000-packet limit (the experiment's)
    and without it."""
    for limit in (e3.NETEM_LIMIT_PKTS, None):
        for add_ms in (5, 500):
            for cc in e3.FINAL:
                s = e3.network(1e9, rtt_add_s=add_ms / 1e3, duration_s=20.0, netem_limit_pkts=limit)
                s.add_flow(db.TcpFlow(name="a", src="a", dst="srv", cc=e3.CC[cc], tcp=e3._tcp()))
                r = traced(s.validated(), seed=1)
                f = r.flows.row(0, named=True)
                w = cwnd(r, 0)
                print(f"  limit {limit}, +{add_ms} ms, {cc}: goodput {f['goodput_bps'] / 1e6:.1f} Mb/s, timeouts "
                      f"{f['timeouts']}, retransmits {f['retransmits']}, cwnd max {max(w)} median {med(w):.0f}; "
                      f"{bottleneck(r)}")


def cordiality() -> None:
    """Table 2's column Expolinear (a) against each row (b), 1 Gb/s, 20 s,
    seed 1, in both setups, and Fractional against Reno on drop-tail: per
    flow goodput, window and RTT, and the row control's own state."""
    pairs = [(setup, "expolinear", row) for setup in e3.SETUPS
             for row in ("bbr", "cubic", "reno", "vegas", "expolinear")]
    pairs.append(("droptail", "fractional", "reno"))
    for setup, col, row in pairs:
        s = e3.scenario(col, 1e9, duration_s=20.0, cc_b=row, setup=setup)
        r = traced(s, seed=1)
        ga, gb = (r.flows.row(i, named=True)["goodput_bps"] for i in (0, 1))
        print(f"  {setup}, a = {col}, b = {row}: x = {ga / gb:.2f} ({ga / 1e6:.1f} / {gb / 1e6:.1f} Mb/s)")
        for i, cc in ((0, col), (1, row)):
            w = cwnd(r, i)
            f = r.flows.row(i, named=True)
            extra = ""
            if cc == "bbr":
                mr = var(r, i, "min_rtt_s")
                at = {t: mr[min(len(mr) - 1, int(t / SAMPLE_S) - 1)] * 1e3 for t in (1, 5, 10, 15, 20)}
                extra = (f"; mode {share(var(r, i, 'mode'), BBR_MODES)}; bw estimate median "
                         f"{med(var(r, i, 'bw_bps')) / 1e6:.1f} Mb/s; min_rtt at "
                         + ", ".join(f"{t} s {v:.2f} ms" for t, v in at.items()))
            elif cc == "cubic":
                extra = f"; HyStart exit {var(r, i, 'hystart_found')[-1:]}, first w_max {var(r, i, 'w_max')[:1]}"
            elif cc == "vegas":
                extra = f"; diff median {med(var(r, i, 'diff_pkts')):.1f} packets"
            print(f"    {cc}: cwnd median {med(w):.0f} max {max(w) if w else 0}, srtt median "
                  f"{med(srtt_ms(r, i)):.1f} ms, retransmits {f['retransmits']}, recoveries {f['recoveries']}{extra}")
        print(f"    {bottleneck(r)}")


# The paper-scale rounds that escaped their point's bulk (the loss part,
# 10 Gb/s, 100 s; seeds from the results store of the paper-scale run).
ESCAPES = (
    ("linear", 0.03, 1625019846623529754, "rep 7, 1560.6 Mb/s; its other nine rounds 321-338"),
    ("linear", 0.10, 7850871340262908861, "rep 2, 2189.8 Mb/s; six rounds at 47-57"),
    ("linear", 0.10, 12907212625577219595, "rep 0, 50.5 Mb/s, a slow round"),
    ("fractional", 0.10, 8613651761938430528, "rep 9, 82.5 Mb/s; the other nine at 8.3-8.7 Gb/s"),
)
WRAP = 2**32


def shut_gates(r: db.Result, min_s: float = 2.0) -> list[tuple[float, float, float, float]]:
    """Spans of at least ``min_s`` in which the control stayed in recovery
    with the same recovery point while data flowed: start and end (s),
    median cwnd, and how far the next reduction's point lay beyond this
    one, in units of 2^32 bytes (nan if none came before the end). Spans
    that a reduction ends within 2^31 bytes (an RTO's silence, no ACKs)
    are left out: a gate shut by a wrap opens only 2^32 bytes later."""
    fs = r.tables["flow_samples"].filter(pl.col("flow") == 0).sort("time_ps")
    t = fs["time_s"].to_list()
    w = fs["cwnd_pkts"].to_list()
    rp, ph = var(r, 0, "recovery_point"), var(r, 0, "phase")
    spans, i = [], 0
    while i < len(rp):
        j = i
        while j + 1 < len(rp) and rp[j + 1] == rp[i] and ph[j + 1] == 1:
            j += 1
        if ph[i] == 1 and t[j] - t[i] >= min_s:
            jump = (rp[j + 1] - rp[i]) / WRAP if j + 1 < len(rp) else float("nan")
            if not jump < 0.5:
                spans.append((t[i], t[j], med(w[i:j + 1]), jump))
        i = j + 1
    return spans


def escapes() -> None:
    """The paper-scale loss-part rounds that escaped their point's bulk
    (10 Gb/s, 100 s, their stored seeds), with the reduction gate's state:
    as the build runs them, and with the gate's sequence numbers forced to
    32 bits (wrap_seq) or to 64 bits."""
    for cc, loss, seed, what in ESCAPES:
        print(f"  {cc}, {loss:.0%} loss, seed {seed} ({what}):")
        base = e3.scenario(cc, 10e9, loss=loss, duration_s=100.0)
        variants = [("default", {})]
        if cc == "linear":
            variants += [("wrap_seq=True", {"wrap_seq": True}), ("module_hook=True", {"module_hook": True})]
        for label, update in variants:
            s = base.model_copy(deep=True)
            s.flows[0].cc = s.flows[0].cc.model_copy(update=update)
            r = traced(s.validated(), seed, sample_s=0.05)
            f = r.flows.row(0, named=True)
            print(f"    {label}: goodput {f['goodput_bps'] / 1e6:.1f} Mb/s, timeouts {f['timeouts']}")
            for a, b, w, jump in shut_gates(r):
                nxt = "none before the end" if jump != jump else f"{jump:.4f} x 2^32 bytes later"
                print(f"      gate shut {a:.2f}-{b:.2f} s at cwnd {w:.0f} packets; next reduction {nxt}")
            if cc == "fractional":
                d = var(r, 0, "delta_pkts")
                rto = r.tables["cc_vars"].filter((pl.col("var") == "tcp.timeouts") & (pl.col("value") >= 1)).sort("time_ps")
                print(f"      delta_r (packets) in the last sample {d[-1]:.0f}; first RTO by "
                      f"{rto['time_s'][0]:.2f} s; cwnd at 10 s and 50 s: {cwnd(r, 0)[199]}, {cwnd(r, 0)[999]}")
        if cc == "fractional":
            s = e3.scenario(cc, 10e9, loss=loss, duration_s=5.0)
            s.flows[0].cc = s.flows[0].cc.model_copy(update={"wrap_seq": False})
            f = db.run(s.validated(), seed=seed).flows.row(0, named=True)
            print(f"    wrap_seq=False, first 5 s: goodput {f['goodput_bps'] / 1e6:.1f} Mb/s (default, first 5 s: "
                  f"{db.run(e3.scenario(cc, 10e9, loss=loss, duration_s=5.0), seed=seed).flows['goodput_bps'][0] / 1e6:.1f})")


RWND_PKTS = e3.RWND_BYTES // e3.MSS_BYTES


def _paper_rounds(rtt_ms: int, loss: float) -> list:
    """The paper-scale run's ten rounds (seed 1) of Expolinear's loss-rtt
    point ``(rtt_ms, loss)``, as ``dumbbell reproduce lossy-cc --scale paper``
    builds them: jobs whose ``seed`` is the round's stored seed."""
    return [j for j in e3._jobs("paper", 1, ("loss-rtt",), ("expolinear",)) if j.key[2] == (rtt_ms, loss)]


def _above_rwnd(r: db.Result) -> tuple[float, float, float, float]:
    """From 10 ms samples: the window before the first reduction (the
    largest threshold of the run), when that reduction came (s), the last
    time cwnd was above the receive window (s), and goodput (Mb/s) before
    and after that time."""
    fs = r.tables["flow_samples"].filter(pl.col("flow") == 0).sort("time_ps")
    t, w, d = fs["time_s"].to_list(), fs["cwnd_pkts"].to_list(), fs["delivered_bytes"].to_list()
    thr = var(r, 0, "threshold_pkts")
    first = next(t[i] for i, x in enumerate(thr) if x != thr[0])
    i = max((k for k, x in enumerate(w) if x > RWND_PKTS), default=0)
    end = t[-1]
    before = d[i] * 8 / t[i] / 1e6 if t[i] else float("nan")
    after = (d[-1] - d[i]) * 8 / (end - t[i]) / 1e6 if end > t[i] else float("nan")
    return max(thr), first, t[i], before, after


def _reductions(r: db.Result) -> pl.DataFrame:
    """Every reduction of the run (cwnd_every_ack): its time, the window
    it cut (the new threshold), the gap since the previous one (ms), and
    how far ``snd_nxt`` (the recovery point it set) was beyond the
    receiver's in-order edge ``rcv_nxt``, in receive windows (1.0: the
    sender stood at the receive window's edge)."""
    c = r.tables["cwnd"].filter(pl.col("flow") == 0).select("time_ps", "time_s", "delivered_bytes", "cwnd_pkts")
    v = (r.tables["cc_vars"].filter((pl.col("flow") == 0) & pl.col("var").is_in(["base_pkts", "threshold_pkts",
                                                                                  "recovery_point"]))
         .pivot(on="var", index="time_ps", values="value", aggregate_function="last"))
    x = c.join(v, on="time_ps", how="left").sort("time_ps")
    return (x.filter(pl.col("threshold_pkts") != pl.col("threshold_pkts").shift(1))
            .with_columns(gap_ms=pl.col("time_s").diff() * 1e3,
                          edge=(pl.col("recovery_point") - pl.col("delivered_bytes")) / e3.RWND_BYTES))


def expolinear_rounds() -> None:
    """Expolinear's paper-scale loss-rtt rounds at 100 ms (1 Gb/s, 50 s,
    their stored seeds): for each round of the 10 % and 5 % points, the
    window before the first reduction, how long cwnd stayed above the
    receive window and the goodput on either side, and the same rounds with
    the modules' own ssthresh hook (module_hook); then round 5 (53.8 Mb/s)
    against round 1 (29.1 Mb/s) at 10 %, per ACK: reductions, where they
    found snd_nxt, and the window per 5 s."""
    for loss in (0.10, 0.05):
        print(f"  +100 ms, {loss:.0%} loss: round, goodput, window before the first reduction (at), cwnd above the "
              f"receive window ({RWND_PKTS} packets) until, goodput until then / after")
        for j in _paper_rounds(100, loss):
            s = j.scenario.model_copy(deep=True)
            r = traced(s.validated(), j.seed, sample_s=0.01)
            peak, first, until, before, after = _above_rwnd(r)
            g = r.flows["goodput_bps"][0] / 1e6
            print(f"    round {j.key[3]}: {g:.1f} Mb/s, window {peak:.3g} packets (at {first:.2f} s), above until "
                  f"{until:.2f} s, {before:.1f} / {after:.1f} Mb/s")
        hook = []
        for j in _paper_rounds(100, loss):
            s = j.scenario.model_copy(deep=True)
            s.flows[0].cc = s.flows[0].cc.model_copy(update={"module_hook": True})
            r = traced(s.validated(), j.seed, sample_s=0.01)
            w = cwnd(r, 0)
            hook.append(f"{r.flows['goodput_bps'][0] / 1e6:.1f} ({sum(x > RWND_PKTS for x in w) / 100:.1f} s)")
        print(f"    with the modules' ssthresh hook (module_hook=True), rounds 0-9: Mb/s (time with cwnd above the "
              f"receive window): {', '.join(hook)}")
    jobs = _paper_rounds(100, 0.10)
    for rep in (5, 1):
        j = jobs[rep]
        s = j.scenario.model_copy(deep=True)
        s.record = db.Record(cwnd_every_ack=True, drop_log=True)
        r = db.run(s.validated(), seed=j.seed)
        f = r.flows.row(0, named=True)
        print(f"  round {rep}, seed {j.seed}: goodput {f['goodput_bps'] / 1e6:.1f} Mb/s, retransmits "
              f"{f['retransmits']}, timeouts {f['timeouts']}, recoveries {f['recoveries']}")
        c = r.tables["cwnd"].filter(pl.col("flow") == 0).sort("time_ps")
        red = _reductions(r)
        fst = red.row(0, named=True)
        steps = (c.filter(pl.col("time_s") < fst["time_s"]).with_columns(step=pl.col("cwnd_pkts").diff())
                 .filter(pl.col("step") > 0).group_by("step").agg(pl.len(), pl.col("time_s").min()).sort("step"))
        grew = ", ".join(f"{n} of +{st} from {t:.3f} s" for st, n, t in steps.iter_rows())
        print(f"    slow start (2 t^3 per ACK event, t in ms since the handshake, {c['time_s'][0]:.3f} s): {grew}; "
              f"the first reduction, at {fst['time_s']:.3f} s, cuts {fst['threshold_pkts']:.0f} packets to "
              f"{fst['cwnd_pkts']}")
        drops = r.tables["drops"].with_columns(pl.col("time_s").floor().cast(pl.Int64) // 5 * 5)
        per = (c.with_columns(pl.col("time_s").floor().cast(pl.Int64) // 5 * 5)
               .group_by("time_s").agg(pl.col("cwnd_pkts").median().alias("cwnd"),
                                       (pl.col("ca_state") != 0).mean().alias("rec"),
                                       (pl.col("srtt_ps").median() / 1e9).alias("srtt"),
                                       pl.col("delivered_bytes").max().alias("d"))
               .sort("time_s"))
        rb = (red.with_columns(pl.col("time_s").floor().cast(pl.Int64) // 5 * 5)
              .group_by("time_s").agg(pl.len().alias("n"), (pl.col("gap_ms") < 4).mean().alias("close"),
                                      pl.col("edge").median().alias("edge")))
        dk = drops.group_by("time_s", "reason").len().pivot(on="reason", index="time_s", values="len")
        ph = (r.tables["cc_vars"].filter((pl.col("flow") == 0) & (pl.col("var") == "phase"))
              .with_columns(pl.col("time_s").floor().cast(pl.Int64) // 5 * 5)
              .group_by("time_s").agg((pl.col("value") == 1).mean().alias("cc_rec")))
        per = (per.join(rb, on="time_s", how="left").join(dk, on="time_s", how="left").join(ph, on="time_s", how="left")
               .fill_null(0))
        prev = 0
        for row in per.iter_rows(named=True):
            mbps = (row["d"] - prev) * 8 / 5 / 1e6
            prev = row["d"]
            print(f"    {row['time_s']:2d}-{row['time_s'] + 5:2d} s: cwnd median {row['cwnd']:>10.0f}, {row['n']:3d} "
                  f"reductions ({100 * row['close']:3.0f} % within 4 ms of the previous; snd_nxt at "
                  f"{row['edge']:.2f} of the receive window), in recovery: Expolinear {100 * row['cc_rec']:3.0f} %, "
                  f"the stack {100 * row['rec']:3.0f} %, srtt {row['srtt']:.1f} ms, netem losses "
                  f"{row.get('link_loss', 0):4d}, overflow {row.get('overflow', 0):5d}, {mbps:5.1f} Mb/s")
        i = max((k for k, x in enumerate(red["cwnd_pkts"].to_list()) if x > RWND_PKTS), default=0)
        up = (red.slice(1, i).with_columns(ratio=pl.col("threshold_pkts") / pl.col("threshold_pkts").shift(1))
              .filter(pl.col("gap_ms").is_not_null()))
        classes = []
        for lo, hi in ((0, 4), (4, 8), (8, 68), (68, 1e9)):
            g = up.filter((pl.col("gap_ms") >= lo) & (pl.col("gap_ms") < hi))["ratio"]
            if g.len():
                classes.append(f"{lo}-{hi if hi < 1e9 else ''} ms: {g.len()}, median {g.median():.3f} "
                               f"({g.min():.3f}-{g.max():.3f})")
        print("    above the receive window, reductions by time since the previous one, and the window each cut "
              "over the one the previous cut: " + "; ".join(classes))
        run = red.slice(i, 8)
        print(f"    the run of reductions that took cwnd below the receive window (time s, ms since the previous, "
              f"window cut -> left): "
              + "; ".join(f"{x['time_s']:.4f} {x['gap_ms']:.1f} {x['threshold_pkts']:.0f}->{x['cwnd_pkts']}"
                          for x in run.iter_rows(named=True)))


def _table(title: str, points: list, ccs: tuple[str, ...], make, fmt) -> None:
    """One round of a part at the paper's points: goodput (Mb/s), and
    timeouts in brackets, per control and point."""
    print(f"  {title}")
    print("    " + "cc".rjust(20) + "".join(fmt(p).rjust(16) for p in points))
    for cc in ccs:
        cells = []
        for p in points:
            r = db.run(make(cc, p), seed=1)
            f = r.flows.row(0, named=True)
            cells.append(f"{f['goodput_bps'] / 1e6:.1f} ({f['timeouts']})")
        print("    " + cc.rjust(20) + "".join(c.rjust(16) for c in cells))


def bandwidth_sweep() -> None:
    """Figure 2b at the paper's rates, 20 s, one round (seed 1): goodput in
    Mb/s (timeouts)."""
    rates = list(e3.POINTS["paper"]["bandwidth"]["rates_bps"])
    _table("link rate", rates, e3.FINAL, lambda cc, rate: e3.scenario(cc, rate, duration_s=20.0),
           lambda v: f"{v / 1e6:g} Mb/s")


def small_link() -> None:
    """Figure 2b's 10 Mb/s point, 20 s, seed 1: what the link carried for
    Expolinear, Linear and Reno (packets sent, overflow drops at the router,
    link utilization) against the in-order payload the receiver got."""
    for cc in ("expolinear", "linear", "reno"):
        r = db.run(e3.scenario(cc, 10e6, duration_s=20.0), seed=1)
        f = r.flows.row(0, named=True)
        q = r.tables["queues"].filter((pl.col("node") == "r") & (pl.col("peer") == "srv")).row(0, named=True)
        carried = f["data_pkts_sent"] - q["drops_overflow"]
        in_order = f["bytes_delivered"] // e3.MSS_BYTES
        print(f"  {cc}: goodput {f['goodput_bps'] / 1e6:.2f} Mb/s; sent {f['data_pkts_sent']}, retransmits "
              f"{f['retransmits']}, overflow drops {q['drops_overflow']}, link utilization {q['utilization']:.3f}, "
              f"final cwnd {f['cwnd_pkts']}; "
              f"segments not dropped {carried}, delivered in order {in_order}; the other {carried - in_order} were "
              f"still queued, on the wire or held above a hole at the end (receive window "
              f"{e3.RWND_BYTES // e3.MSS_BYTES} segments)")


def loss_sweep() -> None:
    """Figures 3a and 3b at the paper's loss rates, 10 Gb/s, 10 s (the paper
    ran 100 s), one round (seed 1): goodput in Mb/s (timeouts)."""
    losses = list(e3.POINTS["paper"]["loss"]["losses"])
    _table("loss, 10 Gb/s", losses, e3.FINAL + e3.LINEAR_VARIANTS[1:],
           lambda cc, loss: e3.scenario(cc, 10e9, loss=loss, duration_s=10.0), lambda v: f"{v:.0%}")


def delay_sweep() -> None:
    """Figures 4a and 4b at the paper's delays, 1 Gb/s, 20 s, one round
    (seed 1): goodput in Mb/s (timeouts)."""
    delays = list(e3.POINTS["paper"]["delay"]["delays_ms"])
    _table("added delay, 1 Gb/s", delays, e3.FINAL + e3.LINEAR_VARIANTS[1:],
           lambda cc, d: e3.scenario(cc, 1e9, rtt_add_s=d / 1e3, duration_s=20.0), lambda v: f"+{v} ms")


def loss_rtt_sweep() -> None:
    """Figures 5a and 5b at the paper's loss rates, 1 Gb/s, 20 and 100 ms
    added, 50 s, one round (seed 1): goodput in Mb/s (timeouts)."""
    losses = list(e3.POINTS["paper"]["loss-rtt"]["losses"])
    for rtt in (20, 100):
        _table(f"loss, 1 Gb/s, +{rtt} ms", losses, e3.FINAL,
               lambda cc, loss, rtt=rtt: e3.scenario(cc, 1e9, rtt_add_s=rtt / 1e3, loss=loss, duration_s=50.0),
               lambda v: f"{v:.0%}")


def cordiality_table() -> None:
    """Tables 1 and 2 in both setups, 1 Gb/s, 20 s, one round (seed 1):
    x = a/b, a the column's control, b the row's; the paper's Table 1
    (server BBR) and Table 2 (server Cubic) beside it (the server's control
    changes nothing here: it only returns ACKs)."""
    for setup in e3.SETUPS:
        print(f"  setup {setup}: ours (paper Table 1 / Table 2)")
        print("    " + "b \\ a".rjust(12) + "".join(c.rjust(26) for c in e3.PROPOSED))
        for i, row in enumerate(e3.FINAL):
            cells = []
            for j, col in enumerate(e3.PROPOSED):
                r = db.run(e3.scenario(col, 1e9, duration_s=20.0, cc_b=row, setup=setup), seed=1)
                ga, gb = (r.flows.row(k, named=True)["goodput_bps"] for k in (0, 1))
                t1, t2 = e3.PAPER_TABLES["bbr"][i][j][0], e3.PAPER_TABLES["cubic"][i][j][0]
                cells.append(f"{ga / gb:.2f} ({t1:.2f} / {t2:.2f})")
            print("    " + row.rjust(12) + "".join(c.rjust(26) for c in cells))


def base_rtt() -> None:
    """The base round trip (part ``base-rtt``): the cells of C5 (Linear
    against Reno at 5 %) and C7 (Linear against BBR at 20 %), 10 Gb/s, 10 s,
    seed 1, with the propagation round trip at ours (0.1 ms) and at 0.2, 0.5
    and 1 ms."""
    for loss, ccs in ((0.05, ("linear", "reno")), (0.20, ("linear", "bbr"))):
        for b in (None, 0.2, 0.5, 1.0):
            g = {cc: float(db.run(e3.scenario(cc, 10e9, loss=loss, duration_s=10.0,
                                              base_rtt_s=None if b is None else b / 1e3), seed=1)
                           .flows["goodput_bps"][0]) for cc in ccs}
            a, o = ccs
            print(f"  loss {loss:.0%}, base RTT {0.1 if b is None else b:g} ms: {a} {g[a] / 1e6:.1f}, "
                  f"{o} {g[o] / 1e6:.1f} Mb/s, {a} / {o} {g[a] / g[o]:.3g}")


SECTIONS = {
    "bandwidth-sweep": bandwidth_sweep,
    "small-link": small_link,
    "loss-sweep": loss_sweep,
    "delay-sweep": delay_sweep,
    "loss-rtt-sweep": loss_rtt_sweep,
    "module-hook": module_hook,
    "adaptive": adaptive,
    "heavy-loss": heavy_loss,
    "bbr-100ms": bbr_100ms,
    "collapse": collapse,
    "fractional-modes": fractional_modes,
    "delay": delay,
    "cordiality": cordiality,
    "cordiality-table": cordiality_table,
    "escapes": escapes,
    "expolinear-rounds": expolinear_rounds,
    "base-rtt": base_rtt,
}


def main(argv: list[str] | None = None) -> int:
    return evidence_sections.main(SECTIONS, __doc__.splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
