//! Deficit round robin (Shreedhar and Varghese, "Efficient fair queueing
//! using deficit round robin", SIGCOMM 1995; Linux `sch_drr`).
//!
//! The two queues are visited in turn. A visit to a non-empty queue adds its
//! quantum (bytes) to its deficit counter; the queue then sends head packets
//! while the head fits in the deficit, and the visit ends when it does not
//! (the deficit is kept for the next round) or when the queue empties (the
//! deficit is reset to zero, so an idle queue saves no credit). Over many
//! rounds two backlogged queues share the link's bytes in the ratio of their
//! quanta, whatever their packet sizes.

use super::{Heads, Scheduler};
use crate::queue::classify::Class;

/// Linux `sch_drr`'s default quantum: one MTU-sized packet (1514 bytes on
/// Ethernet, `psched_mtu`). dumbbell's wire packets are 1488–1500 bytes.
pub const DEFAULT_QUANTUM_BYTES: u32 = 1514;

#[derive(Clone, Copy, Debug)]
pub struct Drr {
    pub quantum_bytes: [u32; 2],
    deficit: [u64; 2],
    /// The queue whose visit is under way.
    current: Class,
    /// True while `current`'s visit has received its quantum.
    visiting: bool,
}

impl Drr {
    /// Quanta for the short and long classes (each ≥ 1; the configuration
    /// checks it).
    pub fn new(quantum_short_bytes: u32, quantum_long_bytes: u32) -> Self {
        assert!(quantum_short_bytes > 0 && quantum_long_bytes > 0);
        Drr {
            quantum_bytes: [quantum_short_bytes, quantum_long_bytes],
            deficit: [0; 2],
            current: Class::Short,
            visiting: false,
        }
    }

    pub fn deficit(&self, class: Class) -> u64 {
        self.deficit[class.index()]
    }

    fn next_visit(&mut self) {
        self.current = match self.current {
            Class::Short => Class::Long,
            Class::Long => Class::Short,
        };
        self.visiting = false;
    }
}

impl Scheduler for Drr {
    fn pick(&mut self, heads: Heads) -> Option<Class> {
        if heads.iter().all(Option::is_none) {
            self.deficit = [0; 2];
            self.visiting = false;
            return None;
        }
        // Each pass over a backlogged queue adds a quantum, so a head of
        // size s is served within ceil(s / quantum) rounds: the loop ends.
        loop {
            let c = self.current.index();
            let Some(size) = heads[c] else {
                self.deficit[c] = 0;
                self.next_visit();
                continue;
            };
            if !self.visiting {
                self.deficit[c] += self.quantum_bytes[c] as u64;
                self.visiting = true;
            }
            if size as u64 <= self.deficit[c] {
                self.deficit[c] -= size as u64;
                return Some(self.current);
            }
            self.next_visit();
        }
    }

    fn name(&self) -> &'static str {
        "drr"
    }
}
