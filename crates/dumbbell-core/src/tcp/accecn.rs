//! Accurate ECN feedback (RFC 9768, "More Accurate Explicit Congestion
//! Notification (AccECN) Feedback in TCP"; the IETF draft before it): the
//! parts the model needs.
//!
//! - **The ACE field.** Three header bits, AE (the bit once called NS),
//!   CWR and ECE, read together as a counter: on every ACK the receiver
//!   puts the number of CE-marked packets it has received (`r.cep`),
//!   modulo 8, starting at 5. The sender counts the increase since the
//!   previous ACK, modulo 8 ([`AceCounter::delta`]), into `delivered_ce`.
//!   In the model's one-byte flags, AE is the bit of the URG flag, which
//!   the model does not otherwise use ([`AE`]); on the wire it is bit 8 of
//!   the header's flags.
//! - **Negotiation in the handshake.** An AccECN SYN sets AE, CWR and ECE.
//!   A receiver that supports it answers with ACE = 0b010 (CWR alone; the
//!   SYN arrived Not-ECT, as ours do); a classic ECN receiver (RFC 3168)
//!   sees ECE and CWR and answers ECE alone, and the sender **falls back**
//!   to classic ECE/CWR feedback; a receiver without ECN answers with
//!   none, and ECN is off.
//! - **Wrap protection.** The receiver ACKs at once when CE packets not yet
//!   reported reach [`ACE_IMMEDIATE`], so the counter cannot wrap between
//!   two ACKs (the RFC's rule for the ACE field without the option).
//!
//! Not modelled: the AccECN TCP option (byte counters of CE, ECT(0) and
//! ECT(1)), the counters of ECT packets, the SYN's own codepoint
//! feedback, and mangled-field detection; the CE packet count is what
//! TCP Prague reads when the option is absent.

use crate::net::packet::flags;

/// The AE bit in the model's flag byte (the URG position; see above).
pub const AE: u8 = 0x20;

/// ACE bits of an AccECN-setup SYN: AE, CWR and ECE.
pub const SYN_REQUEST: u8 = AE | flags::CWR | flags::ECE;

/// `r.cep`'s initial value (RFC 9768 §3.2.1).
pub const CEP_INIT: u32 = 5;

/// CE packets not yet reported that make the receiver ACK at once.
pub const ACE_IMMEDIATE: u32 = 6;

/// The SYN asks for AccECN.
pub fn syn_requests(tcp_flags: u8) -> bool {
    tcp_flags & SYN_REQUEST == SYN_REQUEST
}

/// The SYN-ACK of an AccECN receiver to a Not-ECT SYN: ACE = 0b010.
pub const SYN_ACK_ACCEPT: u8 = flags::CWR;

/// What the SYN-ACK says was agreed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreed {
    AccEcn,
    Classic,
    None,
}

/// Reads a SYN-ACK's ECN flags (a request for AccECN was sent).
pub fn agreed(tcp_flags: u8) -> Agreed {
    let ace = ace_of(tcp_flags);
    match ace {
        0b000 => Agreed::None,
        0b001 => Agreed::Classic, // ECE alone: RFC 3168
        0b111 => Agreed::None,    // a reflector echoing the flags: broken
        _ => Agreed::AccEcn,
    }
}

/// The ACE field as a number 0..8 (AE the high bit, ECE the low).
pub fn ace_of(tcp_flags: u8) -> u32 {
    ((tcp_flags & AE != 0) as u32) << 2
        | ((tcp_flags & flags::CWR != 0) as u32) << 1
        | (tcp_flags & flags::ECE != 0) as u32
}

/// The flag bits carrying `cep` modulo 8 in the ACE field.
pub fn ace_flags(cep: u32) -> u8 {
    let v = cep & 7;
    let mut f = 0;
    if v & 4 != 0 {
        f |= AE;
    }
    if v & 2 != 0 {
        f |= flags::CWR;
    }
    if v & 1 != 0 {
        f |= flags::ECE;
    }
    f
}

/// The sender's view of the receiver's counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AceCounter {
    last: u32,
}

impl Default for AceCounter {
    fn default() -> Self {
        AceCounter { last: CEP_INIT & 7 }
    }
}

impl AceCounter {
    /// CE packets newly reported by an ACK with these flags.
    pub fn delta(&mut self, tcp_flags: u8) -> u32 {
        let ace = ace_of(tcp_flags);
        let d = (ace + 8 - self.last) & 7;
        self.last = ace;
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ace_field_round_trips_and_counts_modulo_8() {
        for cep in 0..40 {
            assert_eq!(ace_of(ace_flags(cep)), cep & 7);
        }
        let mut c = AceCounter::default();
        let mut cep = CEP_INIT;
        for step in [0, 1, 2, 0, 5, 7, 3] {
            cep += step;
            assert_eq!(c.delta(ace_flags(cep)), step);
        }
    }

    #[test]
    fn the_handshake_tells_accecn_classic_and_none_apart() {
        assert!(syn_requests(SYN_REQUEST | flags::SYN));
        assert!(!syn_requests(flags::CWR | flags::ECE | flags::SYN));
        assert_eq!(
            agreed(SYN_ACK_ACCEPT | flags::SYN | flags::ACK),
            Agreed::AccEcn
        );
        assert_eq!(
            agreed(flags::ECE | flags::SYN | flags::ACK),
            Agreed::Classic
        );
        assert_eq!(agreed(flags::SYN | flags::ACK), Agreed::None);
    }
}
