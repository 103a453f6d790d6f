//! CAKE's shaper (Linux `sch_cake.c`, `cake_advance_shaper` and the
//! watchdog in `cake_dequeue`): deficit-based in time, not a token
//! bucket. Each packet sent moves the next permitted send time forward by
//! its (overhead-adjusted) length at the shaped rate; a packet may leave
//! once that time has come, and an idle shaper starts again from now
//! (Linux resets `time_next_packet` when the queue was empty). There is no
//! burst allowance: at most one packet is ever early.
//!
//! In the simulator the shaper is the port's: the port holds its
//! serializer for the longer of the packet's serialization at the link
//! rate and its time at the shaped rate ([`Shaper::hold`]), and the next
//! dequeue happens when that hold ends. The packet itself crosses the wire
//! at the link rate, as a real shaper's line-rate bursts of one packet. A
//! shaper below the link rate therefore makes the queue form in CAKE and
//! not in whatever buffer lies beyond (a modem's, in the home-gateway
//! picture the paper draws).
//!
//! Overhead compensation (Linux `overhead` and `mpu`, off by default): the
//! length charged is `max(size + overhead, mpu)`. Linux's ATM and PTM
//! framing (cell rounding) is not modelled.

use crate::sim::Dur;

/// The shaped rate and its length compensation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shaper {
    /// Bits per second (Linux's `bandwidth`; never zero here: an unshaped
    /// CAKE has no `Shaper`).
    pub rate_bps: u64,
    /// Bytes added to every packet's size (framing the link adds).
    pub overhead_bytes: u32,
    /// Least length charged per packet, bytes.
    pub mpu_bytes: u32,
}

impl Shaper {
    /// The length charged for a packet of `size` bytes (Linux
    /// `cake_calc_overhead` without ATM/PTM).
    pub fn adjusted_len(&self, size: u32) -> u32 {
        adjusted_len(size, self.overhead_bytes, self.mpu_bytes)
    }

    /// How long sending `size` bytes takes at the shaped rate: the least
    /// time from one departure to the next.
    pub fn hold(&self, size: u32) -> Dur {
        Dur::serialization(self.adjusted_len(size) as u64, self.rate_bps)
    }
}

/// `max(size + overhead, mpu)`.
pub fn adjusted_len(size: u32, overhead_bytes: u32, mpu_bytes: u32) -> u32 {
    (size + overhead_bytes).max(mpu_bytes)
}
