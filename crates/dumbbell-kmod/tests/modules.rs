//! The shim with dumbbell's own test modules (`tests/kmod/*.c` at the
//! repository's root): building, loading, parameters, errors, and modules
//! driving the core's stack.

use dumbbell_core::cc::ExternalControls;
use dumbbell_core::config::{CcConfig, RunConfig};
use dumbbell_core::trace::Column;
use dumbbell_core::world;
use dumbbell_kmod::compare::{self, Scenario};
use dumbbell_kmod::{BuildOptions, KmodControls, KmodError, ModuleSpec};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;

fn module(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/kmod")
        .join(name)
}

fn opts() -> BuildOptions {
    BuildOptions {
        cache_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kmod-cache"),
        ..BuildOptions::default()
    }
}

fn spec(file: &str, id: &str, host: &str, params: &[(&str, &str)]) -> ModuleSpec {
    ModuleSpec {
        id: id.into(),
        source: module(file),
        params: params
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        host: host.into(),
        build: opts(),
    }
}

/// One bulk flow from `a` through a 50 Mb/s, 20 ms bottleneck with a
/// 60-packet drop-tail queue, recording cwnd on every ACK.
fn one_flow(cc: Value) -> RunConfig {
    let ms = 1_000_000_000u64;
    let doc = json!({
        "seed": 11, "duration_ps": 2000 * ms,
        "nodes": [{"name": "a", "kind": "host"}, {"name": "s", "kind": "switch"},
                  {"name": "c", "kind": "host"}],
        "links": [
            {"a": "a", "b": "s", "rate_bps": 1_000_000_000u64, "delay_ps": ms},
            {"a": "s", "b": "c", "rate_bps": 50_000_000u64, "delay_ps": 9 * ms,
             "queue_ab": {"limit_pkts": 60}},
        ],
        "flows": [{"kind": "tcp", "name": "f", "src": "a", "dst": "c", "cc": cc}],
        "record": {"cwnd_every_ack": true, "flow_sample_ps": 10 * ms},
    });
    RunConfig::from_json(&doc.to_string()).unwrap()
}

fn run_module(file: &str, params: &[(&str, &str)]) -> world::RunOutput {
    let f: Arc<dyn ExternalControls> =
        Arc::new(KmodControls::new(&[spec(file, "m", "a", params)]).unwrap());
    let opts = world::RunOptions {
        monitor: None,
        external: Some(&f),
    };
    world::run(&one_flow(json!({"kind": "external", "id": "m"})), opts).unwrap()
}

fn cwnd_trace(out: &world::RunOutput) -> Vec<u64> {
    let t = out.table("cwnd").expect("a cwnd table");
    match t.column("cwnd_pkts").expect("a cwnd_pkts column") {
        Column::U32(v) => v.iter().map(|&x| x as u64).collect(),
        c => panic!("cwnd_pkts is {c:?}"),
    }
}

#[test]
fn a_fixed_window_module_holds_the_window_it_sets() {
    let out = run_module("fixed_window.c", &[("window", "17")]);
    let cwnd = cwnd_trace(&out);
    assert!(cwnd.len() > 100, "{} samples", cwnd.len());
    let distinct: std::collections::BTreeSet<u64> = cwnd.iter().copied().collect();
    assert_eq!(distinct.len(), 1, "{distinct:?}");
    assert_eq!(distinct.iter().next(), Some(&17));
    let other = run_module("fixed_window.c", &[("window", "33")]);
    assert_eq!(
        cwnd_trace(&other).iter().max(),
        Some(&33),
        "the parameter sets the window"
    );
}

#[test]
fn the_rfc5681_reno_module_matches_the_builtin_reno_ack_by_ack() {
    let s = Scenario {
        name: "lossy",
        config: {
            let mut c: Value =
                serde_json::to_value(one_flow(json!({"kind": "external", "id": "cc:a"}))).unwrap();
            c["links"][1]["loss_ab"] = json!(0.01);
            c
        },
    };
    let r =
        compare::compare_one(&s, &CcConfig::Reno, &spec("reno_rfc5681.c", "", "", &[])).unwrap();
    assert!(r.acks > 500, "{} ACKs compared", r.acks);
    assert_eq!(r.first_difference, None);
    // and a module that is not Reno differs, at a named call
    let f =
        compare::compare_one(&s, &CcConfig::Reno, &spec("fixed_window.c", "", "", &[])).unwrap();
    let d = f.first_difference.expect("a fixed window is not Reno");
    assert_eq!(d.field, "cwnd", "{d:?}");
}

#[test]
fn every_shim_helper_answers_as_the_kernel_documents() {
    // The module traps on any wrong answer; its window is the kernel's
    // Reno helpers', so it matches the built-in Reno.
    let s = Scenario {
        name: "helpers",
        config: serde_json::to_value(one_flow(json!({"kind": "external", "id": "cc:a"}))).unwrap(),
    };
    let r =
        compare::compare_one(&s, &CcConfig::Reno, &spec("every_helper.c", "", "", &[])).unwrap();
    assert!(r.acks > 1000, "{} ACKs", r.acks);
    assert_eq!(r.first_difference, None);
}

#[test]
fn a_module_that_does_not_compile_gives_the_compilers_file_and_line() {
    let e = dumbbell_kmod::build(&module("does_not_compile.c"), &opts()).unwrap_err();
    match e {
        KmodError::Compile {
            file, line, error, ..
        } => {
            assert!(file.ends_with("does_not_compile.c"), "{file}");
            assert!((9..=10).contains(&line), "line {line}");
            assert!(error.contains("expected ';'"), "{error}");
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn a_missing_shim_symbol_is_named() {
    let e = dumbbell_kmod::build(&module("missing_symbol.c"), &opts()).unwrap_err();
    assert_eq!(
        match &e {
            KmodError::MissingSymbol { symbol, .. } => symbol.as_str(),
            _ => panic!("{e:?}"),
        },
        "tcp_imaginary_helper"
    );
    assert!(e.to_string().contains("`tcp_imaginary_helper`"), "{e}");
}

#[test]
fn an_unknown_parameter_lists_the_modules_parameters() {
    let e = KmodControls::new(&[spec("every_helper.c", "m", "a", &[("chekcs", "1")])])
        .err()
        .unwrap();
    let msg = e.to_string();
    assert!(
        msg.contains("\"chekcs\"") && msg.contains("checks, verbose"),
        "{msg}"
    );
    let bad = KmodControls::new(&[spec("fixed_window.c", "m", "a", &[("window", "-3")])])
        .err()
        .unwrap();
    assert!(matches!(bad, KmodError::BadParam { .. }), "{bad:?}");
}

#[test]
fn builds_are_cached_by_content() {
    let a = dumbbell_kmod::build(&module("fixed_window.c"), &opts()).unwrap();
    let b = dumbbell_kmod::build(&module("fixed_window.c"), &opts()).unwrap();
    assert_eq!(a, b);
    let other = BuildOptions { hz: 1000, ..opts() };
    let c = dumbbell_kmod::build(&module("fixed_window.c"), &other).unwrap();
    assert_ne!(a, c, "HZ is part of the key");
}

#[test]
fn each_host_has_its_own_kernel() {
    // A module's statics (the crash module's call counter) are per
    // kernel: two connections of one host share one loaded copy, two
    // hosts have two.
    let specs = [
        spec("crashes.c", "x", "a", &[]),
        spec("crashes.c", "y", "b", &[]),
        spec("crashes.c", "z", "a", &[]),
    ];
    let k = KmodControls::new(&specs).unwrap();
    let (x, y, z) = (
        k.instance("x").unwrap(),
        k.instance("y").unwrap(),
        k.instance("z").unwrap(),
    );
    assert!(Arc::ptr_eq(x, z), "one kernel per host");
    assert!(!Arc::ptr_eq(x, y), "two hosts, two kernels");
}
