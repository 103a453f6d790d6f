//! CAKE, Common Applications Kept Enhanced, with Linux `sch_cake`
//! semantics.
//!
//! Høiland-Jørgensen, Täht and Morton, "Piece of CAKE: A Comprehensive
//! Queue Management Solution for Home Gateways" (IEEE LANMAN 2018), as
//! Linux 6.12 implements it (`net/sched/sch_cake.c`). One discipline in
//! four parts:
//!
//! - **the shaper** ([`shaper`]): `rate_bps` (0: unlimited, Linux's
//!   default), deficit-based in time; the port applies it (see `shaper`);
//! - **flow queueing**: 1024 queues, a packet's queue found by
//!   8-way set-associative hashing ([`hash`]): a flow keeps its queue while
//!   it has one, and a new flow takes a free queue of its set of 8 before
//!   it collides with another;
//! - **host isolation** (`flow_mode`, default `triple_isolate`): a queue's
//!   DRR quantum is divided by the number of bulk flows of its busiest host
//!   (source or destination, as the mode says), so that hosts get equal
//!   shares whatever their number of flows ([`hash`] states our mapping
//!   of hosts and flows);
//! - **DRR++**: deficit round robin over a *new* (sparse) list served
//!   before the *old* (bulk) one, as FQ-CoDel, plus a *decaying* list
//!   where emptied queues stay until their AQM state has decayed; a queue
//!   becomes bulk once it has spent a quantum;
//! - **COBALT** ([`cobalt`]): CoDel (target 5 ms, interval 100 ms, ECN
//!   marking of ECT packets; CAKE has no ECN switch) with BLUE on overflow;
//! - **overflow**: when the buffer is over its limit the arriving packet is
//!   still queued, and packets are dropped one at a time from the *head*
//!   of the queue with the largest backlog (Linux keeps a max-heap; we
//!   scan), each raising that queue's BLUE probability;
//! - **the ACK filter** ([`ack_filter`], off by default).
//!
//! Diffserv tins: only `besteffort` is modelled, as our packets carry no
//! DSCP. Linux's default `diffserv3` puts unmarked packets (DSCP 0) in its
//! best-effort tin at the full rate, so for our traffic it behaves as
//! `besteffort`. Not modelled either: ingress mode, `nat`, `wash`,
//! `split_gso` (we have no GSO), ATM/PTM framing, autorate.
//!
//! Counting: COBALT's drops (CoDel's and BLUE's) and the ACK filter's are
//! counted as `codel` (`DropReason::Codel`), overflow drops as `overflow`.
//! The buffer limit counts packet sizes, where Linux counts buffer
//! truesize: the queue's `limit_bytes` is Linux's `memlimit`; without it
//! the limit is Linux's: four intervals at the shaped rate, at least 4 MiB
//! (unlimited when unshaped), capped at `limit_pkts` (Linux `limit`,
//! default 10 240) MTUs.

pub mod ack_filter;
pub mod cobalt;
mod hash;
pub mod shaper;

pub use ack_filter::AckFilter;
pub use cobalt::{CobaltParams, CobaltVars};
pub use shaper::Shaper;

use super::codel::{AQM_TIME, MTU_BYTES};
use super::flow_queues::{fattest, flow_queue_accessors};
use super::Registration;
use super::{Dequeued, DropReason, QueueCtx, QueueDisc, Verdict};
use crate::packet::PktId;
use crate::param::{self, Param, ParamError, Range, Ty};
use crate::sim::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Which hosts and flows CAKE tells apart (Linux's `flowblind` …
/// `triple-isolate`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum FlowMode {
    /// One queue for everything.
    Flowblind,
    /// One queue per source host.
    Srchost,
    /// One queue per destination host.
    Dsthost,
    /// One queue per source-destination host pair.
    Hosts,
    /// One queue per flow, no host fairness.
    Flows,
    /// Flows, with fairness between source hosts.
    DualSrchost,
    /// Flows, with fairness between destination hosts.
    DualDsthost,
    /// Flows, with fairness between source hosts and between destination
    /// hosts at once (Linux's default).
    #[default]
    TripleIsolate,
}

impl FlowMode {
    /// Linux's `CAKE_FLOW_*` bits: source host (1), destination host (2),
    /// flows (4).
    fn bits(self) -> u8 {
        match self {
            FlowMode::Flowblind => 0,
            FlowMode::Srchost => 1,
            FlowMode::Dsthost => 2,
            FlowMode::Hosts => 3,
            FlowMode::Flows => 4,
            FlowMode::DualSrchost => 5,
            FlowMode::DualDsthost => 6,
            FlowMode::TripleIsolate => 7,
        }
    }
    pub(crate) fn hashes_flows(self) -> bool {
        self.bits() & 4 != 0
    }
    /// Source hosts share (Linux `cake_dsrc`: dual-srchost, triple).
    pub(crate) fn dual_src(self) -> bool {
        self.bits() & 5 == 5
    }
    /// Destination hosts share (Linux `cake_ddst`: dual-dsthost, triple).
    pub(crate) fn dual_dst(self) -> bool {
        self.bits() & 6 == 6
    }
    pub(crate) fn src_ip(self) -> bool {
        self.bits() & 1 != 0
    }
    pub(crate) fn dst_ip(self) -> bool {
        self.bits() & 2 != 0
    }
}

/// CAKE as a configuration names it (`{"kind": "cake", ...}`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CakeConfig {
    /// Shaped rate, bits per second; 0: unlimited (Linux's default).
    pub rate_bps: u64,
    pub flow_mode: FlowMode,
    pub target_ps: u64,
    /// Linux's `rtt`.
    pub interval_ps: u64,
    pub overhead_bytes: u32,
    pub mpu_bytes: u32,
    pub ack_filter: AckFilter,
}

impl Default for CakeConfig {
    fn default() -> Self {
        CakeConfig {
            rate_bps: 0,
            flow_mode: FlowMode::TripleIsolate,
            target_ps: DEFAULT_TARGET.ps(),
            interval_ps: DEFAULT_INTERVAL.ps(),
            overhead_bytes: 0,
            mpu_bytes: 0,
            ack_filter: AckFilter::None,
        }
    }
}

impl CakeConfig {
    /// The port's shaper, if the rate is limited.
    pub fn shaper(&self) -> Option<Shaper> {
        (self.rate_bps > 0).then_some(Shaper {
            rate_bps: self.rate_bps,
            overhead_bytes: self.overhead_bytes,
            mpu_bytes: self.mpu_bytes,
        })
    }
}

/// Linux `cake_init`: target 5 ms, interval (`rtt`) 100 ms.
pub const DEFAULT_TARGET: Dur = Dur::from_ms(5);
pub const DEFAULT_INTERVAL: Dur = Dur::from_ms(100);
/// Linux `CAKE_QUEUES` and `CAKE_SET_WAYS`.
pub const QUEUES: usize = 1024;
pub const SET_WAYS: usize = 8;
/// Linux's default `limit`, packets (times the MTU: a byte cap).
pub const DEFAULT_LIMIT_PKTS: u32 = 10_240;
/// Linux's least automatic buffer, 4 MiB.
pub const MIN_AUTO_BUFFER_BYTES: u64 = 4 << 20;
/// The fastest shaper accepted: the fastest link, 10 Tb/s.
pub use crate::sim::MAX_RATE_BPS;

const FLOW_MODES: Ty = Ty::Choice(&[
    "flowblind",
    "srchost",
    "dsthost",
    "hosts",
    "flows",
    "dual_srchost",
    "dual_dsthost",
    "triple_isolate",
]);

/// CAKE's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::int_in(
        "rate_bps",
        Range::int(0, MAX_RATE_BPS as u128, " b/s"),
        "Shaped rate, bits per second (Linux bandwidth); 0: unlimited.",
    ),
    Param::new(
        "flow_mode",
        FLOW_MODES,
        Range::Any,
        "Host and flow isolation (Linux default triple_isolate).",
    ),
    Param::time_in(
        "target_ps",
        AQM_TIME,
        "COBALT's target sojourn time (Linux 5 ms).",
    ),
    Param::time_in(
        "interval_ps",
        AQM_TIME,
        "COBALT's interval, Linux's rtt (100 ms).",
    ),
    Param::int_in(
        "overhead_bytes",
        Range::int(0, 256, " bytes"),
        "Framing bytes the shaper adds to each packet (Linux overhead; 0).",
    ),
    Param::int_in(
        "mpu_bytes",
        Range::int(0, 256, " bytes"),
        "Least length the shaper charges per packet (Linux mpu; 0).",
    ),
    Param::new(
        "ack_filter",
        Ty::Choice(&["none", "conservative", "aggressive"]),
        Range::Any,
        "Drop redundant queued pure TCP ACKs (Linux ack-filter; off).",
    ),
];

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(c: &CakeConfig) -> Result<(), ParamError> {
    param::check_fields!(
        PARAMS,
        c,
        [rate_bps, target_ps, interval_ps, overhead_bytes, mpu_bytes]
    )
}

/// `aqm = {kind = "cake"}`.
pub const REGISTRATION: Registration = super::registration! {
    name: "cake",
    about: "CAKE (Hoiland-Jorgensen, Taht, Morton, LANMAN 2018; Linux sch_cake): shaper, set-associative flow queues, host isolation, COBALT.",
    params: PARAMS,
    config: CakeConfig,
    check: check,
    variant: super::AqmConfig::Cake,
};

/// What the discipline is built from: the configuration, the port's
/// limits and the hash key.
#[derive(Clone, Debug, PartialEq)]
pub struct CakeParams {
    pub config: CakeConfig,
    /// COBALT's parameters after Linux's adjustment to the shaped rate.
    pub cobalt: CobaltParams,
    /// Linux `flow_quantum`: 1514 bytes, less below 50 Mb/s (rate / 4096
    /// bytes per second, at least 300).
    pub flow_quantum: u32,
    /// The buffer limit, bytes (see the module docs).
    pub buffer_limit: u64,
    /// Perturbation of the flow and host hashes.
    pub hash_key: u64,
}

impl CakeParams {
    /// Linux `cake_reconfigure` and `cake_set_rate` for one tin.
    /// `limit_pkts` and `limit_bytes` are the port queue's limits.
    pub fn new(
        config: CakeConfig,
        limit_pkts: Option<u32>,
        limit_bytes: Option<u64>,
        hash_key: u64,
    ) -> Self {
        let rate_bytes_ps = config.rate_bps / 8;
        let mtu_time = match config.shaper() {
            Some(s) => Dur::serialization(MTU_BYTES as u64, s.rate_bps),
            None => Dur::ZERO,
        };
        let cobalt = CobaltParams::derive(
            Dur::from_ps(config.target_ps),
            Dur::from_ps(config.interval_ps),
            mtu_time,
        );
        let flow_quantum = if config.rate_bps > 0 {
            (rate_bytes_ps >> 12).clamp(300, MTU_BYTES as u64) as u32
        } else {
            MTU_BYTES
        };
        let config_limit = limit_bytes.unwrap_or(0);
        let mut buffer_limit = if config_limit > 0 {
            config_limit
        } else if config.rate_bps > 0 {
            // Four intervals at the shaped rate.
            let t = rate_bytes_ps as u128 * config.interval_ps as u128 * 4
                / crate::sim::PS_PER_S as u128;
            (t.min(u64::MAX as u128) as u64).max(MIN_AUTO_BUFFER_BYTES)
        } else {
            u64::MAX
        };
        let pkts = limit_pkts.unwrap_or(DEFAULT_LIMIT_PKTS) as u64;
        buffer_limit = buffer_limit.min((pkts * MTU_BYTES as u64).max(config_limit));
        CakeParams {
            config,
            cobalt,
            flow_quantum,
            buffer_limit,
            hash_key,
        }
    }
}

/// Where a queue is in DRR++ (Linux `CAKE_SET_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Set {
    /// In no list.
    #[default]
    None,
    /// In the new list (or the old list after its first quantum, while
    /// empty: Linux's `SPARSE_WAIT`, still counted sparse).
    Sparse,
    SparseWait,
    /// In the old list, counted bulk.
    Bulk,
    /// Empty, in the decaying list until its COBALT state is at rest.
    Decaying,
}

#[derive(Debug, Default)]
struct Flow {
    q: VecDeque<(PktId, Time)>,
    backlog: u64,
    deficit: i64,
    cvars: CobaltVars,
    srchost: u16,
    dsthost: u16,
    set: Set,
}

/// Per-host bulk-flow counts and hash tags (Linux `struct cake_host`).
#[derive(Clone, Copy, Debug, Default)]
struct Host {
    srchost_tag: u32,
    dsthost_tag: u32,
    srchost_bulk_flow_count: u16,
    dsthost_bulk_flow_count: u16,
}

/// Counters a test or a report may read (Linux `tc -s qdisc` names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CakeStats {
    /// Packets whose queue was found directly, in its set, new in its set,
    /// or by colliding with another flow (Linux `way_*`).
    pub way_directs: u64,
    pub way_hits: u64,
    pub way_misses: u64,
    pub way_collisions: u64,
    /// Packets dropped from the fattest queue on overflow.
    pub drop_overlimit: u64,
    /// COBALT's drops at dequeue (CoDel's and BLUE's).
    pub cobalt_drops: u64,
    pub ecn_marks: u64,
    pub ack_drops: u64,
}

pub struct Cake {
    p: CakeParams,
    flows: Vec<Flow>,
    tags: Vec<u32>,
    hosts: Vec<Host>,
    new_flows: VecDeque<u16>,
    old_flows: VecDeque<u16>,
    decaying_flows: VecDeque<u16>,
    sparse_flow_count: u32,
    bulk_flow_count: u32,
    decaying_flow_count: u32,
    len: u32,
    bytes: u64,
    drops: VecDeque<(PktId, DropReason)>,
    stats: CakeStats,
}

/// Which of the three lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    New,
    Old,
    Decaying,
}

impl Cake {
    pub fn new(p: CakeParams) -> Self {
        Cake {
            p,
            flows: (0..QUEUES).map(|_| Flow::default()).collect(),
            tags: vec![0; QUEUES],
            hosts: vec![Host::default(); QUEUES],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            decaying_flows: VecDeque::new(),
            sparse_flow_count: 0,
            bulk_flow_count: 0,
            decaying_flow_count: 0,
            len: 0,
            bytes: 0,
            drops: VecDeque::new(),
            stats: CakeStats::default(),
        }
    }

    pub fn params(&self) -> &CakeParams {
        &self.p
    }

    pub fn stats(&self) -> &CakeStats {
        &self.stats
    }

    /// Queues counted sparse and bulk (Linux `sparse_flows`, `bulk_flows`).
    pub fn flow_counts(&self) -> (u32, u32) {
        (self.sparse_flow_count, self.bulk_flow_count)
    }

    /// Packets and bytes held by queue `i`, and its DRR++ set.
    pub fn queue_len(&self, i: usize) -> (u32, u64, Set) {
        let f = &self.flows[i];
        (f.q.len() as u32, f.backlog, f.set)
    }

    fn list(&mut self, l: List) -> &mut VecDeque<u16> {
        match l {
            List::New => &mut self.new_flows,
            List::Old => &mut self.old_flows,
            List::Decaying => &mut self.decaying_flows,
        }
    }

    /// Linux `cake_get_flow_quantum`: the quantum divided by the bulk-flow
    /// count of the queue's busiest host (as the mode counts hosts), with
    /// a random dither of under one byte against round-off drift.
    fn flow_quantum(&self, i: usize, rng: &mut crate::sim::Rng) -> i64 {
        let mode = self.p.config.flow_mode;
        let f = &self.flows[i];
        let mut load: u64 = 1;
        if mode.dual_src() {
            load = load.max(self.hosts[f.srchost as usize].srchost_bulk_flow_count as u64);
        }
        if mode.dual_dst() {
            load = load.max(self.hosts[f.dsthost as usize].dsthost_bulk_flow_count as u64);
        }
        let div = 65_535 / load;
        ((self.p.flow_quantum as u64 * div + rng.below(65_536)) >> 16) as i64
    }

    fn inc_bulk_hosts(&mut self, i: usize) {
        let mode = self.p.config.flow_mode;
        let (s, d) = (
            self.flows[i].srchost as usize,
            self.flows[i].dsthost as usize,
        );
        if mode.dual_src() && (self.hosts[s].srchost_bulk_flow_count as usize) < QUEUES {
            self.hosts[s].srchost_bulk_flow_count += 1;
        }
        if mode.dual_dst() && (self.hosts[d].dsthost_bulk_flow_count as usize) < QUEUES {
            self.hosts[d].dsthost_bulk_flow_count += 1;
        }
    }

    fn dec_bulk_hosts(&mut self, i: usize) {
        let mode = self.p.config.flow_mode;
        let (s, d) = (
            self.flows[i].srchost as usize,
            self.flows[i].dsthost as usize,
        );
        if mode.dual_src() {
            let c = &mut self.hosts[s].srchost_bulk_flow_count;
            *c = c.saturating_sub(1);
        }
        if mode.dual_dst() {
            let c = &mut self.hosts[d].dsthost_bulk_flow_count;
            *c = c.saturating_sub(1);
        }
    }

    /// Linux `cake_drop`: one packet from the head of the queue with the
    /// largest backlog, which BLUE hears of. Returns the packet and its
    /// queue.
    fn drop_from_fattest(&mut self, now: Time, pool: &crate::packet::PacketPool) -> (PktId, usize) {
        let (idx, _) = fattest(self.flows.iter().map(|f| f.backlog));
        let f = &mut self.flows[idx];
        let (pkt, _) =
            f.q.pop_front()
                .expect("an over-limit buffer holds a packet");
        f.cvars.queue_full(&self.p.cobalt, now);
        let size = pool.get(pkt).size_bytes as u64;
        f.backlog -= size;
        self.bytes -= size;
        self.len -= 1;
        self.stats.drop_overlimit += 1;
        (pkt, idx)
    }

    /// Linux `cake_enqueue`'s flowchain step: a queue at rest or decaying
    /// joins the new list with a fresh quantum; one waiting empty in the
    /// bulk rotation becomes bulk.
    fn activate(&mut self, i: usize, rng: &mut crate::sim::Rng) {
        match self.flows[i].set {
            Set::None | Set::Decaying => {
                if self.flows[i].set == Set::Decaying {
                    self.decaying_flow_count -= 1;
                    if let Some(at) = self.decaying_flows.iter().position(|&j| j as usize == i) {
                        self.decaying_flows.remove(at);
                    }
                }
                self.new_flows.push_back(i as u16);
                self.flows[i].set = Set::Sparse;
                self.sparse_flow_count += 1;
                self.flows[i].deficit = self.flow_quantum(i, rng);
            }
            Set::SparseWait => {
                self.flows[i].set = Set::Bulk;
                self.sparse_flow_count -= 1;
                self.bulk_flow_count += 1;
                self.inc_bulk_hosts(i);
            }
            Set::Sparse | Set::Bulk => {}
        }
    }

    /// Linux `cake_dequeue` found queue `i` (the head of `from`) empty:
    /// it goes to the decaying list until COBALT is at rest, else leaves
    /// the lists.
    fn retire(&mut self, i: usize, from: List, now: Time) {
        self.flows[i].cvars.queue_empty(&self.p.cobalt, now);
        self.list(from).pop_front();
        let set = self.flows[i].set;
        match set {
            Set::Bulk => {
                self.bulk_flow_count -= 1;
                self.dec_bulk_hosts(i);
            }
            Set::Sparse | Set::SparseWait => self.sparse_flow_count -= 1,
            Set::Decaying => self.decaying_flow_count -= 1,
            Set::None => {}
        }
        if self.flows[i].cvars.at_rest(now) {
            self.flows[i].set = Set::None;
        } else {
            self.decaying_flows.push_back(i as u16);
            self.decaying_flow_count += 1;
            self.flows[i].set = Set::Decaying;
        }
    }

    /// The list to serve: on a dequeue's first pass a decaying queue (to
    /// age its state), else the new list, then the old, then decaying.
    fn pick(&self, first: bool) -> Option<(List, usize)> {
        let order: [List; 4] = [List::Decaying, List::New, List::Old, List::Decaying];
        let skip = if first { 0 } else { 1 };
        order[skip..].iter().find_map(|&l| {
            let q = match l {
                List::New => &self.new_flows,
                List::Old => &self.old_flows,
                List::Decaying => &self.decaying_flows,
            };
            q.front().map(|&i| (l, i as usize))
        })
    }
}

impl QueueDisc for Cake {
    fn enqueue(&mut self, pkt: PktId, cx: &mut QueueCtx) -> Verdict {
        let p = cx.pool.get(pkt);
        let size = p.size_bytes as u64;
        let i = self.classify(p);
        let f = &mut self.flows[i];
        f.q.push_back((pkt, cx.now));
        f.backlog += size;
        self.len += 1;
        self.bytes += size;
        if let Some(at) = ack_filter::find(&f.q, cx.pool, self.p.config.ack_filter) {
            let (ack, _) = f.q.remove(at).expect("a queued ACK");
            let s = cx.pool.get(ack).size_bytes as u64;
            f.backlog -= s;
            self.len -= 1;
            self.bytes -= s;
            self.stats.ack_drops += 1;
            self.drops.push_back((ack, DropReason::Codel));
        }
        self.activate(i, cx.rng);
        let mut own = false;
        while self.bytes > self.p.buffer_limit {
            let (dropped, _) = self.drop_from_fattest(cx.now, cx.pool);
            if dropped == pkt {
                own = true;
            } else {
                self.drops.push_back((dropped, DropReason::Overflow));
            }
        }
        if own {
            Verdict::Dropped(DropReason::Overflow)
        } else {
            Verdict::Enqueued { marked: false }
        }
    }

    /// Linux `cake_dequeue` for one tin (the shaper's wait is the port's).
    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Dequeued> {
        let mut first = true;
        'begin: loop {
            if self.len == 0 {
                return None;
            }
            loop {
                let (list, i) = self.pick(first)?;
                first = false;
                if self.flows[i].deficit <= 0 {
                    // Spent: to the end of the old list with a new quantum.
                    // A sparse queue becomes bulk (or waits, if empty).
                    if self.flows[i].set == Set::Sparse {
                        if self.flows[i].q.is_empty() {
                            self.flows[i].set = Set::SparseWait;
                        } else {
                            self.sparse_flow_count -= 1;
                            self.bulk_flow_count += 1;
                            self.flows[i].set = Set::Bulk;
                            self.inc_bulk_hosts(i);
                        }
                    }
                    let q = self.flow_quantum(i, cx.rng);
                    self.flows[i].deficit += q;
                    self.list(list).pop_front();
                    self.old_flows.push_back(i as u16);
                    continue;
                }
                // Retrieve a packet through COBALT.
                loop {
                    let f = &mut self.flows[i];
                    let Some((pkt, stamp)) = f.q.pop_front() else {
                        self.retire(i, list, cx.now);
                        continue 'begin;
                    };
                    let size = cx.pool.get(pkt).size_bytes as u64;
                    f.backlog -= size;
                    self.len -= 1;
                    self.bytes -= size;
                    let (drop, marked) = f.cvars.should_drop(&self.p.cobalt, stamp, pkt, cx, 0);
                    // The last packet of a queue is sent, marked or not.
                    if !drop || f.q.is_empty() {
                        let c = &self.p.config;
                        let len = shaper::adjusted_len(size as u32, c.overhead_bytes, c.mpu_bytes);
                        f.deficit -= len as i64;
                        self.stats.ecn_marks += marked as u64;
                        return Some(Dequeued { pkt, marked });
                    }
                    self.stats.cobalt_drops += 1;
                    self.drops.push_back((pkt, DropReason::Codel));
                }
            }
        }
    }

    // len_pkts, len_bytes, peek, for_each_packet, take_drop
    flow_queue_accessors!();
}

#[cfg(test)]
mod tests;
