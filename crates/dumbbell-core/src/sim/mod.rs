//! Time, the event queue, random streams.

pub mod event;
pub mod rng;
pub mod time;

pub use event::{Event, EventQueue, LazyTimer, TimerFire};
pub use rng::{rng_for, Rng};
pub use time::{Dur, Time, PS_PER_MS, PS_PER_S, PS_PER_US};
