//! File-transfer tasks end to end: the FTP-like dialogue's timeline, the
//! three workloads, the growing flow arena and the ground-truth tag.

mod common;
use common::*;
use dumbbell_core::config::RunConfig;
use dumbbell_core::world::{run, RunOutput, World};
use serde_json::{json, Value};

/// Client `c` — router `r` — server `s`; `rate_bps` everywhere, `one_way`
/// propagation on each link.
fn ftp_net(rate_bps: u64, one_way_ps: u64, queue: Value) -> (Vec<Value>, Vec<Value>) {
    let nodes = vec![
        json!({"name": "c", "kind": "host"}),
        json!({"name": "r", "kind": "switch"}),
        json!({"name": "s", "kind": "host"}),
    ];
    let big = json!({"limit_pkts": 100000});
    let links = vec![
        json!({"a": "s", "b": "r", "rate_bps": rate_bps, "delay_ps": one_way_ps, "queue_ab": big, "queue_ba": big}),
        json!({"a": "r", "b": "c", "rate_bps": rate_bps, "delay_ps": one_way_ps, "queue_ab": queue, "queue_ba": big}),
    ];
    (nodes, links)
}

fn with_workloads(
    seed: u64,
    secs: u64,
    net: (Vec<Value>, Vec<Value>),
    workloads: Vec<Value>,
) -> RunConfig {
    let v = json!({"seed": seed, "duration_ps": secs * S, "nodes": net.0, "links": net.1,
                   "workloads": workloads});
    serde_json::from_value(v).expect("valid config")
}

fn ftp(name: &str, files: &[u64], arrivals: Value) -> Value {
    json!({"name": name, "clients": ["c"], "servers": ["s"],
           "sizes": {"kind": "files", "bytes": files}, "arrivals": arrivals,
           "control": {}, "cc": {"kind": "reno"}})
}

fn col_i64(out: &RunOutput, table: &str, col: &str) -> Vec<i64> {
    match out.table(table).unwrap().column(col).unwrap() {
        dumbbell_core::trace::Column::I64(v) => v.clone(),
        _ => panic!("{col} is not i64"),
    }
}

/// With links fast enough that serialization is negligible, a task's
/// timeline counts round trips: SYN and greeting (1), four requests and
/// replies (4), RETR (½) → the data connection opens at 5.5 RTT; its SYN,
/// SYN-ACK and one data segment take 1.5 RTT more.
#[test]
fn an_ftp_task_takes_the_round_trips_of_its_dialogue() {
    let one_way = 5 * MS; // two links: RTT 20 ms
    let rtt = 4.0 * one_way as f64;
    let cfg = with_workloads(
        1,
        2,
        ftp_net(10_000_000_000, one_way, json!({"limit_pkts": 1000})),
        vec![ftp("ftp", &[1000], json!({"kind": "all_at_once"}))],
    );
    let out = go(&cfg);
    let start = col_u64(&out, "tasks", "start_ps")[0] as f64;
    let data = col_i64(&out, "tasks", "data_start_ps")[0] as f64;
    let done = col_i64(&out, "tasks", "completion_ps")[0] as f64;
    let fct = col_i64(&out, "tasks", "fct_ps")[0] as f64;
    assert_eq!(start, 0.0);
    let tol = 0.01 * rtt;
    assert!(
        ((data - start) / rtt - 5.5).abs() * rtt < tol,
        "data opens at {} RTT",
        (data - start) / rtt
    );
    assert!((fct / rtt - 7.0).abs() * rtt < tol, "fct {} RTT", fct / rtt);
    assert_eq!(done, fct);
    assert_eq!(col_u64(&out, "tasks", "retransmits")[0], 0);
    // Task connections do not appear in `flows`.
    assert_eq!(out.table("flows").unwrap().rows(), 0);
}

#[test]
fn without_a_dialogue_a_task_is_one_connection() {
    let one_way = 5 * MS;
    let rtt = 4.0 * one_way as f64;
    let mut w = ftp("web", &[1000], json!({"kind": "all_at_once"}));
    w.as_object_mut().unwrap().remove("control");
    let cfg = with_workloads(
        1,
        1,
        ftp_net(10_000_000_000, one_way, json!({"limit_pkts": 1000})),
        vec![w],
    );
    let out = go(&cfg);
    let fct = col_i64(&out, "tasks", "fct_ps")[0] as f64;
    assert!((fct / rtt - 1.5).abs() < 0.01, "fct {} RTT", fct / rtt);
    assert_eq!(col_i64(&out, "tasks", "data_start_ps")[0], 0);
}

#[test]
fn all_at_once_starts_every_file_once_in_order_and_delivers_each() {
    let files: Vec<u64> = vec![500, 20_000, 3_000, 150_000, 16_384, 16_385, 1];
    let cfg = with_workloads(
        3,
        60,
        ftp_net(10_000_000, 100 * US, json!({"limit_pkts": 100000})),
        vec![ftp("base", &files, json!({"kind": "all_at_once"}))],
    );
    let out = go(&cfg);
    assert_eq!(col_u64(&out, "tasks", "size_bytes"), files);
    assert_eq!(
        col_i64(&out, "tasks", "file"),
        (0..files.len() as i64).collect::<Vec<_>>()
    );
    assert!(col_u64(&out, "tasks", "start_ps").iter().all(|&t| t == 0));
    assert!(
        col_i64(&out, "tasks", "completion_ps")
            .iter()
            .all(|&t| t > 0),
        "every task completes"
    );
    let long = match out.table("tasks").unwrap().column("long").unwrap() {
        dumbbell_core::trace::Column::Bool(v) => v.clone(),
        _ => unreachable!(),
    };
    assert_eq!(
        long,
        vec![false, true, false, true, false, true, false],
        "long iff > 16 KB"
    );
    assert!(out.summary_u64("packets_dropped") == 0);
}

/// The closed loop replaces each completed task at the instant it
/// completes: at every instant after the start exactly C tasks are active.
#[test]
fn the_closed_loop_keeps_exactly_c_tasks_active() {
    let c = 7usize;
    let files: Vec<u64> = vec![1_000, 8_000, 30_000, 120_000, 2_000];
    let cfg = with_workloads(
        5,
        30,
        ftp_net(2_000_000, 100 * US, json!({"limit_pkts": 100000})),
        vec![ftp(
            "loop",
            &files,
            json!({"kind": "closed_loop", "concurrency": c}),
        )],
    );
    let mut world = World::build(&cfg).unwrap();
    world.run();
    assert_eq!(world.active_tasks(), vec![c as u32]);
    assert!(
        world.open_connections() <= 3 * c,
        "finished tasks keep no connection state"
    );
    let out = world.finish().unwrap();
    let start = col_u64(&out, "tasks", "start_ps");
    let done = col_i64(&out, "tasks", "completion_ps");
    assert!(
        start.len() > 100,
        "the loop turned over: {} tasks",
        start.len()
    );
    // Every instant where something happens: active = started − completed.
    let mut times: Vec<u64> = start.clone();
    times.extend(done.iter().filter(|&&d| d >= 0).map(|&d| d as u64));
    times.sort_unstable();
    times.dedup();
    for t in times {
        let started = start.iter().filter(|&&s| s <= t).count();
        let finished = done.iter().filter(|&&d| d >= 0 && d as u64 <= t).count();
        assert_eq!(started - finished, c, "at t = {t} ps");
    }
    // Files are drawn uniformly: each of the five appears.
    let picked = col_i64(&out, "tasks", "file");
    for i in 0..files.len() as i64 {
        assert!(picked.contains(&i), "file {i} never drawn");
    }
}

#[test]
fn poisson_arrivals_come_at_the_configured_rate() {
    let w = json!({"name": "web", "clients": ["c"], "servers": ["s"],
                   "sizes": {"kind": "cdf", "points": [[1000.0, 0.0], [3000.0, 1.0]]},
                   "arrivals": {"kind": "poisson", "rate_per_s": 200.0}, "stop_ps": 20 * S});
    let cfg = with_workloads(
        9,
        21,
        ftp_net(1_000_000_000, 10 * US, json!({"limit_pkts": 1000})),
        vec![w],
    );
    let out = go(&cfg);
    let n = col_u64(&out, "tasks", "start_ps").len() as f64;
    // Poisson(4000): sigma = 63.
    assert!((n - 4000.0).abs() < 300.0, "{n} arrivals");
    let sizes = col_u64(&out, "tasks", "size_bytes");
    let mean = sizes.iter().sum::<u64>() as f64 / n;
    assert!((mean - 2000.0).abs() < 30.0, "mean size {mean}");
    assert!(sizes.iter().all(|&s| (1000..=3000).contains(&s)));
}

/// Every packet of a long task carries the long tag, control included: the
/// ideal classifier at the bottleneck sends the whole task to the long
/// queue, and the confusion matrix has no off-diagonal count.
#[test]
fn the_ideal_classifier_follows_the_tasks_tag_control_connection_included() {
    let q = json!({"limit_pkts": 100000, "classifier": {"kind": "ideal"}, "scheduler": {"kind": "prio"}});
    let cfg = with_workloads(
        1,
        30,
        ftp_net(10_000_000, 100 * US, q),
        vec![ftp("one", &[200_000], json!({"kind": "all_at_once"}))],
    );
    let out = go(&cfg);
    let get = |c: &str| col_u64(&out, "classification", c)[0];
    assert_eq!(
        get("short_as_short") + get("short_as_long") + get("long_as_short"),
        0
    );
    let data_pkts = 200_000u64.div_ceil(1448);
    // Greeting, 4 replies, 150, the control ACKs, SYN-ACK... all long.
    assert!(
        get("long_as_long") > data_pkts + 5,
        "{} decisions",
        get("long_as_long")
    );
    assert_eq!(col_f64(&out, "classification", "pa_l")[0], 1.0);
    assert!(col_f64(&out, "classification", "pa_c")[0].is_nan());
}

#[test]
fn task_runs_are_deterministic_and_seed_dependent() {
    let q = json!({"limit_pkts": 100000, "classifier": {"kind": "rafle", "n": 10}, "scheduler": {"kind": "rr"}});
    let mk = |seed| {
        with_workloads(
            seed,
            20,
            ftp_net(2_000_000, 100 * US, q.clone()),
            vec![ftp(
                "loop",
                &[1_000, 50_000, 200_000],
                json!({"kind": "closed_loop", "concurrency": 5}),
            )],
        )
    };
    let a = go(&mk(1));
    let b = go(&mk(1));
    let c = go(&mk(2));
    for col in ["completion_ps", "data_start_ps"] {
        assert_eq!(col_i64(&a, "tasks", col), col_i64(&b, "tasks", col));
    }
    assert_eq!(
        col_u64(&a, "classification", "long_as_long"),
        col_u64(&b, "classification", "long_as_long")
    );
    assert_ne!(col_i64(&a, "tasks", "file"), col_i64(&c, "tasks", "file"));
}

#[test]
fn bad_workloads_name_the_field() {
    let net = ftp_net(10_000_000, 100 * US, json!({"limit_pkts": 1000}));
    let cases = [
        (
            json!({"name": "w", "clients": ["c"], "servers": ["r"], "sizes": {"kind": "files", "bytes": [1]},
                "arrivals": {"kind": "all_at_once"}}),
            "workloads[0].servers[0]",
        ),
        (
            json!({"name": "w", "clients": ["c"], "servers": ["c"], "sizes": {"kind": "files", "bytes": [1]},
                "arrivals": {"kind": "all_at_once"}}),
            "workloads[0].servers[0]",
        ),
        (
            json!({"name": "w", "clients": ["c"], "servers": ["s"], "sizes": {"kind": "files", "bytes": [1, 0]},
                "arrivals": {"kind": "all_at_once"}}),
            "workloads[0].sizes.bytes[1]",
        ),
        (
            json!({"name": "w", "clients": ["c"], "servers": ["s"], "sizes": {"kind": "files", "bytes": [1]},
                "arrivals": {"kind": "closed_loop", "concurrency": 0}}),
            "workloads[0].arrivals.concurrency",
        ),
        (
            json!({"name": "w", "clients": ["c"], "servers": ["s"], "sizes": {"kind": "cdf", "points": [[1.0, 0.0], [2.0, 1.0]]},
                "arrivals": {"kind": "all_at_once"}}),
            "workloads[0].max_tasks",
        ),
        (
            json!({"name": "w", "clients": ["c"], "servers": ["s"], "sizes": {"kind": "files", "bytes": [1]},
                "arrivals": {"kind": "all_at_once"}, "control": {"rounds": 2, "request_bytes": 0}}),
            "workloads[0].control.request_bytes",
        ),
        (
            json!({"name": "w", "clients": ["x"], "servers": ["s"], "sizes": {"kind": "files", "bytes": [1]},
                "arrivals": {"kind": "all_at_once"}}),
            "workloads[0].clients[0]",
        ),
    ];
    for (w, field) in cases {
        let cfg = with_workloads(1, 1, net.clone(), vec![w]);
        let e = match run(&cfg, Default::default()) {
            Err(dumbbell_core::world::RunError::Config(e)) => e,
            other => panic!(
                "expected a config error for {field}, got {:?}",
                other.map(|_| ())
            ),
        };
        assert_eq!(e.field, field, "{}", e.message);
    }
}

/// A classifier that moves a flow between queues mid-stream can reorder it:
/// RuN2C sends the segments below 16 KB to the short queue and the rest to
/// the long one, and round robin then lets the first long segments overtake
/// short ones still queued. A FIFO never reorders, and nothing is lost here,
/// so every out-of-order arrival is reordering.
#[test]
fn splitting_a_flow_across_two_queues_reorders_it_and_a_fifo_does_not() {
    let run = |q: Value| {
        let (nodes, mut links) = ftp_net(1_000_000, 100 * US, q);
        links[0]["rate_bps"] = json!(100_000_000); // the queue builds at the router
        let cfg = with_workloads(
            1,
            30,
            (nodes, links),
            vec![ftp("one", &[300_000], json!({"kind": "all_at_once"}))],
        );
        let out = go(&cfg);
        assert_eq!(out.summary_u64("packets_dropped"), 0);
        assert!(col_i64(&out, "tasks", "completion_ps")[0] > 0);
        col_u64(&out, "tasks", "out_of_order")[0]
    };
    assert_eq!(run(json!({"limit_pkts": 100000})), 0);
    let split = run(
        json!({"limit_pkts": 100000, "classifier": {"kind": "run2c"}, "scheduler": {"kind": "rr"}}),
    );
    assert!(split > 0, "RuN2C + RR reordered nothing");
}

/// Handshakes slower than the 1 s initial RTO (RTT 4 s: one-way 1 s per
/// link): every SYN times out twice (at 1 s and 3 s) before its SYN-ACK
/// arrives. With timestamps (Linux's default) the SYN-ACK echoes the first
/// SYN's timestamp, so the timeouts were spurious: the data connection
/// keeps its initial window and an RTO of 3·RTT from the echoed sample, a
/// 10-segment file arrives in one round and the task takes 7 RTT, as on a
/// fast path (`an_ftp_task_takes_the_round_trips_of_its_dialogue`).
/// Without timestamps, two SYN retransmissions cut the window to 1
/// (RFC 5681 §3.1, Linux `tcp_init_transfer`) and the file needs several
/// rounds; the RTO falls back to 3 s (RFC 6298 §5.7), here shorter than
/// the RTT, so the data connection also times out.
#[test]
fn late_syns_cost_nothing_with_timestamps_and_cut_the_window_without() {
    let one_way = S;
    let rtt = 4.0 * one_way as f64;
    let file = 10 * 1448;
    let run_with = |timestamps: bool| -> (f64, u64, u64, u64) {
        let mut w = ftp("ftp", &[file], json!({"kind": "all_at_once"}));
        w["tcp"] = json!({"timestamps": timestamps});
        let cfg = with_workloads(
            1,
            120,
            ftp_net(10_000_000_000, one_way, json!({"limit_pkts": 1000})),
            vec![w],
        );
        let out = go(&cfg);
        let fct = col_i64(&out, "tasks", "fct_ps")[0] as f64;
        let retx = col_u64(&out, "tasks", "retransmits")[0];
        let control = col_u64(&out, "tasks", "control_retransmits")[0];
        (
            fct / rtt,
            col_u64(&out, "tasks", "syn_retransmits")[0],
            retx - control,
            col_u64(&out, "tasks", "undos")[0],
        )
    };
    let (with_ts, syns, data_retx, undos) = run_with(true);
    assert_eq!(syns, 4, "two SYN timeouts on each of the two handshakes");
    assert!((with_ts - 7.0).abs() < 0.01, "fct {with_ts} RTT");
    assert_eq!(data_retx, 0, "the data connection retransmits nothing");
    assert!(
        undos >= 1,
        "the greeting's spurious timeout is undone (Eifel)"
    );
    let (without, syns, data_retx, _) = run_with(false);
    assert_eq!(syns, 4);
    assert!(without > 8.5, "fct {without} RTT: the window was cut to 1");
    assert!(data_retx > 0, "RTO 3 s < RTT 4 s: a spurious timeout");
}
