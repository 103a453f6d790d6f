//! CAKE's ACK filter (Linux `sch_cake.c`, `cake_ack_filter`): when a pure
//! TCP ACK joins a flow queue that already holds older pure ACKs of the
//! same connection which the new one makes redundant, one of those is
//! dropped, the one nearest the head.
//!
//! An older ACK is redundant when it carries no payload and no flag other
//! than ACK (ECE and CWR aside), its cumulative ACK is not above the new
//! one's, its timestamps are not newer, and every range it SACKs is
//! SACKed by the new ACK too (the new one must SACK more bytes, or the
//! same bytes with a higher cumulative ACK; a D-SACK block is never
//! dropped). A change of ECE/CWR between eligible ACKs restarts the search,
//! so no ECN echo is lost. The **conservative** mode drops only when it
//! found two eligible ACKs; the **aggressive** mode also drops a single
//! eligible ACK that is immediately ahead of the new one with the same
//! ECE/CWR bits.
//!
//! Fidelity: the filter reads our packets' fields (flags, payload, ACK
//! number, SACK blocks, timestamps) where Linux parses headers; the TCP
//! option checks Linux makes (unknown options, MD5) have nothing to read
//! here, since our ACKs carry only timestamps and SACK.

use crate::packet::{flags, Packet, PacketPool, PktId, Proto};
use crate::sim::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The ACK filter's mode (Linux `ack-filter` / `ack-filter-aggressive`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum AckFilter {
    /// Off (Linux's default).
    #[default]
    None,
    Conservative,
    Aggressive,
}

/// The flags besides ACK that make a packet not a pure ACK (ECE and CWR
/// are compared separately).
const NOT_PURE: u8 = flags::SYN | flags::FIN;
const ECN_BITS: u8 = flags::ECE | flags::CWR;

/// Linux `cake_tcph_sack_compare(a, b)`: -1 if `a` SACKs something `b`
/// does not (or `a` holds a D-SACK), 1 if `b` SACKs strictly more bytes,
/// 0 if they SACK the same.
fn sack_compare(a: &Packet, b: &Packet) -> i32 {
    match (a.n_sack > 0, b.n_sack > 0) {
        (true, false) => return -1,
        (false, true) => return 1,
        (false, false) => return 0,
        _ => {}
    }
    let bytes_b: u64 = b.sacks().iter().map(|s| s.end - s.start).sum();
    let mut bytes_a = 0;
    for sa in a.sacks() {
        if sa.start < a.ack {
            return -1; // D-SACK: never considered redundant
        }
        bytes_a += sa.end - sa.start;
        if !b
            .sacks()
            .iter()
            .any(|sb| sb.start <= sa.start && sb.end >= sa.end)
        {
            return -1;
        }
    }
    if bytes_b > bytes_a {
        1
    } else {
        0
    }
}

/// Whether `old` is a pure ACK of the same connection as `new` that `new`
/// makes redundant (Linux's per-candidate checks, flags and SACK).
fn redundant(old: &Packet, new: &Packet) -> bool {
    if old.proto != Proto::Tcp
        || old.src != new.src
        || old.dst != new.dst
        || old.sport != new.sport
        || old.dport != new.dport
    {
        return false;
    }
    let pure = old.has(flags::ACK) && old.tcp_flags & NOT_PURE == 0 && old.payload_bytes == 0;
    // Only timestamps older than (or equal to) the new ones (0: absent).
    let ts_ok = old.ts_val <= new.ts_val && old.ts_ecr <= new.ts_ecr;
    if !pure || !ts_ok || old.ack > new.ack {
        return false;
    }
    let cmp = sack_compare(old, new);
    !(cmp < 0 || (old.ack == new.ack && cmp == 0))
}

/// The position in `q` of the ACK to drop now that `q`'s tail has just
/// been queued, if there is one (the tail itself is never dropped).
pub fn find(q: &VecDeque<(PktId, Time)>, pool: &PacketPool, mode: AckFilter) -> Option<usize> {
    if mode == AckFilter::None || q.len() < 2 {
        return None;
    }
    let new = pool.get(q.back()?.0);
    if new.proto != Proto::Tcp || new.tcp_flags & (flags::ACK | flags::SYN) != flags::ACK {
        return None;
    }
    let mut elig: Option<(usize, u8)> = None;
    let mut found = 0;
    for (i, &(pkt, _)) in q.iter().enumerate().take(q.len() - 1) {
        let old = pool.get(pkt);
        let same_conn = old.proto == Proto::Tcp
            && old.src == new.src
            && old.dst == new.dst
            && old.sport == new.sport
            && old.dport == new.dport;
        if !same_conn {
            continue;
        }
        // An ECN flag change since the eligible one: keep that one.
        if let Some((_, f)) = elig {
            if old.tcp_flags & ECN_BITS != f {
                elig = None;
                found -= 1;
            }
        }
        if !redundant(old, new) {
            continue;
        }
        if elig.is_none() {
            elig = Some((i, old.tcp_flags & ECN_BITS));
        }
        found += 1;
        if found > 1 {
            return elig.map(|(i, _)| i);
        }
    }
    let (i, f) = elig?;
    let next_is_new = i + 2 == q.len();
    (mode == AckFilter::Aggressive && next_is_new && f == new.tcp_flags & ECN_BITS).then_some(i)
}
