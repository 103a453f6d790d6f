//! RACK's walks cut short at the first segment still waiting
//! (`sender/rack_tail.rs`): the reordering timer is set for the most
//! recently sent hole before RACK's segment, not the first one met, and
//! every hole is found lost when it fires. (With debug assertions on,
//! each call also checks the shortcut against the full walk.)

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
