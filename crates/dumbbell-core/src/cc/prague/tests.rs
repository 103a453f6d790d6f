//! Prague's hooks driven by hand: the EWMA of the marked fraction, the
//! reduction by alpha/2, the classic fallbacks (a deep marked queue; no
//! AccECN), RTT independence, pacing.

use super::*;
use crate::sim::Time;

fn sock(cwnd: u32, accecn: bool) -> TcpSock {
    let mut tp = TcpSock::new(1448, cwnd);
    tp.ecn_ok = true;
    tp.accecn_ok = accecn;
    tp.snd_ssthresh = cwnd; // congestion avoidance
    tp.snd_nxt = cwnd as u64; // a full window out: the first round
    tp.srtt = Dur::from_ms(20);
    tp.min_rtt = Dur::from_ms(20);
    tp
}

/// Prague with `p`, initialised on a 100-packet [`sock`].
fn started(p: PragueParams, accecn: bool) -> (TcpSock, Prague) {
    let mut tp = sock(100, accecn);
    let mut cc = Prague::new(p);
    cc.init(&mut tp);
    (tp, cc)
}

/// Runs `rounds` windows of `w` packets, `ce` of each marked, the queue
/// `depth` deep (srtt − min_rtt).
fn rounds(cc: &mut Prague, tp: &mut TcpSock, n: usize, w: u64, ce: u64, depth: Dur) {
    tp.srtt = tp.min_rtt + depth;
    for _ in 0..n {
        for i in 0..w {
            tp.now += Dur::from_us(100);
            tp.snd_una += 1;
            tp.delivered += 1;
            if i < ce {
                tp.delivered_ce += 1;
            }
            tp.snd_nxt = tp.snd_una + w;
            cc.in_ack_event(tp, 0);
            let s = crate::cc::AckSample {
                pkts_acked: 1,
                rtt: Some(tp.srtt),
                in_flight: w as u32,
            };
            cc.pkts_acked(tp, &s);
        }
    }
}

#[test]
fn alpha_follows_the_marked_fraction_with_gain_one_sixteenth() {
    let (mut tp, mut cc) = started(PragueParams::default(), true);
    assert_eq!(cc.alpha(), 1.0);
    // One round with F = 0: alpha = 15/16.
    rounds(&mut cc, &mut tp, 1, 100, 0, Dur::ZERO);
    assert!((cc.alpha() - 15.0 / 16.0).abs() < 1e-9, "{}", cc.alpha());
    rounds(&mut cc, &mut tp, 300, 100, 10, Dur::ZERO);
    assert!((cc.alpha() - 0.1).abs() < 1e-3, "{}", cc.alpha());
}

#[test]
fn a_marked_round_cuts_by_alpha_over_two_and_loss_by_half() {
    let (mut tp, mut cc) = started(PragueParams::default(), true);
    rounds(&mut cc, &mut tp, 300, 100, 20, Dur::ZERO);
    let a = cc.alpha();
    assert!((a - 0.2).abs() < 1e-3);
    assert_eq!(cc.ssthresh(&tp), 100 - (100.0 * a / 2.0) as u32);
    cc.set_state(&mut tp, CaState::Recovery);
    assert_eq!(tp.snd_ssthresh, 50);
    assert!(!cc.is_classic());
}

#[test]
fn marks_with_a_deep_queue_make_it_classic_and_a_shallow_one_scalable_again() {
    let (mut tp, mut cc) = started(PragueParams::default(), true);
    // A classic AQM holding 8 ms, marking 2 %: classic after 6 rounds.
    rounds(&mut cc, &mut tp, 5, 100, 2, Dur::from_ms(8));
    assert!(!cc.is_classic());
    rounds(&mut cc, &mut tp, 2, 100, 2, Dur::from_ms(8));
    assert!(cc.is_classic());
    assert_eq!(cc.ssthresh(&tp), 50, "classic: an ECN mark halves");
    // Unmarked rounds leave the verdict alone, however deep.
    rounds(&mut cc, &mut tp, 20, 100, 0, Dur::ZERO);
    assert!(cc.is_classic());
    // An L4S queue (0.5 ms) marking: scalable again.
    rounds(&mut cc, &mut tp, 6, 100, 2, Dur::from_us(500));
    assert!(!cc.is_classic());
    // With the fallback off, never classic.
    let off_params = PragueParams {
        classic_fallback: false,
        ..PragueParams::default()
    };
    let (mut tp, mut off) = started(off_params, true);
    rounds(&mut off, &mut tp, 50, 100, 2, Dur::from_ms(8));
    assert!(!off.is_classic());
}

#[test]
fn without_accecn_it_is_classic_for_good() {
    let (mut tp, mut cc) = started(PragueParams::default(), false);
    assert!(cc.is_classic());
    rounds(&mut cc, &mut tp, 20, 100, 2, Dur::from_us(100));
    assert!(cc.is_classic());
    assert_eq!(cc.ssthresh(&tp), 50);
}

#[test]
fn rtt_independence_scales_the_increase_by_the_rtt_ratio_squared() {
    let grow = |on: bool, srtt_ms: u64| {
        let mut tp = sock(100, true);
        tp.srtt = Dur::from_ms(srtt_ms);
        tp.is_cwnd_limited = true;
        let mut cc = Prague::new(PragueParams {
            rtt_independence: on,
            ..PragueParams::default()
        });
        cc.init(&mut tp);
        // 20 rounds of 100 ACKs.
        for _ in 0..2000 {
            cc.cong_avoid(&mut tp, 0, 1);
        }
        tp.snd_cwnd - 100
    };
    let (plain, scaled) = (grow(false, 5), grow(true, 5));
    assert!((18..=20).contains(&plain), "{plain}");
    // (5/25)² = 1/25 of the increase.
    assert!(scaled <= 2, "{scaled}");
    // At or above the target, no scaling.
    assert_eq!(grow(true, 30), grow(false, 30));
}

#[test]
fn paces_at_the_window_per_rtt() {
    let (mut tp, mut cc) = started(PragueParams::default(), true);
    cc.in_ack_event(&mut tp, 0);
    let want = 100.0 * 1500.0 * 8.0 / 0.020;
    let got = tp.pacing_rate_bps as f64;
    assert!((got / want - 1.0).abs() < 1e-6, "{got} vs {want}");
    assert!(cc.wants_pacing() && cc.l4s() && cc.needs_ecn());
    let _ = Time::ZERO;
}
