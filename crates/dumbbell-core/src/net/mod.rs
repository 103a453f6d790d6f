//! Packets, ports (queue + serializer + pipe), software-switch pipelines and
//! routing (single path, ECMP or spraying).

pub mod ecmp;
pub mod packet;
pub mod pipeline;
pub mod port;
pub mod topology;
