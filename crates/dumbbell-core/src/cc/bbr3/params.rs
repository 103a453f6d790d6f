//! BBRv3's parameters: what a configuration may set, with the values of
//! the public v3 source (`google/bbr`, branch `v3`, `net/ipv4/tcp_bbr.c`)
//! as defaults, their ranges (declared once, read by [`check`] and the
//! schema) and the registration.

use super::Bbr3;
use crate::cc::bbr_common::rows;
use crate::cc::Registration;
use crate::param::{self, Param, ParamError, Range};
use serde::{Deserialize, Serialize};

/// BBRv3. Gains and fractions are rounded to Linux's 1/256 units; the
/// defaults are the v3 source's constants, written as the exact fractions
/// of 256 it computes (0.91 there is 232/256 = 0.90625).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Bbr3Params {
    /// Startup pacing gain (v3: 2.77, 710/256).
    pub startup_pacing_gain: f64,
    /// Startup and Drain cwnd gain (v3: 2).
    pub startup_cwnd_gain: f64,
    /// Drain pacing gain (v3: 1/2.885, 88/256).
    pub drain_gain: f64,
    /// ProbeBW cwnd gain (v3: 2).
    pub cwnd_gain: f64,
    /// Pacing gain of ProbeBW's UP phase (v3: 5/4).
    pub probe_up_gain: f64,
    /// Pacing gain of ProbeBW's DOWN phase (v3: 0.91, 232/256).
    pub probe_down_gain: f64,
    /// Added to cwnd_gain in UP, in quarters (v3 `bw_probe_cwnd_gain`: 1 = +0.25).
    pub probe_up_cwnd_quarters: u32,
    /// Loss response: bw_lo and inflight_lo are cut by this fraction per
    /// lossy round, inflight_hi to (1 − beta) of the target (v3: 0.3, 76/256).
    pub beta: f64,
    /// Loss rate over a probe's flight that means "too high" (v3: 2 %, 5/256).
    pub loss_thresh: f64,
    /// CE fraction of a round that means "too high" (v3: 1/2); 0 disables.
    pub ecn_thresh: f64,
    /// ECN response: inflight_lo × (1 − ecn_factor · alpha) per marked
    /// round (v3: 1/3, 85/256); 0 disables ECN.
    pub ecn_factor: f64,
    /// Weight of a round's CE fraction in the alpha EWMA (v3: 1/16).
    pub ecn_alpha_gain: f64,
    /// Alpha's initial value (v3: 1).
    pub ecn_alpha_init: f64,
    /// After a cycle with CE marks and no loss, the first probe raises
    /// inflight_hi by this fraction of it (v3: 1/2); 0 disables.
    pub ecn_reprobe_gain: f64,
    /// The path marks CE at a shallow threshold and the receiver echoes
    /// each mark precisely (Linux's route feature `ecn_low`): only then does
    /// v3 use ECN. The flow negotiates ECN with the precise (DCTCP-style)
    /// echo. Off, as on a Linux route without the feature.
    pub ecn_low: bool,
    /// ECN is used only while min RTT is at most this, ms (v3: 5); 0: any RTT.
    pub ecn_max_rtt_ms: f64,
    /// Fraction of inflight_hi left free in Cruise and ProbeRTT (v3: 0.15, 38/256).
    pub inflight_headroom: f64,
    /// Startup ends after a Recovery round with at least this many loss
    /// events and a loss rate above loss_thresh (v3: 6); 0 disables.
    pub full_loss_cnt: u32,
    /// Startup ends after this many rounds with a CE fraction above
    /// ecn_thresh (v3: 2); 0 disables.
    pub full_ecn_cnt: u32,
    /// Bandwidth growth that counts as "still growing" (v3: 5/4).
    pub full_bw_thresh: f64,
    /// Rounds without such growth that mean the pipe is full (v3: 3).
    pub full_bw_cnt: u32,
    /// Most packet-timed rounds between bandwidth probes, the Reno
    /// coexistence bound (v3: 63).
    pub bw_probe_max_rounds: u32,
    /// Random rounds subtracted from that wait, drawn below this (v3: 2).
    pub bw_probe_rand_rounds: u32,
    /// Wall-clock wait between probes, seconds, plus a random part below
    /// `bw_probe_rand_s` (v3: 2 s + [0, 1) s).
    pub bw_probe_base_s: f64,
    pub bw_probe_rand_s: f64,
    /// Window of the min-RTT filter, seconds (v3: 10).
    pub min_rtt_win_s: f64,
    /// Window of the ProbeRTT min-RTT filter: ProbeRTT comes at most this
    /// often, ms (v3: 5000).
    pub probe_rtt_win_ms: f64,
    /// Least time in ProbeRTT, ms (v3: 200); 0 disables ProbeRTT.
    pub probe_rtt_mode_ms: f64,
    /// ProbeRTT's cwnd as a fraction of the BDP (v3: 1/2).
    pub probe_rtt_cwnd_gain: f64,
    /// Pacing below the estimate, percent (v3: 1).
    pub pacing_margin_percent: u32,
    /// The ACK-aggregation allowance (`extra_acked`): on.
    pub extra_acked: bool,
}

impl Default for Bbr3Params {
    fn default() -> Self {
        Bbr3Params {
            startup_pacing_gain: 710.0 / 256.0,
            startup_cwnd_gain: 2.0,
            drain_gain: 88.0 / 256.0,
            cwnd_gain: 2.0,
            probe_up_gain: 1.25,
            probe_down_gain: 232.0 / 256.0,
            probe_up_cwnd_quarters: 1,
            beta: 76.0 / 256.0,
            loss_thresh: 5.0 / 256.0,
            ecn_thresh: 0.5,
            ecn_factor: 85.0 / 256.0,
            ecn_alpha_gain: 1.0 / 16.0,
            ecn_alpha_init: 1.0,
            ecn_reprobe_gain: 0.5,
            ecn_low: false,
            ecn_max_rtt_ms: 5.0,
            inflight_headroom: 38.0 / 256.0,
            full_loss_cnt: 6,
            full_ecn_cnt: 2,
            full_bw_thresh: 1.25,
            full_bw_cnt: 3,
            bw_probe_max_rounds: 63,
            bw_probe_rand_rounds: 2,
            bw_probe_base_s: 2.0,
            bw_probe_rand_s: 1.0,
            min_rtt_win_s: 10.0,
            probe_rtt_win_ms: 5000.0,
            probe_rtt_mode_ms: 200.0,
            probe_rtt_cwnd_gain: 0.5,
            pacing_margin_percent: 1,
            extra_acked: true,
        }
    }
}

/// Largest gain accepted (Linux's 10-bit gain fields stop near 4).
pub const MAX_GAIN: f64 = 4.0;

const GAIN: rows::Gains = rows::Gains::up_to(MAX_GAIN);
const FRACTION: Range = Range::float(0.0, false, 1.0, false);
const FRACTION_BELOW_1: Range = Range::float(0.0, false, 1.0, true);

/// BBRv3's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::float_in(
        "startup_pacing_gain",
        GAIN.above_1,
        "Startup pacing gain (v3 2.77).",
    ),
    Param::float_in(
        "startup_cwnd_gain",
        GAIN.from_1,
        "Startup and Drain cwnd gain (v3 2).",
    ),
    Param::float_in("drain_gain", GAIN.to_1, "Drain pacing gain (v3 88/256)."),
    Param::float_in("cwnd_gain", GAIN.from_1, "ProbeBW cwnd gain (v3 2)."),
    Param::float_in(
        "probe_up_gain",
        GAIN.above_1,
        "Pacing gain of ProbeBW UP (v3 5/4).",
    ),
    Param::float_in(
        "probe_down_gain",
        GAIN.to_1,
        "Pacing gain of ProbeBW DOWN (v3 0.91).",
    ),
    Param::int_in(
        "probe_up_cwnd_quarters",
        Range::int(0, 3, " quarters"),
        "Added to cwnd_gain in UP, in quarters (v3 1).",
    ),
    Param::float_in(
        "beta",
        FRACTION_BELOW_1,
        "Loss cut of bw_lo/inflight_lo per lossy round (v3 0.3).",
    ),
    Param::float_in(
        "loss_thresh",
        Range::float(0.0, true, 0.5, false),
        "Loss rate of a probe's flight that is too high (v3 2 %).",
    ),
    Param::float_in(
        "ecn_thresh",
        FRACTION,
        "CE fraction of a round that is too high (v3 1/2); 0 disables.",
    ),
    Param::float_in(
        "ecn_factor",
        FRACTION,
        "ECN cut: inflight_lo x (1 - ecn_factor x alpha) (v3 1/3); 0 disables.",
    ),
    Param::float_in(
        "ecn_alpha_gain",
        Range::float(0.0, true, 1.0, false),
        "EWMA weight of a round's CE fraction (v3 1/16).",
    ),
    Param::float_in("ecn_alpha_init", FRACTION, "Alpha's initial value (v3 1)."),
    Param::float_in(
        "ecn_reprobe_gain",
        FRACTION,
        "Re-probe by this fraction of inflight_hi once marks stop (v3 1/2).",
    ),
    Param::flag(
        "ecn_low",
        "The path marks at a shallow threshold (Linux route ecn_low): use ECN.",
    ),
    Param::float_in(
        "ecn_max_rtt_ms",
        Range::float(0.0, false, 1e6, false),
        "ECN is used only while min RTT <= this, ms (v3 5); 0: any RTT.",
    ),
    Param::float_in(
        "inflight_headroom",
        FRACTION_BELOW_1,
        "Fraction of inflight_hi left free when cruising (v3 0.15).",
    ),
    Param::int_in(
        "full_loss_cnt",
        Range::int(0, 15, ""),
        "Loss events in a Recovery round that end Startup (v3 6); 0 disables.",
    ),
    Param::int_in(
        "full_ecn_cnt",
        Range::int(0, 3, ""),
        "Rounds of high CE that end Startup (v3 2); 0 disables.",
    ),
    Param::float_in(
        "full_bw_thresh",
        GAIN.above_1,
        "Bandwidth growth that counts as still growing (v3 5/4).",
    ),
    Param::int_in(
        "full_bw_cnt",
        Range::int(1, 3, ""),
        "Rounds without such growth: the pipe is full (v3 3).",
    ),
    Param::int_in(
        "bw_probe_max_rounds",
        Range::int(1, 255, " rounds"),
        "Most rounds between bandwidth probes (v3 63).",
    ),
    Param::int_in(
        "bw_probe_rand_rounds",
        Range::int(1, 255, " rounds"),
        "Random rounds off that wait, below this (v3 2).",
    ),
    Param::float_in(
        "bw_probe_base_s",
        Range::float(0.0, false, 3600.0, false),
        "Wall-clock wait between probes, s (v3 2).",
    ),
    Param::float_in(
        "bw_probe_rand_s",
        Range::float(0.0, false, 3600.0, false),
        "Random part of that wait, below this, s (v3 1).",
    ),
    rows::min_rtt_win("Window of the min-RTT filter, s (v3 10)."),
    Param::float_in(
        "probe_rtt_win_ms",
        Range::float(0.0, true, 1e9, false),
        "ProbeRTT comes at most this often, ms (v3 5000).",
    ),
    rows::probe_rtt_mode("Least time in ProbeRTT, ms (v3 200); 0 disables."),
    Param::float_in(
        "probe_rtt_cwnd_gain",
        GAIN.to_1,
        "ProbeRTT cwnd as a fraction of the BDP (v3 1/2).",
    ),
    rows::pacing_margin("Pacing below the estimate, percent (v3 1)."),
    Param::flag("extra_acked", "The ACK-aggregation allowance."),
];

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(p: &Bbr3Params) -> Result<(), ParamError> {
    param::check_fields!(
        PARAMS,
        p,
        [
            startup_pacing_gain,
            startup_cwnd_gain,
            drain_gain,
            cwnd_gain,
            probe_up_gain,
            probe_down_gain,
            beta,
            loss_thresh,
            ecn_thresh,
            ecn_factor,
            ecn_alpha_gain,
            ecn_alpha_init,
            ecn_reprobe_gain,
            ecn_max_rtt_ms,
            inflight_headroom,
            full_bw_thresh,
            bw_probe_base_s,
            bw_probe_rand_s,
            min_rtt_win_s,
            probe_rtt_win_ms,
            probe_rtt_mode_ms,
            probe_rtt_cwnd_gain,
            probe_up_cwnd_quarters,
            full_loss_cnt,
            full_ecn_cnt,
            full_bw_cnt,
            bw_probe_max_rounds,
            bw_probe_rand_rounds,
            pacing_margin_percent,
        ]
    )?;
    if p.probe_rtt_win_ms > p.min_rtt_win_s * 1e3 {
        return Err(ParamError::new(
            "probe_rtt_win_ms",
            format!(
                "must be at most min_rtt_win_s ({} s) in ms, as in v3; got {}",
                p.min_rtt_win_s, p.probe_rtt_win_ms
            ),
        ));
    }
    Ok(())
}

/// `cc = "bbr3"`, or `cc = {kind = "bbr3", beta = 0.5}`.
pub const REGISTRATION: Registration = crate::cc::registration! {
    name: "bbr3",
    about: "BBRv3 (Cardwell et al., IETF draft-ietf-ccwg-bbr; google/bbr v3 tcp_bbr.c): BBR with loss/ECN bounds inflight_hi/inflight_lo.",
    params: PARAMS,
    config: Bbr3Params,
    check: check,
    build: Bbr3::new,
};
