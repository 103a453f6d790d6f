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
