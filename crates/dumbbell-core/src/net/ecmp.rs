//! Multipath forwarding: equal-cost multi-path (ECMP) by a hash of the
//! 5-tuple, per-packet spraying, or today's single path.
//!
//! Routes are shortest paths in hops ([`super::topology`]). Where a switch
//! has several next hops at the same distance to a destination (a fat tree's
//! edge switch toward another pod: every aggregation switch of its pod), the
//! routing mode decides which one a packet takes:
//!
//! - `single`: the lowest port, always (deterministic, one path per pair:
//!   the behaviour before multipath existed);
//! - `ecmp` (default): a hash of the packet's 5-tuple (source, destination,
//!   ports, protocol) picks one, so a flow keeps one path and flows spread.
//!   Each switch hashes with its own seed, drawn from the run's named stream
//!   `ecmp:<switch>`, so consecutive switches make independent choices (no
//!   *polarization*, where every switch picks the same index and half the
//!   paths go unused);
//! - `spray`: every packet draws its next hop uniformly from the switch's
//!   stream `spray:<switch>` (packet spraying, as in Dixit et al.,
//!   INFOCOM 2013, and the multipath transports studied on these fabrics).
//!
//! The equal-cost sets are computed once, at build time, into flat arrays
//! ([`Multipath`]): for every pair of core nodes (switches) one entry, the
//! next hop itself when there is one, else an offset into a pool of sets
//! `[count, port, port, ...]`, each distinct set stored once per switch.
//! Forwarding reads one entry (one cache line of the table per hop) and,
//! when there is a choice, the set, and hashes or draws: no allocation. A topology with one shortest path between every
//! pair (a star, a dumbbell, a chain: every experiment before fabrics) gets
//! no table at all, so it forwards exactly as before in every mode.

use crate::packet::Packet;
use crate::sim::{rng_for, Rng};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};

/// How a switch chooses among equal-cost next hops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Routing {
    /// The lowest equal-cost port, always.
    Single,
    /// A per-switch hash of the 5-tuple: one path per flow.
    #[default]
    Ecmp,
    /// A uniform draw per packet.
    Spray,
}

impl Routing {
    pub fn name(self) -> &'static str {
        match self {
            Routing::Single => "single",
            Routing::Ecmp => "ecmp",
            Routing::Spray => "spray",
        }
    }
}

const NONE: u32 = u32::MAX;
/// Marks an entry of `Multipath::at` that is the only next hop's port.
const DIRECT: u32 = 1 << 31;

/// The next hops of a core node toward another.
pub enum Hop<'a> {
    /// No route (unreachable).
    Nowhere,
    /// One next hop: its port.
    One(u32),
    /// Several at equal cost, in port order.
    Many(&'a [u32]),
}

/// Next hops among the core nodes, kept when some pair has a choice.
pub struct Multipath {
    n: usize,
    /// `at[u * n + d]`: core node `u`'s next hop toward core node `d`:
    /// `DIRECT | port` for one, the offset of its set in `sets` for several,
    /// `NONE` for none.
    at: Vec<u32>,
    /// `[count, port_0, .., port_{count-1}]` one after another, ports in
    /// port order.
    sets: Vec<u32>,
}

impl Multipath {
    /// From the core's adjacency (`ports[u]`: (port, core neighbour) in port
    /// order). `None` if no pair has two equal-cost next hops.
    pub fn build(ports: &[Vec<(u32, u32)>]) -> Option<Multipath> {
        let n = ports.len();
        let mut at = vec![NONE; n * n];
        let mut sets: Vec<u32> = Vec::new();
        // Per node, its distinct sets already stored: set -> offset.
        let mut seen: Vec<HashMap<Vec<u32>, u32>> = vec![HashMap::new(); n];
        let mut dist = vec![u32::MAX; n];
        let mut bfs = VecDeque::new();
        let mut hops: Vec<u32> = Vec::new();
        let mut any = false;
        for dst in 0..n {
            super::hops::hop_distances(ports, dst, &mut dist, &mut bfs);
            for u in 0..n {
                if u == dst || dist[u] == u32::MAX {
                    continue;
                }
                hops.clear();
                hops.extend(
                    ports[u]
                        .iter()
                        .filter(|&&(_, v)| dist[v as usize] + 1 == dist[u])
                        .map(|&(p, _)| p),
                );
                match hops[..] {
                    [] => continue,
                    [port] => {
                        assert!(port < DIRECT, "port ids stay below 2^31");
                        at[u * n + dst] = DIRECT | port;
                        continue;
                    }
                    _ => any = true,
                }
                let off = *seen[u].entry(hops.clone()).or_insert_with(|| {
                    let off = sets.len() as u32;
                    sets.push(hops.len() as u32);
                    sets.extend_from_slice(&hops);
                    off
                });
                at[u * n + dst] = off;
            }
        }
        any.then_some(Multipath { n, at, sets })
    }

    /// Core node `u`'s next hops toward core node `d`.
    #[inline]
    pub fn hop(&self, u: u32, d: u32) -> Hop<'_> {
        let e = self.at[u as usize * self.n + d as usize];
        if e == NONE {
            Hop::Nowhere
        } else if e & DIRECT != 0 {
            Hop::One(e & !DIRECT)
        } else {
            let off = e as usize;
            let count = self.sets[off] as usize;
            Hop::Many(&self.sets[off + 1..off + 1 + count])
        }
    }

    pub fn bytes(&self) -> usize {
        (self.at.len() + self.sets.len()) * 4
    }
}

/// SplitMix64 finaliser: a bijective 64-bit mixer.
#[inline]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A switch's hash of a packet's 5-tuple under its seed.
#[inline]
pub fn five_tuple_hash(seed: u64, p: &Packet) -> u64 {
    let addrs = ((p.src as u64) << 32) | p.dst as u64;
    let rest = ((p.sport as u64) << 24) | ((p.dport as u64) << 8) | p.proto as u64;
    mix64(mix64(seed ^ addrs) ^ rest)
}

/// `h` onto `0..count` by multiply-shift (uniform for a uniform `h`).
#[inline]
fn index(h: u64, count: usize) -> usize {
    (((h >> 32) * count as u64) >> 32) as usize
}

/// The run's forwarding choice: the mode and each switch's seed or stream.
pub struct Forwarding {
    mode: Routing,
    /// Per node, its ECMP hash seed (empty unless the topology has a choice).
    seeds: Vec<u64>,
    /// Per node, its spraying stream (empty unless spraying).
    spray: Vec<Rng>,
}

impl Forwarding {
    /// `names`: every node's name (the streams are named after them).
    /// `has_choice`: some switch has two equal-cost next hops. Spraying on a
    /// topology without one is refused (the message is for `routing`).
    pub fn build(
        mode: Routing,
        run_seed: u64,
        names: &[String],
        has_choice: bool,
    ) -> Result<Forwarding, String> {
        if mode == Routing::Spray && !has_choice {
            return Err(
                "\"spray\" sprays packets over equal-cost paths, but this topology has \
                 one shortest path between every pair of nodes; use \"ecmp\" or \"single\", \
                 or a fabric with several paths (fat_tree, leaf_spine)"
                    .into(),
            );
        }
        let mut f = Forwarding {
            mode,
            seeds: Vec::new(),
            spray: Vec::new(),
        };
        if has_choice {
            match mode {
                Routing::Single => {}
                Routing::Ecmp => {
                    f.seeds = names
                        .iter()
                        .map(|n| rng_for(run_seed, &format!("ecmp:{n}")).next_u64())
                        .collect()
                }
                Routing::Spray => {
                    f.spray = names
                        .iter()
                        .map(|n| rng_for(run_seed, &format!("spray:{n}")))
                        .collect()
                }
            }
        }
        Ok(f)
    }

    pub fn mode(&self) -> Routing {
        self.mode
    }

    /// Which of `count` equal-cost ports node `node` sends `p` through.
    #[inline]
    pub fn choose(&mut self, node: u32, p: &Packet, count: usize) -> usize {
        match self.mode {
            Routing::Single => 0,
            Routing::Ecmp => index(five_tuple_hash(self.seeds[node as usize], p), count),
            Routing::Spray => self.spray[node as usize].below(count as u64) as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::hops::graph;
    use crate::net::topology::Routes;

    /// Two leaves (0, 1), two spines (2, 3), two hosts per leaf (4..8).
    fn leaf_spine() -> Vec<Vec<(u32, u32)>> {
        graph(
            8,
            &[
                (0, 2),
                (0, 3),
                (1, 2),
                (1, 3),
                (4, 0),
                (5, 0),
                (6, 1),
                (7, 1),
            ],
        )
    }

    fn packet(src: u32, dst: u32, sport: u16) -> Packet {
        Packet {
            src,
            dst,
            sport,
            dport: 80,
            ..Default::default()
        }
    }

    #[test]
    fn a_leaf_has_both_spines_toward_the_other_leaf() {
        let r = Routes::compute(&leaf_spine()).unwrap();
        assert!(r.has_multipath());
        // Leaf 0's ports: 0 toward spine 2, 2 toward spine 3.
        assert_eq!(r.next_ports(0, 6), vec![0, 2]);
        // Toward its own host, one port; a spine has one way down.
        assert_eq!(r.next_ports(0, 4).len(), 1);
        assert_eq!(r.next_ports(2, 6).len(), 1);
        // The single path is the lowest port, as before multipath.
        let mut f = Forwarding::build(Routing::Single, 1, &names(8), true).unwrap();
        assert_eq!(
            r.next_port_by(0, &packet(4, 6, 1), &mut f),
            r.next_port(0, 6)
        );
        assert_eq!(r.next_port(0, 6), 0);
    }

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("n{i}")).collect()
    }

    #[test]
    fn a_tree_has_no_table_and_spraying_on_it_is_refused() {
        let star = graph(4, &[(0, 1), (0, 2), (0, 3)]);
        let r = Routes::compute(&star).unwrap();
        assert!(!r.has_multipath());
        let e = Forwarding::build(Routing::Spray, 1, &names(4), false)
            .err()
            .unwrap();
        assert!(e.contains("one shortest path"), "{e}");
        // A ring of four switches: two equal paths to the opposite node.
        let ring = graph(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        let r = Routes::compute(&ring).unwrap();
        assert!(r.has_multipath());
        assert_eq!(r.next_ports(0, 2).len(), 2);
        assert_eq!(r.next_ports(0, 1).len(), 1);
    }

    /// N flows hashed over two spines: the count on one spine is
    /// binomial(N, 1/2); a fair hash stays within 5 sigma of N/2, and a
    /// flow's packets all take one path.
    #[test]
    fn ecmp_spreads_flows_like_fair_coins_and_keeps_each_flow_on_one_path() {
        let r = Routes::compute(&leaf_spine()).unwrap();
        let mut f = Forwarding::build(Routing::Ecmp, 7, &names(8), true).unwrap();
        let n = 4000u32;
        let mut on_first = 0u32;
        for flow in 0..n {
            let p = packet(4 + flow % 2, 6 + flow % 2, 10_000 + flow as u16);
            let port = r.next_port_by(0, &p, &mut f);
            assert_eq!(port, r.next_port_by(0, &p, &mut f), "flow {flow} moved");
            on_first += (port == 0) as u32;
        }
        let sigma = (n as f64 * 0.25).sqrt();
        let dev = (on_first as f64 - n as f64 / 2.0).abs();
        assert!(dev < 5.0 * sigma, "{on_first} of {n} on spine 0");
    }

    /// Each switch has its own seed: the choices of two switches over the
    /// same flows are independent (agree about half the time), not
    /// polarized (always the same index).
    #[test]
    fn switches_hash_independently() {
        let names = names(8);
        let mut f = Forwarding::build(Routing::Ecmp, 7, &names, true).unwrap();
        let n = 4000;
        let same = (0..n)
            .filter(|&i| {
                let p = packet(4, 6, i as u16);
                f.choose(0, &p, 2) == f.choose(1, &p, 2)
            })
            .count();
        let sigma = (n as f64 * 0.25).sqrt();
        assert!((same as f64 - n as f64 / 2.0).abs() < 5.0 * sigma, "{same}");
        // Same seed, same choices; another seed, other choices.
        let mut g = Forwarding::build(Routing::Ecmp, 7, &names, true).unwrap();
        let mut h = Forwarding::build(Routing::Ecmp, 8, &names, true).unwrap();
        let picks = |f: &mut Forwarding| -> Vec<usize> {
            (0..64).map(|i| f.choose(0, &packet(4, 6, i), 4)).collect()
        };
        assert_eq!(picks(&mut f), picks(&mut g));
        assert_ne!(picks(&mut f), picks(&mut h));
    }

    /// Spraying spreads one flow's packets evenly.
    #[test]
    fn spraying_spreads_one_flows_packets() {
        let r = Routes::compute(&leaf_spine()).unwrap();
        let mut f = Forwarding::build(Routing::Spray, 3, &names(8), true).unwrap();
        let p = packet(4, 6, 1);
        let n = 4000;
        let first = (0..n)
            .filter(|_| r.next_port_by(0, &p, &mut f) == 0)
            .count();
        let sigma = (n as f64 * 0.25).sqrt();
        assert!(
            (first as f64 - n as f64 / 2.0).abs() < 5.0 * sigma,
            "{first}"
        );
    }
}
