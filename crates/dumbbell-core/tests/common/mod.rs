//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

use dumbbell_core::config::RunConfig;
use dumbbell_core::world::{run, RunOutput};
use serde_json::{json, Value};

pub const MS: u64 = 1_000_000_000;
pub const US: u64 = 1_000_000;
pub const S: u64 = 1_000_000_000_000;

/// A star of hosts around switch `s1`, every link `rate_bps` with one-way `delay_ps`.
pub fn star(hosts: &[&str], rate_bps: u64, delay_ps: u64) -> (Vec<Value>, Vec<Value>) {
    let mut nodes = vec![json!({"name": "s1", "kind": "switch"})];
    let mut links = vec![];
    for h in hosts {
        nodes.push(json!({"name": h, "kind": "host"}));
        links.push(json!({"a": h, "b": "s1", "rate_bps": rate_bps, "delay_ps": delay_ps}));
    }
    (nodes, links)
}

/// Sender `snd` - switch `r` - receiver `rcv`: a fast access link and a
/// bottleneck `r -> rcv` with the given queue, loss and one-way delay.
pub fn path(rate_bps: u64, one_way_ps: u64, queue: Value, loss: f64) -> (Vec<Value>, Vec<Value>) {
    let nodes = vec![
        json!({"name": "snd", "kind": "host"}),
        json!({"name": "r", "kind": "switch"}),
        json!({"name": "rcv", "kind": "host"}),
    ];
    let links = vec![
        json!({"a": "snd", "b": "r", "rate_bps": rate_bps * 10, "delay_ps": 0,
               "queue_ab": {"limit_pkts": 100000}}),
        json!({"a": "r", "b": "rcv", "rate_bps": rate_bps, "delay_ps": one_way_ps,
               "loss_ab": loss, "queue_ab": queue}),
    ];
    (nodes, links)
}

pub fn config(
    seed: u64,
    duration_ps: u64,
    nodes: Vec<Value>,
    links: Vec<Value>,
    flows: Vec<Value>,
    record: Value,
) -> RunConfig {
    let v = json!({"seed": seed, "duration_ps": duration_ps, "nodes": nodes, "links": links,
                   "flows": flows, "record": record});
    serde_json::from_value(v).expect("valid config")
}

pub fn go(cfg: &RunConfig) -> RunOutput {
    run(cfg, Default::default()).expect("run succeeds")
}

pub fn col_u64(out: &RunOutput, table: &str, col: &str) -> Vec<u64> {
    out.table(table).unwrap().u64s(col).unwrap().to_vec()
}

pub fn col_f64(out: &RunOutput, table: &str, col: &str) -> Vec<f64> {
    out.table(table).unwrap().f64s(col).unwrap().to_vec()
}

pub fn col_u32(out: &RunOutput, table: &str, col: &str) -> Vec<u32> {
    match out.table(table).unwrap().column(col).unwrap() {
        dumbbell_core::trace::Column::U32(v) => v.clone(),
        _ => panic!("{col} is not u32"),
    }
}

pub fn col_str(out: &RunOutput, table: &str, col: &str) -> Vec<String> {
    let c = out.table(table).unwrap().column(col).unwrap();
    let rows = c.strings().unwrap_or_else(|| panic!("{col} is not str"));
    rows.into_iter().map(str::to_string).collect()
}

/// The port id of `node -> peer`.
pub fn port(out: &RunOutput, node: &str, peer: &str) -> usize {
    let n = col_str(out, "queues", "node");
    let p = col_str(out, "queues", "peer");
    (0..n.len())
        .find(|&i| n[i] == node && p[i] == peer)
        .expect("port exists")
}

pub fn col_bool(out: &RunOutput, table: &str, col: &str) -> Vec<bool> {
    match out.table(table).unwrap().column(col).unwrap() {
        dumbbell_core::trace::Column::Bool(v) => v.clone(),
        _ => panic!("{col} is not bool"),
    }
}

/// Every table but the summary's event count, as `run_json`'s `physics`
/// line hashes them.
pub fn assert_same_physics(a: &RunOutput, b: &RunOutput, what: &str) {
    assert_eq!(a.tables.len(), b.tables.len());
    for (x, y) in a.tables.iter().zip(&b.tables) {
        if x.name != "summary" {
            assert_eq!(x, y, "{what}: the {} table differs", x.name);
            continue;
        }
        for ((n, c), (m, d)) in x.columns.iter().zip(&y.columns) {
            assert_eq!(n, m);
            if n != "events" {
                assert_eq!(c, d, "{what}: the summary's {n} differs");
            }
        }
    }
}
