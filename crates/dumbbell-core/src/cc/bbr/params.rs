//! BBR's parameters: what a configuration may set, with Linux's values as
//! defaults, their ranges (declared once, read by [`check`] and the
//! schema) and the registration.

use super::{Bbr, MAX_GAIN};
use crate::cc::bbr_common::rows;
use crate::param::{Param, Range, Ty};
use serde::{Deserialize, Serialize};

/// BBR v1 (Linux `tcp_bbr.c`). Gains are rounded to Linux's 1/256 units.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BbrParams {
    /// Startup pacing and cwnd gain, about 2/ln 2 (Linux `bbr_high_gain`:
    /// 2.885 → 739/256).
    pub high_gain: f64,
    /// Drain pacing gain; unset: 1/high_gain (Linux `bbr_drain_gain`: 88/256).
    pub drain_gain: Option<f64>,
    /// ProbeBW cwnd gain (Linux `bbr_cwnd_gain`: 2).
    pub cwnd_gain: f64,
    /// First phase of the ProbeBW pacing-gain cycle (Linux 5/4).
    pub probe_bw_up_gain: f64,
    /// Second phase of the cycle (Linux 3/4); the six others are 1.
    pub probe_bw_down_gain: f64,
    /// Window of the max-bandwidth filter, in packet-timed rounds (Linux
    /// `bbr_bw_rtts`: 10).
    pub bw_win_rounds: u32,
    /// Window of the min-RTT filter, seconds (Linux `bbr_min_rtt_win_sec`: 10).
    pub min_rtt_win_s: f64,
    /// Least time at 4 packets in ProbeRTT, milliseconds (Linux
    /// `bbr_probe_rtt_mode_ms`: 200); 0 disables ProbeRTT.
    pub probe_rtt_mode_ms: f64,
    /// Bandwidth growth that counts as "still growing" in Startup (Linux
    /// `bbr_full_bw_thresh`: 5/4).
    pub full_bw_thresh: f64,
    /// Rounds without such growth that end Startup (Linux `bbr_full_bw_cnt`: 3).
    pub full_bw_cnt: u32,
    /// Pacing below the estimate, percent (Linux `bbr_pacing_margin_percent`: 1).
    pub pacing_margin_percent: u32,
    /// Below this pacing rate the TSO quantum is one segment, above it two
    /// at least, bit/s (Linux `bbr_min_tso_rate`: 1.2 Mb/s).
    pub min_tso_rate_bps: u64,
    /// The ACK-aggregation estimator (`extra_acked`, Linux ≥ 5.1): on.
    pub extra_acked: bool,
    /// Long-term bandwidth sampling, the token-bucket policer detector: on.
    pub lt_bw: bool,
}

impl Default for BbrParams {
    fn default() -> Self {
        BbrParams {
            high_gain: 2.885,
            drain_gain: None,
            cwnd_gain: 2.0,
            probe_bw_up_gain: 1.25,
            probe_bw_down_gain: 0.75,
            bw_win_rounds: 10,
            min_rtt_win_s: 10.0,
            probe_rtt_mode_ms: 200.0,
            full_bw_thresh: 1.25,
            full_bw_cnt: 3,
            pacing_margin_percent: 1,
            min_tso_rate_bps: 1_200_000,
            extra_acked: true,
            lt_bw: true,
        }
    }
}

const GAIN: rows::Gains = rows::Gains::up_to(MAX_GAIN);

/// BBR's parameters: types, ranges, one line each.
pub const PARAMS: &[Param] = &[
    Param::float_in(
        "high_gain",
        GAIN.above_1,
        "Startup pacing and cwnd gain (Linux 2.885, rounded to 739/256).",
    ),
    Param::new(
        "drain_gain",
        Ty::Optional(&Ty::Float),
        GAIN.to_1,
        "Drain pacing gain; unset: 1/high_gain (Linux 88/256).",
    ),
    Param::float_in("cwnd_gain", GAIN.from_1, "ProbeBW cwnd gain (Linux 2)."),
    Param::float_in(
        "probe_bw_up_gain",
        GAIN.from_1,
        "First phase of the ProbeBW pacing-gain cycle (Linux 5/4).",
    ),
    Param::float_in(
        "probe_bw_down_gain",
        GAIN.to_1,
        "Second phase of the cycle (Linux 3/4).",
    ),
    Param::int_in(
        "bw_win_rounds",
        Range::POSITIVE,
        "Window of the max-bandwidth filter, rounds (Linux 10).",
    ),
    rows::min_rtt_win("Window of the min-RTT filter, seconds (Linux 10)."),
    rows::probe_rtt_mode(
        "Least time at 4 packets in ProbeRTT, ms (Linux 200); 0 disables ProbeRTT.",
    ),
    Param::float_in(
        "full_bw_thresh",
        GAIN.above_1,
        "Bandwidth growth that counts as still growing in Startup (Linux 5/4).",
    ),
    Param::int_in(
        "full_bw_cnt",
        Range::POSITIVE,
        "Rounds without such growth that end Startup (Linux 3).",
    ),
    rows::pacing_margin("Pacing below the estimate, percent (Linux 1)."),
    Param::int_in(
        "min_tso_rate_bps",
        Range::U64,
        "Below this pacing rate the TSO quantum is one segment, bit/s (Linux 1.2 Mb/s).",
    ),
    Param::flag(
        "extra_acked",
        "The ACK-aggregation estimator (Linux >= 5.1).",
    ),
    Param::flag(
        "lt_bw",
        "Long-term bandwidth sampling, the policer detector.",
    ),
];

crate::cc::registration! {
    /// `cc = "bbr"`: a variant of its own.
    name: "bbr",
    about: "BBR v1 (Cardwell et al. 2016; Linux tcp_bbr.c): paces at the estimated bottleneck rate.",
    params: PARAMS,
    config: BbrParams,
    ranges: [
        high_gain, drain_gain, cwnd_gain, probe_bw_up_gain, probe_bw_down_gain, bw_win_rounds,
        min_rtt_win_s, probe_rtt_mode_ms, full_bw_thresh, full_bw_cnt, pacing_margin_percent,
    ],
    build: Bbr::new,
}
