//! Schedulers of a two-class port: which class's queue sends next.
//!
//! A scheduler sees only the size of each class's head packet (`None` for
//! an empty queue) and names the class to serve; it never touches packets,
//! so each rule is one function a test can drive with scripted heads:
//! - [`StrictPriority`]: short first, long only when short is empty (the
//!   paper's "PrioSched", and RuN2C's own policy);
//! - [`RoundRobin`]: one packet from each non-empty queue in turn (the
//!   paper's "RR");
//! - [`Drr`]: deficit round robin by bytes (Shreedhar and Varghese,
//!   SIGCOMM 1995; Linux `sch_drr`), one quantum per class per round.

pub mod drr;
mod prio;
mod rr;

pub use drr::Drr;
pub use prio::StrictPriority;
pub use rr::RoundRobin;

use super::classify::Class;
use serde::{Deserialize, Serialize};

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

impl SchedulerConfig {
    /// Refuses out-of-range parameters, naming the one at fault.
    pub fn check(&self) -> Result<(), crate::param::ParamError> {
        if let SchedulerConfig::Drr {
            quantum_short_bytes,
            quantum_long_bytes,
        } = self
        {
            for (v, name) in [
                (quantum_short_bytes, "quantum_short_bytes"),
                (quantum_long_bytes, "quantum_long_bytes"),
            ] {
                crate::param::int_param(name, *v, 1, u32::MAX, " bytes")?;
            }
        }
        Ok(())
    }
}

fn default_quantum() -> u32 {
    drr::DEFAULT_QUANTUM_BYTES
}

/// The head packet size of each class's queue, indexed by `Class`.
pub type Heads = [Option<u32>; 2];

pub trait Scheduler {
    /// The class whose head packet leaves next; `None` iff both are empty.
    /// Called once per dequeue, and the packet is then taken: a scheduler
    /// may update its state (turn, deficits) here.
    fn pick(&mut self, heads: Heads) -> Option<Class>;
    /// The scheduler's name in output tables (`prio`, `rr`, `drr`).
    fn name(&self) -> &'static str;
}

#[cfg(test)]
mod tests;
