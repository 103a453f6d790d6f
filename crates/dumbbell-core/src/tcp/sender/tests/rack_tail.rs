//! RACK's walks cut short at the first segment still waiting
//! (`sender/rack_tail.rs`): the reordering timer is set for the most
//! recently sent hole before RACK's segment, not the first one met, and
//! every hole is found lost when it fires; on scoreboards laid out by
//! hand, the end of each walk is found past retransmitted slots and
//! delivered retransmissions. (With debug assertions on, each call also
//! checks the shortcut against the full walk.)

use super::*;

/// Linux defaults, reordering seen (a window of min RTT/4 = 25 ms in every
/// state); segments 14..29 sent two per ACK, one ACK a millisecond:
/// 14–15 at 101 ms, 16–17 at 102, …, 28–29 at 108; 14 is cumulatively
/// acked to at 205 ms (RTT samples 100–108 ms, min RTT 100 ms).
fn sender_with_staggered_sends() -> Sender {
    let mut s = sender_after_two_acks(linux_cfg(), reno(), None);
    s.rack.reord_seen = true;
    for a in 3..=10 {
        let out = recv_ack(&mut s, ms(98 + a), a, &[], 0);
        let n = 2 * a + 8;
        assert_eq!(sent(&out), [new(n), new(n + 1)], "slow start, ACK {a}");
    }
    recv_ack(&mut s, ms(205), 14, &[], 0);
    s
}

#[test]
fn reordering_timer_waits_for_the_most_recently_sent_hole() {
    let mut s = sender_with_staggered_sends();
    recv_ack(&mut s, ms(206), 14, &[(15, 17)], 0);
    recv_ack(&mut s, ms(207), 14, &[(18, 20), (15, 17)], 0);
    recv_ack(&mut s, ms(208), 14, &[(21, 24), (18, 20), (15, 17)], 0);
    // RACK's segment is 23 (sent at 105 ms, RACK.rtt 103 ms): a hole
    // waits 103 + 25 ms after it left. Holes 14, 17 and 20 left at 101,
    // 102 and 104 ms: none has waited that long, and 20 waits longest, to
    // 104 + 128 = 232 ms; the timer adds 2 ms. (14 alone would give 229 +
    // 2.) 24..29, sent after 23, are not RACK's to judge.
    assert_eq!(lost(&s), Vec::<u64>::new());
    assert_eq!(s.xmit_mode, XmitTimer::Reo);
    assert_eq!(s.rto_timer.deadline(), Some(ms(234)));
    let (fired, out) = fire_xmit_timer(&mut s);
    assert_eq!(fired, ms(234));
    assert_eq!(lost(&s), [14, 17, 20]);
    assert_eq!(s.tp.ca_state, CaState::Recovery);
    assert_eq!(sent(&out).first(), Some(&rtx(14)));
}

#[test]
fn a_waiting_hole_behind_rack_s_segment_is_not_judged() {
    // The same holes, but RACK's segment is 16 (sent at 102 ms): hole 14
    // (101 ms) waits, 17 and 20 were sent after 16 and do not count.
    let mut s = sender_with_staggered_sends();
    recv_ack(&mut s, ms(206), 14, &[(15, 17)], 0);
    // RACK.rtt 104 ms: 14 waits to 101 + 129 = 230 ms, + 2.
    assert_eq!(s.rto_timer.deadline(), Some(ms(232)));
    assert_eq!(lost(&s), Vec::<u64>::new());
}

/// A scoreboard laid out by hand: slot `i` is segment `i`, last sent at
/// `t` ms, with scoreboard bits `bits` (`snd_una` = 0).
fn board(slots: &[(u64, u8)]) -> Sender {
    let (mut s, _) = sender_established_with(linux_cfg(), reno());
    s.segs.clear();
    s.retx_queue.clear();
    s.tp.snd_una = 0;
    for (i, &(t, bits)) in slots.iter().enumerate() {
        s.segs.push_back(Seg {
            seq: i as u64 * MSS,
            len: MSS as u32,
            bits,
            sent: ms(t),
            tx: TxSnap::default(),
        });
    }
    s
}

#[test]
fn the_scoreboard_walk_s_end_is_found_past_retransmitted_slots() {
    // Slot 0 waits; the originals are sent in order (10, 11, 12, 13, 14,
    // 15, 21, 22 ms), slots 3 and 7 were retransmitted since (their times
    // are the retransmissions').
    let s0 = 0;
    let mut s = board(&[
        (10, s0),                     // 0: the first still waiting
        (11, SACKED),                 // 1
        (12, s0),                     // 2
        (20, SACKED | EVER_RETRANS),  // 3: RACK's segment (below)
        (13, SACKED),                 // 4
        (14, s0),                     // 5
        (15, LOST),                   // 6
        (60, RETRANS | EVER_RETRANS), // 7
        (21, s0),                     // 8: sent after RACK's
        (22, SACKED),                 // 9
    ]);
    let (now, limit) = (ms(100), Dur::from_ms(95));
    // RACK's segment is the retransmission of 3, sent at 20 ms: the walk
    // would go through every original sent before 20 ms and stop at 8. The
    // last waiting one is 5, sent at 14 ms: 95 − 86 = 9 ms left.
    s.rack.xmit = ms(20);
    s.rack.end_seq = 4 * MSS;
    assert_eq!(s.rack_segs_tail(0, now, limit), Dur::from_ms(9));
    // RACK's segment the original 4 (sent at 13 ms): the walk stops at 5;
    // the last waiting before it is 2, sent at 12 ms: 7 ms left.
    s.rack.xmit = ms(13);
    s.rack.end_seq = 5 * MSS;
    assert_eq!(s.rack_segs_tail(0, now, limit), Dur::from_ms(7));
    // Nothing waits between 0 and RACK's segment 2 (sent at 12 ms).
    s.rack.xmit = ms(12);
    s.rack.end_seq = 3 * MSS;
    assert_eq!(s.rack_segs_tail(0, now, limit), Dur::ZERO);
}

#[test]
fn the_retransmission_walk_s_end_is_found_by_send_time() {
    // Six retransmissions, sent at 30..35 ms in slot order; those of 2
    // and 4 were delivered. RACK's segment is 4's retransmission (34 ms).
    let mut s = board(&[
        (30, RETRANS | EVER_RETRANS),
        (31, RETRANS | EVER_RETRANS),
        (32, SACKED | EVER_RETRANS),
        (33, RETRANS | EVER_RETRANS),
        (34, SACKED | EVER_RETRANS),
        (35, RETRANS | EVER_RETRANS),
    ]);
    for i in 0..6 {
        s.retx_queue.push_back((i * MSS, ms(30 + i)));
    }
    s.rack.xmit = ms(34);
    s.rack.end_seq = 5 * MSS;
    // From 0 (waiting) the walk passes 1, 2 (delivered), 3, 4 (delivered)
    // and stops at 5, sent after RACK's: the last outstanding is 3, sent at
    // 33 ms: 95 − (100 − 33) = 28 ms left.
    let (now, limit) = (ms(100), Dur::from_ms(95));
    assert_eq!(s.rack_retx_tail(0, now, limit), Dur::from_ms(28));
    // 3's retransmission delivered too: 1's, 26 ms.
    s.segs[3].bits = SACKED | EVER_RETRANS;
    assert_eq!(s.rack_retx_tail(0, now, limit), Dur::from_ms(26));
}
