//! Reno / NewReno window control (RFC 5681; Linux `tcp_reno_cong_avoid`,
//! `tcp_reno_ssthresh`). NewReno's partial-ACK handling (RFC 6582) is the
//! stack's, in `tcp::sender`.

use super::{tcp_reno_cong_avoid, tcp_reno_ssthresh, CongestionControl, Registration, TcpSock};
use crate::param::{self, Params};

#[derive(Clone, Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }
    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        tcp_reno_ssthresh(tp)
    }
    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, acked: u32) {
        tcp_reno_cong_avoid(tp, acked)
    }
}

/// `cc = "reno"`: no parameters.
pub const REGISTRATION: Registration = Registration {
    name: "reno",
    about: "Reno / NewReno (RFC 5681, RFC 6582; Linux tcp_reno_cong_avoid): halves on loss, one packet per RTT.",
    params: &[],
    defaults: Params::new,
    make: |params, _rng| {
        let _: NoParams = param::decode(params)?;
        Ok(Box::new(Reno))
    },
};

/// Reno takes no parameters: any name is unknown.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}
