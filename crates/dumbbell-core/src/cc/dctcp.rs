//! DCTCP — placeholder being written (see the helper's brief); behaves as Reno.
use super::{tcp_reno_cong_avoid, tcp_reno_ssthresh, CongestionControl, TcpSock};
use crate::config::DctcpParams;

pub struct Dctcp {
    _p: DctcpParams,
}
impl Dctcp {
    pub fn new(p: DctcpParams) -> Self {
        Dctcp { _p: p }
    }
}
impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }
    fn ssthresh(&mut self, tp: &TcpSock) -> u32 {
        tcp_reno_ssthresh(tp)
    }
    fn cong_avoid(&mut self, tp: &mut TcpSock, _ack: u64, acked: u32) {
        tcp_reno_cong_avoid(tp, acked)
    }
    fn needs_ecn(&self) -> bool {
        true
    }
}
