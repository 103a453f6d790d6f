//! Packets, ports (queue + serializer + pipe), software-switch pipelines and
//! routing.

pub mod packet;
pub mod pipeline;
pub mod port;
pub mod topology;
