//! The per-packet trace (`record.packets`): one row per event at the
//! chosen ports — a packet enqueued, dequeued (its transmission starts),
//! dropped (by the queue, the netem stage or the wire) or marked — with
//! its flow, sequence number, size and, at a dequeue or a drop from inside
//! the queue, the time it spent queued.
//!
//! Observation only. With no port traced the port path pays one branch
//! per event on [`PacketTrace::on`].

use super::*;

/// Bytes a row takes in the core's columns (`packets` table).
pub const PACKET_ROW_BYTES: u64 = 8 + 4 + 1 + 4 + 8 + 4 + 8 + 16;

/// What happened to the packet.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum PacketEvent {
    Enqueue = 0,
    Dequeue = 1,
    Drop = 2,
    Mark = 3,
}

const EVENT_NAMES: [&str; 4] = ["enqueue", "dequeue", "drop", "mark"];

/// `enq_ps` of a packet not queued at a traced port.
const NOT_QUEUED: u64 = u64::MAX;

#[derive(Default)]
pub(super) struct PacketTrace {
    /// Some port is traced (the one branch the port path pays).
    pub on: bool,
    /// Per port: traced.
    traced: Vec<bool>,
    /// Per packet slot: when it joined a traced port's queue.
    enq_ps: Vec<u64>,
    time: Vec<u64>,
    port: Vec<u32>,
    event: Vec<u8>,
    flow: Vec<u32>,
    seq: Vec<u64>,
    size: Vec<u32>,
    sojourn: Vec<u64>,
    reason: Vec<&'static str>,
}

impl PacketTrace {
    /// The ports of `record.packets`; an error names the field at fault.
    pub(super) fn build(
        cfg: &RunConfig,
        ids: &HashMap<&str, u32>,
        ports_of: &[Vec<(u32, u32)>],
        n_ports: usize,
    ) -> Result<PacketTrace, ConfigError> {
        let list = &cfg.record.packets;
        let mut t = PacketTrace {
            on: !list.is_empty(),
            traced: vec![false; if list.is_empty() { 0 } else { n_ports }],
            ..Default::default()
        };
        for (i, pt) in list.iter().enumerate() {
            let f = format!("record.packets[{i}]");
            let node = |field: &str, s: &str| {
                ids.get(s)
                    .copied()
                    .ok_or_else(|| err(format!("{f}.{field}"), format!("unknown node {s:?}")))
            };
            let a = node("node", &pt.node)?;
            let b = node("peer", &pt.peer)?;
            let Some(&(pid, _)) = ports_of[a as usize].iter().find(|(_, p)| *p == b) else {
                return Err(err(
                    format!("{f}.peer"),
                    format!("{:?} has no link to {:?}", pt.node, pt.peer),
                ));
            };
            t.traced[pid as usize] = true;
        }
        Ok(t)
    }

    pub(super) fn bytes(&self) -> u64 {
        self.time.len() as u64 * PACKET_ROW_BYTES
    }

    /// Records `ev` of packet `k` (slot `slot`) at `port`, if traced.
    pub(super) fn note(
        &mut self,
        now: Time,
        port: u32,
        slot: u32,
        k: &Packet,
        ev: PacketEvent,
        reason: &'static str,
    ) {
        if !self.traced[port as usize] {
            return;
        }
        let slot = slot as usize;
        if self.enq_ps.len() <= slot {
            self.enq_ps.resize(slot + 1, NOT_QUEUED);
        }
        let sojourn = match ev {
            PacketEvent::Enqueue => {
                self.enq_ps[slot] = now.ps();
                0
            }
            PacketEvent::Dequeue | PacketEvent::Drop => {
                let at = std::mem::replace(&mut self.enq_ps[slot], NOT_QUEUED);
                if at == NOT_QUEUED {
                    0
                } else {
                    now.ps() - at
                }
            }
            PacketEvent::Mark => 0,
        };
        self.time.push(now.ps());
        self.port.push(port);
        self.event.push(ev as u8);
        self.flow.push(k.flow);
        self.seq.push(k.seq);
        self.size.push(k.size_bytes);
        self.sojourn.push(sojourn);
        self.reason.push(reason);
    }

    pub(super) fn make_room(&mut self) -> Result<(), std::collections::TryReserveError> {
        crate::trace::headroom_of!(self: time, port, event, flow, seq, size, sojourn, reason)
    }

    /// The `packets` table (None when no port is traced); `ports` names
    /// each port's node and peer.
    pub(super) fn table(self, ports: &[Port], names: &[String]) -> Option<Table> {
        if !self.on {
            return None;
        }
        let node = |p: &u32| names[ports[*p as usize].node as usize].as_str();
        let peer = |p: &u32| names[ports[*p as usize].peer as usize].as_str();
        let nodes = Column::dict_of(self.port.iter().map(node));
        let peers = Column::dict_of(self.port.iter().map(peer));
        Some(
            Table::events("packets", self.time, "port", self.port)
                .with("node", nodes)
                .with("peer", peers)
                .with(
                    "event",
                    Column::Dict(
                        self.event.iter().map(|&e| e as u32).collect(),
                        EVENT_NAMES.iter().map(|s| s.to_string()).collect(),
                    ),
                )
                .with("flow", Column::U32(self.flow))
                .with("seq", Column::U64(self.seq))
                .with("size_bytes", Column::U32(self.size))
                .with("sojourn_ps", Column::U64(self.sojourn))
                .with("reason", Column::dict_of(self.reason.iter().copied())),
        )
    }
}

impl World {
    /// Records `ev` of `pkt` at `port` if the port is traced; called only
    /// when [`PacketTrace::on`].
    #[inline(never)]
    pub(super) fn trace_packet(
        &mut self,
        port: u32,
        pkt: PktId,
        ev: PacketEvent,
        reason: &'static str,
    ) {
        let k = self.pool.get(pkt);
        self.pkts.note(self.now, port, pkt.0, k, ev, reason);
    }
}
