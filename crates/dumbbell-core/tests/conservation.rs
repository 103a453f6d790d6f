//! Property test: packet conservation holds for arbitrary small scenarios.
//! `World::finish` audits it (and fails the run if it breaks); this test
//! also checks the summary's arithmetic and that every flow's receiver got
//! no more than its sender sent.

mod common;
use common::*;
use proptest::prelude::*;
use serde_json::json;

fn scenario(
) -> impl Strategy<Value = (u64, Vec<(u64, u64, f64, u32)>, Vec<(usize, usize, u8, u64)>)> {
    let links = proptest::collection::vec((1u64..100, 0u64..3000, 0.0f64..0.05, 2u32..60), 3..6);
    let flows = proptest::collection::vec((0usize..6, 0usize..6, 0u8..4, 0u64..200), 1..6);
    (any::<u64>(), links, flows)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn conservation_holds((seed, links, flows) in scenario()) {
        check(seed, &links, &flows, None)?;
    }

    /// The same with the software-switch options on every switch: a
    /// pipeline, egress service rates and packet return (step or
    /// hysteresis, full or header-only copies), so copies are created,
    /// delayed and dropped too; with `blocking`, the pipelines' input
    /// buffers hold the links into them instead of dropping.
    #[test]
    fn conservation_holds_on_software_switches(
        (seed, links, flows) in scenario(),
        capacity in 100.0f64..3000.0,
        buffer in 0u32..30,
        k in 0u32..8,
        hysteresis in any::<bool>(),
        header in any::<bool>(),
        blocking in any::<bool>(),
    ) {
        let buffer = if blocking { buffer.max(1) } else { buffer };
        check(seed, &links, &flows, Some((capacity, buffer, k, hysteresis, header, blocking)))?;
    }
}

type Switch = Option<(f64, u32, u32, bool, bool, bool)>;

fn check(
    seed: u64,
    links: &[(u64, u64, f64, u32)],
    flows: &[(usize, usize, u8, u64)],
    sw: Switch,
) -> Result<(), TestCaseError> {
    {
        // A chain of switches s0..sk, host hi hanging off si.
        let k = links.len();
        let mut nodes = vec![];
        let mut ls = vec![];
        for (i, (rate_mbps, delay_us, loss, limit)) in links.iter().enumerate() {
            let mut s = json!({"name": format!("s{i}"), "kind": "switch"});
            let q = json!({"limit_pkts": limit});
            // A switch port's queue: with the options, a service rate of a
            // third of the pipeline's (so egress queues build) and a return
            // policy.
            let mut sq = q.clone();
            if let Some((capacity, buffer, kk, hyst, header, blocking)) = sw {
                s["pipeline"] =
                    json!({"capacity_pps": capacity, "buffer_pkts": buffer, "blocking": blocking});
                sq["service_pps"] = json!(capacity / 3.0);
                let copy = if header { "header" } else { "full" };
                sq["feedback"] = if hyst {
                    json!({"kind": "hysteresis", "upper_pkts": kk + 3, "lower_pkts": kk, "copy": copy})
                } else {
                    json!({"kind": "step", "k_pkts": kk, "copy": copy})
                };
            }
            nodes.push(s);
            nodes.push(json!({"name": format!("h{i}"), "kind": "host"}));
            ls.push(json!({"a": format!("h{i}"), "b": format!("s{i}"), "rate_bps": rate_mbps * 1_000_000,
                           "delay_ps": delay_us * US, "loss_ab": loss, "loss_ba": loss / 2.0,
                           "queue_ab": q, "queue_ba": sq, "jitter_ps": delay_us * 100}));
            if i + 1 < k {
                ls.push(json!({"a": format!("s{i}"), "b": format!("s{}", i + 1), "rate_bps": rate_mbps * 500_000,
                               "delay_ps": delay_us * US, "queue_ab": sq, "queue_ba": sq}));
            }
        }
        let mut fl = vec![];
        for (j, (a, b, kind, start_ms)) in flows.iter().enumerate() {
            let (a, b) = (a % k, b % k);
            if a == b {
                continue;
            }
            let (src, dst) = (format!("h{a}"), format!("h{b}"));
            let f = match kind {
                0 => {
                    json!({"kind": "tcp", "name": format!("f{j}"), "src": src, "dst": dst, "start_ps": start_ms * MS, "cc": {"kind": "reno"}})
                }
                1 => {
                    json!({"kind": "tcp", "name": format!("f{j}"), "src": src, "dst": dst, "start_ps": start_ms * MS, "cc": {"kind": "cubic"}, "bytes": 50_000, "tcp": {"sack": false}})
                }
                2 => {
                    json!({"kind": "tcp", "name": format!("f{j}"), "src": src, "dst": dst, "start_ps": start_ms * MS, "cc": {"kind": "dctcp"}, "tcp": {"delayed_ack": false}})
                }
                _ => {
                    json!({"kind": "udp", "name": format!("f{j}"), "src": src, "dst": dst, "start_ps": start_ms * MS, "rate_bps": 2_000_000})
                }
            };
            fl.push(f);
        }
        let out = go(&config(seed, 500 * MS, nodes, ls, fl, json!({})));
        let created = out.summary_u64("packets_created");
        prop_assert_eq!(
            created,
            out.summary_u64("packets_delivered")
                + out.summary_u64("packets_dropped")
                + out.summary_u64("packets_in_flight")
        );
        let sent = col_u64(&out, "flows", "bytes_sent");
        let got = col_u64(&out, "flows", "bytes_delivered");
        for (s, g) in sent.iter().zip(&got) {
            prop_assert!(g <= s);
        }
        let returned: u64 = col_u64(&out, "flows", "returns_received").iter().sum();
        let copies: u64 = col_u64(&out, "queues", "feedback_sent").iter().sum();
        prop_assert!(returned <= copies);
        if sw.is_none() {
            prop_assert_eq!(copies, 0);
        }
        if let Some((.., true)) = sw {
            // A blocking buffer drops no arrival from a link: only
            // returned copies, which have no link to hold.
            let pipeline_drops: u64 = col_u64(&out, "pipelines", "drops_pipeline").iter().sum();
            prop_assert!(pipeline_drops <= copies);
        }
    }
    Ok(())
}
