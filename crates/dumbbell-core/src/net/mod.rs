//! Packets, ports (queue + serializer + pipe), software-switch pipelines and
//! routing (single path, ECMP or spraying).

pub mod direct_routes;
pub mod ecmp;
mod hops;
pub mod input_gate;
pub mod netem_gso;
pub mod pipeline;
pub mod port;
mod port_setup;
pub mod ring_ahead;
pub mod topology;
pub mod wire;

/// The packet is a layer below both `net` and `queue` (ports hold queues,
/// queues read packets); `net::packet` stays its old path.
pub use crate::packet;
/// Fastest link or sending rate (`sim::MAX_RATE_BPS`), by its old path.
pub use crate::sim::MAX_RATE_BPS;
