//! The senders' RTT samples (`record.rtt_samples`): a row at every ACK
//! that gave the sender an RTT measurement, with its smoothed RTT and the
//! minimum so far. Observation only; off, the ACK path pays one branch.

use super::*;

/// Bytes a row takes in the core's columns (`rtt_samples` table).
pub const RTT_ROW_BYTES: u64 = 8 + 4 + 8 + 8 + 8;

#[derive(Default)]
pub(super) struct RttSamples {
    pub on: bool,
    /// Per flow: the sender's sample count at its last row.
    seen: Vec<u64>,
    time: Vec<u64>,
    flow: Vec<u32>,
    rtt: Vec<u64>,
    srtt: Vec<u64>,
    min_rtt: Vec<u64>,
}

impl RttSamples {
    pub(super) fn new(on: bool) -> Self {
        RttSamples {
            on,
            ..Default::default()
        }
    }

    pub(super) fn bytes(&self) -> u64 {
        self.time.len() as u64 * RTT_ROW_BYTES
    }

    /// After an ACK at `flow`'s sender: a row if it gave a new sample.
    pub(super) fn note(&mut self, now: Time, flow: u32, rtt: &crate::tcp::rtt::RttEstimator) {
        let i = flow as usize;
        if self.seen.len() <= i {
            self.seen.resize(i + 1, 0);
        }
        if rtt.samples() == self.seen[i] {
            return;
        }
        self.seen[i] = rtt.samples();
        self.time.push(now.ps());
        self.flow.push(flow);
        self.rtt.push(rtt.latest().ps());
        self.srtt.push(rtt.srtt().map_or(0, |d| d.ps()));
        self.min_rtt.push(rtt.min_rtt().ps());
    }

    pub(super) fn make_room(&mut self) -> Result<(), std::collections::TryReserveError> {
        crate::trace::headroom_of!(self: time, flow, rtt, srtt, min_rtt)
    }

    /// The `rtt_samples` table (None when off).
    pub(super) fn table(self) -> Option<Table> {
        if !self.on {
            return None;
        }
        Some(
            Table::events("rtt_samples", self.time, "flow", self.flow)
                .with("rtt_ps", Column::U64(self.rtt))
                .with("srtt_ps", Column::U64(self.srtt))
                .with("min_rtt_ps", Column::U64(self.min_rtt)),
        )
    }
}
