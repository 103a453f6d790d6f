//! Packets, ports, links and topology.

pub mod packet;
