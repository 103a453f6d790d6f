//! Packet return ("retorno de pacotes", Silva, Vieira and Nacif, "Data
//! Center TCP com Histerese em Switches P4", §4.2): a switch-to-sender
//! feedback policy at an egress queue.
//!
//! The port consults the policy for every packet that passes its point of
//! measurement (at enqueue: the occupancy the arrival finds; at dequeue, the
//! paper's P4 egress: what the departure leaves behind). The congestion
//! decision is a [`Decision`] — the very step and hysteresis objects the
//! marking policies use (`queue::aqm`), so its state moves on every packet
//! as Algorithm 1 says. When it says "congested" and the packet is
//! *eligible*, the switch sends a copy back toward the packet's source and
//! forwards the original unmarked:
//!
//! - eligible: TCP data (payload > 0), not itself a returned copy, not
//!   already CE-marked ("a packet already cloned or marked is not cloned
//!   again", §4.2). UDP is never returned: the paper returns TCP segments,
//!   whose senders can react;
//! - the copy: source and destination (nodes and ports) swapped, the
//!   feedback flag set, CE set (the paper marks returned packets with
//!   ECN = 11 in its ingress), the same flow id and sequence number; full
//!   size by default, as the paper's clones, or a 64-byte header-only copy
//!   ([`CopySize::Header`]);
//! - the copy is a packet like any other from then on: the world sends it
//!   through the switch's own pipeline and queues and the reverse path, so it
//!   can be delayed or dropped, and it counts in packet conservation.
//!
//! What the sender does with a copy is `tcp::sender::Sender::on_returned`
//! (see the per-event list in `cc/mod.rs`).

use super::aqm::MarkAt;
use super::aqm::{Decision, MarkPoint};
use super::Occupancy;
use crate::packet::{Ecn, Packet, Proto};
use serde::{Deserialize, Serialize};

/// Size of a returned copy.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum CopyConfig {
    /// The whole packet (the paper's clones).
    #[default]
    Full,
    /// 64 bytes of headers.
    Header,
}

/// The packet-return policy of a queue: its decision (step at K, or
/// hysteresis between L_I and L_S), where it reads the queue (default
/// dequeue, the paper's P4 egress) and the size of the copies.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum FeedbackConfig {
    Step {
        k_pkts: u32,
        #[serde(default = "dequeue")]
        at: MarkAt,
        #[serde(default)]
        copy: CopyConfig,
    },
    Hysteresis {
        upper_pkts: u32,
        lower_pkts: u32,
        #[serde(default = "dequeue")]
        at: MarkAt,
        #[serde(default)]
        copy: CopyConfig,
    },
}

fn dequeue() -> MarkAt {
    MarkAt::Dequeue
}

impl FeedbackConfig {
    /// Refuses thresholds out of range or out of order, naming the
    /// parameter (relative to the `feedback` table).
    pub fn check(&self) -> Result<(), crate::param::ParamError> {
        match self {
            FeedbackConfig::Step { .. } => Ok(()),
            FeedbackConfig::Hysteresis {
                upper_pkts,
                lower_pkts,
                ..
            } => super::aqm::check_thresholds(
                super::aqm::HYSTERESIS_PARAMS,
                *upper_pkts,
                *lower_pkts,
            ),
        }
    }
}

/// Size of a returned copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopySize {
    /// The whole packet, as the paper's clones.
    Full,
    /// Headers only: [`HEADER_COPY_BYTES`] on the wire, no payload.
    Header,
}

/// Wire size of a header-only copy: Ethernet minimum frame, enough for the
/// IP and TCP headers.
pub const HEADER_COPY_BYTES: u32 = 64;

/// The packet-return policy of one egress queue.
#[derive(Clone, Debug)]
pub struct Feedback {
    pub decision: Decision,
    pub copy: CopySize,
}

impl Feedback {
    pub fn at(&self) -> MarkPoint {
        self.decision.at()
    }

    /// Consults the decision for `p` seen with occupancy `occ`; true if `p`
    /// must be returned.
    pub fn consult(&mut self, occ: Occupancy, p: &Packet) -> bool {
        let congested = self.decision.decide(occ);
        congested && eligible(p)
    }

    /// The copy of `p` sent back toward its source, created at `now_ps`.
    pub fn copy_of(&self, p: &Packet, now_ps: u64) -> Packet {
        let (size_bytes, payload_bytes) = match self.copy {
            CopySize::Full => (p.size_bytes, p.payload_bytes),
            CopySize::Header => (HEADER_COPY_BYTES, 0),
        };
        Packet {
            size_bytes,
            payload_bytes,
            src: p.dst,
            dst: p.src,
            sport: p.dport,
            dport: p.sport,
            ecn: Ecn::Ce,
            feedback: true,
            hops: 0,
            n_sack: 0,
            born_ps: now_ps,
            ..*p
        }
    }
}

/// TCP data that is neither a returned copy nor already CE-marked.
pub fn eligible(p: &Packet) -> bool {
    p.proto == Proto::Tcp && p.payload_bytes > 0 && !p.feedback && p.ecn != Ecn::Ce
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::aqm::{Hysteresis, StepMark, Threshold};

    fn data(ecn: Ecn) -> Packet {
        Packet {
            size_bytes: 1500,
            payload_bytes: 1460,
            flow: 3,
            src: 1,
            dst: 2,
            sport: 10_003,
            dport: 5001,
            proto: Proto::Tcp,
            ecn,
            seq: 14_600,
            ..Default::default()
        }
    }

    fn occ(pkts: u32) -> Occupancy {
        Occupancy {
            pkts,
            bytes: pkts as u64 * 1500,
        }
    }

    fn step(k: u32) -> Feedback {
        Feedback {
            decision: Decision::Step(StepMark {
                k: Threshold::Pkts(k),
                at: MarkPoint::Dequeue,
            }),
            copy: CopySize::Full,
        }
    }

    #[test]
    fn only_tcp_data_not_returned_not_marked_is_eligible() {
        assert!(eligible(&data(Ecn::Ect0)));
        assert!(eligible(&data(Ecn::NotEct)), "the return does not need ECN");
        assert!(!eligible(&data(Ecn::Ce)), "already marked");
        let copy = Packet {
            feedback: true,
            ..data(Ecn::Ect0)
        };
        assert!(!eligible(&copy), "copies are never copied again");
        let ack = Packet {
            payload_bytes: 0,
            size_bytes: 40,
            ..data(Ecn::NotEct)
        };
        assert!(!eligible(&ack), "pure ACKs carry no data");
        let udp = Packet {
            proto: Proto::Udp,
            ..data(Ecn::NotEct)
        };
        assert!(!eligible(&udp), "UDP senders cannot react");
    }

    #[test]
    fn step_returns_at_and_above_k_only() {
        let mut f = step(42);
        let p = data(Ecn::Ect0);
        assert!(!f.consult(occ(41), &p));
        assert!(f.consult(occ(42), &p));
        assert!(f.consult(occ(60), &p));
        assert!(!f.consult(occ(60), &data(Ecn::Ce)));
    }

    #[test]
    fn hysteresis_state_moves_on_ineligible_packets_too() {
        let mut f = Feedback {
            decision: Decision::Hysteresis(Hysteresis {
                upper: Threshold::Pkts(42),
                lower: Threshold::Pkts(36),
                at: MarkPoint::Dequeue,
                congested: false,
            }),
            copy: CopySize::Full,
        };
        let udp = Packet {
            proto: Proto::Udp,
            ..data(Ecn::NotEct)
        };
        // A UDP departure leaving 43 sets the state; the next TCP segment,
        // leaving 38 (in the band), is returned.
        assert!(!f.consult(occ(43), &udp));
        assert!(f.decision.congested(occ(0)));
        assert!(f.consult(occ(38), &data(Ecn::Ect0)));
        // A UDP departure leaving 35 clears it; a TCP segment leaving 40 is not.
        assert!(!f.consult(occ(35), &udp));
        assert!(!f.consult(occ(40), &data(Ecn::Ect0)));
    }

    #[test]
    fn copy_swaps_addresses_sets_the_flag_and_ce() {
        let p = data(Ecn::Ect0);
        let c = step(1).copy_of(&p, 777);
        assert_eq!((c.src, c.dst, c.sport, c.dport), (2, 1, 5001, 10_003));
        assert!(c.feedback);
        assert_eq!(c.ecn, Ecn::Ce);
        assert_eq!((c.flow, c.seq, c.proto), (3, 14_600, Proto::Tcp));
        assert_eq!((c.size_bytes, c.payload_bytes), (1500, 1460), "full copy");
        assert_eq!(c.born_ps, 777);
        let mut h = step(1);
        h.copy = CopySize::Header;
        let c = h.copy_of(&p, 0);
        assert_eq!((c.size_bytes, c.payload_bytes), (HEADER_COPY_BYTES, 0));
    }
}
