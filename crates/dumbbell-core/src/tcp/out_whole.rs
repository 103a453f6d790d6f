//! An endpoint's packet written into [`Out`] in 16-byte stores.
//!
//! `World::flush` copies each packet of `Out` into its pool slot with
//! 16-byte loads. A load is served from the stores still in flight only
//! when one store covers it; a packet written field by field (4-, 2- and
//! 1-byte stores) made every one of those loads wait until the stores
//! reached the cache. Here the fields are packed into the sixteen 8-byte
//! words of the `repr(C)` layout in registers and stored as eight aligned
//! 16-byte units, one per load of the copy. The values are the same; only
//! the widths of the stores change.

use super::Out;
use crate::net::packet::{Packet, SackBlock, MAX_SACK_BLOCKS};
use core::mem::{offset_of, size_of};

// The layout `words` packs: checked when the crate compiles.
const _: () = {
    assert!(size_of::<Packet>() == 128 && MAX_SACK_BLOCKS == 3);
    assert!(offset_of!(Packet, payload_bytes) == 4 && offset_of!(Packet, flow) == 8);
    assert!(offset_of!(Packet, src) == 12 && offset_of!(Packet, dst) == 16);
    assert!(offset_of!(Packet, sport) == 20 && offset_of!(Packet, dport) == 22);
    assert!(offset_of!(Packet, proto) == 24 && offset_of!(Packet, ecn) == 25);
    assert!(offset_of!(Packet, tcp_flags) == 26 && offset_of!(Packet, n_sack) == 27);
    assert!(offset_of!(Packet, hops) == 28 && offset_of!(Packet, feedback) == 29);
    assert!(offset_of!(Packet, long_flow) == 30 && offset_of!(Packet, retransmit) == 31);
    assert!(offset_of!(Packet, seq) == 32 && offset_of!(Packet, ack) == 40);
    assert!(offset_of!(Packet, rwnd_bytes) == 48 && offset_of!(Packet, born_ps) == 56);
    assert!(offset_of!(Packet, sack) == 64 && offset_of!(Packet, ts_val) == 112);
    assert!(offset_of!(Packet, ts_ecr) == 116 && offset_of!(Packet, skb_head) == 120);
    assert!(offset_of!(Packet, skb_more) == 121);
};

/// `p`'s 128 bytes as little-endian words, padding zero.
///
/// Every field is named here, the SACK blocks' too (no `..`): a field
/// added to `Packet` or `SackBlock`, even one that fits in today's
/// padding, stops this from compiling instead of being stored as zero.
#[inline(always)]
fn words(p: &Packet) -> [u64; 16] {
    let Packet {
        size_bytes,
        payload_bytes,
        flow,
        src,
        dst,
        sport,
        dport,
        proto,
        ecn,
        tcp_flags,
        n_sack,
        hops,
        feedback,
        long_flow,
        retransmit,
        seq,
        ack,
        rwnd_bytes,
        born_ps,
        sack: [s0, s1, s2],
        ts_val,
        ts_ecr,
        skb_head,
        skb_more,
    } = *p;
    let SackBlock { start: a0, end: b0 } = s0;
    let SackBlock { start: a1, end: b1 } = s1;
    let SackBlock { start: a2, end: b2 } = s2;
    let b = |x: bool| x as u64;
    [
        size_bytes as u64 | (payload_bytes as u64) << 32,
        flow as u64 | (src as u64) << 32,
        dst as u64 | (sport as u64) << 32 | (dport as u64) << 48,
        proto as u8 as u64
            | (ecn as u8 as u64) << 8
            | (tcp_flags as u64) << 16
            | (n_sack as u64) << 24
            | (hops as u64) << 32
            | b(feedback) << 40
            | b(long_flow) << 48
            | b(retransmit) << 56,
        seq,
        ack,
        rwnd_bytes,
        born_ps,
        a0,
        b0,
        a1,
        b1,
        a2,
        b2,
        ts_val as u64 | (ts_ecr as u64) << 32,
        b(skb_head) | b(skb_more) << 8,
    ]
}

impl Out {
    /// Appends `p` (as `pkts.push(p)`), stored in 16-byte units.
    #[inline(always)]
    pub fn push_whole(&mut self, p: Packet) {
        #[cfg(all(target_arch = "x86_64", target_endian = "little"))]
        {
            use core::arch::x86_64::{__m128i, _mm_set_epi64x, _mm_store_si128};
            let w = words(&p);
            self.pkts.reserve(1);
            let len = self.pkts.len();
            // SAFETY: `reserve(1)` leaves room for a packet at `len`, aligned
            // to 64 bytes (`Packet`'s alignment), so its eight 16-byte units
            // are aligned and in bounds. They receive all 128 bytes: `words`
            // puts each field's value at its offset (checked above), bools
            // as 0/1 and the enums as their `repr(u8)` discriminants, the
            // padding zero; so the slot holds a valid `Packet` equal to `p`
            // before the length covers it.
            unsafe {
                let dst = self.pkts.as_mut_ptr().add(len).cast::<__m128i>();
                for i in 0..8 {
                    let v = _mm_set_epi64x(w[2 * i + 1] as i64, w[2 * i] as i64);
                    _mm_store_si128(dst.add(i), v);
                }
                self.pkts.set_len(len + 1);
            }
        }
        #[cfg(not(all(target_arch = "x86_64", target_endian = "little")))]
        self.pkts.push(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Ecn, Proto, SackBlock};

    /// Every field of a pushed packet reads back as written, with values
    /// that fill each field's bits (a field at a wrong offset or shift
    /// would show in another's).
    #[test]
    fn push_whole_reads_back_every_field() {
        let mut out = Out::default();
        let full = Packet {
            size_bytes: 0xfedc_ba98,
            payload_bytes: 0x7654_3210,
            flow: 0x0123_4567,
            src: 0x89ab_cdef,
            dst: 0xdead_beef,
            sport: 0xabcd,
            dport: 0x1234,
            proto: Proto::Udp,
            ecn: Ecn::Ce,
            tcp_flags: 0xa5,
            n_sack: 3,
            hops: 0xfe,
            feedback: true,
            long_flow: false,
            retransmit: true,
            seq: u64::MAX - 1,
            ack: 0x0102_0304_0506_0708,
            rwnd_bytes: 0x1111_2222_3333_4444,
            born_ps: 0x8000_0000_0000_0001,
            sack: [
                SackBlock {
                    start: 1,
                    end: u64::MAX,
                },
                SackBlock {
                    start: 0x5555_5555_5555_5555,
                    end: 3,
                },
                SackBlock {
                    start: 4,
                    end: 0xaaaa_aaaa_aaaa_aaaa,
                },
            ],
            ts_val: 0xcafe_f00d,
            ts_ecr: 0x0bad_c0de,
            skb_head: true,
            skb_more: true,
        };
        let other = Packet {
            long_flow: true,
            feedback: false,
            retransmit: false,
            skb_head: false,
            skb_more: true,
            proto: Proto::Tcp,
            ecn: Ecn::Ect1,
            ..Packet::default()
        };
        for (i, p) in [full, other, Packet::default(), full]
            .into_iter()
            .enumerate()
        {
            out.push_whole(p);
            assert_eq!(out.pkts.len(), i + 1);
            assert_eq!(format!("{:?}", out.pkts[i]), format!("{p:?}"));
        }
    }
}
