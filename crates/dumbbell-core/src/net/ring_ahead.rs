//! Software prefetches of the slots a ring (`VecDeque`) will write next.
//!
//! A TCP sender's scoreboard (`Sender::segs`, 72-byte entries) is written
//! at its back, one entry per new segment, into a slot last touched when
//! the segment that held it was acknowledged, a ring's capacity of segments
//! ago (at 10 Gb/s and a 20 ms RTT, tens of thousands: megabytes, past the
//! nearer caches). Asking for the lines a few entries past the back when an
//! entry is pushed brings them in before the pushes that write them. A hint
//! to the CPU, never a fault, no effect on any value: the ring is only read
//! to find an address. (The same hint at a wire's ring and a FIFO's was
//! measured and not kept: `docs/performance.md`, tenth round.)

use crate::packet::prefetch_line;
use std::collections::VecDeque;

/// Asks the CPU for the cache line of the slot `ahead` entries past the
/// entry at `ring`'s back (the one just pushed): where the `ahead`-th
/// `push_back` from now writes, unless the ring wraps or grows first (then
/// some other line, harmless). An entry of more than 64 bytes (at most
/// 128) gets the next line too: called at every push, the lines asked for
/// then cover every slot.
#[inline(always)]
pub fn prefetch_back<T>(ring: &VecDeque<T>, ahead: usize) {
    const { assert!(size_of::<T>() <= 128) };
    if let Some(back) = ring.back() {
        let at = (back as *const T).wrapping_add(ahead).cast::<u8>();
        prefetch_line(at);
        if size_of::<T>() > 64 {
            prefetch_line(at.wrapping_add(64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes and pops through a ring of `T` (small, so that it wraps and
    /// grows), prefetching after every change: the ring reads the same
    /// after each prefetch as before it.
    fn ring_unchanged<T: Copy + PartialEq + std::fmt::Debug>(make: impl Fn(u64) -> T) {
        let mut r: VecDeque<T> = VecDeque::with_capacity(4);
        prefetch_back(&r, 8);
        for i in 0..11u64 {
            r.push_back(make(i));
            if i % 3 == 0 {
                r.pop_front();
            }
            let before: Vec<T> = r.iter().copied().collect();
            prefetch_back(&r, 8);
            assert_eq!(r.iter().copied().collect::<Vec<T>>(), before);
        }
        // 11 pushed, the 4 oldest popped.
        assert_eq!(r.len(), 7);
        assert_eq!(r.front(), Some(&make(4)));
    }

    #[test]
    fn a_prefetch_changes_nothing_in_the_ring() {
        // A wire's 16-byte entry, and a 72-byte one (two lines asked for).
        ring_unchanged(|i| (i, i as u32));
        ring_unchanged(|i| [i; 9]);
    }
}
