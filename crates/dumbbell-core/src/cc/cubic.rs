//! Cubic — placeholder being written (see the helper's brief); behaves as Reno.
use super::{tcp_reno_cong_avoid, tcp_reno_ssthresh, CongestionControl, TcpSock};
use crate::config::CubicParams;

pub struct Cubic {
    _p: CubicParams,
}
impl Cubic {
    pub fn new(p: CubicParams) -> Self {
        Cubic { _p: p }
    }
}
impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }
    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        tcp_reno_ssthresh(tp)
    }
    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, acked: u32) {
        tcp_reno_cong_avoid(tp, acked)
    }
}
