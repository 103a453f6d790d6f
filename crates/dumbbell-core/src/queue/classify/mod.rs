//! Short/long flow classifiers for two-class ports (S. S. Mussi and
//! M. R. N. Ribeiro, "RAFLE: Uma Proposta para Diferenciação de Fluxos sem
//! Manutenção de Estados em Roteadores", UFES, a paper in the Brazilian
//! Computer Society's proceedings format, c. 2012; our copy names no venue).
//!
//! A classifier looks at one arriving packet and names its class; it never
//! sees the queues. Each rule lives in its own file as a function a test can
//! call with a scripted input (`Rafle::decide` takes the drawn position,
//! `Run2c::decide` the sequence offset):
//! - [`Ideal`]: the application's oracle tag (`Packet::long_flow`), as the
//!   paper's "ideal" classifier reads a mark the FTP application wrote into
//!   the IP header — the whole task, control connection included;
//! - [`Run2c`]: RuN2C (Avrachenkov, Brown and Nyberg, INFOCOM 2004), short
//!   while the packet's sequence offset from the flow's first byte is below
//!   the threshold TH;
//! - [`Rafle`]: RAFLE (§4 of the paper), a random probe of a circular memory
//!   of the flow ids of the last N packets.

mod ideal;
pub mod rafle;
pub mod run2c;

pub use ideal::Ideal;
pub use rafle::{FlowKey, Rafle};
pub use run2c::Run2c;

use crate::packet::Packet;
use serde::{Deserialize, Serialize};

/// A short/long flow classifier (`queue::classify`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClassifierConfig {
    /// The application's tag: the whole task of a long file is long.
    Ideal,
    /// RuN2C: short while the sequence offset is below `threshold_bytes`.
    Run2c {
        #[serde(default = "default_run2c_threshold")]
        threshold_bytes: u64,
    },
    /// RAFLE: a random probe of the flow ids of the last `n` packets.
    Rafle {
        #[serde(default = "default_rafle_n")]
        n: u32,
    },
}

/// Largest RAFLE memory, slots (the paper tries 10 to 100).
pub const MAX_RAFLE_N: u32 = 1 << 20;

impl ClassifierConfig {
    /// Refuses out-of-range parameters, naming the one at fault.
    pub fn check(&self) -> Result<(), crate::param::ParamError> {
        match self {
            ClassifierConfig::Rafle { n } => {
                crate::param::int_param("n", *n, 1, MAX_RAFLE_N, " slots")
            }
            _ => Ok(()),
        }
    }
}

fn default_run2c_threshold() -> u64 {
    run2c::DEFAULT_THRESHOLD_BYTES
}
fn default_rafle_n() -> u32 {
    rafle::DEFAULT_N as u32
}

crate::u8_enum::u8_enum! {
    /// The two classes of a two-class port. The code indexes the port's
    /// queues and counters.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Class {
        Short = "short",
        Long = "long",
    }
}

impl Class {
    pub fn of_long(long: bool) -> Class {
        if long {
            Class::Long
        } else {
            Class::Short
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// A short/long classifier at one port.
pub trait Classifier {
    /// The class of an arriving packet. Called once per packet offered to
    /// the port, before admission.
    fn classify(&mut self, p: &Packet) -> Class;
    /// The classifier's name in output tables (`ideal`, `run2c`, `rafle`).
    fn name(&self) -> &'static str;
}

#[cfg(test)]
mod tests;
