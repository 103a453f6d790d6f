//! Packets, ports (queue + serializer + pipe), software-switch pipelines and
//! routing (single path, ECMP or spraying).

pub mod ecmp;
mod hops;
pub mod netem_gso;
pub mod packet;
pub mod pipeline;
pub mod port;
pub mod topology;

/// Fastest link or sending rate: 10 Tb/s (a 64-byte frame still takes 51 ps).
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;
