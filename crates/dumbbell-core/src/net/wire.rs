//! A packet on a port's wire (its ring, `Port::pipe`): when it reaches the
//! far end, and what the far end will do with it, decided when it left
//! (`world/arrival_hop.rs`), so that its arrival needs neither the
//! packet's slot nor the route table to go on.

use crate::packet::PktId;
use crate::sim::Time;

/// One entry of a wire's ring: 16 bytes, as the `(Time, PktId)` pair it
/// replaces (the hop takes that pair's padding).
#[derive(Clone, Copy, Debug)]
pub struct OnWire {
    /// When the packet reaches the far end.
    pub at: Time,
    pub pkt: PktId,
    /// The far end's forwarding decision (`world/arrival_hop.rs`): the
    /// egress port it forwards the packet to, or one of that file's
    /// `HOP_DELIVER` (the packet's destination) and `HOP_ASK` (routed on
    /// arrival, as before).
    pub hop: u32,
}

const _: () = assert!(std::mem::size_of::<OnWire>() == 16);
