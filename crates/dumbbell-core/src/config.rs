//! The run configuration: the one document Python (or a Rust user) hands the
//! core. Plain data, serde, every enum tagged by `kind`, units in the names
//! (`_ps` picoseconds, `_bps` bit/s, `_bytes`, `_pkts`). Validation of the
//! ranges happens in [`validate::check`](crate::validate::check), and of the
//! graph in `World::build`; both return a [`ConfigError`] naming the
//! offending field.
//!
//! This file holds the document's shape only. A component's parameters
//! live in its own file and are named through its kind's registry: a
//! control's in `cc/<name>.rs` ([`cc::registry`](crate::cc::registry)), a
//! queue's in `queue/<name>.rs` ([`queue::registry`](crate::queue::registry)).
//! They are re-exported here under their old paths.

use serde::{Deserialize, Serialize};

mod record;
use record::{every_variant, record};

pub use crate::cc::bbr::BbrParams;
pub use crate::cc::cubic::CubicParams;
pub use crate::cc::dctcp::DctcpParams;
pub use crate::cc::expolinear::ExpolinearParams;
pub use crate::cc::fractional::{FractionalParams, FractionalSlowStart};
pub use crate::cc::highspeed::{HighSpeedMode, HighSpeedParams};
pub use crate::cc::linear::{AdaptiveCount, LinearParams};
pub use crate::cc::registry::{CcConfig, ExternalParams, RegisteredParams};
pub use crate::cc::vegas::VegasParams;
pub use crate::param::ConfigError;
pub use crate::queue::aqm::{HysteresisConfig, MarkAt, StepConfig};
pub use crate::queue::cake::CakeConfig;
pub use crate::queue::classify::ClassifierConfig;
pub use crate::queue::codel::CodelConfig;
pub use crate::queue::feedback::{CopyConfig, FeedbackConfig};
pub use crate::queue::fq_codel::FqCodelConfig;
pub use crate::queue::pie::PieConfig;
pub use crate::queue::red::RedConfig;
pub use crate::queue::sched::SchedulerConfig;
pub use crate::queue::AqmConfig;

/// The parameters of every component a configuration names by `kind`, as
/// one JSON document: `{"controls": [...], "queues": [...]}`, each entry
/// `{name, about, registered, params: [{name, type, default, required,
/// range, about}]}` (`registered`: named as `{"kind": "registered", "name":
/// ...}`). Read from the components' own files through the registries
/// (`cc::registry`, `queue::registry`); times are in picoseconds.
pub fn schema() -> serde_json::Value {
    let entry = |d: serde_json::Value, registered: bool| {
        let mut d = d;
        d["registered"] = serde_json::Value::Bool(registered);
        d
    };
    let controls: Vec<_> = crate::cc::registry::BUILTIN
        .iter()
        .map(|r| entry(r.describe(), false))
        .chain(
            crate::cc::registry::REGISTRY
                .iter()
                .map(|r| entry(r.describe(), true)),
        )
        .collect();
    let queues: Vec<_> = crate::queue::registry::REGISTRY
        .iter()
        .map(|r| entry(r.describe(), false))
        .collect();
    serde_json::json!({"controls": controls, "queues": queues})
}

/// Default budget of the recorded tables: 2 GiB (`record.max_bytes`).
pub const DEFAULT_RECORD_MAX_BYTES: u64 = 2 << 30;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    pub seed: u64,
    pub duration_ps: u64,
    pub nodes: Vec<NodeConfig>,
    pub links: Vec<LinkConfig>,
    #[serde(default)]
    pub flows: Vec<FlowConfig>,
    /// File-transfer tasks started during the run (`app`).
    #[serde(default)]
    pub workloads: Vec<WorkloadConfig>,
    /// The ground truth of classification: a flow (or a task, all its
    /// connections together) is short if it transfers at most this many
    /// bytes. Every packet carries the verdict (`Packet::long_flow`); the
    /// ideal classifier reads it and two-class ports count against it.
    /// Default 16 KB, the RAFLE paper's (§3.1).
    #[serde(default = "default_short_flow_max")]
    pub short_flow_max_bytes: u64,
    #[serde(default)]
    pub record: RecordConfig,
    /// How switches choose among equal-cost next hops (`net::ecmp`).
    #[serde(default)]
    pub routing: crate::net::ecmp::Routing,
}

fn default_short_flow_max() -> u64 {
    16 * 1024
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    Host,
    Switch,
}

record! {
    #[derive(Clone, Debug, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct NodeConfig {
        pub name: String,
        pub kind: NodeKind,
    }
    may_leave_out {
        /// A software switch's shared packet-processing pipeline (switches
        /// only; see `net::pipeline`). None: forwarding takes no time.
        pub pipeline: Option<PipelineConfig>,
    }
}

/// A software switch's pipeline: every packet entering the switch is
/// processed one at a time at `capacity_pps`, waiting in a buffer of
/// `buffer_pkts` packets (dropped when it is full, unless `blocking`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfig {
    pub capacity_pps: f64,
    pub buffer_pkts: u32,
    /// A full buffer blocks instead of dropping, as bmv2's input buffer:
    /// the links into the switch stop sending until a place frees
    /// (`net::input_gate`). Needs `buffer_pkts` ≥ 1.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blocking: bool,
}

record! {
    /// A full-duplex link between nodes `a` and `b`. Each direction has its own
    /// egress queue (at the sending node) and loss probability.
    #[derive(Clone, Debug, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct LinkConfig {
        pub a: String,
        pub b: String,
        pub rate_bps: u64,
        pub delay_ps: u64,
    }
    may_leave_out {
        pub loss_ab: f64,
        pub loss_ba: f64,
        /// Extra one-way delay per packet, uniform in [0, jitter_ps], drawn from
        /// the stream `link:<from>-><to>:jitter`; FIFO order is kept (a packet
        /// never overtakes the one before it). Models host and timer noise that
        /// breaks the phase lock-out of perfectly periodic senders.
        pub jitter_ps: u64,
        /// Reordering per direction: each packet, with this probability, is
        /// held `reorder_delay_ps` longer on the wire than the others, so that
        /// the packets sent after it overtake it (drawn from the stream
        /// `link:<from>-><to>:reorder`). 0: the link keeps FIFO order.
        pub reorder_ab: f64,
        pub reorder_ba: f64,
        /// Extra one-way delay of a reordered packet.
        pub reorder_delay_ps: u64,
        /// Queue at `a`'s port toward `b`; default drop-tail of 1000 packets.
        pub queue_ab: Option<QueueConfig>,
        pub queue_ba: Option<QueueConfig>,
        /// A netem-like emulation stage in front of `a`'s port toward `b`
        /// (see [`NetemConfig`]).
        pub netem_ab: Option<NetemConfig>,
        pub netem_ba: Option<NetemConfig>,
    }
}

/// A network emulator in front of a port, as Linux's `sch_netem` on a
/// router's egress: random loss drawn when a packet arrives (a lost packet
/// never reaches the queue or the wire), then a delay line, then the port's
/// queue and serializer; `limit_pkts` counts everything the stage holds,
/// delay line and queue together (netem's `limit`, 1000 by default). Loss
/// is drawn from the stream `netem:<from>-><to>:loss`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NetemConfig {
    /// Probability that an arriving packet is dropped, in [0, 1).
    #[serde(default)]
    pub loss: f64,
    /// Time a packet spends in the delay line before it joins the queue.
    #[serde(default)]
    pub delay_ps: u64,
    /// Packets held at most (delay line + queue); `None`: no limit. With
    /// `unit = "gso"` the limit counts skbs, as Linux's does.
    #[serde(default = "netem_limit")]
    pub limit_pkts: Option<u32>,
    /// What the stage's loss and limit apply to: each packet (the default),
    /// or each GSO/GRO skb (`"gso"`), a run of one TCP flow's consecutive
    /// segments as a Linux sender with TSO would hand its NIC
    /// (`net::netem_gso`): one loss draw and one limit check per skb.
    #[serde(default)]
    pub unit: NetemUnit,
    /// Largest skb with `unit = "gso"`, bytes of payload (Linux's
    /// `gso_max_size`, 65536 without BIG TCP).
    #[serde(default = "netem_gso_max_bytes")]
    pub gso_max_bytes: u32,
}

fn netem_limit() -> Option<u32> {
    Some(1000)
}

fn netem_gso_max_bytes() -> u32 {
    65_536
}

/// The unit a netem stage's loss and limit count ([`NetemConfig::unit`]).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum NetemUnit {
    /// Each packet on its own.
    #[default]
    Packet,
    /// Each GSO/GRO skb (a sender's TSO run of segments).
    Gso,
}

/// A port's queue. A field the document leaves out takes its value in
/// [`QueueConfig::unset`]; a link's queue the document leaves out is
/// [`QueueConfig::default`], a drop-tail of 1000 packets.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default = "QueueConfig::unset")]
pub struct QueueConfig {
    pub limit_pkts: Option<u32>,
    pub limit_bytes: Option<u64>,
    pub aqm: AqmConfig,
    /// Two classes at this port (`queue::twoclass`): the classifier that
    /// splits arrivals between a short-flow queue (this one) and a long-flow
    /// queue. None: one queue.
    pub classifier: Option<ClassifierConfig>,
    /// Which class sends next; default strict priority. Only with a
    /// classifier.
    pub scheduler: Option<SchedulerConfig>,
    /// The long-flow queue's limit and marking policy; default: the same as
    /// this (short-flow) queue's. Only with a classifier; no nesting.
    pub long_queue: Option<Box<QueueConfig>>,
    /// Packet return at this queue (switch ports only; `queue::feedback`).
    pub feedback: Option<FeedbackConfig>,
    /// Egress service rate in packets per second, below the link rate
    /// (bmv2 `set_queue_rate`); None: the link rate.
    pub service_pps: Option<f64>,
}

impl QueueConfig {
    /// Every field as when the document leaves it out: no AQM, the rest
    /// `None`.
    pub fn unset() -> QueueConfig {
        QueueConfig {
            limit_pkts: None,
            limit_bytes: None,
            aqm: AqmConfig::None,
            classifier: None,
            scheduler: None,
            long_queue: None,
            feedback: None,
            service_pps: None,
        }
    }
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            limit_pkts: Some(1000),
            ..QueueConfig::unset()
        }
    }
}

every_variant! {
    #[derive(Clone, Debug, Serialize, Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    pub enum FlowConfig {
        every {
            name: String,
            src: String,
            dst: String,
            #[serde(default)]
            start_ps: u64,
            /// Stop sending new data at this time (None: until the run ends).
            #[serde(default)]
            stop_ps: Option<u64>,
        }
        /// A bulk TCP transfer (iperf-like).
        Tcp {
            /// Bytes to transfer (None: unlimited).
            #[serde(default)]
            bytes: Option<u64>,
            #[serde(default)]
            cc: CcConfig,
            #[serde(default)]
            tcp: TcpConfig,
        },
        /// UDP constant bit rate (iperf -u -b), not ECN-capable.
        Udp {
            rate_bps: u64,
            #[serde(default = "default_udp_payload")]
            payload_bytes: u32,
        },
    }
}

fn default_udp_payload() -> u32 {
    1470
}

record! {
    /// File-transfer tasks (`app`): each task moves one file from a server to
    /// a client, optionally after an FTP-like control dialogue; tasks start at
    /// once, in a closed loop or as a Poisson process.
    #[derive(Clone, Debug, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct WorkloadConfig {
        pub name: String,
        /// Hosts that fetch files (data flows toward them); one is drawn per
        /// task from the stream `workload:<name>:hosts` when there are several.
        pub clients: Vec<String>,
        /// Hosts that serve files; drawn like the clients.
        pub servers: Vec<String>,
        pub sizes: SizesConfig,
        pub arrivals: ArrivalsConfig,
    }
    may_leave_out {
        /// When the first tasks start.
        pub start_ps: u64,
        /// No task starts at or after this time.
        pub stop_ps: Option<u64>,
        /// At most this many tasks start.
        pub max_tasks: Option<u64>,
        /// The control dialogue before each file; None: the data connection
        /// alone (a web-like flow).
        pub control: Option<ControlConfig>,
        /// Congestion control and TCP options of every connection.
        pub cc: CcConfig,
        pub tcp: TcpConfig,
    }
}

/// Where task sizes come from.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizesConfig {
    /// A file base: with `all_at_once` every file once, in order; otherwise
    /// a uniformly drawn file per task (stream `workload:<name>:sizes`).
    Files { bytes: Vec<u64> },
    /// An empirical CDF: `[size_bytes, cumulative probability]` points,
    /// both non-decreasing, the last probability 1; sizes are drawn by
    /// inverse transform with linear interpolation between points.
    Cdf { points: Vec<[f64; 2]> },
}

/// When tasks start.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ArrivalsConfig {
    /// Every task at `start_ps`: the whole file base, or `max_tasks` draws
    /// from a CDF.
    AllAtOnce,
    /// `concurrency` tasks at `start_ps`, and a new one the instant one
    /// completes, so exactly that many are active.
    ClosedLoop { concurrency: u32 },
    /// A Poisson process of `rate_per_s` tasks per second from `start_ps`
    /// (gaps from the stream `workload:<name>:arrivals`).
    Poisson { rate_per_s: f64 },
}

/// The FTP-like control dialogue (RFC 959, active mode): the server greets,
/// the client sends `rounds` requests (USER, PASS, TYPE, PORT), each
/// answered, then RETR; when RETR reaches the server it opens the data
/// connection toward the client and answers 150.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct ControlConfig {
    pub banner_bytes: u32,
    pub rounds: u32,
    pub request_bytes: u32,
    pub response_bytes: u32,
}

impl Default for ControlConfig {
    fn default() -> Self {
        ControlConfig {
            banner_bytes: 24,
            rounds: 4,
            request_bytes: 16,
            response_bytes: 32,
        }
    }
}

/// TCP stack options, per connection. Defaults follow Linux.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    pub mss_bytes: u32,
    /// TCP/IP header bytes added to every segment on the wire.
    pub header_bytes: u32,
    pub init_cwnd_pkts: u32,
    /// Receiver window, bytes.
    pub rwnd_bytes: u64,
    /// Send buffer, bytes (0: none, the default): new data is sent only
    /// while the unacknowledged bytes, sent and new, fit in it, as Linux's
    /// `sk_sndbuf` (at most `tcp_wmem`'s maximum) bounds the data queued
    /// in the socket. Counted in payload bytes, not Linux's `truesize`.
    pub sndbuf_bytes: u64,
    pub sack: bool,
    /// ECN negotiation and ECT(0) on data (forced on by controls that need
    /// ECN, such as DCTCP).
    pub ecn: bool,
    pub handshake: bool,
    /// Delayed ACKs (every second full segment or the timer); false means
    /// an ACK for every segment.
    pub delayed_ack: bool,
    pub delack_timeout_ps: u64,
    /// Segments ACKed at once at the start of a connection (quick-ACK).
    pub quickack_segments: u32,
    pub min_rto_ps: u64,
    pub max_rto_ps: u64,
    pub init_rto_ps: u64,
    /// Duplicate-ACK (or SACK) threshold for fast retransmit.
    pub dupthresh: u32,
    /// Linux TCP small queues: cap on this connection's bytes waiting in the
    /// host's NIC queue (0 disables the cap).
    pub tsq_bytes: u64,
    /// Sender-side cap on the sending rate (0: none). A NIC or bus limit.
    pub max_rate_bps: u64,
    /// TSO/GSO bursts (0: off, the default): the largest skb's payload,
    /// bytes (Linux's `gso_max_size`, 65536 without BIG TCP). When set,
    /// the sender hands its NIC skbs of Linux's autosize
    /// (`tcp_tso_autosize`: about 1 ms of the pacing rate plus an RTT
    /// bonus, at most this) whose segments leave together; a paced
    /// sender's gap after each is its whole payload at the rate; and new
    /// data waits for a bigger skb while an ACK is near (TSO deferral).
    /// `tcp/sender/tso_send.rs`.
    pub gso_max_bytes: u32,
    /// The receiver takes each of the sender's TSO skbs whole (off by
    /// default), as Linux's GRO or a virtio guest's whole GSO packets hand
    /// its TCP one skb of several segments: no ACK for a segment while more
    /// of its skb follow in order; the skb's last segment (or whatever ends
    /// the merge: a hole, a change of the ECN field, a FIN) is acknowledged
    /// by Linux's rule for one skb, one ACK for all of it. Acts only on the
    /// skbs of a sender with `gso_max_bytes` set. `tcp/receiver/gro.rs`.
    pub gro: bool,
    /// Tail loss probe (RFC 8985 §7, Linux `tcp_early_retrans` = 3): in
    /// Open or CWR, a probe 2·SRTT after the last transmission (plus 2 ms,
    /// or the 200 ms minimum RTO with one packet out) sends new data or
    /// retransmits the last segment, so a tail loss is repaired by fast
    /// recovery rather than an RTO. Needs SACK.
    pub tlp: bool,
    /// RACK time-based loss detection (RFC 8985 §6, Linux `tcp_recovery` =
    /// 1): a segment is lost when one sent after it is delivered and it is
    /// older than that one's RTT plus a reordering window (min RTT / 4,
    /// up to SRTT; zero in recovery or after DupThresh SACKs until
    /// reordering is seen). False: RFC 6675's DupThresh rule, and a
    /// retransmission is lost when a segment sent after it is delivered.
    /// Needs SACK.
    pub rack: bool,
    /// TCP timestamps (RFC 7323): RTT samples from the echoed timestamp
    /// where Karn's rule forbids one, and Eifel detection (RFC 3522) of
    /// spurious retransmissions, which undoes the window reduction
    /// (`undo_cwnd`). Millisecond clock, as Linux's. Headers are as
    /// configured in `header_bytes` (52 with timestamps in Linux).
    pub timestamps: bool,
    /// D-SACK (RFC 2883): the receiver reports duplicate segments; a
    /// sender whose every retransmission of an episode came back duplicate
    /// undoes the reduction, and RACK widens its reordering window.
    pub dsack: bool,
    /// F-RTO (RFC 5682, SACK-enhanced, Linux `tcp_frto` = 2): after an RTO,
    /// new data is sent instead of more retransmissions on the first ACK,
    /// and if the next one delivers never-retransmitted data the timeout
    /// was spurious: the reduction is undone.
    pub frto: bool,
    /// What this host's receive path does with a copy of one of its own
    /// segments that a switch returned (packet return, `queue::feedback`).
    pub copy_effect: CopyEffect,
    /// Linux's reordering adaptation (`tcp_check_sack_reordering`,
    /// `tcp_check_reno_reordering`): when SACKs, D-SACKs or surplus
    /// duplicate ACKs show a segment delivered out of order, the loss
    /// threshold `reordering` (starting at `dupthresh`) rises to that
    /// distance in segments, up to `max_reordering`; an RTO after
    /// DupThresh SACKs lowers it back. It is DupThresh for loss marking
    /// without RACK and RACK's switch between a zero and an open window.
    /// False: the threshold stays `dupthresh`.
    pub reordering_adapt: bool,
    /// Cap of the reordering adaptation, segments (Linux
    /// `tcp_max_reordering`, 300 since 3.16; the constant 127 before).
    pub max_reordering: u32,
    /// Window growth counts ACKs, not the segments they cover: one step of
    /// slow start or congestion avoidance per ACK that advances `snd_una`,
    /// as Linux did before its stretch-ACK fixes (3.18 for slow start,
    /// 4.0 for avoidance) with `tcp_abc` = 0. False: the segments acked.
    pub growth_per_ack: bool,
}

/// The sender's reaction to a returned copy of its own segment.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum CopyEffect {
    /// A congestion echo: one CE-marked delivery for the control and CWR
    /// (the packet-return paper's stated intent).
    #[default]
    Ce,
    /// What Linux's receive path does: the copy carries the sender's own
    /// sequence space with the addresses swapped, so it fails the sequence
    /// (or PAWS) check of `tcp_validate_incoming`, is dropped before any
    /// ECN or ACK processing, and a duplicate ACK goes to the peer (data
    /// segments are not rate-limited by `tcp_oow_rate_limited`). No effect
    /// on the sender's window.
    Linux,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss_bytes: 1448,
            header_bytes: 40,
            init_cwnd_pkts: 10,
            rwnd_bytes: 64 << 20,
            sndbuf_bytes: 0,
            sack: true,
            ecn: false,
            handshake: true,
            delayed_ack: true,
            delack_timeout_ps: 40 * crate::sim::PS_PER_MS,
            quickack_segments: 16,
            min_rto_ps: 200 * crate::sim::PS_PER_MS,
            max_rto_ps: 120 * crate::sim::PS_PER_S,
            init_rto_ps: crate::sim::PS_PER_S,
            dupthresh: 3,
            tsq_bytes: 128 * 1024,
            max_rate_bps: 0,
            gso_max_bytes: 0,
            gro: false,
            tlp: true,
            rack: true,
            timestamps: true,
            dsack: true,
            frto: true,
            copy_effect: CopyEffect::Ce,
            reordering_adapt: true,
            max_reordering: 300,
            growth_per_ack: false,
        }
    }
}

/// What to record. Everything is off unless asked: measurement costs nothing
/// when off.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RecordConfig {
    /// Budget of the recorded tables, bytes: periodic recorders are
    /// estimated against it before the run, the others are held to it while
    /// the run goes (`validate`, `world`). Default 2 GiB.
    pub max_bytes: u64,
    /// Per-flow sampling period for goodput and window traces (0: off).
    pub flow_sample_ps: u64,
    /// Record cwnd/ssthresh/RTT and control state at every ACK (large).
    pub cwnd_every_ack: bool,
    /// Queues whose occupancy is traced.
    pub queues: Vec<QueueTrace>,
    /// Log every drop and mark with its time, port, flow and reason.
    pub drop_log: bool,
    /// With each flow sample (or ACK, with `cwnd_every_ack`), also trace
    /// the TCP sender's loss-recovery state into `cc_vars`, as `tcp.*`
    /// variables: retransmits, timeouts, recoveries, loss probes, D-SACKs,
    /// undos so far, and RACK's reordering window.
    pub tcp_vars: bool,
    /// The end of a warm-up (0: none). When set, the flows table also
    /// gives each flow's goodput after it (`steady_goodput_bps`): the
    /// steady state without slow start.
    pub warmup_ps: u64,
    /// Packet capture points (`world/capture.rs`): each a port (`node`
    /// toward `peer`: every packet it puts on the wire) or a `host` (every
    /// packet it sends and receives). The core records each packet's
    /// header fields into the `captures` table; Python writes one pcap
    /// file per point from it.
    pub pcap: Vec<CaptureConfig>,
    /// Bytes of each captured packet kept in the pcap files (headers
    /// first; the payload is zeros). Default 128.
    pub pcap_snap_bytes: u32,
    /// Ports whose every packet event (enqueue, dequeue, drop, mark) is a
    /// row of the `packets` table (`world/packet_trace.rs`).
    pub packets: Vec<PortRef>,
    /// Each TCP sender's RTT samples: a row of the `rtt_samples` table at
    /// every ACK that gave one (`world/rtt_samples.rs`).
    pub rtt_samples: bool,
}

/// A port: `node`'s egress toward `peer`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PortRef {
    pub node: String,
    pub peer: String,
}

/// One capture point of `record.pcap`: either `host`, or `node` and `peer`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct CaptureConfig {
    pub node: Option<String>,
    pub peer: Option<String>,
    pub host: Option<String>,
}

/// Default of `record.pcap_snap_bytes`.
pub const DEFAULT_PCAP_SNAP_BYTES: u32 = 128;

impl Default for RecordConfig {
    fn default() -> Self {
        RecordConfig {
            max_bytes: DEFAULT_RECORD_MAX_BYTES,
            flow_sample_ps: 0,
            cwnd_every_ack: false,
            queues: Vec::new(),
            drop_log: false,
            tcp_vars: false,
            warmup_ps: 0,
            pcap: Vec::new(),
            pcap_snap_bytes: DEFAULT_PCAP_SNAP_BYTES,
            packets: Vec::new(),
            rtt_samples: false,
        }
    }
}

record! {
    #[derive(Clone, Debug, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct QueueTrace {
        /// The port of `node` toward `peer`.
        pub node: String,
        pub peer: String,
    }
    may_leave_out {
        /// 0: every change; otherwise the sampling period.
        pub sample_ps: u64,
        /// Also record the start time of every dequeue (transmission).
        pub dequeue_times: bool,
        /// Record only within [from_ps, to_ps).
        pub from_ps: u64,
        pub to_ps: Option<u64>,
    }
}

impl RunConfig {
    /// Decodes a JSON document; a decoding error names the field at fault
    /// (`flows[0].tcp.mss_bytes`), down through tagged enums (see
    /// [`refine_path`]).
    pub fn from_json(s: &str) -> Result<RunConfig, ConfigError> {
        decode(s).map_err(|(path, msg)| {
            let field = if path.is_empty() || path == "." {
                quoted_after(without_position(&msg), "missing field `")
                    .unwrap_or("config")
                    .to_string()
            } else {
                refine_path(s, &path, &msg)
            };
            ConfigError::new(field, msg)
        })
    }
}

/// Decodes a document: the path serde reached and the message on failure.
fn decode<'a, T: Deserialize<'a>>(s: &'a str) -> Result<T, (String, String)> {
    let de = &mut serde_json::Deserializer::from_str(s);
    serde_path_to_error::deserialize(de)
        .map_err(|e| (e.path().to_string(), e.into_inner().to_string()))
}

/// Largest document whose decoding errors are refined (each refinement step
/// decodes it again).
const REFINE_MAX_BYTES: usize = 1 << 20;

/// Serde decodes a tagged enum (`kind = ...`: a flow, a control, an AQM) from
/// a buffer, so an error inside one reports the enum's path only
/// (`flows[0]`). This finds the field inside: a missing or unknown field, or
/// an unknown `kind`, is named by the message; otherwise one key of the
/// table at `path` is removed at a time and the document decoded again, and
/// the key whose removal changes the error (or cures it) holds the fault;
/// the search goes on inside it.
pub fn refine_path(doc: &str, path: &str, msg: &str) -> String {
    let msg = without_position(msg);
    if let Some(name) = quoted_after(msg, "missing field `") {
        return format!("{path}.{name}");
    }
    let Ok(root) = serde_json::from_str::<serde_json::Value>(doc) else {
        return path.to_string();
    };
    let mut steps = parse_path(path);
    let mut field = path.to_string();
    'deeper: for _ in 0..8 {
        let Some(serde_json::Value::Object(table)) = lookup(&root, &steps) else {
            break;
        };
        let variant = quoted_after(msg, "unknown variant `");
        if variant.is_some() && table.get("kind").and_then(|k| k.as_str()) == variant {
            return format!("{field}.kind");
        }
        if let Some(name) = quoted_after(msg, "unknown field `").filter(|n| table.contains_key(*n))
        {
            return format!("{field}.{name}");
        }
        if doc.len() > REFINE_MAX_BYTES {
            break;
        }
        // Not the tag: without it no variant is decoded at all.
        for key in table.keys().filter(|k| *k != "kind") {
            let mut trial = root.clone();
            if let Some(serde_json::Value::Object(t)) = lookup_mut(&mut trial, &steps) {
                t.remove(key);
            }
            let culprit = match decode::<RunConfig>(&trial.to_string()) {
                Ok(_) => true,
                Err((_, m)) => without_position(&m) != msg,
            };
            if culprit {
                field = format!("{field}.{key}");
                steps.push(PathStep::Key(key.clone()));
                continue 'deeper;
            }
        }
        break;
    }
    field
}

/// The text between `prefix` and the next backquote, if `msg` starts so.
fn quoted_after<'a>(msg: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = msg.strip_prefix(prefix)?;
    rest.find('`').map(|end| &rest[..end])
}

/// A serde_json message without its " at line L column C" (positions move
/// when a document is written again).
fn without_position(msg: &str) -> &str {
    msg.rfind(" at line ").map_or(msg, |i| &msg[..i])
}

enum PathStep {
    Key(String),
    Index(usize),
}

/// `flows[0].cc` → [Key(flows), Index(0), Key(cc)].
fn parse_path(path: &str) -> Vec<PathStep> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let mut rest = part;
        if let Some(i) = rest.find('[') {
            if i > 0 {
                out.push(PathStep::Key(rest[..i].to_string()));
            }
            rest = &rest[i..];
            while let Some(end) = rest.find(']') {
                if let Ok(n) = rest[1..end].parse() {
                    out.push(PathStep::Index(n));
                }
                rest = &rest[end + 1..];
            }
        } else if !rest.is_empty() {
            out.push(PathStep::Key(rest.to_string()));
        }
    }
    out
}

fn lookup<'a>(v: &'a serde_json::Value, steps: &[PathStep]) -> Option<&'a serde_json::Value> {
    steps.iter().try_fold(v, |cur, s| match s {
        PathStep::Key(k) => cur.get(k),
        PathStep::Index(i) => cur.get(i),
    })
}

fn lookup_mut<'a>(
    v: &'a mut serde_json::Value,
    steps: &[PathStep],
) -> Option<&'a mut serde_json::Value> {
    steps.iter().try_fold(v, |cur, s| match s {
        PathStep::Key(k) => cur.get_mut(k),
        PathStep::Index(i) => cur.get_mut(*i),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_errors_name_the_field() {
        let json = r#"{"seed": 1, "duration_ps": 10, "nodes": [{"name": "a", "kind": "host"}],
                       "links": [{"a": "a", "b": "b", "rate_bps": -5, "delay_ps": 0}]}"#;
        let e = RunConfig::from_json(json).unwrap_err();
        assert_eq!(e.field, "links[0].rate_bps");
        let e = RunConfig::from_json(r#"{"seed": 1, "duration_ps": 10, "nodes": [], "links": [],
            "flows": [{"kind": "tcp", "name": "f", "src": "a", "dst": "b", "cc": {"kind": "westwood"}}]}"#)
            .unwrap_err();
        // Tagged enums are buffered by serde; the path is found again inside.
        assert_eq!(e.field, "flows[0].cc.kind");
        assert!(e.message.contains("westwood"), "{}", e.message);
    }

    #[test]
    fn a_record_needs_its_required_fields_and_may_leave_out_the_rest() {
        let doc = |link: &str| {
            format!(
                r#"{{"seed": 1, "duration_ps": 10, "nodes": [{{"name": "a", "kind": "host"}}],
                   "links": [{link}]}}"#
            )
        };
        let cfg = RunConfig::from_json(&doc(
            r#"{"a": "a", "b": "b", "rate_bps": 5, "delay_ps": 0}"#,
        ))
        .unwrap();
        let l = &cfg.links[0];
        assert_eq!((l.loss_ab, l.jitter_ps, l.reorder_delay_ps), (0.0, 0, 0));
        assert!(l.queue_ab.is_none() && l.netem_ba.is_none());
        assert!(cfg.nodes[0].pipeline.is_none());
        for field in ["a", "b", "rate_bps", "delay_ps"] {
            let mut link = serde_json::json!({"a": "a", "b": "b", "rate_bps": 5, "delay_ps": 0});
            link.as_object_mut().unwrap().remove(field);
            let e = RunConfig::from_json(&doc(&link.to_string())).unwrap_err();
            assert_eq!(e.field, format!("links[0].{field}"), "{}", e.message);
            assert!(
                e.message.contains(&format!("missing field `{field}`")),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn every_kind_of_flow_has_a_name_ends_and_a_time_window() {
        let doc = |flow: &str| {
            format!(
                r#"{{"seed": 1, "duration_ps": 10, "nodes": [], "links": [], "flows": [{flow}]}}"#
            )
        };
        let udp = r#"{"kind": "udp", "name": "u", "src": "a", "dst": "b", "rate_bps": 5}"#;
        let cfg = RunConfig::from_json(&doc(udp)).unwrap();
        match &cfg.flows[0] {
            FlowConfig::Udp {
                name,
                src,
                start_ps: 0,
                stop_ps: None,
                payload_bytes: 1470,
                ..
            } => assert_eq!((name.as_str(), src.as_str()), ("u", "a")),
            f => panic!("{f:?}"),
        }
        let tcp = r#"{"kind": "tcp", "name": "t", "src": "a", "dst": "b"}"#;
        assert!(RunConfig::from_json(&doc(tcp)).is_ok());
        for flow in [udp, tcp] {
            let flow = flow.replace(r#""src": "a", "#, "");
            let e = RunConfig::from_json(&doc(&flow)).unwrap_err();
            assert_eq!(e.field, "flows[0].src", "{}", e.message);
            assert!(e.message.contains("missing field `src`"), "{}", e.message);
        }
    }

    #[test]
    fn decode_errors_inside_tagged_enums_name_the_inner_field() {
        let base = r#"{"seed": 1, "duration_ps": 10, "nodes": [], "links": [
            {"a": "a", "b": "b", "rate_bps": 5, "delay_ps": 0,
             "queue_ab": {"aqm": {"kind": "red", "min_th": 1, "max_th": 2, "max_p": 0.1, "wlog": WLOG}}}],
            "flows": [{"kind": "tcp", "name": "f", "src": "a", "dst": "b", "tcp": {"mss_bytes": MSS},
                       "cc": {"kind": "fractional", "gamma_r": GAMMA}}]}"#;
        let doc = |wlog: &str, mss: &str, gamma: &str| {
            base.replace("WLOG", wlog)
                .replace("MSS", mss)
                .replace("GAMMA", gamma)
        };
        assert!(RunConfig::from_json(&doc("9", "1448", "[1]")).is_ok());
        for (text, field) in [
            (doc("9", "true", "[1]"), "flows[0].tcp.mss_bytes"),
            (doc("9", "1448", "[true]"), "flows[0].cc.gamma_r"),
            (doc("-1", "1448", "[1]"), "links[0].queue_ab.aqm.wlog"),
            (
                doc("9", "1448", "[1]")
                    .replace(r#""bytes_mode""#, "x")
                    .replace(r#""wlog": 9"#, r#""wlog": 9, "bogus": 1"#),
                "links[0].queue_ab.aqm.bogus",
            ),
        ] {
            let e = RunConfig::from_json(&text).unwrap_err();
            assert_eq!(e.field, field, "{}", e.message);
        }
    }
}
