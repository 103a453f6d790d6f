//! The SACK blocks of the previous ACK, as the scoreboard took them (the
//! idea of Linux's `recv_sack_cache`): on a lossy path every ACK repeats
//! the receiver's older blocks, which the scoreboard already holds whole,
//! and only the first block is news. A block within one the scoreboard took
//! before is skipped without searching it: inserting it would have found
//! nothing new and changed nothing, since the scoreboard only grows, but
//! below `snd_una`, where no block reaches after clipping.

use crate::net::packet::MAX_SACK_BLOCKS;

///
/// Two lists, the previous ACK's and this one's, written in place as the
/// blocks are taken and swapped at the end of the ACK: the blocks were
/// gathered on the stack and copied in, and that copy's 16-byte loads of
/// pairs just written as two 8-byte stores waited for them (store
/// forwarding fails on a load wider than the store).
#[derive(Clone, Debug, Default)]
pub(super) struct SackCache {
    blocks: [[(u64, u64); MAX_SACK_BLOCKS]; 2],
    n: [usize; 2],
    /// The previous ACK's list: `blocks[prev][..n[prev]]`.
    prev: usize,
}

impl SackCache {
    /// `[s, e)` lies within a block remembered from the previous ACK.
    #[inline]
    pub(super) fn covers(&self, s: u64, e: u64) -> bool {
        self.blocks[self.prev][..self.n[self.prev]]
            .iter()
            .any(|&(cs, ce)| cs <= s && e <= ce)
    }

    /// The `k`-th block of this ACK (clipped, non-empty, in the scoreboard
    /// once the ACK is taken); the previous ACK's list is left as it is.
    #[inline]
    pub(super) fn take(&mut self, k: usize, s: u64, e: u64) {
        self.blocks[self.prev ^ 1][k] = (s, e);
    }

    /// This ACK's first `n` blocks replace the previous ACK's.
    #[inline]
    pub(super) fn replace(&mut self, n: usize) {
        let next = self.prev ^ 1;
        self.n[next] = n;
        self.prev = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covers_only_within_a_remembered_block() {
        let mut c = SackCache::default();
        assert!(!c.covers(10, 20), "nothing remembered");
        c.take(0, 10, 20);
        c.take(1, 30, 40);
        c.take(2, 0, 0);
        assert!(!c.covers(10, 20), "taken, not yet the previous ACK's");
        c.replace(2);
        assert!(c.covers(10, 20) && c.covers(12, 18) && c.covers(30, 40));
        assert!(!c.covers(15, 25), "reaches beyond a block");
        assert!(!c.covers(20, 30), "between blocks");
        assert!(!c.covers(0, 0), "the unused slot is not a block");
        // The next ACK's blocks, written while the previous ones answer.
        c.take(0, 50, 60);
        assert!(c.covers(30, 40) && !c.covers(50, 60));
        c.replace(1);
        assert!(c.covers(50, 60) && !c.covers(10, 20) && !c.covers(30, 40));
        c.replace(0);
        assert!(!c.covers(50, 60), "an ACK without blocks forgets them");
    }
}
