//! Packets and the packet pool: a layer of its own below `net` (ports hold
//! queues) and `queue` (queues read packets), so neither imports the other.
//!
//! A packet is a plain struct of a hundred-odd bytes that lives in a slab
//! (`PacketPool`) and moves between queues and links by its index (`PktId`).
//! Freed slots are recycled, so a run in steady state allocates nothing per
//! packet. Sequence numbers are 64-bit byte offsets from the connection's
//! initial sequence number: a simulation has no reason to model wrap-around,
//! and 64 bits never wrap.

/// Index of a packet in the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PktId(pub u32);

/// The two ECN bits of the IP header (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct = 0,
    Ect1 = 1,
    Ect0 = 2,
    Ce = 3,
}

impl Ecn {
    pub fn is_ect(self) -> bool {
        self != Ecn::NotEct
    }
}

crate::u8_enum::u8_enum! {
    /// Transport of a packet; its code (0, 1) is what the flow hashes
    /// (ECMP, FQ-CoDel, CAKE) and the capture table's `proto` column read.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
    pub enum Proto {
        #[default]
        Tcp,
        Udp,
    }
}

/// TCP header flags (only those the model uses).
pub mod flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const ACK: u8 = 0x10;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
}

/// Maximum SACK blocks in one ACK: 3, as with TCP timestamps on (RFC 2018).
pub const MAX_SACK_BLOCKS: usize = 3;

/// A SACK block `[start, end)` in sequence space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// Laid out by hand (`repr(C)`) in two cache lines: the first holds what
/// ports and switches read (size, addresses, flow, protocol, hop count,
/// flags) and the sequence numbers; the second the SACK blocks and
/// timestamps, which only the endpoints read. A slot is 128 bytes and
/// starts on a line, so one prefetch brings in a forwarded packet's fields
/// (left to the compiler, they sat at the end of the struct and straddled
/// lines).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub struct Packet {
    /// Size on the wire, headers included.
    pub size_bytes: u32,
    /// Transport payload bytes.
    pub payload_bytes: u32,
    /// Index of the flow in the run (TCP connection or UDP flow).
    pub flow: u32,
    /// Source and destination nodes (the "IP addresses").
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    pub proto: Proto,
    pub ecn: Ecn,
    pub tcp_flags: u8,
    /// Number of SACK blocks in use.
    pub n_sack: u8,
    /// Hops crossed so far.
    pub hops: u8,
    /// A switch-to-sender feedback copy ("packet return" of Silva, Vieira and Nacif,
    /// the hysteresis experiment's paper).
    pub feedback: bool,
    /// True when the application classes this flow as long (oracle tag for
    /// the ideal classifier).
    pub long_flow: bool,
    /// True for data that the sender transmits again.
    pub retransmit: bool,
    pub seq: u64,
    pub ack: u64,
    /// Receive window advertised, in bytes.
    pub rwnd_bytes: u64,
    /// When the packet was created (for one-way delay tracing).
    pub born_ps: u64,
    // The second cache line.
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    /// TCP timestamps option (RFC 7323), milliseconds; 0 = absent.
    pub ts_val: u32,
    pub ts_ecr: u32,
    /// The first segment of a GSO skb a netem stage counting skbs admitted
    /// (`net::netem_gso`): the skb leaves that stage's count when this
    /// packet leaves the port's queue. Cleared then.
    pub skb_head: bool,
    /// More segments of the same TSO skb follow this one: set by a sender
    /// with TSO bursts and `TcpConfig::gro` on every segment of an skb but
    /// its last (`tcp/sender/tso_send.rs`), read by a receiver with `gro`
    /// (`tcp/receiver/gro.rs`).
    pub skb_more: bool,
}

impl Packet {
    pub fn is_data(&self) -> bool {
        self.payload_bytes > 0
    }
    pub fn has(&self, flag: u8) -> bool {
        self.tcp_flags & flag != 0
    }
    pub fn sacks(&self) -> &[SackBlock] {
        &self.sack[..self.n_sack as usize]
    }
}

/// Asks the CPU to bring the cache line at `at` into the cache: a hint,
/// never a fault, no effect on any value.
#[inline(always)]
pub fn prefetch_line<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and changes no memory, whatever the
    // address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast::<i8>())
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// A slab of packets with a free list.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: u64,
}

impl PacketPool {
    pub fn with_capacity(n: usize) -> Self {
        PacketPool {
            slots: Vec::with_capacity(n),
            free: Vec::with_capacity(n),
            live: 0,
        }
    }

    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PktId {
        self.alloc_copy(&p)
    }

    /// Stores a copy of `*p` in a free slot (or a new one), written
    /// straight into it: `World::flush` copies an endpoint's packet from
    /// its output buffer this way, without a copy on the stack first.
    #[inline]
    pub fn alloc_copy(&mut self, p: &Packet) -> PktId {
        self.live += 1;
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = *p;
                PktId(i)
            }
            None => {
                self.slots.push(*p);
                PktId((self.slots.len() - 1) as u32)
            }
        }
    }

    pub fn free(&mut self, id: PktId) {
        debug_assert!((id.0 as usize) < self.slots.len());
        self.live -= 1;
        self.free.push(id.0);
    }

    #[inline]
    pub fn get(&self, id: PktId) -> &Packet {
        &self.slots[id.0 as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PktId) -> &mut Packet {
        &mut self.slots[id.0 as usize]
    }

    /// Asks the CPU to bring `id`'s slot into the cache: a hint with no
    /// effect on results. Packets on a long wire or in a deep queue were
    /// last touched thousands of packets ago; the port prefetches the one
    /// behind the head it hands out, which is needed a serialization later.
    ///
    /// This brings the first cache line, what a port or switch reads.
    #[inline(always)]
    pub fn prefetch(&self, id: PktId) {
        if let Some(slot) = self.slots.get(id.0 as usize) {
            prefetch_line((slot as *const Packet).cast::<u8>());
        }
    }

    /// [`prefetch`](Self::prefetch) of both cache lines, for a packet an
    /// endpoint will read (SACK blocks and timestamps are in the second).
    #[inline(always)]
    pub fn prefetch_whole(&self, id: PktId) {
        if let Some(slot) = self.slots.get(id.0 as usize) {
            let at = (slot as *const Packet).cast::<u8>();
            prefetch_line(at);
            prefetch_line(at.wrapping_add(64));
        }
    }

    /// Packets allocated and not yet freed.
    pub fn live(&self) -> u64 {
        self.live
    }

    /// Slots ever allocated (the pool's high-water mark).
    pub fn capacity_used(&self) -> usize {
        self.slots.len()
    }

    /// Grows the slab fallibly before it fills (see `trace::headroom`).
    pub fn make_room(&mut self) -> Result<(), std::collections::TryReserveError> {
        crate::trace::headroom(&mut self.slots)?;
        crate::trace::headroom(&mut self.free)
    }

    /// Bytes the slab holds.
    pub fn bytes(&self) -> u64 {
        (self.slots.capacity() * std::mem::size_of::<Packet>() + self.free.capacity() * 4) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_recycles_slots() {
        let mut pool = PacketPool::with_capacity(4);
        let a = pool.alloc(Packet {
            size_bytes: 1,
            ..Default::default()
        });
        let b = pool.alloc(Packet {
            size_bytes: 2,
            ..Default::default()
        });
        assert_eq!(pool.live(), 2);
        pool.free(a);
        let c = pool.alloc(Packet {
            size_bytes: 3,
            ..Default::default()
        });
        assert_eq!(c, a, "a freed slot is reused");
        assert_eq!(pool.get(c).size_bytes, 3);
        assert_eq!(pool.get(b).size_bytes, 2);
        assert_eq!(pool.capacity_used(), 2);
        assert_eq!(pool.live(), 2);
    }

    #[test]
    fn packet_stays_small() {
        assert_eq!(std::mem::size_of::<Packet>(), 128);
        assert_eq!(std::mem::align_of::<Packet>(), 64);
    }

    /// What a switch reads of a packet lies in its first cache line.
    #[test]
    fn forwarding_fields_share_the_first_line() {
        use std::mem::offset_of;
        for (name, end) in [
            ("size_bytes", offset_of!(Packet, size_bytes) + 4),
            ("flow", offset_of!(Packet, flow) + 4),
            ("src", offset_of!(Packet, src) + 4),
            ("dst", offset_of!(Packet, dst) + 4),
            ("proto", offset_of!(Packet, proto) + 1),
            ("ecn", offset_of!(Packet, ecn) + 1),
            ("hops", offset_of!(Packet, hops) + 1),
            ("feedback", offset_of!(Packet, feedback) + 1),
            ("long_flow", offset_of!(Packet, long_flow) + 1),
            ("seq", offset_of!(Packet, seq) + 8),
        ] {
            assert!(end <= 64, "{name} ends at byte {end}");
        }
    }
}
