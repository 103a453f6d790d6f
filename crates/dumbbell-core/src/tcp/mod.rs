//! TCP: a Linux-like sender and receiver.
//!
//! RFCs to read first: 9293 (TCP), 5681 (congestion control), 6582
//! (NewReno), 2018 and 6675 (SACK and SACK-based recovery), 6298 (RTO),
//! 3168 (ECN), 8257 (DCTCP's accurate ECE echo), 6937 (Proportional Rate
//! Reduction, what Linux does in recovery), 8985 (RACK-TLP), 7323
//! (timestamps), 3522 (Eifel detection), 2883 (D-SACK), 5682 (F-RTO), and
//! the draft on delivery-rate estimation (Linux `tcp_rate.c`).
//!
//! Neither endpoint touches the network: each takes `now` and an input, and
//! pushes the packets it wants sent and the timers it wants armed into an
//! [`Out`] the world drains. Modelling choices, stated once:
//! - sequence numbers are 64-bit byte offsets of the payload, starting at 0;
//!   SYN and FIN are flags and take no sequence space; nothing wraps;
//! - the FIN rides on the last data segment (as when an application closes
//!   right after its last write);
//! - the receiver application reads at once: the advertised window is the
//!   configured receive buffer, constant;
//! - TCP timestamps (RFC 7323) run on a 1 kHz clock, as Linux's
//!   (`tcp_time_stamp`): [`ts_ms`] of simulated time, never 0.

pub mod accecn;
mod out_whole;
pub mod rack;
pub mod ranges;
pub mod receiver;
pub mod rtt;
pub mod sender;
#[cfg(test)]
pub(crate) mod testkit;

use crate::net::packet::Packet;
use crate::sim::{Time, PS_PER_MS};

/// The TCP timestamp clock (RFC 7323 §5.4; Linux's 1 ms `tcp_time_stamp`):
/// whole milliseconds of simulated time plus one, so that 0 keeps its
/// meaning of "no timestamp", wrapping after 49 days.
pub fn ts_ms(now: Time) -> u32 {
    ((now.ps() / PS_PER_MS) as u32).wrapping_add(1)
}

/// `a` is before `b` on the wrapping timestamp clock (Linux `before()`).
pub fn ts_before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

crate::u8_enum::u8_enum! {
    /// Timers of a connection (the `kind` of `Event::TcpTimer`, its code).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum TimerKind {
        Rto,
        DelAck,
        Pacing,
        Start,
    }
}

// `TimerKind::Rto` is the sender's one retransmission timer, which, as
// Linux's `icsk_pending`, runs in one of three exclusive modes
// (`sender::XmitTimer`): the RTO, RACK's reordering timeout, or the tail
// loss probe.

/// What an endpoint asks of the world: packets to send, timers to schedule.
/// Reused across calls, so steady state allocates nothing.
#[derive(Default)]
pub struct Out {
    pub pkts: Vec<Packet>,
    pub timers: Vec<(Time, TimerKind)>,
    /// TCP small queues began to hold the sender in this call (it waits
    /// for one of its packets to leave the NIC: `world/tsq_wake.rs`).
    pub tsq_held: bool,
}

impl Out {
    pub fn clear(&mut self) {
        self.pkts.clear();
        self.timers.clear();
        self.tsq_held = false;
    }
}

/// Addressing shared by both ends of a connection.
#[derive(Clone, Copy, Debug)]
pub struct Endpoints {
    pub flow: u32,
    /// Sender and receiver nodes.
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
}

#[cfg(test)]
impl Endpoints {
    /// The test benches' connection: flow `flow` from node 1, port 40000,
    /// to node 2, port 5001.
    pub(crate) fn test(flow: u32) -> Self {
        Endpoints {
            flow,
            src: 1,
            dst: 2,
            sport: 40000,
            dport: 5001,
        }
    }
}
