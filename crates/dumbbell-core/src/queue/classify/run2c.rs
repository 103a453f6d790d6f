//! RuN2C, "Running Number 2 Class" (Avrachenkov, Brown and Nyberg,
//! INFOCOM 2004), as the RAFLE paper describes it (§2): a packet is short
//! while its sequence offset from the flow's first byte is below the
//! threshold TH (16 KB in both papers), long from the first packet whose
//! offset reaches TH.
//!
//! RuN2C needs the offset, not the raw sequence number, so its authors
//! constrain the initial sequence numbers the hosts choose. dumbbell's
//! sequence numbers already count bytes from 0 (`tcp/mod.rs`), which is that
//! modified TCP. A pure ACK carries the offset of its sender's own (empty)
//! stream, 0, and is therefore short; so is a SYN.

use super::{Class, Classifier};
use crate::packet::Packet;

/// RuN2C's default threshold: 16 KB (the RuN2C paper's value, kept by the
/// RAFLE paper "por compatibilidade", §3.1).
pub const DEFAULT_THRESHOLD_BYTES: u64 = 16 * 1024;

#[derive(Clone, Copy, Debug)]
pub struct Run2c {
    pub threshold_bytes: u64,
}

impl Run2c {
    pub fn new(threshold_bytes: u64) -> Self {
        Run2c { threshold_bytes }
    }

    /// The rule: short while `offset < TH`.
    pub fn decide(&self, offset_bytes: u64) -> Class {
        Class::of_long(offset_bytes >= self.threshold_bytes)
    }
}

impl Classifier for Run2c {
    fn classify(&mut self, p: &Packet) -> Class {
        self.decide(p.seq)
    }

    fn name(&self) -> &'static str {
        "run2c"
    }
}
