//! Controls built outside the core (`CcConfig::External`, `cc::ExternalControls`):
//! the way an embedding (the Python binding) adds controls without the core
//! knowing it. A factory that builds the core's own Reno under an external
//! id gives the same tables as `reno`, connection for connection (flows and
//! the tasks' connections, which are made while the run goes); a run refuses
//! an external control no factory builds, naming the field.

use dumbbell_core::cc::{reno::Reno, CongestionControl, ExternalControls};
use dumbbell_core::config::RunConfig;
use dumbbell_core::sim::Rng;
use dumbbell_core::trace::Column;
use dumbbell_core::world::{self, RunError, RunOptions};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Builds Reno for the id `"my-reno"`, counting connections.
#[derive(Default)]
struct RenoFactory {
    made: AtomicUsize,
}

impl ExternalControls for RenoFactory {
    fn check(&self, id: &str) -> Result<(), String> {
        if id == "my-reno" {
            Ok(())
        } else {
            Err(format!("unknown id {id:?}"))
        }
    }
    fn make(&self, _id: &str, _rng: Rng) -> Box<dyn CongestionControl> {
        self.made.fetch_add(1, Ordering::SeqCst);
        Box::new(Reno)
    }
}

/// Two bulk flows and a closed loop of tasks over a lossy 20 Mb/s link.
fn config(cc: Value) -> RunConfig {
    let ms = 1_000_000_000u64;
    let doc = json!({
        "seed": 3, "duration_ps": 2000 * ms,
        "nodes": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"},
                  {"name": "s", "kind": "switch"}, {"name": "c", "kind": "host"}],
        "links": [
            {"a": "a", "b": "s", "rate_bps": 100_000_000u64, "delay_ps": ms},
            {"a": "b", "b": "s", "rate_bps": 100_000_000u64, "delay_ps": ms},
            {"a": "s", "b": "c", "rate_bps": 20_000_000u64, "delay_ps": 5 * ms, "loss_ab": 0.01,
             "queue_ab": {"limit_pkts": 50}},
        ],
        "flows": [
            {"kind": "tcp", "name": "f0", "src": "a", "dst": "c", "cc": cc},
            {"kind": "tcp", "name": "f1", "src": "b", "dst": "c", "start_ps": 100 * ms, "cc": cc},
        ],
        "workloads": [{"name": "w", "clients": ["c"], "servers": ["a"],
                       "sizes": {"kind": "files", "bytes": [20000, 60000]},
                       "arrivals": {"kind": "closed_loop", "concurrency": 1}, "cc": cc}],
        "record": {"cwnd_every_ack": true, "flow_sample_ps": 10 * ms},
    });
    RunConfig::from_json(&doc.to_string()).unwrap()
}

#[test]
fn an_external_reno_gives_the_tables_of_the_builtin_reno() {
    let builtin = world::run(&config(json!({"kind": "reno"})), Default::default()).unwrap();
    let factory = Arc::new(RenoFactory::default());
    let ext: Arc<dyn ExternalControls> = factory.clone();
    let external = world::run(
        &config(json!({"kind": "external", "id": "my-reno"})),
        RunOptions {
            external: Some(&ext),
            ..Default::default()
        },
    )
    .unwrap();
    let flows = builtin.table("flows").unwrap();
    let retx = flows.u64s("retransmits").unwrap();
    assert!(retx[0] > 0 && retx[1] > 0, "losses happen: {retx:?}");
    let tasks = builtin.table("tasks").unwrap().rows();
    assert!(tasks >= 3, "{tasks} tasks");
    // one control per connection: the two flows and each task's connections
    assert_eq!(flows.rows(), 2);
    assert!(factory.made.load(Ordering::SeqCst) >= 2 + tasks);
    assert_eq!(builtin.tables.len(), external.tables.len());
    for (a, b) in builtin.tables.iter().zip(&external.tables) {
        assert_eq!(a.name, b.name);
        assert_eq!(a, b, "table {} differs", a.name);
    }
    assert!(matches!(flows.column("cc"), Some(Column::Str(v)) if v.iter().all(|n| n == "reno")));
}

#[test]
fn an_external_control_needs_a_factory_that_knows_it() {
    let cfg = config(json!({"kind": "external", "id": "my-reno"}));
    let Err(RunError::Config(e)) = world::run(&cfg, Default::default()) else {
        panic!("ran an external control without a factory");
    };
    assert_eq!(e.field, "flows[0].cc.id");
    assert!(e.message.contains("external"), "{}", e.message);

    let other = config(json!({"kind": "external", "id": "other"}));
    let ext: Arc<dyn ExternalControls> = Arc::new(RenoFactory::default());
    let Err(RunError::Config(e)) = world::run(
        &other,
        RunOptions {
            external: Some(&ext),
            ..Default::default()
        },
    ) else {
        panic!("ran an id the factory does not know");
    };
    assert_eq!(e.field, "flows[0].cc.id");
    assert!(e.message.contains("unknown id \"other\""), "{}", e.message);

    let empty = config(json!({"kind": "external", "id": ""}));
    let Err(RunError::Config(e)) = world::run(&empty, Default::default()) else {
        panic!("ran an empty id");
    };
    assert_eq!(e.field, "flows[0].cc.id");
}
