//! The tables of a finished run: the recorders' columns and the summary,
//! `flows`, `queues`, `pipelines` (the `tasks` and `classification` tables
//! come from `tasks.rs` and `classes.rs`).

use super::*;
use crate::queue::dualpi2::DualPi2Counts;
use crate::queue::QueueDisc;

pub(super) fn rate(bytes: u64, start: Time, end: Time) -> f64 {
    let d = end.saturating_since(start).secs_f64();
    if d > 0.0 {
        bytes as f64 * 8.0 / d
    } else {
        0.0
    }
}

#[derive(Default)]
pub(super) struct FlowsCols {
    flow: Vec<u32>,
    name: Vec<String>,
    kind: Vec<String>,
    src: Vec<String>,
    dst: Vec<String>,
    cc: Vec<String>,
    start: Vec<u64>,
    end: Vec<u64>,
    bytes_sent: Vec<u64>,
    bytes_delivered: Vec<u64>,
    data_pkts: Vec<u64>,
    retx: Vec<u64>,
    lost_retx: Vec<u64>,
    timeouts: Vec<u64>,
    recoveries: Vec<u64>,
    ece: Vec<u64>,
    returns: Vec<u64>,
    ce: Vec<u64>,
    completion: Vec<u64>,
    srtt: Vec<u64>,
    min_rtt: Vec<u64>,
    cwnd: Vec<u32>,
    goodput: Vec<f64>,
    // Loss recovery beyond RFC 6675 (tail loss probe, D-SACK, undo).
    loss_probes: Vec<u64>,
    dsack_dups: Vec<u64>,
    undos: Vec<u64>,
    spurious_rtos: Vec<u64>,
}

impl FlowsCols {
    fn with_capacity(_n: usize) -> Self {
        Self::default()
    }
}

pub(super) fn record_flow(rec: &mut Recorders, every_ack: bool, now: Time, flow: u32, c: &TcpConn) {
    let tp = &c.sender.tp;
    let rows = if every_ack {
        &mut rec.cwnd
    } else {
        &mut rec.samples
    };
    rows.time.push(now.ps());
    rows.flow.push(flow);
    rows.delivered.push(c.receiver.rcv_nxt);
    rows.cwnd.push(tp.snd_cwnd);
    rows.ssthresh.push(tp.snd_ssthresh);
    rows.srtt.push(c.sender.rtt.srtt().map_or(0, |d| d.ps()));
    rows.in_flight.push(tp.in_flight());
    rows.state.push(tp.ca_state as u32);
    let tcp_vars = rec.tcp_vars;
    let names = &mut rec.var_names;
    let (vt, vf, vi, vv) = (
        &mut rec.var_time,
        &mut rec.var_flow,
        &mut rec.var_id,
        &mut rec.var_value,
    );
    let mut push = |name: &'static str, value: f64| {
        let id = match names.iter().position(|n| *n == name) {
            Some(i) => i,
            None => {
                names.push(name);
                names.len() - 1
            }
        };
        vt.push(now.ps());
        vf.push(flow);
        vi.push(id as u32);
        vv.push(value);
    };
    c.sender.cc.trace_vars(&mut push);
    if tcp_vars {
        c.sender.trace_vars(&mut push);
    }
}

impl World {
    pub fn finish(mut self) -> Result<RunOutput, RunError> {
        if let Some(e) = self.fault.take() {
            return Err(e);
        }
        self.check_conservation().map_err(RunError::Internal)?;
        let events = self.events.popped();
        let now = self.now;
        let run_ps = now.ps().max(1);
        let mut tables = Vec::new();
        tables.push(
            Table::new("summary")
                .with("events", Column::U64(vec![events]))
                .with("sim_time_ps", Column::U64(vec![now.ps()]))
                .with("packets_created", Column::U64(vec![self.created]))
                .with("packets_delivered", Column::U64(vec![self.delivered]))
                .with("packets_dropped", Column::U64(vec![self.dropped]))
                .with("packets_in_flight", Column::U64(vec![self.pool.live()]))
                .with("data_packets_sent", Column::U64(vec![self.data_sent]))
                .with("ack_packets_sent", Column::U64(vec![self.acks_sent]))
                .with(
                    "pool_high_water",
                    Column::U64(vec![self.pool.capacity_used() as u64]),
                )
                .with("conservation_ok", Column::Bool(vec![true])),
        );
        tables.push(self.flows_table(now));
        tables.push(self.queues_table(run_ps));
        tables.push(self.pipelines_table(run_ps));
        tables.push(self.classification_table());
        tables.push(self.tasks_table());
        let stopped = self.stopped;
        let World { rec, .. } = self;
        tables.push(rec.samples.table("flow_samples"));
        tables.push(rec.cwnd.table("cwnd"));
        // names as codes into the distinct names: no `String` per row
        let names = Column::Dict(
            rec.var_id,
            rec.var_names.iter().map(|s| s.to_string()).collect(),
        );
        tables.push(
            Table::events("cc_vars", rec.var_time, "flow", rec.var_flow)
                .with("var", names)
                .with("value", Column::F64(rec.var_value)),
        );
        tables.push(
            Table::events("queue_trace", rec.q_time, "port", rec.q_port)
                .with("pkts", Column::U32(rec.q_pkts))
                .with("bytes", Column::U64(rec.q_bytes))
                .with("congested", Column::Bool(rec.q_congested)),
        );
        tables.push(
            Table::events("dequeues", rec.d_time, "port", rec.d_port)
                .with("size_bytes", Column::U32(rec.d_size)),
        );
        tables.push(
            Table::events("drops", rec.x_time, "port", rec.x_port)
                .with("flow", Column::U32(rec.x_flow))
                .with("reason", Column::dict_of(rec.x_reason.iter().copied())),
        );
        if let Some(t) = std::mem::take(&mut self.cap).table() {
            tables.push(t);
        }
        if let Some(t) = std::mem::take(&mut self.pkts).table(&self.ports, &self.node_names) {
            tables.push(t);
        }
        if let Some(t) = std::mem::take(&mut self.rtts).table() {
            tables.push(t);
        }
        Ok(RunOutput { tables, stopped })
    }

    pub(super) fn flows_table(&self, now: Time) -> Table {
        let n = self.flows.len();
        let mut c = FlowsCols::with_capacity(n);
        for (i, f) in self.flows.iter().enumerate() {
            if f.task != NO_TASK {
                continue; // tasks report in the `tasks` table
            }
            c.flow.push(i as u32);
            c.name.push(f.name.clone());
            c.src.push(self.node_names[f.src as usize].clone());
            c.dst.push(self.node_names[f.dst as usize].clone());
            c.cc.push(f.cc_name.to_string());
            c.start.push(f.start.ps());
            match &f.kind {
                FlowKind::Tcp(t) => {
                    let s = &t.sender.stats;
                    let end = s.completion.unwrap_or(now).min(now);
                    c.kind.push("tcp".into());
                    c.end.push(end.ps());
                    c.bytes_sent.push(s.bytes_sent);
                    c.bytes_delivered.push(t.receiver.rcv_nxt);
                    c.data_pkts.push(s.data_pkts_sent);
                    c.retx.push(s.retransmits);
                    c.lost_retx.push(s.lost_retransmits);
                    c.timeouts.push(s.timeouts);
                    c.recoveries.push(s.recoveries);
                    c.ece.push(s.ece_acks);
                    c.returns.push(s.returns_received);
                    c.ce.push(t.receiver.ce_received);
                    c.completion
                        .push(t.receiver.completion.map_or(0, |t| t.ps()));
                    c.srtt.push(t.sender.rtt.srtt().map_or(0, |d| d.ps()));
                    c.min_rtt.push(if t.sender.rtt.min_rtt() == Dur::MAX {
                        0
                    } else {
                        t.sender.rtt.min_rtt().ps()
                    });
                    c.cwnd.push(t.sender.tp.snd_cwnd);
                    c.goodput.push(rate(t.receiver.rcv_nxt, f.start, end));
                    c.loss_probes.push(s.loss_probes);
                    c.dsack_dups.push(s.dsack_dups);
                    c.undos.push(s.undos);
                    c.spurious_rtos.push(s.spurious_rtos);
                }
                FlowKind::Udp(u) => {
                    let end = u.end.unwrap_or(now).min(now);
                    c.kind.push("udp".into());
                    c.end.push(end.ps());
                    c.bytes_sent.push(u.sent_bytes);
                    c.bytes_delivered.push(u.recv_bytes);
                    c.data_pkts.push(u.sent);
                    for v in [
                        &mut c.retx,
                        &mut c.lost_retx,
                        &mut c.timeouts,
                        &mut c.recoveries,
                        &mut c.ece,
                        &mut c.returns,
                        &mut c.ce,
                        &mut c.completion,
                        &mut c.loss_probes,
                        &mut c.dsack_dups,
                        &mut c.undos,
                        &mut c.spurious_rtos,
                    ] {
                        v.push(0);
                    }
                    c.srtt.push(0);
                    c.min_rtt.push(0);
                    c.cwnd.push(0);
                    c.goodput.push(rate(u.recv_bytes, f.start, end));
                }
                FlowKind::Closed => unreachable!("only task connections close"),
            }
        }
        let t = Table::new("flows")
            .with("flow", Column::U32(c.flow))
            .with("name", Column::Str(c.name))
            .with("kind", Column::Str(c.kind))
            .with("src", Column::Str(c.src))
            .with("dst", Column::Str(c.dst))
            .with("cc", Column::Str(c.cc))
            .with("start_ps", Column::U64(c.start))
            .with("end_ps", Column::U64(c.end))
            .with("bytes_sent", Column::U64(c.bytes_sent))
            .with("bytes_delivered", Column::U64(c.bytes_delivered))
            .with("data_pkts_sent", Column::U64(c.data_pkts))
            .with("retransmits", Column::U64(c.retx))
            .with("lost_retransmits", Column::U64(c.lost_retx))
            .with("timeouts", Column::U64(c.timeouts))
            .with("recoveries", Column::U64(c.recoveries))
            .with("ece_acks", Column::U64(c.ece))
            .with("returns_received", Column::U64(c.returns))
            .with("ce_received", Column::U64(c.ce))
            .with("completion_ps", Column::U64(c.completion))
            .with("srtt_ps", Column::U64(c.srtt))
            .with("min_rtt_ps", Column::U64(c.min_rtt))
            .with("cwnd_pkts", Column::U32(c.cwnd))
            .with("goodput_bps", Column::F64(c.goodput))
            .with("loss_probes", Column::U64(c.loss_probes))
            .with("dsack_dups", Column::U64(c.dsack_dups))
            .with("undos", Column::U64(c.undos))
            .with("spurious_rtos", Column::U64(c.spurious_rtos));
        match self.rec.warmup {
            Some(w) => t.with(
                "steady_goodput_bps",
                Column::F64(self.steady_goodput(w, now)),
            ),
            None => t,
        }
    }

    /// Each flow's goodput from the end of the warm-up `w` (or its start,
    /// if later) to its end: 0 for a flow that ended before `w`.
    pub(super) fn steady_goodput(&self, w: Time, now: Time) -> Vec<f64> {
        self.flows
            .iter()
            .enumerate()
            .filter(|(_, f)| f.task == NO_TASK)
            .map(|(i, f)| {
                let (delivered, end) = match &f.kind {
                    FlowKind::Tcp(c) => (
                        c.receiver.rcv_nxt,
                        c.sender.stats.completion.unwrap_or(now).min(now),
                    ),
                    FlowKind::Udp(u) => (u.recv_bytes, u.end.unwrap_or(now).min(now)),
                    FlowKind::Closed => unreachable!("only task connections close"),
                };
                let before = self.rec.delivered_at_warmup.get(i).copied().unwrap_or(0);
                rate(delivered.saturating_sub(before), w.max(f.start), end)
            })
            .collect()
    }

    /// A column of the names of the nodes `ids`.
    fn node_names_col(&self, ids: impl Iterator<Item = u32>) -> Column {
        Column::Str(ids.map(|n| self.node_names[n as usize].clone()).collect())
    }

    pub(super) fn queues_table(&self, run_ps: u64) -> Table {
        let mut t = Table::new("queues");
        let ps = &self.ports;
        let u64col = |f: &dyn Fn(&Port) -> u64| Column::U64(ps.iter().map(f).collect());
        t = t
            .with("port", Column::U32((0..ps.len() as u32).collect()))
            .with("node", self.node_names_col(ps.iter().map(|p| p.node)))
            .with("peer", self.node_names_col(ps.iter().map(|p| p.peer)))
            .with("rate_bps", u64col(&|p| p.rate_bps))
            .with("enqueued_pkts", u64col(&|p| p.stats.enqueued))
            .with("dequeued_pkts", u64col(&|p| p.stats.dequeued))
            .with("marked_pkts", u64col(&|p| p.stats.marked));
        let delay_aqm: &[DropReason] = match (self.delay_aqm, self.l4s_aqm) {
            (true, true) => &[DropReason::Codel, DropReason::Pie, DropReason::DualPi2],
            (true, false) => &[DropReason::Codel, DropReason::Pie],
            _ => &[],
        };
        for &r in [
            DropReason::Overflow,
            DropReason::RedEarly,
            DropReason::RedForced,
            DropReason::LinkLoss,
        ]
        .iter()
        .chain(delay_aqm)
        {
            t = t.with(
                &format!("drops_{}", r.name()),
                u64col(&|p| p.stats.drops[r as usize]),
            );
        }
        if self.l4s_aqm {
            t = dualpi2_columns(t, ps);
        }
        t.with("tx_bytes", u64col(&|p| p.stats.tx_bytes))
            .with("busy_ps", u64col(&|p| p.stats.busy.ps()))
            .with(
                "utilization",
                utilization_col(ps.iter().map(|p| p.stats.busy.ps()), run_ps),
            )
            .with(
                "max_pkts",
                Column::U32(ps.iter().map(|p| p.stats.max_pkts).collect()),
            )
            .with("max_bytes", u64col(&|p| p.stats.max_bytes))
            .with("feedback_sent", u64col(&|p| p.stats.feedback_sent))
    }

    pub(super) fn pipelines_table(&self, run_ps: u64) -> Table {
        let pl = &self.pipelines;
        let t = self.pipelines_counts(run_ps);
        // `holds` only when some input buffer blocks (`net::input_gate`):
        // other runs' tables keep their shape.
        if !pl.iter().any(|p| p.gate.is_some()) {
            return t;
        }
        let holds = pl.iter().map(|p| p.gate.as_ref().map_or(0, |g| g.holds));
        t.with("holds", Column::U64(holds.collect()))
    }

    fn pipelines_counts(&self, run_ps: u64) -> Table {
        let pl = &self.pipelines;
        Table::new("pipelines")
            .with("node", self.node_names_col(pl.iter().map(|p| p.node)))
            .with(
                "capacity_pps",
                Column::F64(pl.iter().map(|p| p.capacity_pps).collect()),
            )
            .with(
                "buffer_pkts",
                Column::U32(pl.iter().map(|p| p.buffer_pkts).collect()),
            )
            .with(
                "processed_pkts",
                Column::U64(pl.iter().map(|p| p.stats.processed).collect()),
            )
            .with(
                "drops_pipeline",
                Column::U64(pl.iter().map(|p| p.stats.drops).collect()),
            )
            .with(
                "max_pkts",
                Column::U32(pl.iter().map(|p| p.stats.max_pkts).collect()),
            )
            .with(
                "busy_ps",
                Column::U64(pl.iter().map(|p| p.stats.busy.ps()).collect()),
            )
            .with(
                "utilization",
                utilization_col(pl.iter().map(|p| p.stats.busy.ps()), run_ps),
            )
    }
}

/// The `dualpi2_*` columns of runs with a DualPI2 port: each DualPI2
/// port's counters (`queue::dualpi2::DualPi2Counts`), zero on the others.
fn dualpi2_columns(mut t: Table, ports: &[Port]) -> Table {
    type Count = fn(&DualPi2Counts) -> u64;
    let cols: [(&str, Count); 9] = [
        ("dualpi2_l_enqueued", |c| c.enqueued[0]),
        ("dualpi2_c_enqueued", |c| c.enqueued[1]),
        ("dualpi2_step_marks", |c| c.step_marks),
        ("dualpi2_prob_marks", |c| c.prob_marks),
        ("dualpi2_prob_drops", |c| c.prob_drops),
        ("dualpi2_l_floor_spared", |c| c.floor_spared[0]),
        ("dualpi2_c_floor_spared", |c| c.floor_spared[1]),
        ("dualpi2_overloaded", |c| c.overloaded),
        ("dualpi2_overload_drops", |c| c.overload_drops),
    ];
    for (name, count) in cols {
        let col = ports
            .iter()
            .map(|p| p.qdisc.dualpi2_counts().map_or(0, count));
        t = t.with(name, Column::U64(col.collect()));
    }
    t
}

/// A `utilization` column: the share of the run each element was busy.
fn utilization_col(busy_ps: impl Iterator<Item = u64>, run_ps: u64) -> Column {
    Column::F64(busy_ps.map(|b| b as f64 / run_ps as f64).collect())
}
