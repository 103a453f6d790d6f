//! Packets, ports (queue + serializer + pipe) and routing.

pub mod packet;
pub mod port;
pub mod topology;
