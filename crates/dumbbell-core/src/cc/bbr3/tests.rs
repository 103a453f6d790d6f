//! BBRv3's arithmetic against hand-worked values: the loss threshold,
//! where in a lost flight it is crossed, the lower-bound cuts, the
//! headroom, and the parameters' checks.

use super::bounds::Flight;
use super::*;
use crate::param::Params;
use crate::sim::rng_for;

fn bbr3() -> Bbr3 {
    Bbr3::new(Bbr3Params::default(), rng_for(0, "t"))
}

fn make(json: &str) -> Result<Box<dyn CongestionControl>, crate::param::ParamError> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let p: Params = v.as_object().unwrap().clone();
    (REGISTRATION.make)(&p, rng_for(0, "t"))
}

#[test]
fn defaults_are_the_v3_constants_in_linux_units() {
    let t = Tunables::new(&Bbr3Params::default());
    assert_eq!(t.startup_pacing_gain, 256 * 277 / 100 + 1);
    assert_eq!(t.drain_gain, 256 * 1000 / 2885);
    assert_eq!(t.pacing_gain, [320, 256 * 91 / 100, 256, 256]);
    assert_eq!(t.beta, 256 * 30 / 100);
    assert_eq!(t.loss_thresh, 256 * 2 / 100);
    assert_eq!(t.ecn_thresh, 128);
    assert_eq!(t.ecn_factor, 256 / 3);
    assert_eq!(t.ecn_alpha_gain, 16);
    assert_eq!(t.inflight_headroom, 256 * 15 / 100);
}

#[test]
fn loss_above_the_threshold_of_the_flight_is_too_high() {
    let b = bbr3();
    // 5/256 of 400 packets is 7.8: 7 lost is within, 8 is not.
    let f = |lost| Flight {
        lost,
        tx_in_flight: 400,
        ..Flight::default()
    };
    assert!(!b.is_inflight_too_high(&f(7)));
    assert!(b.is_inflight_too_high(&f(8)));
    // ECN counts only once eligible.
    let ce = Flight {
        delivered: 100,
        delivered_ce: 60,
        ..Flight::default()
    };
    assert!(!b.is_inflight_too_high(&ce));
    let mut e = bbr3();
    e.ecn_eligible = true;
    assert!(e.is_inflight_too_high(&ce));
    assert!(!e.is_inflight_too_high(&Flight {
        delivered_ce: 50,
        ..ce
    }));
}

#[test]
fn the_lost_segments_flight_is_cut_where_losses_crossed_the_threshold() {
    let b = bbr3();
    // 200 in flight before this segment, 2 lost before it: the budget is
    // ⌈200 · 5/256⌉ = 4, so 2 more packets of loss fit; with the flight
    // growing by x, (2 + x)/(200 + x) = 5/256 gives x = 2·256/251 = 2.
    let f = Flight {
        lost: 3,
        tx_in_flight: 201,
        ..Flight::default()
    };
    assert_eq!(b.inflight_hi_from_lost(&f), 202);
    // Losses before it already crossed: the flight before it.
    let f = Flight {
        lost: 10,
        tx_in_flight: 201,
        ..Flight::default()
    };
    assert_eq!(b.inflight_hi_from_lost(&f), 200);
    // A snapshot without the segment itself is refused, as Linux warns.
    let f = Flight {
        lost: 0,
        tx_in_flight: 201,
        ..Flight::default()
    };
    assert_eq!(b.inflight_hi_from_lost(&f), NO_BOUND);
}

#[test]
fn headroom_leaves_fifteen_percent_of_inflight_hi() {
    let mut b = bbr3();
    assert_eq!(b.inflight_with_headroom(), NO_BOUND);
    b.inflight_hi = 200;
    assert_eq!(b.inflight_with_headroom(), 200 - 200 * 38 / 256);
    b.inflight_hi = 3;
    assert_eq!(b.inflight_with_headroom(), CWND_MIN_TARGET);
}

#[test]
fn a_lossy_round_outside_probing_cuts_the_lower_bounds_by_beta() {
    let mut b = bbr3();
    b.mode = Mode::ProbeBw;
    b.phase = Phase::Cruise;
    b.bw_hi = [1000, 0];
    b.loss_in_round = true;
    b.inflight_latest = 50;
    b.bw_latest = 300;
    let mut tp = TcpSock::new(1448, 100);
    tp.snd_cwnd = 100;
    b.adapt_lower_bounds_for_test(&tp);
    // 100 · (1 − 76/256) = 70.3 → 70; 1000 · 180/256 = 703.
    assert_eq!(b.inflight_lo, 70);
    assert_eq!(b.bw_lo, 703);
    // Never below the latest round's delivered volume.
    b.inflight_latest = 65;
    b.loss_in_round = true;
    b.adapt_lower_bounds_for_test(&tp);
    assert_eq!(b.inflight_lo, 65);
    // Probing (UP) leaves them alone.
    b.phase = Phase::Up;
    b.loss_in_round = true;
    b.adapt_lower_bounds_for_test(&tp);
    assert_eq!(b.inflight_lo, 65);
}

#[test]
fn bad_parameters_are_named() {
    for (json, name) in [
        (r#"{"beta": 1.0}"#, "beta"),
        (r#"{"loss_thresh": 0}"#, "loss_thresh"),
        (r#"{"loss_thresh": 0.9}"#, "loss_thresh"),
        (r#"{"probe_down_gain": 1.5}"#, "probe_down_gain"),
        (r#"{"full_bw_cnt": 0}"#, "full_bw_cnt"),
        (r#"{"ecn_thresh": -0.1}"#, "ecn_thresh"),
        (r#"{"probe_rtt_win_ms": 20000}"#, "probe_rtt_win_ms"),
    ] {
        let e = make(json)
            .err()
            .unwrap_or_else(|| panic!("{json} accepted"));
        assert_eq!(e.param.as_deref(), Some(name), "{json}: {}", e.why);
    }
    let e = make(r#"{"gamma": 1}"#).err().unwrap();
    assert!(e.why.contains("unknown field `gamma`"), "{}", e.why);
    assert!(make("{}").is_ok());
}

#[test]
fn ecn_needs_the_shallow_threshold_path() {
    assert!(!make("{}").unwrap().needs_ecn());
    assert!(make(r#"{"ecn_low": true}"#).unwrap().needs_ecn());
}

#[test]
fn alpha_is_an_ewma_of_the_rounds_ce_fraction_and_two_marked_rounds_end_startup() {
    let mut b = Bbr3::new(
        Bbr3Params {
            ecn_low: true,
            ..Bbr3Params::default()
        },
        rng_for(0, "t"),
    );
    let mut tp = TcpSock::new(1448, 10);
    tp.ecn_ok = true;
    b.init(&mut tp);
    b.min_rtt = Dur::from_ms(1); // below ecn_max_rtt_ms (5)
                                 // A round of 100 delivered, 50 marked: alpha 1 → 15/16 + 1/16 · 1/2.
    tp.delivered = 100;
    tp.delivered_ce = 50;
    b.update_ecn_alpha(&tp);
    assert!(b.ecn_eligible);
    assert_eq!(b.ecn_alpha, ((240 * 256) >> 8) + ((16 * 128) >> 8));
    assert!(
        !b.full_bw_reached(),
        "one round at the threshold is not enough"
    );
    tp.delivered = 200;
    tp.delivered_ce = 100;
    b.update_ecn_alpha(&tp);
    assert!(b.full_bw_reached(), "the second marked round ends Startup");
    assert!(b.inflight_hi().is_some());
    // Without the shallow-threshold path, marks are ignored.
    let mut plain = bbr3();
    plain.init(&mut tp);
    plain.min_rtt = Dur::from_ms(1);
    tp.delivered = 300;
    tp.delivered_ce = 300;
    plain.update_ecn_alpha(&tp);
    assert!(!plain.ecn_eligible && plain.ecn_alpha() == 1.0);
}

#[test]
fn windows_run_on_jiffies_as_linux_times_them() {
    // msecs_to_jiffies at HZ 250 rounds up to whole 4 ms ticks
    assert_eq!(to_jiffies(Dur::from_ms(5000)), 1250);
    assert_eq!(to_jiffies(Dur::from_ms(200)), 50);
    assert_eq!(to_jiffies(Dur::from_ms(10_000)), 2500);
    assert_eq!(to_jiffies(Dur::from_ps(4_000_000_001)), 2);
    assert_eq!(jiffies(Time::from_ps(3_999_999_999)), 0);
    assert_eq!(jiffies(Time::from_ps(4_000_000_000)), 1);
    // ProbeRTT is due once the jiffies pass the stamp plus 1250: at
    // 5.003999 s (jiffy 1250) not yet, at 5.004 s (jiffy 1251) it is.
    let due = |now_ps: u64| {
        let mut b = bbr3();
        let mut tp = TcpSock::new(1448, 100);
        b.init(&mut tp);
        b.mode = Mode::ProbeBw;
        tp.now = Time::from_ps(now_ps);
        b.update_min_rtt(&mut tp, &RateSample::default());
        b.mode == Mode::ProbeRtt
    };
    assert!(!due(5_003_999_999_999));
    assert!(due(5_004_000_000_000));
}

#[test]
fn samples_are_in_whole_microseconds_as_linux_takes_them() {
    let mut b = bbr3();
    // 10 packets over 1999.9 µs: Linux divides by interval_us = 1999,
    // rounding up
    let rs = RateSample {
        delivered: Some(10),
        interval: Dur::from_ps(1_999_900_000),
        ..RateSample::default()
    };
    b.calculate_bw_sample(&rs);
    assert_eq!(b.sample_bw, (10u64 << 24).div_ceil(1999));
    // under a whole microsecond the sample is not valid (interval_us 0)
    let short = RateSample {
        interval: Dur::from_ps(999_999),
        ..rs
    };
    assert!(!valid(&short));
    b.calculate_bw_sample(&short);
    assert_eq!(b.sample_bw, 0);
}
