//! dumbbell-core: a fast, deterministic, packet-level network simulator for
//! congestion-control and queue-management research. Pure Rust; the Python
//! front end lives in `dumbbell-py` and `python/dumbbell`.
//!
//! The world ([`world::World`]) owns every node, port, packet and flow in
//! flat arenas addressed by small integer ids; the event loop pops
//! `(time, sequence)`-ordered events ([`sim::EventQueue`]) and dispatches
//! them. `DESIGN.md` at the repository root maps the layers and follows a
//! packet and an ACK through the code.

pub mod app;
pub mod cc;
pub mod config;
pub mod net;
pub mod packet;
pub mod param;
pub mod queue;
pub mod sim;
pub mod tcp;
pub mod trace;
mod u8_enum;
pub mod validate;
pub mod world;
