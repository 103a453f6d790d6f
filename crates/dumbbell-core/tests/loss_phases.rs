//! Madeira and Mattos's controls (Linear, Fractional, Expolinear) end to end: on a
//! lossy path they deliver, conserve packets and beat Reno, as the paper
//! claims; two connections of one control keep separate state (the authors'
//! modules share theirs through file-level globals).

mod common;
use common::*;
use dumbbell_core::world::RunOutput;
use serde_json::json;

/// The lossy-cc controls of Madeira and Mattos.
const LOSSY_CC_CONTROLS: [&str; 3] = ["linear", "fractional", "expolinear"];

/// The path of the loss experiments: 100 Mb/s, 10 ms one way (RTT 20 ms,
/// a BDP of about 170 packets), a drop-tail queue of 200 packets and 1 %
/// random loss on the bottleneck.
fn lossy_path() -> (Vec<serde_json::Value>, Vec<serde_json::Value>) {
    path(100_000_000, 10 * MS, json!({"limit_pkts": 200}), 0.01)
}

fn assert_conserved(out: &RunOutput, what: &str) {
    let created = out.summary_u64("packets_created");
    let delivered = out.summary_u64("packets_delivered");
    let dropped = out.summary_u64("packets_dropped");
    let in_flight = out.summary_u64("packets_in_flight");
    assert_eq!(
        created,
        delivered + dropped + in_flight,
        "{what}: packets not conserved"
    );
}

/// Madeira and Mattos §5 (Fig. 3b, 5): under random loss the three controls deliver
/// several times Reno's goodput. Reno follows Mathis (about 10 Mb/s here);
/// the new controls recover on a time scale of milliseconds, not RTTs, and
/// cut by 10–20 % rather than 50 %. Measured (seed 1): Reno 10.3 Mb/s,
/// Linear 92.5 Mb/s, Fractional 58.2 Mb/s (45.3 with its slow start as
/// `cubic_time`), Expolinear 90.9 Mb/s. We ask for at
/// least twice Reno: a clear win, with room for the seed and for changes
/// in the stack, not the exact factor.
#[test]
fn each_control_beats_reno_under_one_percent_loss() {
    let run = |cc: &str| {
        let (nodes, links) = lossy_path();
        let flows = vec![
            json!({"kind": "tcp", "name": "f", "src": "snd", "dst": "rcv",
                                "cc": {"kind": cc}}),
        ];
        let out = go(&config(1, 10 * S, nodes, links, flows, json!({})));
        assert_conserved(&out, cc);
        assert_eq!(col_str(&out, "flows", "cc")[0], cc);
        col_f64(&out, "flows", "goodput_bps")[0]
    };
    let reno = run("reno");
    assert!(reno > 1e6, "Reno goodput {reno}");
    for cc in LOSSY_CC_CONTROLS {
        let g = run(cc);
        eprintln!(
            "{cc}: {:.1} Mb/s, Reno {:.1} Mb/s ({:.1}×)",
            g / 1e6,
            reno / 1e6,
            g / reno
        );
        assert!(g > 0.0 && g <= 100e6, "{cc}: goodput {g}");
        assert!(
            g > 2.0 * reno,
            "{cc}: {:.1} Mb/s is not twice Reno's {:.1} Mb/s",
            g / 1e6,
            reno / 1e6
        );
    }
}

/// The value of control variable `var` for `flow` at each of its per-ACK
/// trace rows, as (time_ps, value).
fn var_series(out: &RunOutput, flow: u32, var: &str) -> Vec<(u64, f64)> {
    let t = col_u64(out, "cc_vars", "time_ps");
    let f = col_u32(out, "cc_vars", "flow");
    let n = col_str(out, "cc_vars", "var");
    let v = col_f64(out, "cc_vars", "value");
    (0..t.len())
        .filter(|&i| f[i] == flow && n[i] == var)
        .map(|i| (t[i], v[i]))
        .collect()
}

/// Two flows of one control through the lossy path, the second starting
/// at 1 s when the first has been through many losses. The second starts
/// in slow start from its own time origin (its establishment), with the
/// initial threshold and b_r, and its first ACK grows it by exactly
/// 2·t³ with t from that origin; the first flow's origin and state are
/// not reset by the second's `init`, as the modules' globals would be.
#[test]
fn flows_of_one_control_keep_their_own_state() {
    for cc in LOSSY_CC_CONTROLS {
        let (nodes, links) = lossy_path();
        // Receive windows of 300 packets (below BDP + queue, 370) keep the
        // windows, which slow start blows up to millions of packets, from
        // flooding the queue: with an unlimited window Fractional's first
        // flow drops nearly every packet of the second, SYNs included, and
        // the second never starts.
        let tcp = json!({"rwnd_bytes": 300 * 1448});
        let flows = vec![
            json!({"kind": "tcp", "name": "a", "src": "snd", "dst": "rcv", "cc": {"kind": cc},
                   "tcp": tcp}),
            json!({"kind": "tcp", "name": "b", "src": "snd", "dst": "rcv", "cc": {"kind": cc},
                   "start_ps": S, "tcp": tcp}),
        ];
        let out = go(&config(
            3,
            3 * S,
            nodes,
            links,
            flows,
            json!({"cwnd_every_ack": true}),
        ));
        assert_conserved(&out, cc);

        // Flow b's init: the first trace row at or after 1 s (the SYN-ACK).
        let origin_b = var_series(&out, 1, "t_origin_s");
        let (t_init, origin) = origin_b[0];
        assert!(t_init >= S, "{cc}: flow b traced before it started");
        assert_eq!(
            (origin * 1e12).round() as u64,
            t_init,
            "{cc}: b's origin is its establishment"
        );
        // Handshake: one RTT (20 ms) plus queueing (at most 200 packets,
        // 24 ms at 100 Mb/s) after the start, unless the SYN was lost.
        eprintln!("{cc}: b established at {:.4} s", t_init as f64 / 1e12);
        let at_init = |flow: u32, var: &str| {
            var_series(&out, flow, var)
                .into_iter()
                .rfind(|&(t, _)| t <= t_init)
                .unwrap_or_else(|| panic!("{cc}: no {var} for flow {flow}"))
                .1
        };
        assert_eq!(at_init(1, "phase"), 0.0, "{cc}: b starts in slow start");
        assert_eq!(at_init(1, "threshold_pkts"), 200.0, "{cc}");
        assert_eq!(at_init(1, "base_pkts"), 1.0, "{cc}");

        // Flow a, at its last ACK before b's init, has its own history: its
        // origin is a loss of its own, after its start, and not b's init.
        let origin_a = at_init(0, "t_origin_s");
        let origin_a_ps = (origin_a * 1e12).round() as u64;
        let a_start = var_series(&out, 0, "t_origin_s")[0].1;
        assert!(origin_a > a_start, "{cc}: flow a never lost anything");
        assert!(origin_a_ps < t_init, "{cc}");
        // After b's init, a's origin moves only at a's own losses: never to
        // b's establishment time.
        assert!(
            var_series(&out, 0, "t_origin_s")
                .iter()
                .all(|&(_, o)| (o * 1e12).round() as u64 != t_init),
            "{cc}: a's time origin was reset by b's init"
        );

        // b's first data ACK: cwnd = 10 + max(2·t³, ss_min) with t in whole
        // ms from b's own origin (Fractional as compiled: 10 + 1).
        let t = col_u64(&out, "cwnd", "time_ps");
        let f = col_u32(&out, "cwnd", "flow");
        let w = col_u32(&out, "cwnd", "cwnd_pkts");
        let i = (0..t.len())
            .find(|&i| f[i] == 1 && t[i] > t_init)
            .expect("b is acked");
        let t_ms = (t[i] - t_init) / MS;
        let ss_min = if cc == "fractional" { 1 } else { 2 };
        assert!(t_ms >= 19, "{cc}: first ACK {t_ms} ms after init");
        let step = if cc == "fractional" {
            1
        } else {
            (2 * t_ms.pow(3)).max(ss_min)
        };
        assert_eq!(
            w[i] as u64,
            10 + step,
            "{cc}: b's first slow-start step, t = {t_ms} ms"
        );
    }
}
