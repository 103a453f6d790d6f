//! The ideal classifier: the application's own tag.
//!
//! The paper's reference ("classificador ideal", §3) marks the IP header at
//! the FTP application so that every packet of a task that transfers a long
//! file — control connection included — is long, and it emulates a
//! full-state classifier (or OpenFlow in steady state). Here the tag is
//! `Packet::long_flow`, which the world sets on every packet of a flow or
//! task whose transfer exceeds `short_flow_max_bytes` (the ground truth the
//! confusion matrix is counted against), so this classifier is never wrong.

use super::{Class, Classifier};
use crate::packet::Packet;

#[derive(Clone, Copy, Debug, Default)]
pub struct Ideal;

impl Classifier for Ideal {
    fn classify(&mut self, p: &Packet) -> Class {
        Class::of_long(p.long_flow)
    }

    fn name(&self) -> &'static str {
        "ideal"
    }
}
