//! When tasks start and what they transfer.
//!
//! Three arrival processes, all deterministic functions of the run seed and
//! the workload's name:
//! - all at once: every task at the start (the whole file base, in order, or
//!   `max_tasks` draws from a CDF) — the RAFLE paper's §5;
//! - closed loop: C tasks at the start, and a new one the instant one
//!   completes, so exactly C are active (§6: C = 300 and a random file from
//!   the base);
//! - Poisson: exponential gaps of mean 1/rate (the paper's future work on
//!   web-like workloads).
//!
//! Streams: `workload:<name>:sizes` (file or CDF draws),
//! `workload:<name>:arrivals` (Poisson gaps), `workload:<name>:hosts`
//! (client and server when there are several).

use super::cdf::EmpiricalCdf;
use crate::sim::{rng_for, Dur, Rng, Time};

#[derive(Clone, Debug)]
pub enum Sizes {
    Files(Vec<u64>),
    Cdf(EmpiricalCdf),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrivals {
    AllAtOnce,
    ClosedLoop { concurrency: u32 },
    Poisson { rate_per_s: f64 },
}

pub struct Workload {
    pub sizes: Sizes,
    pub arrivals: Arrivals,
    pub start: Time,
    pub stop: Option<Time>,
    pub max_tasks: Option<u64>,
    started: u64,
    active: u32,
    rng_sizes: Rng,
    rng_arrivals: Rng,
    pub rng_hosts: Rng,
}

impl Workload {
    pub fn new(
        name: &str,
        seed: u64,
        sizes: Sizes,
        arrivals: Arrivals,
        start: Time,
        stop: Option<Time>,
        max_tasks: Option<u64>,
    ) -> Self {
        Workload {
            sizes,
            arrivals,
            start,
            stop,
            max_tasks,
            started: 0,
            active: 0,
            rng_sizes: rng_for(seed, &format!("workload:{name}:sizes")),
            rng_arrivals: rng_for(seed, &format!("workload:{name}:arrivals")),
            rng_hosts: rng_for(seed, &format!("workload:{name}:hosts")),
        }
    }

    /// Tasks to start at `start` (before `max_tasks`): the file base or C;
    /// none for Poisson, whose first task comes after a gap.
    pub fn initial_tasks(&self) -> u64 {
        match (self.arrivals, &self.sizes) {
            (Arrivals::AllAtOnce, Sizes::Files(f)) => f.len() as u64,
            (Arrivals::AllAtOnce, Sizes::Cdf(_)) => self.max_tasks.unwrap_or(0),
            (Arrivals::ClosedLoop { concurrency }, _) => concurrency as u64,
            (Arrivals::Poisson { .. }, _) => 0,
        }
    }

    /// Whether another task may start at `now`.
    pub fn may_start(&self, now: Time) -> bool {
        self.max_tasks.map_or(true, |m| self.started < m) && self.stop.map_or(true, |s| now < s)
    }

    /// Records a start and returns the task's (file index, size in bytes).
    pub fn start_one(&mut self) -> (Option<u32>, u64) {
        let k = self.started;
        self.started += 1;
        self.active += 1;
        match &self.sizes {
            Sizes::Files(f) if self.arrivals == Arrivals::AllAtOnce => {
                let i = (k % f.len() as u64) as usize;
                (Some(i as u32), f[i])
            }
            Sizes::Files(f) => {
                let i = self.rng_sizes.below(f.len() as u64) as usize;
                (Some(i as u32), f[i])
            }
            Sizes::Cdf(c) => (None, c.quantile(self.rng_sizes.uniform())),
        }
    }

    /// Records a completion; true if the closed loop wants a replacement.
    pub fn complete_one(&mut self) -> bool {
        self.active -= 1;
        matches!(self.arrivals, Arrivals::ClosedLoop { .. })
    }

    /// Tasks started and not completed.
    pub fn active(&self) -> u32 {
        self.active
    }

    pub fn started(&self) -> u64 {
        self.started
    }

    /// The next Poisson gap.
    pub fn next_gap(&mut self) -> Dur {
        match self.arrivals {
            Arrivals::Poisson { rate_per_s } => {
                Dur::from_secs_f64(self.rng_arrivals.exponential(1.0 / rate_per_s))
            }
            _ => Dur::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workload of [`files`] from time zero, seed 1, with no stop and no
    /// cap on its tasks.
    fn open_ended(name: &str, arrivals: Arrivals) -> Workload {
        Workload::new(name, 1, files(), arrivals, Time::ZERO, None, None)
    }

    fn files() -> Sizes {
        Sizes::Files(vec![10, 20, 30, 40])
    }

    #[test]
    fn all_at_once_walks_the_file_base_in_order() {
        let mut w = open_ended("w", Arrivals::AllAtOnce);
        assert_eq!(w.initial_tasks(), 4);
        let got: Vec<_> = (0..4).map(|_| w.start_one()).collect();
        assert_eq!(
            got,
            vec![(Some(0), 10), (Some(1), 20), (Some(2), 30), (Some(3), 40)]
        );
        assert_eq!(w.active(), 4);
        assert!(!w.complete_one(), "no replacement outside the closed loop");
    }

    #[test]
    fn closed_loop_draws_files_uniformly_and_asks_for_replacements() {
        let mut w = open_ended("w", Arrivals::ClosedLoop { concurrency: 3 });
        assert_eq!(w.initial_tasks(), 3);
        let mut counts = [0u32; 4];
        for _ in 0..40_000 {
            let (i, s) = w.start_one();
            let i = i.unwrap() as usize;
            assert_eq!(s, [10, 20, 30, 40][i]);
            counts[i] += 1;
            assert!(w.complete_one());
        }
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(w.active(), 0);
    }

    #[test]
    fn max_tasks_and_stop_end_the_starts() {
        let mut w = Workload::new(
            "w",
            1,
            files(),
            Arrivals::ClosedLoop { concurrency: 3 },
            Time::ZERO,
            Some(Time::from_ps(100)),
            Some(2),
        );
        assert!(w.may_start(Time::ZERO));
        w.start_one();
        w.start_one();
        assert!(!w.may_start(Time::ZERO), "max_tasks reached");
        let w2 = Workload::new(
            "w",
            1,
            files(),
            Arrivals::AllAtOnce,
            Time::ZERO,
            Some(Time::from_ps(100)),
            None,
        );
        assert!(w2.may_start(Time::from_ps(99)) && !w2.may_start(Time::from_ps(100)));
    }

    #[test]
    fn poisson_gaps_have_the_configured_mean_and_depend_on_the_name() {
        let mut w = open_ended("web", Arrivals::Poisson { rate_per_s: 50.0 });
        assert_eq!(w.initial_tasks(), 0);
        let n = 50_000;
        let mean = (0..n).map(|_| w.next_gap().secs_f64()).sum::<f64>() / n as f64;
        assert!((mean / 0.02 - 1.0).abs() < 0.02, "mean gap {mean}");
        let mut a = open_ended("web", Arrivals::Poisson { rate_per_s: 50.0 });
        let mut b = open_ended("other", Arrivals::Poisson { rate_per_s: 50.0 });
        assert_ne!(a.next_gap(), b.next_gap());
    }
}
