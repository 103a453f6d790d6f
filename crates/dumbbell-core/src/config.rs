//! The run configuration: the one document Python (or a Rust user) hands the
//! core. Plain data, serde, every enum tagged by `kind`, units in the names
//! (`_ps` picoseconds, `_bps` bit/s, `_bytes`, `_pkts`). Validation of the
//! physics (connected topology, positive rates) happens in `World::build`,
//! which returns a [`ConfigError`] naming the offending field.

use serde::{Deserialize, Serialize};
use std::fmt;

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

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    pub name: String,
    pub kind: NodeKind,
    /// A software switch's shared packet-processing pipeline (switches
    /// only; see `net::pipeline`). None: forwarding takes no time.
    #[serde(default)]
    pub pipeline: Option<PipelineConfig>,
}

/// A software switch's pipeline: every packet entering the switch is
/// processed one at a time at `capacity_pps`, waiting in a buffer of
/// `buffer_pkts` packets (dropped when it is full).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfig {
    pub capacity_pps: f64,
    pub buffer_pkts: u32,
}

/// A full-duplex link between nodes `a` and `b`. Each direction has its own
/// egress queue (at the sending node) and loss probability.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub a: String,
    pub b: String,
    pub rate_bps: u64,
    pub delay_ps: u64,
    #[serde(default)]
    pub loss_ab: f64,
    #[serde(default)]
    pub loss_ba: f64,
    /// Extra one-way delay per packet, uniform in [0, jitter_ps], drawn from
    /// the stream `link:<from>-><to>:jitter`; FIFO order is kept (a packet
    /// never overtakes the one before it). Models host and timer noise that
    /// breaks the phase lock-out of perfectly periodic senders.
    #[serde(default)]
    pub jitter_ps: u64,
    /// Reordering per direction: each packet, with this probability, is
    /// held `reorder_delay_ps` longer on the wire than the others, so that
    /// the packets sent after it overtake it (drawn from the stream
    /// `link:<from>-><to>:reorder`). 0: the link keeps FIFO order.
    #[serde(default)]
    pub reorder_ab: f64,
    #[serde(default)]
    pub reorder_ba: f64,
    /// Extra one-way delay of a reordered packet.
    #[serde(default)]
    pub reorder_delay_ps: u64,
    /// Queue at `a`'s port toward `b`; default drop-tail of 1000 packets.
    #[serde(default)]
    pub queue_ab: Option<QueueConfig>,
    #[serde(default)]
    pub queue_ba: Option<QueueConfig>,
    /// A netem-like emulation stage in front of `a`'s port toward `b`
    /// (see [`NetemConfig`]).
    #[serde(default)]
    pub netem_ab: Option<NetemConfig>,
    #[serde(default)]
    pub netem_ba: Option<NetemConfig>,
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
    /// Packets held at most (delay line + queue); `None`: no limit.
    #[serde(default = "netem_limit")]
    pub limit_pkts: Option<u32>,
}

fn netem_limit() -> Option<u32> {
    Some(1000)
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueConfig {
    #[serde(default)]
    pub limit_pkts: Option<u32>,
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    #[serde(default)]
    pub aqm: AqmConfig,
    /// Two classes at this port (`queue::twoclass`): the classifier that
    /// splits arrivals between a short-flow queue (this one) and a long-flow
    /// queue. None: one queue.
    #[serde(default)]
    pub classifier: Option<ClassifierConfig>,
    /// Which class sends next; default strict priority. Only with a
    /// classifier.
    #[serde(default)]
    pub scheduler: Option<SchedulerConfig>,
    /// The long-flow queue's limit and marking policy; default: the same as
    /// this (short-flow) queue's. Only with a classifier; no nesting.
    #[serde(default)]
    pub long_queue: Option<Box<QueueConfig>>,
    /// Packet return at this queue (switch ports only; `queue::feedback`).
    #[serde(default)]
    pub feedback: Option<FeedbackConfig>,
    /// Egress service rate in packets per second, below the link rate
    /// (bmv2 `set_queue_rate`); None: the link rate.
    #[serde(default)]
    pub service_pps: Option<f64>,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            limit_pkts: Some(1000),
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

/// A short/long flow classifier (`queue::classify`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClassifierConfig {
    /// The application's tag: the whole task of a long file is long.
    Ideal,
    /// RuN2C: short while the sequence offset is below `threshold_bytes`.
    Run2c {
        #[serde(default = "default_run2c_threshold")]
        threshold_bytes: u64,
    },
    /// RAFLE: a random probe of the flow ids of the last `n` packets.
    Rafle {
        #[serde(default = "default_rafle_n")]
        n: u32,
    },
}

fn default_run2c_threshold() -> u64 {
    crate::queue::classify::run2c::DEFAULT_THRESHOLD_BYTES
}
fn default_rafle_n() -> u32 {
    crate::queue::classify::rafle::DEFAULT_N as u32
}

/// The scheduler of a two-class port (`queue::sched`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SchedulerConfig {
    /// Strict priority, short first.
    #[default]
    Prio,
    /// Round robin, packet by packet.
    Rr,
    /// Deficit round robin by bytes.
    Drr {
        #[serde(default = "default_quantum")]
        quantum_short_bytes: u32,
        #[serde(default = "default_quantum")]
        quantum_long_bytes: u32,
    },
}

fn default_quantum() -> u32 {
    crate::queue::sched::drr::DEFAULT_QUANTUM_BYTES
}

/// Size of a returned copy.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum CopyConfig {
    /// The whole packet (the paper's clones).
    #[default]
    Full,
    /// 64 bytes of headers.
    Header,
}

/// The packet-return policy of a queue: its decision (step at K, or
/// hysteresis between L_I and L_S), where it reads the queue (default
/// dequeue, the paper's P4 egress) and the size of the copies.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FeedbackConfig {
    Step {
        k_pkts: u32,
        #[serde(default = "dequeue")]
        at: MarkAt,
        #[serde(default)]
        copy: CopyConfig,
    },
    Hysteresis {
        upper_pkts: u32,
        lower_pkts: u32,
        #[serde(default = "dequeue")]
        at: MarkAt,
        #[serde(default)]
        copy: CopyConfig,
    },
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum MarkAt {
    #[default]
    Enqueue,
    Dequeue,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum AqmConfig {
    #[default]
    None,
    Red {
        /// Thresholds in bytes (`bytes_mode`) or packets.
        min_th: f64,
        max_th: f64,
        max_p: f64,
        wlog: u32,
        #[serde(default)]
        ecn: bool,
        #[serde(default)]
        harddrop: bool,
        #[serde(default)]
        gentle: bool,
        #[serde(default = "yes")]
        bytes_mode: bool,
        #[serde(default = "default_avpkt")]
        avpkt_bytes: u32,
        /// For idle decay; 0 means "the link's rate".
        #[serde(default)]
        bandwidth_bps: u64,
    },
    Step {
        #[serde(default)]
        k_pkts: Option<u32>,
        #[serde(default)]
        k_bytes: Option<u64>,
        #[serde(default)]
        at: MarkAt,
    },
    Hysteresis {
        upper_pkts: u32,
        lower_pkts: u32,
        #[serde(default = "dequeue")]
        at: MarkAt,
    },
    /// CoDel (`queue::codel`, Linux `sch_codel`); the queue's limit applies.
    Codel {
        #[serde(default = "codel_target")]
        target_ps: u64,
        #[serde(default = "codel_interval")]
        interval_ps: u64,
        #[serde(default)]
        ecn: bool,
    },
    /// FQ-CoDel (`queue::fq_codel`, Linux `sch_fq_codel`); the queue's
    /// limit applies to all flow queues together.
    FqCodel {
        #[serde(default = "codel_target")]
        target_ps: u64,
        #[serde(default = "codel_interval")]
        interval_ps: u64,
        /// Linux's FQ-CoDel marks by default.
        #[serde(default = "yes")]
        ecn: bool,
        #[serde(default = "fq_flows")]
        flows: u32,
        #[serde(default = "fq_quantum")]
        quantum_bytes: u32,
    },
    /// PIE (`queue::pie`, Linux `sch_pie`, timestamp mode).
    Pie {
        #[serde(default = "pie_target")]
        target_ps: u64,
        #[serde(default = "pie_tupdate")]
        tupdate_ps: u64,
        #[serde(default = "pie_alpha")]
        alpha: f64,
        #[serde(default = "pie_beta")]
        beta: f64,
        #[serde(default = "pie_max_burst")]
        max_burst_ps: u64,
        #[serde(default)]
        ecn: bool,
    },
}

impl AqmConfig {
    /// A discipline of its own (CoDel, FQ-CoDel, PIE) rather than a policy
    /// of the FIFO.
    pub fn is_own_discipline(&self) -> bool {
        matches!(
            self,
            AqmConfig::Codel { .. } | AqmConfig::FqCodel { .. } | AqmConfig::Pie { .. }
        )
    }
}

fn codel_target() -> u64 {
    crate::queue::codel::DEFAULT_TARGET.ps()
}
fn codel_interval() -> u64 {
    crate::queue::codel::DEFAULT_INTERVAL.ps()
}
fn fq_flows() -> u32 {
    crate::queue::fq_codel::DEFAULT_FLOWS
}
fn fq_quantum() -> u32 {
    crate::queue::fq_codel::DEFAULT_QUANTUM_BYTES
}
fn pie_target() -> u64 {
    crate::queue::pie::DEFAULT_TARGET.ps()
}
fn pie_tupdate() -> u64 {
    crate::queue::pie::DEFAULT_TUPDATE.ps()
}
fn pie_alpha() -> f64 {
    crate::queue::pie::DEFAULT_ALPHA
}
fn pie_beta() -> f64 {
    crate::queue::pie::DEFAULT_BETA
}
fn pie_max_burst() -> u64 {
    crate::queue::pie::DEFAULT_MAX_BURST.ps()
}

fn yes() -> bool {
    true
}
fn default_avpkt() -> u32 {
    1000
}
fn dequeue() -> MarkAt {
    MarkAt::Dequeue
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FlowConfig {
    /// A bulk TCP transfer (iperf-like).
    Tcp {
        name: String,
        src: String,
        dst: String,
        #[serde(default)]
        start_ps: u64,
        /// Stop sending new data at this time (None: until the run ends).
        #[serde(default)]
        stop_ps: Option<u64>,
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
        name: String,
        src: String,
        dst: String,
        #[serde(default)]
        start_ps: u64,
        #[serde(default)]
        stop_ps: Option<u64>,
        rate_bps: u64,
        #[serde(default = "default_udp_payload")]
        payload_bytes: u32,
    },
}

fn default_udp_payload() -> u32 {
    1470
}

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
    /// When the first tasks start.
    #[serde(default)]
    pub start_ps: u64,
    /// No task starts at or after this time.
    #[serde(default)]
    pub stop_ps: Option<u64>,
    /// At most this many tasks start.
    #[serde(default)]
    pub max_tasks: Option<u64>,
    /// The control dialogue before each file; None: the data connection
    /// alone (a web-like flow).
    #[serde(default)]
    pub control: Option<ControlConfig>,
    /// Congestion control and TCP options of every connection.
    #[serde(default)]
    pub cc: CcConfig,
    #[serde(default)]
    pub tcp: TcpConfig,
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
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss_bytes: 1448,
            header_bytes: 40,
            init_cwnd_pkts: 10,
            rwnd_bytes: 64 << 20,
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
            tlp: true,
            rack: true,
            timestamps: true,
            dsack: true,
            frto: true,
        }
    }
}

/// A congestion control and its parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CcConfig {
    Reno,
    Cubic(#[serde(default)] CubicParams),
    Dctcp(#[serde(default)] DctcpParams),
    // Seed 001 (Madeira and Mattos): Linear, Fractional, Expolinear.
    Linear(#[serde(default)] LinearParams),
    Fractional(#[serde(default)] FractionalParams),
    Expolinear(#[serde(default)] ExpolinearParams),
    Bbr(#[serde(default)] BbrParams),
    Highspeed(#[serde(default)] HighSpeedParams),
    Vegas(#[serde(default)] VegasParams),
    /// A control built outside the core: the embedding that runs the
    /// configuration (the Python binding, for a class passed as `cc=`)
    /// hands the run an [`ExternalControls`](crate::cc::ExternalControls)
    /// that builds one for `id`. A run without one refuses the flow.
    External(ExternalParams),
    /// A control added to the core by one file in `cc/` and one line in
    /// `cc::registry::REGISTRY` (see `docs/controls.md`), by its name, with
    /// its parameters as a table that the control's file decodes.
    Registered(RegisteredParams),
}

/// Names a control of `cc::registry::REGISTRY` and its parameters.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RegisteredParams {
    /// The registered name (`scalable`).
    pub name: String,
    /// The control's parameters; unset ones take its defaults.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
}

/// Names a control the embedding builds (`cc::ExternalControls`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExternalParams {
    /// The key the embedding's factory knows the control by (the Python
    /// binding uses the scenario path, `flows[0].cc`).
    pub id: String,
}

impl Default for CcConfig {
    fn default() -> Self {
        CcConfig::Cubic(CubicParams::default())
    }
}

/// Cubic (RFC 9438, Linux `tcp_cubic.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CubicParams {
    /// Multiplicative decrease factor (Linux beta = 717/1024).
    pub beta: f64,
    /// Cubic constant C, in packets / s^3.
    pub c: f64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    pub hystart: bool,
    /// HyStart detectors: ACK train and delay increase.
    pub hystart_ack_train: bool,
    pub hystart_delay: bool,
    /// HyStart is active only from this window on (packets).
    pub hystart_low_window: u32,
    /// ACK train spacing threshold, microseconds.
    pub hystart_ack_delta_us: u32,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            beta: 717.0 / 1024.0,
            c: 0.4,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: true,
            hystart_ack_train: true,
            hystart_delay: true,
            hystart_low_window: 16,
            hystart_ack_delta_us: 2000,
        }
    }
}

/// DCTCP (RFC 8257, Linux `tcp_dctcp.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpParams {
    /// g = 2^-shift_g (Linux `dctcp_shift_g` = 4, g = 1/16).
    pub shift_g: u32,
    /// Initial alpha in [0, 1] (Linux `dctcp_alpha_on_init` = 1024/1024).
    pub alpha_init: f64,
}

impl Default for DctcpParams {
    fn default() -> Self {
        DctcpParams {
            shift_g: 4,
            alpha_init: 1.0,
        }
    }
}

// ---- Seed 001 controls (cc/seed001.rs, linear.rs, fractional.rs,
// expolinear.rs). Defaults are the constants of the authors' kernel modules
// (linha01.c, frac01.c, expolin01.c); t is in whole milliseconds since the
// session start or the last loss. Checked by `cc::seed001::check`.

/// What Linear's adaptive reduction R = min + span·lost/sent counts.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum AdaptiveCount {
    /// Packets lost and sent over the current and the previous round of
    /// data (the paper's "in the current window").
    #[default]
    Round,
    /// The packets the loss-reporting ACK itself revealed: its losses over
    /// its losses plus the packets it acked or SACKed.
    Ack,
}

/// Linear (seed 001 §4, eq. 1–4; `linha01.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LinearParams {
    /// Slow start adds α·t³ per ACK event, packets/ms³ (module: 2).
    pub ss_alpha: f64,
    /// Smallest slow-start step per ACK event, packets (module: 2).
    pub ss_min_pkts: u32,
    /// Recovery slope: J = b_r + β_r·t, packets/ms (module: 1).
    pub beta_r: f64,
    /// Avoidance slope: J = b_A + β_A·t, packets/ms (module: 2).
    pub beta_a: f64,
    /// Fixed reduction on loss, percent, 1..=99 (module: 10; the paper's
    /// variants: 20, 50).
    pub reduction_pct: u32,
    /// Adaptive reduction R = min + span·lost/sent (paper eq. 3) instead of
    /// `reduction_pct`.
    pub adaptive: bool,
    /// R's floor, percent (paper: 15).
    pub adaptive_min_pct: u32,
    /// R's span, percent; min + span ≤ 99 (paper: 35).
    pub adaptive_span_pct: u32,
    /// What lost/sent counts (see [`AdaptiveCount`]).
    pub adaptive_count: AdaptiveCount,
    /// Upper threshold before any reduction, packets (module: 200).
    pub initial_threshold_pkts: u32,
    /// Recovery base b_r before any reduction, packets (module: 1).
    pub initial_base_pkts: u32,
    /// The `ssthresh` hook enters recovery as `linha01.c`'s does (see
    /// `cc::seed001`); false (default): a loss reduces the window as the
    /// paper's equations say.
    pub module_hook: bool,
    /// The reduction gate `snd_nxt > recovery_point` compares 32-bit
    /// sequence numbers from a random initial one, as the module's `u32`
    /// comparison does in Linux: once per 4 GiB sent, a recovery point just
    /// below the wrap keeps the gate shut until the point moves again.
    /// False: 64-bit, never wraps. Unset (default): as `module_hook`. The
    /// module's hook moves the point at every Recovery entry, which bounds
    /// a wrap's effect to milliseconds; without the hook only a reduction
    /// moves it, and the hook's reset of t (which keeps the recovery window
    /// at b_r under frequent losses) can keep the gate shut for 4 GiB of
    /// data: a state neither the module nor the paper's equations reach
    /// (`cc::seed001`, "The compiled modules against their source", 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrap_seq: Option<bool>,
}

impl Default for LinearParams {
    fn default() -> Self {
        LinearParams {
            ss_alpha: 2.0,
            ss_min_pkts: 2,
            beta_r: 1.0,
            beta_a: 2.0,
            reduction_pct: 10,
            adaptive: false,
            adaptive_min_pct: 15,
            adaptive_span_pct: 35,
            adaptive_count: AdaptiveCount::Round,
            initial_threshold_pkts: 200,
            initial_base_pkts: 1,
            module_hook: false,
            wrap_seq: None,
        }
    }
}

/// Fractional's slow start.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum FractionalSlowStart {
    /// `ss_min_pkts` per ACK event: what `frac01.c` does as compiled (its
    /// `time_in_ms` is never assigned; GCC folds `max(2·t³, 1)` to 1, see
    /// `cc/fractional.rs`).
    #[default]
    PerAck,
    /// max(⌊α·t³⌋, `ss_min_pkts`) per ACK event, t in ms since the session
    /// start or the last loss: the paper's eq. 1, what the source seems to say.
    CubicTime,
}

/// Fractional, "Fracionário" (seed 001 §4, eq. 1, 5, 6; `frac01.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FractionalParams {
    /// Slow start: the compiled module's one segment per ACK event
    /// (default) or the paper's α·t³.
    pub slow_start: FractionalSlowStart,
    /// Slow start adds α·t³ per ACK event with `slow_start = cubic_time`,
    /// packets/ms³ (source: 2).
    pub ss_alpha: f64,
    /// Smallest slow-start step per ACK event, packets (module: 1); the
    /// whole step with `slow_start = per_ack`.
    pub ss_min_pkts: u32,
    /// Reduction on loss, percent, 1..=99 (module: 20).
    pub reduction_pct: u32,
    /// Δ_r as a percentage of the last reduction, 1..=100 (module: 10).
    pub delta_pct: u32,
    /// The recovery multipliers γ_r, one per ACK event, cycled (module:
    /// [0, 4, 5, 1]); not empty.
    pub gamma_r: Vec<u32>,
    /// Avoidance growth γ_A per ACK event, percent of cwnd (module: 5).
    pub gamma_a_pct: u32,
    /// The reduction gate `snd_nxt > recovery_point` compares 32-bit
    /// sequence numbers from a random initial one, as the module's `u32`
    /// comparison does in Linux: once per 4 GiB sent, a recovery point just
    /// below the wrap keeps the gate shut until recovery ends (or, if it
    /// never ends, until 4 GiB more are sent). False: 64-bit, never wraps.
    pub wrap_seq: bool,
}

impl Default for FractionalParams {
    fn default() -> Self {
        FractionalParams {
            slow_start: FractionalSlowStart::PerAck,
            ss_alpha: 2.0,
            ss_min_pkts: 1,
            reduction_pct: 20,
            delta_pct: 10,
            gamma_r: vec![0, 4, 5, 1],
            gamma_a_pct: 5,
            wrap_seq: true,
        }
    }
}

/// Expolinear (seed 001 §4, eq. 1, 7, 8; `expolin01.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ExpolinearParams {
    /// Slow start adds α·t³ per ACK event, packets/ms³ (module: 2).
    pub ss_alpha: f64,
    /// Smallest slow-start step per ACK event, packets (module: 2).
    pub ss_min_pkts: u32,
    /// Reduction on loss, percent, 1..=99 (module: 20).
    pub reduction_pct: u32,
    /// Recovery gain η_r on Δ_r (module: 1).
    pub eta_r: f64,
    /// σ in 2^(−⌊σ·t⌋), per ms, > 0 (module: 1/4, i.e. ⌊t/4⌋).
    pub sigma_per_ms: f64,
    /// Avoidance slope: J = b_A + η_A·t, packets/ms (module: 2).
    pub eta_a: f64,
    /// Upper threshold before any reduction, packets (module: 200).
    pub initial_threshold_pkts: u32,
    /// Recovery base b_r before any reduction, packets (module: 1).
    pub initial_base_pkts: u32,
    /// Δ_r before any reduction, packets (module: 1).
    pub initial_delta_pkts: u32,
    /// 2^(−k) is the module's `65536 >> k` with the shift count taken
    /// modulo 32, as x86 executes it (a shift by 32 or more is undefined in
    /// C; GCC emits `sar %cl`, which masks the count): the recovery window
    /// falls back to b_r + 1 every 128 ms of t (k = 32, 64, ...). False:
    /// 2^(−k) = 0 from k = 17 on, the exponential the paper means.
    pub shift_mod_32: bool,
    /// The `ssthresh` hook enters recovery as `expolin01.c`'s does (see
    /// `cc::seed001`); false (default): a loss reduces the window as the
    /// paper's equations say.
    pub module_hook: bool,
    /// The reduction gate `snd_nxt > recovery_point` compares 32-bit
    /// sequence numbers from a random initial one, as the module's `u32`
    /// comparison does in Linux: once per 4 GiB sent, a recovery point just
    /// below the wrap keeps the gate shut until the point moves again.
    /// False: 64-bit, never wraps. Unset (default): as `module_hook`. The
    /// module's hook moves the point at every Recovery entry, which bounds
    /// a wrap's effect to milliseconds; without the hook only a reduction
    /// moves it, and the hook's reset of t (which keeps the recovery window
    /// at b_r under frequent losses) can keep the gate shut for 4 GiB of
    /// data: a state neither the module nor the paper's equations reach
    /// (`cc::seed001`, "The compiled modules against their source", 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrap_seq: Option<bool>,
}

impl Default for ExpolinearParams {
    fn default() -> Self {
        ExpolinearParams {
            ss_alpha: 2.0,
            ss_min_pkts: 2,
            reduction_pct: 20,
            eta_r: 1.0,
            sigma_per_ms: 0.25,
            eta_a: 2.0,
            initial_threshold_pkts: 200,
            initial_base_pkts: 1,
            initial_delta_pkts: 1,
            shift_mod_32: true,
            module_hook: false,
            wrap_seq: None,
        }
    }
}

/// BBR v1 (Linux `tcp_bbr.c`). Gains are rounded to Linux's 1/256 units.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BbrParams {
    /// Startup pacing and cwnd gain, about 2/ln 2 (Linux `bbr_high_gain`:
    /// 2.885 → 739/256).
    pub high_gain: f64,
    /// Drain pacing gain; unset: 1/high_gain (Linux `bbr_drain_gain`: 88/256).
    pub drain_gain: Option<f64>,
    /// ProbeBW cwnd gain (Linux `bbr_cwnd_gain`: 2).
    pub cwnd_gain: f64,
    /// First phase of the ProbeBW pacing-gain cycle (Linux 5/4).
    pub probe_bw_up_gain: f64,
    /// Second phase of the cycle (Linux 3/4); the six others are 1.
    pub probe_bw_down_gain: f64,
    /// Window of the max-bandwidth filter, in packet-timed rounds (Linux
    /// `bbr_bw_rtts`: 10).
    pub bw_win_rounds: u32,
    /// Window of the min-RTT filter, seconds (Linux `bbr_min_rtt_win_sec`: 10).
    pub min_rtt_win_s: f64,
    /// Least time at 4 packets in ProbeRTT, milliseconds (Linux
    /// `bbr_probe_rtt_mode_ms`: 200); 0 disables ProbeRTT.
    pub probe_rtt_mode_ms: f64,
    /// Bandwidth growth that counts as "still growing" in Startup (Linux
    /// `bbr_full_bw_thresh`: 5/4).
    pub full_bw_thresh: f64,
    /// Rounds without such growth that end Startup (Linux `bbr_full_bw_cnt`: 3).
    pub full_bw_cnt: u32,
    /// Pacing below the estimate, percent (Linux `bbr_pacing_margin_percent`: 1).
    pub pacing_margin_percent: u32,
    /// Below this pacing rate the TSO quantum is one segment, above it two
    /// at least, bit/s (Linux `bbr_min_tso_rate`: 1.2 Mb/s).
    pub min_tso_rate_bps: u64,
    /// The ACK-aggregation estimator (`extra_acked`, Linux ≥ 5.1): on.
    pub extra_acked: bool,
    /// Long-term bandwidth sampling, the token-bucket policer detector: on.
    pub lt_bw: bool,
}

impl Default for BbrParams {
    fn default() -> Self {
        BbrParams {
            high_gain: 2.885,
            drain_gain: None,
            cwnd_gain: 2.0,
            probe_bw_up_gain: 1.25,
            probe_bw_down_gain: 0.75,
            bw_win_rounds: 10,
            min_rtt_win_s: 10.0,
            probe_rtt_mode_ms: 200.0,
            full_bw_thresh: 1.25,
            full_bw_cnt: 3,
            pacing_margin_percent: 1,
            min_tso_rate_bps: 1_200_000,
            extra_acked: true,
            lt_bw: true,
        }
    }
}

/// How HighSpeed TCP gets its a(w) and b(w).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum HighSpeedMode {
    /// RFC 3649 §5 formulas (seed 004 eq. 12–13), from the parameters below.
    #[default]
    Formula,
    /// Linux `tcp_highspeed.c`: the 72-row table of RFC 3649 appendix B;
    /// the parameters below are not used.
    LinuxTable,
}

/// HighSpeed TCP (RFC 3649; seed 004 §III; Linux `tcp_highspeed.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HighSpeedParams {
    pub mode: HighSpeedMode,
    /// At and below this window (packets) the control is standard TCP (38).
    pub low_window: u32,
    /// Window (packets) reached at loss rate `high_p` (83000).
    pub high_window: u32,
    /// Loss rate at `low_window` (1e-3).
    pub low_p: f64,
    /// Loss rate at `high_window` (1e-7).
    pub high_p: f64,
    /// Decrease factor b(w) at `high_window` (0.1).
    pub high_decrease: f64,
}

impl Default for HighSpeedParams {
    fn default() -> Self {
        HighSpeedParams {
            mode: HighSpeedMode::Formula,
            low_window: 38,
            high_window: 83000,
            low_p: 1e-3,
            high_p: 1e-7,
            high_decrease: 0.1,
        }
    }
}

/// TCP Vegas (Linux `tcp_vegas.c`). Thresholds on the estimated number of
/// this flow's packets queued in the network.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct VegasParams {
    /// Below this many packets queued, grow by one packet per RTT (2).
    pub alpha: u32,
    /// Above this many, shrink by one packet per RTT (4).
    pub beta: u32,
    /// Leave slow start above this many (1).
    pub gamma: u32,
}

impl Default for VegasParams {
    fn default() -> Self {
        VegasParams {
            alpha: 2,
            beta: 4,
            gamma: 1,
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
}

impl Default for RecordConfig {
    fn default() -> Self {
        RecordConfig {
            max_bytes: crate::validate::DEFAULT_RECORD_MAX_BYTES,
            flow_sample_ps: 0,
            cwnd_every_ack: false,
            queues: Vec::new(),
            drop_log: false,
            tcp_vars: false,
            warmup_ps: 0,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueTrace {
    /// The port of `node` toward `peer`.
    pub node: String,
    pub peer: String,
    /// 0: every change; otherwise the sampling period.
    #[serde(default)]
    pub sample_ps: u64,
    /// Also record the start time of every dequeue (transmission).
    #[serde(default)]
    pub dequeue_times: bool,
    /// Record only within [from_ps, to_ps).
    #[serde(default)]
    pub from_ps: u64,
    #[serde(default)]
    pub to_ps: Option<u64>,
}

/// A configuration error naming the field at fault.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    pub field: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ConfigError {}

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
