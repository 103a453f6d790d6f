//! What the sender's and the receiver's tests share: one connection
//! ([`ep`]) of full-size segments, [`MSS`] bytes of payload under [`HDR`]
//! bytes of IP and TCP headers, and times since the start of the run.

use super::Endpoints;
use crate::sim::{Time, PS_PER_MS, PS_PER_US};

pub const MSS: u64 = 1448;
pub const HDR: u32 = 40;

/// The connection both benches drive (flow 7).
pub fn ep() -> Endpoints {
    Endpoints::test(7)
}

/// `x` milliseconds into the run.
pub fn ms(x: u64) -> Time {
    Time::from_ps(x * PS_PER_MS)
}

/// `x` microseconds into the run.
pub fn us(x: u64) -> Time {
    Time::from_ps(x * PS_PER_US)
}
