//! FQ-CoDel, flow queueing with CoDel, with Linux `sch_fq_codel` semantics.
//!
//! Hoeiland-Joergensen, McKenney, Taht, Gettys and Dumazet, RFC 8290, as
//! Linux implements it (`net/sched/sch_fq_codel.c`):
//!
//! - **classification**: a packet's flow is a hash of its addresses, ports
//!   and protocol, perturbed by a key (Linux: a random key drawn at boot),
//!   scaled to one of `flows` queues (1024); distinct flows may share a
//!   queue. Our key is drawn from the run's named random stream
//!   `queue:<node>-><peer>:fq_codel`, so a run is reproducible from its seed;
//! - **scheduling**: deficit round robin with a `quantum` of 1514 bytes over
//!   two lists. A queue that becomes active joins the *new* list with a
//!   fresh quantum; the new list is served before the *old* one. A queue
//!   whose deficit is spent moves to the end of the old list with another
//!   quantum. A new queue found empty moves to the old list (when that is
//!   not empty, so old queues are not starved by a stream of new ones);
//!   an old queue found empty leaves the lists. A sparse flow, sending less
//!   than a quantum per round, therefore always finds its queue new and is
//!   served ahead of the bulk flows: the flow isolation FQ-CoDel is for;
//! - **AQM**: each queue has its own CoDel state ([`super::codel`]); the
//!   "more than one MTU queued" test reads the whole discipline's backlog,
//!   as Linux passes `sch->qstats.backlog`. ECN is on by default;
//! - **overflow**: the arriving packet is always queued; if the discipline
//!   then holds more than `limit` packets (10 240) or bytes, FQ-CoDel finds
//!   the queue with the largest byte backlog and drops packets from its
//!   *head* until half of that backlog is gone, at most 64 at a time
//!   (`drop_batch_size`), and adds them to that queue's CoDel count. Those
//!   drops are counted as `Overflow`.
//!
//! Stated differences from Linux: the byte limit counts packet sizes, where
//! Linux's `memory_limit` (32 MB) counts buffer truesize; no byte limit
//! unless one is configured. The hash is ours (a 64-bit mix), not jhash.

use super::codel::{CodelParams, CodelSource, CodelVars};
use super::codel::{INTERVAL, TARGET};
use super::flow_queues::{fattest, flow_queue_accessors};
use super::Registration;
use super::{Dequeued, DropReason, Limit, QueueCtx, QueueDisc, Verdict};
use crate::packet::{Packet, PacketPool, PktId};
use crate::param::{self, Param, ParamError, Range};
use crate::sim::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// FQ-CoDel as a configuration names it (`{"kind": "fq_codel", ...}`); the
/// queue's limit applies to all flow queues together.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelConfig {
    pub target_ps: u64,
    pub interval_ps: u64,
    /// Linux's FQ-CoDel marks by default.
    pub ecn: bool,
    pub flows: u32,
    pub quantum_bytes: u32,
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        FqCodelConfig {
            target_ps: super::codel::DEFAULT_TARGET.ps(),
            interval_ps: super::codel::DEFAULT_INTERVAL.ps(),
            ecn: true,
            flows: DEFAULT_FLOWS,
            quantum_bytes: DEFAULT_QUANTUM_BYTES,
        }
    }
}

/// FQ-CoDel's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    TARGET,
    INTERVAL,
    Param::flag(
        "ecn",
        "Mark ECN-capable packets instead of dropping them (Linux: on).",
    ),
    Param::int_in(
        "flows",
        Range::int(1, MAX_FLOWS as u128, " queues"),
        "Flow queues (Linux 1024).",
    ),
    Param::int_in(
        "quantum_bytes",
        Range::int(MIN_QUANTUM_BYTES as u128, 1 << 20, " bytes"),
        "DRR quantum, bytes (Linux 1514).",
    ),
];

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(c: &FqCodelConfig) -> Result<(), ParamError> {
    param::check_fields!(PARAMS, c, [target_ps, interval_ps, flows, quantum_bytes])
}

/// `aqm = {kind = "fq_codel"}`.
pub const REGISTRATION: Registration = super::registration! {
    name: "fq_codel",
    about: "FQ-CoDel (RFC 8290; Linux sch_fq_codel): CoDel per flow queue, served by deficit round robin.",
    params: PARAMS,
    config: FqCodelConfig,
    check: check,
    variant: super::AqmConfig::FqCodel,
};

/// Linux `fq_codel_init` defaults.
pub const DEFAULT_FLOWS: u32 = 1024;
pub const DEFAULT_QUANTUM_BYTES: u32 = super::codel::MTU_BYTES;
pub const DEFAULT_LIMIT_PKTS: u32 = 10 * 1024;
pub const DROP_BATCH: u32 = 64;
/// Linux accepts 1 to 65 536 flow queues and a quantum of at least 256 B.
pub const MAX_FLOWS: u32 = 65_536;
pub const MIN_QUANTUM_BYTES: u32 = 256;

#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    pub codel: CodelParams,
    /// Number of flow queues.
    pub flows: u32,
    /// DRR quantum, bytes.
    pub quantum_bytes: u32,
    /// Perturbation of the flow hash.
    pub hash_key: u64,
}

impl FqCodelParams {
    /// Linux's defaults (ECN on, unlike `sch_codel`) with a given hash key.
    pub fn linux(hash_key: u64) -> Self {
        FqCodelParams {
            codel: CodelParams {
                ecn: true,
                ..CodelParams::default()
            },
            flows: DEFAULT_FLOWS,
            quantum_bytes: DEFAULT_QUANTUM_BYTES,
            hash_key,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

#[derive(Debug)]
struct FlowQueue {
    q: VecDeque<(PktId, Time)>,
    backlog: u64,
    deficit: i64,
    vars: CodelVars,
    list: List,
}

/// One flow queue seen by its CoDel: pops update the flow's and the whole
/// discipline's backlog.
struct FlowSource<'a> {
    q: &'a mut VecDeque<(PktId, Time)>,
    flow_backlog: &'a mut u64,
    len: &'a mut u32,
    bytes: &'a mut u64,
}

impl CodelSource for FlowSource<'_> {
    fn pop(&mut self, pool: &PacketPool) -> Option<(PktId, Time)> {
        let (pkt, t) = self.q.pop_front()?;
        let size = pool.get(pkt).size_bytes as u64;
        *self.flow_backlog -= size;
        *self.bytes -= size;
        *self.len -= 1;
        Some((pkt, t))
    }
    fn backlog_bytes(&self) -> u64 {
        *self.bytes
    }
}

/// Counters a test or a report may read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FqCodelStats {
    /// Queues that joined the new list.
    pub new_flow_count: u64,
    /// Packets dropped from fat queues on overflow.
    pub drop_overlimit: u64,
}

pub struct FqCodel {
    p: FqCodelParams,
    flows: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: u32,
    bytes: u64,
    limit: Limit,
    drops: VecDeque<(PktId, DropReason)>,
    stats: FqCodelStats,
}

/// A 64-bit finalizer (SplitMix64's): every input bit moves every output bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FqCodel {
    pub fn new(limit: Limit, p: FqCodelParams) -> Self {
        let flows = (0..p.flows.max(1))
            .map(|_| FlowQueue {
                q: VecDeque::new(),
                backlog: 0,
                deficit: 0,
                vars: CodelVars::default(),
                list: List::None,
            })
            .collect();
        FqCodel {
            p,
            flows,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
            limit,
            drops: VecDeque::new(),
            stats: FqCodelStats::default(),
        }
    }

    pub fn params(&self) -> &FqCodelParams {
        &self.p
    }

    pub fn stats(&self) -> &FqCodelStats {
        &self.stats
    }

    /// The flow queue of a packet: its 5-tuple hashed with the key, scaled
    /// to `flows` as Linux's `reciprocal_scale` does.
    pub fn queue_of(&self, p: &Packet) -> u32 {
        let mut h = self.p.hash_key;
        for w in [
            p.src as u64,
            p.dst as u64,
            ((p.sport as u64) << 16) | p.dport as u64,
            p.proto as u64,
        ] {
            h = mix(h ^ w);
        }
        (((h >> 32) * self.flows.len() as u64) >> 32) as u32
    }

    /// Packets and bytes held by flow queue `i`.
    pub fn queue_len(&self, i: u32) -> (u32, u64) {
        let f = &self.flows[i as usize];
        (f.q.len() as u32, f.backlog)
    }

    fn over_limit(&self) -> bool {
        self.limit.pkts.is_some_and(|l| self.len > l)
            || self.limit.bytes.is_some_and(|l| self.bytes > l)
    }

    /// Linux `fq_codel_drop`: drops from the head of the fattest queue
    /// until half its backlog is gone (at most [`DROP_BATCH`] packets).
    /// Returns true if `arriving` was among them (it is then not reported
    /// through `take_drop`: the caller's verdict drops it).
    fn drop_from_fattest(&mut self, arriving: PktId, pool: &PacketPool) -> bool {
        let (idx, max) = fattest(self.flows.iter().map(|f| f.backlog));
        let threshold = max / 2;
        let f = &mut self.flows[idx];
        let (mut freed, mut n, mut own) = (0u64, 0u32, false);
        while let Some((pkt, _)) = f.q.pop_front() {
            let size = pool.get(pkt).size_bytes as u64;
            freed += size;
            n += 1;
            if pkt == arriving {
                own = true;
            } else {
                self.drops.push_back((pkt, DropReason::Overflow));
            }
            if n >= DROP_BATCH || freed >= threshold {
                break;
            }
        }
        // "Tell codel to increase its signal strength also."
        f.vars.count = f.vars.count.saturating_add(n);
        f.backlog -= freed;
        self.bytes -= freed;
        self.len -= n;
        self.stats.drop_overlimit += n as u64;
        own
    }
}

impl QueueDisc for FqCodel {
    fn enqueue(&mut self, pkt: PktId, cx: &mut QueueCtx) -> Verdict {
        let p = cx.pool.get(pkt);
        let size = p.size_bytes as u64;
        let i = self.queue_of(p) as usize;
        let f = &mut self.flows[i];
        f.q.push_back((pkt, cx.now));
        f.backlog += size;
        if f.list == List::None {
            f.list = List::New;
            f.deficit = self.p.quantum_bytes as i64;
            self.new_flows.push_back(i as u32);
            self.stats.new_flow_count += 1;
        }
        self.len += 1;
        self.bytes += size;
        if !self.over_limit() {
            return Verdict::Enqueued { marked: false };
        }
        if self.drop_from_fattest(pkt, cx.pool) {
            Verdict::Dropped(DropReason::Overflow)
        } else {
            Verdict::Enqueued { marked: false }
        }
    }

    /// Linux `fq_codel_dequeue`: DRR over the new list, then the old one.
    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Dequeued> {
        loop {
            let (from_new, i) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (true, i),
                (None, Some(&i)) => (false, i),
                (None, None) => return None,
            };
            let quantum = self.p.quantum_bytes as i64;
            let f = &mut self.flows[i as usize];
            if f.deficit <= 0 {
                f.deficit += quantum;
                f.list = List::Old;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.old_flows.push_back(i);
                continue;
            }
            let FlowQueue {
                q,
                backlog,
                vars,
                deficit,
                list,
            } = f;
            let mut src = FlowSource {
                q,
                flow_backlog: backlog,
                len: &mut self.len,
                bytes: &mut self.bytes,
            };
            match vars.dequeue(&self.p.codel, &mut src, cx, &mut self.drops) {
                Some(d) => {
                    *deficit -= cx.pool.get(d.pkt).size_bytes as i64;
                    return Some(d);
                }
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                    } else {
                        self.old_flows.pop_front();
                    }
                    // An emptied new queue goes through the old list once,
                    // so that new queues cannot starve the old ones.
                    if from_new && !self.old_flows.is_empty() {
                        *list = List::Old;
                        self.old_flows.push_back(i);
                    } else {
                        *list = List::None;
                    }
                }
            }
        }
    }

    // len_pkts, len_bytes, peek, for_each_packet, take_drop
    flow_queue_accessors!();
}

#[cfg(test)]
mod tests;
