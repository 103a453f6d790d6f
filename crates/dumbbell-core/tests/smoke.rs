mod common;
use common::*;
use serde_json::json;

#[test]
fn e1_like_runs() {
    for cc in ["reno", "dctcp"] {
        let (nodes, mut links) = star(&["A", "B", "C"], 100_000_000, 75 * US);
        let q = if cc == "dctcp" {
            json!({"limit_pkts": 425, "aqm": {"kind": "red", "min_th": 30000.0, "max_th": 35000.0, "max_p": 1.0, "wlog": 1, "ecn": true, "avpkt_bytes": 1500}})
        } else {
            json!({"limit_pkts": 425})
        };
        links[2]["queue_ba"] = q;
        let jit: u64 = std::env::var("JIT")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        for l in links.iter_mut() {
            l["jitter_ps"] = json!(jit);
        }
        let tcp = json!({"mss_bytes": 1460});
        let flows = vec![
            json!({"kind": "tcp", "name": "a", "src": "A", "dst": "C", "cc": {"kind": cc}, "tcp": tcp}),
            json!({"kind": "tcp", "name": "b", "src": "B", "dst": "C", "cc": {"kind": cc}, "tcp": tcp}),
        ];
        let rec = json!({"queues": [{"node": "s1", "peer": "C"}], "flow_sample_ps": 100 * MS});
        let t0 = std::time::Instant::now();
        let out = go(&config(1, 2 * S, nodes, links, flows, rec));
        let pc = port(&out, "s1", "C");
        let pk = col_u32(&out, "queue_trace", "pkts");
        let mut sorted = pk.clone();
        sorted.sort();
        eprintln!("{cc}: wall {:?} events {} util {:.3} q p50 {} p95 {} max {} goodput {:?} retx {:?} marks {:?} timeouts {:?}",
            t0.elapsed(), out.summary_u64("events"), col_f64(&out, "queues", "utilization")[pc],
            sorted[sorted.len()/2], sorted[sorted.len()*95/100], sorted.last().unwrap(),
            col_f64(&out, "flows", "goodput_bps"), col_u64(&out, "flows", "retransmits"),
            col_u64(&out, "queues", "marked_pkts")[pc], col_u64(&out, "flows", "timeouts"));
    }
}
