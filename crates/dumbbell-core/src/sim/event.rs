//! The event queue: min-heaps keyed by (time, insertion sequence).
//!
//! Events that fall at the same instant run in the order they were scheduled
//! (FIFO), which makes every run a pure function of its scenario and seed.
//! Links and queues schedule only their head packet, and timers are re-armed
//! lazily, so the heap stays small (a few entries per port and flow) however
//! many packets are in flight.

use super::time::Time;

/// What happens when an event fires. Small and `Copy`: ids, never pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A port finished serializing its current packet onto its link (only
    /// ports that need the instant as an event: `world/departures.rs`).
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

/// A heap entry: the (time, sequence) key packed as one 128-bit number
/// (time in the high half), so that ordering is one wide comparison.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: Key,
    event: Event,
}

/// `(time_ps << 64) | seq`, stored as two words (8-byte aligned, so an
/// entry is 24 bytes, not the 32 a `u128` field's alignment would make it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    time: u64,
    seq: u64,
}

impl Key {
    #[inline(always)]
    fn wide(self) -> u128 {
        ((self.time as u128) << 64) | self.seq as u128
    }
    #[inline(always)]
    fn before(self, o: Key) -> bool {
        self.wide() < o.wide()
    }
}

/// A deterministic future-event list: two min-heaps on (time, seq),
/// one for the network's events (a port's end of transmission, a wire's
/// next arrival, a netem line's or pipeline's next release: a few per
/// port, handled millions of times) and one for everything else (timers
/// of every connection, sources, samples: one or two per flow, rarely
/// due). `pop` takes the earlier of the two roots.
///
/// Every key is unique (the sequence number grows with each schedule,
/// across both heaps), so the order in which events come out does not
/// depend on how the queue is organised, only on the keys: any correct
/// priority queue gives the same run, bit for bit. The split keeps the
/// per-packet events in a heap of a few entries however many connections
/// have timers pending (with a thousand flows, one heap would hold a
/// couple of thousand entries and each packet event would sift through
/// them).
///
/// Most events schedule another one while they are handled (a departure
/// schedules the next, an arrival an ACK, ...). So `pop` does not remove
/// the earliest entry at once: it leaves it as a *hole* at its heap's
/// root, and the next `schedule` into that heap writes its entry into the
/// hole and sifts it down, one pass instead of the pop's sift-down plus
/// the push's sift-up. A hole not filled by the time of the next
/// `pop`/`peek_time` is removed then.
#[derive(Default)]
pub struct EventQueue {
    near: Heap<2>,
    far: Heap<4>,
    next_seq: u64,
    popped: u64,
    /// The sequence number of the event popped last (`u64::MAX` once the
    /// run's loop is over: [`Self::finish`]).
    current: u64,
}

/// One `D`-ary min-heap of [`EventQueue`], with its hole. The per-packet
/// heap is binary (a handful of entries); the other is 4-ary: with many
/// flows it holds thousands of timers, and a pop that moves its last
/// entry down from the root crosses half the levels a binary heap has.
#[derive(Default)]
struct Heap<const D: usize> {
    heap: Vec<Entry>,
    /// The root is an event already handed out (see [`EventQueue`]).
    hole: bool,
}

impl Event {
    /// Handled on the per-packet path: kept in the small heap.
    #[inline(always)]
    fn is_near(&self) -> bool {
        matches!(
            self,
            Event::TxDone { .. }
                | Event::Arrive { .. }
                | Event::ArriveLate { .. }
                | Event::NetemRelease { .. }
                | Event::PipelineDone { .. }
        )
    }
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue {
            near: Heap::with_capacity(256),
            far: Heap::with_capacity(1024),
            next_seq: 0,
            popped: 0,
            current: 0,
        }
    }

    /// A sequence number for an event that may be scheduled later, with
    /// [`Self::schedule_keyed`], or never: it takes its place in the order
    /// of ties now (a lazy TCP sender's NIC, `world/tsq_wake.rs`).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Schedules `event` at `time` with `seq` from [`Self::reserve_seq`]
    /// (each used at most once): among the events at `time` it runs where
    /// an event scheduled at the reservation would have.
    #[inline]
    pub fn schedule_keyed(&mut self, time: Time, seq: u64, event: Event) {
        debug_assert!(seq < self.next_seq, "a reserved sequence number");
        let e = Entry {
            key: Key {
                time: time.ps(),
                seq,
            },
            event,
        };
        if event.is_near() {
            self.near.insert(e);
        } else {
            self.far.insert(e);
        }
    }

    /// The sequence number of the event being handled: an event at the
    /// same instant reserved with a smaller one came before it.
    #[inline]
    pub fn current_seq(&self) -> u64 {
        self.current
    }

    /// The run's loop is over: every event due by its end counts as
    /// handled ([`Self::current_seq`] is past every reservation).
    pub fn finish(&mut self) {
        self.current = u64::MAX;
    }

    /// Schedules `event` at `time`; ties run in scheduling order.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        let seq = self.reserve_seq();
        self.schedule_keyed(time, seq, event);
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let near = self.earliest()?;
        let e = if near {
            self.near.take_root()
        } else {
            self.far.take_root()
        };
        self.popped += 1;
        self.current = e.key.seq;
        Some((Time::from_ps(e.key.time), e.event))
    }

    /// Removes and returns the earliest event if it falls at or before `end`.
    #[inline]
    pub fn pop_until(&mut self, end: Time) -> Option<(Time, Event)> {
        let near = self.earliest()?;
        let root = if near {
            self.near.heap[0]
        } else {
            self.far.heap[0]
        };
        if root.key.time > end.ps() {
            return None;
        }
        if near {
            self.near.hole = true;
        } else {
            self.far.hole = true;
        }
        self.popped += 1;
        self.current = root.key.seq;
        Some((Time::from_ps(root.key.time), root.event))
    }

    pub fn peek_time(&mut self) -> Option<Time> {
        let near = self.earliest()?;
        let root = if near {
            self.near.heap[0]
        } else {
            self.far.heap[0]
        };
        Some(Time::from_ps(root.key.time))
    }

    pub fn len(&self) -> usize {
        self.near.len() + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of events popped so far (the run's event count).
    pub fn popped(&self) -> u64 {
        self.popped
    }

    /// Grows the heaps fallibly before they fill (see `trace::headroom`).
    pub fn make_room(&mut self) -> Result<(), std::collections::TryReserveError> {
        self.near.make_room()?;
        self.far.make_room()
    }

    /// Whether the earliest event is the per-packet heap's root (holes
    /// removed first), or None if both heaps are empty.
    #[inline]
    fn earliest(&mut self) -> Option<bool> {
        self.near.settle();
        self.far.settle();
        match (self.near.heap.first(), self.far.heap.first()) {
            (Some(a), Some(b)) => Some(a.key.before(b.key)),
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        }
    }
}

impl<const D: usize> Heap<D> {
    fn with_capacity(n: usize) -> Self {
        Heap {
            heap: Vec::with_capacity(n),
            hole: false,
        }
    }

    fn len(&self) -> usize {
        self.heap.len() - self.hole as usize
    }

    /// The root, handed out: it stays as the hole.
    #[inline]
    fn take_root(&mut self) -> Entry {
        self.hole = true;
        self.heap[0]
    }

    fn make_room(&mut self) -> Result<(), std::collections::TryReserveError> {
        let len = self.heap.len();
        let want = (len / 4).max(1024);
        if self.heap.capacity() - len < want {
            self.heap.try_reserve(len.max(1024))?;
        }
        Ok(())
    }

    /// Adds `e`: into the hole if there is one, else at the end.
    ///
    /// Inlined into `schedule`, with the sifts, so that the new entry stays
    /// in registers: passed by reference (24 bytes), it was written to the
    /// stack in pieces and read back whole, a store-forwarding stall that
    /// took a third of the sift's samples in a profile.
    #[inline(always)]
    fn insert(&mut self, e: Entry) {
        if self.hole {
            self.hole = false;
            self.sift_down(0, e);
        } else {
            self.heap.push(e);
            self.sift_up(self.heap.len() - 1, e);
        }
    }

    /// Removes a hole left at the root by `pop`: the last entry takes its
    /// place and sinks to where it belongs.
    #[inline]
    fn settle(&mut self) {
        if !self.hole {
            return;
        }
        self.hole = false;
        let last = self.heap.pop().expect("a hole is an entry");
        if !self.heap.is_empty() {
            self.sift_down(0, last);
        }
    }

    /// Places `e` at `i` (its old content is overwritten) and moves it up
    /// while it is earlier than its parent.
    #[inline(always)]
    fn sift_up(&mut self, mut i: usize, e: Entry) {
        let h = &mut self.heap[..];
        while i > 0 {
            let parent = (i - 1) / D;
            if !e.key.before(h[parent].key) {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = e;
    }

    /// Places `e` at `i` (its old content is overwritten) and moves it down
    /// while a child is earlier.
    #[inline(always)]
    fn sift_down(&mut self, mut i: usize, e: Entry) {
        let h = &mut self.heap[..];
        let n = h.len();
        loop {
            let l = D * i + 1;
            if l >= n {
                break;
            }
            let mut c = l;
            if D == 2 && l + 1 < n {
                // The earlier of two children, by arithmetic rather than a
                // jump: which one is earlier is as good as random, and a
                // mispredicted jump per level was where the sift's samples
                // sat (the compiler turns a select back into a jump).
                c += h[l + 1].key.before(h[l].key) as usize;
            } else {
                for j in l + 1..(l + D).min(n) {
                    if h[j].key.before(h[c].key) {
                        c = j;
                    }
                }
            }
            if !h[c].key.before(e.key) {
                break;
            }
            h[i] = h[c];
            i = c;
        }
        h[i] = e;
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

        /// Interleaved schedules and pops (as a run does them: an event
        /// schedules others while it is handled) come out exactly as a
        /// sorted model of (time, seq) says, and `len` counts what is left.
        #[test]
        fn interleaved_ops_match_a_sorted_model(ops in proptest::collection::vec((0u8..4, 0u64..40), 1..400)) {
            let mut q = EventQueue::new();
            let mut model = std::collections::BTreeSet::new();
            let (mut seq, mut now) = (0u32, 0u64);
            for (op, dt) in ops {
                if op == 0 {
                    let got = q.pop();
                    let want = model.pop_first();
                    prop_assert_eq!(got.map(|(t, e)| (t.ps(), e)), want.map(|(t, s)| (t, Event::UdpSend { flow: s })));
                    if let Some((t, _)) = got { now = t.ps(); }
                } else if op == 1 && dt < 5 {
                    let end = now + dt;
                    let got = q.pop_until(Time::from_ps(end));
                    let want = match model.first() {
                        Some(&(t, _)) if t <= end => model.pop_first(),
                        _ => None,
                    };
                    prop_assert_eq!(got.map(|(t, e)| (t.ps(), e)), want.map(|(t, s)| (t, Event::UdpSend { flow: s })));
                } else if op == 1 && dt < 10 {
                    // Settles a hole left by a pop; schedules then push.
                    prop_assert_eq!(q.peek_time().map(|t| t.ps()), model.first().map(|&(t, _)| t));
                } else {
                    // Right after a pop: fills the hole at the root.
                    q.schedule(Time::from_ps(now + dt), Event::UdpSend { flow: seq });
                    model.insert((now + dt, seq));
                    seq += 1;
                }
                prop_assert_eq!(q.len(), model.len());
            }
        }

        /// Events of both heaps (per-packet and the rest) interleave in
        /// (time, scheduling order), whatever the mix of pops, bounded
        /// pops, peeks and schedules.
        #[test]
        fn both_heaps_merge_in_key_order(ops in proptest::collection::vec((0u8..6, 0u64..40), 1..400)) {
            // The event kind follows the sequence number: even ones are
            // per-packet (`Arrive`), odd ones timers (`TcpTimer`).
            fn event(seq: u32) -> Event {
                if seq % 2 == 0 {
                    Event::Arrive { port: seq }
                } else {
                    Event::TcpTimer { conn: seq, kind: 0 }
                }
            }
            let mut q = EventQueue::new();
            let mut model = std::collections::BTreeSet::new();
            let (mut seq, mut now) = (0u32, 0u64);
            for (op, dt) in ops {
                match op {
                    0 => {
                        let got = q.pop();
                        let want = model.pop_first();
                        prop_assert_eq!(got.map(|(t, e)| (t.ps(), e)), want.map(|(t, s)| (t, event(s))));
                        if let Some((t, _)) = got { now = t.ps(); }
                    }
                    1 => {
                        let end = now + dt / 8;
                        let got = q.pop_until(Time::from_ps(end));
                        let want = match model.first() {
                            Some(&(t, _)) if t <= end => model.pop_first(),
                            _ => None,
                        };
                        prop_assert_eq!(got.map(|(t, e)| (t.ps(), e)), want.map(|(t, s)| (t, event(s))));
                        if let Some((t, _)) = got { now = t.ps(); }
                    }
                    2 => prop_assert_eq!(q.peek_time().map(|t| t.ps()), model.first().map(|&(t, _)| t)),
                    _ => {
                        // Times repeat often (dt small): ties across heaps.
                        let t = now + dt / 4;
                        q.schedule(Time::from_ps(t), event(seq));
                        model.insert((t, seq));
                        seq += 1;
                    }
                }
                prop_assert_eq!(q.len(), model.len());
                prop_assert_eq!(q.is_empty(), model.is_empty());
            }
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
