//! dumbbell-kmod: Linux TCP congestion-control modules, from their C
//! source, as dumbbell controls.
//!
//! - [`compile`]: the system C compiler builds a module with dumbbell's
//!   own kernel shim (`shim/`: the declarations and helpers a module
//!   expects, written from the kernel's documented behaviour; no kernel
//!   header is copied) into a shared object, cached by a hash of the
//!   source, the shim, the compiler's version, the kernel version and `HZ`.
//! - [`control`]: one loaded copy per simulated host (module statics are
//!   per kernel), one `struct sock` per connection, each hook of the core's
//!   `CongestionControl` calling the module's hook of the same name.
//! - [`crash`]: a crashing module becomes one line naming the module, the
//!   hook and the simulated time (runs execute in a child process).
//! - [`compare`]: runs a module and a built-in port on the same scenarios
//!   and reports the first hook call where they differ.
//!
//! The core stays pure Rust: this crate is the only one that runs C.

pub mod compare;
pub mod compile;
pub mod control;
pub mod crash;
pub mod error;
pub mod ffi;
pub mod private;

pub use compile::{build, BuildOptions};
pub use control::{Instance, KmodControl, KmodControls, ModuleSpec};
pub use error::KmodError;
