//! HighSpeed TCP against its response function (RFC 3649, as de Rezende,
//! Costa and Rubinstein §III restate it; their equation numbers): under
//! random loss p, a long flow on a path that never limits it keeps an
//! average window of about 0.12/p^0.835 packets (eq. 9), where Reno keeps
//! 1.2/√p (eq. 5); at and above Low_P it is Reno.

mod common;
use common::*;
use serde_json::{json, Value};

/// Round-trip time of the test path, ms.
const RTT_MS: u64 = 20;

/// Loss events per measured run: enough for the average to settle to
/// about ±8 % (one standard deviation over seeds, for both controls).
const LOSS_EVENTS: f64 = 100.0;

/// de Rezende, Costa and Rubinstein eq. 9: HighSpeed's response function for the default
/// parameters.
fn hstcp_window(p: f64) -> f64 {
    0.12 / p.powf(0.835)
}

/// de Rezende, Costa and Rubinstein eq. 5: standard TCP's.
fn reno_window(p: f64) -> f64 {
    1.2 / p.sqrt()
}

struct Measured {
    /// Time-average congestion window after warm-up, packets.
    w_avg: f64,
    /// The same from goodput: delivered packets per second × mean RTT.
    w_goodput: f64,
    /// Loss events (recoveries) and timeouts over the run.
    events: u64,
    timeouts: u64,
    /// Drops at queues (the path must never be the limit).
    overflows: u64,
}

/// One long flow of control `cc` on a 40 Gb/s path, 20 ms RTT, a queue
/// that never fills, and Bernoulli loss `p` on the data link; the run lasts
/// about [`LOSS_EVENTS`] loss events for a window of `w_guess` packets.
fn measure(cc: Value, p: f64, w_guess: f64, delayed_ack: bool) -> Measured {
    let (nodes, links) = path(
        40_000_000_000,
        RTT_MS * MS / 2,
        json!({"limit_pkts": 200_000}),
        p,
    );
    // A loss event every 1/(p·w) round trips.
    let secs = (LOSS_EVENTS / (p * w_guess) * RTT_MS as f64 / 1000.0).ceil() as u64;
    let flows = vec![
        json!({"kind": "tcp", "name": "f", "src": "snd", "dst": "rcv", "cc": cc,
                            "tcp": {"delayed_ack": delayed_ack}}),
    ];
    let rec = json!({"flow_sample_ps": 5 * MS});
    let out = go(&config(1, secs * S, nodes, links, flows, rec));
    let t = col_u64(&out, "flow_samples", "time_ps");
    let cwnd = col_u32(&out, "flow_samples", "cwnd_pkts");
    let delivered = col_u64(&out, "flow_samples", "delivered_bytes");
    let srtt = col_u64(&out, "flow_samples", "srtt_ps");
    // Skip the first tenth: slow start overshoots to the receive window.
    let from = t.len() / 10;
    let last = t.len() - 1;
    let n = (t.len() - from) as f64;
    // Samples are evenly spaced: the plain mean is the time average.
    let w_avg = cwnd[from..].iter().map(|&c| c as f64).sum::<f64>() / n;
    let rtt_s = srtt[from..].iter().map(|&r| r as f64).sum::<f64>() / n / S as f64;
    let pps = (delivered[last] - delivered[from]) as f64
        / 1448.0
        / ((t[last] - t[from]) as f64 / S as f64);
    Measured {
        w_avg,
        w_goodput: pps * rtt_s,
        events: col_u64(&out, "flows", "recoveries")[0],
        timeouts: col_u64(&out, "flows", "timeouts")[0],
        overflows: col_u64(&out, "queues", "drops_overflow").iter().sum(),
    }
}

fn check_sane(name: &str, p: f64, m: &Measured) {
    eprintln!(
        "p={p:e} {name}: w_avg={:.1} w_goodput={:.1} events={} timeouts={}",
        m.w_avg, m.w_goodput, m.events, m.timeouts
    );
    assert_eq!(m.overflows, 0, "{name}: the path must never be the limit");
    assert!(m.events >= 80, "{name}: only {} loss events", m.events);
    // The two ways of measuring the window agree on a queue-free path.
    assert!(
        (m.w_goodput / m.w_avg - 1.0).abs() < 0.02,
        "{name}: cwnd {:.1} vs goodput·RTT {:.1}",
        m.w_avg,
        m.w_goodput
    );
}

/// HSTCP and Reno at one loss rate, against their response functions and
/// each other.
///
/// Tolerances: the formulas are for periodic loss; Bernoulli loss lets
/// loss-free stretches run long, which Mathis et al. measured as about
/// +7 % for Reno (C = 1.31 instead of 1.22), and HSTCP sees the same
/// effect; the deterministic model also holds a(w), b(w) fixed over the
/// sawtooth. Over six seeds at the three loss rates below, the windows
/// measured 0.87–1.22 × the formula for HSTCP (mean 1.06) and 1.01–1.26 ×
/// for Reno (mean 1.12), ±8 % from seed to seed. Each must lie within
/// 25 % of the formula times that 1.07: [0.8, 1.34]. Their ratio, in which
/// most of the bias cancels, measured 0.86–1.00 × the formulas' ratio
/// (Reno gains a little more from random loss); it must be within ±20 %.
fn response_at(p: f64) {
    let hs = measure(json!({"kind": "highspeed"}), p, hstcp_window(p), true);
    let reno = measure(json!({"kind": "reno"}), p, reno_window(p), true);
    check_sane("highspeed", p, &hs);
    check_sane("reno", p, &reno);
    let hs_ratio = hs.w_avg / hstcp_window(p);
    let reno_ratio = reno.w_avg / reno_window(p);
    let gain = hs.w_avg / reno.w_avg;
    let gain_formula = hstcp_window(p) / reno_window(p);
    eprintln!(
        "p={p:e}: hstcp/0.12p^-0.835 = {hs_ratio:.3}, reno/1.2p^-0.5 = {reno_ratio:.3}, \
         hstcp/reno = {gain:.2} (formulas {gain_formula:.2})"
    );
    assert!(
        (0.8..1.34).contains(&hs_ratio),
        "p={p:e}: HSTCP window {:.1} vs {:.1}",
        hs.w_avg,
        hstcp_window(p)
    );
    assert!(
        (0.8..1.34).contains(&reno_ratio),
        "p={p:e}: Reno window {:.1} vs {:.1}",
        reno.w_avg,
        reno_window(p)
    );
    assert!(
        (gain / gain_formula - 1.0).abs() < 0.2,
        "p={p:e}: HSTCP/Reno {gain:.2}, formulas {gain_formula:.2}"
    );
}

#[test]
fn response_function_at_loss_rate_1e_4() {
    // w ≈ 263 (HSTCP), 120 (Reno): 2.2×.
    response_at(1e-4);
}

#[test]
fn response_function_at_loss_rate_3e_5() {
    // w ≈ 717 and 219: 3.3×.
    response_at(3e-5);
}

#[test]
fn response_function_at_loss_rate_1e_5() {
    // w ≈ 1800 and 380: 4.7×.
    response_at(1e-5);
}

/// Linux's table mode counts its increase per ACK. With an ACK per packet
/// it follows the response function like the formulas, a little above
/// (measured 1.10–1.17×: the table rounds a(w) up to its row's value and
/// b(w) down); same band as above, widened by that rounding: [0.8, 1.4].
/// With delayed ACKs it adds a(w)/2 per RTT. In the steady state w²·p is
/// proportional to a(w), so halving a is like doubling p: the window falls
/// by 2^-0.835 = 0.56 (0.62–0.66 with the table's rounding). Measured
/// 0.66–0.69 of the formula mode's window (which counts packets): band
/// [0.5, 0.8].
#[test]
fn linux_table_mode_counts_acks_not_packets() {
    let p = 1e-4;
    let table = json!({"kind": "highspeed", "mode": "linux_table"});
    let per_packet = measure(table.clone(), p, hstcp_window(p), false);
    check_sane("linux_table, ACK per packet", p, &per_packet);
    let ratio = per_packet.w_avg / hstcp_window(p);
    assert!((0.8..1.4).contains(&ratio), "ACK per packet: {ratio:.3}");
    let delayed = measure(table, p, hstcp_window(p) * 0.66, true);
    check_sane("linux_table, delayed ACKs", p, &delayed);
    let formula = measure(json!({"kind": "highspeed"}), p, hstcp_window(p), true);
    let slowdown = delayed.w_avg / formula.w_avg;
    eprintln!("table/formula with delayed ACKs: {slowdown:.3}");
    assert!((0.5..0.8).contains(&slowdown), "{slowdown:.3}");
}

/// At and above Low_P the window mostly stays at or below Low_Window,
/// where HSTCP is Reno (the unit tests check the trajectories are
/// identical there); only the stretches above 38 packets differ. Same loss
/// stream for both: the averages differed by 0.2 % at p = 1e-2 and 0.5 %
/// at 3e-3 (by 9 % at p = Low_P itself, where the random-loss average of
/// about 43 spends half its time above Low_Window). Bound: 2 %.
#[test]
fn at_high_loss_rates_it_is_reno() {
    for p in [1e-2, 3e-3] {
        let mut avg = Vec::new();
        for cc in [json!({"kind": "highspeed"}), json!({"kind": "reno"})] {
            let (nodes, links) = path(1_000_000_000, 10 * MS, json!({"limit_pkts": 200_000}), p);
            let flows =
                vec![json!({"kind": "tcp", "name": "f", "src": "snd", "dst": "rcv", "cc": cc})];
            let rec = json!({"flow_sample_ps": 5 * MS});
            let out = go(&config(3, 60 * S, nodes, links, flows, rec));
            let cwnd = col_u32(&out, "flow_samples", "cwnd_pkts");
            let from = cwnd.len() / 10;
            let w =
                cwnd[from..].iter().map(|&c| c as f64).sum::<f64>() / (cwnd.len() - from) as f64;
            assert!(col_u64(&out, "flows", "recoveries")[0] > 150);
            avg.push(w);
        }
        eprintln!("p={p}: HSTCP {:.2}, Reno {:.2}", avg[0], avg[1]);
        assert!(
            (avg[0] / avg[1] - 1.0).abs() < 0.02,
            "p={p}: HSTCP {:.2} vs Reno {:.2}",
            avg[0],
            avg[1]
        );
    }
}
