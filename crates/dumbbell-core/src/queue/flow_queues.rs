//! What the flow-queueing disciplines (FQ-CoDel, `fq_codel.rs`; CAKE,
//! `cake.rs`) share: the bookkeeping half of `QueueDisc`, which reads the
//! same state in both (`len` packets and `bytes` over all flow queues,
//! `flows[i].q` of `(PktId, enqueue time)`, the `new_flows` and `old_flows`
//! service lists, the `drops` made at dequeue), and the choice of the
//! queue to drop from when the buffer is full ([`fattest`]). Each
//! discipline keeps its own enqueue, dequeue and AQM.

/// The flow queue with the largest backlog (the first of equals; 0 when
/// all are empty) and that backlog, bytes: where Linux `fq_codel_drop` and
/// `cake_drop` take packets from when the buffer is full.
pub(super) fn fattest(backlogs: impl Iterator<Item = u64>) -> (usize, u64) {
    let (mut idx, mut max) = (0, 0);
    for (i, b) in backlogs.enumerate() {
        if b > max {
            max = b;
            idx = i;
        }
    }
    (idx, max)
}

/// `QueueDisc`'s `len_pkts`, `len_bytes`, `peek`, `for_each_packet` and
/// `take_drop` for a discipline of flow queues (fields as in the module
/// docs). `peek` gives the head of the first non-empty queue in service
/// order (new flows first), ignoring deficits and the AQM: an estimate, as
/// two-class ports, its only callers, take neither discipline.
macro_rules! flow_queue_accessors {
    () => {
        fn len_pkts(&self) -> u32 {
            self.len
        }

        fn len_bytes(&self) -> u64 {
            self.bytes
        }

        fn peek(&self) -> Option<$crate::packet::PktId> {
            self.new_flows
                .iter()
                .chain(self.old_flows.iter())
                .find_map(|&i| self.flows[i as usize].q.front().map(|&(p, _)| p))
        }

        fn for_each_packet(&self, f: &mut dyn FnMut($crate::packet::PktId)) {
            for fq in &self.flows {
                fq.q.iter().for_each(|&(p, _)| f(p));
            }
        }

        fn take_drop(&mut self) -> Option<($crate::packet::PktId, $crate::queue::DropReason)> {
            self.drops.pop_front()
        }
    };
}

pub(crate) use flow_queue_accessors;
