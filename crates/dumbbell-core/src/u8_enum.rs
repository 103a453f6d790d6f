//! `u8_enum!`: a fieldless enum kept as a byte (in an event, an atomic, a
//! table column or a counter index) and read back, written once with its
//! conversions. Below every layer: it uses nothing of the crate.
//!
//! ```ignore
//! crate::u8_enum::u8_enum! {
//!     /// What happened to the packet.
//!     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
//!     pub enum Event {
//!         Enqueue = "enqueue",
//!         Drop = "drop",
//!     }
//! }
//! ```
//!
//! gives the enum, `#[repr(u8)]` and numbered 0, 1, 2, ... in the order
//! written (so `v as u8` and `v as usize` are its code), and:
//!
//! - `ALL`: every variant in that order (`ALL[v as usize] == v`), `COUNT`;
//! - `from_u8(k)`: the variant numbered `k`, `None` past the last;
//! - with a name after each variant (`Variant = "name"`, all or none):
//!   `NAMES` in the same order and `name(self)`, its name in output tables.
//!
//! The enum must derive `Clone` and `Copy`. Enums whose numbers are
//! someone else's (RFC 3168's ECN codepoints, Linux's `enum tcp_ca_state`)
//! keep their explicit discriminants instead.

macro_rules! u8_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $label:literal ),+ $(,)?
        }
    ) => {
        $crate::u8_enum::u8_enum! {
            $(#[$meta])*
            $vis enum $name { $( $(#[$vmeta])* $variant ),+ }
        }

        #[allow(dead_code)]
        impl $name {
            /// The variants' names, in code order.
            pub const NAMES: [&'static str; Self::COUNT] = [$($label),+];

            /// The variant's name in output tables.
            pub fn name(self) -> &'static str {
                Self::NAMES[self as usize]
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[repr(u8)]
        $vis enum $name { $( $(#[$vmeta])* $variant ),+ }

        #[allow(dead_code)]
        impl $name {
            /// Every variant, in code order: `ALL[v as usize] == v`.
            pub const ALL: [$name; [$($name::$variant),+].len()] = [$($name::$variant),+];
            /// How many variants there are.
            pub const COUNT: usize = Self::ALL.len();

            /// The variant whose code is `k`; `None` past the last.
            pub fn from_u8(k: u8) -> Option<$name> {
                Self::ALL.get(k as usize).copied()
            }
        }
    };
}
pub(crate) use u8_enum;

#[cfg(test)]
mod tests {
    u8_enum! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Named {
            First = "first",
            /// A documented variant.
            Second = "second",
            Third = "third",
        }
    }

    u8_enum! {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        enum Bare {
            A,
            B,
        }
    }

    #[test]
    fn codes_follow_the_order_written_and_read_back() {
        assert_eq!(Named::COUNT, 3);
        for (i, v) in Named::ALL.iter().enumerate() {
            assert_eq!(*v as usize, i);
            assert_eq!(Named::from_u8(i as u8), Some(*v));
        }
        assert_eq!(Named::from_u8(3), None);
        assert_eq!(Named::from_u8(255), None);
        assert_eq!(std::mem::size_of::<Named>(), 1);
        assert_eq!(Bare::ALL, [Bare::A, Bare::B]);
        assert_eq!(Bare::from_u8(1), Some(Bare::B));
        assert_eq!(Bare::from_u8(2), None);
    }

    #[test]
    fn names_follow_the_variants() {
        assert_eq!(Named::NAMES, ["first", "second", "third"]);
        assert_eq!(Named::Second.name(), "second");
        assert_eq!(Named::Third.name(), "third");
    }
}
