//! Static routing: the next hop of every node toward every destination, in
//! memory linear in the number of nodes.
//!
//! Routes are shortest paths in hops; among equal-cost next hops the port
//! created first (lowest port id) wins, so routing is deterministic. A full
//! table (one next hop per node and destination) grows with the square of
//! the node count: 40 GB for a 100 000-host star. Instead:
//!
//! - a **leaf** (a node with one port, as every host of a star, a dumbbell
//!   or a fat tree) always forwards through that port, and a packet for a
//!   leaf is routed toward the node the leaf hangs on (the leaf's
//!   *attachment*), which hands it down. No shortest path ever crosses a
//!   leaf, so this changes no route;
//! - the remaining **core** nodes (switches, and hosts with two links) are
//!   routed among themselves: by a dense table when the core is small
//!   (`DENSE_CORE_MAX` nodes: 4 MB at most), and, when a large core is a
//!   tree or a forest, on demand from an Euler tour (is the destination
//!   below me? then the child whose interval holds it, found by binary
//!   search; otherwise my parent). A large core with cycles keeps a dense
//!   core-by-core table, refused at build time beyond `MAX_DENSE_BYTES`.
//!
//! Memory: five `u32` per node, plus the core's table or tour. A
//! 100 000-host star needs 2 MB of routing state. A network of at most 128
//! nodes also keeps every pair's answer in one table (64 KiB at most,
//! `net/direct_routes.rs`), so that a hop is one load.
//!
//! Where a dense core has several equal-cost next hops, a second table keeps
//! every pair's next hop or set of them ([`Multipath`], see `net::ecmp`),
//! and [`Routes::next_port_by`] forwards from it alone, letting the run's
//! [`Forwarding`] choose among a set; [`Routes::next_port`] is the lowest
//! port, as always. A forest has one path between any two nodes.

use crate::net::direct_routes::{DirectRoutes, CHOOSE};
use crate::net::ecmp::{Forwarding, Hop, Multipath};
use crate::packet::Packet;
use std::collections::VecDeque;

pub const NO_ROUTE: u32 = u32::MAX;

/// Largest core routed by a dense table when it is a forest.
pub const DENSE_CORE_MAX: usize = 1024;
/// Largest dense core tables, bytes (a core with cycles; with equal-cost
/// paths, the next-hop table and the equal-cost one together): 1 GiB.
pub const MAX_DENSE_BYTES: u64 = 1 << 30;

/// Next hops for every (node, destination) pair, computed on demand.
pub struct Routes {
    /// Connected component of each node (reachability).
    comp: Vec<u32>,
    /// A leaf's only port; `NO_ROUTE` for core nodes.
    leaf_port: Vec<u32>,
    /// The node a leaf hangs on (itself for a core node).
    attach: Vec<u32>,
    /// At a leaf's attachment, the port toward the leaf.
    down_port: Vec<u32>,
    /// Index of a core node among the core nodes (`NO_ROUTE` for leaves).
    core_idx: Vec<u32>,
    core: Core,
    /// Equal-cost sets of a dense core, if any pair has a choice.
    multi: Option<Multipath>,
    /// A small network's answers, one load per hop (`net/direct_routes.rs`).
    direct: DirectRoutes,
}

/// Routing among the core nodes.
enum Core {
    /// `next[u * n + d]`: the port of core node `u` toward core node `d`.
    Dense { n: usize, next: Vec<u32> },
    /// A forest, rooted at its lowest node in each component.
    Tree(Forest),
}

/// A forest's routes: each node's Euler interval `[tin, tout)`, its port
/// to its parent, and its children as (tin, port) sorted by tin, stored
/// flat (`kids_at`).
struct Forest {
    tin: Vec<u32>,
    tout: Vec<u32>,
    up_port: Vec<u32>,
    kids_at: Vec<u32>,
    kids: Vec<(u32, u32)>,
}

impl Forest {
    /// The port of `u` toward `d`: down to the child whose interval holds
    /// `d`, else up.
    #[inline]
    fn next(&self, u: usize, d: usize) -> u32 {
        let t = self.tin[d];
        if self.tin[u] < t && t < self.tout[u] {
            // Below u: the last child whose interval starts at or before t.
            let mine = &self.kids[self.kids_at[u] as usize..self.kids_at[u + 1] as usize];
            let i = mine.partition_point(|&(start, _)| start <= t);
            mine[i - 1].1
        } else {
            self.up_port[u]
        }
    }
}

impl Routes {
    /// `ports_of[node]` lists (port id, peer node) in port-id order.
    /// Fails (with a message) only if a large core with cycles would need a
    /// table beyond [`MAX_DENSE_BYTES`].
    pub fn compute(ports_of: &[Vec<(u32, u32)>]) -> Result<Routes, String> {
        Routes::build(ports_of, DENSE_CORE_MAX)
    }

    fn build(ports_of: &[Vec<(u32, u32)>], dense_max: usize) -> Result<Routes, String> {
        let n = ports_of.len();
        let comp = components(ports_of);
        let mut leaf_port = vec![NO_ROUTE; n];
        let mut attach: Vec<u32> = (0..n as u32).collect();
        let mut down_port = vec![NO_ROUTE; n];
        for (u, ports) in ports_of.iter().enumerate() {
            if let [(port, peer)] = ports[..] {
                leaf_port[u] = port;
                attach[u] = peer;
            }
        }
        // At each attachment, its port toward the leaf (the only one: a leaf
        // has one link).
        for (v, ports) in ports_of.iter().enumerate() {
            for &(port, peer) in ports {
                if leaf_port[peer as usize] != NO_ROUTE && attach[peer as usize] == v as u32 {
                    down_port[peer as usize] = port;
                }
            }
        }
        let mut core_idx = vec![NO_ROUTE; n];
        let mut core_nodes: Vec<u32> = Vec::new();
        for u in 0..n {
            if leaf_port[u] == NO_ROUTE {
                core_idx[u] = core_nodes.len() as u32;
                core_nodes.push(u as u32);
            }
        }
        // The core's own adjacency: ports toward other core nodes, in port order.
        let core_ports: Vec<Vec<(u32, u32)>> = core_nodes
            .iter()
            .map(|&u| {
                ports_of[u as usize]
                    .iter()
                    .filter(|&&(_, v)| core_idx[v as usize] != NO_ROUTE)
                    .map(|&(p, v)| (p, core_idx[v as usize]))
                    .collect()
            })
            .collect();
        let cn = core_nodes.len();
        let edges: usize = core_ports.iter().map(Vec::len).sum::<usize>() / 2;
        let core_comps = {
            let mut ids: Vec<u32> = core_nodes.iter().map(|&u| comp[u as usize]).collect();
            ids.sort_unstable();
            ids.dedup();
            ids.len()
        };
        let is_forest = edges + core_comps == cn;
        let mut multi = None;
        let core = if cn <= dense_max || !is_forest {
            let bytes = (cn as u64).saturating_mul(cn as u64).saturating_mul(4);
            if bytes > MAX_DENSE_BYTES {
                return Err(format!(
                    "{cn} switches (nodes with more than one link) joined with cycles need a \
                     {cn}x{cn} routing table ({} MiB), more than the {} MiB allowed",
                    bytes >> 20,
                    MAX_DENSE_BYTES >> 20
                ));
            }
            multi = Multipath::build(&core_ports);
            if let Some(m) = &multi {
                // The equal-cost table is a second table of that size.
                let both = bytes.saturating_add(m.bytes() as u64);
                if both > MAX_DENSE_BYTES {
                    return Err(format!(
                        "{cn} switches (nodes with more than one link) joined with equal-cost \
                         paths need a {cn}x{cn} routing table and one of equal-cost next hops \
                         ({} MiB together), more than the {} MiB allowed",
                        both >> 20,
                        MAX_DENSE_BYTES >> 20
                    ));
                }
            }
            Core::dense(&core_ports)
        } else {
            Core::forest(&core_ports)
        };
        Ok(Routes {
            comp,
            leaf_port,
            attach,
            down_port,
            core_idx,
            core,
            multi,
            direct: DirectRoutes::default(),
        })
        .map(Routes::with_direct)
    }

    /// Adds the small network's table (`net/direct_routes.rs`): each
    /// pair's answer of [`Self::next_port_by`], or `CHOOSE` where the
    /// packet's forwarding chooses among a set.
    fn with_direct(mut self) -> Routes {
        let n = self.comp.len();
        let direct = DirectRoutes::build(n, |u, d| match (self.step(u, d), &self.multi) {
            (Ok(port), _) => port,
            (Err((cu, cd)), None) => self.core.next(cu, cd),
            (Err((cu, cd)), Some(m)) => match m.hop(cu, cd) {
                Hop::One(port) => port,
                Hop::Nowhere => NO_ROUTE,
                Hop::Many(_) => CHOOSE,
            },
        });
        self.direct = direct;
        self
    }

    /// Some node has two equal-cost next hops toward some destination.
    pub fn has_multipath(&self) -> bool {
        self.multi.is_some()
    }

    /// Either the port `node` forwards to toward `dst` without a choice, or
    /// the pair of core nodes (`node`, the destination's attachment).
    #[inline]
    fn step(&self, node: u32, dst: u32) -> Result<u32, (u32, u32)> {
        let (u, d) = (node as usize, dst as usize);
        if u == d || self.comp[u] != self.comp[d] {
            return Ok(NO_ROUTE);
        }
        if self.leaf_port[u] != NO_ROUTE {
            return Ok(self.leaf_port[u]);
        }
        let target = self.attach[d];
        if target == node {
            return Ok(self.down_port[d]);
        }
        Err((self.core_idx[u], self.core_idx[target as usize]))
    }

    /// The small network's table's answer for `node` toward `dst` (a port
    /// or `NO_ROUTE`), or None where [`Self::next_port_by`] asks the full
    /// routes (no table, or a pair whose packets choose among ports): the
    /// same answer, known without a packet or a forwarding state.
    #[inline]
    pub fn direct_port(&self, node: u32, dst: u32) -> Option<u32> {
        self.direct.get(node, dst)
    }

    /// The port `node` forwards packet `p` to: among equal-cost next hops,
    /// the one `fwd` chooses (by the run's routing mode).
    #[inline]
    pub fn next_port_by(&self, node: u32, p: &Packet, fwd: &mut Forwarding) -> u32 {
        match self.direct.get(node, p.dst) {
            Some(port) => port,
            None => self.next_port_chosen(node, p, fwd),
        }
    }

    /// [`Self::next_port_by`] without the small network's table: the
    /// pairs with a choice, and networks too large for the table.
    #[inline(never)]
    fn next_port_chosen(&self, node: u32, p: &Packet, fwd: &mut Forwarding) -> u32 {
        let Some(m) = &self.multi else {
            return self.next_port(node, p.dst);
        };
        match self.step(node, p.dst) {
            Ok(port) => port,
            Err((cu, cd)) => match m.hop(cu, cd) {
                Hop::One(port) => port,
                Hop::Many(set) => set[fwd.choose(node, p, set.len())],
                Hop::Nowhere => NO_ROUTE,
            },
        }
    }

    /// Every equal-cost port `node` may forward to toward `dst`, in port
    /// order (for checks and tests; allocates).
    pub fn next_ports(&self, node: u32, dst: u32) -> Vec<u32> {
        match self.step(node, dst) {
            Ok(NO_ROUTE) => vec![],
            Ok(port) => vec![port],
            Err((cu, cd)) => match self.multi.as_ref().map(|m| m.hop(cu, cd)) {
                Some(Hop::Many(set)) => set.to_vec(),
                Some(Hop::One(port)) => vec![port],
                Some(Hop::Nowhere) => vec![],
                None => vec![self.core.next(cu, cd)],
            },
        }
    }

    /// The port `node` forwards to toward `dst` (`NO_ROUTE` if unreachable
    /// or `node == dst`).
    #[inline]
    pub fn next_port(&self, node: u32, dst: u32) -> u32 {
        match self.step(node, dst) {
            Ok(port) => port,
            Err((cu, cd)) => self.core.next(cu, cd),
        }
    }

    pub fn reachable(&self, from: u32, to: u32) -> bool {
        self.comp[from as usize] == self.comp[to as usize]
    }

    /// Bytes of routing state.
    pub fn bytes(&self) -> usize {
        let per_node = 5 * 4 * self.comp.len();
        per_node
            + match &self.core {
                Core::Dense { next, .. } => next.len() * 4,
                Core::Tree(f) => f.tin.len() * 16 + f.kids.len() * 8,
            }
            + self.multi.as_ref().map_or(0, Multipath::bytes)
            + self.direct.bytes()
    }
}

/// Component labels by breadth-first search.
fn components(ports_of: &[Vec<(u32, u32)>]) -> Vec<u32> {
    let n = ports_of.len();
    let mut comp = vec![NO_ROUTE; n];
    let mut bfs = VecDeque::new();
    for start in 0..n {
        if comp[start] != NO_ROUTE {
            continue;
        }
        comp[start] = start as u32;
        bfs.push_back(start);
        while let Some(u) = bfs.pop_front() {
            for &(_, v) in &ports_of[u] {
                if comp[v as usize] == NO_ROUTE {
                    comp[v as usize] = start as u32;
                    bfs.push_back(v as usize);
                }
            }
        }
    }
    comp
}

impl Core {
    /// Breadth-first search from every core destination; the first port (in
    /// port order) toward a node one hop closer wins.
    fn dense(ports: &[Vec<(u32, u32)>]) -> Core {
        let n = ports.len();
        let mut next = vec![NO_ROUTE; n * n];
        let mut dist = vec![u32::MAX; n];
        let mut bfs = VecDeque::new();
        for dst in 0..n {
            super::hops::hop_distances(ports, dst, &mut dist, &mut bfs);
            for u in 0..n {
                if u == dst || dist[u] == u32::MAX {
                    continue;
                }
                let hop = ports[u]
                    .iter()
                    .find(|&&(_, v)| dist[v as usize] + 1 == dist[u]);
                if let Some(&(port, _)) = hop {
                    next[u * n + dst] = port;
                }
            }
        }
        Core::Dense { n, next }
    }

    /// Euler tour of each tree of a forest (iterative depth-first search).
    fn forest(ports: &[Vec<(u32, u32)>]) -> Core {
        let n = ports.len();
        let mut tin = vec![NO_ROUTE; n];
        let mut tout = vec![0u32; n];
        let mut up_port = vec![NO_ROUTE; n];
        let mut parent = vec![NO_ROUTE; n];
        let mut clock = 0u32;
        // (node, index of the next port to look at)
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for root in 0..n {
            if tin[root] != NO_ROUTE {
                continue;
            }
            tin[root] = clock;
            clock += 1;
            stack.push((root as u32, 0));
            while let Some(top) = stack.last_mut() {
                let (u, i) = (top.0 as usize, top.1);
                if let Some(&(_, v)) = ports[u].get(i) {
                    top.1 += 1;
                    if tin[v as usize] == NO_ROUTE {
                        tin[v as usize] = clock;
                        clock += 1;
                        parent[v as usize] = u as u32;
                        stack.push((v, 0));
                    }
                } else {
                    tout[u] = clock;
                    stack.pop();
                }
            }
        }
        let mut kids_at = vec![0u32; n + 1];
        let mut kids: Vec<(u32, u32)> = Vec::with_capacity(n);
        for u in 0..n {
            for &(port, v) in &ports[u] {
                if parent[v as usize] == u as u32 {
                    kids.push((tin[v as usize], port));
                } else if parent[u] == v {
                    up_port[u] = port;
                }
            }
            let from = kids_at[u] as usize;
            kids[from..].sort_unstable();
            kids_at[u + 1] = kids.len() as u32;
        }
        Core::Tree(Forest {
            tin,
            tout,
            up_port,
            kids_at,
            kids,
        })
    }

    #[inline]
    fn next(&self, u: u32, d: u32) -> u32 {
        let (u, d) = (u as usize, d as usize);
        match self {
            Core::Dense { n, next } => next[u * n + d],
            Core::Tree(forest) => forest.next(u, d),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::hops::graph;
    use proptest::prelude::*;

    /// The full table by breadth-first search from every node: the
    /// reference the compressed routes must agree with.
    fn reference(ports_of: &[Vec<(u32, u32)>]) -> Vec<u32> {
        match Core::dense(ports_of) {
            Core::Dense { next, .. } => next,
            Core::Tree(_) => unreachable!(),
        }
    }

    fn hops_from(ports: &[Vec<(u32, u32)>], s: usize) -> Vec<u32> {
        let mut dist = vec![u32::MAX; ports.len()];
        dist[s] = 0;
        let mut bfs = VecDeque::from([s]);
        while let Some(u) = bfs.pop_front() {
            for &(_, v) in &ports[u] {
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u] + 1;
                    bfs.push_back(v as usize);
                }
            }
        }
        dist
    }

    fn agrees(ports: &[Vec<(u32, u32)>], dense_max: usize) -> Result<(), String> {
        let n = ports.len();
        let want = reference(ports);
        let r = Routes::build(ports, dense_max)?;
        let dist: Vec<Vec<u32>> = (0..n).map(|s| hops_from(ports, s)).collect();
        for u in 0..n {
            for d in 0..n {
                let got = r.next_port(u as u32, d as u32);
                if got != want[u * n + d] {
                    return Err(format!("{u}->{d}: got {got}, want {}", want[u * n + d]));
                }
                if r.reachable(u as u32, d as u32) != (u == d || want[u * n + d] != NO_ROUTE) {
                    return Err(format!("reachability {u}->{d}"));
                }
                // Equal-cost sets: every port one hop closer, lowest first.
                let all: Vec<u32> = if u == d || dist[u][d] == u32::MAX {
                    vec![]
                } else {
                    ports[u]
                        .iter()
                        .filter(|&&(_, v)| dist[v as usize][d].wrapping_add(1) == dist[u][d])
                        .map(|&(p, _)| p)
                        .collect()
                };
                // The small network's table gives the same answer, or
                // leaves a choice among several to the forwarding.
                let direct = r.direct.get(u as u32, d as u32);
                if n <= crate::net::direct_routes::DIRECT_MAX_NODES {
                    let want = match all[..] {
                        [] => Some(NO_ROUTE),
                        [port] => Some(port),
                        _ => None,
                    };
                    if direct != want && !(r.multi.is_none() && direct == Some(got)) {
                        return Err(format!("{u}->{d}: table {direct:?}, want {want:?}"));
                    }
                } else if direct.is_some() {
                    return Err(format!("{n} nodes have a table"));
                }
                if r.next_ports(u as u32, d as u32) != all {
                    return Err(format!(
                        "{u}->{d}: set {:?}, want {all:?}",
                        r.next_ports(u as u32, d as u32)
                    ));
                }
            }
        }
        Ok(())
    }

    #[test]
    fn dumbbell_routes_through_the_bottleneck() {
        // 0,1 senders - 2 r1 - 3 r2 - 4,5 receivers. Ports numbered per link end.
        let ports = graph(6, &[(0, 2), (1, 2), (2, 3), (3, 4), (3, 5)]);
        let r = Routes::compute(&ports).unwrap();
        assert_eq!(r.next_port(0, 4), 0);
        assert_eq!(r.next_port(2, 4), 4, "r1 forwards over the r1->r2 port");
        assert_eq!(r.next_port(3, 5), 8);
        assert_eq!(r.next_port(3, 0), 5);
        assert!(r.reachable(0, 5));
        agrees(&ports, 0).unwrap();
        agrees(&ports, DENSE_CORE_MAX).unwrap();
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let ports: Vec<Vec<(u32, u32)>> = vec![vec![(0, 1)], vec![(1, 0)], vec![]];
        let r = Routes::compute(&ports).unwrap();
        assert!(!r.reachable(0, 2));
        assert_eq!(r.next_port(1, 0), 1);
        assert_eq!(r.next_port(0, 2), NO_ROUTE);
    }

    #[test]
    fn a_large_star_takes_linear_memory() {
        let hosts = 100_000;
        let links: Vec<(usize, usize)> = (1..=hosts).map(|h| (0, h)).collect();
        let ports = graph(hosts + 1, &links);
        let r = Routes::compute(&ports).unwrap();
        assert!(r.bytes() < 3 << 20, "{} bytes", r.bytes());
        // Host 7 -> host 99 999: up to the switch, which hands it down.
        assert_eq!(r.next_port(7, 99_999), 2 * 6 + 1);
        assert_eq!(r.next_port(0, 99_999), 2 * 99_998);
    }

    #[test]
    fn a_large_tree_core_is_routed_on_demand() {
        // A binary tree of 1 100 switches, a host on each: the core is a tree
        // beyond DENSE_CORE_MAX.
        let sw = 1100;
        let mut links: Vec<(usize, usize)> = (1..sw).map(|i| ((i - 1) / 2, i)).collect();
        links.extend((0..sw).map(|i| (i, sw + i)));
        let ports = graph(2 * sw, &links);
        let r = Routes::compute(&ports).unwrap();
        assert!(matches!(r.core, Core::Tree(_)));
        let want = reference(&ports);
        let n = 2 * sw;
        for u in (0..n).step_by(7) {
            for d in (0..n).step_by(5) {
                assert_eq!(r.next_port(u as u32, d as u32), want[u * n + d], "{u}->{d}");
            }
        }
    }

    #[test]
    fn a_large_core_with_cycles_beyond_the_table_budget_is_refused() {
        // A ring of 20 000 switches: a dense core table of 1.6 GB.
        let n = 20_000;
        let links: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        let e = Routes::compute(&graph(n, &links)).err().unwrap();
        assert!(e.contains("routing table"), "{e}");
    }

    proptest! {
        /// On random graphs (trees, cycles, parallel links, several
        /// components), the compressed routes are the full table's, with a
        /// dense or an on-demand core.
        #[test]
        fn compressed_routes_equal_the_full_table(
            n in 1usize..24,
            raw in proptest::collection::vec((0usize..24, 0usize..24), 0..40),
            tree_links in proptest::collection::vec(0usize..24, 0..24),
        ) {
            let mut links: Vec<(usize, usize)> = Vec::new();
            // A random forest first (node i joins an earlier node), then extra links.
            for (i, &p) in tree_links.iter().enumerate().take(n) {
                if i > 0 && p % 3 != 0 {
                    links.push((p % i, i));
                }
            }
            links.extend(raw.into_iter().map(|(a, b)| (a % n, b % n)).filter(|(a, b)| a != b));
            let ports = graph(n, &links);
            prop_assert_eq!(agrees(&ports, 0), Ok(()));
            prop_assert_eq!(agrees(&ports, DENSE_CORE_MAX), Ok(()));
        }
    }
}
