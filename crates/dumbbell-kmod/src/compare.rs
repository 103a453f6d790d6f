//! The differential check (`dumbbell module compare`): the same scenarios
//! run once with a built-in port and once with a module; every hook call of
//! every connection is recorded with the window fields it left (cwnd,
//! ssthresh, pacing rate, the recovery state, and the value `ssthresh` or
//! `undo_cwnd` returned), and the first call where the two runs differ is
//! reported. Until that call both runs are the same simulation, so the
//! calls pair up one to one.

use crate::control::{KmodControls, ModuleSpec};
use crate::error::KmodError;
use crate::private::{self, MAX_COMPARED};
use dumbbell_core::cc::{
    self, AckSample, CaEvent, CaState, CongestionControl, ExternalControls, LostSegment,
    RateSample, TcpSock,
};
use dumbbell_core::config::{CcConfig, RunConfig};
use dumbbell_core::sim::Rng;
use dumbbell_core::world;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// One hook call as recorded: the hook, when, and the fields after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub hook: &'static str,
    pub time_ps: u64,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub pacing_rate_bps: u64,
    pub ca_state: u8,
    /// What `ssthresh` or `undo_cwnd` returned.
    pub ret: Option<u32>,
    /// The private state compared for this control
    /// ([`private::compared`]), as `f64` bits, in that order (0 beyond).
    pub private: [u64; MAX_COMPARED],
    /// Their names.
    pub private_names: &'static [&'static str],
}

type Logs = Arc<Mutex<Vec<Vec<Step>>>>;

/// Wraps a control and records every hook call.
struct Recorder {
    inner: Box<dyn CongestionControl>,
    /// The private-state layout of a module (`Instance::layout`), else
    /// the control's name.
    layout: Option<&'static str>,
    log: Vec<Step>,
    logs: Logs,
    slot: usize,
}

impl Recorder {
    fn note(&mut self, hook: &'static str, tp: &TcpSock, ret: Option<u32>) {
        let fields = private::compared(self.layout.unwrap_or(self.inner.name()));
        let mut private = [0u64; MAX_COMPARED];
        if !fields.is_empty() {
            self.inner.trace_vars(&mut |name, v| {
                if let Some(i) = fields.iter().position(|&f| f == name) {
                    private[i] = v.to_bits();
                }
            });
        }
        self.log.push(Step {
            private,
            private_names: fields,
            hook,
            time_ps: tp.now.ps(),
            cwnd: tp.snd_cwnd,
            ssthresh: tp.snd_ssthresh,
            pacing_rate_bps: tp.pacing_rate_bps,
            ca_state: tp.ca_state as u8,
            ret,
        });
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let mut logs = self.logs.lock().unwrap_or_else(|p| p.into_inner());
        logs[self.slot] = std::mem::take(&mut self.log);
    }
}

impl CongestionControl for Recorder {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn init(&mut self, tp: &mut TcpSock) {
        self.inner.init(tp);
        self.note("init", tp, None);
    }
    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        let r = self.inner.ssthresh(tp);
        self.note("ssthresh", tp, Some(r));
        r
    }
    fn cong_avoid(&mut self, tp: &mut TcpSock, ack: u64, acked: u32) {
        self.inner.cong_avoid(tp, ack, acked);
        self.note("cong_avoid", tp, None);
    }
    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        self.inner.set_state(tp, new_state);
        self.note("set_state", tp, None);
    }
    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        self.inner.cwnd_event(tp, ev);
        self.note("cwnd_event", tp, None);
    }
    fn in_ack_event(&mut self, tp: &mut TcpSock, flags: u32) {
        self.inner.in_ack_event(tp, flags);
        self.note("in_ack_event", tp, None);
    }
    fn pkts_acked(&mut self, tp: &mut TcpSock, sample: &AckSample) {
        self.inner.pkts_acked(tp, sample);
        self.note("pkts_acked", tp, None);
    }
    fn skb_marked_lost(&mut self, tp: &mut TcpSock, seg: &LostSegment) {
        self.inner.skb_marked_lost(tp, seg);
        self.note("skb_marked_lost", tp, None);
    }
    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        let r = self.inner.undo_cwnd(tp);
        self.note("undo_cwnd", tp, Some(r));
        r
    }
    fn has_cong_control(&self) -> bool {
        self.inner.has_cong_control()
    }
    fn cong_control(&mut self, tp: &mut TcpSock, ack: u64, rs: &RateSample) {
        self.inner.cong_control(tp, ack, rs);
        self.note("cong_control", tp, None);
    }
    fn needs_ecn(&self) -> bool {
        self.inner.needs_ecn()
    }
    fn wants_pacing(&self) -> bool {
        self.inner.wants_pacing()
    }
    // Sizing only (with `gso_max_bytes` set): not recorded, as no call
    // writes the window; a different size shows in the calls after it.
    fn tso_segs(&self, tp: &TcpSock, pacing_bytes_per_s: u64, gso_max_bytes: u32) -> Option<u32> {
        self.inner.tso_segs(tp, pacing_bytes_per_s, gso_max_bytes)
    }
    fn min_tso_segs(&self, tp: &TcpSock, pacing_bytes_per_s: u64) -> Option<u32> {
        self.inner.min_tso_segs(tp, pacing_bytes_per_s)
    }
}

type Maker = dyn Fn(&str, Rng) -> Box<dyn CongestionControl> + Send + Sync;

/// Builds recorded controls for every id (`cc:<host>`).
struct Recording {
    make: Box<Maker>,
    logs: Logs,
    layout: Option<&'static str>,
}

impl ExternalControls for Recording {
    fn check(&self, _id: &str) -> Result<(), String> {
        Ok(())
    }
    fn make(&self, id: &str, rng: Rng) -> Box<dyn CongestionControl> {
        let inner = (self.make)(id, rng);
        let slot = {
            let mut logs = self.logs.lock().unwrap_or_else(|p| p.into_inner());
            logs.push(Vec::new());
            logs.len() - 1
        };
        Box::new(Recorder {
            inner,
            layout: self.layout,
            log: Vec::new(),
            logs: self.logs.clone(),
            slot,
        })
    }
}

/// A scenario of the check: a core configuration whose TCP flows name the
/// control `{"kind": "external", "id": "cc:<src host>"}`.
pub struct Scenario {
    pub name: &'static str,
    pub config: Value,
}

/// Where the two runs first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The connection (in the order connections were made).
    pub connection: usize,
    /// The index of the hook call in that connection's calls.
    pub call: usize,
    pub hook: String,
    pub time_ps: u64,
    /// What differs: `cwnd`, `ssthresh`, `pacing_rate_bps`, `ca_state`,
    /// `returned`, `hook` (a different hook was called) or `calls` (one
    /// run made more calls).
    pub field: String,
    pub port: String,
    pub module: String,
}

/// One scenario's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioResult {
    pub name: String,
    /// ACKs compared (`in_ack_event` calls up to the first difference, or
    /// all of them).
    pub acks: u64,
    pub first_difference: Option<Difference>,
}

fn ms(x: u64) -> u64 {
    x * 1_000_000_000
}

fn us(x: u64) -> u64 {
    x * 1_000_000
}

/// A host `a` (and `b` for two senders) behind a switch `s`, the
/// bottleneck `s -> c`.
fn topo(
    rate_bps: u64,
    one_way_ps: u64,
    queue: Value,
    loss: f64,
    senders: &[&str],
) -> (Value, Value) {
    let mut nodes = vec![
        json!({"name": "s", "kind": "switch"}),
        json!({"name": "c", "kind": "host"}),
    ];
    let mut links = vec![
        json!({"a": "s", "b": "c", "rate_bps": rate_bps, "delay_ps": one_way_ps / 2,
        "loss_ab": loss, "queue_ab": queue}),
    ];
    for h in senders {
        nodes.push(json!({"name": h, "kind": "host"}));
        links
            .push(json!({"a": h, "b": "s", "rate_bps": rate_bps * 10, "delay_ps": one_way_ps / 2}));
    }
    (Value::Array(nodes), Value::Array(links))
}

fn flow(name: &str, src: &str, start_ps: u64, tcp: Value) -> Value {
    json!({"kind": "tcp", "name": name, "src": src, "dst": "c", "start_ps": start_ps,
           "cc": {"kind": "external", "id": format!("cc:{src}")}, "tcp": tcp})
}

fn doc(seed: u64, duration_ps: u64, topo: (Value, Value), flows: Vec<Value>) -> Value {
    json!({"seed": seed, "duration_ps": duration_ps, "nodes": topo.0, "links": topo.1,
           "flows": flows, "record": {"flow_sample_ps": ms(100)}})
}

/// The fixed scenarios of `module compare`.
pub fn scenarios() -> Vec<Scenario> {
    let q = |n: u32| json!({"limit_pkts": n});
    vec![
        Scenario {
            name: "slow-start-overflow-sack",
            config: doc(
                1,
                ms(3000),
                topo(100_000_000, ms(20), q(100), 0.0, &["a"]),
                vec![flow("f", "a", 0, json!({}))],
            ),
        },
        Scenario {
            name: "ecn-marks",
            config: doc(
                2,
                ms(200),
                topo(
                    1_000_000_000,
                    us(100),
                    json!({"limit_pkts": 500, "aqm": {"kind": "step", "k_pkts": 20}}),
                    0.0,
                    &["a"],
                ),
                vec![flow("f", "a", 0, json!({"ecn": true}))],
            ),
        },
        Scenario {
            name: "rto",
            config: doc(
                3,
                ms(3000),
                topo(20_000_000, ms(20), q(6), 0.0, &["a"]),
                vec![flow(
                    "f",
                    "a",
                    0,
                    json!({"sack": false, "tlp": false, "rack": false}),
                )],
            ),
        },
        Scenario {
            name: "app-and-rwnd-limited",
            config: doc(
                4,
                ms(2000),
                topo(100_000_000, ms(20), q(200), 0.0, &["a", "b"]),
                vec![
                    flow("app", "a", 0, json!({"max_rate_bps": 20_000_000u64})),
                    flow("rwnd", "b", ms(100), json!({"rwnd_bytes": 65536})),
                ],
            ),
        },
        Scenario {
            name: "random-loss-1pct",
            config: doc(
                5,
                ms(3000),
                topo(50_000_000, ms(20), q(200), 0.01, &["a"]),
                vec![flow("f", "a", 0, json!({}))],
            ),
        },
        Scenario {
            name: "10-gbps",
            config: doc(
                6,
                ms(60),
                topo(10_000_000_000, us(100), q(1000), 0.0, &["a"]),
                vec![flow("f", "a", 0, json!({}))],
            ),
        },
        Scenario {
            name: "two-flows",
            config: doc(
                7,
                ms(3000),
                topo(100_000_000, ms(20), q(100), 0.0, &["a", "b"]),
                vec![
                    flow("f0", "a", 0, json!({})),
                    flow("f1", "b", ms(500), json!({})),
                ],
            ),
        },
    ]
}

/// The senders of a scenario (the hosts its `cc:<host>` ids name).
fn hosts(config: &Value) -> Vec<String> {
    let mut out: Vec<String> = config["flows"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["src"].as_str().map(str::to_string))
        .collect();
    out.sort();
    out.dedup();
    out
}

fn run(config: &Value, factory: Arc<dyn ExternalControls>) -> Result<(), KmodError> {
    let cfg = RunConfig::from_json(&config.to_string()).map_err(|e| KmodError::Init {
        module: "(compare)".into(),
        why: format!("scenario configuration: {e}"),
    })?;
    let opts = world::RunOptions {
        monitor: None,
        external: Some(&factory),
    };
    world::run(&cfg, opts).map_err(|e| KmodError::Init {
        module: "(compare)".into(),
        why: format!("scenario run: {e}"),
    })?;
    Ok(())
}

/// Runs `scenario` with the port and with the module (`spec`, whose id and
/// host are set per sender) and compares their hook calls.
pub fn compare_one(
    scenario: &Scenario,
    port: &CcConfig,
    spec: &ModuleSpec,
) -> Result<ScenarioResult, KmodError> {
    let port_logs: Logs = Arc::default();
    let p = port.clone();
    run(
        &scenario.config,
        Arc::new(Recording {
            make: Box::new(move |_, rng| cc::make(&p, rng)),
            logs: port_logs.clone(),
            layout: None,
        }),
    )?;
    let specs: Vec<ModuleSpec> = hosts(&scenario.config)
        .into_iter()
        .map(|h| ModuleSpec {
            id: format!("cc:{h}"),
            host: h,
            ..spec.clone()
        })
        .collect();
    let kmods = Arc::new(KmodControls::new(&specs)?);
    let layout = specs
        .first()
        .and_then(|s| kmods.instance(&s.id))
        .map(|i| i.layout);
    let mod_logs: Logs = Arc::default();
    let k = kmods.clone();
    run(
        &scenario.config,
        Arc::new(Recording {
            make: Box::new(move |id, rng| k.make(id, rng)),
            logs: mod_logs.clone(),
            layout,
        }),
    )?;
    let a = port_logs.lock().unwrap_or_else(|p| p.into_inner());
    let b = mod_logs.lock().unwrap_or_else(|p| p.into_inner());
    Ok(diff(scenario.name, &a, &b))
}

/// The first difference between two runs' recorded calls.
pub fn diff(name: &str, port: &[Vec<Step>], module: &[Vec<Step>]) -> ScenarioResult {
    // Calls in time order across connections: (time, connection, index).
    let mut order: Vec<(u64, usize, usize)> = Vec::new();
    for (c, log) in port.iter().enumerate() {
        for (i, s) in log.iter().enumerate() {
            order.push((s.time_ps, c, i));
        }
    }
    order.sort_unstable();
    let mut acks = 0;
    for &(_, c, i) in &order {
        let x = &port[c][i];
        let Some(y) = module.get(c).and_then(|l| l.get(i)) else {
            return found(name, acks, c, i, x, "calls", "a call".into(), "none".into());
        };
        let checks: [(&str, String, String); 6] = [
            ("hook", x.hook.into(), y.hook.into()),
            ("cwnd", x.cwnd.to_string(), y.cwnd.to_string()),
            ("ssthresh", x.ssthresh.to_string(), y.ssthresh.to_string()),
            (
                "pacing_rate_bps",
                x.pacing_rate_bps.to_string(),
                y.pacing_rate_bps.to_string(),
            ),
            ("ca_state", x.ca_state.to_string(), y.ca_state.to_string()),
            ("returned", format!("{:?}", x.ret), format!("{:?}", y.ret)),
        ];
        for (field, p, m) in checks {
            if p != m {
                return found(name, acks, c, i, x, field, p, m);
            }
        }
        if x.private != y.private {
            let fields = x.private_names;
            let k = (0..MAX_COMPARED)
                .find(|&k| x.private[k] != y.private[k])
                .unwrap_or(0);
            let field = fields.get(k).copied().unwrap_or("private");
            let show = |b: u64| f64::from_bits(b).to_string();
            let (p, m) = (show(x.private[k]), show(y.private[k]));
            return found(name, acks, c, i, x, field, p, m);
        }
        if x.hook == "in_ack_event" {
            acks += 1;
        }
    }
    for (c, log) in module.iter().enumerate() {
        let n = port.get(c).map_or(0, Vec::len);
        if log.len() > n {
            return found(
                name,
                acks,
                c,
                n,
                &log[n],
                "calls",
                "none".into(),
                "a call".into(),
            );
        }
    }
    ScenarioResult {
        name: name.to_string(),
        acks,
        first_difference: None,
    }
}

#[allow(clippy::too_many_arguments)]
fn found(
    name: &str,
    acks: u64,
    connection: usize,
    call: usize,
    at: &Step,
    field: &str,
    port: String,
    module: String,
) -> ScenarioResult {
    ScenarioResult {
        name: name.to_string(),
        acks,
        first_difference: Some(Difference {
            connection,
            call,
            hook: at.hook.to_string(),
            time_ps: at.time_ps,
            field: field.to_string(),
            port,
            module,
        }),
    }
}

/// The report as JSON: `{"module", "as", "scenarios": [{"name", "acks",
/// "first_difference"}]}`.
pub fn report_json(module: &str, as_name: &str, results: &[ScenarioResult]) -> Value {
    let scen: Vec<Value> = results
        .iter()
        .map(|r| {
            json!({
                "name": r.name,
                "acks": r.acks,
                "first_difference": r.first_difference.as_ref().map(|d| json!({
                    "connection": d.connection,
                    "call": d.call,
                    "hook": d.hook,
                    "time_ps": d.time_ps,
                    "field": d.field,
                    "port": d.port,
                    "module": d.module,
                })),
            })
        })
        .collect();
    json!({"module": module, "as": as_name, "scenarios": scen})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(hook: &'static str, t: u64, cwnd: u32) -> Step {
        Step {
            hook,
            time_ps: t,
            cwnd,
            ssthresh: 100,
            pacing_rate_bps: 0,
            ca_state: 0,
            ret: None,
            private: [0; MAX_COMPARED],
            private_names: &[],
        }
    }

    #[test]
    fn the_first_difference_is_the_earliest_call_across_connections() {
        let port = vec![
            vec![step("in_ack_event", 1, 10), step("cong_avoid", 5, 11)],
            vec![step("in_ack_event", 2, 10), step("cong_avoid", 3, 11)],
        ];
        let mut module = port.clone();
        assert_eq!(diff("same", &port, &module).first_difference, None);
        assert_eq!(diff("same", &port, &module).acks, 2);
        module[0][1].cwnd = 12; // at t = 5
        module[1][1].cwnd = 13; // at t = 3: earlier
        let d = diff("d", &port, &module).first_difference.unwrap();
        assert_eq!((d.connection, d.call, d.time_ps), (1, 1, 3));
        assert_eq!(
            (d.field.as_str(), d.port.as_str(), d.module.as_str()),
            ("cwnd", "11", "13")
        );
        // a run that makes more calls differs at the first extra one
        let mut longer = port.clone();
        longer[0].push(step("cong_avoid", 9, 11));
        let d = diff("calls", &port, &longer).first_difference.unwrap();
        assert_eq!((d.field.as_str(), d.call), ("calls", 2));
    }

    #[test]
    fn a_private_field_differs_by_its_name_after_the_window_fields() {
        let names: &'static [&'static str] = &["cnt", "w_max"];
        let mut port = vec![vec![step("in_ack_event", 1, 10), step("cong_avoid", 2, 11)]];
        for s in &mut port[0] {
            s.private_names = names;
            s.private[0] = 20f64.to_bits();
            s.private[1] = 100f64.to_bits();
        }
        let mut module = port.clone();
        assert_eq!(diff("same", &port, &module).first_difference, None);
        module[0][1].private[1] = 90f64.to_bits();
        let d = diff("w_max", &port, &module).first_difference.unwrap();
        assert_eq!(
            (d.call, d.field.as_str(), d.port.as_str(), d.module.as_str()),
            (1, "w_max", "100", "90")
        );
        // the window fields are reported first
        module[0][1].cwnd = 12;
        let d = diff("cwnd", &port, &module).first_difference.unwrap();
        assert_eq!(d.field, "cwnd");
    }
}
