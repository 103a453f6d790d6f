//! `port_and_setup!`: [`Port`](super::port::Port)'s fields written once,
//! those marked `set` also making up [`PortSetup`](super::port::PortSetup),
//! what a port is built from (its ends, its link and the link's wire
//! effects, its discipline and the egress options).
//!
//! ```ignore
//! port_and_setup! {
//!     /// An egress port.
//!     pub struct Port;
//!     /// What a port is built from.
//!     pub struct PortSetup;
//!     {
//!         set node: u32,
//!         /// Packet being serialized, if any.
//!         tx: Option<PktId>,
//!     }
//! }
//! ```
//!
//! gives `pub struct Port { pub node: u32, pub tx: Option<PktId> }` with
//! its fields in the order written (the hot layout stays as written) and
//! `pub struct PortSetup { pub node: u32 }`, each field with its
//! attributes and docs. `Port::new` moves the `set` fields over and starts
//! the others.

macro_rules! port_and_setup {
    (
        $(#[$p_meta:meta])* pub struct $port:ident;
        $(#[$s_meta:meta])* pub struct $setup:ident;
        { $($fields:tt)* }
    ) => {
        $crate::net::port_setup::port_and_setup! {
            @field [$(#[$p_meta])* pub struct $port] [$(#[$s_meta])* pub struct $setup] [] []
            $($fields)*
        }
    };
    (
        @field $port:tt $setup:tt [$($p:tt)*] [$($s:tt)*]
        $(#[$m:meta])* set $f:ident: $t:ty,
        $($rest:tt)*
    ) => {
        $crate::net::port_setup::port_and_setup! {
            @field $port $setup [$($p)* $(#[$m])* pub $f: $t,] [$($s)* $(#[$m])* pub $f: $t,]
            $($rest)*
        }
    };
    (
        @field $port:tt $setup:tt [$($p:tt)*] $s:tt
        $(#[$m:meta])* $f:ident: $t:ty,
        $($rest:tt)*
    ) => {
        $crate::net::port_setup::port_and_setup! {
            @field $port $setup [$($p)* $(#[$m])* pub $f: $t,] $s
            $($rest)*
        }
    };
    (@field [$($port:tt)*] [$($setup:tt)*] [$($p:tt)*] [$($s:tt)*]) => {
        $($port)* { $($p)* }
        $($setup)* { $($s)* }
    };
}
pub(crate) use port_and_setup;
