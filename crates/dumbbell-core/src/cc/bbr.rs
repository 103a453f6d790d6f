//! BBR v1, Bottleneck Bandwidth and Round-trip propagation time: a
//! model-based control that paces at its estimate of the bottleneck rate
//! and caps the data in flight at a multiple of the estimated
//! bandwidth-delay product, instead of reacting to loss.
//!
//! Follows Linux `net/ipv4/tcp_bbr.c` (Cardwell et al., "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016) hook for
//! hook: `cong_control` does all the work on every ACK, from the stack's
//! `tcp_rate.c` rate sample.
//!
//! # The model, updated on every ACK
//!
//! - **Bandwidth**: the maximum delivery rate of the last `bw_win_rounds`
//!   (10) packet-timed rounds ([`WindowedMax`], Kathleen Nichols' running
//!   max with three choices, as Linux's `lib/win_minmax.c`). A round ends
//!   when a packet sent after the previous round's end is delivered (the
//!   sample's `prior_delivered` reaches the `delivered` count noted at the
//!   round start). App-limited samples enter the filter only when they
//!   exceed it.
//! - **Min RTT**: the smallest RTT sample of the last `min_rtt_win_s` (10 s);
//!   once that old, the next sample replaces it whatever its value.
//! - **Pacing rate** = pacing_gain · bw · (1 − 1 %), in `tp.pacing_rate_bps`;
//!   before the pipe is full it only ever rises. The first value is
//!   high_gain · init cwnd / srtt (1 ms when there is no RTT sample yet).
//! - **cwnd** = cwnd_gain · bw · min_rtt, plus the ACK-aggregation allowance
//!   (`extra_acked`) and the quantization budget (below), approached by
//!   adding the newly delivered packets and cut at once when above target
//!   (only once the pipe was found full); at least 4 packets.
//!
//! # The state machine
//!
//! ```text
//!         start
//!           |
//!           v
//!   +--> STARTUP ---------+        pacing and cwnd gain high_gain (2/ln 2)
//!   |       | pipe full   |
//!   |       v             |
//!   |     DRAIN ----------+        pacing gain 1/high_gain, until in flight
//!   |       | drained     |        falls to one BDP
//!   |       v             |
//!   +--> PROBE_BW <--+    |        cycle of pacing gains 5/4, 3/4, 1 × 6,
//!   |       |   |    |    |        one phase per min RTT; cwnd gain 2
//!   |       |   +----+    |
//!   |       v             v
//!   +--- PROBE_RTT <------+        min RTT 10 s old: cwnd 4 packets for
//!                                  max(200 ms, one round), then back to
//!                                  PROBE_BW (or STARTUP if the pipe was
//!                                  never found full)
//! ```
//!
//! - **Full pipe**: at each round start of a non-app-limited sample, if
//!   the max bandwidth grew by less than `full_bw_thresh` (25 %) over the
//!   bandwidth recorded when it last did, a counter grows; `full_bw_cnt` (3)
//!   such rounds in a row mean the pipe is full. Startup then ends, and
//!   ssthresh is set to the one-BDP in-flight target (Linux does this for
//!   the benefit of `tcp_info`; nothing reads it here).
//! - **ProbeBW**: entered at a random phase of the 8-phase cycle, drawn
//!   among the 7 phases other than the 3/4 one (Linux
//!   `CYCLE_LEN − 1 − prandom(7)`, then one advance), so flows do not probe
//!   in step. A phase of gain 1 lasts one min RTT (measured on
//!   `tp.delivered_mstamp`); the 5/4 phase lasts at least one min RTT and
//!   until the data in the network reaches 5/4 of the BDP (or a loss); the
//!   3/4 phase ends after one min RTT or as soon as in flight is down to
//!   one BDP.
//! - **ProbeRTT**: when the min RTT estimate is `min_rtt_win_s` old (and
//!   the flow did not just restart from idle), cwnd is capped at 4 packets;
//!   once in flight is at most 4, the mode lasts `probe_rtt_mode_ms` (200)
//!   and at least one round, then restores the cwnd saved on entry. Rate
//!   samples during ProbeRTT are marked app-limited (`tp.app_limited`), so
//!   they cannot drag the bandwidth estimate down.
//!
//! # Loss
//!
//! - **Packet conservation** (`bbr_set_cwnd_to_recover_or_restore`): every
//!   ACK first takes the newly lost packets off cwnd; the first round of
//!   Recovery sends one packet per packet delivered (cwnd = in flight +
//!   delivered); later rounds grow toward the target; leaving Recovery or
//!   Loss restores the cwnd saved by `ssthresh` on entry.
//! - **RTO**: `set_state(Loss)` resets the full-pipe bandwidth reference,
//!   counts the timeout as the end of a round and feeds it to the long-term
//!   sampler as a loss. The stack calls it on every timeout, as Linux's
//!   `tcp_enter_loss` does, and sets cwnd = in flight + 1 itself.
//! - **Long-term bandwidth** (`lt_bw`, the token-bucket policer detector):
//!   from the first loss, sampling intervals of 4 to 16 rounds end on a
//!   loss; an interval that lost at least 50/256 (about 20 %) of what it
//!   delivered gives an average rate; two such intervals within 1/8 (or
//!   4 kbit/s) of each other mean a policer: BBR then uses their mean as its
//!   bandwidth, with pacing gain 1, for 48 rounds of ProbeBW, then starts
//!   over. App-limited samples or intervals over 16 rounds reset the sampler.
//!
//! # Fixed point and time
//!
//! Linux's fixed point is kept so that the rounding matches the kernel's:
//! gains in 1/256 (`BBR_UNIT`; high gain 739, drain 88, cwnd 512, 5/4 =
//! 320), bandwidth in packets per microsecond scaled by 2^24 (`BW_UNIT`),
//! held in a `u64` (Linux's `u32` overflows near 3 Tb/s) with `u128`
//! intermediates. Time is in Linux's units where Linux computes with it:
//! whole microseconds for srtt at init, RTT samples and the min RTT, rate
//! sample intervals, gain-cycle phases, ACK-aggregation epochs and the
//! time to the next departure (from nanoseconds); whole milliseconds for
//! the long-term sampling interval. A bandwidth sample is
//! `delivered · 2^24 / interval_us`, the BDP
//! `⌈bw · min_rtt_us · gain / 256 / 2^24⌉` packets, as the kernel's. The
//! min RTT and ProbeRTT stamps are kept on the picosecond clock where Linux
//! uses jiffies (a 10 s window and 200 ms: only their last jiffy differs).
//!
//! # Choices where our model differs
//!
//! - **Quantization budget**: Linux adds 3 TSO bursts to the cwnd target
//!   (`bbr_tso_segs_goal`: about 1 ms of the pacing rate, at most
//!   64 KB − headers and 127 segments, at least 1 segment below
//!   `min_tso_rate_bps` and 2 above), rounds up to even and adds 2 in the
//!   5/4 phase. We keep the formula so that cwnd is a Linux sender's, though
//!   the stack sends one segment at a time unless TSO is on
//!   (`TcpConfig::gso_max_bytes`; its skbs then have BBR's floor,
//!   [`CongestionControl::min_tso_segs`]).
//! - **ACK aggregation** (`extra_acked`, Linux ≥ 5.1) is on by default, as
//!   in current kernels; `extra_acked: false` gives the 4.9–5.0 behaviour.
//!   Linux stores the estimate in a `u16`; ours does not wrap.
//! - `rs.is_ack_delayed` (Linux's guess that a lone runt segment was
//!   ACKed late) is not modelled: an expired min RTT takes any sample.
//! - Pacing is the stack's, in `tcp::sender`: the payload of each segment at
//!   `tp.pacing_rate_bps`, the first 10 segments unpaced, as Linux's
//!   internal (earliest departure time) pacing.
//! - The gain cycle's phase is drawn from the flow's stream
//!   `flow:<name>:cc` (`sim::rng`), so runs are reproducible.
//!
//! # Trace variables
//!
//! `mode` (0 Startup, 1 Drain, 2 ProbeBW, 3 ProbeRTT), `bw_pps` (the
//! estimate in use, packets/s), `bw_bps` (the same in payload bit/s, as
//! Linux's `tcp_info`), `max_bw_pps` (the max filter), `min_rtt_s`,
//! `pacing_rate_bps`, `pacing_gain`, `cwnd_gain`, `cycle_idx`,
//! `full_bw_reached`, `round` (packet-timed rounds), `lt_use_bw`,
//! `lt_bw_pps`, `extra_acked_pkts`, `prior_cwnd`.

use super::{CaEvent, CaState, CongestionControl, RateSample, TcpSock, INFINITE_SSTHRESH};
use crate::sim::{Dur, Rng, Time, PS_PER_S, PS_PER_US};

mod params;
pub use super::bbr_common::Mode;
use super::bbr_common::{
    saved_cwnd, stamp_us, whole_us, AckAggregation, Estimates, Pacer, Pacing, ProbeRtt,
    CWND_MIN_TARGET, EXTRA_ACKED_MAX_US, EXTRA_ACKED_WIN_RTTS, GSO_MAX_BYTES, PACING_SHIFT,
};
pub use params::{check, BbrParams, PARAMS, REGISTRATION};

pub use super::bbr_common::{BBR_SCALE, BBR_UNIT, BW_SCALE, BW_UNIT};

/// Phases of the ProbeBW pacing-gain cycle (Linux `CYCLE_LEN`).
pub const CYCLE_LEN: usize = 8;

/// `n / d` for a 128-bit `n`, done in 64 bits when `n` fits there (nearly
/// always: a 128-bit division is a library call, a 64-bit division by a
/// constant a multiplication). The same value either way.
#[inline(always)]
fn div_wide(n: u128, d: u64) -> u128 {
    if n >> 64 == 0 {
        ((n as u64) / d) as u128
    } else {
        n / d as u128
    }
}

/// `⌈n / d⌉`, as [`div_wide`].
#[inline(always)]
fn div_ceil_wide(n: u128, d: u64) -> u128 {
    if n >> 64 == 0 {
        (n as u64).div_ceil(d) as u128
    } else {
        n.div_ceil(d as u128)
    }
}
/// The starting phase is drawn among this many (Linux `bbr_cycle_rand`).
const CYCLE_RAND: u64 = 7;
/// Linux `TCP_INIT_CWND`: the cwnd cap before any RTT sample, and the
/// delivered count below which Startup always grows.
const TCP_INIT_CWND: u32 = 10;
/// Largest TSO burst in segments (`0x7F`; in bytes, `GSO_MAX_BYTES`).
const TSO_MAX_SEGS: u32 = 0x7f;

// Long-term (policer) sampling, Linux's constants.
/// Least rounds in a sampling interval (`bbr_lt_intvl_min_rtts`).
const LT_INTVL_MIN_RTTS: u32 = 4;
/// Lost/delivered above 50/256 makes an interval lossy (`bbr_lt_loss_thresh`).
const LT_LOSS_THRESH: u64 = 50;
/// Two intervals within 1/8 of each other are consistent (`bbr_lt_bw_ratio`).
const LT_BW_RATIO: u64 = (BBR_UNIT / 8) as u64;
/// ... or within 4 kbit/s, in bytes/s (`bbr_lt_bw_diff`).
const LT_BW_DIFF_BYTES_PER_S: u64 = 4000 / 8;
/// Rounds of ProbeBW spent on the long-term rate (`bbr_lt_bw_max_rtts`).
const LT_BW_MAX_RTTS: u32 = 48;

// ACK aggregation, Linux's constants (its windows: `bbr_common`).
/// Gain on the aggregation estimate (`bbr_extra_acked_gain`).
const EXTRA_ACKED_GAIN: u64 = BBR_UNIT as u64;

/// Largest gain the configuration accepts (Linux's 10-bit fields stop at
/// about 4; larger gains are a research knob and stay well inside `u128`).
pub const MAX_GAIN: f64 = 16.0;

/// One timestamped value of a [`WindowedMax`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u64,
    v: u64,
}

/// A running maximum over a sliding window of `win` time units (BBR uses
/// rounds), in constant space: Kathleen Nichols' algorithm, as Linux's
/// `lib/win_minmax.c`. It keeps the best, second-best and third-best
/// values with non-decreasing times. A new maximum replaces all three; the
/// second and third choices are refreshed from later quarters of the
/// window, so that when the best expires a recent runner-up takes over.
/// The result is the true window maximum except when the values fall
/// steadily, where it can hold a value up to one window and a half old.
#[derive(Clone, Copy, Debug, Default)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    /// Forgets everything: `v` at time `t` is all three choices.
    pub fn reset(&mut self, t: u64, v: u64) -> u64 {
        self.s = [Sample { t, v }; 3];
        v
    }

    /// The current maximum.
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// Adds measurement `v` taken at time `t` (non-decreasing); returns the
    /// maximum over the window `(t − win, t]`.
    pub fn update(&mut self, win: u64, t: u64, v: u64) -> u64 {
        let val = Sample { t, v };
        if v >= self.s[0].v || t.wrapping_sub(self.s[2].t) > win {
            // A new maximum, or every choice is out of the window.
            return self.reset(t, v);
        }
        if v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        let dt = t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The best has expired: promote the others. The new best may
            // be out of the window too (the third was checked on entry).
            self.s = [self.s[1], self.s[2], val];
            if t.wrapping_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window without a second choice: take one.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window without a third choice.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

/// The parameters in Linux's units.
#[derive(Clone, Debug)]
struct Tunables {
    high_gain: u32,
    drain_gain: u32,
    cwnd_gain: u32,
    cycle: [u32; CYCLE_LEN],
    bw_win_rounds: u64,
    min_rtt_win: Dur,
    probe_rtt_mode: Dur,
    full_bw_thresh: u32,
    full_bw_cnt: u32,
    margin_percent: u64,
    min_tso_rate_bps: u64,
    extra_acked: bool,
    lt_bw: bool,
}

/// A gain as a multiple of 1/256, rounded to the nearest.
fn to_fixed(x: f64) -> u32 {
    super::bbr_common::to_fixed(x, MAX_GAIN, BBR_UNIT)
}

impl Tunables {
    fn new(p: &BbrParams) -> Tunables {
        let high_gain = to_fixed(p.high_gain).max(1);
        let drain_gain = match p.drain_gain {
            Some(g) => to_fixed(g),
            // 1/high_gain truncated, as Linux's BBR_UNIT·1000/2885 = 88.
            None => BBR_UNIT * BBR_UNIT / high_gain,
        };
        let mut cycle = [BBR_UNIT; CYCLE_LEN];
        cycle[0] = to_fixed(p.probe_bw_up_gain);
        cycle[1] = to_fixed(p.probe_bw_down_gain);
        Tunables {
            high_gain,
            drain_gain,
            cwnd_gain: to_fixed(p.cwnd_gain),
            cycle,
            bw_win_rounds: p.bw_win_rounds as u64,
            min_rtt_win: Dur::from_secs_f64(p.min_rtt_win_s),
            probe_rtt_mode: Dur::from_secs_f64(p.probe_rtt_mode_ms / 1e3),
            full_bw_thresh: to_fixed(p.full_bw_thresh),
            full_bw_cnt: p.full_bw_cnt,
            margin_percent: p.pacing_margin_percent.min(99) as u64,
            min_tso_rate_bps: p.min_tso_rate_bps,
            extra_acked: p.extra_acked,
            lt_bw: p.lt_bw,
        }
    }
}

/// BBR v1's state (Linux `struct bbr`).
#[derive(Clone, Debug)]
pub struct Bbr {
    p: Tunables,
    rng: Rng,
    mss: u32,
    mode: Mode,
    /// Min RTT of the window (`Dur::MAX`: none yet, Linux `~0U`) and when
    /// it was taken.
    min_rtt: Dur,
    min_rtt_stamp: Time,
    /// When ProbeRTT may end (None: not yet at 4 packets).
    probe_rtt: ProbeRtt,
    /// Max delivery rate, `BW_UNIT` packets/µs, over rounds.
    bw: WindowedMax,
    /// Packet-timed rounds so far, and the `delivered` count that ends this one.
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    /// Start of the current gain-cycle phase (a `delivered_mstamp`).
    cycle_mstamp: Time,
    cycle_idx: usize,
    /// `tp.ca_state` at the previous ACK.
    prev_ca_state: CaState,
    packet_conservation: bool,
    idle_restart: bool,
    pacing_gain: u32,
    cwnd_gain: u32,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    /// The bandwidth of the last round that grew by `full_bw_thresh`.
    full_bw: u64,
    pacer: Pacer,
    /// Last good cwnd, restored after recovery and ProbeRTT.
    prior_cwnd: u32,
    // Long-term sampling.
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: u64,
    lt_last_delivered: u64,
    lt_last_stamp: Time,
    lt_last_lost: u64,
    // ACK aggregation.
    aggr: AckAggregation,
}

impl Bbr {
    /// `rng` is the flow's stream for the gain-cycle phase.
    pub fn new(p: BbrParams, rng: Rng) -> Self {
        let p = Tunables::new(&p);
        Bbr {
            pacing_gain: p.high_gain,
            cwnd_gain: p.high_gain,
            p,
            rng,
            mss: 1448,
            mode: Mode::Startup,
            min_rtt: Dur::MAX,
            min_rtt_stamp: Time::ZERO,
            probe_rtt: ProbeRtt::default(),
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            cycle_mstamp: Time::ZERO,
            cycle_idx: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            idle_restart: false,
            full_bw_reached: false,
            full_bw_cnt: 0,
            full_bw: 0,
            pacer: Pacer::default(),
            prior_cwnd: 0,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: Time::ZERO,
            lt_last_lost: 0,
            aggr: AckAggregation::new(Time::ZERO),
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The pacing gain in force, as a fraction.
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain as f64 / BBR_UNIT as f64
    }

    pub fn cwnd_gain(&self) -> f64 {
        self.cwnd_gain as f64 / BBR_UNIT as f64
    }

    pub fn cycle_idx(&self) -> usize {
        self.cycle_idx
    }

    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }

    pub fn min_rtt(&self) -> Dur {
        self.min_rtt
    }

    /// Packet-timed rounds so far.
    pub fn rounds(&self) -> u64 {
        self.rtt_cnt
    }

    pub fn lt_use_bw(&self) -> bool {
        self.lt_use_bw
    }

    /// The bandwidth estimate in use (long-term or max filter), packets/s.
    pub fn bw_pps(&self) -> f64 {
        to_pps(self.bw())
    }

    /// The max-filter estimate, packets/s.
    pub fn max_bw_pps(&self) -> f64 {
        to_pps(self.max_bw())
    }

    fn max_bw(&self) -> u64 {
        self.bw.get()
    }

    fn extra_acked_max(&self) -> u32 {
        self.aggr.max()
    }

    /// Linux `bbr_rate_bytes_per_sec`: bytes/s at `gain`, less the margin.
    fn rate_bytes_per_sec(&self, bw: u64, gain: u32) -> u64 {
        let mut rate = bw as u128 * self.mss as u128;
        rate = (rate * gain as u128) >> BBR_SCALE;
        rate *= (PS_PER_S / PS_PER_US / 100 * (100 - self.p.margin_percent)) as u128;
        (rate >> BW_SCALE).min(u64::MAX as u128 / 8) as u64
    }

    /// Linux `bbr_min_tso_segs`.
    fn min_tso_segs(&self, tp: &TcpSock) -> u32 {
        if (tp.pacing_rate_bps >> 3) < (self.p.min_tso_rate_bps >> 3) {
            1
        } else {
            2
        }
    }

    /// Linux `bbr_save_cwnd`: remember the last good cwnd.
    fn save_cwnd(&mut self, tp: &TcpSock) {
        self.prior_cwnd = saved_cwnd(self.prev_ca_state, self.mode, self.prior_cwnd, tp.snd_cwnd);
    }

    /// Linux `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if !self.p.extra_acked || !self.full_bw_reached {
            return 0;
        }
        let max_aggr = self.bw() as u128 * EXTRA_ACKED_MAX_US as u128 / BW_UNIT as u128;
        let aggr = (EXTRA_ACKED_GAIN * self.extra_acked_max() as u64) >> BBR_SCALE;
        (aggr as u128).min(max_aggr) as u32
    }

    /// Linux `bbr_set_cwnd_to_recover_or_restore`: returns the cwnd, and
    /// whether packet conservation decides it.
    fn cwnd_to_recover_or_restore(
        &mut self,
        tp: &TcpSock,
        rs: &RateSample,
        acked: u32,
    ) -> (u32, bool) {
        let prev = self.prev_ca_state;
        let state = tp.ca_state;
        let mut cwnd = tp.snd_cwnd;
        // An ACK for P packets releases at most 2P: first take off the lost.
        if rs.losses > 0 {
            cwnd = (cwnd as i64 - rs.losses as i64).max(1) as u32;
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            // First round of Recovery: packet conservation, and the round
            // starts now.
            self.packet_conservation = true;
            self.next_rtt_delivered = tp.delivered;
            cwnd = tp.in_flight() + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            // Recovery or Loss is over: restore the cwnd saved on entry.
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            (cwnd.max(tp.in_flight() + acked), true)
        } else {
            (cwnd, false)
        }
    }

    /// Linux `bbr_set_cwnd`.
    fn set_cwnd(&mut self, tp: &mut TcpSock, rs: &RateSample, acked: u32, bw: u64, gain: u32) {
        let mut cwnd = tp.snd_cwnd;
        if acked > 0 {
            let (c, conserving) = self.cwnd_to_recover_or_restore(tp, rs, acked);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target = target.saturating_add(self.ack_aggregation_cwnd());
                target = self.quantization_budget(tp, target);
                if self.full_bw_reached {
                    // Grow toward the target, or cut to it at once.
                    cwnd = cwnd.saturating_add(acked).min(target);
                } else if cwnd < target || tp.delivered < TCP_INIT_CWND as u64 {
                    cwnd = cwnd.saturating_add(acked);
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        tp.snd_cwnd = cwnd.min(tp.snd_cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            tp.snd_cwnd = tp.snd_cwnd.min(CWND_MIN_TARGET);
        }
    }

    /// Linux `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, tp: &TcpSock, rs: &RateSample) -> bool {
        let elapsed_us = stamp_us(tp.delivered_mstamp).saturating_sub(stamp_us(self.cycle_mstamp));
        let is_full_length = elapsed_us > whole_us(self.min_rtt);
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(tp, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            // Probe until gain·BDP is in flight, unless packets are lost.
            return is_full_length
                && (rs.losses > 0 || inflight >= self.inflight(tp, bw, self.pacing_gain));
        }
        // Drain until one BDP is left in flight.
        is_full_length || inflight <= self.inflight(tp, bw, BBR_UNIT)
    }

    fn advance_cycle_phase(&mut self, tp: &TcpSock) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_mstamp = tp.delivered_mstamp;
    }

    fn update_cycle_phase(&mut self, tp: &TcpSock, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(tp, rs) {
            self.advance_cycle_phase(tp);
        }
    }

    /// Linux `bbr_reset_probe_bw_mode`: a random phase other than 3/4.
    fn reset_probe_bw_mode(&mut self, tp: &TcpSock) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.rng.below(CYCLE_RAND) as usize;
        self.advance_cycle_phase(tp);
    }

    fn reset_mode(&mut self, tp: &TcpSock) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(tp);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Linux `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_bw_sampling_interval(&mut self, tp: &TcpSock) {
        self.lt_last_stamp = tp.delivered_mstamp;
        self.lt_last_delivered = tp.delivered;
        self.lt_last_lost = tp.lost;
        self.lt_rtt_cnt = 0;
    }

    /// Linux `bbr_reset_lt_bw_sampling`.
    fn reset_lt_bw_sampling(&mut self, tp: &TcpSock) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval(tp);
    }

    /// Linux `bbr_lt_bw_interval_done`: two consistent lossy intervals in a
    /// row mean a policer.
    fn lt_bw_interval_done(&mut self, tp: &TcpSock, bw: u64) {
        if self.lt_bw != 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff as u128 * BBR_UNIT as u128 <= LT_BW_RATIO as u128 * self.lt_bw as u128
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF_BYTES_PER_S
            {
                self.lt_bw = (bw + self.lt_bw) >> 1;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(tp);
    }

    /// Linux `bbr_lt_bw_sampling`, on a sample with `losses` newly lost.
    fn lt_bw_sampling(&mut self, tp: &TcpSock, losses: u32, is_app_limited: bool) {
        if !self.p.lt_bw {
            return;
        }
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling(tp);
                    self.reset_probe_bw_mode(tp);
                }
            }
            return;
        }
        // Sampling starts at the first loss, once a policer's tokens are gone.
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(tp);
            self.lt_is_sampling = true;
        }
        if is_app_limited {
            self.reset_lt_bw_sampling(tp);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling(tp);
            return;
        }
        // The interval ends on a loss (the tokens are exhausted).
        if losses == 0 {
            return;
        }
        let lost = tp.lost - self.lt_last_lost;
        let delivered = tp.delivered - self.lt_last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        // Linux counts this interval in whole ms of its µs clock.
        let ms = |t: Time| stamp_us(t) / 1_000;
        let t_ms = ms(tp.delivered_mstamp).saturating_sub(ms(self.lt_last_stamp));
        if t_ms < 1 {
            return; // shorter than Linux's millisecond clock can measure
        }
        let bw = delivered as u128 * BW_UNIT as u128 / (t_ms as u128 * 1_000);
        self.lt_bw_interval_done(tp, bw.min(u64::MAX as u128) as u64);
    }

    /// Linux `bbr_update_bw`: rounds, long-term sampling, the max filter.
    fn update_bw(&mut self, tp: &TcpSock, rs: &RateSample) {
        self.round_start = false;
        let Some(delivered) = rs.delivered else {
            return;
        };
        // Linux's `interval_us`: whole microseconds.
        let interval_us = whole_us(rs.interval);
        if interval_us == 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = tp.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(tp, rs.losses, rs.is_app_limited);
        let bw = delivered as u128 * BW_UNIT as u128 / interval_us as u128;
        let bw = bw.min(u64::MAX as u128) as u64;
        // App-limited samples only count when they raise the estimate.
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(self.p.bw_win_rounds, self.rtt_cnt, bw);
        }
    }

    /// Linux `bbr_update_ack_aggregation`: the largest excess of delivered
    /// packets over what the bandwidth explains, per epoch, kept 5–10 rounds.
    fn update_ack_aggregation(&mut self, tp: &TcpSock, rs: &RateSample) {
        if !self.p.extra_acked
            || rs.acked_sacked == 0
            || rs.delivered.is_none()
            || whole_us(rs.interval) == 0
        {
            return;
        }
        if self.round_start {
            self.aggr.round_start(EXTRA_ACKED_WIN_RTTS);
        }
        let epoch_us =
            stamp_us(tp.delivered_mstamp).saturating_sub(stamp_us(self.aggr.epoch_start));
        let expected =
            div_wide(self.bw() as u128 * epoch_us as u128, BW_UNIT).min(u32::MAX as u128) as u32;
        self.aggr
            .on_ack(expected, rs.acked_sacked, tp.delivered_mstamp, tp.snd_cwnd);
    }

    /// Linux `bbr_check_full_bw_reached`.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = (self.full_bw as u128 * self.p.full_bw_thresh as u128) >> BBR_SCALE;
        if self.max_bw() as u128 >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.p.full_bw_cnt;
    }

    /// Linux `bbr_check_drain`.
    fn check_drain(&mut self, tp: &mut TcpSock) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            tp.snd_ssthresh = self.inflight(tp, self.max_bw(), BBR_UNIT);
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(tp, tp.in_flight())
                <= self.inflight(tp, self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(tp);
        }
    }

    /// Linux `bbr_update_min_rtt`, with ProbeRTT entry and exit.
    fn update_min_rtt(&mut self, tp: &mut TcpSock, rs: &RateSample) {
        let filter_expired = tp.now > self.min_rtt_stamp + self.p.min_rtt_win;
        if let Some(rtt) = rs.rtt {
            // Linux's `rtt_us`, whole microseconds; an equal sample does
            // not renew the stamp.
            let rtt = Dur::from_us(whole_us(rtt));
            if rtt < self.min_rtt || filter_expired {
                self.min_rtt = rtt;
                self.min_rtt_stamp = tp.now;
            }
        }
        if !self.p.probe_rtt_mode.is_zero()
            && filter_expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(tp);
            self.probe_rtt.done_stamp = None;
        }
        // ProbeRTT at 4 packets in flight.
        self.update_probe_rtt(tp, rs, |s, tp| {
            (CWND_MIN_TARGET, tp.now + s.p.probe_rtt_mode)
        });
    }

    super::bbr_common::update_probe_rtt!(Time);

    /// Linux `bbr_update_gains`.
    fn update_gains(&mut self) {
        let (pacing, cwnd) = match self.mode {
            Mode::Startup => (self.p.high_gain, self.p.high_gain),
            Mode::Drain => (self.p.drain_gain, self.p.high_gain),
            Mode::ProbeBw => {
                let g = if self.lt_use_bw {
                    BBR_UNIT
                } else {
                    self.p.cycle[self.cycle_idx]
                };
                (g, self.p.cwnd_gain)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
        self.pacing_gain = pacing;
        self.cwnd_gain = cwnd;
    }

    /// Linux `bbr_update_model`.
    fn update_model(&mut self, tp: &mut TcpSock, rs: &RateSample) {
        self.update_bw(tp, rs);
        self.update_ack_aggregation(tp, rs);
        self.update_cycle_phase(tp, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(tp);
        self.update_min_rtt(tp, rs);
        self.update_gains();
    }
}

impl Pacing for Bbr {
    /// Linux `bbr_bw_to_pacing_rate`, in bit/s.
    fn pacing_rate_bps_for(&self, bw: u64, gain: u32) -> u64 {
        self.rate_bytes_per_sec(bw, gain) * 8
    }

    fn startup_pacing_gain(&self) -> u32 {
        self.p.high_gain
    }

    super::bbr_common::pacing_state_fields!();

    /// Linux `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, tp: &mut TcpSock) {
        match self.probe_rtt.done_stamp {
            Some(done) if tp.now > done => {}
            _ => return,
        }
        self.min_rtt_stamp = tp.now; // the next ProbeRTT is a window away
        tp.snd_cwnd = tp.snd_cwnd.max(self.prior_cwnd);
        self.reset_mode(tp);
    }
}

impl Estimates for Bbr {
    /// Linux `bbr_bw`: the long-term rate while a policer is suspected.
    fn bw(&self) -> u64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// Linux `bbr_tso_segs_goal`: segments in about 1 ms of pacing.
    fn tso_segs_goal(&self, tp: &TcpSock) -> u32 {
        let bytes = ((tp.pacing_rate_bps / 8) >> PACING_SHIFT).min(GSO_MAX_BYTES);
        let segs = ((bytes / self.mss as u64) as u32).max(self.min_tso_segs(tp));
        segs.min(TSO_MAX_SEGS)
    }

    /// Linux `bbr_bdp`: ⌈bw · min_rtt · gain⌉ in packets.
    fn bdp(&self, bw: u64, gain: u32) -> u32 {
        if self.min_rtt == Dur::MAX {
            return TCP_INIT_CWND; // no RTT sample yet
        }
        let w = bw as u128 * whole_us(self.min_rtt) as u128;
        let scaled = (w * gain as u128) >> BBR_SCALE;
        div_ceil_wide(scaled, BW_UNIT).min(u32::MAX as u128) as u32
    }

    /// Linux `bbr_quantization_budget`: room for three TSO bursts, an even
    /// cwnd, and 2 more in the probing phase.
    fn quantization_budget(&self, tp: &TcpSock, cwnd: u32) -> u32 {
        let mut cwnd = cwnd.saturating_add(3 * self.tso_segs_goal(tp));
        cwnd = cwnd.saturating_add(1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd = cwnd.saturating_add(2);
        }
        cwnd
    }

    fn probing_up(&self) -> bool {
        self.pacing_gain > BBR_UNIT
    }
}

/// `BW_UNIT` packets/µs to packets/s.
fn to_pps(bw: u64) -> f64 {
    bw as f64 * (PS_PER_S / PS_PER_US) as f64 / BW_UNIT as f64
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// Linux `bbr_init`.
    fn init(&mut self, tp: &mut TcpSock) {
        self.mss = tp.mss;
        self.prior_cwnd = 0;
        tp.snd_ssthresh = INFINITE_SSTHRESH;
        self.rtt_cnt = 0;
        self.next_rtt_delivered = 0;
        self.prev_ca_state = CaState::Open;
        self.packet_conservation = false;
        self.probe_rtt = ProbeRtt::default();
        self.min_rtt = if tp.min_rtt == Dur::MAX {
            Dur::MAX
        } else {
            Dur::from_us(whole_us(tp.min_rtt)) // Linux `tcp_min_rtt`, µs
        };
        self.min_rtt_stamp = tp.now;
        self.bw.reset(self.rtt_cnt, 0);
        self.pacer.has_seen_rtt = false;
        self.init_pacing_rate_from_rtt(tp);
        self.round_start = false;
        self.idle_restart = false;
        self.full_bw_reached = false;
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.cycle_mstamp = Time::ZERO;
        self.cycle_idx = 0;
        self.reset_lt_bw_sampling(tp);
        self.mode = Mode::Startup;
        self.pacing_gain = self.p.high_gain;
        self.cwnd_gain = self.p.high_gain;
        self.aggr = AckAggregation::new(tp.now);
    }

    /// Linux `bbr_ssthresh`: entering a reduction, save cwnd; ssthresh is
    /// left as it is.
    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        self.save_cwnd(tp);
        tp.snd_ssthresh
    }

    /// Never called: `cong_control` replaces it.
    fn cong_avoid(&mut self, _tp: &mut TcpSock, _ack: u64, _acked: u32) {}

    /// Linux `bbr_set_state`: an RTO ends a round and is a loss for the
    /// long-term sampler.
    fn set_state(&mut self, tp: &mut TcpSock, new_state: CaState) {
        if new_state == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true;
            self.lt_bw_sampling(tp, 1, false);
        }
    }

    /// Linux `bbr_cwnd_event`: restarting from idle while app-limited.
    fn cwnd_event(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        self.restart_from_idle(tp, ev);
    }

    /// Linux `bbr_undo_cwnd`: a spurious slow-down restarts full-pipe
    /// detection and the long-term sampler.
    fn undo_cwnd(&mut self, tp: &TcpSock) -> u32 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling(tp);
        tp.snd_cwnd
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    /// Linux `bbr_main`.
    fn cong_control(&mut self, tp: &mut TcpSock, _ack: u64, rs: &RateSample) {
        self.update_model(tp, rs);
        let bw = self.bw();
        self.set_pacing_rate(tp, bw, self.pacing_gain);
        self.set_cwnd(tp, rs, rs.acked_sacked, bw, self.cwnd_gain);
    }

    fn wants_pacing(&self) -> bool {
        true
    }

    /// `bbr_min_tso_segs` as the `min_tso_segs` hook: one segment below
    /// `min_tso_rate_bps` (1.2 Mb/s) of pacing, else two.
    fn min_tso_segs(&self, _tp: &TcpSock, pacing_bytes_per_s: u64) -> Option<u32> {
        Some(if pacing_bytes_per_s < self.p.min_tso_rate_bps >> 3 {
            1
        } else {
            2
        })
    }

    fn trace_vars(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("mode", self.mode as u8 as f64);
        out("bw_pps", self.bw_pps());
        // Payload bit/s, as Linux's `bbr_bw` in `tcp_info` (bytes/s) × 8.
        out("bw_bps", self.bw_pps() * self.mss as f64 * 8.0);
        out("max_bw_pps", self.max_bw_pps());
        out(
            "min_rtt_s",
            if self.min_rtt == Dur::MAX {
                0.0
            } else {
                self.min_rtt.secs_f64()
            },
        );
        out("pacing_rate_bps", self.pacer.rate_bps as f64);
        out("pacing_gain", self.pacing_gain());
        out("cwnd_gain", self.cwnd_gain());
        out("cycle_idx", self.cycle_idx as f64);
        out(
            "full_bw_reached",
            if self.full_bw_reached { 1.0 } else { 0.0 },
        );
        out("round", self.rtt_cnt as f64);
        out("lt_use_bw", if self.lt_use_bw { 1.0 } else { 0.0 });
        out("lt_bw_pps", to_pps(self.lt_bw));
        out("extra_acked_pkts", self.extra_acked_max() as f64);
        out("prior_cwnd", self.prior_cwnd as f64);
    }
}

#[cfg(test)]
mod tests;
