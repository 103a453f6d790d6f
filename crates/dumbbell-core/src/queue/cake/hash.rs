//! CAKE's classification (Linux `cake_hash`): which of the 1024 queues a
//! packet joins, and which host entries that queue counts against.
//!
//! **Our mapping.** A *host* is a node (the packet's `src` and `dst` node
//! ids stand for its IP addresses). A *flow* is the 5-tuple (source and
//! destination node, ports, protocol), hashed symmetrically as Linux's
//! `flow_hash_from_keys` (both directions of a connection are one flow).
//! Hashes are a 64-bit mix keyed by a number drawn from the run's stream
//! `queue:<node>-><peer>:cake` (Linux: a key drawn at boot), cut to 32 bits
//! as Linux's `u32` hashes. In the host-only modes (`srchost`, `dsthost`,
//! `hosts`) the flow hash is the host hash(es), as Linux XORs them.
//!
//! **Set association.** The 1024 queues form 128 sets of 8. A flow whose
//! tag (its 32-bit hash) sits in its direct slot, on an active queue, takes
//! it at once; otherwise the set is searched for a queue tagged with it
//! (active or not), then for an inactive queue, and only when all 8 are
//! busy does the flow collide, taking the slot it would have had. Host
//! entries (1024 source, 1024 destination) are found the same way and
//! carry the bulk-flow counts host isolation divides quanta by.

use super::{Cake, Host, Set, QUEUES, SET_WAYS};
use crate::packet::Packet;

/// A 64-bit finalizer (SplitMix64's): every input bit moves every output bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn hash_words(key: u64, words: &[u64]) -> u32 {
    let mut h = key;
    for &w in words {
        h = mix(h ^ w);
    }
    (h >> 32) as u32
}

/// Which host of a flow a host entry counts (Linux keeps the source's and
/// the destination's tags and bulk-flow counts side by side).
#[derive(Clone, Copy)]
enum HostSide {
    Src,
    Dst,
}

impl HostSide {
    /// This side's tag and bulk-flow count.
    fn read(self, h: &Host) -> (u32, u16) {
        match self {
            HostSide::Src => (h.srchost_tag, h.srchost_bulk_flow_count),
            HostSide::Dst => (h.dsthost_tag, h.dsthost_bulk_flow_count),
        }
    }

    fn tag(self, h: &mut Host) -> &mut u32 {
        match self {
            HostSide::Src => &mut h.srchost_tag,
            HostSide::Dst => &mut h.dsthost_tag,
        }
    }

    fn bulk_flow_count(self, h: &mut Host) -> &mut u16 {
        match self {
            HostSide::Src => &mut h.srchost_bulk_flow_count,
            HostSide::Dst => &mut h.dsthost_bulk_flow_count,
        }
    }
}

/// Which way of an 8-slot set a host or flow takes.
enum Slot {
    /// Already tagged with this hash.
    Tagged(usize),
    /// Free (or, for a flow, its colliding slot).
    Fresh(usize),
}

impl Cake {
    /// The 32-bit flow, source-host and destination-host hashes of `p`.
    pub(super) fn hashes(&self, p: &Packet) -> (u32, u32, u32) {
        let key = self.p.hash_key;
        let src = hash_words(key, &[1, p.src as u64]);
        let dst = hash_words(key, &[2, p.dst as u64]);
        let mode = self.p.config.flow_mode;
        let flow = if mode.hashes_flows() {
            // Symmetric: the lower (node, port) end first.
            let a = ((p.src as u64) << 16) | p.sport as u64;
            let b = ((p.dst as u64) << 16) | p.dport as u64;
            hash_words(key, &[3, a.min(b), a.max(b), p.proto as u64])
        } else {
            let mut h = 0;
            if mode.src_ip() {
                h ^= src;
            }
            if mode.dst_ip() {
                h ^= dst;
            }
            h
        };
        (flow, src, dst)
    }

    /// Linux `cake_hash`: the queue of `p`, reserving it for its flow and
    /// updating host entries when the flow newly takes the queue.
    pub(super) fn classify(&mut self, p: &Packet) -> usize {
        let mode = self.p.config.flow_mode;
        if mode == super::FlowMode::Flowblind {
            return 0;
        }
        let (flow_hash, src_hash, dst_hash) = self.hashes(p);
        let reduced = flow_hash as usize % QUEUES;
        if self.tags[reduced] == flow_hash && self.flows[reduced].set != Set::None {
            self.stats.way_directs += 1;
            return reduced;
        }
        let inner = reduced % SET_WAYS;
        let outer = reduced - inner;
        let ways = (0..SET_WAYS).map(|i| outer + (inner + i) % SET_WAYS);
        let mut allocate = true;
        let idx = if let Some(k) = ways.clone().find(|&k| self.tags[k] == flow_hash) {
            if k != reduced {
                self.stats.way_hits += 1;
            }
            // Its own queue, still active: its host entries stand.
            allocate = self.flows[k].set == Set::None;
            k
        } else if let Some(k) = ways.clone().find(|&k| self.flows[k].set == Set::None) {
            self.stats.way_misses += 1;
            k
        } else {
            // All 8 busy: take over the direct slot.
            self.stats.way_collisions += 1;
            if self.flows[reduced].set == Set::Bulk {
                self.dec_bulk_hosts(reduced);
            }
            reduced
        };
        self.tags[idx] = flow_hash;
        if allocate {
            self.allocate_hosts(idx, src_hash, dst_hash);
        }
        idx
    }

    /// Finds (or takes) the host entries of queue `idx` and counts it
    /// there if it is bulk.
    fn allocate_hosts(&mut self, idx: usize, src_hash: u32, dst_hash: u32) {
        let mode = self.p.config.flow_mode;
        if mode.dual_src() {
            self.flows[idx].srchost = self.allocate_host(idx, src_hash, HostSide::Src);
        }
        if mode.dual_dst() {
            self.flows[idx].dsthost = self.allocate_host(idx, dst_hash, HostSide::Dst);
        }
    }

    /// Finds (or takes) the entry of host `hash` on one side, counts queue
    /// `idx` there if it is bulk, and returns the entry.
    fn allocate_host(&mut self, idx: usize, hash: u32, side: HostSide) -> u16 {
        let k = match self.host_slot(hash, |h| side.read(h)) {
            Slot::Tagged(k) => k,
            Slot::Fresh(k) => {
                *side.tag(&mut self.hosts[k]) = hash;
                k
            }
        };
        let bulk = self.flows[idx].set == Set::Bulk;
        let count = side.bulk_flow_count(&mut self.hosts[k]);
        if bulk && (*count as usize) < QUEUES {
            *count += 1;
        }
        k as u16
    }

    /// The host entry for `hash`: one tagged with it in its set, else one
    /// with no bulk flows, else (Linux's loop ends where it began) the
    /// direct slot.
    fn host_slot(&self, hash: u32, read: impl Fn(&Host) -> (u32, u16)) -> Slot {
        let reduced = hash as usize % QUEUES;
        let inner = reduced % SET_WAYS;
        let outer = reduced - inner;
        let ways = (0..SET_WAYS).map(|i| outer + (inner + i) % SET_WAYS);
        if let Some(k) = ways.clone().find(|&k| read(&self.hosts[k]).0 == hash) {
            return Slot::Tagged(k);
        }
        let k = ways
            .clone()
            .find(|&k| read(&self.hosts[k]).1 == 0)
            .unwrap_or(reduced);
        Slot::Fresh(k)
    }
}
