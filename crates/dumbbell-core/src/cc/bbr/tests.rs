use super::*;

/// The check as the run reports it, under the control's field.
fn validate(p: &BbrParams, field: &str) -> Result<(), crate::param::ConfigError> {
    check(p).map_err(|e| e.at(field, field))
}
use crate::cc::APP_LIMITED_AT_START;
use crate::sim::rng_for;
use std::collections::VecDeque;

const MSS: u32 = 1448;

proptest::proptest! {
    /// The 64-bit shortcut gives the 128-bit quotient, on both sides
    /// of 2⁶⁴ and for the constant divisors the model uses.
    #[test]
    fn wide_division_equals_the_128_bit_one(
        hi in proptest::prop_oneof![proptest::strategy::Just(0u64), 0u64..4, proptest::num::u64::ANY],
        lo in proptest::num::u64::ANY,
        d in proptest::prop_oneof![
            proptest::strategy::Just(PS_PER_US),
            proptest::strategy::Just(BW_UNIT),
            proptest::strategy::Just(BW_UNIT * PS_PER_US),
            1u64..,
        ],
    ) {
        let n = ((hi as u128) << 64) | lo as u128;
        proptest::prop_assert_eq!(div_wide(n, d), n / d as u128);
        proptest::prop_assert_eq!(div_ceil_wide(n, d), n.div_ceil(d as u128));
    }
}

fn bbr(p: BbrParams) -> Bbr {
    Bbr::new(p, rng_for(1, "flow:test:cc"))
}

/// A BBR sender on an ideal path: one bottleneck of `rate_pps` with
/// an unlimited FIFO, and a base RTT that lumps every propagation
/// delay. A packet sent at `t` is ACKed at `max(t + base_rtt, previous
/// ACK + 1/rate)`, alone (no delayed ACKs); its RTT sample is that
/// difference plus `extra_rtt`. The rate sample is `tcp_rate.c`'s: each
/// packet carries `delivered`, `delivered_mstamp` and the app-limited
/// mark of its send time. The sender keeps min(cwnd, limit) in flight,
/// paced: it sends on ACKs, earning `pacing rate × time` packets of
/// credit (10 to start with, for Linux's unpaced first 10; at most 10
/// saved).
struct Pipe {
    tp: TcpSock,
    cc: Bbr,
    rate_pps: u64,
    base_rtt: Dur,
    extra_rtt: Dur,
    limit: u32,
    /// Per packet in flight: ACK time, send time, and the delivery
    /// state when it was sent.
    flight: VecDeque<(Time, Time, u64, Time, bool)>,
    last_ack: Time,
    credit: f64,
}

impl Pipe {
    fn new(p: BbrParams, rate_pps: u64, base_rtt: Dur) -> Pipe {
        let mut tp = TcpSock::new(MSS, 10);
        let mut cc = bbr(p);
        cc.init(&mut tp);
        let mut pipe = Pipe {
            tp,
            cc,
            rate_pps,
            base_rtt,
            extra_rtt: Dur::ZERO,
            limit: u32::MAX,
            flight: VecDeque::new(),
            last_ack: Time::ZERO,
            credit: 10.0,
        };
        pipe.send();
        pipe
    }

    fn service(&self) -> Dur {
        Dur::from_ps(PS_PER_S / self.rate_pps)
    }

    fn send(&mut self) {
        let service = self.service();
        let tp = &mut self.tp;
        while tp.in_flight() < tp.snd_cwnd.min(self.limit) && self.credit >= 1.0 {
            self.credit -= 1.0;
            if tp.packets_out == 0 {
                tp.delivered_mstamp = tp.now;
            }
            let prev = self.flight.back().map_or(self.last_ack, |f| f.0);
            let at = (tp.now + self.base_rtt).max(prev + service);
            let al = tp.app_limited != 0;
            self.flight
                .push_back((at, tp.now, tp.delivered, tp.delivered_mstamp, al));
            tp.packets_out += 1;
        }
    }

    /// The ACK of the oldest packet in flight.
    fn ack(&mut self) {
        let Some((at, sent, prior_delivered, prior_time, app)) = self.flight.pop_front() else {
            panic!("nothing in flight");
        };
        let gap = at.since(self.tp.now);
        self.last_ack = at;
        let rtt = at.since(sent) + self.extra_rtt;
        let tp = &mut self.tp;
        tp.now = at;
        let prior_in_flight = tp.in_flight();
        tp.packets_out -= 1;
        tp.delivered += 1;
        let al = tp.app_limited;
        if al != 0 && (al == APP_LIMITED_AT_START || tp.delivered > al) {
            tp.app_limited = 0;
        }
        tp.delivered_mstamp = tp.now;
        tp.min_rtt = tp.min_rtt.min(rtt);
        tp.srtt = rtt;
        let mut interval = tp.now.since(prior_time);
        if interval < tp.min_rtt {
            interval = Dur::ZERO;
        }
        let rs = RateSample {
            prior_delivered,
            prior_time,
            delivered: Some(tp.delivered - prior_delivered),
            interval,
            rtt: Some(rtt),
            acked_sacked: 1,
            prior_in_flight,
            is_app_limited: app,
            ..Default::default()
        };
        self.cc.cong_control(tp, 0, &rs);
        let pps = tp.pacing_rate_bps as f64 / (MSS as f64 * 8.0);
        self.credit = (self.credit + pps * gap.secs_f64()).min(10.0);
        self.send();
    }

    /// ACKs until `until` holds or `max` ACKs have passed.
    fn run_until(&mut self, max: usize, mut until: impl FnMut(&Pipe) -> bool) -> bool {
        for _ in 0..max {
            if until(self) {
                return true;
            }
            self.ack();
        }
        until(self)
    }

    fn bdp(&self) -> f64 {
        self.rate_pps as f64 * self.base_rtt.secs_f64()
    }
}

/// Scripted rate samples: a sender whose every ACK starts a new round
/// (its sample's packet was sent after the previous ACK), `step`
/// apart, delivering `acked` packets at a measured `rate_pps`.
struct Script {
    tp: TcpSock,
    cc: Bbr,
    step: Dur,
    rtt: Dur,
}

impl Script {
    fn new(p: BbrParams, step: Dur, rtt: Dur) -> Script {
        let mut tp = TcpSock::new(MSS, 10);
        tp.app_limited = 0;
        tp.packets_out = 1000;
        let mut cc = bbr(p);
        cc.init(&mut tp);
        Script { tp, cc, step, rtt }
    }

    /// `n` ACKs of 10 packets each at `rate_pps`, no loss, not app-limited.
    fn acks(&mut self, n: usize, rate_pps: u64) {
        for _ in 0..n {
            self.ack(rate_pps, 10, 0, false);
        }
    }

    fn ack(&mut self, rate_pps: u64, acked: u32, losses: u32, app_limited: bool) {
        let tp = &mut self.tp;
        tp.now += self.step;
        let prior_delivered = tp.delivered;
        tp.delivered += acked as u64;
        tp.lost += losses as u64;
        tp.delivered_mstamp = tp.now;
        // The measured rate, as `rate_pps` packets over one second.
        let rs = RateSample {
            prior_delivered,
            delivered: Some(rate_pps),
            interval: Dur::from_secs(1),
            rtt: Some(self.rtt),
            losses,
            acked_sacked: acked,
            prior_in_flight: tp.in_flight(),
            is_app_limited: app_limited,
            ..Default::default()
        };
        self.cc.cong_control(tp, 0, &rs);
    }
}

fn var(cc: &Bbr, name: &str) -> f64 {
    let mut found = None;
    cc.trace_vars(&mut |k, v| {
        if k == name {
            found = Some(v);
        }
    });
    found.unwrap_or_else(|| panic!("no trace variable {name}"))
}

// ------------------------------------------------------------------
// The windowed max filter.
// ------------------------------------------------------------------

#[test]
fn windowed_max_holds_a_peak_for_the_window_then_forgets_it() {
    let mut f = WindowedMax::default();
    f.reset(0, 0);
    assert_eq!(f.update(10, 0, 100), 100);
    // Lower samples every round: the peak of round 0 holds while
    // round − 0 <= 10 ...
    for t in 1..=10 {
        assert_eq!(f.update(10, t, 50 + t), 100, "round {t}");
    }
    // ... and is gone at round 11: the best sample still in the window
    // (rounds 1..=11) takes over. The filter kept it as a runner-up.
    assert_eq!(f.update(10, 11, 40), 60);
    // A new maximum wins at once.
    assert_eq!(f.update(10, 12, 200), 200);
    // Nothing for more than a window: the next sample is all there is.
    assert_eq!(f.update(10, 30, 7), 7);
}

#[test]
fn windowed_max_is_always_a_sample_from_the_window() {
    // Deterministic pseudo-random values, one per round.
    let mut rng = rng_for(9, "minmax");
    let win = 10u64;
    let mut f = WindowedMax::default();
    f.reset(0, 0);
    let mut hist: Vec<u64> = vec![];
    let mut exact = 0;
    for t in 0..5000u64 {
        let v = rng.below(1000);
        hist.push(v);
        let got = f.update(win, t, v);
        let lo = t.saturating_sub(win) as usize;
        let window = &hist[lo..=t as usize];
        let max = *window.iter().max().unwrap();
        // Nichols' filter never reports more than the window holds, nor
        // less than the newest sample; it is almost always exact.
        assert!(window.contains(&got) && got <= max && got >= v, "t={t}");
        exact += (got == max) as u32;
    }
    assert!(exact > 4500, "exact {exact} of 5000");
}

// ------------------------------------------------------------------
// Startup: full-pipe detection.
// ------------------------------------------------------------------

#[test]
fn startup_ends_after_exactly_three_rounds_without_25_percent_growth() {
    let mut s = Script::new(BbrParams::default(), Dur::from_ms(10), Dur::from_ms(10));
    for rate in [1000, 2000, 4000, 8000] {
        s.ack(rate, 10, 0, false);
        assert_eq!(s.cc.mode(), Mode::Startup);
    }
    // 8000 → 9900 is +24 %: not growth. Two such rounds...
    s.ack(9900, 10, 0, false);
    s.ack(9000, 10, 0, false);
    assert!(!s.cc.full_bw_reached());
    assert_eq!(s.cc.mode(), Mode::Startup);
    // ... then a third: the pipe is full; Drain, with the in-flight
    // target as ssthresh.
    s.ack(8000, 10, 0, false);
    assert!(s.cc.full_bw_reached());
    assert_eq!(s.cc.mode(), Mode::Drain);
    assert_eq!(s.cc.pacing_gain, 88);
    assert_eq!(s.cc.cwnd_gain, 739);
    // One BDP (9900 pps · 10 ms = 99) plus the quantization budget of
    // the Startup pacing rate (3 TSO bursts, 2 to 45 packets each).
    let ssthresh = s.tp.snd_ssthresh;
    assert!((99 + 6..=99 + 3 * 45 + 1).contains(&ssthresh), "{ssthresh}");
}

#[test]
fn growth_by_a_quarter_restarts_the_full_pipe_count() {
    let mut s = Script::new(BbrParams::default(), Dur::from_ms(10), Dur::from_ms(10));
    s.acks(3, 1000);
    s.acks(3, 1250); // exactly +25 %: growth
    assert_eq!(s.cc.mode(), Mode::Startup);
    s.ack(1250, 10, 0, false);
    assert_eq!(s.cc.mode(), Mode::Drain);
}

#[test]
fn app_limited_rounds_do_not_count_toward_a_full_pipe() {
    let mut s = Script::new(BbrParams::default(), Dur::from_ms(10), Dur::from_ms(10));
    s.acks(1, 1000);
    for _ in 0..10 {
        s.ack(1000, 10, 0, true);
    }
    assert_eq!(s.cc.mode(), Mode::Startup);
    // An app-limited sample below the estimate does not enter the filter.
    s.ack(10, 10, 0, true);
    assert!((s.cc.bw_pps() - 1000.0).abs() < 1.0);
    s.acks(2, 1000);
    assert_eq!(s.cc.mode(), Mode::Startup);
    s.ack(1000, 10, 0, false);
    assert_eq!(s.cc.mode(), Mode::Drain);
}

#[test]
fn startup_drain_probe_bw_on_a_fluid_path() {
    // 1000 packets/s, 40 ms: a BDP of 40 packets.
    let mut p = Pipe::new(BbrParams::default(), 1000, Dur::from_ms(40));
    assert!(p.run_until(20_000, |p| p.cc.mode() == Mode::Drain));
    // Startup's queue: in flight well above one BDP.
    assert!(p.tp.in_flight() as f64 > 1.5 * p.bdp());
    assert!(
        (p.cc.bw_pps() - 1000.0).abs() < 10.0,
        "bw {}",
        p.cc.bw_pps()
    );
    let drain_start = p.tp.now;
    assert!(p.run_until(20_000, |p| p.cc.mode() == Mode::ProbeBw));
    // Drain ends when in flight is down to one BDP plus the budget
    // (2 packets per TSO burst here: 3·2 = 46), within a few RTTs; the
    // new phase may have sent a packet or two since (at most 5/4 BDP).
    assert!(
        p.tp.in_flight() as f64 <= 1.25 * p.bdp(),
        "{}",
        p.tp.in_flight()
    );
    assert!(p.tp.now.since(drain_start) < Dur::from_ms(200));
    assert_eq!(p.cc.cwnd_gain, 512);
    assert_ne!(p.cc.cycle_idx(), 1, "never starts in the 3/4 phase");
}

// ------------------------------------------------------------------
// ProbeBW: the gain cycle.
// ------------------------------------------------------------------

#[test]
fn probe_bw_start_phase_is_random_but_never_the_draining_phase() {
    let tp = TcpSock::new(MSS, 10);
    let mut seen = [0u32; CYCLE_LEN];
    for seed in 0..700 {
        let mut cc = Bbr::new(BbrParams::default(), rng_for(seed, "flow:f:cc"));
        cc.reset_probe_bw_mode(&tp);
        seen[cc.cycle_idx()] += 1;
    }
    assert_eq!(seen[1], 0, "{seen:?}");
    // Uniform over the 7 others: 100 each; 5 sigma is about 46.
    for (i, &n) in seen.iter().enumerate() {
        if i != 1 {
            assert!((54..=146).contains(&n), "phase {i}: {seen:?}");
        }
    }
}

#[test]
fn probe_bw_cycles_gains_in_order_one_min_rtt_per_phase() {
    // ACKs every 1 ms, min RTT 10 ms, and a deep flight, so that the
    // 5/4 phase reaches its in-flight target and the 3/4 phase never
    // drains to one BDP: every phase then lasts exactly one min RTT
    // (the first ACK more than 10 ms after the phase began).
    let mut s = Script::new(BbrParams::default(), Dur::from_ms(1), Dur::from_ms(10));
    for rate in [1000, 2000, 4000] {
        s.ack(rate, 10, 0, false);
    }
    for _ in 0..3 {
        s.ack(4000, 10, 0, false);
    }
    assert_eq!(s.cc.mode(), Mode::Drain);
    s.tp.packets_out = 10; // drained at once
    s.ack(4000, 10, 0, false);
    assert_eq!(s.cc.mode(), Mode::ProbeBw);
    s.tp.packets_out = 1000;
    let mut phases = vec![(s.tp.now, s.cc.cycle_idx(), s.cc.pacing_gain)];
    while phases.len() < 20 {
        s.ack(4000, 10, 0, false);
        if s.cc.cycle_idx() != phases.last().unwrap().1 {
            phases.push((s.tp.now, s.cc.cycle_idx(), s.cc.pacing_gain));
        }
    }
    let gains = [320, 192, 256, 256, 256, 256, 256, 256];
    for w in phases.windows(2) {
        let ((t0, i0, _), (t1, i1, g1)) = (w[0], w[1]);
        assert_eq!(i1, (i0 + 1) % CYCLE_LEN, "phases in order");
        assert_eq!(g1, gains[i1], "gain of phase {i1}");
        assert_eq!(
            t1.since(t0),
            Dur::from_ms(11),
            "phase {i0} lasts one min RTT"
        );
    }
}

#[test]
fn the_draining_phase_ends_early_once_one_bdp_is_left() {
    let mut s = entering_probe_bw();
    s.tp.packets_out = 1000;
    while s.cc.cycle_idx() != 1 {
        s.ack(4000, 10, 0, false);
    }
    // BDP 40 + budget 3·2, even: in flight at 46 ends the phase.
    s.ack(4000, 10, 0, false);
    assert_eq!(s.cc.cycle_idx(), 1);
    s.tp.packets_out = 46;
    s.ack(4000, 10, 0, false);
    assert_eq!(s.cc.cycle_idx(), 2);
    assert_eq!(s.cc.pacing_gain, BBR_UNIT);
}

// ------------------------------------------------------------------
// ProbeRTT.
// ------------------------------------------------------------------

#[test]
fn probe_rtt_when_min_rtt_is_10_s_old_cwnd_4_for_200_ms_and_a_round() {
    // 1000 packets/s, 40 ms; after Startup a constant 10 ms of extra
    // delay keeps every RTT sample above the min.
    let mut p = Pipe::new(BbrParams::default(), 1000, Dur::from_ms(40));
    assert!(p.run_until(20_000, |p| p.cc.mode() == Mode::ProbeBw));
    p.extra_rtt = Dur::from_ms(10);
    let min_rtt = p.cc.min_rtt();
    let stamp = p.cc.min_rtt_stamp;
    let cwnd_before = std::cell::Cell::new(0);
    assert!(p.run_until(20_000, |p| {
        if p.cc.mode() == Mode::ProbeRtt {
            return true;
        }
        assert_eq!(p.cc.min_rtt_stamp, stamp, "not refreshed");
        cwnd_before.set(p.tp.snd_cwnd);
        false
    }));
    let entered = p.tp.now;
    // Entered on the first ACK more than 10 s after the last min RTT
    // (ACKs are at most 40 ms apart here) ...
    assert!(entered > stamp + Dur::from_secs(10));
    assert!(entered <= stamp + Dur::from_secs(10) + Dur::from_ms(40));
    // ... where the expired window takes the current sample, whatever
    // it is.
    assert_eq!(p.cc.min_rtt_stamp, entered);
    assert!(p.cc.min_rtt() >= Dur::from_ms(50), "{:?}", p.cc.min_rtt());
    assert!(p.cc.min_rtt() > min_rtt);
    assert_eq!(p.tp.snd_cwnd, CWND_MIN_TARGET);
    assert_eq!(p.cc.prior_cwnd, cwnd_before.get(), "cwnd saved on entry");
    // cwnd stays at 4 until ProbeRTT ends; the clock starts once in
    // flight is down to 4.
    let mut at_four = None;
    let mut acks = 0;
    while p.cc.mode() == Mode::ProbeRtt {
        assert!(p.tp.snd_cwnd <= CWND_MIN_TARGET);
        if at_four.is_none() && p.tp.in_flight() <= CWND_MIN_TARGET {
            at_four = Some(p.tp.now);
        }
        p.ack();
        acks += 1;
        assert!(acks < 10_000);
    }
    let at_four = at_four.unwrap();
    let left = p.tp.now;
    assert!(
        left.since(at_four) > Dur::from_ms(200),
        "{:?}",
        left.since(at_four)
    );
    // 200 ms is 4 RTTs of 50 ms here, so the round is not what holds
    // it: it ends on the first ACK after 200 ms.
    assert!(left.since(at_four) <= Dur::from_ms(200) + Dur::from_ms(50));
    assert_eq!(p.cc.mode(), Mode::ProbeBw);
    // cwnd restored, then grown by this ACK's packet as any ACK does.
    assert_eq!(p.tp.snd_cwnd, cwnd_before.get() + 1, "cwnd restored");
    assert_eq!(p.cc.min_rtt_stamp, left, "the next ProbeRTT is 10 s away");
}

#[test]
fn probe_rtt_lasts_at_least_one_round_on_a_long_path() {
    // Base RTT 300 ms > 200 ms: the round is the longer condition.
    let mut p = Pipe::new(BbrParams::default(), 200, Dur::from_ms(300));
    assert!(p.run_until(20_000, |p| p.cc.mode() == Mode::ProbeBw));
    p.extra_rtt = Dur::from_ms(10);
    assert!(p.run_until(20_000, |p| p.cc.mode() == Mode::ProbeRtt));
    let mut at_four = None;
    while p.cc.mode() == Mode::ProbeRtt {
        if at_four.is_none() && p.tp.in_flight() <= CWND_MIN_TARGET {
            at_four = Some(p.tp.now);
        }
        p.ack();
    }
    let held = p.tp.now.since(at_four.unwrap());
    assert!(held >= Dur::from_ms(300), "{held:?}");
}

#[test]
fn probe_rtt_can_be_disabled() {
    let params = BbrParams {
        probe_rtt_mode_ms: 0.0,
        ..Default::default()
    };
    let mut p = Pipe::new(params, 1000, Dur::from_ms(40));
    assert!(p.run_until(20_000, |p| p.cc.mode() == Mode::ProbeBw));
    p.extra_rtt = Dur::from_ms(10);
    let t0 = p.tp.now;
    assert!(!p.run_until(12_000, |p| p.cc.mode() == Mode::ProbeRtt));
    assert!(p.tp.now.since(t0) > Dur::from_secs(11));
}

// ------------------------------------------------------------------
// Pacing and cwnd arithmetic.
// ------------------------------------------------------------------

#[test]
fn initial_pacing_is_high_gain_times_init_cwnd_over_srtt() {
    // No RTT yet: 1 ms. 10 packets/ms · 2.887 · 1448 B · 8 · 0.99.
    let mut tp = TcpSock::new(MSS, 10);
    let mut cc = bbr(BbrParams::default());
    cc.init(&mut tp);
    let expect = 10_000.0 * 739.0 / 256.0 * MSS as f64 * 8.0 * 0.99;
    let got = tp.pacing_rate_bps as f64;
    assert!((got / expect - 1.0).abs() < 1e-6, "{got} vs {expect}");
    assert_eq!(tp.snd_ssthresh, INFINITE_SSTHRESH);
    // With a 20 ms srtt (the handshake's), 20 times less.
    let mut tp = TcpSock::new(MSS, 10);
    tp.srtt = Dur::from_ms(20);
    cc.init(&mut tp);
    // (Linux truncates the bandwidth to 2^-24 packet/µs: 1e-4 here.)
    let got = tp.pacing_rate_bps as f64;
    assert!((got / (expect / 20.0) - 1.0).abs() < 2e-4);
    assert!(cc.pacer.has_seen_rtt);
}

#[test]
fn pacing_rate_is_gain_times_bw_less_one_percent_in_bit_per_s() {
    let mut s = Script::new(BbrParams::default(), Dur::from_ms(10), Dur::from_ms(10));
    // 100 Mb/s of 1488-byte packets: 8400 packets/s.
    let pps = 8400;
    for _ in 0..5 {
        s.ack(pps, 10, 0, false);
    }
    assert!(s.cc.full_bw_reached());
    let payload_bps = pps as f64 * MSS as f64 * 8.0;
    let gain = s.cc.pacing_gain();
    let want = gain * payload_bps * 0.99;
    let got = s.tp.pacing_rate_bps as f64;
    assert!((got / want - 1.0).abs() < 1e-5, "{got} vs {want}");
    assert!((var(&s.cc, "bw_bps") / payload_bps - 1.0).abs() < 1e-5);
}

#[test]
fn bdp_rounds_up_and_budget_adds_three_tso_bursts() {
    let mut tp = TcpSock::new(MSS, 10);
    let mut cc = bbr(BbrParams::default());
    cc.init(&mut tp);
    assert_eq!(cc.bdp(1 << 30, BBR_UNIT), TCP_INIT_CWND, "no RTT yet");
    cc.min_rtt = Dur::from_ms(10);
    // 1000.5 packets/s · 10 ms = 10.005 packets → 11.
    let bw = (1000.5 * BW_UNIT as f64 / 1e6) as u64;
    assert_eq!(cc.bdp(bw, BBR_UNIT), 11);
    assert_eq!(cc.bdp(bw, 2 * BBR_UNIT), 21);
    // At 1 Gb/s of payload the TSO goal is 1 ms: 125000 B >> 10 =
    // 122 KB, capped at 64 KB − headers, 45 segments of 1448 B.
    tp.pacing_rate_bps = 1_000_000_000;
    assert_eq!(cc.tso_segs_goal(&tp), 45);
    assert_eq!(cc.quantization_budget(&tp, 100), 236);
    // Below 1.2 Mb/s: one segment.
    tp.pacing_rate_bps = 1_000_000;
    assert_eq!(cc.tso_segs_goal(&tp), 1);
    assert_eq!(cc.quantization_budget(&tp, 100), 104);
    // The probing phase adds two.
    cc.mode = Mode::ProbeBw;
    cc.cycle_idx = 0;
    assert_eq!(cc.quantization_budget(&tp, 100), 106);
}

// ------------------------------------------------------------------
// Loss: packet conservation, RTO, the long-term (policer) estimate.
// ------------------------------------------------------------------

/// A script that has just entered ProbeBW at 4000 packets/s, 10 ms:
/// Startup, then Drain ends once 10 packets are in flight.
fn entering_probe_bw() -> Script {
    let mut s = Script::new(BbrParams::default(), Dur::from_ms(1), Dur::from_ms(10));
    for rate in [1000, 2000, 4000, 4000, 4000, 4000] {
        s.ack(rate, 10, 0, false);
    }
    s.tp.packets_out = 10;
    s.ack(4000, 10, 0, false);
    assert_eq!(s.cc.mode(), Mode::ProbeBw);
    s
}

/// A script in ProbeBW at 4000 packets/s, 10 ms.
fn in_probe_bw() -> Script {
    let mut s = entering_probe_bw();
    s.tp.packets_out = 60;
    for _ in 0..50 {
        s.ack(4000, 2, 0, false);
    }
    s
}

#[test]
fn recovery_conserves_packets_for_a_round_then_restores_cwnd() {
    let mut s = in_probe_bw();
    let cwnd = s.tp.snd_cwnd;
    assert!(cwnd > 60);
    // The stack enters Recovery: ssthresh (saves cwnd), set_state.
    s.tp.snd_ssthresh = s.cc.ssthresh(&s.tp);
    s.cc.set_state(&mut s.tp, CaState::Recovery);
    s.tp.ca_state = CaState::Recovery;
    assert_eq!(s.cc.prior_cwnd, cwnd);
    // First ACK of Recovery, 2 delivered, 1 lost, 50 in flight: cwnd =
    // in flight + delivered.
    s.tp.packets_out = 50;
    s.step = Dur::ZERO; // no new round: same prior_delivered
    let prior = s.tp.delivered;
    let rs = RateSample {
        prior_delivered: prior - 100,
        delivered: Some(40),
        interval: Dur::from_ms(10),
        losses: 1,
        acked_sacked: 2,
        prior_in_flight: 52,
        ..Default::default()
    };
    s.tp.delivered += 2;
    s.tp.lost += 1;
    s.cc.cong_control(&mut s.tp, 0, &rs);
    assert!(s.cc.packet_conservation);
    assert_eq!(s.tp.snd_cwnd, 52);
    // While conserving: in flight + delivered, never more.
    s.tp.packets_out = 45;
    s.tp.delivered += 1;
    let rs1 = RateSample {
        acked_sacked: 1,
        ..rs
    };
    s.cc.cong_control(&mut s.tp, 0, &rs1);
    assert_eq!(s.tp.snd_cwnd, 51, "cwnd 52 less 1 lost, ≥ 45 + 1");
    // A new round ends conservation: slow start toward the target.
    let rs2 = RateSample {
        prior_delivered: s.tp.delivered,
        acked_sacked: 3,
        losses: 0,
        ..rs
    };
    s.tp.delivered += 3;
    s.cc.cong_control(&mut s.tp, 0, &rs2);
    assert!(!s.cc.packet_conservation);
    assert_eq!(s.tp.snd_cwnd, 54);
    // Recovery ends: cwnd back to what it was on entry, plus this
    // ACK's packet (the target is higher).
    s.tp.ca_state = CaState::Open;
    s.tp.delivered += 1;
    let rs3 = RateSample {
        acked_sacked: 1,
        ..rs2
    };
    s.cc.cong_control(&mut s.tp, 0, &rs3);
    assert_eq!(s.tp.snd_cwnd, cwnd + 1);
}

#[test]
fn rto_ends_a_round_resets_full_bw_and_restores_cwnd_after_loss() {
    let mut s = in_probe_bw();
    let cwnd = s.tp.snd_cwnd;
    // The stack's RTO: ssthresh, everything lost, cwnd = in flight + 1,
    // set_state(Loss).
    s.tp.snd_ssthresh = s.cc.ssthresh(&s.tp);
    s.tp.lost += 60;
    s.tp.lost_out = 60;
    s.tp.snd_cwnd = s.tp.in_flight() + 1;
    s.cc.set_state(&mut s.tp, CaState::Loss);
    s.tp.ca_state = CaState::Loss;
    assert!(s.cc.round_start, "an RTO counts as the end of a round");
    assert_eq!(s.cc.full_bw, 0);
    assert!(
        s.cc.lt_is_sampling,
        "and as a loss for the policer detector"
    );
    assert_eq!(s.cc.prev_ca_state, CaState::Loss);
    // ACKs in Loss grow cwnd by what they deliver (1 → 3 → 5).
    s.tp.lost_out = 0;
    s.tp.packets_out = 1;
    s.ack(4000, 2, 0, false);
    assert_eq!(s.tp.snd_cwnd, 4, "at least the 4-packet floor");
    s.ack(4000, 2, 0, false);
    assert_eq!(s.tp.snd_cwnd, 6);
    // Loss ends: the saved cwnd comes back.
    s.tp.ca_state = CaState::Open;
    s.ack(4000, 2, 0, false);
    assert_eq!(s.tp.snd_cwnd, cwnd);
}

#[test]
fn a_policer_is_detected_and_its_rate_used_for_48_rounds() {
    let mut s = in_probe_bw();
    assert!((s.cc.bw_pps() - 4000.0).abs() < 1.0);
    // A policer: 100 packets delivered per 100 ms round (1000 pps), 30
    // lost (> 20 %), while the max filter still says 4000.
    s.step = Dur::from_ms(100);
    let mut rounds = 0;
    while !s.cc.lt_use_bw() {
        s.ack(4000, 100, 30, false);
        rounds += 1;
        assert!(rounds <= 8, "two 4-round intervals from the first loss");
    }
    assert_eq!(rounds, 8);
    assert!((var(&s.cc, "lt_bw_pps") - 1000.0).abs() < 1.0);
    assert!((s.cc.bw_pps() - 1000.0).abs() < 1.0);
    assert_eq!(s.cc.pacing_gain, BBR_UNIT);
    let want = 1000.0 * MSS as f64 * 8.0 * 0.99;
    assert!((s.tp.pacing_rate_bps as f64 / want - 1.0).abs() < 1e-4);
    // 48 rounds of ProbeBW later the long-term rate is dropped.
    for _ in 0..47 {
        s.ack(4000, 100, 0, false);
        assert!(s.cc.lt_use_bw());
    }
    s.ack(4000, 100, 0, false);
    assert!(!s.cc.lt_use_bw());
    assert!((s.cc.bw_pps() - 4000.0).abs() < 1.0);
    assert_eq!(s.cc.mode(), Mode::ProbeBw);
}

#[test]
fn random_loss_below_20_percent_is_not_a_policer() {
    let mut s = in_probe_bw();
    s.step = Dur::from_ms(100);
    for _ in 0..100 {
        s.ack(4000, 100, 2, false);
    }
    assert!(!s.cc.lt_use_bw());
    assert!((s.cc.bw_pps() - 4000.0).abs() < 1.0);
}

// ------------------------------------------------------------------
// Idle restart.
// ------------------------------------------------------------------

#[test]
fn restart_from_idle_when_app_limited_paces_at_the_estimate() {
    let mut s = in_probe_bw();
    // Find the probing phase, where pacing is 5/4 of the estimate.
    while s.cc.cycle_idx() != 0 {
        s.ack(4000, 2, 0, false);
    }
    let at_bw = 4000.0 * MSS as f64 * 8.0 * 0.99;
    assert!(s.tp.pacing_rate_bps as f64 > 1.2 * at_bw);
    // Not app-limited: no change.
    s.cc.cwnd_event(&mut s.tp, CaEvent::TxStart);
    assert!(!s.cc.idle_restart);
    s.tp.app_limited = s.tp.delivered + 1;
    s.cc.cwnd_event(&mut s.tp, CaEvent::TxStart);
    assert!(s.cc.idle_restart);
    assert!((s.tp.pacing_rate_bps as f64 / at_bw - 1.0).abs() < 1e-4);
    // The first ACK of new data ends the restart.
    s.ack(4000, 2, 0, false);
    assert!(!s.cc.idle_restart);
}

// ------------------------------------------------------------------
// Parameters.
// ------------------------------------------------------------------

#[test]
fn default_gains_are_linux_fixed_point() {
    let t = Tunables::new(&BbrParams::default());
    assert_eq!(t.high_gain, 739); // BBR_UNIT·2885/1000 + 1
    assert_eq!(t.drain_gain, 88); // BBR_UNIT·1000/2885
    assert_eq!(t.cwnd_gain, 512);
    assert_eq!(t.cycle, [320, 192, 256, 256, 256, 256, 256, 256]);
    assert_eq!(t.full_bw_thresh, 320);
    assert_eq!(t.min_rtt_win, Dur::from_secs(10));
    assert_eq!(t.probe_rtt_mode, Dur::from_ms(200));
}

#[test]
fn bad_parameters_name_their_field() {
    assert!(validate(&BbrParams::default(), "flows[0].cc").is_ok());
    // One field out of range, the others at their defaults.
    macro_rules! bad {
        ($field:ident: $value:expr) => {
            (
                BbrParams {
                    $field: $value,
                    ..Default::default()
                },
                stringify!($field),
            )
        };
    }
    let cases = [
        bad!(high_gain: 1.0),
        bad!(drain_gain: Some(0.0)),
        bad!(cwnd_gain: f64::NAN),
        bad!(probe_bw_up_gain: 0.9),
        bad!(probe_bw_down_gain: 1.5),
        bad!(bw_win_rounds: 0),
        bad!(min_rtt_win_s: 0.0),
        bad!(probe_rtt_mode_ms: -1.0),
        bad!(full_bw_thresh: 1.0),
        bad!(full_bw_cnt: 0),
        bad!(pacing_margin_percent: 100),
    ];
    for (p, name) in cases {
        let e = validate(&p, "flows[2].cc").unwrap_err();
        assert_eq!(e.field, format!("flows[2].cc.{name}"));
    }
}
