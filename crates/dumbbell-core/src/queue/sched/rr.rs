//! Round robin, packet by packet: the non-empty queues take turns, one
//! packet each, whatever the packets' sizes (the paper's Click `RoundRobinSched`
//! element). A queue that is empty loses its turn; a lone non-empty queue is
//! served back to back.

use super::{Heads, Scheduler};
use crate::queue::classify::Class;

#[derive(Clone, Copy, Debug)]
pub struct RoundRobin {
    /// The class served last; the other one has the next turn.
    last: Class,
}

impl Default for RoundRobin {
    /// The short queue has the first turn.
    fn default() -> Self {
        RoundRobin { last: Class::Long }
    }
}

impl Scheduler for RoundRobin {
    fn pick(&mut self, heads: Heads) -> Option<Class> {
        let next = match self.last {
            Class::Short => Class::Long,
            Class::Long => Class::Short,
        };
        let chosen = if heads[next.index()].is_some() {
            next
        } else if heads[self.last.index()].is_some() {
            self.last
        } else {
            return None;
        };
        self.last = chosen;
        Some(chosen)
    }

    fn name(&self) -> &'static str {
        "rr"
    }
}
