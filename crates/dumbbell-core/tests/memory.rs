//! Memory is linear in the number of nodes: a data-center-sized star of
//! 100 000 hosts builds and runs in well under 1 GB.
//!
//! One test in its own binary (its own process), so the peak resident set
//! read from `/proc/self/status` is this test's alone.

use dumbbell_core::config::RunConfig;
use dumbbell_core::world;
use serde_json::json;

/// Peak resident set of this process, bytes (Linux `VmHWM`).
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[test]
fn a_100k_host_star_builds_and_runs_under_1_gb() {
    // The document as the Python front end hands it over: one JSON text.
    let hosts = 100_000;
    let mut nodes = vec![json!({"name": "s1", "kind": "switch"}).to_string()];
    let mut links = Vec::with_capacity(hosts);
    for h in 0..hosts {
        nodes.push(json!({"name": format!("h{h}"), "kind": "host"}).to_string());
        links.push(
            json!({"a": format!("h{h}"), "b": "s1", "rate_bps": 10_000_000_000u64,
                   "delay_ps": 1_000_000})
            .to_string(),
        );
    }
    // Eight DCTCP flows across the star, far apart in node order.
    let flows: Vec<String> = (0..8)
        .map(|i| {
            json!({"kind": "tcp", "name": format!("f{i}"), "src": format!("h{}", i * 12_345),
                   "dst": format!("h{}", hosts - 1 - i * 777), "cc": {"kind": "dctcp"}})
            .to_string()
        })
        .collect();
    let text = format!(
        r#"{{"seed": 1, "duration_ps": 2000000000, "nodes": [{}], "links": [{}], "flows": [{}]}}"#,
        nodes.join(","),
        links.join(","),
        flows.join(",")
    );
    drop((nodes, links));
    let cfg = RunConfig::from_json(&text).unwrap();
    let out = world::run(&cfg, Default::default()).unwrap();
    // The run is real: every flow delivered data through the switch.
    let flows = out.table("flows").unwrap();
    let delivered = flows.u64s("bytes_delivered").unwrap();
    assert!(delivered.iter().all(|&b| b > 100_000), "{delivered:?}");
    let queues = out.table("queues").unwrap();
    assert_eq!(queues.rows(), 2 * hosts);
    let Some(peak) = peak_rss_bytes() else {
        eprintln!("no /proc/self/status: peak memory not measured on this system");
        return;
    };
    eprintln!("100 000-host star: peak RSS {:.0} MB", peak as f64 / 1e6);
    assert!(peak < 1_000_000_000, "peak RSS {peak} bytes");
}
