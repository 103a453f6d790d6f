//! Scalable TCP (T. Kelly, "Scalable TCP: Improving Performance in Highspeed
//! Wide Area Networks", ACM SIGCOMM CCR 33(2), 2003; Linux
//! `tcp_scalable.c`): above ssthresh the window grows by one packet every
//! `min(cwnd, ai_cnt)` packets acked — Reno's growth below `ai_cnt`
//! packets, a fixed 1/`ai_cnt` per ACK (exponential in time) above — and a
//! reduction removes `cwnd >> md_shift` packets (1/8 with Linux's 3).
//!
//! The worked example of `docs/controls.md`: written first in Python
//! (`examples/scalable.py`), then moved here with one line in
//! `registry::REGISTRY`; `tests/test_controls.py` checks that the two give
//! the same tables bit for bit.

use super::{slow_start_then_avoid, tcp_cong_avoid_ai, CongestionControl, Registration, TcpSock};
use crate::param::{self, Param, ParamError, Range};
use serde::{Deserialize, Serialize};

/// Linux `TCP_SCALABLE_AI_CNT` and `TCP_SCALABLE_MD_SCALE`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ScalableParams {
    /// Above this window (packets) growth is 1/`ai_cnt` packet per ACK.
    pub ai_cnt: u32,
    /// A reduction removes `cwnd >> md_shift` packets.
    pub md_shift: u32,
}

impl Default for ScalableParams {
    fn default() -> Self {
        ScalableParams {
            ai_cnt: 100,
            md_shift: 3,
        }
    }
}

/// The parameters' types and ranges, declared once: the checks below and
/// the schema (`_native.schema()`) read them.
pub const PARAMS: &[Param] = &[
    Param::int_in(
        "ai_cnt",
        Range::int(1, 1 << 20, " packets"),
        "Above this window growth is 1/ai_cnt packet per ACK (Linux 100).",
    ),
    Param::int_in(
        "md_shift",
        Range::int(1, 16, ""),
        "A reduction removes cwnd >> md_shift packets (Linux 3: 1/8).",
    ),
];

/// The registration: `cc = "scalable"`, or `{kind = "scalable", ai_cnt = 50}`.
pub const REGISTRATION: Registration = super::registration! {
    name: "scalable",
    about: "Scalable TCP (Kelly 2003; Linux tcp_scalable.c): +1 packet per ai_cnt (100) acked above ai_cnt, -1/8 on loss.",
    params: PARAMS,
    config: ScalableParams,
    check: check,
    build: |p, _rng| Scalable { p },
};

/// Refuses out-of-range parameters, naming the one at fault.
pub fn check(p: &ScalableParams) -> Result<(), ParamError> {
    param::check_fields!(PARAMS, p, [ai_cnt, md_shift])
}

#[derive(Clone, Debug)]
pub struct Scalable {
    p: ScalableParams,
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        (tp.snd_cwnd - (tp.snd_cwnd >> self.p.md_shift)).max(2)
    }

    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, acked: u32) {
        if let Some(acked) = slow_start_then_avoid(tp, acked) {
            tcp_cong_avoid_ai(tp, tp.snd_cwnd.min(self.p.ai_cnt), acked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng_for;

    fn control(json: &str) -> Result<Box<dyn CongestionControl>, ParamError> {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        (REGISTRATION.make)(v.as_object().unwrap(), rng_for(0, "t"))
    }

    #[test]
    fn above_ai_cnt_growth_is_one_packet_per_ai_cnt_acked() {
        let mut c = control("{}").unwrap();
        let mut tp = TcpSock::new(1448, 1000);
        tp.snd_ssthresh = 500;
        tp.is_cwnd_limited = true;
        for _ in 0..100 {
            c.cong_avoid(&mut tp, 0, 1);
        }
        assert_eq!(tp.snd_cwnd, 1001); // Reno would need 1000 ACKs
    }

    #[test]
    fn below_ai_cnt_it_is_reno() {
        let mut c = control(r#"{"ai_cnt": 50}"#).unwrap();
        let mut tp = TcpSock::new(1448, 20);
        tp.snd_ssthresh = 10;
        tp.is_cwnd_limited = true;
        for _ in 0..20 {
            c.cong_avoid(&mut tp, 0, 1);
        }
        assert_eq!(tp.snd_cwnd, 21);
    }

    #[test]
    fn a_reduction_removes_an_eighth() {
        let mut c = control("{}").unwrap();
        let mut tp = TcpSock::new(1448, 800);
        assert_eq!(c.ssthresh(&tp), 700);
        tp.snd_cwnd = 2;
        assert_eq!(c.ssthresh(&tp), 2);
    }

    #[test]
    fn bad_parameters_are_named() {
        let e = control(r#"{"ai_cnt": 0}"#).err().unwrap();
        assert_eq!(e.param.as_deref(), Some("ai_cnt"));
        let e = control(r#"{"md_shift": 40}"#).err().unwrap();
        assert_eq!(e.param.as_deref(), Some("md_shift"));
        let e = control(r#"{"beta": 1}"#).err().unwrap();
        assert!(
            e.param.is_none() && e.why.contains("unknown field `beta`"),
            "{}",
            e.why
        );
        let e = control(r#"{"ai_cnt": "many"}"#).err().unwrap();
        assert!(e.why.contains("invalid type"), "{}", e.why);
    }
}
