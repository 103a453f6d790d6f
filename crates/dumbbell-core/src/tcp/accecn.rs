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

    use crate::cc::prague::{Prague, PragueParams};
    use crate::cc::CongestionControl;
    use crate::config::TcpConfig;
    use crate::net::packet::{Ecn, Packet};
    use crate::sim::{Dur, Time, PS_PER_MS};
    use crate::tcp::receiver::{EcnEcho, Receiver};
    use crate::tcp::sender::Sender;
    use crate::tcp::{Endpoints, Out, TimerKind};

    fn ep() -> Endpoints {
        Endpoints::test(0)
    }

    fn ms(x: u64) -> Time {
        Time::from_ps(x * PS_PER_MS)
    }

    /// A Prague sender's handshake with a receiver echoing `echo`: the
    /// sender, the receiver, the SYN-ACK and the first flight.
    fn prague_handshake(echo: EcnEcho) -> (Sender, Receiver, Packet, Vec<Packet>) {
        let c = TcpConfig {
            ecn: true,
            handshake: true,
            tsq_bytes: 0,
            ..TcpConfig::default()
        };
        let cc = Box::new(Prague::new(PragueParams::default())) as Box<dyn CongestionControl>;
        let mut s = Sender::new(ep(), c.clone(), cc, None, None);
        let mut r = Receiver::new(ep(), &c, echo);
        let mut out = Out::default();
        s.start(Time::ZERO, &mut out);
        let syn = out.pkts[0];
        assert!(
            syn_requests(syn.tcp_flags),
            "an L4S control's SYN asks for AccECN"
        );
        let mut back = Out::default();
        r.on_packet(ms(5), &syn, &mut back);
        let syn_ack = back.pkts[0];
        let mut out = Out::default();
        s.on_ack(ms(10), &syn_ack, &mut out);
        // Prague paces: fire its pacing timers until the window is out.
        let mut flight = std::mem::take(&mut out.pkts);
        while let Some(&(at, kind)) = out
            .timers
            .iter()
            .filter(|t| t.1 == TimerKind::Pacing)
            .min_by_key(|t| t.0)
        {
            out.timers.clear();
            s.on_timer(at, kind, &mut out);
            flight.append(&mut out.pkts);
        }
        (s, r, syn_ack, flight)
    }

    /// Delivers `flight` with every `ce_every`-th packet CE-marked and
    /// returns the receiver's ACKs to the sender.
    fn deliver(s: &mut Sender, r: &mut Receiver, flight: &[Packet], ce_every: usize) -> u64 {
        let mut ce = 0;
        let mut t = ms(20);
        for (i, p) in flight.iter().enumerate() {
            let mut p = *p;
            if i % ce_every == 0 {
                p.ecn = Ecn::Ce;
                ce += 1;
            }
            let mut back = Out::default();
            r.on_packet(t, &p, &mut back);
            for a in &back.pkts {
                s.on_ack(t + Dur::from_ms(10), a, &mut Out::default());
            }
            t += Dur::from_ms(1);
        }
        ce
    }

    #[test]
    fn prague_and_an_accecn_receiver_agree_and_count_every_ce_packet() {
        let (mut s, mut r, syn_ack, flight) = prague_handshake(EcnEcho::AccEcn);
        assert_eq!(agreed(syn_ack.tcp_flags), Agreed::AccEcn);
        assert!(s.tp.ecn_ok && s.tp.accecn_ok);
        assert!(flight.len() >= 10, "{}", flight.len());
        assert!(
            flight.iter().all(|p| p.ecn == Ecn::Ect1),
            "L4S data is ECT(1)"
        );
        // Every third packet marked; delayed ACKs cover two packets each,
        // so an ACK may carry two marks: the counter reports them all.
        let ce = deliver(&mut s, &mut r, &flight, 3);
        assert!(ce >= 4);
        assert_eq!(s.tp.delivered_ce, ce);
        assert_eq!(r.ce_received, ce);
    }

    #[test]
    fn a_classic_receiver_makes_prague_fall_back_to_ece_and_cwr() {
        let (mut s, mut r, syn_ack, flight) = prague_handshake(EcnEcho::Classic);
        assert_eq!(agreed(syn_ack.tcp_flags), Agreed::Classic);
        assert!(s.tp.ecn_ok && !s.tp.accecn_ok);
        let ce = deliver(&mut s, &mut r, &flight, 3);
        assert!(ce > 0);
        // Classic feedback: ECE until CWR, counted per ACKed packet, not
        // per CE packet.
        assert!(s.stats.ece_acks > 0);
        assert_ne!(s.tp.delivered_ce, ce);
    }

    #[test]
    fn an_accecn_receiver_answers_a_classic_syn_classically() {
        let c = TcpConfig {
            ecn: true,
            handshake: true,
            tsq_bytes: 0,
            ..TcpConfig::default()
        };
        let mut s = Sender::new(
            ep(),
            c.clone(),
            Box::new(crate::cc::reno::Reno) as Box<dyn CongestionControl>,
            None,
            None,
        );
        let mut r = Receiver::new(ep(), &c, EcnEcho::AccEcn);
        let mut out = Out::default();
        s.start(Time::ZERO, &mut out);
        assert!(!syn_requests(out.pkts[0].tcp_flags));
        let mut back = Out::default();
        r.on_packet(ms(5), &out.pkts[0], &mut back);
        assert_eq!(agreed(back.pkts[0].tcp_flags), Agreed::Classic);
        s.on_ack(ms(10), &back.pkts[0], &mut Out::default());
        assert!(s.tp.ecn_ok && !s.tp.accecn_ok);
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
