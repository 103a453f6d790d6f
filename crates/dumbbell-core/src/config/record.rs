//! `record!`: a record of the run document whose fields fall in two
//! parts, those the document must give and those it may leave out, each
//! of the latter then taking its type's `Default` (serde's field
//! `default`, written once for the part rather than once a field).
//!
//! ```ignore
//! record! {
//!     /// A link.
//!     #[derive(Clone, Debug, Serialize, Deserialize)]
//!     #[serde(deny_unknown_fields)]
//!     pub struct LinkConfig {
//!         pub a: String,
//!     }
//!     may_leave_out {
//!         /// 0: lossless.
//!         pub loss_ab: f64,
//!     }
//! }
//! ```
//!
//! gives the struct with the fields in the order written, `a` required
//! (a document without it fails with serde's `missing field `a``) and
//! `loss_ab` under `#[serde(default)]`. There is no container `default`:
//! a missing required field never passes. A field with a default of its
//! own (`#[serde(default = "...")]`) belongs in neither part: write that
//! struct out by hand.

macro_rules! record {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$r_meta:meta])* pub $r:ident: $r_ty:ty, )*
        }
        may_leave_out {
            $( $(#[$o_meta:meta])* pub $o:ident: $o_ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$r_meta])* pub $r: $r_ty, )*
            $( $(#[$o_meta])* #[serde(default)] pub $o: $o_ty, )*
        }
    };
}
pub(crate) use record;

/// `every_variant!`: an enum of the run document whose variants (all with
/// named fields) begin with the same fields, written once in `every`:
///
/// ```ignore
/// every_variant! {
///     #[derive(Clone, Debug, Serialize, Deserialize)]
///     #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
///     pub enum FlowConfig {
///         every { name: String, }
///         Tcp { bytes: Option<u64>, },
///         Udp { rate_bps: u64, },
///     }
/// }
/// ```
///
/// gives `Tcp { name: String, bytes: Option<u64> }` and `Udp { name:
/// String, rate_bps: u64 }`, each field with its attributes. (serde
/// cannot flatten a shared struct into an internally tagged enum that
/// denies unknown fields.)
macro_rules! every_variant {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            every $every:tt
            $($variants:tt)*
        }
    ) => {
        $crate::config::record::every_variant! {
            @next [$(#[$meta])* pub enum $name] $every [] $($variants)*
        }
    };
    (
        @next $head:tt { $($every:tt)* } [$($done:tt)*]
        $(#[$v_meta:meta])* $variant:ident { $($own:tt)* },
        $($rest:tt)*
    ) => {
        $crate::config::record::every_variant! {
            @next $head { $($every)* }
            [$($done)* $(#[$v_meta])* $variant { $($every)* $($own)* },]
            $($rest)*
        }
    };
    (@next [$($head:tt)*] $every:tt [$($done:tt)*]) => {
        $($head)* { $($done)* }
    };
}
pub(crate) use every_variant;
