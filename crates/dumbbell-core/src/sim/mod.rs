//! Time, the event queue, random streams, and the monitor that watches and
//! stops a run.

pub mod event;
pub mod monitor;
pub mod rng;
pub mod time;

pub use event::{Event, EventQueue, LazyTimer, TimerFire};
pub use monitor::{Phase, Progress, RunMonitor};
pub use rng::{rng_for, Rng};
pub use time::{Dur, Time, MAX_RATE_BPS, PS_PER_MS, PS_PER_S, PS_PER_US};
