//! The receiver's SACK block order (RFC 2018 §4): the block holding the
//! segment that triggered the ACK first, then the most recently reported
//! others, each a range of the out-of-order set.
//!
//! The blocks are kept as the ranges last found for them; their starts are
//! the start points, looked up in the set again when it changes. On a lossy
//! path nearly every segment lands above a hole and either extends one
//! range in place or adds one; then no other range moved, and the ranges
//! kept stay exact (`exact`), so that such a segment and the ACK it
//! triggers search the set for nothing; so do the ranges that the
//! cumulative point, trimming the set, leaves whole. A merge clears
//! `exact`, and the next segment above a hole looks every start point up
//! again, as the receiver always did. Either way the order and the blocks
//! are the same.

use crate::net::packet::{SackBlock, MAX_SACK_BLOCKS};
use crate::tcp::ranges::RangeSet;

/// Start points kept: one more than the blocks an ACK carries, so that a
/// block reported before the current ones is still known.
const KEPT: usize = MAX_SACK_BLOCKS + 1;

#[derive(Clone, Debug)]
pub(super) struct RecentBlocks {
    /// `rng[..n]`: the blocks, most recent first. Their starts are the
    /// start points; the ranges themselves are those of the set when
    /// `exact`, and may be stale (merged, trimmed) otherwise.
    rng: [(u64, u64); KEPT],
    n: usize,
    exact: bool,
}

impl Default for RecentBlocks {
    fn default() -> Self {
        RecentBlocks {
            rng: [(0, 0); KEPT],
            n: 0,
            exact: true,
        }
    }
}

impl RecentBlocks {
    /// The set was trimmed below `point` (the cumulative ACK moved). A
    /// range starting at or above it is as it was; one starting below it
    /// is gone or clipped, so no range holds its start point any more and
    /// a lookup would drop it: it is dropped now, and exact ranges stay
    /// exact.
    pub(super) fn trimmed(&mut self, point: u64) {
        let mut m = 0;
        for k in 0..self.n {
            if self.rng[k].0 >= point {
                self.rng[m] = self.rng[k];
                m += 1;
            }
        }
        self.n = m;
    }

    /// Range `idx` of `ooo` holds the segment just received: it goes first.
    /// `merged`: the insert joined ranges (the set shrank), so others may
    /// have gone; otherwise every range but `idx` is as it was.
    pub(super) fn touch(&mut self, ooo: &RangeSet, idx: usize, merged: bool) {
        let (lo, hi) = ooo.ranges()[idx];
        if self.exact && !merged {
            // The others are unchanged. The one range `idx` grew from, if
            // any, leaves its place; those before it move down one.
            let p = self.rng[..self.n]
                .iter()
                .position(|&(rs, _)| rs >= lo && rs < hi)
                .unwrap_or(self.n);
            self.rng.copy_within(0..p.min(KEPT - 1), 1);
            self.rng[0] = (lo, hi);
            if p == self.n {
                self.n = (self.n + 1).min(KEPT);
            }
            return;
        }
        let mut rng = [(0, 0); KEPT];
        rng[0] = (lo, hi);
        let mut n = 1;
        for &(old, _) in &self.rng[..self.n] {
            if n == KEPT {
                break;
            }
            let Some((rs, re)) = ooo.containing(old) else {
                continue;
            };
            if rs == lo || rng[..n].iter().any(|&(x, _)| x == rs) {
                continue;
            }
            rng[n] = (rs, re);
            n += 1;
        }
        self.rng = rng;
        self.n = n;
        self.exact = true;
    }

    /// Writes the blocks after `sack[..first]` (a D-SACK block, if any),
    /// up to [`MAX_SACK_BLOCKS`] in all; returns the count.
    pub(super) fn write(&self, ooo: &RangeSet, sack: &mut [SackBlock], first: usize) -> usize {
        let mut n = first;
        if self.exact {
            for &(start, end) in &self.rng[..self.n] {
                if n == MAX_SACK_BLOCKS {
                    break;
                }
                sack[n] = SackBlock { start, end };
                n += 1;
            }
            return n;
        }
        for &(start, _) in &self.rng[..self.n] {
            if n == MAX_SACK_BLOCKS {
                break;
            }
            if let Some((rs, re)) = ooo.containing(start) {
                let b = SackBlock { start: rs, end: re };
                if !sack[first..n].contains(&b) {
                    sack[n] = b;
                    n += 1;
                }
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The order as the receiver kept it before the exact ranges: every
    /// start point looked up in the set on every touch and every ACK.
    #[derive(Default)]
    struct Reference {
        recent: [Option<u64>; KEPT],
    }

    impl Reference {
        fn touch(&mut self, ooo: &RangeSet, start: u64) {
            let mut next = [None; KEPT];
            next[0] = Some(start);
            let mut n = 1;
            for old in self.recent.iter().flatten() {
                if n == next.len() {
                    break;
                }
                let Some((rs, _)) = ooo.containing(*old) else {
                    continue;
                };
                if rs == start || next[..n].contains(&Some(rs)) {
                    continue;
                }
                next[n] = Some(rs);
                n += 1;
            }
            self.recent = next;
        }

        fn write(&self, ooo: &RangeSet, sack: &mut [SackBlock], first: usize) -> usize {
            let mut n = first;
            for start in self.recent.iter().flatten() {
                if n == MAX_SACK_BLOCKS {
                    break;
                }
                if let Some((rs, re)) = ooo.containing(*start) {
                    let b = SackBlock { start: rs, end: re };
                    if !sack[first..n].contains(&b) {
                        sack[n] = b;
                        n += 1;
                    }
                }
            }
            n
        }
    }

    proptest! {
        /// Segments above a rising cumulative point, as the receiver sees
        /// them (new, duplicate, joining, extending, trimmed), give the
        /// blocks of the reference after every segment, with and without a
        /// D-SACK block first.
        #[test]
        fn blocks_equal_the_reference(ops in proptest::collection::vec((0u64..300, 1u64..6, 0u64..4, any::<bool>()), 1..250)) {
            let mut ooo = RangeSet::new();
            let mut fast = RecentBlocks::default();
            let mut slow = Reference::default();
            let mut point = 0u64;
            for (a, len, step, dsack) in ops {
                if step == 0 && !ooo.is_empty() {
                    // The cumulative point moves: the set is trimmed.
                    point = (point + a % 20).min(330);
                    ooo.trim_below(point);
                    fast.trimmed(point);
                } else {
                    let s = point + 1 + a;
                    let before = ooo.ranges().len();
                    let idx = ooo.insert(s, s + len, |_, _| {});
                    fast.touch(&ooo, idx, ooo.ranges().len() < before);
                    slow.touch(&ooo, ooo.ranges()[idx].0);
                }
                let first = dsack as usize;
                let d = SackBlock { start: 1, end: 2 };
                let (mut x, mut y) = ([d; MAX_SACK_BLOCKS], [d; MAX_SACK_BLOCKS]);
                let nx = fast.write(&ooo, &mut x, first);
                let ny = slow.write(&ooo, &mut y, first);
                prop_assert_eq!(&x[..nx], &y[..ny]);
            }
        }
    }
}
