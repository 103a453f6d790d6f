//! The world: every node, port, packet and flow of one run, and the event
//! loop that drives them.
//!
//! Everything lives in flat `Vec`s addressed by `u32` ids; an event carries
//! ids only. Events at the same instant run in scheduling order
//! (`sim::EventQueue`), so a run is a pure function of its configuration and
//! seed. Random draws come from streams named after their component:
//! `link:<node>-><peer>:loss`, `queue:<node>-><peer>:aqm`, `flow:<name>:cc`
//! (handed to the flow's congestion control, see `cc::make`).
//!
//! Packet conservation is audited at the end of every run: every packet
//! created is delivered, dropped with a reason, or still in a queue, a
//! software switch's pipeline or on a wire, and the pool agrees with a walk
//! over all of them. A violation fails the run. Returned copies (packet
//! return, `queue::feedback`) are created by switches and count like any
//! other packet.
//!
//! A packet entering a switch that has a pipeline (`net::pipeline`) waits
//! for it before being routed; without one it is routed at once.

use crate::cc;
use crate::cc::CongestionControl as _;
use crate::config::{
    AqmConfig, CcConfig, ConfigError, CopyConfig, FeedbackConfig, FlowConfig, MarkAt, NodeKind,
    QueueConfig, RunConfig, TcpConfig,
};
use crate::net::ecmp::Forwarding;
use crate::net::packet::{Packet, PacketPool, PktId, Proto};
use crate::net::pipeline::{Admit, Pipeline};
use crate::net::port::{Netem, Port, PortTrace};
use crate::net::topology::{Routes, NO_ROUTE};
use crate::queue::aqm::Threshold;
use crate::queue::{
    Aqm, Codel, CodelParams, CopySize, Decision, DropReason, Feedback, Fifo, FqCodel,
    FqCodelParams, Hysteresis, Limit, MarkPoint, Occupancy, Pie, PieParams, QueueCtx, QueueDisc,
    Red, RedParams, StepMark, Verdict,
};
use crate::sim::monitor::{Phase, POLL_EVERY_EVENTS};
use crate::sim::{rng_for, Dur, Event, EventQueue, Rng, RunMonitor, Time};
use crate::tcp::receiver::{EcnEcho, Receiver};
use crate::tcp::sender::Sender;
use crate::tcp::{Endpoints, Out, TimerKind};
use crate::trace::{Column, Table};
use std::collections::HashMap;
use std::sync::Arc;

mod arrival_hop;
mod backpressure;
mod build;
mod capture;
mod classes;
mod departures;
mod netem_gso;
mod packet_trace;
mod ports;
mod rtt_samples;
mod tables;
mod tasks;
mod tsq_wake;

use build::{build_fifo, build_qdisc, tcp_conn};
use tables::record_flow;

/// The outcome of one run: named columnar tables (see `docs/output.md`).
#[derive(Debug, Default)]
pub struct RunOutput {
    pub tables: Vec<Table>,
    /// The run was stopped (`RunMonitor`) before its end: the tables cover
    /// `[0, sim_time_ps]` of the summary.
    pub stopped: bool,
}

impl RunOutput {
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }

    /// A one-row summary value.
    pub fn summary_u64(&self, col: &str) -> u64 {
        self.table("summary")
            .and_then(|t| t.u64s(col))
            .map_or(0, |v| v[0])
    }
}

#[derive(Debug)]
pub enum RunError {
    /// Bad input, before any simulation: names the field.
    Config(ConfigError),
    /// A limit the configuration sets (or the machine's memory) was reached
    /// while running: names the field that governs it. The run is over and
    /// its tables are lost; nothing was aborted.
    Limit(ConfigError),
    /// An invariant broke during the run (packet conservation, a loop that
    /// makes no progress, ...).
    Internal(String),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Config(e) | RunError::Limit(e) => write!(f, "{e}"),
            RunError::Internal(s) => write!(f, "internal error: {s}"),
        }
    }
}

impl std::error::Error for RunError {}

impl From<ConfigError> for RunError {
    fn from(e: ConfigError) -> Self {
        RunError::Config(e)
    }
}

/// How a run goes beside its configuration: all optional.
#[derive(Clone, Copy, Default)]
pub struct RunOptions<'a> {
    /// A monitor another thread may stop the run with: a stopped run
    /// returns the tables of the time it reached, with `stopped = true` in
    /// its summary. None: a monitor of its own.
    pub monitor: Option<&'a RunMonitor>,
    /// A factory of the configuration's `external` controls
    /// (`cc::ExternalControls`): how an embedding runs controls the core
    /// does not know. None: a configuration naming one is refused.
    pub external: Option<&'a Arc<dyn cc::ExternalControls>>,
}

/// Runs one scenario to completion: the one entry point (see [`run_json`]
/// for a JSON document).
pub fn run(cfg: &RunConfig, opts: RunOptions) -> Result<RunOutput, RunError> {
    let own = RunMonitor::new();
    let monitor = opts.monitor.unwrap_or(&own);
    let built = World::build_with(cfg, opts.external.cloned());
    let mut w = match built {
        Ok(w) => w,
        Err(e) => {
            monitor.set_phase(Phase::Done);
            return Err(e.into());
        }
    };
    w.run_monitored(monitor);
    w.finish()
}

/// Parses a JSON configuration and runs it ([`run`]); a decoding error
/// names the field.
pub fn run_json(json: &str, opts: RunOptions) -> Result<RunOutput, RunError> {
    let cfg = RunConfig::from_json(json).inspect_err(|_| {
        if let Some(m) = opts.monitor {
            m.set_phase(Phase::Done)
        }
    })?;
    run(&cfg, opts)
}

/// [`run_json`] with every TCP sender's NIC raising a `TxDone` event per
/// packet, as before issue 29: the reference whose tables, all but the
/// summary's event count, a run with lazy NICs must give bit for bit
/// (`world/tsq_wake.rs`; `tests/departures.rs`, `run_json --nic-events`).
pub fn run_json_with_nic_events(json: &str) -> Result<RunOutput, RunError> {
    run_with_nic_events(&RunConfig::from_json(json)?)
}

/// [`run_json_with_nic_events`] of a configuration.
pub fn run_with_nic_events(cfg: &RunConfig) -> Result<RunOutput, RunError> {
    let mut w = World::build_with(cfg, None)?;
    w.keep_nic_events();
    w.run();
    w.finish()
}

struct TcpConn {
    sender: Sender,
    receiver: Receiver,
}

struct UdpFlow {
    start: Time,
    stop: Option<Time>,
    rate_bps: u64,
    payload: u32,
    sent: u64,
    sent_bytes: u64,
    recv_bytes: u64,
    end: Option<Time>,
}

enum FlowKind {
    Tcp(Box<TcpConn>),
    /// Boxed, so that the arena's entries stay small (a long run of
    /// file-transfer tasks keeps one entry per connection it opened).
    Udp(Box<UdpFlow>),
    /// A task's connection after the task completed: its state is freed;
    /// packets still in the network are delivered and discarded.
    Closed,
}

/// How far ahead on a wire's ring `arrive` prefetches (16-byte entries:
/// two cache lines ahead).
const PIPE_AHEAD: usize = 8;

/// `Flow::task` of a flow that belongs to no task.
const NO_TASK: u32 = u32::MAX;

struct Flow {
    name: String,
    src: u32,
    dst: u32,
    start: Time,
    cc_name: &'static str,
    kind: FlowKind,
    /// The ground truth every packet of the flow carries
    /// (`Packet::long_flow`): it, or its task, moves more than
    /// `short_flow_max_bytes`.
    long: bool,
    /// The task this connection serves (`world/tasks.rs`), or `NO_TASK`.
    task: u32,
    role: tasks::Role,
}

/// Rows of `flow_samples` / `cwnd`.
#[derive(Default)]
struct FlowRows {
    time: Vec<u64>,
    flow: Vec<u32>,
    delivered: Vec<u64>,
    cwnd: Vec<u32>,
    ssthresh: Vec<u32>,
    srtt: Vec<u64>,
    in_flight: Vec<u32>,
    state: Vec<u32>,
}

impl FlowRows {
    fn table(self, name: &str) -> Table {
        Table::events(name, self.time, "flow", self.flow)
            .with("delivered_bytes", Column::U64(self.delivered))
            .with("cwnd_pkts", Column::U32(self.cwnd))
            .with("ssthresh_pkts", Column::U32(self.ssthresh))
            .with("srtt_ps", Column::U64(self.srtt))
            .with("in_flight_pkts", Column::U32(self.in_flight))
            .with("ca_state", Column::U32(self.state))
    }
}

impl FlowRows {
    fn bytes(&self) -> u64 {
        self.time.len() as u64 * crate::validate::FLOW_ROW_BYTES
    }

    fn make_room(&mut self) -> Result<(), std::collections::TryReserveError> {
        crate::trace::headroom_of!(self: time, flow, delivered, cwnd, ssthresh, srtt, in_flight, state)
    }
}

impl Recorders {
    /// Bytes the recorders hold, and the field governing the largest one.
    fn usage(&self) -> (u64, &'static str) {
        use crate::validate::{DEQUEUE_ROW_BYTES, DROP_ROW_BYTES, QUEUE_ROW_BYTES, VAR_ROW_BYTES};
        let vars_field = if self.cwnd_every_ack {
            "record.cwnd_every_ack"
        } else {
            "record.flow_sample_ps"
        };
        let parts = [
            (self.samples.bytes(), "record.flow_sample_ps"),
            (self.cwnd.bytes(), "record.cwnd_every_ack"),
            (self.var_time.len() as u64 * VAR_ROW_BYTES, vars_field),
            (self.q_time.len() as u64 * QUEUE_ROW_BYTES, "record.queues"),
            (
                self.d_time.len() as u64 * DEQUEUE_ROW_BYTES,
                "record.queues.dequeue_times",
            ),
            (self.x_time.len() as u64 * DROP_ROW_BYTES, "record.drop_log"),
        ];
        let total = parts.iter().map(|p| p.0).sum();
        let top = parts.iter().max_by_key(|p| p.0).map_or("record", |p| p.1);
        (total, top)
    }

    fn make_room(&mut self) -> Result<(), std::collections::TryReserveError> {
        self.samples.make_room()?;
        self.cwnd.make_room()?;
        crate::trace::headroom_of!(self: var_time, var_flow, var_id, var_value,
            q_time, q_port, q_pkts, q_bytes, d_time, d_port, d_size,
            x_time, x_port, x_flow, x_reason)
    }
}

#[derive(Default)]
struct Recorders {
    flow_sample: Option<Dur>,
    cwnd_every_ack: bool,
    drop_log: bool,
    /// `record.tcp_vars`: the sender's recovery state joins `cc_vars`.
    tcp_vars: bool,
    samples: FlowRows,
    cwnd: FlowRows,
    var_names: Vec<&'static str>,
    var_time: Vec<u64>,
    var_flow: Vec<u32>,
    var_id: Vec<u32>,
    var_value: Vec<f64>,
    q_time: Vec<u64>,
    q_port: Vec<u32>,
    q_pkts: Vec<u32>,
    q_bytes: Vec<u64>,
    q_congested: Vec<bool>,
    d_time: Vec<u64>,
    d_port: Vec<u32>,
    d_size: Vec<u32>,
    x_time: Vec<u64>,
    x_port: Vec<u32>,
    x_flow: Vec<u32>,
    x_reason: Vec<&'static str>,
    /// The end of the warm-up, and each flow's delivered bytes then.
    warmup: Option<Time>,
    delivered_at_warmup: Vec<u64>,
}

pub struct World {
    now: Time,
    end: Time,
    events: EventQueue,
    pool: PacketPool,
    node_names: Vec<String>,
    node_kinds: Vec<NodeKind>,
    ports: Vec<Port>,
    /// Each port's wire's head packet and the far end's decision for it,
    /// beside the ports (`world/arrival_hop.rs`).
    heads: Vec<arrival_hop::WireHead>,
    /// Each node's decision for each destination (`world/arrival_hop.rs`).
    hops: arrival_hop::Hops,
    aqm_rngs: Vec<Rng>,
    /// Some port runs CoDel, FQ-CoDel or PIE: the queues table then has
    /// their drop columns (absent otherwise, so older tables keep their
    /// shape).
    delay_aqm: bool,
    /// Some port runs DualPI2: the queues table then has its drop column.
    l4s_aqm: bool,
    /// Software-switch pipelines, and each node's index into them
    /// ([`NO_PIPELINE`] for none).
    pipelines: Vec<Pipeline>,
    node_pipeline: Vec<u32>,
    routes: Routes,
    forwarding: Forwarding,
    flows: Vec<Flow>,
    tasks: tasks::Tasks,
    seed: u64,
    out: Out,
    rec: Recorders,
    /// `record.pcap`'s capture points and rows (`world/capture.rs`).
    cap: capture::Capture,
    /// `record.packets`: the per-packet trace (`world/packet_trace.rs`).
    pkts: packet_trace::PacketTrace,
    /// `record.rtt_samples` (`world/rtt_samples.rs`).
    rtts: rtt_samples::RttSamples,
    /// TCP senders' lazy NICs and the senders TSQ holds (`world/tsq_wake.rs`).
    tsq: tsq_wake::TsqWake,
    created: u64,
    delivered: u64,
    dropped: u64,
    data_sent: u64,
    acks_sent: u64,
    /// The run was stopped from outside before its end.
    stopped: bool,
    /// Why the run ended early, if it failed (`finish` returns it).
    fault: Option<RunError>,
    /// `record.max_bytes`.
    record_budget: u64,
    /// The embedding's factory of `external` controls, for the connections
    /// tasks open while running.
    external: Option<Arc<dyn cc::ExternalControls>>,
}

const NO_PIPELINE: u32 = u32::MAX;

fn err(field: impl Into<String>, msg: impl Into<String>) -> ConfigError {
    ConfigError::new(field, msg)
}

/// `Err` naming `field` (built only on failure) unless `ok`.
fn ensure(ok: bool, field: impl FnOnce() -> String, msg: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(err(field(), msg))
    }
}

impl World {
    /// Runs the event loop until the configured end.
    pub fn run(&mut self) {
        self.run_monitored(&RunMonitor::new());
    }

    /// Runs the event loop until the configured end, a stop request, or a
    /// fault (a loop without progress, a recording budget or memory
    /// exhausted), polling `monitor` every [`POLL_EVERY_EVENTS`] events.
    pub fn run_monitored(&mut self, monitor: &RunMonitor) {
        monitor.set_end(self.end.ps());
        monitor.set_phase(Phase::Running);
        let mut countdown = POLL_EVERY_EVENTS;
        let instant_limit = monitor.instant_limit();
        let mut instant = Time::ZERO;
        let mut at_instant: u64 = 0;
        // A stop requested before the loop starts is honoured at once.
        let mut finished = !monitor.poll(0, 0);
        self.stopped = !finished;
        while finished {
            let Some((t, ev)) = self.events.pop_until(self.end) else {
                break;
            };
            if t == instant {
                at_instant += 1;
                if at_instant > instant_limit {
                    self.fault = Some(RunError::Internal(format!(
                        "no progress: {at_instant} events at t = {:?} without time advancing; \
                         the last one came from {}",
                        t,
                        self.describe(ev)
                    )));
                    self.now = t;
                    finished = false;
                    break;
                }
            } else {
                instant = t;
                at_instant = 1;
            }
            self.now = t;
            match ev {
                Event::TxDone { port } => self.tx_done(port),
                Event::Arrive { port } => self.arrive(port),
                Event::ArriveLate { port } => self.arrive_late(port),
                Event::NetemRelease { port } => self.netem_release(port),
                Event::TcpTimer { conn, kind } => {
                    self.tcp_timer(conn, TimerKind::from_u8(kind).unwrap_or(TimerKind::Start))
                }
                Event::UdpSend { flow } => self.udp_send(flow),
                Event::Sample => self.sample_flows(),
                Event::Warmup => self.note_warmup(),
                Event::QueueSample { port } => self.sample_queue(port),
                Event::PipelineDone { pipeline } => self.pipeline_done(pipeline),
                Event::TaskArrival { workload } => self.task_arrival(workload),
            }
            countdown -= 1;
            if countdown == 0 {
                countdown = POLL_EVERY_EVENTS;
                if monitor.poll(t.ps(), self.events.popped()) {
                    self.stopped = true;
                    finished = false;
                    break;
                }
                if let Err(e) = self.make_room() {
                    self.fault = Some(e);
                    finished = false;
                    break;
                }
            }
        }
        if finished {
            self.now = self.end;
        }
        self.settle_ports();
        monitor.poll(self.now.ps(), self.events.popped());
        monitor.set_phase(Phase::Done);
    }

    /// Whether the run was stopped from outside before its end.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// At a poll: holds the recorders to `record.max_bytes`, and grows the
    /// large buffers fallibly, so that running out of memory is an error
    /// naming what filled it, never an abort.
    fn make_room(&mut self) -> Result<(), RunError> {
        let (mut held, mut field) = self.rec.usage();
        let captured = self.cap.bytes() + self.pkts.bytes() + self.rtts.bytes();
        if captured > 0 {
            held += captured;
            if captured * 2 > held {
                field = [
                    (self.cap.bytes(), "record.pcap"),
                    (self.pkts.bytes(), "record.packets"),
                    (self.rtts.bytes(), "record.rtt_samples"),
                ]
                .into_iter()
                .max_by_key(|p| p.0)
                .map_or(field, |p| p.1);
            }
        }
        if held > self.record_budget {
            return Err(RunError::Limit(err(
                field,
                format!(
                    "the recorded tables reached {} at t = {:?}, more than record.max_bytes = {}; \
                     record less (a shorter window, fewer queues) or raise record.max_bytes",
                    crate::validate::fmt_bytes(held as u128),
                    self.now,
                    crate::validate::fmt_bytes(self.record_budget as u128)
                ),
            )));
        }
        let oom = |what: &str, field: &str, bytes: u64, now: Time| {
            RunError::Limit(err(
                field,
                format!(
                    "out of memory at t = {now:?}: could not grow {what} beyond {}",
                    crate::validate::fmt_bytes(bytes as u128)
                ),
            ))
        };
        if self.rec.make_room().is_err()
            || self.cap.make_room().is_err()
            || self.pkts.make_room().is_err()
            || self.rtts.make_room().is_err()
        {
            return Err(oom("the recorded tables", field, held, self.now));
        }
        if self.pool.make_room().is_err() {
            return Err(oom(
                "the packets in the network",
                "links",
                self.pool.bytes(),
                self.now,
            ));
        }
        if self.events.make_room().is_err() {
            return Err(oom("the event queue", "flows", 0, self.now));
        }
        Ok(())
    }

    /// The component an event belongs to, in the configuration's terms.
    fn describe(&self, ev: Event) -> String {
        let port = |p: u32| {
            let p = &self.ports[p as usize];
            format!(
                "the port {}->{}",
                self.node_names[p.node as usize], self.node_names[p.peer as usize]
            )
        };
        let flow = |f: u32| format!("flows[{f}] ({:?})", self.flows[f as usize].name);
        match ev {
            Event::TxDone { port: p } => format!("{} (end of a transmission)", port(p)),
            Event::Arrive { port: p } => format!("the link of {} (an arrival)", port(p)),
            Event::TcpTimer { conn, kind } => {
                format!(
                    "{} (TCP timer {:?})",
                    flow(conn),
                    TimerKind::from_u8(kind).unwrap_or(TimerKind::Start)
                )
            }
            Event::UdpSend { flow: f } => format!("{} (UDP send)", flow(f)),
            Event::Sample => "record.flow_sample_ps (a sampling tick)".into(),
            Event::Warmup => "record.warmup_ps (the end of the warm-up)".into(),
            Event::ArriveLate { port: p } => {
                format!("the link of {} (a reordered arrival)", port(p))
            }
            Event::NetemRelease { port: p } => format!("the netem stage of {}", port(p)),
            Event::QueueSample { port: p } => format!("record.queues: {} (a sample)", port(p)),
            Event::TaskArrival { workload } => format!("workloads[{workload}] (a task arrival)"),
            Event::PipelineDone { pipeline } => {
                let n = self.pipelines[pipeline as usize].node as usize;
                format!(
                    "nodes[{n}].pipeline ({:?}, end of a service)",
                    self.node_names[n]
                )
            }
        }
    }

    // ------------------------------------------------------------------
    // Ports: enqueue, transmit, propagate.
    // ------------------------------------------------------------------

    // ------------------------------------------------------------------
    // Endpoints.
    // ------------------------------------------------------------------

    /// Injects what an endpoint produced into `self.out`: packets into the
    /// host's egress port, timers into the event queue. Endpoints write
    /// into `self.out` in place (a field apart from the flows, so both
    /// borrow at once); nothing that injecting a packet runs writes to it.
    fn flush(&mut self, flow: u32, node: u32) {
        for i in 0..self.out.timers.len() {
            let (at, kind) = self.out.timers[i];
            self.events.schedule(
                at,
                Event::TcpTimer {
                    conn: flow,
                    kind: kind as u8,
                },
            );
        }
        self.out.timers.clear();
        let long = self.flows[flow as usize].long;
        for i in 0..self.out.pkts.len() {
            // Copied once, from `out` into its slot (a copy to the stack
            // first cost a store-forwarding stall), and tagged there: the
            // endpoints write their packets whole, and a byte stored into
            // `out` just before the copy's wide loads would make them wait.
            let p = &self.out.pkts[i];
            if p.payload_bytes > 0 {
                self.data_sent += 1;
            } else {
                self.acks_sent += 1;
            }
            self.created += 1;
            let id = self.pool.alloc_copy(&self.out.pkts[i]);
            self.pool.get_mut(id).long_flow = long;
            self.forward(node, id);
        }
        self.out.pkts.clear();
        if self.out.tsq_held {
            self.out.tsq_held = false;
            self.tsq_held(flow, node);
        }
    }

    /// Hands `pkt` to its endpoint at `node`, read in place in the pool
    /// (no copy), and frees it before the endpoint's answer is injected.
    fn deliver_local(&mut self, node: u32, pkt: PktId) {
        // A sender here finds its NIC as it is now (`world/tsq_wake.rs`).
        self.catch_up_host(node);
        let now = self.now;
        let p = self.pool.get(pkt);
        let flow = p.flow;
        let f = &mut self.flows[flow as usize];
        let has_task = f.task != NO_TASK;
        match &mut f.kind {
            FlowKind::Tcp(c) => {
                let at_receiver = node == c.sender.endpoints().dst;
                if p.feedback {
                    // A returned copy, at the sender (cc/mod.rs, "Returned copies").
                    c.sender.on_returned_copy(now, &mut self.out);
                } else if at_receiver {
                    c.receiver.on_packet(now, p, &mut self.out);
                } else {
                    c.sender.on_ack(now, p, &mut self.out);
                    if self.rtts.on {
                        self.rtts.note(now, flow, &c.sender.rtt);
                    }
                    if self.rec.cwnd_every_ack {
                        record_flow(&mut self.rec, true, now, flow, c);
                    }
                }
                // A task reads the packet after the answer went out.
                let for_task = (has_task && !p.feedback).then_some(*p);
                self.pool.free(pkt);
                self.flush(flow, node);
                if let Some(p) = for_task {
                    self.task_progress(flow, at_receiver, &p);
                }
            }
            FlowKind::Udp(u) => {
                u.recv_bytes += p.payload_bytes as u64;
                self.pool.free(pkt);
            }
            FlowKind::Closed => self.pool.free(pkt),
        }
    }

    fn tcp_timer(&mut self, flow: u32, kind: TimerKind) {
        let now = self.now;
        if kind != TimerKind::DelAck {
            let src = self.flows[flow as usize].src;
            self.catch_up_host(src);
        }
        let f = &mut self.flows[flow as usize];
        let FlowKind::Tcp(c) = &mut f.kind else {
            return;
        };
        let node = if kind == TimerKind::DelAck {
            c.receiver.on_delack_timer(now, &mut self.out);
            f.dst
        } else {
            c.sender.on_timer(now, kind, &mut self.out);
            f.src
        };
        self.flush(flow, node);
    }

    fn udp_send(&mut self, flow: u32) {
        let now = self.now;
        let f = &mut self.flows[flow as usize];
        let (src, dst) = (f.src, f.dst);
        let FlowKind::Udp(u) = &mut f.kind else {
            return;
        };
        if u.stop.is_some_and(|s| now >= s) {
            u.end.get_or_insert(now);
            return;
        }
        // UDP/IP headers: 28 bytes. The rate counts payload bits, as iperf -u -b.
        let p = Packet {
            size_bytes: u.payload + 28,
            payload_bytes: u.payload,
            flow,
            src,
            dst,
            sport: 20_000 + flow as u16,
            dport: 5001,
            proto: Proto::Udp,
            long_flow: true,
            born_ps: now.ps(),
            ..Default::default()
        };
        u.sent += 1;
        u.sent_bytes += u.payload as u64;
        // Exact schedule: the n-th datagram leaves at start + n·payload·8/rate.
        let next_ps = (u.start.ps() as u128
            + (u.sent as u128 * u.payload as u128 * 8 * crate::sim::PS_PER_S as u128)
                / u.rate_bps as u128)
            .min(u64::MAX as u128) as u64;
        self.events
            .schedule(Time::from_ps(next_ps), Event::UdpSend { flow });
        self.data_sent += 1;
        self.created += 1;
        let id = self.pool.alloc(p);
        self.forward(src, id);
    }

    /// The end of the warm-up: what each flow has delivered so far.
    fn note_warmup(&mut self) {
        self.rec.delivered_at_warmup = self
            .flows
            .iter()
            .map(|f| match &f.kind {
                FlowKind::Tcp(c) => c.receiver.rcv_nxt,
                FlowKind::Udp(u) => u.recv_bytes,
                FlowKind::Closed => 0,
            })
            .collect();
    }

    fn sample_flows(&mut self) {
        let now = self.now;
        for i in 0..self.flows.len() {
            if self.flows[i].task != NO_TASK {
                continue; // tasks report in the `tasks` table
            }
            match &self.flows[i].kind {
                FlowKind::Closed => {}
                FlowKind::Tcp(c) => record_flow(&mut self.rec, false, now, i as u32, c),
                FlowKind::Udp(u) => {
                    let r = &mut self.rec.samples;
                    r.time.push(now.ps());
                    r.flow.push(i as u32);
                    r.delivered.push(u.recv_bytes);
                    r.cwnd.push(0);
                    r.ssthresh.push(0);
                    r.srtt.push(0);
                    r.in_flight.push(0);
                    r.state.push(0);
                }
            }
        }
        if let Some(p) = self.rec.flow_sample {
            self.events.schedule(now + p, Event::Sample);
        }
    }

    // ------------------------------------------------------------------
    // The end of the run: audit and tables.
    // ------------------------------------------------------------------

    /// Counts packets held by queues, serializers and wires.
    fn packets_in_network(&self) -> u64 {
        let mut n = 0u64;
        for p in &self.ports {
            n += p.qdisc.len_pkts() as u64 + p.in_flight_pkts();
        }
        n + self.pipelines.iter().map(Pipeline::held).sum::<u64>()
    }

    /// The conservation audit: created = delivered + dropped + in flight,
    /// and the pool agrees with a walk of the network.
    pub fn check_conservation(&self) -> Result<(), String> {
        let live = self.pool.live();
        let walked = self.packets_in_network();
        if self.created != self.delivered + self.dropped + live || live != walked {
            return Err(format!(
                "packet conservation violated: created {} != delivered {} + dropped {} + in flight {} (network holds {})",
                self.created, self.delivered, self.dropped, live, walked
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(extra: &str) -> RunConfig {
        RunConfig::from_json(&format!(
            r#"{{"seed": 1, "duration_ps": 2000000000000,
                "nodes": [{{"name": "a", "kind": "host"}}, {{"name": "s", "kind": "switch"}},
                          {{"name": "b", "kind": "host"}}],
                "links": [{{"a": "a", "b": "s", "rate_bps": 1000000000, "delay_ps": 10000000}},
                          {{"a": "s", "b": "b", "rate_bps": 1000000000, "delay_ps": 10000000}}]
                {extra}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn a_loop_at_one_instant_ends_the_run_naming_its_component() {
        // A zero sampling period cannot be configured (validate refuses it);
        // forced here, it reschedules at `now` forever.
        let mut w = World::build(&config("")).unwrap();
        w.rec.flow_sample = Some(Dur::ZERO);
        w.events.schedule(Time::from_ps(5), Event::Sample);
        w.run();
        assert_eq!(w.now, Time::from_ps(5), "stuck at the instant of the loop");
        let Err(RunError::Internal(msg)) = w.finish() else {
            panic!("expected an internal error")
        };
        assert!(
            msg.contains("no progress") && msg.contains("record.flow_sample_ps"),
            "{msg}"
        );
    }

    #[test]
    fn a_stop_request_returns_the_tables_of_the_time_reached() {
        let flows = r#", "flows": [{"kind": "tcp", "name": "f", "src": "a", "dst": "b"}]"#;
        let cfg = config(flows);
        let full = run(&cfg, RunOptions::default()).unwrap();
        let m = RunMonitor::with_event_limit(10_000);
        let monitored = |m: &RunMonitor| {
            let opts = RunOptions {
                monitor: Some(m),
                ..Default::default()
            };
            run(&cfg, opts).unwrap()
        };
        let part = monitored(&m);
        let summary = |o: &RunOutput, c: &str| o.summary_u64(c);
        let stopped = |o: &RunOutput| o.stopped;
        assert!(!stopped(&full) && stopped(&part));
        // Stopped at the first poll past the limit, well before the end,
        // with packet conservation intact (finish audits it).
        let events = summary(&part, "events");
        assert!(
            (10_000..10_000 + POLL_EVERY_EVENTS as u64).contains(&events),
            "{events}"
        );
        assert!(summary(&part, "sim_time_ps") < cfg.duration_ps);
        assert!(summary(&part, "packets_delivered") < summary(&full, "packets_delivered"));
        assert_eq!(m.progress().phase, Phase::Done);
        assert_eq!(m.progress().events, events);
        // A stop requested before the loop starts: nothing runs.
        let m = RunMonitor::new();
        m.request_stop();
        let none = monitored(&m);
        assert_eq!(summary(&none, "events"), 0);
        assert!(stopped(&none));
    }

    #[test]
    fn a_recording_budget_reached_while_running_is_an_error_naming_the_recorder() {
        let extra = r#", "flows": [{"kind": "tcp", "name": "f", "src": "a", "dst": "b"}],
                        "record": {"cwnd_every_ack": true, "max_bytes": 1048576}"#;
        let Err(RunError::Limit(e)) = run(&config(extra), RunOptions::default()) else {
            panic!("expected a limit error")
        };
        assert_eq!(e.field, "record.cwnd_every_ack");
        assert!(e.message.contains("record.max_bytes"), "{}", e.message);
    }
}
