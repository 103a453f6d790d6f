//! Packet capture (`record.pcap`): the header fields of every packet seen
//! at a capture point, one row each in the `captures` table, from which
//! Python writes one pcap file per point (`python/dumbbell/run/pcap.py`).
//!
//! A point is a port (`node` toward `peer`: each packet as its
//! transmission starts, before the wire's loss) or a host (each packet it
//! puts on the wire at any of its ports, and each packet delivered to
//! it). Capture observes only: it draws nothing and changes no packet.
//! With no point configured the port and delivery paths pay one branch
//! on [`Capture::on`].

use super::*;

/// Bytes a captured row takes in the core's columns
/// (`captures` table: see [`CaptureRows`]).
pub const CAPTURE_ROW_BYTES: u64 = 8 + 14 * 4 + 9 * 8 + 2;

/// The captured rows, column by column.
#[derive(Default)]
struct CaptureRows {
    time: Vec<u64>,
    point: Vec<u32>,
    rx: Vec<bool>,
    flow: Vec<u32>,
    src: Vec<u32>,
    dst: Vec<u32>,
    sport: Vec<u32>,
    dport: Vec<u32>,
    proto: Vec<u32>,
    ecn: Vec<u32>,
    flags: Vec<u32>,
    seq: Vec<u64>,
    ack: Vec<u64>,
    rwnd: Vec<u64>,
    size: Vec<u32>,
    payload: Vec<u32>,
    n_sack: Vec<u32>,
    sack: [Vec<u64>; 6],
    ts_val: Vec<u32>,
    ts_ecr: Vec<u32>,
    hops: Vec<u32>,
    retransmit: Vec<bool>,
}

/// The capture points and what they recorded.
#[derive(Default)]
pub(super) struct Capture {
    /// Some point is configured (the one branch the hot paths pay).
    pub on: bool,
    /// The points capturing at each port (egress), by port id.
    port_points: Vec<Vec<u32>>,
    /// The point capturing deliveries at each node (`u32::MAX`: none).
    node_point: Vec<u32>,
    rows: CaptureRows,
}

impl Capture {
    /// The points of `record.pcap`, resolved to ports and nodes; an error
    /// names `record.pcap[i]`'s field at fault.
    pub(super) fn build(
        cfg: &RunConfig,
        ids: &HashMap<&str, u32>,
        ports_of: &[Vec<(u32, u32)>],
        node_kinds: &[NodeKind],
        n_ports: usize,
    ) -> Result<Capture, ConfigError> {
        let points = &cfg.record.pcap;
        let mut c = Capture {
            on: !points.is_empty(),
            port_points: vec![Vec::new(); if points.is_empty() { 0 } else { n_ports }],
            node_point: vec![
                u32::MAX;
                if points.is_empty() {
                    0
                } else {
                    node_kinds.len()
                }
            ],
            rows: CaptureRows::default(),
        };
        let name = |f: String, s: &str| -> Result<u32, ConfigError> {
            ids.get(s)
                .copied()
                .ok_or_else(|| err(f, format!("unknown node {s:?}")))
        };
        for (i, pt) in points.iter().enumerate() {
            let f = format!("record.pcap[{i}]");
            match (&pt.host, &pt.node, &pt.peer) {
                (Some(h), None, None) => {
                    let n = name(format!("{f}.host"), h)?;
                    if node_kinds[n as usize] != NodeKind::Host {
                        return Err(err(
                            format!("{f}.host"),
                            format!(
                                "{h:?} is a switch; capture one of its ports with node and peer"
                            ),
                        ));
                    }
                    if c.node_point[n as usize] != u32::MAX {
                        return Err(err(format!("{f}.host"), format!("{h:?} is captured twice")));
                    }
                    c.node_point[n as usize] = i as u32;
                    for &(pid, _) in &ports_of[n as usize] {
                        c.port_points[pid as usize].push(i as u32);
                    }
                }
                (None, Some(a), Some(b)) => {
                    let na = name(format!("{f}.node"), a)?;
                    let nb = name(format!("{f}.peer"), b)?;
                    let Some(&(pid, _)) = ports_of[na as usize].iter().find(|(_, p)| *p == nb)
                    else {
                        return Err(err(
                            format!("{f}.peer"),
                            format!("{a:?} has no link to {b:?}"),
                        ));
                    };
                    c.port_points[pid as usize].push(i as u32);
                }
                _ => {
                    return Err(err(
                        f,
                        "give either host (every packet a host sends and receives) \
                         or node and peer (a port)",
                    ))
                }
            }
        }
        Ok(c)
    }

    /// Bytes the captured rows hold.
    pub(super) fn bytes(&self) -> u64 {
        self.rows.time.len() as u64 * CAPTURE_ROW_BYTES
    }

    fn push(&mut self, time: u64, point: u32, rx: bool, k: &Packet) {
        let r = &mut self.rows;
        r.time.push(time);
        r.point.push(point);
        r.rx.push(rx);
        r.flow.push(k.flow);
        r.src.push(k.src);
        r.dst.push(k.dst);
        r.sport.push(k.sport as u32);
        r.dport.push(k.dport as u32);
        r.proto.push(k.proto as u32);
        r.ecn.push(k.ecn as u32);
        r.flags.push(k.tcp_flags as u32);
        r.seq.push(k.seq);
        r.ack.push(k.ack);
        r.rwnd.push(k.rwnd_bytes);
        r.size.push(k.size_bytes);
        r.payload.push(k.payload_bytes);
        r.n_sack.push(k.n_sack as u32);
        for (j, b) in k.sack.iter().enumerate() {
            r.sack[2 * j].push(b.start);
            r.sack[2 * j + 1].push(b.end);
        }
        r.ts_val.push(k.ts_val);
        r.ts_ecr.push(k.ts_ecr);
        r.hops.push(k.hops as u32);
        r.retransmit.push(k.retransmit);
    }

    /// `k` starts its transmission at `port` at `time`.
    pub(super) fn on_tx(&mut self, port: u32, time: u64, k: &Packet) {
        for j in 0..self.port_points[port as usize].len() {
            let point = self.port_points[port as usize][j];
            self.push(time, point, false, k);
        }
    }

    /// `k` is delivered to `node` at `time`.
    pub(super) fn on_rx(&mut self, node: u32, time: u64, k: &Packet) {
        let point = self.node_point[node as usize];
        if point != u32::MAX {
            self.push(time, point, true, k);
        }
    }

    pub(super) fn make_room(&mut self) -> Result<(), std::collections::TryReserveError> {
        use crate::trace::headroom;
        let r = &mut self.rows;
        headroom(&mut r.time)?;
        headroom(&mut r.point)?;
        headroom(&mut r.rx)?;
        for v in [
            &mut r.flow,
            &mut r.src,
            &mut r.dst,
            &mut r.sport,
            &mut r.dport,
            &mut r.proto,
            &mut r.ecn,
            &mut r.flags,
            &mut r.size,
            &mut r.payload,
            &mut r.n_sack,
            &mut r.ts_val,
            &mut r.ts_ecr,
            &mut r.hops,
        ] {
            headroom(v)?;
        }
        for v in [&mut r.seq, &mut r.ack, &mut r.rwnd] {
            headroom(v)?;
        }
        for v in r.sack.iter_mut() {
            headroom(v)?;
        }
        headroom(&mut r.retransmit)
    }

    /// The `captures` table (None when nothing is captured).
    pub(super) fn table(self) -> Option<Table> {
        if !self.on {
            return None;
        }
        let r = self.rows;
        let [s0, e0, s1, e1, s2, e2] = r.sack;
        Some(
            Table::events("captures", r.time, "point", r.point)
                .with("rx", Column::Bool(r.rx))
                .with("flow", Column::U32(r.flow))
                .with("src", Column::U32(r.src))
                .with("dst", Column::U32(r.dst))
                .with("sport", Column::U32(r.sport))
                .with("dport", Column::U32(r.dport))
                .with("proto", Column::U32(r.proto))
                .with("ecn", Column::U32(r.ecn))
                .with("tcp_flags", Column::U32(r.flags))
                .with("seq", Column::U64(r.seq))
                .with("ack", Column::U64(r.ack))
                .with("rwnd_bytes", Column::U64(r.rwnd))
                .with("size_bytes", Column::U32(r.size))
                .with("payload_bytes", Column::U32(r.payload))
                .with("n_sack", Column::U32(r.n_sack))
                .with("sack1_start", Column::U64(s0))
                .with("sack1_end", Column::U64(e0))
                .with("sack2_start", Column::U64(s1))
                .with("sack2_end", Column::U64(e1))
                .with("sack3_start", Column::U64(s2))
                .with("sack3_end", Column::U64(e2))
                .with("ts_val", Column::U32(r.ts_val))
                .with("ts_ecr", Column::U32(r.ts_ecr))
                .with("hops", Column::U32(r.hops))
                .with("retransmit", Column::Bool(r.retransmit)),
        )
    }
}

impl World {
    /// Records `pkt`'s transmission at `port` (started at `started`) if the
    /// port is captured; called only when [`Capture::on`].
    #[inline(never)]
    pub(super) fn capture_tx(&mut self, port: u32, pkt: PktId, started: Time) {
        let k = self.pool.get(pkt);
        self.cap.on_tx(port, started.ps(), k);
    }

    /// Records `pkt`'s delivery at `node` if the node is captured; called
    /// only when [`Capture::on`].
    #[inline(never)]
    pub(super) fn capture_rx(&mut self, node: u32, pkt: PktId) {
        let k = self.pool.get(pkt);
        self.cap.on_rx(node, self.now.ps(), k);
    }
}
