//! Range checks of a whole run configuration, before anything is built.
//!
//! The core is usable from Rust alone, so it refuses by itself every value
//! the Python front end refuses: each numeric field has a range that means
//! something (a rate between 1 bit/s and 10 Tb/s, an RTO between 1 µs and
//! an hour, ...), every float is finite, and the error names the field with
//! the path the document used (`links[2].rate_bps`, `flows[0].tcp.min_rto_ps`).
//! The ranges are the constants below; `python/dumbbell/scenario.py` states
//! the same ones in its pydantic fields (a test compares the two).
//!
//! Two whole-run checks follow the field checks:
//!
//! - **the horizon**: the run's end plus the longest delay anything can
//!   schedule (a link's propagation, jitter and serialization, an RTO, a
//!   delayed-ACK timer, a sampling period, a UDP datagram's interval) must fit
//!   in the simulated clock (`u64` picoseconds, about 213 days);
//! - **the recording estimate**: periodic recorders (`record.flow_sample_ps`,
//!   a queue's `sample_ps`) have a size known before the run; if it exceeds
//!   `record.max_bytes` the run is refused with the estimate. Recorders whose
//!   size depends on the traffic (every change, every ACK, every drop) are
//!   held to the same budget while the run goes (`world`).
//!
//! Design choice: one pass over the plain configuration, no world built, so
//! a check here never allocates more than the document itself.

use crate::config::{
    ArrivalsConfig, CcConfig, ConfigError, FlowConfig, LinkConfig, NetemConfig, QueueConfig,
    RunConfig, SizesConfig, TcpConfig, WorkloadConfig,
};
pub use crate::param::fmt_ps;
pub(crate) use crate::param::{float_in, int_in, time_in};
use crate::sim::{Dur, PS_PER_S, PS_PER_US};

pub use crate::net::MAX_RATE_BPS;
/// Longest one-way propagation delay or jitter of a link: 10 000 s (beyond
/// the light time to Mars, 1 300 s at most).
pub const MAX_LINK_DELAY_PS: u64 = 10_000 * PS_PER_S;
/// RTO bounds (RFC 6298; Linux: min 200 ms, max 120 s, initial 1 s): between
/// 1 µs (fine-grained data-center timers) and one hour.
pub const MIN_RTO_PS: u64 = PS_PER_US;
pub const MAX_RTO_PS: u64 = 3600 * PS_PER_S;
/// Delayed-ACK timer: 1 µs to 60 s (Linux: 40 ms to 200 ms).
pub const MIN_DELACK_PS: u64 = PS_PER_US;
pub const MAX_DELACK_PS: u64 = 60 * PS_PER_S;
/// Shortest sampling period of a periodic recorder: 1 ns.
pub const MIN_SAMPLE_PS: u64 = 1_000;
/// Segment size: Linux's smallest sender MSS (`TCP_MIN_SND_MSS`, 48 B) to the
/// largest IPv4 MSS (65 535 − 40 B).
pub const MIN_MSS_BYTES: u32 = 48;
pub const MAX_MSS_BYTES: u32 = 65_495;
/// Header bytes added to every TCP segment: 0 to 1 024 B (IPv6, options,
/// tunnels).
pub const MAX_HEADER_BYTES: u32 = 1024;
/// Largest initial window, packets.
pub const MAX_INIT_CWND_PKTS: u32 = 1 << 20;
/// Largest receive window: Linux's 65 535 << 14 bytes (window scale 14).
pub const MAX_RWND_BYTES: u64 = 65_535 << 14;
/// Largest duplicate-ACK threshold (Linux caps reordering at 300).
pub const MAX_DUPTHRESH: u32 = 65_535;
/// Largest TCP-small-queues cap, bytes.
pub const MAX_TSQ_BYTES: u64 = 1 << 40;
/// Largest skb of a sender's TSO bursts, bytes of payload: Linux's
/// `gso_max_size` is 64 KB, up to 512 KB with BIG TCP.
pub const MAX_GSO_BYTES: u32 = 512 * 1024;
/// Largest transfer of one flow, bytes (sequence numbers are 64-bit offsets).
pub const MAX_FLOW_BYTES: u64 = 1 << 62;
/// Largest UDP payload (65 535 − 20 − 8).
pub const MAX_UDP_PAYLOAD_BYTES: u32 = 65_507;
pub use crate::queue::red::{MAX_AVPKT_BYTES, MAX_RED_TH};
pub use crate::queue::{MAX_AQM_TIME_PS, MIN_AQM_TIME_PS};
/// PIE's gains, per second of delay: Linux takes 0 to 32 sixteenths.
pub const MAX_PIE_GAIN: f64 = crate::queue::pie::MAX_GAIN;
pub use crate::queue::classify::MAX_RAFLE_N;
/// Most tasks a closed loop keeps active.
pub const MAX_CONCURRENCY: u32 = 1_000_000;
/// Fastest Poisson arrival rate, tasks per second.
pub const MAX_ARRIVAL_RATE_PER_S: f64 = 1e6;
/// Most tasks one workload starts.
pub const MAX_TASKS: u64 = 100_000_000;
/// Default and bounds of the recording budget (`record.max_bytes`).
pub use crate::config::DEFAULT_RECORD_MAX_BYTES;
pub const MIN_RECORD_MAX_BYTES: u64 = 1 << 20;
pub const MAX_RECORD_MAX_BYTES: u64 = 1 << 50;

/// Bytes of one `flow_samples`/`cwnd` row and of one `cc_vars` row.
pub const FLOW_ROW_BYTES: u64 = 8 + 4 + 8 + 4 + 4 + 8 + 4 + 4;
pub const VAR_ROW_BYTES: u64 = 8 + 4 + 4 + 8;
/// Bytes of one `queue_trace`, `dequeues` and `drops` row.
pub const QUEUE_ROW_BYTES: u64 = 8 + 4 + 4 + 8;
pub const DEQUEUE_ROW_BYTES: u64 = 8 + 4 + 4;
/// The smallest `record.pcap_snap_bytes`: an IPv4 header and a TCP
/// header with its longest options (20 + 60 bytes).
pub const MIN_PCAP_SNAP_BYTES: u64 = 80;
pub const DROP_ROW_BYTES: u64 = 8 + 4 + 4 + 16;

/// Packet rates (a software switch's pipeline, a port's service rate), in
/// packets per second: one a second at least (slower serves nothing within a
/// run) and 10^12 at most (a packet a picosecond, the clock's resolution).
pub const MIN_PPS: f64 = 1.0;
pub const MAX_PPS: f64 = 1e12;

fn fail(field: impl Into<String>, msg: impl Into<String>) -> Result<(), ConfigError> {
    Err(ConfigError::new(field, msg))
}

/// Bytes as a short human size, for messages.
pub fn fmt_bytes(b: u128) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

/// A link's reordering: probabilities in [0, 1), and a positive extra delay
/// when either is positive.
fn check_reorder(l: &LinkConfig, f: &dyn Fn(&str) -> String) -> Result<(), ConfigError> {
    float_in(l.reorder_ab, (0.0, false), (1.0, true), || f("reorder_ab"))?;
    float_in(l.reorder_ba, (0.0, false), (1.0, true), || f("reorder_ba"))?;
    time_in(l.reorder_delay_ps, 0, MAX_LINK_DELAY_PS, || {
        f("reorder_delay_ps")
    })?;
    if (l.reorder_ab > 0.0 || l.reorder_ba > 0.0) && l.reorder_delay_ps == 0 {
        return fail(
            f("reorder_delay_ps"),
            "reordering needs a positive extra delay",
        );
    }
    Ok(())
}

/// A netem stage (`field` names it): loss in [0, 1), a delay like a link's,
/// a positive limit, an skb size up to BIG TCP's 512 KB.
fn check_netem(n: &NetemConfig, field: &str) -> Result<(), ConfigError> {
    float_in(n.loss, (0.0, false), (1.0, true), || {
        format!("{field}.loss")
    })?;
    time_in(n.delay_ps, 0, MAX_LINK_DELAY_PS, || {
        format!("{field}.delay_ps")
    })?;
    if n.limit_pkts == Some(0) {
        return fail(
            format!("{field}.limit_pkts"),
            "the netem limit must be positive",
        );
    }
    // Linux's gso_max_size: 64 KB, up to 512 KB with BIG TCP.
    int_in(
        n.gso_max_bytes as u64,
        1,
        512 * 1024,
        || format!("{field}.gso_max_bytes"),
        " bytes",
    )?;
    Ok(())
}

/// Checks every field's range, the horizon and the recording estimate.
pub fn check(cfg: &RunConfig) -> Result<(), ConfigError> {
    time_in(cfg.duration_ps, 1, u64::MAX, || "duration_ps".into())?;
    for (i, l) in cfg.links.iter().enumerate() {
        let f = |name: &str| format!("links[{i}].{name}");
        int_in(l.rate_bps, 1, MAX_RATE_BPS, || f("rate_bps"), " bit/s")?;
        time_in(l.delay_ps, 0, MAX_LINK_DELAY_PS, || f("delay_ps"))?;
        time_in(l.jitter_ps, 0, MAX_LINK_DELAY_PS, || f("jitter_ps"))?;
        float_in(l.loss_ab, (0.0, false), (1.0, true), || f("loss_ab"))?;
        float_in(l.loss_ba, (0.0, false), (1.0, true), || f("loss_ba"))?;
        check_reorder(l, &f)?;
        for (n, name) in [(&l.netem_ab, "netem_ab"), (&l.netem_ba, "netem_ba")] {
            if let Some(n) = n {
                check_netem(n, &f(name))?;
            }
        }
        for (q, name) in [(&l.queue_ab, "queue_ab"), (&l.queue_ba, "queue_ba")] {
            if let Some(q) = q {
                check_queue(q, &f(name))?;
            }
        }
    }
    for (i, n) in cfg.nodes.iter().enumerate() {
        if let Some(pc) = &n.pipeline {
            let f = || format!("nodes[{i}].pipeline.capacity_pps");
            float_in(pc.capacity_pps, (MIN_PPS, false), (MAX_PPS, false), f)?;
            if pc.blocking && pc.buffer_pkts == 0 {
                return fail(
                    format!("nodes[{i}].pipeline.buffer_pkts"),
                    "a blocking input buffer needs at least 1 place (0 would stop every link into the switch)",
                );
            }
        }
    }
    for (i, fc) in cfg.flows.iter().enumerate() {
        check_flow(fc, &format!("flows[{i}]"))?;
    }
    for (i, w) in cfg.workloads.iter().enumerate() {
        check_workload(w, &format!("workloads[{i}]"))?;
    }
    check_record(cfg)?;
    check_horizon(cfg)?;
    check_record_estimate(cfg)
}

fn check_queue(q: &QueueConfig, f: &str) -> Result<(), ConfigError> {
    if let Some(p) = q.limit_pkts {
        int_in(p, 1, u32::MAX, || format!("{f}.limit_pkts"), " packets")?;
    }
    if let Some(b) = q.limit_bytes {
        int_in(b, 1, u64::MAX, || format!("{f}.limit_bytes"), " bytes")?;
    }
    if let Some(pps) = q.service_pps {
        float_in(pps, (MIN_PPS, false), (MAX_PPS, false), || {
            format!("{f}.service_pps")
        })?;
    }
    q.aqm
        .check()
        .map_err(|e| e.at(&format!("{f}.aqm"), &format!("{f}.aqm")))?;
    check_port_shape(q, f)?;
    if let Some(fb) = &q.feedback {
        let at = format!("{f}.feedback");
        fb.check().map_err(|e| e.at(&at, &at))?;
    }
    if let Some(c) = &q.classifier {
        let at = format!("{f}.classifier");
        c.check().map_err(|e| e.at(&at, &at))?;
    }
    if let Some(s) = &q.scheduler {
        let at = format!("{f}.scheduler");
        s.check().map_err(|e| e.at(&at, &at))?;
    }
    if let Some(lq) = &q.long_queue {
        check_queue(lq, &format!("{f}.long_queue"))?;
    }
    Ok(())
}

/// A port's queues: a second (long-flow) queue and a scheduler only with a
/// classifier, no whole discipline as a class, no nesting; packet return
/// and the service rate on the first queue only.
fn check_port_shape(q: &QueueConfig, f: &str) -> Result<(), ConfigError> {
    const WHOLE: &str =
        "CoDel, FQ-CoDel, PIE and CAKE are whole disciplines, not a class of a two-class \
                         port (which takes drop-tail, RED, step or hysteresis queues)";
    if q.classifier.is_none() {
        if q.long_queue.is_some() {
            return fail(
                format!("{f}.long_queue"),
                "a second (long-flow) queue needs a classifier on this port",
            );
        }
        if q.scheduler.is_some() {
            return fail(
                format!("{f}.scheduler"),
                "a scheduler needs two queues: give this port a classifier",
            );
        }
    } else {
        if q.aqm.is_own_discipline() {
            return fail(format!("{f}.aqm"), WHOLE);
        }
        if let Some(lq) = &q.long_queue {
            if lq.aqm.is_own_discipline() {
                return fail(format!("{f}.long_queue.aqm"), WHOLE);
            }
            if lq.classifier.is_some() || lq.scheduler.is_some() || lq.long_queue.is_some() {
                return fail(
                    format!("{f}.long_queue.classifier"),
                    "two-class ports do not nest: the long-flow queue is one queue",
                );
            }
        }
    }
    if let Some(lq) = &q.long_queue {
        for (unset, name) in [
            (lq.feedback.is_none(), "feedback"),
            (lq.service_pps.is_none(), "service_pps"),
        ] {
            if !unset {
                return fail(
                    format!("{f}.long_queue.{name}"),
                    "packet return and the service rate belong to the port: set them on its first queue",
                );
            }
        }
    }
    Ok(())
}

fn check_workload(w: &WorkloadConfig, f: &str) -> Result<(), ConfigError> {
    match &w.sizes {
        SizesConfig::Files { bytes } => {
            if bytes.is_empty() {
                return fail(format!("{f}.sizes.bytes"), "the file base is empty");
            }
            for (j, b) in bytes.iter().enumerate() {
                int_in(
                    *b,
                    1,
                    MAX_FLOW_BYTES,
                    || format!("{f}.sizes.bytes[{j}]"),
                    " bytes",
                )?;
            }
        }
        SizesConfig::Cdf { points } => {
            for (j, [x, p]) in points.iter().enumerate() {
                let max = MAX_FLOW_BYTES as f64;
                float_in(*x, (0.0, false), (max, false), || {
                    format!("{f}.sizes.points[{j}]")
                })?;
                float_in(*p, (0.0, false), (1.0, false), || {
                    format!("{f}.sizes.points[{j}]")
                })?;
            }
        }
    }
    match w.arrivals {
        ArrivalsConfig::ClosedLoop { concurrency } => {
            int_in(
                concurrency,
                1,
                MAX_CONCURRENCY,
                || format!("{f}.arrivals.concurrency"),
                " tasks",
            )?;
        }
        ArrivalsConfig::Poisson { rate_per_s } => {
            float_in(
                rate_per_s,
                (0.0, true),
                (MAX_ARRIVAL_RATE_PER_S, false),
                || format!("{f}.arrivals.rate_per_s"),
            )?;
        }
        ArrivalsConfig::AllAtOnce => {
            if matches!(w.sizes, SizesConfig::Cdf { .. }) && w.max_tasks.is_none() {
                return fail(
                    format!("{f}.max_tasks"),
                    "starting tasks all at once from a CDF needs their number (max_tasks)",
                );
            }
        }
    }
    if w.stop_ps.is_some_and(|s| s <= w.start_ps) {
        return fail(
            format!("{f}.stop_ps"),
            "a workload must stop after it starts",
        );
    }
    if let Some(c) = &w.control {
        for (v, key) in [
            (c.banner_bytes, "banner_bytes"),
            (c.request_bytes, "request_bytes"),
            (c.response_bytes, "response_bytes"),
        ] {
            if v == 0 {
                return fail(
                    format!("{f}.control.{key}"),
                    "a message needs at least one byte",
                );
            }
        }
    }
    if let Some(n) = w.max_tasks {
        int_in(n, 1, MAX_TASKS, || format!("{f}.max_tasks"), " tasks")?;
    }
    check_tcp(&w.tcp, &format!("{f}.tcp"))?;
    check_cc(&w.cc, &format!("{f}.cc"))?;
    crate::cc::check_l4s_ecn(&w.cc, w.tcp.ecn, &format!("{f}.tcp"))
}

fn check_flow(fc: &FlowConfig, f: &str) -> Result<(), ConfigError> {
    let (FlowConfig::Tcp {
        start_ps, stop_ps, ..
    }
    | FlowConfig::Udp {
        start_ps, stop_ps, ..
    }) = fc;
    if stop_ps.is_some_and(|t| t <= *start_ps) {
        return fail(format!("{f}.stop_ps"), "a flow must stop after it starts");
    }
    match fc {
        FlowConfig::Tcp { bytes, cc, tcp, .. } => {
            if let Some(b) = bytes {
                int_in(*b, 1, MAX_FLOW_BYTES, || format!("{f}.bytes"), " bytes")?;
            }
            check_tcp(tcp, &format!("{f}.tcp"))?;
            check_cc(cc, &format!("{f}.cc"))?;
            crate::cc::check_l4s_ecn(cc, tcp.ecn, &format!("{f}.tcp"))
        }
        FlowConfig::Udp {
            rate_bps,
            payload_bytes,
            ..
        } => {
            int_in(
                *rate_bps,
                1,
                MAX_RATE_BPS,
                || format!("{f}.rate_bps"),
                " bit/s",
            )?;
            int_in(
                *payload_bytes,
                1,
                MAX_UDP_PAYLOAD_BYTES,
                || format!("{f}.payload_bytes"),
                " bytes",
            )
        }
    }
}

fn check_tcp(t: &TcpConfig, f: &str) -> Result<(), ConfigError> {
    let ff = |n: &str| format!("{f}.{n}");
    int_in(
        t.mss_bytes,
        MIN_MSS_BYTES,
        MAX_MSS_BYTES,
        || ff("mss_bytes"),
        " bytes",
    )?;
    int_in(
        t.header_bytes,
        0,
        MAX_HEADER_BYTES,
        || ff("header_bytes"),
        " bytes",
    )?;
    int_in(
        t.init_cwnd_pkts,
        1,
        MAX_INIT_CWND_PKTS,
        || ff("init_cwnd_pkts"),
        " packets",
    )?;
    int_in(
        t.rwnd_bytes,
        t.mss_bytes as u64,
        MAX_RWND_BYTES,
        || ff("rwnd_bytes"),
        " bytes (one MSS at least)",
    )?;
    if t.sndbuf_bytes != 0 {
        int_in(
            t.sndbuf_bytes,
            t.mss_bytes as u64,
            MAX_RWND_BYTES,
            || ff("sndbuf_bytes"),
            " bytes (0: none; else one MSS at least)",
        )?;
    }
    time_in(t.delack_timeout_ps, MIN_DELACK_PS, MAX_DELACK_PS, || {
        ff("delack_timeout_ps")
    })?;
    time_in(t.min_rto_ps, MIN_RTO_PS, MAX_RTO_PS, || ff("min_rto_ps"))?;
    time_in(t.max_rto_ps, MIN_RTO_PS, MAX_RTO_PS, || ff("max_rto_ps"))?;
    time_in(t.init_rto_ps, MIN_RTO_PS, MAX_RTO_PS, || ff("init_rto_ps"))?;
    if t.max_rto_ps < t.min_rto_ps {
        return fail(
            ff("max_rto_ps"),
            format!(
                "must be at least min_rto ({} < {})",
                fmt_ps(t.max_rto_ps),
                fmt_ps(t.min_rto_ps)
            ),
        );
    }
    int_in(t.dupthresh, 1, MAX_DUPTHRESH, || ff("dupthresh"), "")?;
    int_in(
        t.max_reordering,
        1,
        MAX_DUPTHRESH,
        || ff("max_reordering"),
        "",
    )?;
    int_in(t.tsq_bytes, 0, MAX_TSQ_BYTES, || ff("tsq_bytes"), " bytes")?;
    if t.max_rate_bps != 0 {
        int_in(
            t.max_rate_bps,
            1,
            MAX_RATE_BPS,
            || ff("max_rate_bps"),
            " bit/s (0: no cap)",
        )?;
    }
    if t.gso_max_bytes != 0 {
        int_in(
            t.gso_max_bytes,
            t.mss_bytes,
            MAX_GSO_BYTES,
            || ff("gso_max_bytes"),
            " bytes (0: off; else one MSS at least)",
        )?;
    }
    Ok(())
}

fn check_cc(cc: &CcConfig, f: &str) -> Result<(), ConfigError> {
    crate::cc::validate(cc, f)
}

fn check_record(cfg: &RunConfig) -> Result<(), ConfigError> {
    let r = &cfg.record;
    if r.flow_sample_ps != 0 {
        time_in(r.flow_sample_ps, MIN_SAMPLE_PS, u64::MAX, || {
            "record.flow_sample_ps".into()
        })?;
    }
    int_in(
        r.max_bytes,
        MIN_RECORD_MAX_BYTES,
        MAX_RECORD_MAX_BYTES,
        || "record.max_bytes".into(),
        " bytes",
    )?;
    int_in(
        r.pcap_snap_bytes as u64,
        MIN_PCAP_SNAP_BYTES,
        65_535,
        || "record.pcap_snap_bytes".into(),
        " bytes",
    )?;
    if r.tcp_vars && r.flow_sample_ps == 0 && !r.cwnd_every_ack {
        return fail(
            "record.tcp_vars",
            "traces at each flow sample or ACK: set record.flow_sample_ps or record.cwnd_every_ack too",
        );
    }
    for (i, q) in r.queues.iter().enumerate() {
        if q.sample_ps != 0 {
            time_in(q.sample_ps, MIN_SAMPLE_PS, u64::MAX, || {
                format!("record.queues[{i}].sample_ps")
            })?;
        }
        if let Some(to) = q.to_ps {
            if to <= q.from_ps {
                return fail(
                    format!("record.queues[{i}].to_ps"),
                    format!(
                        "must be after from ({} <= {})",
                        fmt_ps(to),
                        fmt_ps(q.from_ps)
                    ),
                );
            }
        }
    }
    Ok(())
}

/// The largest packet a flow of this configuration can put on a wire.
fn largest_packet_bytes(cfg: &RunConfig) -> u64 {
    let mut m = 64u64;
    for fc in &cfg.flows {
        m = m.max(match fc {
            FlowConfig::Tcp { tcp, .. } => tcp.mss_bytes as u64 + tcp.header_bytes as u64,
            FlowConfig::Udp { payload_bytes, .. } => *payload_bytes as u64 + 28,
        });
    }
    for w in &cfg.workloads {
        m = m.max(w.tcp.mss_bytes as u64 + w.tcp.header_bytes as u64);
    }
    m
}

/// The longest delay anything in this run can schedule past `now`, and the
/// field it comes from.
pub fn longest_delay(cfg: &RunConfig) -> (u128, String) {
    let mut best: (u128, String) = (0, "duration_ps".into());
    let mut see = |d: u128, field: String| {
        if d > best.0 {
            best = (d, field);
        }
    };
    let pkt = largest_packet_bytes(cfg);
    for (i, l) in cfg.links.iter().enumerate() {
        let ser = Dur::serialization(pkt, l.rate_bps.max(1)).ps() as u128;
        let netem = [&l.netem_ab, &l.netem_ba]
            .iter()
            .filter_map(|n| n.as_ref().map(|n| n.delay_ps as u128))
            .max()
            .unwrap_or(0);
        see(
            l.delay_ps as u128 + l.jitter_ps as u128 + l.reorder_delay_ps as u128 + netem + ser,
            format!("links[{i}].delay_ps"),
        );
    }
    for (i, fc) in cfg.flows.iter().enumerate() {
        match fc {
            FlowConfig::Tcp { tcp, .. } => {
                let rto = tcp.max_rto_ps.max(tcp.init_rto_ps) as u128;
                see(rto, format!("flows[{i}].tcp.max_rto_ps"));
                see(
                    tcp.delack_timeout_ps as u128,
                    format!("flows[{i}].tcp.delack_timeout_ps"),
                );
            }
            FlowConfig::Udp {
                rate_bps,
                payload_bytes,
                ..
            } => {
                let gap =
                    *payload_bytes as u128 * 8 * PS_PER_S as u128 / (*rate_bps).max(1) as u128;
                see(gap, format!("flows[{i}].rate_bps"));
            }
        }
    }
    for (i, w) in cfg.workloads.iter().enumerate() {
        let rto = w.tcp.max_rto_ps.max(w.tcp.init_rto_ps) as u128;
        see(rto, format!("workloads[{i}].tcp.max_rto_ps"));
        see(
            w.tcp.delack_timeout_ps as u128,
            format!("workloads[{i}].tcp.delack_timeout_ps"),
        );
    }
    see(
        cfg.record.flow_sample_ps as u128,
        "record.flow_sample_ps".into(),
    );
    for (i, q) in cfg.record.queues.iter().enumerate() {
        see(q.sample_ps as u128, format!("record.queues[{i}].sample_ps"));
    }
    best
}

/// The run's end plus the longest schedulable delay must fit in the clock.
fn check_horizon(cfg: &RunConfig) -> Result<(), ConfigError> {
    let (delay, from) = longest_delay(cfg);
    let horizon = cfg.duration_ps as u128 + delay;
    if horizon > u64::MAX as u128 {
        return fail(
            "duration_ps",
            format!(
                "the run's horizon (duration {} + {} from {from}) exceeds the simulated clock's range \
                 ({}, about 213 days); shorten the run",
                fmt_ps(cfg.duration_ps),
                fmt_ps(delay.min(u64::MAX as u128) as u64),
                fmt_ps(u64::MAX)
            ),
        );
    }
    Ok(())
}

/// Rows a periodic recorder writes over `[from, to)` with this period.
fn periodic_rows(from: u64, to: u64, period: u64) -> u128 {
    if period == 0 || to <= from {
        return 0;
    }
    (to - from) as u128 / period as u128 + 1
}

/// Bytes the periodic recorders will hold, and the largest contributor.
pub fn periodic_record_bytes(cfg: &RunConfig) -> (u128, String) {
    let r = &cfg.record;
    let end = cfg.duration_ps;
    let mut total: u128 = 0;
    let mut top: (u128, String) = (0, String::new());
    let mut add = |b: u128, field: String| {
        total = total.saturating_add(b);
        if b > top.0 {
            top = (b, field);
        }
    };
    if r.flow_sample_ps > 0 {
        // Per TCP flow: one row and its control's traced variables.
        let mut per_tick: u128 = 0;
        for fc in &cfg.flows {
            per_tick += FLOW_ROW_BYTES as u128;
            if let FlowConfig::Tcp { cc, .. } = fc {
                per_tick += crate::cc::traced_var_count(cc) as u128 * VAR_ROW_BYTES as u128;
                if r.tcp_vars {
                    per_tick +=
                        crate::tcp::sender::Sender::TRACED_VARS as u128 * VAR_ROW_BYTES as u128;
                }
            }
        }
        let rows = periodic_rows(0, end, r.flow_sample_ps);
        add(
            rows.saturating_mul(per_tick),
            "record.flow_sample_ps".into(),
        );
    }
    for (i, q) in r.queues.iter().enumerate() {
        let to = q.to_ps.unwrap_or(u64::MAX).min(end);
        let rows = periodic_rows(q.from_ps, to, q.sample_ps);
        add(
            rows.saturating_mul(QUEUE_ROW_BYTES as u128),
            format!("record.queues[{i}].sample_ps"),
        );
    }
    (total, top.1)
}

fn check_record_estimate(cfg: &RunConfig) -> Result<(), ConfigError> {
    let (bytes, field) = periodic_record_bytes(cfg);
    let budget = cfg.record.max_bytes as u128;
    if bytes > budget {
        return fail(
            field,
            format!(
                "the periodic recorders would hold about {} over the run, more than record.max_bytes = {}; \
                 sample less often, record a shorter window, or raise record.max_bytes",
                fmt_bytes(bytes),
                fmt_bytes(budget)
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NodeKind;
    use crate::sim::PS_PER_MS;

    /// `c` passes the checks when `ok`; else the error names `field`.
    #[track_caller]
    fn assert_checked(c: &RunConfig, ok: bool, field: &str, case: &str) {
        let r = check(c);
        assert_eq!(r.is_ok(), ok, "{case}");
        if !ok {
            assert_eq!(r.unwrap_err().field, field);
        }
    }

    fn base() -> RunConfig {
        RunConfig::from_json(
            r#"{"seed": 1, "duration_ps": 1000000000000,
                "nodes": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
                "links": [{"a": "a", "b": "b", "rate_bps": 1000000000, "delay_ps": 1000000000}],
                "flows": [{"kind": "tcp", "name": "f", "src": "a", "dst": "b"}]}"#,
        )
        .unwrap()
    }

    fn tcp(c: &mut RunConfig) -> &mut TcpConfig {
        match &mut c.flows[0] {
            FlowConfig::Tcp { tcp, .. } => tcp,
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_default_configuration_passes() {
        assert_eq!(check(&base()), Ok(()));
    }

    #[test]
    fn zero_and_inverted_rto_bounds_are_refused() {
        for (set, field) in [
            (0usize, "flows[0].tcp.init_rto_ps"),
            (1, "flows[0].tcp.min_rto_ps"),
            (2, "flows[0].tcp.max_rto_ps"),
        ] {
            let mut c = base();
            let t = tcp(&mut c);
            match set {
                0 => t.init_rto_ps = 0,
                1 => t.min_rto_ps = 0,
                _ => t.max_rto_ps = 0,
            }
            assert_eq!(check(&c).unwrap_err().field, field);
        }
        let mut c = base();
        tcp(&mut c).max_rto_ps = 100 * PS_PER_MS; // below the 200 ms minimum
        let e = check(&c).unwrap_err();
        assert_eq!(e.field, "flows[0].tcp.max_rto_ps");
        assert!(e.message.contains("at least min_rto"), "{}", e.message);
    }

    #[test]
    fn non_finite_and_absurd_floats_are_refused() {
        let mut c = base();
        c.links[0].queue_ab = Some(QueueConfig {
            aqm: crate::config::AqmConfig::Red(crate::config::RedConfig {
                min_th: 1000.0,
                max_th: 1e300,
                max_p: 0.1,
                wlog: 9,
                ecn: false,
                harddrop: false,
                gentle: false,
                bytes_mode: true,
                avpkt_bytes: 1000,
                bandwidth_bps: 0,
            }),
            ..QueueConfig::default()
        });
        assert_eq!(check(&c).unwrap_err().field, "links[0].queue_ab.aqm.max_th");
        let mut c = base();
        c.links[0].loss_ab = f64::NAN;
        assert_eq!(check(&c).unwrap_err().field, "links[0].loss_ab");
    }

    #[test]
    fn the_horizon_must_fit_the_clock() {
        let mut c = base();
        c.duration_ps = u64::MAX - 1000;
        let e = check(&c).unwrap_err();
        assert_eq!(e.field, "duration_ps");
        assert!(e.message.contains("horizon"), "{}", e.message);
        // The longest delay is named: here the link (1 ms + 12 µs).
        assert!(
            e.message.contains("links[0].delay_ps") || e.message.contains("max_rto"),
            "{}",
            e.message
        );
    }

    #[test]
    fn periodic_recorders_are_estimated_before_the_run() {
        let mut c = base();
        c.record.flow_sample_ps = MIN_SAMPLE_PS; // 1 ns over 1 s: 1e9 rows
        let e = check(&c).unwrap_err();
        assert_eq!(e.field, "record.flow_sample_ps");
        assert!(e.message.contains("GiB"), "{}", e.message);
        // Rows of 44 B plus Cubic's traced variables, for 1e9 + 1 ticks.
        let (bytes, _) = periodic_record_bytes(&c);
        let per = FLOW_ROW_BYTES as u128
            + crate::cc::traced_var_count(&CcConfig::default()) as u128 * VAR_ROW_BYTES as u128;
        assert_eq!(bytes, (1_000_000_000 + 1) * per);
        c.record.max_bytes = MAX_RECORD_MAX_BYTES;
        assert_eq!(check(&c), Ok(()));
    }

    #[test]
    fn tcp_vars_need_a_sampler_and_count_in_the_estimate() {
        let mut c = base();
        c.record.tcp_vars = true;
        let e = check(&c).unwrap_err();
        assert_eq!(e.field, "record.tcp_vars");
        c.record.flow_sample_ps = 1_000_000_000; // 1 ms over 1 s
        assert_eq!(check(&c), Ok(()));
        let (with, _) = periodic_record_bytes(&c);
        c.record.tcp_vars = false;
        let (without, _) = periodic_record_bytes(&c);
        let tcp_flows = c
            .flows
            .iter()
            .filter(|f| matches!(f, FlowConfig::Tcp { .. }))
            .count() as u128;
        assert!(tcp_flows > 0);
        assert_eq!(
            with - without,
            1001 * tcp_flows
                * crate::tcp::sender::Sender::TRACED_VARS as u128
                * VAR_ROW_BYTES as u128
        );
    }

    #[test]
    fn a_blocking_input_buffer_needs_a_place() {
        for (buffer_pkts, blocking, ok) in [(0, false, true), (0, true, false), (1, true, true)] {
            let mut c = base();
            c.nodes[0].kind = NodeKind::Switch;
            c.nodes[0].pipeline = Some(crate::config::PipelineConfig {
                capacity_pps: 1000.0,
                buffer_pkts,
                blocking,
            });
            assert_checked(
                &c,
                ok,
                "nodes[0].pipeline.buffer_pkts",
                &format!("buffer {buffer_pkts}, blocking {blocking}"),
            );
        }
    }

    #[test]
    fn packet_rates_have_a_ceiling_and_a_floor() {
        for (pps, ok) in [
            (0.0, false),
            (0.5, false),
            (1.0, true),
            (1e12, true),
            (2e12, false),
        ] {
            let mut c = base();
            c.nodes[0].kind = NodeKind::Switch;
            c.nodes[0].pipeline = Some(crate::config::PipelineConfig {
                capacity_pps: pps,
                buffer_pkts: 8,
                blocking: false,
            });
            assert_checked(
                &c,
                ok,
                "nodes[0].pipeline.capacity_pps",
                &format!("capacity {pps}"),
            );
            let mut c = base();
            c.links[0].queue_ab = Some(QueueConfig {
                service_pps: Some(pps),
                ..Default::default()
            });
            assert_checked(
                &c,
                ok,
                "links[0].queue_ab.service_pps",
                &format!("service {pps}"),
            );
        }
    }

    #[test]
    fn rates_have_a_ceiling_and_a_floor() {
        let mut c = base();
        c.links[0].rate_bps = MAX_RATE_BPS + 1;
        assert_eq!(check(&c).unwrap_err().field, "links[0].rate_bps");
        let mut c = base();
        let mut second = c.links[0].clone();
        second.rate_bps = 0;
        c.links.push(second);
        assert_eq!(check(&c).unwrap_err().field, "links[1].rate_bps");
    }
}
