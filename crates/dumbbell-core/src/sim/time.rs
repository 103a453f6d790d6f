//! Simulated time: integer picoseconds.
//!
//! `Time` is an instant since the start of the run and `Dur` a span between
//! two instants. Both are `u64` picoseconds: exact serialization times up to
//! 400 Gb/s and a horizon of about 213 days. There is no global clock; every
//! component is handed `now`. Subtraction is checked: going backwards in time
//! is a bug, and it panics in every build rather than wrapping. Adding a span
//! to an instant saturates at the end of the clock, which lies beyond every
//! run's end (the horizon is checked when the world is built).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds per nanosecond, microsecond, millisecond and second.
pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// Fastest link or sending rate: 10 Tb/s (a 64-byte frame still takes 51 ps).
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;

/// An instant of simulated time, in picoseconds since the run started.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(u64);

/// A span of simulated time, in picoseconds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Dur(u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    /// `self - earlier`; panics if `earlier` is later than `self`.
    pub fn since(self, earlier: Time) -> Dur {
        match self.0.checked_sub(earlier.0) {
            Some(d) => Dur(d),
            None => panic!("time went backwards: {:?} - {:?}", self, earlier),
        }
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    pub const ZERO: Dur = Dur(0);
    pub const MAX: Dur = Dur(u64::MAX);

    pub const fn from_ps(ps: u64) -> Dur {
        Dur(ps)
    }
    pub const fn from_ns(ns: u64) -> Dur {
        Dur(ns * PS_PER_NS)
    }
    pub const fn from_us(us: u64) -> Dur {
        Dur(us * PS_PER_US)
    }
    pub const fn from_ms(ms: u64) -> Dur {
        Dur(ms * PS_PER_MS)
    }
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * PS_PER_S)
    }
    /// Rounds to the nearest picosecond; negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Dur {
        if s.is_nan() || s <= 0.0 {
            Dur(0)
        } else {
            Dur((s * PS_PER_S as f64).round() as u64)
        }
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    pub const fn us(self) -> u64 {
        self.0 / PS_PER_US
    }
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
    pub fn saturating_sub(self, other: Dur) -> Dur {
        Dur(self.0.saturating_sub(other.0))
    }
    pub fn mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
    pub fn div(self, k: u64) -> Dur {
        Dur(self.0 / k)
    }
    /// Time to serialize `bytes` at `rate_bps`, rounded up to a whole
    /// picosecond so that a link never runs faster than its rate.
    pub fn serialization(bytes: u64, rate_bps: u64) -> Dur {
        debug_assert!(rate_bps > 0);
        // In 64 bits when the product fits (packets up to 2.3 MB): the
        // same quotient, without a 128-bit division's library call.
        const MAX_64: u64 = u64::MAX / (8 * PS_PER_S);
        if bytes <= MAX_64 {
            return Dur((bytes * 8 * PS_PER_S).div_ceil(rate_bps));
        }
        let bits_ps = bytes as u128 * 8 * PS_PER_S as u128;
        Dur(bits_ps.div_ceil(rate_bps as u128) as u64)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    /// Saturates at [`Time::MAX`]: `validate` keeps every run's end plus its
    /// longest configured delay inside the clock, so an instant past the
    /// clock's range (a pacing gap computed from a near-zero rate) is past
    /// the end of the run, and an event scheduled there never fires.
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        *self = *self + d;
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, d: Dur) {
        *self = *self + d;
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.checked_sub(d.0).expect("negative duration"))
    }
}

impl fmt::Debug for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.secs_f64())
    }
}
impl fmt::Debug for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_of_a_1500_byte_packet() {
        assert_eq!(Dur::serialization(1500, 100_000_000), Dur::from_us(120));
        assert_eq!(Dur::serialization(1500, 1_000_000_000), Dur::from_us(12));
        assert_eq!(Dur::serialization(1500, 10_000_000_000), Dur::from_ns(1200));
        // 400 Gb/s: 30 ns exactly.
        assert_eq!(Dur::serialization(1500, 400_000_000_000), Dur::from_ns(30));
        // Rounds up: 1 byte at 3 bit/s is 8/3 s.
        assert_eq!(Dur::serialization(1, 3).ps(), 2_666_666_666_667);
        // Either side of the 64-bit fast path's bound, the exact quotient.
        let max64 = u64::MAX / (8 * PS_PER_S);
        for bytes in [max64 - 1, max64, max64 + 1, 10 * max64] {
            for rate in [1, 3, 999_999_937, 400_000_000_000] {
                let exact = (bytes as u128 * 8 * PS_PER_S as u128).div_ceil(rate as u128) as u64;
                assert_eq!(
                    Dur::serialization(bytes, rate).ps(),
                    exact,
                    "{bytes} B at {rate} b/s"
                );
            }
        }
    }

    #[test]
    fn arithmetic_and_ordering() {
        let t = Time::ZERO + Dur::from_ms(3);
        assert_eq!(t.since(Time::ZERO), Dur::from_ms(3));
        assert!(t > Time::ZERO);
        assert_eq!(Time::ZERO.saturating_since(t), Dur::ZERO);
        assert_eq!(Dur::from_secs_f64(1.5), Dur::from_ms(1500));
        assert_eq!(Dur::from_secs_f64(-1.0), Dur::ZERO);
        // Past the clock's range: the end of the clock, never a wrap.
        assert_eq!(Time::from_ps(u64::MAX - 5) + Dur::from_ps(10), Time::MAX);
    }

    #[test]
    #[should_panic(expected = "time went backwards")]
    fn going_backwards_panics() {
        let _ = Time::ZERO.since(Time::from_ps(1));
    }
}
