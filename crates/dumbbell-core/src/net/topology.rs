//! Building the network from the configuration, and static routing.
//!
//! Routes are shortest paths in hops, computed once by a breadth-first search
//! from every destination. Among equal-cost next hops the port created first
//! (lowest port id) wins, so routing is deterministic.

use std::collections::VecDeque;

/// `next[node * n + dst]` = the port `node` forwards to toward `dst`
/// (`u32::MAX` if unreachable or `node == dst`).
pub struct Routes {
    n: usize,
    next: Vec<u32>,
}

pub const NO_ROUTE: u32 = u32::MAX;

impl Routes {
    /// `ports_of[node]` lists (port id, peer node) in port-id order.
    pub fn compute(ports_of: &[Vec<(u32, u32)>]) -> Routes {
        let n = ports_of.len();
        let mut next = vec![NO_ROUTE; n * n];
        let mut dist = vec![u32::MAX; n];
        let mut bfs = VecDeque::new();
        for dst in 0..n {
            dist.iter_mut().for_each(|d| *d = u32::MAX);
            dist[dst] = 0;
            bfs.clear();
            bfs.push_back(dst);
            // Links are full duplex, so distances to dst are distances from dst.
            while let Some(u) = bfs.pop_front() {
                for &(_, v) in &ports_of[u] {
                    if dist[v as usize] == u32::MAX {
                        dist[v as usize] = dist[u] + 1;
                        bfs.push_back(v as usize);
                    }
                }
            }
            for u in 0..n {
                if u == dst || dist[u] == u32::MAX {
                    continue;
                }
                let hop = ports_of[u]
                    .iter()
                    .find(|&&(_, v)| dist[v as usize] + 1 == dist[u]);
                if let Some(&(port, _)) = hop {
                    next[u * n + dst] = port;
                }
            }
        }
        Routes { n, next }
    }

    #[inline]
    pub fn next_port(&self, node: u32, dst: u32) -> u32 {
        self.next[node as usize * self.n + dst as usize]
    }

    pub fn reachable(&self, from: u32, to: u32) -> bool {
        from == to || self.next_port(from, to) != NO_ROUTE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumbbell_routes_through_the_bottleneck() {
        // 0,1 senders - 2 r1 - 3 r2 - 4,5 receivers. Ports numbered per link end.
        let mut ports: Vec<Vec<(u32, u32)>> = vec![vec![]; 6];
        let mut pid = 0;
        for (a, b) in [(0, 2), (1, 2), (2, 3), (3, 4), (3, 5)] {
            ports[a].push((pid, b as u32));
            ports[b].push((pid + 1, a as u32));
            pid += 2;
        }
        let r = Routes::compute(&ports);
        assert_eq!(r.next_port(0, 4), 0);
        assert_eq!(r.next_port(2, 4), 4, "r1 forwards over the r1->r2 port");
        assert_eq!(r.next_port(3, 5), 8);
        assert_eq!(r.next_port(3, 0), 5);
        assert!(r.reachable(0, 5));
    }

    #[test]
    fn disconnected_nodes_have_no_route() {
        let ports: Vec<Vec<(u32, u32)>> = vec![vec![(0, 1)], vec![(1, 0)], vec![]];
        let r = Routes::compute(&ports);
        assert!(!r.reachable(0, 2));
        assert_eq!(r.next_port(1, 0), 1);
    }
}
