//! L4S end to end (issue 26): TCP Prague and Cubic through DualPI2 at
//! 100 Mb/s and a 20 ms base RTT, and Prague on a classic ECN (RED) queue.
//! What RFC 9332 and the PI2 paper (De Schepper et al., CoNEXT 2016) say the
//! coupled AQM does: sub-2 ms queues for L4S traffic at full utilisation,
//! rates of a scalable and a classic flow within a small factor of each
//! other (k = 2), the classic queue held near PI2's 15 ms target; and what
//! RFC 9331 §4.3 asks of Prague on a classic bottleneck: fall back.

mod common;
use common::*;
use serde_json::{json, Value};

const RATE: u64 = 100_000_000;
const BASE_RTT: u64 = 20 * MS;

fn prague(params: Value) -> Value {
    json!({"kind": "registered", "name": "prague", "params": params})
}

fn flow(name: &str, cc: Value, ecn: bool, start_ms: u64) -> Value {
    json!({"kind": "tcp", "name": name, "src": "snd", "dst": "rcv", "cc": cc,
           "tcp": {"ecn": ecn}, "start_ps": start_ms * MS})
}

/// Runs `flows` over the dumbbell path with `queue` at the bottleneck for
/// `secs`, sampling every millisecond, steady state after 4 s.
fn run(seed: u64, queue: Value, flows: Vec<Value>, secs: u64) -> dumbbell_core::world::RunOutput {
    let (nodes, links) = path(RATE, BASE_RTT / 2, queue, 0.0);
    let rec = json!({"flow_sample_ps": MS, "warmup_ps": 4 * S});
    go(&config(seed, secs * S, nodes, links, flows, rec))
}

/// One Prague flow (ECT(1)) and one Cubic flow without ECN, from the start.
fn prague_and_cubic() -> Vec<Value> {
    vec![
        flow("p", prague(json!({})), true, 0),
        flow("c", json!({"kind": "cubic"}), false, 0),
    ]
}

fn dualpi2() -> Value {
    json!({"limit_pkts": 10000, "aqm": {"kind": "dualpi2"}})
}

/// Values of `var` for `flow` in cc_vars after `from`.
fn var(out: &dumbbell_core::world::RunOutput, flow: u32, name: &str, from: u64) -> Vec<f64> {
    let t = col_u64(out, "cc_vars", "time_ps");
    let f = col_u32(out, "cc_vars", "flow");
    let v = col_str(out, "cc_vars", "var");
    let x = col_f64(out, "cc_vars", "value");
    (0..t.len())
        .filter(|&i| f[i] == flow && v[i] == name && t[i] >= from)
        .map(|i| x[i])
        .collect()
}

fn quantile(mut v: Vec<f64>, q: f64) -> f64 {
    assert!(!v.is_empty());
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// Steady goodput of every flow, bit/s.
fn goodputs(out: &dumbbell_core::world::RunOutput) -> Vec<f64> {
    col_f64(out, "flows", "steady_goodput_bps")
}

#[test]
fn prague_through_dualpi2_keeps_p99_queueing_delay_under_2ms_at_full_link() {
    let out = run(
        1,
        dualpi2(),
        vec![flow("p", prague(json!({})), true, 0)],
        12,
    );
    let qdelay: Vec<f64> = var(&out, 0, "rtt_sample_ms", 4 * S)
        .into_iter()
        .map(|r| r - 20.0)
        .collect();
    let p99 = quantile(qdelay.clone(), 0.99);
    let p50 = quantile(qdelay, 0.5);
    assert!(
        p99 <= 2.0,
        "Prague queueing delay p99 {p99:.3} ms (p50 {p50:.3})"
    );
    let g = goodputs(&out)[0];
    // Goodput counts payload: 1448 of 1500 bytes on the wire.
    let used = g / RATE as f64 * 1500.0 / 1448.0;
    assert!(used > 0.95, "link {:.1} % used", used * 100.0);
    // Every data packet reached the L queue as ECT(1) and was marked there.
    let marked = col_u64(&out, "queues", "marked_pkts")[port(&out, "r", "rcv")];
    assert!(marked > 100, "{marked} marks");
}

#[test]
fn one_prague_and_one_cubic_share_dualpi2_within_a_factor_of_two() {
    let out = run(2, dualpi2(), prague_and_cubic(), 30);
    let g = goodputs(&out);
    let ratio = g[0].max(g[1]) / g[0].min(g[1]);
    assert!(
        ratio < 2.0,
        "Prague {:.1} Mb/s, Cubic {:.1} Mb/s",
        g[0] / 1e6,
        g[1] / 1e6
    );
    let used = (g[0] + g[1]) / RATE as f64 * 1500.0 / 1448.0;
    assert!(used > 0.9, "link {:.1} % used", used * 100.0);
}

#[test]
fn cubic_alone_sits_near_the_pi2_target() {
    let out = run(
        3,
        dualpi2(),
        vec![flow("c", json!({"kind": "cubic"}), false, 0)],
        20,
    );
    let t = col_u64(&out, "flow_samples", "time_ps");
    let srtt = col_u64(&out, "flow_samples", "srtt_ps");
    let q: Vec<f64> = (0..t.len())
        .filter(|&i| t[i] >= 5 * S && srtt[i] > 0)
        .map(|i| (srtt[i] - BASE_RTT) as f64 / MS as f64)
        .collect();
    let med = quantile(q, 0.5);
    assert!(
        (8.0..=22.0).contains(&med),
        "Cubic queueing delay median {med:.2} ms (target 15)"
    );
}

/// RED with ECN, thresholds 100 and 300 packets (12 to 36 ms at 100 Mb/s):
/// a classic bottleneck. With the fallback, Prague detects the deep marked
/// queue, halves on marks as Cubic does, and the two share; without it,
/// Prague's small DCTCP-like cuts take most of the link.
#[test]
fn prague_on_a_classic_red_queue_falls_back_to_classic() {
    let red = json!({"limit_pkts": 1000, "aqm": {"kind": "red", "min_th": 100, "max_th": 300,
                     "max_p": 0.1, "ecn": true, "wlog": 9, "bytes_mode": false}});
    let share = |fallback: bool| {
        let flows = vec![
            flow("p", prague(json!({"classic_fallback": fallback})), true, 0),
            flow("c", json!({"kind": "cubic"}), true, 0),
        ];
        let out = run(4, red.clone(), flows, 30);
        let classic = var(&out, 0, "classic", 10 * S);
        let g = goodputs(&out);
        (
            g[0] / (g[0] + g[1]),
            classic.iter().sum::<f64>() / classic.len() as f64,
        )
    };
    let (on, classic_on) = share(true);
    let (off, classic_off) = share(false);
    assert!(
        classic_on > 0.9,
        "classic {classic_on:.2} of the time with the fallback"
    );
    assert_eq!(classic_off, 0.0);
    assert!(on < 0.7, "Prague's share with the fallback {on:.2}");
    assert!(
        off > on + 0.1,
        "Prague's share without {off:.2}, with {on:.2}"
    );
}

#[test]
fn prague_without_ecn_is_refused_naming_the_field() {
    let (nodes, links) = path(RATE, BASE_RTT / 2, dualpi2(), 0.0);
    let flows = vec![flow("p", prague(json!({})), false, 0)];
    let cfg = config(1, S, nodes, links, flows, json!({}));
    let e = dumbbell_core::world::run(&cfg, Default::default())
        .err()
        .expect("refused");
    let s = format!("{e:?}");
    assert!(s.contains("flows[0].tcp.ecn"), "{s}");
}

/// The `queues` table's `dualpi2_*` columns (runs with a DualPI2 port only):
/// each packet the port admitted went to the lane its codepoint names
/// (Prague's ECT(1) to L, Not-ECT Cubic to C), the port's drops are the
/// probability's, a CE mark comes from the step or the coupled
/// probability or both, and a port of another discipline counts nothing.
#[test]
fn dualpi2_counters_account_for_every_admitted_packet_mark_and_drop() {
    let out = run(3, dualpi2(), prague_and_cubic(), 6);
    let q = |c: &str| col_u64(&out, "queues", c);
    let b = port(&out, "r", "rcv");
    let (l, c) = (q("dualpi2_l_enqueued")[b], q("dualpi2_c_enqueued")[b]);
    assert_eq!(l + c, q("enqueued_pkts")[b]);
    // every data packet of each flow reached the bottleneck but those still
    // in the sender's NIC at the end (the access link is 10x faster); both
    // connections' SYNs are Not-ECT, so the C lane has two more
    let sent = col_u64(&out, "flows", "data_pkts_sent");
    assert!(
        l <= sent[0] && sent[0] - l < 50,
        "L {l} of Prague's {}",
        sent[0]
    );
    let c_data = c - 2;
    assert!(
        c_data <= sent[1] && sent[1] - c_data < 50,
        "C {c} of Cubic's {}",
        sent[1]
    );
    assert_eq!(q("dualpi2_prob_drops")[b], q("drops_dualpi2")[b]);
    let (step, prob) = (q("dualpi2_step_marks")[b], q("dualpi2_prob_marks")[b]);
    let marked = q("marked_pkts")[b];
    assert!(step > 0 && prob > 0, "step {step}, coupled/classic {prob}");
    assert!(
        step.max(prob) <= marked && marked <= step + prob,
        "{marked} marks: step {step}, prob {prob}"
    );
    // 100 Mb/s with one flow of each kind is far from k·p' > 1
    assert_eq!(q("dualpi2_overloaded")[b], 0);
    assert_eq!(q("dualpi2_overload_drops")[b], 0);
    let spared = q("dualpi2_l_floor_spared")[b] + q("dualpi2_c_floor_spared")[b];
    assert!(spared <= q("dequeued_pkts")[b]);
    for name in [
        "dualpi2_l_enqueued",
        "dualpi2_c_enqueued",
        "dualpi2_step_marks",
        "dualpi2_prob_marks",
    ] {
        let v = q(name);
        assert!(
            v.iter().enumerate().all(|(i, &x)| i == b || x == 0),
            "{name} {v:?}"
        );
    }
    // a run without DualPI2 keeps its table's shape
    let red = json!({"limit_pkts": 1000, "aqm": {"kind": "red", "min_th": 20, "max_th": 60,
                     "max_p": 0.1, "ecn": true, "wlog": 9, "bytes_mode": false}});
    let other = run(
        3,
        red,
        vec![flow("c", json!({"kind": "cubic"}), true, 0)],
        1,
    );
    assert!(other
        .table("queues")
        .unwrap()
        .column("dualpi2_step_marks")
        .is_none());
}
