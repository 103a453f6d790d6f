//! Round-trip time estimation and the retransmission timer (RFC 6298).
//!
//! - §2.2: the first sample R sets SRTT = R, RTTVAR = R/2;
//! - §2.3: later samples: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT − R|, then
//!   SRTT = 7/8 SRTT + 1/8 R;
//! - RTO = SRTT + max(G, 4 RTTVAR), clamped to [min_rto, max_rto]; the clock
//!   granularity G is one picosecond here;
//! - §2.4: min_rto is 200 ms as in Linux (the RFC's 1 s is configurable);
//! - §5.5: on expiry the RTO doubles (back-off), up to max_rto;
//! - Karn's rule (§3): samples come only from segments never retransmitted,
//!   which the sender guarantees; a new sample after a back-off recomputes
//!   RTO from SRTT and RTTVAR, which resets the back-off (§5.7).

use crate::sim::Dur;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Dur>,
    rttvar: Dur,
    min_rtt: Dur,
    latest: Dur,
    rto: Dur,
    backoff: u32,
    min_rto: Dur,
    max_rto: Dur,
    /// Measurements fed so far (`record.rtt_samples` reads it).
    samples: u64,
}

impl RttEstimator {
    pub fn new(init_rto: Dur, min_rto: Dur, max_rto: Dur) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Dur::ZERO,
            min_rtt: Dur::MAX,
            latest: Dur::ZERO,
            rto: init_rto.min(max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            samples: 0,
        }
    }

    /// Feeds one RTT measurement (Karn-clean).
    pub fn sample(&mut self, r: Dur) {
        self.latest = r;
        self.samples += 1;
        self.min_rtt = self.min_rtt.min(r);
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r.div(2);
            }
            Some(s) => {
                let diff = if s > r { s - r } else { r - s };
                // RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|; SRTT = 7/8 SRTT + 1/8 R.
                self.rttvar = Dur::from_ps((3 * self.rttvar.ps() + diff.ps()) / 4);
                self.srtt = Some(Dur::from_ps((7 * s.ps() + r.ps()) / 8));
            }
        }
        self.backoff = 0;
        self.rto = self.base_rto();
    }

    fn base_rto(&self) -> Dur {
        let Some(s) = self.srtt else { return self.rto };
        let k = self.rttvar.mul(4).max(Dur::from_ps(1));
        (s + k).max(self.min_rto).min(self.max_rto)
    }

    /// Sets the RTO to `rto` with no back-off, keeping no sample: RFC 6298
    /// §5.7's 3 s after a SYN timeout left no RTT sample.
    pub fn fall_back(&mut self, rto: Dur) {
        self.backoff = 0;
        self.rto = rto.min(self.max_rto);
    }

    pub fn min_rto(&self) -> Dur {
        self.min_rto
    }

    /// Doubles the RTO after an expiry (§5.5).
    pub fn back_off(&mut self) {
        self.backoff += 1;
        self.rto = self.rto.mul(2).min(self.max_rto);
    }

    pub fn rto(&self) -> Dur {
        self.rto
    }
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
    pub fn srtt(&self) -> Option<Dur> {
        self.srtt
    }
    pub fn rttvar(&self) -> Dur {
        self.rttvar
    }
    pub fn min_rtt(&self) -> Dur {
        self.min_rtt
    }
    pub fn latest(&self) -> Dur {
        self.latest
    }
    /// Measurements fed so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(Dur::from_secs(1), Dur::from_ms(200), Dur::from_secs(120))
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        assert_eq!(
            e.rto(),
            Dur::from_secs(1),
            "initial RTO is 1 s (RFC 6298 §2.1)"
        );
        e.sample(Dur::from_ms(100));
        assert_eq!(e.srtt(), Some(Dur::from_ms(100)));
        assert_eq!(e.rttvar(), Dur::from_ms(50));
        // 100 + 4*50 = 300 ms.
        assert_eq!(e.rto(), Dur::from_ms(300));
    }

    #[test]
    fn later_samples_use_the_rfc_gains() {
        let mut e = est();
        e.sample(Dur::from_ms(100));
        e.sample(Dur::from_ms(180));
        // RTTVAR = 3/4*50 + 1/4*80 = 57.5; SRTT = 7/8*100 + 1/8*180 = 110.
        assert_eq!(e.rttvar(), Dur::from_us(57_500));
        assert_eq!(e.srtt(), Some(Dur::from_ms(110)));
        assert_eq!(e.rto(), Dur::from_ms(110 + 230));
    }

    #[test]
    fn rto_is_clamped_to_the_minimum() {
        let mut e = est();
        for _ in 0..50 {
            e.sample(Dur::from_us(300));
        }
        assert_eq!(e.rto(), Dur::from_ms(200));
    }

    #[test]
    fn backoff_doubles_up_to_max_and_a_new_sample_resets_it() {
        let mut e = est();
        e.sample(Dur::from_ms(100)); // RTO 300 ms
        e.back_off();
        assert_eq!(e.rto(), Dur::from_ms(600));
        e.back_off();
        assert_eq!(e.rto(), Dur::from_ms(1200));
        assert_eq!(e.backoff(), 2);
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), Dur::from_secs(120), "capped at max_rto");
        e.sample(Dur::from_ms(100));
        assert_eq!(e.backoff(), 0);
        assert!(
            e.rto() < Dur::from_secs(1),
            "back-off forgotten after a valid sample: {:?}",
            e.rto()
        );
    }
}
