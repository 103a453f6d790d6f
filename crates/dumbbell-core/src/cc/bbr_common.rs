//! What BBR v1 (`bbr.rs`) and BBRv3 (`bbr3.rs`) share, as both versions
//! of Linux `tcp_bbr.c` have it: the four modes, ProbeRTT's timing (the
//! second half of `bbr_update_min_rtt`), the ACK-aggregation estimator's
//! epochs and windows (`bbr_update_ack_aggregation`), the cwnd saved before
//! a cut (`bbr_save_cwnd`) and what is left in the network at the next
//! departure (`bbr_packets_in_net_at_edt`). The arithmetic in which the
//! versions differ (v1 counts whole microseconds, v3 picoseconds) stays in
//! each; what is here is computed the same way for both.

use super::{CaEvent, CaState, TcpSock};
use crate::sim::{Dur, Time, PS_PER_US};

/// Fractions (gains) are in units of 1/256 (Linux `BBR_SCALE`).
pub const BBR_SCALE: u32 = 8;
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// Bandwidth is in packets per microsecond scaled by 2^24 (Linux `BW_SCALE`).
pub const BW_SCALE: u32 = 24;
pub const BW_UNIT: u64 = 1 << BW_SCALE;

/// Packets kept in flight at least, and in ProbeRTT (Linux
/// `bbr_cwnd_min_target`): two delayed-ACK pairs.
pub const CWND_MIN_TARGET: u32 = 4;
/// Largest TSO burst in bytes: `GSO_LEGACY_MAX_SIZE − 1 − MAX_TCP_HEADER`
/// of a typical x86-64 build (65536 − 1 − 320).
pub const GSO_MAX_BYTES: u64 = 65_536 - 1 - 320;
/// Linux `sk_pacing_shift`: the TSO quantum is about 2^-10 s of pacing.
pub const PACING_SHIFT: u32 = 10;
/// ACK aggregation: each of the two max-filter slots lasts this many
/// rounds (`bbr_extra_acked_win_rtts`), and the allowance is at most
/// 100 ms of bandwidth (`bbr_extra_acked_max_us`).
pub const EXTRA_ACKED_WIN_RTTS: u32 = 5;
pub const EXTRA_ACKED_MAX_US: u64 = 100_000;

/// Picoseconds per nanosecond, nanoseconds per microsecond.
const PS_PER_NS: u64 = 1_000;
const NS_PER_US: u64 = 1_000;

/// Whole microseconds of a duration (Linux's µs quantities).
#[inline]
pub fn whole_us(d: Dur) -> u64 {
    d.ps() / PS_PER_US
}

/// A time on Linux's microsecond clock (`tcp_mstamp`, `delivered_mstamp`).
#[inline]
pub fn stamp_us(t: Time) -> u64 {
    t.ps() / PS_PER_US
}

crate::u8_enum::u8_enum! {
    /// BBR's modes (Linux `enum bbr_mode`), the `mode` trace variable: its
    /// code, 0 to 3 in Linux's order.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Mode {
        Startup,
        Drain,
        ProbeBw,
        ProbeRtt,
    }
}

/// A gain as a multiple of `1/unit`, clamped to `[0, max]` and rounded to
/// the nearest.
pub fn to_fixed(x: f64, max: f64, unit: u32) -> u32 {
    (x.clamp(0.0, max) * unit as f64).round() as u32
}

/// Linux `bbr_save_cwnd`: the cwnd to restore after a cut: the current one,
/// or, when Recovery, Loss or ProbeRTT already cut it, the larger of it and
/// the one saved before.
pub fn saved_cwnd(prev_ca_state: CaState, mode: Mode, prior_cwnd: u32, snd_cwnd: u32) -> u32 {
    if prev_ca_state < CaState::Recovery && mode != Mode::ProbeRtt {
        snd_cwnd
    } else {
        prior_cwnd.max(snd_cwnd)
    }
}

/// The estimates each version keeps in its own way, and what both compute
/// from them the same way (Linux `bbr_inflight`,
/// `bbr_packets_in_net_at_edt`).
pub trait Estimates {
    /// Linux `bbr_bw`: the bandwidth estimate in use, packets/µs <<
    /// `BW_SCALE`.
    fn bw(&self) -> u64;
    /// Linux `bbr_tso_segs_goal`: the segments of one TSO burst.
    fn tso_segs_goal(&self, tp: &TcpSock) -> u32;
    /// Linux `bbr_bdp`: ⌈bw · min_rtt · gain⌉ packets.
    fn bdp(&self, bw: u64, gain: u32) -> u32;
    /// Linux `bbr_quantization_budget`: a cwnd with room for the TSO bursts.
    fn quantization_budget(&self, tp: &TcpSock, cwnd: u32) -> u32;
    /// The pacing gain is above 1: probing for more bandwidth.
    fn probing_up(&self) -> bool;

    /// Linux `bbr_inflight`: the quantized BDP at `bw` and `gain`.
    fn inflight(&self, tp: &TcpSock, bw: u64, gain: u32) -> u32 {
        self.quantization_budget(tp, self.bdp(bw, gain))
    }

    /// Linux `bbr_packets_in_net_at_edt`: in flight now, plus the next
    /// departure's TSO burst when probing up, less the packets the
    /// bottleneck drains at the estimate before that departure.
    fn packets_in_net_at_edt(&self, tp: &TcpSock, inflight_now: u32) -> u32 {
        // Linux: whole microseconds of the difference of two ns clocks.
        let edt = tp.wstamp.max(tp.now);
        let interval_us = (edt.ps() / PS_PER_NS - tp.now.ps() / PS_PER_NS) / NS_PER_US;
        let delivered = (self.bw() as u128 * interval_us as u128) >> BW_SCALE;
        let burst = if self.probing_up() {
            self.tso_segs_goal(tp)
        } else {
            0
        };
        let at_edt = inflight_now.saturating_add(burst);
        if delivered >= at_edt as u128 {
            0
        } else {
            at_edt - delivered as u32
        }
    }
}

/// Pacing state both versions keep: whether an RTT sample has set the
/// rate yet (Linux `has_seen_rtt`) and the rate last set (the
/// `pacing_rate_bps` trace variable).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacer {
    pub has_seen_rtt: bool,
    /// The pacing rate last set, bit/s.
    pub rate_bps: u64,
}

/// The pacing rate and the restart from idle, the same in both versions
/// (Linux `bbr_init_pacing_rate_from_rtt`, `bbr_set_pacing_rate`,
/// `bbr_cwnd_event`) from what each version computes its own way.
pub trait Pacing: Estimates {
    /// Linux `bbr_rate_bytes_per_sec` in bit/s: `bw` at `gain`, less the
    /// version's margin.
    fn pacing_rate_bps_for(&self, bw: u64, gain: u32) -> u64;
    /// The pacing gain of Startup (v1 `high_gain`, v3
    /// `startup_pacing_gain`).
    fn startup_pacing_gain(&self) -> u32;
    fn full_bw_reached(&self) -> bool;
    fn mode(&self) -> Mode;
    fn pacer(&mut self) -> &mut Pacer;
    /// Linux: `idle_restart = 1` and a new ACK-aggregation epoch.
    fn mark_idle_restart(&mut self, now: Time);
    /// Linux `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, tp: &mut TcpSock);

    /// Linux `bbr_init_pacing_rate_from_rtt`: the startup gain times one
    /// cwnd per srtt (per 1 ms before any sample).
    fn init_pacing_rate_from_rtt(&mut self, tp: &mut TcpSock) {
        // Linux reads srtt in whole microseconds (`srtt_us >> 3`).
        let srtt_us = whole_us(tp.srtt);
        let rtt_us = if srtt_us > 0 {
            self.pacer().has_seen_rtt = true;
            srtt_us
        } else {
            1_000
        };
        // A u32 cwnd times 2^24 fits in 64 bits.
        let bw = tp.snd_cwnd as u64 * BW_UNIT / rtt_us;
        tp.pacing_rate_bps = self.pacing_rate_bps_for(bw, self.startup_pacing_gain());
        self.pacer().rate_bps = tp.pacing_rate_bps;
    }

    /// Linux `bbr_set_pacing_rate`: only upward until the pipe is full.
    fn set_pacing_rate(&mut self, tp: &mut TcpSock, bw: u64, gain: u32) {
        let rate = self.pacing_rate_bps_for(bw, gain);
        if !self.pacer().has_seen_rtt && whole_us(tp.srtt) > 0 {
            self.init_pacing_rate_from_rtt(tp);
        }
        if self.full_bw_reached() || rate > tp.pacing_rate_bps {
            tp.pacing_rate_bps = rate;
        }
        self.pacer().rate_bps = tp.pacing_rate_bps;
    }

    /// Linux `bbr_cwnd_event`: restarting from idle while app-limited; no
    /// need to go faster than the estimate after idle.
    fn restart_from_idle(&mut self, tp: &mut TcpSock, ev: CaEvent) {
        if ev != CaEvent::TxStart || tp.app_limited == 0 {
            return;
        }
        self.mark_idle_restart(tp.now);
        match self.mode() {
            Mode::ProbeBw => self.set_pacing_rate(tp, self.bw(), BBR_UNIT),
            Mode::ProbeRtt => self.check_probe_rtt_done(tp),
            _ => {}
        }
    }
}

/// The [`Pacing`] methods that read the fields both versions name alike
/// (`idle_restart`, `aggr`, `pacer`, `full_bw_reached`, `mode`).
macro_rules! pacing_state_fields {
    () => {
        fn mark_idle_restart(&mut self, now: Time) {
            self.idle_restart = true;
            self.aggr.restart_epoch(now);
        }

        fn pacer(&mut self) -> &mut Pacer {
            &mut self.pacer
        }

        fn full_bw_reached(&self) -> bool {
            self.full_bw_reached
        }

        fn mode(&self) -> Mode {
            self.mode
        }
    };
}
pub(crate) use pacing_state_fields;

/// `update_probe_rtt(tp, rs, target_and_end)`: the end of Linux
/// `bbr_update_min_rtt`, v1's and v3's alike, for a control whose fields
/// `mode`, `probe_rtt` (a [`ProbeRtt`] on the clock `$clock`),
/// `round_start`, `next_rtt_delivered` and `idle_restart` are named alike.
/// In ProbeRTT, one ACK of its timing ([`ProbeRtt::on_ack`], with the
/// in-flight target and the end `target_and_end` gives), then
/// `check_probe_rtt_done` when it may be over; a restart from idle ends
/// with the first ACK of new data.
macro_rules! update_probe_rtt {
    ($clock:ty) => {
        fn update_probe_rtt(
            &mut self,
            tp: &mut TcpSock,
            rs: &RateSample,
            target_and_end: impl FnOnce(&Self, &TcpSock) -> (u32, $clock),
        ) {
            if self.mode == Mode::ProbeRtt {
                let (target, done_at) = target_and_end(self, tp);
                let (round_start, next) = (self.round_start, &mut self.next_rtt_delivered);
                if self
                    .probe_rtt
                    .on_ack(tp, target, done_at, round_start, next)
                {
                    self.check_probe_rtt_done(tp);
                }
            }
            if rs.delivered.is_some_and(|d| d > 0) {
                self.idle_restart = false;
            }
        }
    };
}
pub(crate) use update_probe_rtt;

/// ProbeRTT's timing (Linux `probe_rtt_done_stamp`,
/// `probe_rtt_round_done`): it lasts until in flight has been at its
/// target for the mode's duration and at least one round. `T` is the
/// clock of the stamp: v1's [`Time`], BBRv3's jiffies (`u64`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProbeRtt<T = Time> {
    /// When ProbeRTT may end; set once in flight came down to the target.
    pub done_stamp: Option<T>,
    /// A round has passed since.
    pub round_done: bool,
}

impl<T: Copy> ProbeRtt<T> {
    /// One ACK in ProbeRTT (the second half of `bbr_update_min_rtt`, v1's
    /// and v3's): samples at the target say nothing of the bandwidth (the
    /// connection counts as app-limited); the clock starts once in flight
    /// is at most `target`, to end at `done_at` (now plus the mode's
    /// duration), and a new round starts at `next_rtt_delivered`. True when
    /// ProbeRTT may be over: the caller then checks `done_stamp` against
    /// the time (`bbr_check_probe_rtt_done`).
    pub fn on_ack(
        &mut self,
        tp: &mut TcpSock,
        target: u32,
        done_at: T,
        round_start: bool,
        next_rtt_delivered: &mut u64,
    ) -> bool {
        tp.app_limited = (tp.delivered + tp.in_flight() as u64).max(1);
        if self.done_stamp.is_none() && tp.in_flight() <= target {
            self.done_stamp = Some(done_at);
            self.round_done = false;
            *next_rtt_delivered = tp.delivered;
            false
        } else if self.done_stamp.is_some() {
            self.round_done |= round_start;
            self.round_done
        } else {
            false
        }
    }
}

/// Packets acked in one epoch at which it restarts (Linux
/// `bbr_ack_epoch_acked_reset_thresh`).
pub const ACK_EPOCH_ACKED_RESET: u32 = 1 << 20;

/// The ACK-aggregation estimator (Linux `bbr_update_ack_aggregation`,
/// `bbr_extra_acked`): in an epoch, the packets acked beyond what the
/// bandwidth estimate expected, the largest of each of two windows of
/// rounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AckAggregation {
    /// The start of the current epoch (`ack_epoch_mstamp`).
    pub epoch_start: Time,
    /// Packets acked in it (`ack_epoch_acked`).
    epoch_acked: u32,
    /// The largest excess of each window (`extra_acked`).
    extra_acked: [u32; 2],
    /// Rounds in the current window (`extra_acked_win_rtts`).
    win_rounds: u32,
    /// The current window (`extra_acked_win_idx`).
    win_idx: usize,
}

impl AckAggregation {
    /// An estimator with nothing measured, its epoch starting at `start`.
    pub fn new(start: Time) -> Self {
        AckAggregation {
            epoch_start: start,
            epoch_acked: 0,
            extra_acked: [0; 2],
            win_rounds: 0,
            win_idx: 0,
        }
    }

    /// A round starts: after `window` rounds, the older window is cleared
    /// and becomes the current one.
    pub fn round_start(&mut self, window: u32) {
        self.win_rounds = (self.win_rounds + 1).min(0x1f);
        if self.win_rounds >= window {
            self.win_rounds = 0;
            self.win_idx ^= 1;
            self.extra_acked[self.win_idx] = 0;
        }
    }

    /// An ACK of `acked` packets when the bandwidth estimate expected
    /// `expected` since the epoch started: ACKs no faster than the estimate
    /// (or an epoch grown too long) start a new epoch at
    /// `delivered_mstamp`; the excess, at most `snd_cwnd`, counts toward
    /// the current window's largest.
    pub fn on_ack(&mut self, expected: u32, acked: u32, delivered_mstamp: Time, snd_cwnd: u32) {
        let mut expected = expected;
        if self.epoch_acked <= expected || self.epoch_acked + acked >= ACK_EPOCH_ACKED_RESET {
            self.epoch_acked = 0;
            self.epoch_start = delivered_mstamp;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(ACK_EPOCH_ACKED_RESET - 1);
        let extra = (self.epoch_acked - expected).min(snd_cwnd);
        let slot = &mut self.extra_acked[self.win_idx];
        if extra > *slot {
            *slot = extra;
        }
    }

    /// Restarting from idle starts a new epoch (`bbr_cwnd_event`).
    pub fn restart_epoch(&mut self, now: Time) {
        self.epoch_start = now;
        self.epoch_acked = 0;
    }

    /// The larger of the two windows' excess (`bbr_extra_acked`), packets.
    pub fn max(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1])
    }
}

/// The rows of BBR v1's and BBRv3's `PARAMS` that are the same parameter
/// in both, its name and range written once; each version keeps its own
/// line about it (Linux's default or v3's).
pub mod rows {
    use crate::param::{Param, Range};

    /// `min_rtt_win_s`: the min-RTT filter's window, seconds.
    pub const fn min_rtt_win(about: &'static str) -> Param {
        Param::float_in("min_rtt_win_s", Range::float(0.0, true, 1e6, false), about)
    }

    /// `probe_rtt_mode_ms`: the least time in ProbeRTT, ms (0: none).
    pub const fn probe_rtt_mode(about: &'static str) -> Param {
        Param::float_in(
            "probe_rtt_mode_ms",
            Range::float(0.0, false, 1e9, false),
            about,
        )
    }

    /// The ranges of a gain, as a real number, of a control whose largest
    /// gain is `max`: above 1 (Startup), from 1 (ProbeBW's cwnd and up
    /// phase), or up to 1 (Drain, ProbeBW's down phase).
    pub struct Gains {
        pub above_1: Range,
        pub from_1: Range,
        pub to_1: Range,
    }

    impl Gains {
        pub const fn up_to(max: f64) -> Gains {
            Gains {
                above_1: Range::float(1.0, true, max, false),
                from_1: Range::float(1.0, false, max, false),
                to_1: Range::float(0.0, true, 1.0, false),
            }
        }
    }

    /// `pacing_margin_percent`: pacing below the bandwidth estimate.
    pub const fn pacing_margin(about: &'static str) -> Param {
        Param::int_in("pacing_margin_percent", Range::int(0, 99, " %"), about)
    }
}
