//! Hop distances by breadth-first search: the one walk that both the
//! single-path routes (`topology`) and the equal-cost sets (`ecmp`) start
//! from, so that the two always agree on what "shortest" means.

use std::collections::VecDeque;

/// Hops from every node to `dst` by breadth-first search over `ports`
/// (node -> (port, peer node)), into `dist` (`u32::MAX`: unreachable);
/// `bfs` is scratch. Links are full duplex, so distances to `dst` are
/// distances from it.
pub(crate) fn hop_distances(
    ports: &[Vec<(u32, u32)>],
    dst: usize,
    dist: &mut [u32],
    bfs: &mut VecDeque<usize>,
) {
    dist.iter_mut().for_each(|d| *d = u32::MAX);
    dist[dst] = 0;
    bfs.clear();
    bfs.push_back(dst);
    while let Some(u) = bfs.pop_front() {
        for &(_, v) in &ports[u] {
            if dist[v as usize] == u32::MAX {
                dist[v as usize] = dist[u] + 1;
                bfs.push_back(v as usize);
            }
        }
    }
}

/// A test graph in `ports`' shape from undirected `links` between node
/// indices: ports numbered in link order, two per link.
#[cfg(test)]
pub(crate) fn graph(n: usize, links: &[(usize, usize)]) -> Vec<Vec<(u32, u32)>> {
    let mut ports: Vec<Vec<(u32, u32)>> = vec![vec![]; n];
    let mut pid = 0;
    for &(a, b) in links {
        ports[a].push((pid, b as u32));
        ports[b].push((pid + 1, a as u32));
        pid += 2;
    }
    ports
}
