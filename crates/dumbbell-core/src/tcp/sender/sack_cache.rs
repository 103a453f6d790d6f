//! The SACK blocks of the previous ACK, as the scoreboard took them (the
//! idea of Linux's `recv_sack_cache`): on a lossy path every ACK repeats
//! the receiver's older blocks, which the scoreboard already holds whole,
//! and only the first block is news. A block within one the scoreboard took
//! before is skipped without searching it: inserting it would have found
//! nothing new and changed nothing, since the scoreboard only grows, but
//! below `snd_una`, where no block reaches after clipping.

use crate::net::packet::MAX_SACK_BLOCKS;

#[derive(Clone, Debug, Default)]
pub(super) struct SackCache {
    blocks: [(u64, u64); MAX_SACK_BLOCKS],
    n: usize,
}

impl SackCache {
    /// `[s, e)` lies within a block remembered from the previous ACK.
    #[inline]
    pub(super) fn covers(&self, s: u64, e: u64) -> bool {
        self.blocks[..self.n]
            .iter()
            .any(|&(cs, ce)| cs <= s && e <= ce)
    }

    /// This ACK's blocks (clipped, non-empty, all in the scoreboard now)
    /// replace the previous ACK's.
    #[inline]
    pub(super) fn replace(&mut self, blocks: [(u64, u64); MAX_SACK_BLOCKS], n: usize) {
        self.blocks = blocks;
        self.n = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covers_only_within_a_remembered_block() {
        let mut c = SackCache::default();
        assert!(!c.covers(10, 20), "nothing remembered");
        c.replace([(10, 20), (30, 40), (0, 0)], 2);
        assert!(c.covers(10, 20) && c.covers(12, 18) && c.covers(30, 40));
        assert!(!c.covers(15, 25), "reaches beyond a block");
        assert!(!c.covers(20, 30), "between blocks");
        assert!(!c.covers(0, 0), "the unused slot is not a block");
    }
}
