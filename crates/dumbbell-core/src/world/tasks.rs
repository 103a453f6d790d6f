//! File-transfer tasks in the world: workloads start tasks, tasks open
//! connections as their dialogue advances (`app::ftp`), and every task
//! leaves one row in the `tasks` table.
//!
//! The flow arena grows during the run: a task's connections are appended
//! to `World::flows` when they open, so flow ids are stable and assigned in
//! event order, a deterministic function of the configuration and seed.
//! When a task completes, its connections' state is dropped
//! (`FlowKind::Closed`): a long closed loop keeps the state of the active
//! tasks only, plus one small row per task and per connection id.
//!
//! Addresses: the client's ports are ephemeral, 32768 + k mod 28232 for the
//! k-th connection the world opens (Linux's default range, 32768–60999);
//! the server's control port is 21, its active-mode data port 20, and a
//! task without a dialogue is served from port 80. The control stream's
//! two directions share one 4-tuple, so RAFLE sees them as one flow per
//! direction, as it would a real FTP control connection.

use super::{ensure, err, tcp_conn, Flow, FlowKind, TcpConn, World};
use crate::app::cdf::EmpiricalCdf;
use crate::app::ftp::{Action, Dialogue, Script};
use crate::app::workload::{Arrivals, Sizes, Workload};

use crate::config::{
    ArrivalsConfig, CcConfig, ConfigError, NodeKind, RunConfig, SizesConfig, TcpConfig,
};
use crate::net::packet::{flags, Packet};
use crate::net::topology::Routes;
use crate::sim::{rng_for, Event, EventQueue, Rng, Time};
use crate::tcp::{Endpoints, TimerKind};
use crate::trace::{Column, Table};
use std::collections::{HashMap, HashSet};

/// What a connection does for its task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    /// A configured flow, not a task's.
    Bulk,
    /// Control requests, client → server.
    Requests,
    /// Control replies, server → client.
    Replies,
    /// The file, server → client.
    Data,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Bulk => "bulk",
            Role::Requests => "requests",
            Role::Replies => "replies",
            Role::Data => "data",
        }
    }
}

const NO_FLOW: u32 = u32::MAX;
const EPHEMERAL_FIRST: u32 = 32768;
const EPHEMERAL_COUNT: u32 = 61000 - 32768;
const CONTROL_PORT: u16 = 21;
const ACTIVE_DATA_PORT: u16 = 20;
const PLAIN_PORT: u16 = 80;

struct WorkloadRt {
    name: String,
    w: Workload,
    clients: Vec<u32>,
    servers: Vec<u32>,
    script: Option<Script>,
    cc: CcConfig,
    tcp: TcpConfig,
}

struct TaskRt {
    workload: u32,
    client: u32,
    server: u32,
    file: Option<u32>,
    size: u64,
    long: bool,
    start: Time,
    data_start: Option<Time>,
    completion: Option<Time>,
    dialogue: Option<Dialogue>,
    client_port: u16,
    /// Flow ids of the task's connections (`NO_FLOW` until opened).
    requests: u32,
    replies: u32,
    data: u32,
    /// Counters of the connections already closed.
    counts: ConnCounts,
}

/// What a task's connections did, summed: retransmitted segments,
/// timeouts, fast recoveries entered, data segments received out of order.
#[derive(Clone, Copy, Debug, Default)]
struct ConnCounts {
    retransmits: u64,
    timeouts: u64,
    recoveries: u64,
    out_of_order: u64,
    syn_retransmits: u64,
    undos: u64,
    control_retransmits: u64,
}

impl ConnCounts {
    fn add(&mut self, c: &TcpConn, role: Role) {
        let s = &c.sender.stats;
        self.retransmits += s.retransmits;
        self.timeouts += s.timeouts;
        self.recoveries += s.recoveries;
        self.out_of_order += c.receiver.ooo_received;
        self.syn_retransmits += s.syn_retransmits;
        self.undos += s.undos;
        if matches!(role, Role::Requests | Role::Replies) {
            self.control_retransmits += s.retransmits;
        }
    }
}

impl TaskRt {
    fn conns(&self) -> [u32; 3] {
        [self.requests, self.replies, self.data]
    }
}

pub(super) struct Tasks {
    workloads: Vec<WorkloadRt>,
    rows: Vec<TaskRt>,
    short_max_bytes: u64,
    /// Connections opened so far (for ephemeral ports).
    opened: u32,
}

fn pick(hosts: &[u32], rng: &mut Rng) -> u32 {
    if hosts.len() == 1 {
        hosts[0]
    } else {
        hosts[rng.below(hosts.len() as u64) as usize]
    }
}

impl Tasks {
    /// Validates `cfg.workloads` (errors name `workloads[i].<field>`) and
    /// schedules each workload's first arrival.
    pub(super) fn build(
        cfg: &RunConfig,
        ids: &HashMap<&str, u32>,
        kinds: &[NodeKind],
        routes: &Routes,
        events: &mut EventQueue,
    ) -> Result<Tasks, ConfigError> {
        let mut workloads = Vec::new();
        let mut names = HashSet::new();
        for (wi, wc) in cfg.workloads.iter().enumerate() {
            let f = format!("workloads[{wi}]");
            ensure(
                !wc.name.is_empty(),
                || format!("{f}.name"),
                "a workload needs a name",
            )?;
            ensure(
                names.insert(wc.name.as_str()),
                || format!("{f}.name"),
                "duplicate workload name",
            )?;
            let hosts = |list: &[String], key: &str| -> Result<Vec<u32>, ConfigError> {
                ensure(
                    !list.is_empty(),
                    || format!("{f}.{key}"),
                    "needs at least one host",
                )?;
                list.iter()
                    .enumerate()
                    .map(|(j, n)| {
                        let id = *ids.get(n.as_str()).ok_or_else(|| {
                            err(format!("{f}.{key}[{j}]"), format!("unknown node {n:?}"))
                        })?;
                        ensure(
                            kinds[id as usize] == NodeKind::Host,
                            || format!("{f}.{key}[{j}]"),
                            "tasks run between hosts, not switches",
                        )?;
                        Ok(id)
                    })
                    .collect()
            };
            let clients = hosts(&wc.clients, "clients")?;
            let servers = hosts(&wc.servers, "servers")?;
            for (j, s) in servers.iter().enumerate() {
                ensure(
                    !clients.contains(s),
                    || format!("{f}.servers[{j}]"),
                    "a host cannot be both a client and a server of one workload",
                )?;
                for c in &clients {
                    ensure(
                        routes.reachable(*s, *c),
                        || format!("{f}.servers[{j}]"),
                        "no path to a client: the topology is disconnected",
                    )?;
                }
            }
            let sizes = match &wc.sizes {
                SizesConfig::Files { bytes } => Sizes::Files(bytes.clone()),
                SizesConfig::Cdf { points } => {
                    Sizes::Cdf(EmpiricalCdf::new(points, &format!("{f}.sizes"))?)
                }
            };
            let arrivals = match wc.arrivals {
                ArrivalsConfig::AllAtOnce => Arrivals::AllAtOnce,
                ArrivalsConfig::ClosedLoop { concurrency } => Arrivals::ClosedLoop { concurrency },
                ArrivalsConfig::Poisson { rate_per_s } => Arrivals::Poisson { rate_per_s },
            };
            let start = Time::from_ps(wc.start_ps);
            let mut w = Workload::new(
                &wc.name,
                cfg.seed,
                sizes,
                arrivals,
                start,
                wc.stop_ps.map(Time::from_ps),
                wc.max_tasks,
            );
            let first = match arrivals {
                Arrivals::Poisson { .. } => start + w.next_gap(),
                _ => start,
            };
            events.schedule(
                first,
                Event::TaskArrival {
                    workload: wi as u32,
                },
            );
            workloads.push(WorkloadRt {
                name: wc.name.clone(),
                w,
                clients,
                servers,
                script: wc.control.as_ref().map(Script::from),
                cc: wc.cc.clone(),
                tcp: wc.tcp.clone(),
            });
        }
        Ok(Tasks {
            workloads,
            rows: Vec::new(),
            short_max_bytes: cfg.short_flow_max_bytes,
            opened: 0,
        })
    }

    fn ephemeral_port(&mut self) -> u16 {
        let p = EPHEMERAL_FIRST + self.opened % EPHEMERAL_COUNT;
        self.opened += 1;
        p as u16
    }
}

impl World {
    /// `Event::TaskArrival`: the workload's initial tasks, or one Poisson
    /// arrival and the next one's event.
    pub(super) fn task_arrival(&mut self, w: u32) {
        let now = self.now;
        let wl = &mut self.tasks.workloads[w as usize].w;
        match wl.arrivals {
            Arrivals::Poisson { .. } => {
                if !wl.may_start(now) {
                    return;
                }
                let gap = wl.next_gap();
                self.events
                    .schedule(now + gap, Event::TaskArrival { workload: w });
                self.start_task(w);
            }
            Arrivals::AllAtOnce | Arrivals::ClosedLoop { .. } => {
                for _ in 0..wl.initial_tasks() {
                    if !self.tasks.workloads[w as usize].w.may_start(now) {
                        break;
                    }
                    self.start_task(w);
                }
            }
        }
    }

    fn start_task(&mut self, w: u32) {
        let now = self.now;
        let id = self.tasks.rows.len() as u32;
        let wl = &mut self.tasks.workloads[w as usize];
        let (file, size) = wl.w.start_one();
        let client = pick(&wl.clients, &mut wl.w.rng_hosts);
        let server = pick(&wl.servers, &mut wl.w.rng_hosts);
        let dialogue = wl.script.map(Dialogue::new);
        let client_port = self.tasks.ephemeral_port();
        self.tasks.rows.push(TaskRt {
            workload: w,
            client,
            server,
            file,
            size,
            long: size > self.tasks.short_max_bytes,
            start: now,
            data_start: None,
            completion: None,
            dialogue,
            client_port,
            requests: NO_FLOW,
            replies: NO_FLOW,
            data: NO_FLOW,
            counts: ConnCounts::default(),
        });
        if dialogue.is_some() {
            let ep = (client, client_port, server, CONTROL_PORT);
            let f = self.open_conn(id, Role::Requests, ep, None, true);
            self.tasks.rows[id as usize].requests = f;
        } else {
            let ep = (server, PLAIN_PORT, client, client_port);
            let f = self.open_conn(id, Role::Data, ep, Some(size), true);
            let t = &mut self.tasks.rows[id as usize];
            t.data = f;
            t.data_start = Some(now);
        }
    }

    /// Appends a connection of `task` to the flow arena and starts it.
    /// `ep` = (sender, its port, receiver, its port); `bytes` None makes an
    /// open message stream.
    fn open_conn(
        &mut self,
        task: u32,
        role: Role,
        ep: (u32, u16, u32, u16),
        bytes: Option<u64>,
        handshake: bool,
    ) -> u32 {
        let fid = self.flows.len() as u32;
        let t = &self.tasks.rows[task as usize];
        let wl = &self.tasks.workloads[t.workload as usize];
        let (src, sport, dst, dport) = ep;
        let endpoints = Endpoints {
            flow: fid,
            src,
            dst,
            sport,
            dport,
        };
        let mut tcp = wl.tcp.clone();
        tcp.handshake &= handshake;
        let stream = format!("workload:{}:task{}:{}:cc", wl.name, task, role.name());
        let (mut conn, cc_name) = tcp_conn(
            endpoints,
            &tcp,
            &wl.cc,
            rng_for(self.seed, &stream),
            bytes,
            None,
            self.external.as_deref(),
        );
        if bytes.is_none() {
            conn.sender.set_open_stream();
        }
        self.flows.push(Flow {
            name: String::new(),
            src,
            dst,
            start: self.now,
            cc_name,
            kind: FlowKind::Tcp(conn),
            long: t.long,
            task,
            role,
        });
        self.tcp_timer(fid, TimerKind::Start);
        fid
    }

    /// The application on `flow`'s sender writes `bytes`.
    fn app_write(&mut self, flow: u32, bytes: u32) {
        let now = self.now;
        let src = self.flows[flow as usize].src;
        self.catch_up_host(src);
        let FlowKind::Tcp(c) = &mut self.flows[flow as usize].kind else {
            return;
        };
        let node = c.sender.endpoints().src;
        c.sender.write(now, bytes as u64, &mut self.out);
        self.flush(flow, node);
    }

    /// A packet of a task's connection was delivered (to its receiver if
    /// `at_receiver`): advance the task.
    pub(super) fn task_progress(&mut self, flow: u32, at_receiver: bool, p: &Packet) {
        if !at_receiver {
            return; // ACKs at the sender move no dialogue
        }
        let f = &self.flows[flow as usize];
        let FlowKind::Tcp(c) = &f.kind else { return };
        let held = c.receiver.rcv_nxt;
        let (task, role) = (f.task, f.role);
        let t = &mut self.tasks.rows[task as usize];
        let action = match (role, t.dialogue.as_mut()) {
            (Role::Requests, Some(d)) if p.has(flags::SYN) => d.on_syn(),
            (Role::Requests, Some(d)) => d.on_server_bytes(held),
            (Role::Replies, Some(d)) => d.on_client_bytes(held),
            (Role::Data, _) => {
                if held >= t.size {
                    self.complete_task(task);
                }
                return;
            }
            _ => Action::None,
        };
        let t = &self.tasks.rows[task as usize];
        match action {
            Action::None => {}
            Action::Greet { bytes } => {
                let ep = (t.server, CONTROL_PORT, t.client, t.client_port);
                let f = self.open_conn(task, Role::Replies, ep, None, false);
                self.tasks.rows[task as usize].replies = f;
                self.app_write(f, bytes);
            }
            Action::Request { bytes } => self.app_write(t.requests, bytes),
            Action::Reply { bytes } => self.app_write(t.replies, bytes),
            Action::OpenData { reply_bytes } => {
                let (replies, size, server, client) = (t.replies, t.size, t.server, t.client);
                let ep = (
                    server,
                    ACTIVE_DATA_PORT,
                    client,
                    self.tasks.ephemeral_port(),
                );
                let f = self.open_conn(task, Role::Data, ep, Some(size), true);
                let t = &mut self.tasks.rows[task as usize];
                t.data = f;
                t.data_start = Some(self.now);
                self.app_write(replies, reply_bytes);
            }
        }
    }

    /// The file's last byte reached the client: record, free the task's
    /// connections and, in a closed loop, start the next task.
    fn complete_task(&mut self, task: u32) {
        let now = self.now;
        let t = &mut self.tasks.rows[task as usize];
        if t.completion.is_some() {
            return;
        }
        t.completion = Some(now);
        for fid in t.conns() {
            if fid == NO_FLOW {
                continue;
            }
            let f = &mut self.flows[fid as usize];
            let kind = std::mem::replace(&mut f.kind, FlowKind::Closed);
            if let FlowKind::Tcp(c) = kind {
                t.counts.add(&c, f.role);
            }
        }
        let w = t.workload;
        let wl = &mut self.tasks.workloads[w as usize].w;
        if wl.complete_one() && wl.may_start(now) {
            self.start_task(w);
        }
    }

    /// One row per task (`docs/output.md`).
    pub(super) fn tasks_table(&self) -> Table {
        let rows = &self.tasks.rows;
        let n = rows.len();
        let opt = |t: Option<Time>| t.map_or(-1, |t| t.ps() as i64);
        let mut counts = Vec::with_capacity(n);
        for t in rows {
            // Connections still open at the end add their counts.
            let mut c = t.counts;
            for fid in t.conns() {
                if fid == NO_FLOW {
                    continue;
                }
                let f = &self.flows[fid as usize];
                if let FlowKind::Tcp(conn) = &f.kind {
                    c.add(conn, f.role);
                }
            }
            counts.push(c);
        }
        let count = |f: fn(&ConnCounts) -> u64| Column::U64(counts.iter().map(f).collect());
        let names = |f: &dyn Fn(&TaskRt) -> u32| -> Vec<String> {
            rows.iter()
                .map(|t| self.node_names[f(t) as usize].clone())
                .collect()
        };
        let wnames: Vec<String> = rows
            .iter()
            .map(|t| self.tasks.workloads[t.workload as usize].name.clone())
            .collect();
        Table::new("tasks")
            .with("task", Column::U32((0..n as u32).collect()))
            .with("workload", Column::Str(wnames))
            .with("client", Column::Str(names(&|t| t.client)))
            .with("server", Column::Str(names(&|t| t.server)))
            .with(
                "file",
                Column::I64(
                    rows.iter()
                        .map(|t| t.file.map_or(-1, |f| f as i64))
                        .collect(),
                ),
            )
            .with(
                "size_bytes",
                Column::U64(rows.iter().map(|t| t.size).collect()),
            )
            .with("long", Column::Bool(rows.iter().map(|t| t.long).collect()))
            .with(
                "start_ps",
                Column::U64(rows.iter().map(|t| t.start.ps()).collect()),
            )
            .with(
                "data_start_ps",
                Column::I64(rows.iter().map(|t| opt(t.data_start)).collect()),
            )
            .with(
                "completion_ps",
                Column::I64(rows.iter().map(|t| opt(t.completion)).collect()),
            )
            .with(
                "fct_ps",
                Column::I64(
                    rows.iter()
                        .map(|t| t.completion.map_or(-1, |c| c.since(t.start).ps() as i64))
                        .collect(),
                ),
            )
            .with("retransmits", count(|c| c.retransmits))
            .with("timeouts", count(|c| c.timeouts))
            .with("recoveries", count(|c| c.recoveries))
            .with("out_of_order", count(|c| c.out_of_order))
            .with("syn_retransmits", count(|c| c.syn_retransmits))
            .with("undos", count(|c| c.undos))
            .with("control_retransmits", count(|c| c.control_retransmits))
    }

    /// Tasks started and not completed, per workload.
    pub fn active_tasks(&self) -> Vec<u32> {
        self.tasks.workloads.iter().map(|w| w.w.active()).collect()
    }

    /// Connections whose state is held (configured TCP flows and the
    /// connections of active tasks).
    pub fn open_connections(&self) -> usize {
        self.flows
            .iter()
            .filter(|f| matches!(f.kind, FlowKind::Tcp(_)))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::super::Flow;

    /// The arena keeps one entry per connection ever opened: it must stay
    /// small for long closed loops (a task's state is freed when it ends).
    #[test]
    fn a_connections_arena_entry_stays_small() {
        let size = std::mem::size_of::<Flow>();
        assert!(size <= 88, "Flow is {size} bytes");
    }
}
