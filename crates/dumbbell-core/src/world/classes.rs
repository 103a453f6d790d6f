//! Two-class ports in the world: building them from the configuration
//! (checked by `validate`) and the `classification` table.

use super::{build_fifo, build_qdisc, World};
use crate::config::{ClassifierConfig, QueueConfig, SchedulerConfig};
use crate::net::port::PortQueue;
use crate::queue::classify::{Class, Classifier, Ideal, Rafle, Run2c};
use crate::queue::sched::{Drr, RoundRobin, Scheduler, StrictPriority};
use crate::queue::{QueueDisc, TwoClass};
use crate::sim::rng_for;
use crate::trace::{Column, Table};

/// The discipline of the port `label` (`<node>-><peer>`) configured by `q`
/// (checked by `validate`): one queue, or a two-class port when `q` has a
/// classifier.
/// RAFLE draws from the stream `queue:<label>:rafle`. A single FIFO is
/// held unboxed (`PortQueue::Fifo`), anything else boxed.
pub(super) fn build_port_qdisc(
    q: &QueueConfig,
    rate_bps: u64,
    seed: u64,
    label: &str,
) -> PortQueue {
    let Some(classifier) = &q.classifier else {
        if q.aqm.is_own_discipline() {
            return PortQueue::Other(build_qdisc(q, rate_bps, seed, label));
        }
        return PortQueue::Fifo(build_fifo(q, rate_bps));
    };
    let short = build_qdisc(q, rate_bps, seed, label);
    let long = match &q.long_queue {
        Some(lq) => build_qdisc(lq, rate_bps, seed, label),
        None => build_qdisc(q, rate_bps, seed, label),
    };
    let classifier: Box<dyn Classifier> = match classifier {
        ClassifierConfig::Ideal => Box::new(Ideal),
        ClassifierConfig::Run2c { threshold_bytes } => Box::new(Run2c::new(*threshold_bytes)),
        ClassifierConfig::Rafle { n } => {
            let rng = rng_for(seed, &format!("queue:{label}:rafle"));
            Box::new(Rafle::new(*n as usize, rng))
        }
    };
    let scheduler: Box<dyn Scheduler> = match q.scheduler.clone().unwrap_or_default() {
        SchedulerConfig::Prio => Box::new(StrictPriority),
        SchedulerConfig::Rr => Box::new(RoundRobin::default()),
        SchedulerConfig::Drr {
            quantum_short_bytes,
            quantum_long_bytes,
        } => Box::new(Drr::new(quantum_short_bytes, quantum_long_bytes)),
    };
    PortQueue::Other(Box::new(TwoClass::new(classifier, scheduler, short, long)))
}

impl World {
    /// One row per two-class port: its classifier and scheduler, per-class
    /// counters, the confusion matrix against the ground truth and the RAFLE
    /// paper's Table 1 figures (`docs/output.md`).
    pub(super) fn classification_table(&self) -> Table {
        let mut port = Vec::new();
        let (mut node, mut peer, mut cls, mut sch) = (vec![], vec![], vec![], vec![]);
        let mut u = vec![Vec::<u64>::new(); 10];
        let mut maxes = [Vec::<u32>::new(), Vec::new()];
        let mut same = [Vec::<u64>::new(), Vec::new()];
        let mut f = vec![Vec::<f64>::new(); 5];
        for (i, p) in self.ports.iter().enumerate() {
            let Some(r) = p.qdisc.class_report() else {
                continue;
            };
            let c = &r.counts;
            port.push(i as u32);
            node.push(self.node_names[p.node as usize].clone());
            peer.push(self.node_names[p.peer as usize].clone());
            cls.push(r.classifier.to_string());
            sch.push(r.scheduler.to_string());
            let (s, l) = (Class::Short.index(), Class::Long.index());
            for (k, v) in [
                c.enqueued[s],
                c.enqueued[l],
                c.dequeued[s],
                c.dequeued[l],
                c.dropped[s],
                c.dropped[l],
                c.decisions[s][s],
                c.decisions[s][l],
                c.decisions[l][s],
                c.decisions[l][l],
            ]
            .into_iter()
            .enumerate()
            {
                u[k].push(v);
            }
            maxes[0].push(c.max_pkts[s]);
            maxes[1].push(c.max_pkts[l]);
            same[0].push(c.same_flow_as_previous[s]);
            same[1].push(c.same_flow_as_previous[l]);
            for (k, v) in [c.pa_c(), c.pe_c(), c.pa_l(), c.pe_l(), c.index()]
                .into_iter()
                .enumerate()
            {
                f[k].push(v);
            }
        }
        let mut t = Table::new("classification")
            .with("port", Column::U32(port))
            .with("node", Column::Str(node))
            .with("peer", Column::Str(peer))
            .with("classifier", Column::Str(cls))
            .with("scheduler", Column::Str(sch));
        let names = [
            "short_enqueued_pkts",
            "long_enqueued_pkts",
            "short_dequeued_pkts",
            "long_dequeued_pkts",
            "short_dropped_pkts",
            "long_dropped_pkts",
            "short_as_short",
            "short_as_long",
            "long_as_short",
            "long_as_long",
        ];
        for (name, col) in names.into_iter().zip(u) {
            t = t.with(name, Column::U64(col));
        }
        let [ms, ml] = maxes;
        let [ss, sl] = same;
        t = t
            .with("short_max_pkts", Column::U32(ms))
            .with("long_max_pkts", Column::U32(ml))
            .with("short_same_flow_as_previous", Column::U64(ss))
            .with("long_same_flow_as_previous", Column::U64(sl));
        for (name, col) in ["pa_c", "pe_c", "pa_l", "pe_l", "index"].into_iter().zip(f) {
            t = t.with(name, Column::F64(col));
        }
        t
    }
}
