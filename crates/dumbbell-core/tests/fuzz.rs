//! A fuzzer of the core's JSON decoder and world builder that stays in the
//! test suite.
//!
//! Documents are a kitchen-sink configuration (every queue discipline, a
//! two-class port, every control with parameters, UDP, file-transfer tasks,
//! every recorder) mutated one to four times:
//! a value replaced by a hostile one (0, −1, 2^63, 2^64, 1e300, booleans,
//! strings, null, empty containers), a field removed, an unknown field
//! added, a list element duplicated. The rule every document must satisfy:
//!
//! - a clean `ConfigError` (or a `Limit` error) naming a field, or
//! - a run that finishes or is stopped (by a budget of events),
//!
//! never a panic, an abort, an internal error or a hang.
//!
//! Budget: proptest's `PROPTEST_CASES` (256 by default, a few seconds; `make
//! fuzz` runs 20 000). A failure proptest finds is kept in
//! `fuzz.proptest-regressions` (replayed first, every run), and documents
//! that once broke the core live as files in `tests/fuzz_cases/`, replayed
//! by `every_regression_case_is_refused_or_runs`.

use dumbbell_core::sim::RunMonitor;
use dumbbell_core::world::{run_json, RunError, RunOptions};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Events a fuzzed run may execute before it is stopped.
const EVENT_BUDGET: u64 = 50_000;

fn kitchen_sink() -> Value {
    let ms = 1_000_000_000u64;
    json!({
        "seed": 7, "duration_ps": 20 * ms,
        "nodes": [
            {"name": "a", "kind": "host"}, {"name": "b", "kind": "host"},
            {"name": "c", "kind": "host"}, {"name": "d", "kind": "host"},
            {"name": "s1", "kind": "switch"},
            {"name": "s2", "kind": "switch", "pipeline": {"capacity_pps": 200000.0, "buffer_pkts": 512}}],
        "links": [
            {"a": "a", "b": "s1", "rate_bps": 1_000_000_000u64, "delay_ps": 10_000_000,
             "jitter_ps": 1_000_000, "queue_ab": {"limit_bytes": 200_000}},
            {"a": "b", "b": "s1", "rate_bps": 1_000_000_000u64, "delay_ps": 10_000_000,
             "loss_ab": 0.001},
            {"a": "s1", "b": "s2", "rate_bps": 100_000_000u64, "delay_ps": ms,
             "queue_ab": {"limit_pkts": 300, "aqm": {"kind": "red", "min_th": 30000.0,
                 "max_th": 90000.0, "max_p": 0.1, "wlog": 9, "ecn": true, "gentle": true}},
             "queue_ba": {"limit_pkts": 100, "aqm": {"kind": "step", "k_pkts": 20, "at": "dequeue"},
                          "service_pps": 50000.0,
                          "feedback": {"kind": "hysteresis", "upper_pkts": 42, "lower_pkts": 36}}},
            {"a": "s2", "b": "c", "rate_bps": 100_000_000u64, "delay_ps": 10_000_000,
             "queue_ab": {"aqm": {"kind": "hysteresis", "upper_pkts": 42, "lower_pkts": 36}}},
            {"a": "s2", "b": "d", "rate_bps": 100_000_000u64, "delay_ps": 10_000_000,
             "queue_ab": {"limit_pkts": 200, "classifier": {"kind": "rafle", "n": 40},
                          "scheduler": {"kind": "drr", "quantum_short_bytes": 1514},
                          "long_queue": {"limit_pkts": 100}}}],
        "workloads": [{"name": "ftp", "clients": ["d"], "servers": ["b"],
            "sizes": {"kind": "files", "bytes": [20000, 5000, 100000]},
            "arrivals": {"kind": "closed_loop", "concurrency": 3}, "control": {},
            "cc": {"kind": "reno"}, "tcp": {"mss_bytes": 1448}}],
        "flows": [
            {"kind": "tcp", "name": "cubic", "src": "a", "dst": "c",
             "cc": {"kind": "cubic", "beta": 0.7, "c": 0.4, "hystart_low_window": 16},
             "tcp": {"mss_bytes": 1448, "min_rto_ps": 200 * ms, "max_rto_ps": 120_000 * ms,
                     "init_rto_ps": 1000 * ms, "delack_timeout_ps": 40 * ms, "tsq_bytes": 131072}},
            {"kind": "tcp", "name": "dctcp", "src": "b", "dst": "d", "cc": {"kind": "dctcp", "shift_g": 4},
             "bytes": 300_000, "tcp": {"ecn": true, "init_cwnd_pkts": 10, "rwnd_bytes": 1_000_000}},
            {"kind": "tcp", "name": "bbr", "src": "c", "dst": "a", "start_ps": 2 * ms,
             "cc": {"kind": "bbr", "high_gain": 2.885, "min_rtt_win_s": 10.0}, "tcp": {"max_rate_bps": 500_000_000u64}},
            {"kind": "tcp", "name": "hs", "src": "d", "dst": "a",
             "cc": {"kind": "highspeed", "low_window": 38, "high_p": 1e-7}},
            {"kind": "tcp", "name": "vegas", "src": "a", "dst": "d", "cc": {"kind": "vegas", "alpha": 2, "beta": 4}},
            {"kind": "tcp", "name": "linear", "src": "b", "dst": "c",
             "cc": {"kind": "linear", "ss_alpha": 2.0, "adaptive": true}, "stop_ps": 15 * ms},
            {"kind": "tcp", "name": "frac", "src": "c", "dst": "b", "cc": {"kind": "fractional", "gamma_r": [0, 4, 5, 1]}},
            {"kind": "tcp", "name": "expo", "src": "d", "dst": "b", "cc": {"kind": "expolinear", "sigma_per_ms": 0.25}},
            {"kind": "tcp", "name": "reno", "src": "a", "dst": "b", "cc": {"kind": "reno"},
             "tcp": {"sack": false, "delayed_ack": false, "handshake": false, "dupthresh": 3}},
            {"kind": "udp", "name": "cbr", "src": "b", "dst": "a", "rate_bps": 10_000_000u64,
             "payload_bytes": 1470, "start_ps": ms, "stop_ps": 10 * ms}],
        "record": {"flow_sample_ps": ms, "cwnd_every_ack": true, "drop_log": true,
            "queues": [{"node": "s1", "peer": "s2", "dequeue_times": true},
                       {"node": "s2", "peer": "c", "sample_ps": 100_000_000u64, "from_ps": ms,
                        "to_ps": 15 * ms}]}
    })
}

/// Hostile values (JSON cannot carry NaN or infinities; 1e400 is one).
fn nasty(i: usize) -> Value {
    let all = [
        json!(0),
        json!(-1),
        json!(1),
        json!(7),
        json!(0.5),
        json!(1e-12),
        json!(1e300),
        json!(-1e300),
        json!(9223372036854775808u64),   // 2^63
        json!(18446744073709551615u64),  // 2^64 - 1
        json!(4294967296u64),            // 2^32
        json!(1_000_000_000_000_000u64), // 1e15
        json!(true),
        json!(false),
        json!(""),
        json!("x"),
        json!("1e3"),
        Value::Null,
        json!([]),
        json!({}),
        json!([1, 2]),
        json!({"kind": "westwood"}),
    ];
    all[i % all.len()].clone()
}

/// Every path in a document: keys and indices from the root.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn paths(v: &Value, here: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(here.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                here.push(Step::Key(k.clone()));
                paths(x, here, out);
                here.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                here.push(Step::Index(i));
                paths(x, here, out);
                here.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    let mut cur = v;
    for s in path {
        cur = match (s, cur) {
            (Step::Key(k), Value::Object(m)) => m.get_mut(k)?,
            (Step::Index(i), Value::Array(a)) => a.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// Applies one mutation: `op` picks what, `pick` where, `val` which value.
fn mutate(doc: &mut Value, pick: u32, op: u8, val: usize) {
    let mut all = Vec::new();
    paths(doc, &mut Vec::new(), &mut all);
    let path = all[pick as usize % all.len()].clone();
    match op {
        // Replace a value (the root only by a table, to keep mutations deep).
        0 | 1 => {
            if !path.is_empty() {
                if let Some(x) = at(doc, &path) {
                    *x = nasty(val);
                }
            }
        }
        // Remove a field or a list element.
        2 => {
            if let Some((last, parent)) = path.split_last() {
                match (last, at(doc, parent)) {
                    (Step::Key(k), Some(Value::Object(m))) => {
                        m.remove(k);
                    }
                    (Step::Index(i), Some(Value::Array(a))) => {
                        a.remove(*i);
                    }
                    _ => {}
                }
            }
        }
        // Add an unknown field to a table.
        3 => {
            if let Some(Value::Object(m)) = at(doc, &path) {
                m.insert("surprise".into(), nasty(val));
            }
        }
        // Duplicate a list element (duplicate names, links, flows).
        _ => {
            if let Some(Value::Array(a)) = at(doc, &path) {
                if let Some(x) = a.first().cloned() {
                    a.push(x);
                }
            }
        }
    }
}

/// Events at one instant that count as a stuck loop here (the kitchen sink
/// has a few dozen at most), below the event budget so a stuck loop is found.
const INSTANT_LIMIT: u64 = 20_000;

/// Whether the field names a place in the document: its parent exists.
fn names_a_place(doc: &Value, field: &str) -> bool {
    let mut steps = Vec::new();
    for part in field.split('.') {
        let (key, rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            steps.push(Step::Key(key.to_string()));
        }
        for idx in rest.split('[') {
            if let Ok(i) = idx.trim_end_matches(']').parse() {
                steps.push(Step::Index(i));
            }
        }
    }
    steps.pop();
    let mut v = doc.clone();
    at(&mut v, &steps).is_some()
}

/// The rule: a clean error naming a field, or a run that ends.
fn check(text: &str) -> Result<&'static str, String> {
    let m = RunMonitor::with_event_limit(EVENT_BUDGET).with_instant_limit(INSTANT_LIMIT);
    match run_json(
        text,
        RunOptions {
            monitor: Some(&m),
            ..Default::default()
        },
    ) {
        Ok(out) if out.stopped => Ok("stopped"),
        Ok(_) => Ok("finished"),
        Err(RunError::Config(e)) | Err(RunError::Limit(e)) => {
            let doc: Value = serde_json::from_str(text).unwrap_or(Value::Null);
            if e.field.is_empty() || e.message.is_empty() || e.message.contains('\n') {
                Err(format!("unclear error {e:?}"))
            } else if e.field == "config" || !names_a_place(&doc, &e.field) {
                Err(format!("the error names no place in the document: {e:?}"))
            } else {
                Ok("refused")
            }
        }
        Err(RunError::Internal(msg)) => Err(format!("internal error: {msg}")),
    }
}

#[test]
fn mutated_configurations_are_refused_cleanly_or_run() {
    use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};
    use std::cell::RefCell;
    // The default configuration reads PROPTEST_CASES. Failures are kept in
    // tests/fuzz.proptest-regressions (cargo runs tests in the crate's
    // directory), replayed first on every run; proptest's default,
    // source-parallel persistence finds no lib.rs beside an integration test.
    let config = Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/fuzz.proptest-regressions",
        ))),
        max_shrink_iters: 2000,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let census: RefCell<std::collections::BTreeMap<&str, usize>> = Default::default();
    let strategy = proptest::collection::vec((any::<u32>(), 0u8..5, 0usize..64), 1..5);
    let result = runner.run(&strategy, |muts| {
        let mut doc = kitchen_sink();
        for &(pick, op, val) in &muts {
            mutate(&mut doc, pick, op, val);
        }
        let text = doc.to_string();
        match check(&text) {
            Ok(kind) => {
                *census.borrow_mut().entry(kind).or_default() += 1;
                Ok(())
            }
            Err(e) => Err(TestCaseError::fail(format!("{e}\ndocument: {text}"))),
        }
    });
    eprintln!(
        "core fuzzer census (last shrinking steps included): {:?}",
        census.borrow()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn the_kitchen_sink_itself_runs() {
    assert_eq!(check(&kitchen_sink().to_string()), Ok("finished"));
}

/// Documents that once broke the core (found by fuzzing, or reported), one
/// JSON file each; `expect` in the file name's prefix: `refused-...` must be
/// refused naming the field in the file's `"_field"`, `runs-...` must run.
#[test]
fn every_regression_case_is_refused_or_runs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_cases");
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let mut doc: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let want = doc.as_object_mut().unwrap().remove("_field");
        let text = doc.to_string();
        let got = check(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Some(Value::String(field)) = want {
            let Err(RunError::Config(e) | RunError::Limit(e)) = run_json(
                &text,
                RunOptions {
                    monitor: Some(&RunMonitor::with_event_limit(EVENT_BUDGET)),
                    ..Default::default()
                },
            ) else {
                panic!(
                    "{}: expected a refusal naming {field}, got {got}",
                    path.display()
                );
            };
            assert_eq!(e.field, field, "{}: {}", path.display(), e.message);
        } else {
            assert_ne!(got, "refused", "{}: expected a run", path.display());
        }
        n += 1;
    }
    assert!(n >= 10, "only {n} regression cases in {}", dir.display());
}
