//! `tcp.sndbuf_bytes`: Linux's send buffer bounds the unacknowledged data,
//! so a bulk flow on a long path gets at most sndbuf per round trip.

mod common;
use common::*;
use serde_json::json;

/// 1 Gb/s, 20 ms of round trip: a 200 KB send buffer allows 200 KB per
/// round trip, 80 Mb/s; without one the flow fills the link.
#[test]
fn send_buffer_caps_the_flight() {
    let goodput = |tcp: serde_json::Value| {
        let (nodes, links) = path(1_000_000_000, 10 * MS, json!({"limit_pkts": 2000}), 0.0);
        let flows = vec![
            json!({"kind": "tcp", "name": "f", "src": "snd", "dst": "rcv", "tcp": tcp,
                                "cc": {"kind": "reno"}}),
        ];
        let out = go(&config(
            1,
            3 * S,
            nodes,
            links,
            flows,
            json!({"warmup_ps": S}),
        ));
        col_f64(&out, "flows", "steady_goodput_bps")[0]
    };
    let capped = goodput(json!({"sndbuf_bytes": 200_000}));
    let want = 200_000.0 * 8.0 / 0.020;
    assert!(
        capped <= want * 1.01 && capped > want * 0.9,
        "{capped} vs {want}"
    );
    let free = goodput(json!({}));
    assert!(free > 0.9e9, "{free}");
}

/// A send buffer below one MSS is one error naming the field.
#[test]
fn send_buffer_is_checked() {
    let (nodes, links) = path(1_000_000_000, MS, json!({"limit_pkts": 100}), 0.0);
    let flows = vec![
        json!({"kind": "tcp", "name": "f", "src": "snd", "dst": "rcv",
                            "tcp": {"sndbuf_bytes": 100}}),
    ];
    let err =
        dumbbell_core::validate::check(&config(1, S, nodes, links, flows, json!({}))).unwrap_err();
    assert!(err.to_string().contains("tcp.sndbuf_bytes"), "{err}");
}
