//! A small network's routes as one table: the port every node forwards to
//! toward every destination, read with one load per hop.
//!
//! [`Routes`](super::topology::Routes) answers a hop from five per-node
//! arrays and the core's routes (a dozen dependent loads and tests); in a
//! network of at most [`DIRECT_MAX_NODES`] nodes (a dumbbell has three to
//! a few dozen) the answers of every pair fit in 64 KiB, so they are
//! computed once, when the routes are, from the same function. A pair
//! whose packets choose among equal-cost ports (ECMP, flowlet switching,
//! spraying) is marked [`CHOOSE`] and asked of the full routes, which make
//! the choice: the table changes no route and no choice.

/// Largest network (nodes) given a table: 128² entries, 64 KiB.
pub const DIRECT_MAX_NODES: usize = 128;

/// An entry whose packets choose among several ports.
pub const CHOOSE: u32 = u32::MAX - 1;

/// `at[node * n + dst]`: the port, `NO_ROUTE`, or [`CHOOSE`]; empty (and
/// `n` 0) for a network without a table.
#[derive(Default)]
pub struct DirectRoutes {
    n: usize,
    at: Vec<u32>,
}

impl DirectRoutes {
    /// The table of `n` nodes from `hop(node, dst)`, or none if `n` is
    /// beyond [`DIRECT_MAX_NODES`] or a port id collides with [`CHOOSE`].
    pub fn build(n: usize, mut hop: impl FnMut(u32, u32) -> u32) -> DirectRoutes {
        if n == 0 || n > DIRECT_MAX_NODES {
            return DirectRoutes::default();
        }
        let mut at = Vec::with_capacity(n * n);
        for u in 0..n as u32 {
            for d in 0..n as u32 {
                at.push(hop(u, d));
            }
        }
        DirectRoutes { n, at }
    }

    /// The port `node` forwards to toward `dst` (`NO_ROUTE` included), or
    /// None: no table, or a pair whose packets choose.
    #[inline(always)]
    pub fn get(&self, node: u32, dst: u32) -> Option<u32> {
        let e = *self.at.get(node as usize * self.n + dst as usize)?;
        (e != CHOOSE).then_some(e)
    }

    /// Bytes of the table.
    pub fn bytes(&self) -> usize {
        self.at.len() * 4
    }
}
