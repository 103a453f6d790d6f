//! What the single-queue delay disciplines (CoDel, `codel.rs`; PIE,
//! `pie.rs`) share: the bookkeeping half of `QueueDisc` over one FIFO `q`
//! of `(PktId, enqueue time)` and its `bytes`. Each keeps its own enqueue,
//! dequeue and drop law.

/// `QueueDisc`'s `len_pkts`, `len_bytes`, `peek` and `for_each_packet` for
/// a discipline holding one FIFO `q` of `(PktId, Time)` and `bytes`. `peek`
/// gives the head packet; a dequeue may drop it and hand out a later one.
macro_rules! timed_fifo_accessors {
    () => {
        fn len_pkts(&self) -> u32 {
            self.q.len() as u32
        }

        fn len_bytes(&self) -> u64 {
            self.bytes
        }

        fn peek(&self) -> Option<$crate::packet::PktId> {
            self.q.front().map(|&(p, _)| p)
        }

        fn for_each_packet(&self, f: &mut dyn FnMut($crate::packet::PktId)) {
            self.q.iter().for_each(|&(p, _)| f(p));
        }
    };
}

pub(crate) use timed_fifo_accessors;
