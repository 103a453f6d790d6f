//! Empirical flow-size distributions, as the data-center literature ships
//! them: a list of (size, cumulative probability) points, sampled by
//! inverse transform with linear interpolation between points (the
//! convention of the pFabric and Homa simulators and of
//! `datacenter/empirical-traffic-gen`). `python/dumbbell/data/` ships the
//! DCTCP web-search and the VL2 data-mining distributions.

use crate::config::ConfigError;

#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    /// (size in bytes, P(size ≤ that)), both non-decreasing, last p = 1.
    points: Vec<(f64, f64)>,
}

impl EmpiricalCdf {
    /// Checks the points; errors name `field`.
    pub fn new(points: &[[f64; 2]], field: &str) -> Result<Self, ConfigError> {
        let bad = |i: usize, msg: &str| Err(ConfigError::new(format!("{field}.points[{i}]"), msg));
        if points.len() < 2 {
            return Err(ConfigError::new(
                format!("{field}.points"),
                "a CDF needs at least two points",
            ));
        }
        for (i, &[x, p]) in points.iter().enumerate() {
            if !(x.is_finite() && x >= 0.0) {
                return bad(i, "sizes must be finite and non-negative");
            }
            if !(0.0..=1.0).contains(&p) {
                return bad(i, "probabilities must be in [0, 1]");
            }
            if i > 0 && (x < points[i - 1][0] || p < points[i - 1][1]) {
                return bad(i, "sizes and probabilities must be non-decreasing");
            }
        }
        if points[points.len() - 1][1] != 1.0 {
            return bad(points.len() - 1, "the last probability must be 1");
        }
        if points[points.len() - 1][0] < 1.0 {
            return bad(
                points.len() - 1,
                "the largest size must be at least one byte",
            );
        }
        Ok(EmpiricalCdf {
            points: points.iter().map(|&[x, p]| (x, p)).collect(),
        })
    }

    /// The size at quantile `u` in [0, 1): the first segment whose
    /// probability exceeds `u`, interpolated; at least one byte.
    pub fn quantile(&self, u: f64) -> u64 {
        let pts = &self.points;
        let mut prev = (0.0, 0.0);
        let mut first = true;
        for &(x, p) in pts {
            if u < p {
                let x = if first || p == prev.1 {
                    x
                } else {
                    prev.0 + (x - prev.0) * (u - prev.1) / (p - prev.1)
                };
                return (x.round() as u64).max(1);
            }
            prev = (x, p);
            first = false;
        }
        (pts[pts.len() - 1].0.round() as u64).max(1)
    }

    /// The mean of the interpolated distribution, bytes.
    pub fn mean(&self) -> f64 {
        let pts = &self.points;
        let mut m = pts[0].0 * pts[0].1;
        for w in pts.windows(2) {
            let ((x0, p0), (x1, p1)) = (w[0], w[1]);
            m += (p1 - p0) * (x0 + x1) / 2.0;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng_for;

    #[test]
    fn quantiles_interpolate_between_points() {
        let c = EmpiricalCdf::new(&[[0.0, 0.0], [1000.0, 0.5], [3000.0, 1.0]], "cdf").unwrap();
        assert_eq!(c.quantile(0.0), 1, "at least one byte");
        assert_eq!(c.quantile(0.25), 500);
        assert_eq!(c.quantile(0.5), 1000);
        assert_eq!(c.quantile(0.75), 2000);
        assert_eq!(c.quantile(0.999_999), 3000);
        assert_eq!(c.mean(), 1250.0);
    }

    #[test]
    fn a_point_mass_at_the_start_is_honoured() {
        // pFabric style: P(size = 6 packets) = 0.15 before the ramp.
        let c =
            EmpiricalCdf::new(&[[8760.0, 0.15], [18980.0, 0.2], [29200.0, 1.0]], "cdf").unwrap();
        assert_eq!(c.quantile(0.1), 8760);
        let mut rng = rng_for(1, "cdf");
        let n = 100_000;
        let sum: f64 = (0..n).map(|_| c.quantile(rng.uniform()) as f64).sum();
        let err = (sum / n as f64 / c.mean() - 1.0).abs();
        assert!(err < 0.01, "sample mean off by {err}");
    }

    #[test]
    fn bad_points_name_the_field() {
        for (pts, field) in [
            (vec![[0.0, 0.0]], "w.points"),
            (vec![[0.0, 0.0], [10.0, 0.9]], "w.points[1]"),
            (vec![[5.0, 0.0], [1.0, 1.0]], "w.points[1]"),
            (vec![[0.0, 0.5], [1.0, 0.4], [2.0, 1.0]], "w.points[1]"),
            (vec![[-1.0, 0.0], [1.0, 1.0]], "w.points[0]"),
            (vec![[0.0, 0.0], [f64::NAN, 1.0]], "w.points[1]"),
        ] {
            assert_eq!(
                EmpiricalCdf::new(&pts, "w").unwrap_err().field,
                field,
                "{pts:?}"
            );
        }
    }
}
