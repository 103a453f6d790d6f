//! Building a world from the run document (checked by `validate` first):
//! nodes, ports and their queues, pipelines, routes, flows; the tasks'
//! workloads are built in `tasks.rs`, two-class ports in `classes.rs`.

use super::*;
use crate::config::NetemUnit;
use crate::net::netem_gso::GsoSkbs;
use crate::net::port::PortSetup;
use crate::queue::{Cake, CakeParams};

/// Both ends of a TCP connection (the control drawing from `rng`, built by
/// `external` if the configuration names an external one) and the
/// control's name.
pub(super) fn tcp_conn(
    ep: Endpoints,
    tcp: &TcpConfig,
    ccc: &CcConfig,
    rng: Rng,
    bytes: Option<u64>,
    stop: Option<Time>,
    external: Option<&dyn cc::ExternalControls>,
) -> (Box<TcpConn>, &'static str) {
    let control = cc::make_control(ccc, rng, external);
    let name = control.name();
    let echo = if control.l4s() {
        EcnEcho::AccEcn
    } else if control.needs_ecn() {
        EcnEcho::Accurate
    } else if tcp.ecn {
        EcnEcho::Classic
    } else {
        EcnEcho::Off
    };
    let receiver = Receiver::new(ep, tcp, echo);
    let sender = Sender::new(ep, tcp.clone(), control, bytes, stop);
    (Box::new(TcpConn { sender, receiver }), name)
}

/// Where a policy reads the queue.
pub(super) fn at(m: MarkAt) -> MarkPoint {
    if m == MarkAt::Enqueue {
        MarkPoint::Enqueue
    } else {
        MarkPoint::Dequeue
    }
}

/// The discipline `q` configures at the port `label` (`<node>-><peer>`):
/// a FIFO with its marking policy, or CoDel, FQ-CoDel or PIE (FQ-CoDel's
/// hash key is drawn from the stream `queue:<label>:fq_codel`). Ranges were
/// checked by `validate`.
pub(super) fn build_qdisc(
    q: &QueueConfig,
    rate_bps: u64,
    seed: u64,
    label: &str,
) -> Box<dyn crate::queue::QueueDisc> {
    let limit = Limit {
        pkts: q.limit_pkts,
        bytes: q.limit_bytes,
    };
    let mtu_bytes = crate::queue::codel::MTU_BYTES;
    let codel = |target_ps, interval_ps, ecn| CodelParams {
        target: Dur::from_ps(target_ps),
        interval: Dur::from_ps(interval_ps),
        ecn,
        mtu_bytes,
    };
    match &q.aqm {
        AqmConfig::Codel(c) => {
            Box::new(Codel::new(limit, codel(c.target_ps, c.interval_ps, c.ecn)))
        }
        AqmConfig::FqCodel(c) => {
            let p = FqCodelParams {
                codel: codel(c.target_ps, c.interval_ps, c.ecn),
                flows: c.flows,
                quantum_bytes: c.quantum_bytes,
                hash_key: rng_for(seed, &format!("queue:{label}:fq_codel")).next_u64(),
            };
            Box::new(FqCodel::new(limit, p))
        }
        AqmConfig::Pie(c) => {
            let p = PieParams {
                target: Dur::from_ps(c.target_ps),
                tupdate: Dur::from_ps(c.tupdate_ps),
                alpha: c.alpha,
                beta: c.beta,
                max_burst: Dur::from_ps(c.max_burst_ps),
                ecn: c.ecn,
                mtu_bytes,
            };
            Box::new(Pie::new(limit, p))
        }
        AqmConfig::Cake(c) => {
            let key = rng_for(seed, &format!("queue:{label}:cake")).next_u64();
            let p = CakeParams::new(c.clone(), q.limit_pkts, q.limit_bytes, key);
            Box::new(Cake::new(p))
        }
        AqmConfig::Dualpi2(c) => Box::new(crate::queue::dualpi2::DualPi2::new(limit, c.clone())),
        _ => Box::new(build_fifo(q, rate_bps)),
    }
}

/// The FIFO and marking policy configured by `q` (a port holds it
/// unboxed: `net::port::PortQueue`). Ranges were checked by `validate`.
pub(super) fn build_fifo(q: &QueueConfig, rate_bps: u64) -> Fifo {
    let limit = Limit {
        pkts: q.limit_pkts,
        bytes: q.limit_bytes,
    };
    let aqm = match &q.aqm {
        AqmConfig::None => Aqm::None,
        AqmConfig::Codel(_)
        | AqmConfig::FqCodel(_)
        | AqmConfig::Pie(_)
        | AqmConfig::Cake(_)
        | AqmConfig::Dualpi2(_) => {
            unreachable!("built by build_qdisc")
        }
        AqmConfig::Red(c) => Aqm::Red(Box::new(Red::new(RedParams {
            min_th: c.min_th,
            max_th: c.max_th,
            max_p: c.max_p,
            wlog: c.wlog,
            ecn: c.ecn,
            harddrop: c.harddrop,
            gentle: c.gentle,
            bytes_mode: c.bytes_mode,
            avpkt_bytes: c.avpkt_bytes.max(1),
            bandwidth_bps: if c.bandwidth_bps == 0 {
                rate_bps
            } else {
                c.bandwidth_bps
            },
        }))),
        AqmConfig::Step(c) => {
            let k = match (c.k_pkts, c.k_bytes) {
                (Some(k), _) => Threshold::Pkts(k),
                (None, Some(k)) => Threshold::Bytes(k),
                (None, None) => unreachable!("checked by validate"),
            };
            Aqm::Step(StepMark { k, at: at(c.at) })
        }
        AqmConfig::Hysteresis(c) => Aqm::Hysteresis(Hysteresis {
            upper: Threshold::Pkts(c.upper_pkts),
            lower: Threshold::Pkts(c.lower_pkts),
            at: at(c.at),
            congested: false,
        }),
    };
    Fifo::new(limit, aqm)
}

/// The packet-return policy of a queue, if it has one.
pub(super) fn build_feedback(q: &QueueConfig) -> Option<Box<Feedback>> {
    let fc = q.feedback.as_ref()?;
    let size = |c: CopyConfig| match c {
        CopyConfig::Full => CopySize::Full,
        CopyConfig::Header => CopySize::Header,
    };
    let (decision, copy) = match fc {
        FeedbackConfig::Step {
            k_pkts,
            at: m,
            copy,
        } => (
            Decision::Step(StepMark {
                k: Threshold::Pkts(*k_pkts),
                at: at(*m),
            }),
            *copy,
        ),
        FeedbackConfig::Hysteresis {
            upper_pkts,
            lower_pkts,
            at: m,
            copy,
        } => (
            Decision::Hysteresis(Hysteresis {
                upper: Threshold::Pkts(*upper_pkts),
                lower: Threshold::Pkts(*lower_pkts),
                at: at(*m),
                congested: false,
            }),
            *copy,
        ),
    };
    Some(Box::new(Feedback {
        decision,
        copy: size(copy),
    }))
}

/// The least time between departures of a queue with a service rate
/// (checked by `validate`).
pub(super) fn service_interval(q: &QueueConfig) -> Dur {
    let Some(pps) = q.service_pps else {
        return Dur::ZERO;
    };
    Dur::from_ps((crate::sim::PS_PER_S as f64 / pps).round().max(1.0) as u64)
}

/// Validates and builds the pipelines of the switches that have one.
pub(super) fn build_pipelines(cfg: &RunConfig) -> Result<(Vec<Pipeline>, Vec<u32>), ConfigError> {
    let mut pipelines = Vec::new();
    let mut index = vec![NO_PIPELINE; cfg.nodes.len()];
    for (i, n) in cfg.nodes.iter().enumerate() {
        let Some(pc) = &n.pipeline else { continue };
        ensure(
            n.kind == NodeKind::Switch,
            || format!("nodes[{i}].pipeline"),
            "only switches have a packet-processing pipeline",
        )?;
        index[i] = pipelines.len() as u32;
        pipelines.push(Pipeline::new(
            i as u32,
            pc.capacity_pps,
            pc.buffer_pkts,
            pc.blocking,
        ));
    }
    Ok((pipelines, index))
}

impl World {
    /// Validates the configuration and builds the world. Every error names
    /// the field at fault; nothing is simulated before this succeeds.
    pub fn build(cfg: &RunConfig) -> Result<World, ConfigError> {
        Self::build_with(cfg, None)
    }

    /// [`World::build`] with the embedding's factory of `external` controls;
    /// every external control of the configuration must be one it builds.
    pub fn build_with(
        cfg: &RunConfig,
        external: Option<Arc<dyn cc::ExternalControls>>,
    ) -> Result<World, ConfigError> {
        crate::validate::check(cfg)?;
        let ext = external.as_deref();
        for (i, fc) in cfg.flows.iter().enumerate() {
            if let FlowConfig::Tcp { cc: ccc, .. } = fc {
                cc::check_external(ccc, &format!("flows[{i}].cc"), ext)?;
            }
        }
        for (i, wc) in cfg.workloads.iter().enumerate() {
            cc::check_external(&wc.cc, &format!("workloads[{i}].cc"), ext)?;
        }
        let ids = node_ids(cfg)?;
        let (pipelines, node_pipeline) = build_pipelines(cfg)?;
        let (mut ports, aqm_rngs, ports_of) = build_ports(cfg, &ids)?;
        super::backpressure::gate_ports(&mut ports, &pipelines, &node_pipeline);
        let routes = Routes::compute(&ports_of).map_err(|m| err("links", m))?;
        let node_names: Vec<String> = cfg.nodes.iter().map(|n| n.name.clone()).collect();
        let forwarding =
            Forwarding::build(cfg.routing, cfg.seed, &node_names, routes.has_multipath())
                .map_err(|m| err("routing", m))?;
        let node_kinds: Vec<NodeKind> = cfg.nodes.iter().map(|n| n.kind.clone()).collect();
        let flows = build_flows(cfg, &ids, &node_kinds, &routes, ext)?;

        let mut events = EventQueue::new();
        for (i, f) in flows.iter().enumerate() {
            let ev = match f.kind {
                FlowKind::Tcp(_) => Event::TcpTimer {
                    conn: i as u32,
                    kind: TimerKind::Start as u8,
                },
                FlowKind::Udp(_) => Event::UdpSend { flow: i as u32 },
                FlowKind::Closed => continue,
            };
            events.schedule(f.start, ev);
        }
        let tasks = tasks::Tasks::build(cfg, &ids, &node_kinds, &routes, &mut events)?;
        let rec = recorders(cfg, &ids, &ports_of, &mut ports, &mut events)?;
        let cap = capture::Capture::build(cfg, &ids, &ports_of, &node_kinds, ports.len())?;
        let pkts = packet_trace::PacketTrace::build(cfg, &ids, &ports_of, ports.len())?;

        let mut world = World {
            now: Time::ZERO,
            end: Time::from_ps(cfg.duration_ps),
            events,
            pool: PacketPool::with_capacity(4096),
            node_names,
            node_kinds,
            delay_aqm: cfg.links.iter().any(|l| {
                [&l.queue_ab, &l.queue_ba]
                    .into_iter()
                    .flatten()
                    .any(|q| q.aqm.is_own_discipline())
            }),
            l4s_aqm: cfg.links.iter().any(|l| {
                [&l.queue_ab, &l.queue_ba]
                    .into_iter()
                    .flatten()
                    .any(|q| matches!(q.aqm, AqmConfig::Dualpi2(_)))
            }),
            heads: vec![Default::default(); ports.len()],
            hops: Default::default(),
            ports,
            aqm_rngs,
            pipelines,
            node_pipeline,
            routes,
            forwarding,
            flows,
            tasks,
            seed: cfg.seed,
            out: Out::default(),
            rec,
            cap,
            pkts,
            rtts: rtt_samples::RttSamples::new(cfg.record.rtt_samples),
            tsq: Default::default(),
            created: 0,
            delivered: 0,
            dropped: 0,
            data_sent: 0,
            acks_sent: 0,
            stopped: false,
            fault: None,
            record_budget: cfg.record.max_bytes,
            external,
        };
        world.mark_lazy_ports(cfg);
        world.build_hops();
        Ok(world)
    }
}

/// Node ids by name; every name given once.
fn node_ids(cfg: &RunConfig) -> Result<HashMap<&str, u32>, ConfigError> {
    let mut ids: HashMap<&str, u32> = HashMap::new();
    for (i, n) in cfg.nodes.iter().enumerate() {
        if n.name.is_empty() {
            return Err(err(format!("nodes[{i}].name"), "a node needs a name"));
        }
        if ids.insert(n.name.as_str(), i as u32).is_some() {
            return Err(err(
                format!("nodes[{i}].name"),
                format!("duplicate node name {:?}", n.name),
            ));
        }
    }
    Ok(ids)
}

/// The node called `name`, or an error naming `field`.
fn node(ids: &HashMap<&str, u32>, name: &str, field: String) -> Result<u32, ConfigError> {
    ids.get(name)
        .copied()
        .ok_or_else(|| err(field, format!("unknown node {name:?}")))
}

/// Ports of the links' two directions, in the links' order: each port,
/// its AQM's random stream, and per node its `(port, peer)` pairs.
#[allow(clippy::type_complexity)]
fn build_ports(
    cfg: &RunConfig,
    ids: &HashMap<&str, u32>,
) -> Result<(Vec<Port>, Vec<Rng>, Vec<Vec<(u32, u32)>>), ConfigError> {
    let mut ports: Vec<Port> = Vec::new();
    let mut aqm_rngs = Vec::new();
    let mut ports_of: Vec<Vec<(u32, u32)>> = vec![Vec::new(); cfg.nodes.len()];
    for (li, l) in cfg.links.iter().enumerate() {
        let f = format!("links[{li}]");
        let a = node(ids, &l.a, format!("{f}.a"))?;
        let b = node(ids, &l.b, format!("{f}.b"))?;
        ensure(
            a != b,
            || format!("{f}.b"),
            "a link must join two different nodes",
        )?;
        for (from, to, loss, reorder, q, qname, netem) in [
            (
                a,
                b,
                l.loss_ab,
                l.reorder_ab,
                &l.queue_ab,
                "queue_ab",
                &l.netem_ab,
            ),
            (
                b,
                a,
                l.loss_ba,
                l.reorder_ba,
                &l.queue_ba,
                "queue_ba",
                &l.netem_ba,
            ),
        ] {
            let qc = q.clone().unwrap_or_default();
            let qfield = format!("{f}.{qname}");
            let feedback = build_feedback(&qc);
            ensure(
                feedback.is_none() || cfg.nodes[from as usize].kind == NodeKind::Switch,
                || format!("{qfield}.feedback"),
                "packet return is a switch policy; this queue is a host's port",
            )?;
            let service = service_interval(&qc);
            let shaper = match &qc.aqm {
                AqmConfig::Cake(c) => c.shaper(),
                _ => None,
            };
            let label = format!(
                "{}->{}",
                cfg.nodes[from as usize].name, cfg.nodes[to as usize].name
            );
            let qdisc = classes::build_port_qdisc(&qc, l.rate_bps, cfg.seed, &label);
            let pid = ports.len() as u32;
            ports_of[from as usize].push((pid, to));
            ports.push(Port::new(PortSetup {
                node: from,
                peer: to,
                rate_bps: l.rate_bps,
                delay: Dur::from_ps(l.delay_ps),
                loss,
                loss_rng: rng_for(cfg.seed, &format!("link:{label}:loss")),
                jitter: Dur::from_ps(l.jitter_ps),
                jitter_rng: rng_for(cfg.seed, &format!("link:{label}:jitter")),
                reorder,
                reorder_rng: rng_for(cfg.seed, &format!("link:{label}:reorder")),
                reorder_delay: Dur::from_ps(l.reorder_delay_ps),
                netem: netem.as_ref().map(|n| Netem {
                    loss: n.loss,
                    loss_rng: rng_for(cfg.seed, &format!("netem:{label}:loss")),
                    delay: Dur::from_ps(n.delay_ps),
                    limit_pkts: n.limit_pkts,
                    line: Default::default(),
                    gso: (n.unit == NetemUnit::Gso)
                        .then(|| GsoSkbs::new(n.gso_max_bytes, cfg.flows.len())),
                }),
                qdisc,
                service,
                feedback,
                shaper,
            }));
            aqm_rngs.push(rng_for(cfg.seed, &format!("queue:{label}:aqm")));
        }
    }
    Ok((ports, aqm_rngs, ports_of))
}

/// The configuration's flows (the tasks' connections are built by
/// `tasks.rs`), each between two reachable hosts.
fn build_flows(
    cfg: &RunConfig,
    ids: &HashMap<&str, u32>,
    node_kinds: &[NodeKind],
    routes: &Routes,
    ext: Option<&dyn cc::ExternalControls>,
) -> Result<Vec<Flow>, ConfigError> {
    let mut flows = Vec::new();
    let mut names: HashMap<&str, usize> = HashMap::new();
    for (fi, fc) in cfg.flows.iter().enumerate() {
        let f = format!("flows[{fi}]");
        let (FlowConfig::Tcp {
            name,
            src,
            dst,
            start_ps,
            stop_ps,
            ..
        }
        | FlowConfig::Udp {
            name,
            src,
            dst,
            start_ps,
            stop_ps,
            ..
        }) = fc;
        let (start_ps, stop_ps) = (*start_ps, *stop_ps);
        if names.insert(name.as_str(), fi).is_some() {
            return Err(err(
                format!("{f}.name"),
                format!("duplicate flow name {name:?}"),
            ));
        }
        let s = node(ids, src, format!("{f}.src"))?;
        let d = node(ids, dst, format!("{f}.dst"))?;
        for (id, field) in [(s, "src"), (d, "dst")] {
            ensure(
                node_kinds[id as usize] == NodeKind::Host,
                || format!("{f}.{field}"),
                "flows start and end at hosts, not switches",
            )?;
        }
        if s == d {
            return Err(err(format!("{f}.dst"), "a flow needs two different hosts"));
        }
        if !routes.reachable(s, d) {
            return Err(err(
                format!("{f}.dst"),
                format!("no path from {src:?} to {dst:?}: the topology is disconnected"),
            ));
        }
        let ep = Endpoints {
            flow: fi as u32,
            src: s,
            dst: d,
            sport: 10_000 + fi as u16,
            dport: 5001,
        };
        let start = Time::from_ps(start_ps);
        let (kind, cc_name, long) = match fc {
            FlowConfig::Tcp {
                bytes,
                cc: ccc,
                tcp,
                ..
            } => {
                let rng = rng_for(cfg.seed, &format!("flow:{name}:cc"));
                let stop = stop_ps.map(Time::from_ps);
                let (conn, cc_name) = tcp_conn(ep, tcp, ccc, rng, *bytes, stop, ext);
                let long = bytes.map_or(true, |b| b > cfg.short_flow_max_bytes);
                (FlowKind::Tcp(conn), cc_name, long)
            }
            FlowConfig::Udp {
                rate_bps,
                payload_bytes,
                ..
            } => {
                let u = UdpFlow {
                    start,
                    stop: stop_ps.map(Time::from_ps),
                    rate_bps: *rate_bps,
                    payload: *payload_bytes,
                    sent: 0,
                    sent_bytes: 0,
                    recv_bytes: 0,
                    end: None,
                };
                // An unbounded stream is long.
                (FlowKind::Udp(Box::new(u)), "", true)
            }
        };
        flows.push(Flow {
            name: name.clone(),
            src: s,
            dst: d,
            start,
            cc_name,
            kind,
            long,
            task: NO_TASK,
            role: tasks::Role::Bulk,
        });
    }
    Ok(flows)
}

/// The recorders the configuration asks for, their first events scheduled
/// and the traced ports marked.
fn recorders(
    cfg: &RunConfig,
    ids: &HashMap<&str, u32>,
    ports_of: &[Vec<(u32, u32)>],
    ports: &mut [Port],
    events: &mut EventQueue,
) -> Result<Recorders, ConfigError> {
    let r = &cfg.record;
    let mut rec = Recorders {
        flow_sample: (r.flow_sample_ps > 0).then(|| Dur::from_ps(r.flow_sample_ps)),
        cwnd_every_ack: r.cwnd_every_ack,
        drop_log: r.drop_log,
        tcp_vars: r.tcp_vars,
        ..Default::default()
    };
    if r.warmup_ps > 0 && r.warmup_ps < cfg.duration_ps {
        rec.warmup = Some(Time::from_ps(r.warmup_ps));
        events.schedule(Time::from_ps(r.warmup_ps), Event::Warmup);
    }
    if let Some(p) = rec.flow_sample {
        events.schedule(
            Time::ZERO + p.min(Dur::from_ps(cfg.duration_ps)),
            Event::Sample,
        );
        let _ = &mut rec;
    }
    for (qi, qt) in r.queues.iter().enumerate() {
        let f = format!("record.queues[{qi}]");
        let a = node(ids, &qt.node, format!("{f}.node"))?;
        let b = node(ids, &qt.peer, format!("{f}.peer"))?;
        let Some(&(pid, _)) = ports_of[a as usize].iter().find(|(_, peer)| *peer == b) else {
            return Err(err(
                format!("{f}.peer"),
                format!("{:?} has no link to {:?}", qt.node, qt.peer),
            ));
        };
        let to = Time::from_ps(qt.to_ps.unwrap_or(u64::MAX));
        ports[pid as usize].trace = Some(PortTrace {
            occupancy: Some(Dur::from_ps(qt.sample_ps)),
            dequeue_times: qt.dequeue_times,
            from: Time::from_ps(qt.from_ps),
            to,
        });
        if qt.sample_ps > 0 {
            events.schedule(Time::from_ps(qt.from_ps), Event::QueueSample { port: pid });
        }
    }
    Ok(rec)
}
