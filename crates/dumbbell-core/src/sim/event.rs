//! The event queue: a binary heap keyed by (time, insertion sequence).
//!
//! Events that fall at the same instant run in the order they were scheduled
//! (FIFO), which makes every run a pure function of its scenario and seed.
//! Links and queues schedule only their head packet, and timers are re-armed
//! lazily, so the heap stays small (a few entries per port and flow) however
//! many packets are in flight.

use super::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens when an event fires. Small and `Copy`: ids, never pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A port finished serializing its current packet onto its link.
    TxDone { port: u32 },
    /// The head packet of a port's link reaches the node at the far end.
    Arrive { port: u32 },
    /// The head packet of a port's slow lane (reordered packets) arrives.
    ArriveLate { port: u32 },
    /// The head packet of a port's netem delay line joins the port's queue.
    NetemRelease { port: u32 },
    /// A TCP connection's timer (see `tcp::TimerKind`) may be due.
    TcpTimer { conn: u32, kind: u8 },
    /// A UDP constant-bit-rate source sends its next datagram.
    UdpSend { flow: u32 },
    /// A periodic sampling tick of the flow recorders.
    Sample,
    /// The end of the warm-up: every flow's delivered bytes are noted.
    Warmup,
    /// A periodic occupancy sample of one port's queue.
    QueueSample { port: u32 },
    /// A workload starts its next task(s) (`world/tasks.rs`).
    TaskArrival { workload: u32 },
    /// A software switch's pipeline (`net::pipeline`) finished processing
    /// its current packet.
    PipelineDone { pipeline: u32 },
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

/// A deterministic future-event list.
#[derive(Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    popped: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            popped: 0,
        }
    }

    /// Schedules `event` at `time`; ties run in scheduling order.
    pub fn schedule(&mut self, time: Time, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Removes and returns the earliest event.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time, e.event))
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Number of events popped so far (the run's event count).
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Grows the heap fallibly before it fills (see `trace::headroom`).
    pub fn make_room(&mut self) -> Result<(), std::collections::TryReserveError> {
        let len = self.heap.len();
        let want = (len / 4).max(1024);
        if self.heap.capacity() - len < want {
            self.heap.try_reserve(len.max(1024))?;
        }
        Ok(())
    }
}

/// A timer that is re-armed often but fires rarely (RTO, delayed ACK).
///
/// Re-arming to a later deadline pushes nothing: the event already in the
/// heap fires early, sees the later deadline and re-schedules itself once.
/// Only arming to an earlier deadline pushes a new event; the older one is
/// then stale and is recognised by its time.
#[derive(Clone, Copy, Debug, Default)]
pub struct LazyTimer {
    deadline: Option<Time>,
    /// Time of the one event this timer treats as live.
    pending: Option<Time>,
}

/// What to do with a timer event that fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerFire {
    /// The deadline has come: run the timer's action.
    Due,
    /// Stale or disarmed: do nothing.
    Ignore,
    /// The deadline moved later: schedule again at this time.
    Reschedule(Time),
}

impl LazyTimer {
    /// Arms (or re-arms) the timer; returns a time at which the caller must
    /// schedule an event, if one is needed.
    #[must_use]
    pub fn arm(&mut self, deadline: Time) -> Option<Time> {
        self.deadline = Some(deadline);
        match self.pending {
            Some(p) if p <= deadline => None,
            _ => {
                self.pending = Some(deadline);
                Some(deadline)
            }
        }
    }

    pub fn disarm(&mut self) {
        self.deadline = None;
    }

    pub fn deadline(&self) -> Option<Time> {
        self.deadline
    }

    pub fn is_armed(&self) -> bool {
        self.deadline.is_some()
    }

    /// Time of the event the timer treats as live, if one is scheduled.
    pub fn pending(&self) -> Option<Time> {
        self.pending
    }

    /// Classifies an event of this timer that fired at `now`.
    pub fn on_fire(&mut self, now: Time) -> TimerFire {
        if self.pending != Some(now) {
            return TimerFire::Ignore;
        }
        self.pending = None;
        match self.deadline {
            None => TimerFire::Ignore,
            Some(d) if d > now => {
                self.pending = Some(d);
                TimerFire::Reschedule(d)
            }
            Some(_) => {
                self.deadline = None;
                TimerFire::Due
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Events come out sorted by time, and in scheduling order at equal times.
        #[test]
        fn pops_in_time_then_fifo_order(times in proptest::collection::vec(0u64..50, 1..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.schedule(Time::from_ps(*t), Event::UdpSend { flow: i as u32 });
            }
            let mut last: Option<(Time, u32)> = None;
            while let Some((t, e)) = q.pop() {
                let Event::UdpSend { flow } = e else { unreachable!() };
                if let Some((lt, lf)) = last {
                    prop_assert!(lt < t || (lt == t && lf < flow));
                }
                last = Some((t, flow));
            }
            prop_assert_eq!(q.popped(), times.len() as u64);
        }

        /// A lazy timer fires exactly once, at its last deadline, however it was re-armed.
        #[test]
        fn lazy_timer_fires_once_at_final_deadline(arms in proptest::collection::vec((0u64..100, 1u64..100), 1..30)) {
            let mut q = EventQueue::new();
            let mut timer = LazyTimer::default();
            let mut now = 0u64;
            let mut last_deadline = 0;
            // Re-arm at increasing "now" instants, firing whatever is due in between.
            let mut fired = vec![];
            for (advance, delay) in arms {
                let target = now + advance;
                while let Some(t) = q.peek_time() {
                    if t.ps() > target { break; }
                    let (t, _) = q.pop().unwrap();
                    match timer.on_fire(t) {
                        TimerFire::Due => fired.push(t.ps()),
                        TimerFire::Reschedule(at) => q.schedule(at, Event::Sample),
                        TimerFire::Ignore => {}
                    }
                }
                now = target;
                last_deadline = now + delay;
                if let Some(at) = timer.arm(Time::from_ps(last_deadline)) {
                    q.schedule(at, Event::Sample);
                }
            }
            fired.clear();
            while let Some((t, _)) = q.pop() {
                match timer.on_fire(t) {
                    TimerFire::Due => fired.push(t.ps()),
                    TimerFire::Reschedule(at) => q.schedule(at, Event::Sample),
                    TimerFire::Ignore => {}
                }
            }
            prop_assert_eq!(fired, vec![last_deadline]);
        }
    }
}
