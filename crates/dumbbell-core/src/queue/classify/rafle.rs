//! RAFLE, "Random Assorter of Flow Lengths" (Mussi and Ribeiro, "RAFLE:
//! Uma Proposta para Diferenciação de Fluxos sem Manutenção de Estados em
//! Roteadores", §4 and its Figure 2).
//!
//! TCP sends in bursts of a window, so a packet of a flow that holds a large
//! window is likely to find its own flow id among the last packets the port
//! forwarded. The port keeps the ids of the last N packets in a circular
//! memory with an insertion pointer P_u. For every arriving packet:
//! 1. draw a position P_a uniformly in [0, N);
//! 2. if the memory holds the packet's flow id at P_a, the packet is long;
//!    otherwise — a different id, or an empty slot while the memory fills —
//!    it is short;
//! 3. write the packet's id at P_u and advance P_u (circularly, so nothing
//!    is shifted).
//!
//! The flow id is the 4-tuple (source address, source port, destination
//! address, destination port): 12 bytes per slot, as in the paper. The draw
//! comes from the port's own random stream (`queue:<node>-><peer>:rafle`),
//! so the decisions are a function of the run seed and the port's name.
//! Default N = 40, the paper's choice from its Table 1.

use super::{Class, Classifier};
use crate::packet::Packet;
use crate::sim::Rng;

/// The paper's memory size (Table 1: the best product PA_c·PA_l).
pub const DEFAULT_N: usize = 40;

/// The flow id RAFLE stores: the TCP/UDP 4-tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FlowKey {
    pub src: u32,
    pub sport: u16,
    pub dst: u32,
    pub dport: u16,
}

impl FlowKey {
    pub fn of(p: &Packet) -> FlowKey {
        FlowKey {
            src: p.src,
            sport: p.sport,
            dst: p.dst,
            dport: p.dport,
        }
    }
}

pub struct Rafle {
    memory: Vec<Option<FlowKey>>,
    /// P_u: where the next id is written.
    insert: usize,
    rng: Rng,
}

impl Rafle {
    /// An empty memory of `n` slots (n ≥ 1; the configuration checks it).
    pub fn new(n: usize, rng: Rng) -> Self {
        assert!(n > 0, "RAFLE needs at least one memory slot");
        Rafle {
            memory: vec![None; n],
            insert: 0,
            rng,
        }
    }

    pub fn n(&self) -> usize {
        self.memory.len()
    }

    /// Steps 2 and 3 for a packet of flow `id` and the drawn position
    /// `p_a` (in [0, N)).
    pub fn decide(&mut self, id: FlowKey, p_a: usize) -> Class {
        let class = Class::of_long(self.memory[p_a] == Some(id));
        self.memory[self.insert] = Some(id);
        self.insert = (self.insert + 1) % self.memory.len();
        class
    }
}

impl Classifier for Rafle {
    fn classify(&mut self, p: &Packet) -> Class {
        let p_a = self.rng.below(self.memory.len() as u64) as usize;
        self.decide(FlowKey::of(p), p_a)
    }

    fn name(&self) -> &'static str {
        "rafle"
    }
}
