//! A module's skb-sizing hooks (`tso_segs`, `min_tso_segs` of
//! `tcp_congestion_ops`) with TSO-sized bursts on (`gso_max_bytes`): a
//! module that sets them sizes its own skbs, as a built-in control does;
//! one without them is sized by the generic autosize, exactly as the
//! built-in control it equals. `tests/kmod/tso_hooks.c` is Reno through
//! the kernel's helpers with both hooks, each left out at 0.

use dumbbell_core::cc::ExternalControls;
use dumbbell_core::config::RunConfig;
use dumbbell_core::world::{self, RunOutput};
use dumbbell_kmod::{BuildOptions, KmodControls, ModuleSpec};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;

const MS: u64 = 1_000_000_000;
const MSS: u64 = 1448;
const HEADER: u64 = 40;
const GSO: u64 = 65_536;

fn opts() -> BuildOptions {
    BuildOptions {
        cache_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kmod-cache"),
        ..BuildOptions::default()
    }
}

/// One bulk flow `a -> s -> c` (1 Gb/s then 100 Mb/s, 20 ms RTT) with
/// TSO-sized bursts on, `tcp` its further options; the sender's NIC traced.
fn doc(cc: Value, tcp: Value, loss: f64) -> RunConfig {
    let mut tcp = tcp;
    tcp["gso_max_bytes"] = json!(GSO);
    let doc = json!({
        "seed": 5, "duration_ps": 800 * MS,
        "nodes": [{"name": "a", "kind": "host"}, {"name": "s", "kind": "switch"},
                  {"name": "c", "kind": "host"}],
        "links": [
            {"a": "a", "b": "s", "rate_bps": 1_000_000_000u64, "delay_ps": MS},
            {"a": "s", "b": "c", "rate_bps": 100_000_000u64, "delay_ps": 9 * MS,
             "queue_ab": {"limit_pkts": 1000}, "loss_ab": loss},
        ],
        "flows": [{"kind": "tcp", "name": "f", "src": "a", "dst": "c", "cc": cc, "tcp": tcp}],
        "record": {"packets": [{"node": "a", "peer": "s"}]},
    });
    RunConfig::from_json(&doc.to_string()).unwrap()
}

/// The run with `tso_hooks.c` as the flow's control (`params`).
fn run_module(params: &[(&str, &str)], tcp: Value, loss: f64) -> RunOutput {
    let spec = ModuleSpec {
        id: "m".into(),
        source: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/kmod/tso_hooks.c"),
        params: params
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        host: "a".into(),
        build: opts(),
    };
    let f: Arc<dyn ExternalControls> = Arc::new(KmodControls::new(&[spec]).unwrap());
    let opts = world::RunOptions {
        monitor: None,
        external: Some(&f),
    };
    let cfg = doc(json!({"kind": "external", "id": "m"}), tcp, loss);
    world::run(&cfg, opts).unwrap()
}

fn run_builtin(cc: Value, tcp: Value, loss: f64) -> RunOutput {
    world::run(&doc(cc, tcp, loss), world::RunOptions::default()).unwrap()
}

/// The traced NIC's rows: (time, event, flow, size).
fn packets(out: &RunOutput) -> Vec<(u64, String, u32, u32)> {
    let t = out.table("packets").expect("a packets table");
    let time = t.u64s("time_ps").unwrap();
    let ev = t.column("event").unwrap().strings().unwrap();
    let u32s = |name: &str| match t.column(name).unwrap() {
        dumbbell_core::trace::Column::U32(v) => v.clone(),
        c => panic!("{name} is {c:?}"),
    };
    let (flow, size) = (u32s("flow"), u32s("size_bytes"));
    (0..time.len())
        .map(|i| (time[i], ev[i].to_string(), flow[i], size[i]))
        .collect()
}

/// The segments of each skb the NIC received after `from_ps`: data
/// segments enqueued at one instant.
fn skb_segments(out: &RunOutput, from_ps: u64) -> Vec<u64> {
    let mut skbs: Vec<(u64, u64)> = vec![];
    for (t, ev, _, size) in packets(out) {
        if ev != "enqueue" || size as u64 <= HEADER || t < from_ps {
            continue;
        }
        match skbs.last_mut() {
            Some(s) if s.0 == t => s.1 += 1,
            _ => skbs.push((t, 1)),
        }
    }
    skbs.into_iter().map(|s| s.1).collect()
}

/// Paced at 50 Mb/s (below the bottleneck: the window grows past any
/// skb): Linux's autosize is 50 Mb/s / 8 >> 10 = 6103 bytes, 4 segments
/// (a 20 ms min RTT adds no bonus: 20 000 µs >> 9 ≥ 32).
fn paced() -> Value {
    json!({"max_rate_bps": 50_000_000u64})
}
const AUTOSIZE_AT_50M: u64 = (50_000_000 / 8 >> 10) / MSS;

/// The skbs after 300 ms carry the 50 Mb/s pace (within 5 %) of the
/// 500 ms left: the window never holds the sender back.
fn assert_near_the_pace(skbs: &[u64]) {
    let bits = skbs.iter().sum::<u64>() * (MSS + HEADER) * 8;
    let rate = bits as f64 / 0.5;
    assert!(
        (rate / 50e6 - 1.0).abs() < 0.05,
        "{rate} b/s in {} skbs",
        skbs.len()
    );
}

#[test]
fn a_module_that_sets_tso_segs_sends_skbs_of_that_size() {
    assert_eq!(AUTOSIZE_AT_50M, 4);
    for segs in [7u64, 11] {
        let gso = GSO.to_string();
        let out = run_module(&[("segs", &segs.to_string()), ("gso", &gso)], paced(), 0.0);
        let skbs = skb_segments(&out, 300 * MS);
        assert_near_the_pace(&skbs);
        assert!(
            skbs.iter().all(|&n| n == segs),
            "tso_segs {segs}: skbs of {:?}",
            skbs.iter().collect::<std::collections::BTreeSet<_>>()
        );
    }
}

#[test]
fn the_largest_skb_caps_what_tso_segs_asks() {
    // 200 segments do not fit in 64 KB: 45 of 1448 bytes do.
    let out = run_module(&[("segs", "200")], paced(), 0.0);
    let skbs = skb_segments(&out, 300 * MS);
    assert!(skbs.len() > 20, "{} skbs", skbs.len());
    assert_eq!(skbs.iter().max(), Some(&(GSO / MSS)));
}

#[test]
fn min_tso_segs_is_the_floor_of_the_generic_autosize() {
    // 6 above the autosize's 4: the floor; 3 below it: the autosize.
    for (floor, want) in [(6u64, 6u64), (3, AUTOSIZE_AT_50M)] {
        let out = run_module(&[("min_segs", &floor.to_string())], paced(), 0.0);
        let skbs = skb_segments(&out, 300 * MS);
        assert_near_the_pace(&skbs);
        assert!(
            skbs.iter().all(|&n| n == want),
            "min_tso_segs {floor}: skbs of {:?}",
            skbs.iter().collect::<std::collections::BTreeSet<_>>()
        );
    }
}

#[test]
fn without_the_hooks_a_module_is_sized_as_the_builtin_control() {
    // Paced: the generic autosize, as the built-in Reno.
    let module = run_module(&[], paced(), 0.0);
    let builtin = run_builtin(json!({"kind": "reno"}), paced(), 0.0);
    let skbs = skb_segments(&module, 300 * MS);
    assert!(skbs.iter().all(|&n| n == AUTOSIZE_AT_50M), "{skbs:?}");
    assert_eq!(packets(&module), packets(&builtin));
    // Unpaced with 0.5 % loss (TSO deferral, retransmitted skbs,
    // recovery): the same packets, to the picosecond.
    let module = run_module(&[], json!({}), 0.005);
    let builtin = run_builtin(json!({"kind": "reno"}), json!({}), 0.005);
    let rows = packets(&module);
    let retx = module.table("flows").unwrap().u64s("retransmits").unwrap()[0];
    assert!(
        retx >= 3 && rows.len() > 3000,
        "{retx} retransmits, {} rows",
        rows.len()
    );
    assert!(
        skb_segments(&module, 0).iter().any(|&n| n > 2),
        "skbs of several segments"
    );
    assert_eq!(rows, packets(&builtin));
}

#[test]
fn module_compare_with_tso_on_pairs_the_hookless_module_with_the_builtin_in_every_scenario() {
    // `module compare`'s seven scenarios with TSO-sized bursts on every
    // connection: Reno through the kernel's helpers, without the sizing
    // hooks, against the built-in Reno, call for call.
    let spec = ModuleSpec {
        id: String::new(),
        source: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/kmod/tso_hooks.c"),
        params: vec![],
        host: String::new(),
        build: opts(),
    };
    for s in dumbbell_kmod::compare::scenarios() {
        let mut config = s.config.clone();
        for f in config["flows"].as_array_mut().unwrap() {
            f["tcp"]["gso_max_bytes"] = json!(GSO);
        }
        let sc = dumbbell_kmod::compare::Scenario {
            name: s.name,
            config,
        };
        let reno = dumbbell_core::config::CcConfig::Reno;
        let r = dumbbell_kmod::compare::compare_one(&sc, &reno, &spec).unwrap();
        assert!(r.acks > 100, "{}: {} ACKs", s.name, r.acks);
        assert_eq!(r.first_difference, None, "{}", s.name);
        // and a skb size of its own shows in the same comparison
        if s.name == "slow-start-overflow-sack" {
            let three = ModuleSpec {
                params: vec![("segs".into(), "3".into())],
                ..spec.clone()
            };
            let d = dumbbell_kmod::compare::compare_one(&sc, &reno, &three).unwrap();
            assert!(
                d.first_difference.is_some(),
                "skbs of 3 segments change the run"
            );
        }
    }
}
