//! `cargo run --release -p dumbbell-kmod --example compare_long -- PATH.c PORT_JSON [DURATION_MS]`:
//! the differential check of `module compare` on five longer runs (12 s
//! by default; 100 Mb/s, 20 ms RTT: a 1-BDP and a quarter-BDP drop-tail
//! buffer, 2 % and 0.5 % random loss with a 2-BDP buffer, and two flows,
//! the second 0.7 s later). BBRv3 probes for bandwidth every 2 to 3 s and
//! enters ProbeRTT every 5 s, beyond the fixed scenarios' 3 s
//! (docs/kernel-modules.md). PORT_JSON is the port's core configuration,
//! e.g. `'{"kind": "registered", "name": "bbr3"}'`.

use dumbbell_core::config::CcConfig;
use dumbbell_kmod::{compare, BuildOptions, ModuleSpec};
use serde_json::{json, Value};

fn ms(x: u64) -> u64 {
    x * 1_000_000_000
}

/// One run: `senders` hosts into one bottleneck of `rate` b/s, 20 ms RTT.
fn run(seed: u64, duration_ps: u64, rate: u64, queue_pkts: u32, loss: f64, senders: u64) -> Value {
    let mut nodes = vec![
        json!({"name": "s", "kind": "switch"}),
        json!({"name": "c", "kind": "host"}),
    ];
    let mut links = vec![
        json!({"a": "s", "b": "c", "rate_bps": rate, "delay_ps": ms(10),
        "loss_ab": loss, "queue_ab": {"limit_pkts": queue_pkts}}),
    ];
    let mut flows = Vec::new();
    for i in 0..senders {
        let h = format!("h{i}");
        nodes.push(json!({"name": h, "kind": "host"}));
        links.push(json!({"a": h, "b": "s", "rate_bps": rate * 10, "delay_ps": ms(10)}));
        flows.push(json!({"kind": "tcp", "name": format!("f{i}"), "src": h, "dst": "c",
            "start_ps": ms(700) * i, "cc": {"kind": "external", "id": format!("cc:{h}")}, "tcp": {}}));
    }
    json!({"seed": seed, "duration_ps": duration_ps, "nodes": nodes, "links": links, "flows": flows,
           "record": {"flow_sample_ps": ms(100)}})
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: compare_long PATH.c PORT_JSON [DURATION_MS]");
        std::process::exit(2);
    }
    let port: CcConfig = serde_json::from_str(&args[2]).expect("a built-in control");
    let spec = ModuleSpec {
        id: String::new(),
        source: args[1].clone().into(),
        params: Vec::new(),
        host: String::new(),
        build: BuildOptions::default(),
    };
    let d = ms(args
        .get(3)
        .map_or(12_000, |s| s.parse().expect("milliseconds")));
    let bdp = 170; // 100 Mb/s · 20 ms in 1500-byte packets
    let runs = [
        ("long-1bdp", run(11, d, 100_000_000, bdp, 0.0, 1)),
        ("long-quarter-bdp", run(12, d, 100_000_000, bdp / 4, 0.0, 1)),
        ("long-loss-2pct", run(13, d, 100_000_000, 2 * bdp, 0.02, 1)),
        (
            "long-loss-0.5pct",
            run(14, d, 100_000_000, 2 * bdp, 0.005, 1),
        ),
        ("long-two-flows", run(15, d, 100_000_000, bdp, 0.0, 2)),
    ];
    let mut results = Vec::new();
    for (name, config) in runs {
        let s = compare::Scenario { name, config };
        match compare::compare_one(&s, &port, &spec) {
            Ok(r) => results.push(r),
            Err(e) => {
                eprintln!("{name}: {e}");
                std::process::exit(2);
            }
        }
    }
    let doc = compare::report_json(&args[1], &args[2], &results);
    println!("{}", serde_json::to_string_pretty(&doc).unwrap());
}
