//! Watching and stopping a run from another thread.
//!
//! A [`RunMonitor`] is shared (`Arc`) between the thread that runs the
//! simulation and whoever watches it (the Python binding, a progress line, a
//! test). The event loop polls it every [`POLL_EVERY_EVENTS`] events: it
//! publishes the simulated time and the event count, and looks at the stop
//! flag. At 10–30 million events per wall second a poll happens every
//! 30–100 µs, and costs one relaxed atomic load and two stores: nothing
//! measurable. A stopped run ends at the instant it had reached and returns
//! its tables with `stopped = true` in its summary.
//!
//! Design choice: the core holds no global state; "stop every run of this
//! process" (Ctrl-C in Python) is the binding's registry of live monitors.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

/// Events between two polls of the monitor.
pub const POLL_EVERY_EVENTS: u32 = 1024;

crate::u8_enum::u8_enum! {
    /// What a run is doing, as seen from outside (kept in an atomic as its
    /// code).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Phase {
        /// Decoding, validating and building the world.
        Building,
        /// The event loop runs.
        Running,
        /// The event loop has returned (finished, stopped or failed).
        Done,
    }
}

/// A snapshot of a run's progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub phase: Phase,
    /// Simulated time reached, and the run's end, picoseconds.
    pub now_ps: u64,
    pub end_ps: u64,
    /// Events executed so far.
    pub events: u64,
}

/// The stop flag a run polls and the progress it publishes.
#[derive(Debug)]
pub struct RunMonitor {
    stop: AtomicBool,
    phase: AtomicU8,
    now_ps: AtomicU64,
    end_ps: AtomicU64,
    events: AtomicU64,
    /// Stop by itself after this many events (`u64::MAX`: never); a
    /// deterministic budget for fuzzers and tests.
    event_limit: u64,
    /// Events that may run at one instant before the run is declared stuck
    /// (the world's guard against loops that schedule at `now`).
    instant_limit: u64,
}

/// Events that may run at one instant before a run is declared stuck, by
/// default: the world's own events at one instant number a few per flow and
/// port, so only a loop that schedules at `now` without progress gets here.
pub const MAX_EVENTS_AT_ONE_INSTANT: u64 = 1 << 24;

impl Default for RunMonitor {
    fn default() -> Self {
        RunMonitor::new()
    }
}

impl RunMonitor {
    pub fn new() -> Self {
        RunMonitor {
            stop: AtomicBool::new(false),
            phase: AtomicU8::new(Phase::Building as u8),
            now_ps: AtomicU64::new(0),
            end_ps: AtomicU64::new(0),
            events: AtomicU64::new(0),
            event_limit: u64::MAX,
            instant_limit: MAX_EVENTS_AT_ONE_INSTANT,
        }
    }

    /// The same monitor with another limit of events at one instant (a
    /// fuzzer sets it low, to find a stuck loop within its event budget).
    pub fn with_instant_limit(mut self, events: u64) -> Self {
        self.instant_limit = events.max(1);
        self
    }

    pub fn instant_limit(&self) -> u64 {
        self.instant_limit
    }

    /// A monitor that also stops the run after about `events` events (at
    /// the first poll past the limit).
    pub fn with_event_limit(events: u64) -> Self {
        RunMonitor {
            event_limit: events,
            ..RunMonitor::new()
        }
    }

    /// Asks the run to stop at its next poll (any thread, any time; a run
    /// not started yet stops as soon as its loop begins).
    pub fn request_stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn stop_requested(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub fn progress(&self) -> Progress {
        let phase = Phase::from_u8(self.phase.load(Ordering::Acquire)).unwrap_or(Phase::Done);
        Progress {
            phase,
            now_ps: self.now_ps.load(Ordering::Relaxed),
            end_ps: self.end_ps.load(Ordering::Relaxed),
            events: self.events.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn set_phase(&self, phase: Phase) {
        self.phase.store(phase as u8, Ordering::Release);
    }

    pub(crate) fn set_end(&self, end_ps: u64) {
        self.end_ps.store(end_ps, Ordering::Relaxed);
    }

    /// Publishes progress; true if the run must stop.
    #[inline]
    pub(crate) fn poll(&self, now_ps: u64, events: u64) -> bool {
        self.now_ps.store(now_ps, Ordering::Relaxed);
        self.events.store(events, Ordering::Relaxed);
        events >= self.event_limit || self.stop.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_request_is_seen_at_the_next_poll() {
        let m = RunMonitor::new();
        assert!(!m.poll(5, 10));
        m.request_stop();
        assert!(m.poll(6, 11));
        let p = m.progress();
        assert_eq!((p.now_ps, p.events, p.phase), (6, 11, Phase::Building));
    }

    #[test]
    fn an_event_limit_stops_by_itself() {
        let m = RunMonitor::with_event_limit(100);
        assert!(!m.poll(0, 99));
        assert!(m.poll(0, 100));
        assert!(!m.stop_requested(), "the limit is not a stop request");
    }
}
