//! CUBIC: a window that grows as a cubic function of the time since the
//! last reduction, centred on the window where that reduction happened,
//! with HyStart to leave slow start before the first loss.
//!
//! Follows RFC 9438 and, where they differ in detail, Linux
//! `net/ipv4/tcp_cubic.c` (the recent version, with microsecond HyStart):
//!
//! - On a reduction (`ssthresh`, RFC 9438 §4.6–4.7) the epoch ends, `W_max`
//!   becomes the current window — or, with fast convergence, the window
//!   times (1 + β)/2 when it is below the previous `W_max` — and the new
//!   threshold is β·cwnd, at least 2.
//! - In congestion avoidance (`bictcp_update` in Linux) the first ACK of an
//!   epoch computes `K = cbrt((W_max − cwnd)/C)` and the origin point
//!   (`W_max`, or cwnd when above it). Every ACK then aims at the curve one
//!   minimum RTT ahead, `target = W(t + delay_min)` with
//!   `W(t) = C·(t − K)³ + origin` (RFC 9438 §4.2, eq. 1 and the target of
//!   §4.4), and grows by one packet every `cnt = cwnd / (target − cwnd)`
//!   acked packets (`100·cwnd` when at or above the target). Before the
//!   first loss `cnt` is at most 20 (5 % per RTT). With `tcp_friendliness`
//!   the Reno-friendly estimate `W_est` (RFC 9438 §4.3) grows by one packet
//!   every `cwnd·beta_scale/8` acked packets — Linux's ack counting, where
//!   `beta_scale/8 ≈ 1/α_cubic`, `α_cubic = 3(1 − β)/(1 + β)` — and `cnt`
//!   is lowered so that cwnd catches up with it. `cnt` is at least 2: cwnd
//!   grows at most 1.5× per RTT. `cnt` is recomputed at most once per jiffy,
//!   and when cwnd has not changed at most every `hz/32` jiffies.
//! - `cwnd_event(TxStart)` after idle shifts the epoch start forward by the
//!   idle time, so the curve resumes where it stopped, never into the
//!   future.
//! - `set_state(Loss)` (RTO) forgets everything, `W_max` and `delay_min`
//!   included; `undo_cwnd` is Linux's `tcp_reno_undo_cwnd`, restoring the
//!   window from before the reduction (recent Linux has no Cubic-specific
//!   undo, and `W_max` is not restored).
//! - HyStart (Ha and Rhee, "Taming the Elephants: New TCP Slow Start",
//!   2011), in slow start: rounds of data (`snd_una` passing the `snd_nxt`
//!   of the round start) restart at every window, and from cwnd ≥
//!   `hystart_low_window` on, per round, the ACK-train
//!   detector exits when closely spaced ACKs (≤ `hystart_ack_delta_us`
//!   apart) have kept arriving for more than half of `delay_min` (plus the
//!   TSO/GRO cushion of `hystart_ack_delay`); the delay detector exits,
//!   once the round has 8 RTT samples, when the minimum of its samples
//!   exceeds `delay_min + clamp(delay_min/8, 4 ms, 16 ms)`. Exit sets
//!   ssthresh = cwnd. RTT samples are ignored for a second after an epoch
//!   starts (right after recovery).
//!
//! # Time and arithmetic
//!
//! Linux runs the cubic function on jiffies and in fixed point; so do we,
//! so that window trajectories match the kernel's. A jiffy is 1/`hz` s,
//! derived from the simulated picosecond clock: 4 ms by default, as in
//! Debian's kernel (`CONFIG_HZ=250`; 1000 in Fedora's, for instance); the
//! cubic time unit is 2^-10 s (`BICTCP_HZ`); β is in units of 1/1024
//! (717 for the default 0.7002); C is in units of 1/1024 (410 for 0.4, the
//! value Linux gets from `bic_scale` 41 × 10). HyStart and `delay_min` use
//! microseconds, as Linux's `tcp_mstamp`.
//!
//! K is Linux's approximate cube root, not the exact one
//! ([`cubic_root`](super::cubic_root::cubic_root): a table lookup plus one
//! Newton step, within about 0.2 % of the root), so that K, the target and
//! `cnt` after a reduction are the kernel's. Products are taken in `u128`
//! where Linux's `u64` could wrap (only for epochs of tens of minutes),
//! and the steps that would divide by zero or loop forever in Linux with
//! out-of-range parameters are guarded.
//!
//! # Parameters
//!
//! Every field of [`CubicParams`] is honoured: `beta` and `c` are rounded to
//! the nearest 1/1024 (β is kept in 1..=1023, C at least 1/1024);
//! `hystart` switches HyStart as a whole, `hystart_ack_train` and
//! `hystart_delay` each detector (Linux's `hystart_detect` bits); `hz` is
//! the kernel's jiffies per second (250, Debian's, by default).
//! Linux's `initial_ssthresh` (0 by default) is not a parameter.
//!
//! The stack never paces Cubic (it does not ask to), so the ACK-train
//! threshold is halved as Linux does with `SK_PACING_NONE`; the TSO/GRO
//! cushion reads `tp.pacing_rate_bps` as Linux reads `sk_pacing_rate`, and
//! is 0 when the stack leaves it at 0.

use super::cubic_root::cubic_root;
use super::Registration;
use super::{
    slow_start_then_avoid, tcp_cong_avoid_ai, AckSample, CaEvent, CaState, CongestionControl,
    TcpSock,
};
use crate::param::{self, Param, ParamError, Range};
use crate::sim::{Time, PS_PER_S, PS_PER_US};
use serde::{Deserialize, Serialize};

/// Cubic's parameters (the table [`PARAMS`] gives their ranges).
/// Cubic (RFC 9438, Linux `tcp_cubic.c`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CubicParams {
    /// Multiplicative decrease factor (Linux beta = 717/1024).
    pub beta: f64,
    /// Cubic constant C, in packets / s^3.
    pub c: f64,
    pub fast_convergence: bool,
    pub tcp_friendliness: bool,
    pub hystart: bool,
    /// HyStart detectors: ACK train and delay increase.
    pub hystart_ack_train: bool,
    pub hystart_delay: bool,
    /// HyStart is active only from this window on (packets).
    pub hystart_low_window: u32,
    /// ACK train spacing threshold, microseconds.
    pub hystart_ack_delta_us: u32,
    /// Jiffies per second of the kernel's clock, which Cubic's curve runs
    /// on (Linux `CONFIG_HZ`; Debian's kernel 250).
    pub hz: u32,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams {
            beta: 717.0 / 1024.0,
            c: 0.4,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: true,
            hystart_ack_train: true,
            hystart_delay: true,
            hystart_low_window: 16,
            hystart_ack_delta_us: 2000,
            hz: DEBIAN_HZ,
        }
    }
}

/// Cubic's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::float_in("beta", Range::float(0.0, true, 1.0, true),
        "Multiplicative decrease factor (Linux 717/1024).",
    ),
    Param::float_in("c", Range::float(0.0, true, MAX_CUBIC_C, false),
        "Cubic constant C, packets/s^3 (Linux 0.4).",
    ),
    Param::flag("fast_convergence", "Release bandwidth faster when the window shrinks.",
    ),
    Param::flag("tcp_friendliness", "Grow at least as fast as Reno would.",
    ),
    Param::flag("hystart", "HyStart: leave slow start before the first loss.",
    ),
    Param::flag("hystart_ack_train", "HyStart's ACK-train detector.",
    ),
    Param::flag("hystart_delay", "HyStart's delay-increase detector.",
    ),
    Param::int_in("hystart_low_window", Range::U32,
        "HyStart is active from this window on, packets.",
    ),
    Param::int_in("hystart_ack_delta_us", Range::U32,
        "ACK-train spacing threshold, microseconds.",
    ),
    Param::int_in("hz", Range::int(1, MAX_HZ as u128, " Hz"),
        "Jiffies per second of Cubic's clock (Linux CONFIG_HZ; 250 = Debian's kernel, 1000 = Fedora's).",
    ),
];

/// Largest Cubic C, packets/s³ (Linux's default 0.4, `bic_scale` 41).
pub const MAX_CUBIC_C: f64 = 100.0;

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(p: &CubicParams) -> Result<(), ParamError> {
    param::check_fields!(PARAMS, p, [beta, c, hz])
}

/// `cc = "cubic"`: a variant of its own ([`CcConfig::Cubic`](super::registry::CcConfig)).
pub const REGISTRATION: Registration = super::registration! {
    name: "cubic",
    about: "Cubic (RFC 9438; Linux tcp_cubic.c, with HyStart): the default.",
    params: PARAMS,
    config: CubicParams,
    check: check,
    new: Cubic::new,
};

/// Jiffies per second of Debian's kernel (`CONFIG_HZ=250` in its
/// `linux-image` config): the default of [`CubicParams::hz`].
pub const DEBIAN_HZ: u32 = 250;

/// Largest `hz` (a jiffy of 1 µs; Linux offers 100 to 1000).
pub const MAX_HZ: u32 = 1_000_000;

/// β and C are fixed point in units of 1/1024 (Linux `BICTCP_BETA_SCALE`;
/// `cube_rtt_scale` is C·1024).
const FIXED_ONE: u32 = 1024;

/// log2 of the cubic function's time units per second (Linux `BICTCP_HZ`):
/// t and K are in units of 2^-10 s.
const CUBIC_TIME_SHIFT: u32 = 10;

/// `cnt` before the first loss, when `W_max` is unknown: at most 5 % growth
/// per RTT (Linux `bictcp_update`).
const CNT_WITHOUT_WMAX: u32 = 20;

/// Smallest `cnt`: one packet per 2 acked, 1.5× per RTT (Linux).
const CNT_MIN: u32 = 2;

/// RTT samples per round for the delay detector (Linux
/// `HYSTART_MIN_SAMPLES`).
const HYSTART_MIN_SAMPLES: u8 = 8;

/// Bounds of the delay detector's threshold delay_min/8, microseconds
/// (Linux `HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`).
const HYSTART_DELAY_MIN_US: u32 = 4_000;
const HYSTART_DELAY_MAX_US: u32 = 16_000;

/// Size of a TSO/GSO aggregate in Linux's `hystart_ack_delay` cushion
/// (`sk_gso_max_size`, 64 KiB by default), bytes.
const GSO_MAX_SIZE_BYTES: u64 = 65_536;

/// Cap of that cushion, microseconds (Linux `USEC_PER_MSEC`).
const HYSTART_ACK_DELAY_MAX_US: u64 = 1_000;

#[derive(Clone, Debug)]
pub struct Cubic {
    params: CubicParams,
    /// β in 1/1024.
    beta: u32,
    /// C in 1/1024 packets/s³ (Linux `cube_rtt_scale`).
    cube_rtt_scale: u64,
    /// 2^40 / cube_rtt_scale: K = cbrt(cube_factor · (W_max − cwnd)) in
    /// 2^-10 s (Linux `cube_factor`).
    cube_factor: u64,
    /// 8/α_cubic: acked packets per W_est increment, ×8 (Linux `beta_scale`).
    beta_scale: u32,
    /// Jiffies per second, and picoseconds per jiffy.
    hz: u64,
    ps_per_jiffy: u64,

    /// Acked packets per one-packet increase.
    cnt: u32,
    /// W_max, packets (Linux `last_max_cwnd`).
    last_max_cwnd: u32,
    /// cwnd and time (jiffies) of the last `cnt` computation.
    last_cwnd: u32,
    last_time_jiffies: u64,
    /// Origin of the cubic curve, packets.
    origin_point: u32,
    /// Time from the epoch start to the origin, 2^-10 s.
    k: u32,
    /// Minimum RTT seen, microseconds (0: none yet).
    delay_min_us: u32,
    /// Start of the current epoch, jiffies (None: no epoch).
    epoch_start_jiffies: Option<u64>,
    /// Packets acked since W_est last grew.
    ack_cnt: u32,
    /// W_est, the Reno-friendly window, packets (Linux `tcp_cwnd`).
    tcp_cwnd: u32,

    /// HyStart found the exit of slow start.
    found: bool,
    /// RTT samples taken this round.
    sample_cnt: u8,
    /// Start of the current round and last ACK of the train, microseconds.
    round_start_us: u64,
    last_ack_us: u64,
    /// The round ends when `snd_una` passes this sequence.
    end_seq: u64,
    /// Minimum RTT of this round's samples, microseconds.
    curr_rtt_us: u32,
}

/// `x` in units of 1/1024, rounded, clamped to `lo..=hi`.
fn to_fixed(x: f64, lo: u32, hi: u32) -> u32 {
    if x.is_nan() {
        return lo;
    }
    (x * FIXED_ONE as f64).round().clamp(lo as f64, hi as f64) as u32
}

/// The simulated clock in microseconds (Linux `tcp_mstamp`).
fn clock_us(t: Time) -> u64 {
    t.ps() / PS_PER_US
}

impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        let beta = to_fixed(p.beta, 1, FIXED_ONE - 1);
        let cube_rtt_scale = to_fixed(p.c, 1, u32::MAX) as u64;
        let cube_factor = (1u64 << (10 + 3 * CUBIC_TIME_SHIFT)) / cube_rtt_scale;
        let beta_scale = 8 * (FIXED_ONE + beta) / 3 / (FIXED_ONE - beta);
        let hz = p.hz.clamp(1, MAX_HZ) as u64;
        Cubic {
            hz,
            ps_per_jiffy: PS_PER_S / hz,
            params: p,
            beta,
            cube_rtt_scale,
            cube_factor,
            beta_scale,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time_jiffies: 0,
            origin_point: 0,
            k: 0,
            delay_min_us: 0,
            epoch_start_jiffies: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            found: false,
            sample_cnt: 0,
            round_start_us: 0,
            last_ack_us: 0,
            end_seq: 0,
            curr_rtt_us: u32::MAX,
        }
    }

    /// W_max, packets.
    pub fn w_max(&self) -> u32 {
        self.last_max_cwnd
    }

    /// K, seconds.
    pub fn k_secs(&self) -> f64 {
        self.k as f64 / (1u64 << CUBIC_TIME_SHIFT) as f64
    }

    /// The simulated clock in jiffies.
    fn jiffies(&self, t: Time) -> u64 {
        t.ps() / self.ps_per_jiffy
    }

    /// Linux `usecs_to_jiffies`: rounds up.
    fn usecs_to_jiffies(&self, us: u32) -> u64 {
        (us as u64 * self.hz).div_ceil(1_000_000)
    }

    /// Forgets the window history (Linux `bictcp_reset`).
    fn reset(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time_jiffies = 0;
        self.origin_point = 0;
        self.k = 0;
        self.delay_min_us = 0;
        self.epoch_start_jiffies = None;
        self.ack_cnt = 0;
        self.tcp_cwnd = 0;
        self.found = false;
    }

    /// Starts a HyStart round at the current send point.
    fn hystart_reset(&mut self, tp: &TcpSock) {
        let now_us = clock_us(tp.now);
        self.round_start_us = now_us;
        self.last_ack_us = now_us;
        self.end_seq = tp.snd_nxt;
        self.curr_rtt_us = u32::MAX;
        self.sample_cnt = 0;
    }

    /// Recomputes `cnt` for the current window (Linux `bictcp_update`).
    fn update(&mut self, cwnd: u32, acked: u32, now: Time) {
        let now_j = self.jiffies(now);
        self.ack_cnt = self.ack_cnt.saturating_add(acked);

        if self.last_cwnd == cwnd && now_j.saturating_sub(self.last_time_jiffies) <= self.hz / 32 {
            return;
        }
        // The cubic part runs at most once per jiffy; the Reno-friendly part
        // on every call that gets here.
        if !(self.epoch_start_jiffies.is_some() && now_j == self.last_time_jiffies) {
            self.last_cwnd = cwnd;
            self.last_time_jiffies = now_j;
            self.cubic_cnt(cwnd, acked, now_j);
        }
        if self.params.tcp_friendliness {
            // One W_est increment per cwnd/α_cubic acked packets.
            let per_increment =
                ((cwnd as u64 * self.beta_scale as u64) >> 3).clamp(1, u32::MAX as u64) as u32;
            if self.ack_cnt > per_increment {
                let n = (self.ack_cnt - 1) / per_increment;
                self.ack_cnt -= n * per_increment;
                self.tcp_cwnd = self.tcp_cwnd.saturating_add(n);
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        self.cnt = self.cnt.max(CNT_MIN);
    }

    /// The cubic part of `update`: starts an epoch if needed and aims at
    /// the curve one `delay_min` ahead.
    fn cubic_cnt(&mut self, cwnd: u32, acked: u32, now_j: u64) {
        let epoch = match self.epoch_start_jiffies {
            Some(e) => e,
            None => {
                self.epoch_start_jiffies = Some(now_j);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0;
                    self.origin_point = cwnd;
                } else {
                    let gap = (self.last_max_cwnd - cwnd) as u64;
                    // Linux's u64 product wraps only with C below about
                    // 1/4 packet/s³ and gaps of millions of packets.
                    self.k = cubic_root(self.cube_factor.wrapping_mul(gap));
                    self.origin_point = self.last_max_cwnd;
                }
                now_j
            }
        };
        // t + delay_min, in 2^-10 s.
        let t_jiffies = now_j.saturating_sub(epoch) + self.usecs_to_jiffies(self.delay_min_us);
        let t = (t_jiffies << CUBIC_TIME_SHIFT) / self.hz;
        let k = self.k as u64;
        let offs = t.abs_diff(k) as u128;
        // C·(t − K)³ in packets: (C·1024)·offs³ / 2^(10 + 3·10).
        let delta =
            (self.cube_rtt_scale as u128 * offs * offs * offs) >> (10 + 3 * CUBIC_TIME_SHIFT);
        let delta = delta.min(u32::MAX as u128) as u32;
        let target = if t < k {
            self.origin_point.saturating_sub(delta)
        } else {
            self.origin_point.saturating_add(delta)
        };
        self.cnt = if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            cwnd.saturating_mul(100)
        };
        if self.last_max_cwnd == 0 {
            self.cnt = self.cnt.min(CNT_WITHOUT_WMAX);
        }
    }

    /// Linux `hystart_ack_delay`: the time a 64 KiB aggregate takes at a
    /// quarter of the pacing rate, at most 1 ms; 0 when there is no rate.
    fn hystart_ack_delay_us(tp: &TcpSock) -> u64 {
        if tp.pacing_rate_bps == 0 {
            return 0;
        }
        let us = GSO_MAX_SIZE_BYTES * 4 * 1_000_000 / tp.pacing_rate_bps;
        us.min(HYSTART_ACK_DELAY_MAX_US)
    }

    /// Runs the HyStart detectors on one RTT sample (Linux `hystart_update`).
    fn hystart_update(&mut self, tp: &mut TcpSock, delay_us: u32) {
        if tp.snd_una > self.end_seq {
            self.hystart_reset(tp);
        }
        // The rounds restart at every window; the detectors run only from
        // `hystart_low_window` on (Linux tests it after the reset).
        if tp.snd_cwnd < self.params.hystart_low_window {
            return;
        }
        if self.params.hystart_ack_train {
            let now_us = clock_us(tp.now);
            if now_us.saturating_sub(self.last_ack_us) <= self.params.hystart_ack_delta_us as u64 {
                self.last_ack_us = now_us;
                // Half of delay_min: unpaced ACKs of a full pipe span a
                // whole RTT; the cushion covers TSO/GRO aggregation.
                let threshold_us = (self.delay_min_us as u64 + Self::hystart_ack_delay_us(tp)) >> 1;
                if now_us.saturating_sub(self.round_start_us) > threshold_us {
                    self.found = true;
                    tp.snd_ssthresh = tp.snd_cwnd;
                }
            }
        }
        if self.params.hystart_delay {
            self.curr_rtt_us = self.curr_rtt_us.min(delay_us);
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let margin_us =
                    (self.delay_min_us >> 3).clamp(HYSTART_DELAY_MIN_US, HYSTART_DELAY_MAX_US);
                if self.curr_rtt_us > self.delay_min_us.saturating_add(margin_us) {
                    self.found = true;
                    tp.snd_ssthresh = tp.snd_cwnd;
                }
            }
        }
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn init(&mut self, tp: &mut TcpSock) {
        self.reset();
        if self.params.hystart {
            self.hystart_reset(tp);
        }
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        let cwnd = tp.snd_cwnd;
        self.epoch_start_jiffies = None;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.params.fast_convergence {
            // cwnd·(1 + β)/2.
            (cwnd as u64 * (FIXED_ONE + self.beta) as u64 / (2 * FIXED_ONE) as u64) as u32
        } else {
            cwnd
        };
        ((cwnd as u64 * self.beta as u64 / FIXED_ONE as u64) as u32).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, acked: u32) {
        if let Some(acked) = slow_start_then_avoid(tp, acked) {
            self.update(tp.snd_cwnd, acked, tp.now);
            tcp_cong_avoid_ai(tp, self.cnt, acked);
        }
    }

    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        if new_state == CaState::Loss {
            self.reset();
            self.hystart_reset(tp);
        }
    }

    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        if ev != CaEvent::TxStart {
            return;
        }
        let now_j = self.jiffies(tp.now);
        let idle_j = now_j.saturating_sub(self.jiffies(tp.lsndtime));
        if let Some(epoch) = self.epoch_start_jiffies {
            if idle_j > 0 {
                self.epoch_start_jiffies = Some((epoch + idle_j).min(now_j));
            }
        }
    }

    fn pkts_acked(&mut self, tp: &mut TcpSock, sample: &AckSample) {
        let Some(rtt) = sample.rtt else {
            return;
        };
        // Samples right after a reduction still carry its queue: skip them
        // for a second.
        if let Some(epoch) = self.epoch_start_jiffies {
            if self.jiffies(tp.now).saturating_sub(epoch) < self.hz {
                return;
            }
        }
        let delay_us = rtt.us().clamp(1, u32::MAX as u64) as u32;
        if self.delay_min_us == 0 || self.delay_min_us > delay_us {
            self.delay_min_us = delay_us;
        }
        if !self.found && tp.in_slow_start() && self.params.hystart {
            self.hystart_update(tp, delay_us);
        }
    }

    /// Linux `tcp_reno_undo_cwnd`.
    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        tp.snd_cwnd.max(tp.prior_cwnd)
    }

    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("w_max", self.last_max_cwnd as f64);
        out("k_s", self.k_secs());
        out("origin_point", self.origin_point as f64);
        out("cnt", self.cnt as f64);
        out("w_est", self.tcp_cwnd as f64);
        out("delay_min_us", self.delay_min_us as f64);
        out("hystart_found", if self.found { 1.0 } else { 0.0 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::ack_flags::SLOWPATH;
    use crate::cc::INFINITE_SSTHRESH;
    use crate::sim::Dur;

    /// RFC 9438 constants the curve is checked against (not Linux's fixed
    /// point: the tolerance covers the difference).
    const BETA: f64 = 0.7;
    const C: f64 = 0.4;

    /// A sender that keeps cwnd packets in flight, one ACK per packet,
    /// driving the hooks in the order of `cc/mod.rs`.
    #[derive(Clone)]
    struct Flow {
        tp: TcpSock,
        cc: Cubic,
    }

    impl Flow {
        fn new(params: CubicParams, cwnd: u32, ssthresh: u32) -> Flow {
            let mut tp = TcpSock::new(1448, cwnd);
            tp.snd_ssthresh = ssthresh;
            tp.is_cwnd_limited = true;
            tp.snd_nxt = cwnd as u64;
            let mut cc = Cubic::new(params);
            cc.init(&mut tp);
            Flow { tp, cc }
        }

        /// One ACK at `at` for one packet with an RTT sample `rtt`; then
        /// the window is refilled.
        fn ack(&mut self, at: Time, rtt: Dur) {
            let tp = &mut self.tp;
            let in_flight = (tp.snd_nxt - tp.snd_una) as u32;
            tp.now = at;
            tp.snd_una += 1;
            tp.delivered += 1;
            self.cc.in_ack_event(tp, SLOWPATH);
            let sample = AckSample {
                pkts_acked: 1,
                rtt: Some(rtt),
                in_flight,
            };
            self.cc.pkts_acked(tp, &sample);
            if tp.ca_state == CaState::Open {
                self.cc.cong_avoid(tp, tp.snd_una, 1);
            }
            tp.snd_nxt = tp.snd_una + tp.snd_cwnd as u64;
            tp.lsndtime = at;
        }

        /// One round trip: every packet in flight is acked, ACK i at
        /// `start + (i + 1)·spacing` (spread evenly over the RTT when
        /// `spacing` is None); the next round starts at `start + rtt`.
        fn round(&mut self, rtt: Dur, spacing: Option<Dur>) {
            let start = self.tp.now;
            let n = self.tp.snd_nxt - self.tp.snd_una;
            let gap = spacing.unwrap_or(rtt.div(n));
            assert!(gap.mul(n) <= rtt, "the ACK train must fit in the RTT");
            for i in 0..n {
                self.ack(start + gap.mul(i + 1), rtt);
            }
            self.tp.now = start + rtt;
        }

        /// A fast-retransmit loss at the current window, and a recovery
        /// that lasts one RTT and ends at the new ssthresh (as PRR does).
        fn loss(&mut self, rtt: Dur) {
            let tp = &mut self.tp;
            tp.prior_cwnd = tp.snd_cwnd;
            tp.snd_ssthresh = self.cc.ssthresh(tp);
            self.cc.set_state(tp, CaState::Recovery);
            tp.ca_state = CaState::Recovery;
            self.round(rtt, None);
            let tp = &mut self.tp;
            tp.snd_cwnd = tp.snd_ssthresh;
            tp.snd_nxt = tp.snd_una + tp.snd_cwnd as u64;
            self.cc.cwnd_event(tp, CaEvent::CompleteCwr);
            self.cc.set_state(tp, CaState::Open);
            tp.ca_state = CaState::Open;
        }

        fn var(&self, name: &str) -> f64 {
            let mut found = None;
            self.cc.trace_vars(&mut |k, v| {
                if k == name {
                    found = Some(v);
                }
            });
            found.unwrap_or_else(|| panic!("no trace variable {name}"))
        }
    }

    fn params() -> CubicParams {
        CubicParams::default()
    }

    /// RFC 9438 eq. 1 with K from eq. 2.
    fn w_cubic(t_secs: f64, w_max: f64, cwnd_epoch: f64) -> f64 {
        let k = ((w_max - cwnd_epoch) / C).cbrt();
        C * (t_secs - k).powi(3) + w_max
    }

    /// HyStart's verdict (`hystart_found`) after two rounds of slow start
    /// from 10 packets.
    fn hystart_found_in_two_rounds(p: CubicParams, rtt: Dur) -> f64 {
        let mut f = Flow::new(p, 10, INFINITE_SSTHRESH);
        f.round(rtt, None);
        f.round(rtt, None);
        f.var("hystart_found")
    }

    /// A flow with one RTT sample (for delay_min), then a loss at
    /// W_max = 1000.
    fn after_a_loss_at_1000(rtt: Dur) -> Flow {
        let mut f = Flow::new(params(), 1000, 800);
        f.ack(Time::ZERO + Dur::from_ms(1), rtt);
        f.tp.snd_cwnd = 1000;
        f.loss(rtt);
        f
    }

    #[test]
    fn after_a_loss_cwnd_follows_the_cubic_curve() {
        let rtt = Dur::from_ms(100);
        let mut f = after_a_loss_at_1000(rtt);
        assert_eq!(f.tp.snd_ssthresh, 700); // 1000·717/1024
        assert!((f.tp.snd_cwnd as f64 - BETA * 1000.0).abs() <= 1.0);
        assert_eq!(f.cc.w_max(), 1000);

        let epoch = f.tp.now;
        let mut checked = 0;
        for round in 0..150 {
            f.round(rtt, None);
            let t = f.tp.now.since(epoch).secs_f64();
            if round == 0 {
                // K = cbrt(300/0.4) ≈ 9.09 s, origin at W_max.
                assert!((f.cc.k_secs() - (300.0f64 / C).cbrt()).abs() < 0.01);
                assert_eq!(f.var("origin_point"), 1000.0);
            }
            // Before K, near K, after K.
            if [2.0, 5.0, 9.0, 12.0, 14.0]
                .iter()
                .any(|&c| (t - c).abs() < 1e-9)
            {
                let want = w_cubic(t, 1000.0, 700.0);
                let got = f.tp.snd_cwnd as f64;
                // Within 3 packets (0.3 % of W_max): Linux's jiffies, fixed
                // point and integer cwnd against the continuous curve.
                assert!(
                    (got - want).abs() <= 3.0,
                    "t = {t} s: cwnd {got}, W(t) {want:.1}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 5);
        // Past K the curve is convex: above W_max and accelerating.
        assert!(f.tp.snd_cwnd > 1000 + 40);
    }

    #[test]
    fn first_cnt_aims_one_min_rtt_ahead() {
        let rtt = Dur::from_ms(100);
        let mut f = after_a_loss_at_1000(rtt);
        // First ACK of the epoch: target = W(delay_min), 0.1 s ahead, on
        // the curve through the K the control took (Linux's approximate
        // cube root: the target 0.1 s ahead is sensitive to it).
        f.ack(f.tp.now + Dur::from_ms(1), rtt);
        let k = f.cc.k_secs();
        assert!((k - (300.0f64 / C).cbrt()).abs() < 0.002 * k, "K {k}");
        let want = 700.0 / (C * (0.1 - k).powi(3) + 1000.0 - 700.0);
        let cnt = f.var("cnt");
        assert!(
            (cnt - want).abs() <= 0.1 * want,
            "cnt {cnt}, cwnd/(W(0.1) − cwnd) {want:.1}"
        );
    }

    #[test]
    fn cnt_is_capped_at_20_before_the_first_loss_and_floored_at_2() {
        let mut p = params();
        p.tcp_friendliness = false;
        // No W_max yet: the curve is flat at cwnd, cnt would be 100·cwnd.
        let mut f = Flow::new(p.clone(), 100, 50);
        f.round(Dur::from_ms(10), None);
        assert_eq!(f.var("cnt"), 20.0);
        // A window that could not follow the curve (application-limited
        // for 10 s after the epoch began) is far below the target
        // (100 + 0.4·10³ = 500): cnt = 100/400 = 0, floored at 2.
        let mut f = Flow::new(p, 100, 50);
        f.cc.ssthresh(&f.tp);
        f.round(Dur::from_ms(10), None);
        assert_eq!(f.cc.w_max(), 100);
        f.tp.is_cwnd_limited = false;
        f.tp.now += Dur::from_secs(10);
        f.round(Dur::from_ms(10), None);
        assert_eq!(f.tp.snd_cwnd, 100);
        f.tp.is_cwnd_limited = true;
        f.ack(f.tp.now + Dur::from_ms(1), Dur::from_ms(10));
        assert_eq!(f.var("cnt"), 2.0);
        // From there cwnd grows by half a packet per acked packet, 1.5× per
        // RTT (plus what snd_cwnd_cnt had left from before).
        f.round(Dur::from_ms(10), None);
        assert!(
            (150..=152).contains(&f.tp.snd_cwnd),
            "cwnd {}",
            f.tp.snd_cwnd
        );
    }

    #[test]
    fn fast_convergence_lowers_w_max_below_the_previous_one() {
        for fast_convergence in [true, false] {
            let mut p = params();
            p.fast_convergence = fast_convergence;
            let mut f = Flow::new(p, 1000, 500);
            let rtt = Dur::from_ms(100);
            f.loss(rtt);
            assert_eq!(f.cc.w_max(), 1000);
            // A loss below the previous W_max.
            f.tp.snd_cwnd = 900;
            f.tp.snd_nxt = f.tp.snd_una + 900;
            f.loss(rtt);
            assert_eq!(f.tp.snd_ssthresh, 630); // 900·717/1024
            if fast_convergence {
                // 900·(1 + β)/2 = 765.
                assert_eq!(f.cc.w_max(), 765);
                assert!((f.var("w_max") - 900.0 * (1.0 + BETA) / 2.0).abs() <= 1.0);
            } else {
                assert_eq!(f.cc.w_max(), 900);
            }
            // The next epoch's plateau is at the new W_max.
            f.round(rtt, None);
            assert_eq!(f.var("origin_point"), f.cc.w_max() as f64);
            // A loss above W_max sets it to the window.
            f.tp.snd_cwnd = 1200;
            f.cc.ssthresh(&f.tp);
            assert_eq!(f.cc.w_max(), 1200);
        }
    }

    #[test]
    fn tcp_friendliness_grows_at_least_as_the_reno_estimate() {
        // Small window, 10 ms RTT: the cubic curve (K ≈ 2.5 s) stays below
        // W_max = 20 for 2 s, while the Reno-friendly estimate (RFC 9438
        // §4.3: AIMD with α_cubic = 3(1 − β)/(1 + β) per RTT and β = 0.7,
        // the same average rate as Reno's α = 1, β = 0.5) grows linearly.
        let rtt = Dur::from_ms(10);
        let rounds = 200;
        let alpha_cubic = 3.0 * (1.0 - BETA) / (1.0 + BETA);
        let mut end = Vec::new();
        for friendly in [true, false] {
            let mut p = params();
            p.tcp_friendliness = friendly;
            let mut f = Flow::new(p, 20, 10);
            f.loss(rtt);
            let start = f.tp.snd_cwnd;
            assert_eq!(start, 14);
            for r in 1..=rounds {
                f.round(rtt, None);
                if friendly && r % 10 == 0 {
                    // Linux's integer ack counting (cwnd·15/8 acks per
                    // packet) and the one-RTT catch-up keep cwnd a few
                    // packets under the continuous line, never further.
                    let w_est = start as f64 + alpha_cubic * r as f64;
                    let cwnd = f.tp.snd_cwnd as f64;
                    assert!(
                        cwnd >= w_est - 4.0,
                        "round {r}: cwnd {cwnd} < W_est {w_est:.1}"
                    );
                    assert!(
                        cwnd <= w_est + 2.0,
                        "round {r}: cwnd {cwnd} > W_est {w_est:.1}"
                    );
                }
            }
            end.push(f.tp.snd_cwnd);
        }
        // Without it, the concave curve is all there is.
        assert!(end[1] <= 20, "pure cubic cwnd {}", end[1]);
        assert!(
            end[0] > end[1] + 90,
            "friendly {} vs pure {}",
            end[0],
            end[1]
        );
    }

    /// Slow start from 10 packets at a 20 ms base RTT, ACKs 10 µs apart
    /// (a fast path: the ACK train stays short); RTT samples rise to
    /// `rtt_after` from the round that starts at cwnd 80.
    fn slow_start_with_rtt_rise(p: CubicParams, rtt_after: Dur) -> Flow {
        let mut f = Flow::new(p, 10, INFINITE_SSTHRESH);
        let spacing = Some(Dur::from_us(10));
        for _ in 0..3 {
            f.round(Dur::from_ms(20), spacing);
        }
        assert_eq!(f.tp.snd_cwnd, 80);
        f.round(rtt_after, spacing);
        f
    }

    #[test]
    fn hystart_delay_detector_exits_slow_start_when_rtt_rises() {
        // Threshold: 20 ms + clamp(20/8 ms, 4, 16) = 24 ms.
        let f = slow_start_with_rtt_rise(params(), Dur::from_ms(25));
        assert_eq!(f.var("hystart_found"), 1.0);
        // Detected on the 9th ACK of the round (8 samples first), before
        // that ACK grew the window: cwnd was 80 + 8.
        assert_eq!(f.tp.snd_ssthresh, 88);
        assert!(!f.tp.in_slow_start());
        assert!(f.tp.snd_cwnd < 100);

        // A rise below the threshold does not end slow start.
        let f = slow_start_with_rtt_rise(params(), Dur::from_us(23_900));
        assert_eq!(f.var("hystart_found"), 0.0);
        assert_eq!(f.tp.snd_ssthresh, INFINITE_SSTHRESH);
        assert_eq!(f.tp.snd_cwnd, 160);

        // Nor does any rise with HyStart off, or with its delay detector off.
        let mut off = params();
        off.hystart = false;
        let mut no_delay = params();
        no_delay.hystart_delay = false;
        for p in [off, no_delay] {
            let f = slow_start_with_rtt_rise(p, Dur::from_ms(25));
            assert_eq!(f.var("hystart_found"), 0.0);
            assert_eq!(f.tp.snd_ssthresh, INFINITE_SSTHRESH);
            assert_eq!(f.tp.snd_cwnd, 160);
        }
    }

    #[test]
    fn hystart_ack_train_exits_when_acks_span_half_the_min_rtt() {
        // ACKs spread over the whole 20 ms RTT: a full pipe. The round of
        // cwnd 20 has ACKs 1 ms apart (≤ 2 ms, a train); it is longer than
        // delay_min/2 = 10 ms at its 12th ACK, when cwnd is 20 + 11.
        let rtt = Dur::from_ms(20);
        let mut f = Flow::new(params(), 10, INFINITE_SSTHRESH);
        f.round(rtt, None);
        f.round(rtt, None);
        assert_eq!(f.var("hystart_found"), 1.0);
        assert_eq!(f.tp.snd_ssthresh, 31);

        // The same ACKs, ack-train detector off (RTT is flat: no delay exit).
        let mut p = params();
        p.hystart_ack_train = false;
        let mut f = Flow::new(p, 10, INFINITE_SSTHRESH);
        for _ in 0..4 {
            f.round(rtt, None);
        }
        assert_eq!(f.var("hystart_found"), 0.0);
        assert_eq!(f.tp.snd_cwnd, 160);

        // A wider ACK spacing than hystart_ack_delta_us is not a train.
        let mut p = params();
        p.hystart_ack_delta_us = 500;
        assert_eq!(hystart_found_in_two_rounds(p, rtt), 0.0);

        // Below hystart_low_window HyStart does not look.
        let mut p = params();
        p.hystart_low_window = 64;
        assert_eq!(hystart_found_in_two_rounds(p, rtt), 0.0);
    }

    #[test]
    fn idle_time_shifts_the_epoch_so_the_curve_resumes() {
        let rtt = Dur::from_ms(100);
        let start = |f: &mut Flow| {
            f.ack(Time::ZERO + Dur::from_ms(1), rtt);
            f.tp.snd_cwnd = 1000;
            f.loss(rtt);
            for _ in 0..30 {
                f.round(rtt, None);
            }
        };
        let mut busy = Flow::new(params(), 1000, 800);
        start(&mut busy);
        let mut idle = busy.clone();
        let mut idle_no_event = busy.clone();
        // 5 s without sending, then sending resumes.
        for f in [&mut idle, &mut idle_no_event] {
            f.tp.now += Dur::from_secs(5);
        }
        idle.cc.cwnd_event(&mut idle.tp, CaEvent::TxStart);
        for _ in 0..10 {
            busy.round(rtt, None);
            idle.round(rtt, None);
            idle_no_event.round(rtt, None);
        }
        let (b, i, n) = (
            busy.tp.snd_cwnd,
            idle.tp.snd_cwnd,
            idle_no_event.tp.snd_cwnd,
        );
        assert!(b.abs_diff(i) <= 2, "busy {b}, idle {i}");
        // Without the shift the curve would have run on during the idle time.
        assert!(n > b + 30, "busy {b}, unshifted {n}");
    }

    #[test]
    fn idle_shift_never_moves_the_epoch_into_the_future() {
        // The epoch is counted in the kernel's jiffies: 4 ms at Debian's
        // 250 Hz, 1 ms at 1000 Hz.
        for hz in [DEBIAN_HZ, 1000] {
            let j = |s: u64| Some(s * hz as u64);
            let mut f = Flow::new(CubicParams { hz, ..params() }, 100, 50);
            f.ack(Time::ZERO + Dur::from_secs(10), Dur::from_ms(10));
            assert_eq!(f.cc.epoch_start_jiffies, j(10));
            f.tp.lsndtime = Time::ZERO + Dur::from_secs(2);
            f.tp.now = Time::ZERO + Dur::from_secs(11);
            f.cc.cwnd_event(&mut f.tp, CaEvent::TxStart);
            assert_eq!(f.cc.epoch_start_jiffies, j(11));
        }
    }

    #[test]
    fn undo_restores_the_prior_window() {
        let mut f = Flow::new(params(), 1000, 500);
        f.loss(Dur::from_ms(10));
        assert_eq!(f.tp.snd_cwnd, 700);
        assert_eq!(f.cc.undo_cwnd(&f.tp), 1000);
    }

    #[test]
    fn rto_forgets_the_window_history() {
        let rtt = Dur::from_ms(10);
        let mut f = Flow::new(params(), 1000, 500);
        f.loss(rtt);
        f.round(rtt, None);
        assert_eq!(f.cc.w_max(), 1000);
        assert!(f.var("delay_min_us") > 0.0);
        f.tp.snd_ssthresh = f.cc.ssthresh(&f.tp);
        f.cc.set_state(&mut f.tp, CaState::Loss);
        assert_eq!(f.cc.w_max(), 0);
        assert_eq!(f.var("delay_min_us"), 0.0);
        assert_eq!(f.cc.epoch_start_jiffies, None);
        assert_eq!(f.cc.end_seq, f.tp.snd_nxt);
    }

    #[test]
    fn params_map_to_linux_fixed_point() {
        let cc = Cubic::new(params());
        assert_eq!(cc.beta, 717);
        assert_eq!(cc.cube_rtt_scale, 410); // Linux: bic_scale 41 × 10
        assert_eq!(cc.cube_factor, (1u64 << 40) / 410);
        assert_eq!(cc.beta_scale, 15);
        let mut p = params();
        p.beta = 0.5;
        p.c = 0.8;
        let cc = Cubic::new(p);
        assert_eq!((cc.beta, cc.cube_rtt_scale), (512, 819));
    }
}
