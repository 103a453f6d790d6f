//! TSO-sized bursts (`TcpConfig::gso_max_bytes`, `tso_send.rs`) of a
//! sender paced by its rate cap: the initial window leaves as two skbs of
//! half the window (Linux `tcp_cwnd_test`), the second one skb's wire bytes
//! at the cap later; lost segments are retransmitted together in one skb,
//! where the per-segment pacer sends one.

use super::*;

const CAP: u64 = 1_000_000_000;

fn capped(gso: u32) -> TcpConfig {
    TcpConfig {
        max_rate_bps: CAP,
        gso_max_bytes: gso,
        ..cfg()
    }
}

/// Fires the pacing timer `out` asked for; returns its time and what it sent.
fn fire_pacing(s: &mut Sender, out: &Out) -> (Time, Out) {
    let at = out
        .timers
        .iter()
        .find(|t| t.1 == TimerKind::Pacing)
        .expect("a pacing timer")
        .0;
    let mut next = Out::default();
    s.on_timer(at, TimerKind::Pacing, &mut next);
    (at, next)
}

#[test]
fn initial_window_leaves_as_two_skbs_of_half_the_window() {
    let (mut s, out) = sender_established_with(capped(65_536), reno());
    assert_eq!(sent(&out), (0..5).map(new).collect::<Vec<_>>());
    let (at, second) = fire_pacing(&mut s, &out);
    // The gap is the first skb's wire bytes at the cap: 5 × 1488 B at 1 Gb/s.
    assert_eq!(
        at,
        Time::ZERO + Dur::serialization(5 * (MSS + HDR as u64), CAP)
    );
    assert_eq!(sent(&second), (5..10).map(new).collect::<Vec<_>>());
}

/// Segments 0..5 lost (SACKs of 5..10): the window's room allows five
/// retransmissions; with TSO they leave at once as one skb, without it the
/// cap spaces them and only the first leaves now.
#[test]
fn consecutive_lost_segments_are_retransmitted_in_one_skb() {
    let mut sent_now = vec![];
    for gso in [65_536, 0] {
        let (mut s, out) = sender_established_with(capped(gso), reno());
        let mut out = out;
        while s.tp.snd_nxt < 10 * MSS {
            out = fire_pacing(&mut s, &out).1;
        }
        let rtx_out = recv_ack(&mut s, ms(10), 0, &[(5, 10)], 0);
        assert_eq!(s.tp.ca_state, CaState::Recovery);
        sent_now.push(sent(&rtx_out));
    }
    assert_eq!(sent_now[0], (0..5).map(rtx).collect::<Vec<_>>());
    assert_eq!(sent_now[1], vec![rtx(0)]);
}
