//! The cube root Cubic takes of `cube_factor · (W_max − cwnd)` to find K,
//! computed as Linux 6.12's `tcp_cubic.c` computes it, so that K (and with
//! it the target and `cnt` after every reduction) is the kernel's to the
//! last unit.
//!
//! Linux does not take an exact root. It reads the six leading bits of the
//! argument, takes a first estimate of their cube root from a 64-entry
//! table (scaled by 64), shifts it to the argument's magnitude, and makes
//! one Newton-Raphson step, `x ← (2x + a / (x·(x − 1))) / 3`, where the
//! division by 3 is a multiplication by 341/1024. The result is within a
//! fraction of a percent of the true root, on either side of it. The
//! exponent of the argument is found as `fls64(a)·84/256 − 1` (84/256 is
//! about 1/3), which leaves the leading value between 8 and 63.
//!
//! The estimates below are the kernel's table entries for leading values
//! 8 to 63, written as numbers: they were tuned by hand (they are not the
//! rounded roots `64·cbrt(s)`), and each one is the only value that
//! reproduces the kernel's result for every argument with that leading
//! value (checked over every leading value and magnitude), so no formula
//! can stand in for them. Arguments below 64, which Cubic never produces
//! (`cube_factor` is above 2³⁰), are answered from the same estimates
//! (rounded: the nearest integer root, but for 42, where it is 4).

/// First estimates of `64·cbrt(s)` − 10 for leading values `s` = 8..=63.
const FIRST_ESTIMATE: [u8; 56] = [
    123, 129, 134, 138, 143, 147, 151, 156, // 8..15
    157, 161, 164, 168, 170, 173, 176, 179, // 16..23
    181, 185, 187, 190, 192, 194, 197, 199, // 24..31
    200, 202, 204, 206, 209, 211, 213, 215, // 32..39
    217, 219, 221, 222, 224, 225, 227, 229, // 40..47
    231, 232, 234, 236, 237, 239, 240, 242, // 48..55
    244, 245, 246, 248, 250, 251, 252, 254, // 56..63
];

/// Cube root of `a` < 64, from the estimates (1 for 1..=3, 2 for 4..=7).
fn small_root(a: u64) -> u32 {
    match a {
        0 => 0,
        1..=3 => 1,
        4..=7 => 2,
        _ => (FIRST_ESTIMATE[a as usize - 8] as u32 + 35) >> 6,
    }
}

/// Cube root of `a`, as Linux's `cubic_root` computes it (u32 arithmetic
/// wraps where the kernel's does).
pub fn cubic_root(a: u64) -> u32 {
    let bits = 64 - a.leading_zeros();
    if bits < 7 {
        return small_root(a);
    }
    let b = ((bits * 84) >> 8) - 1;
    let lead = (a >> (b * 3)) as usize;
    let x = ((FIRST_ESTIMATE[lead - 8] as u32 + 10) << b) >> 6;
    let quotient = a / (x as u64 * (x as u64 - 1));
    let x = (2 * x).wrapping_add(quotient as u32);
    x.wrapping_mul(341) >> 10
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact floor of the cube root, for reference.
    fn exact(a: u64) -> u64 {
        let mut x = libm::cbrt(a as f64) as u64;
        while (x as u128 + 1).pow(3) <= a as u128 {
            x += 1;
        }
        while (x as u128).pow(3) > a as u128 {
            x -= 1;
        }
        x
    }

    #[test]
    fn small_arguments_get_a_near_integer_root() {
        for a in 0..64 {
            let (got, want) = (cubic_root(a) as f64, (a as f64).cbrt());
            assert!((got - want).abs() < 0.53, "a = {a}: {got} vs {want}");
        }
    }

    /// Within 0.5 % of the true root from 2²³ on (below, the integer
    /// estimate itself is coarse), at every leading value, and not always
    /// the floor: it is an approximation, on both sides.
    #[test]
    fn close_to_the_true_root_at_every_magnitude() {
        let (mut above, mut below) = (0, 0);
        for bits in 24..64u32 {
            for lead in 0..64u64 {
                let a = (1u64 << (bits - 1)) + (lead << (bits - 7)) + 12345 % (1u64 << (bits - 7));
                let (got, want) = (cubic_root(a) as f64, (a as f64).cbrt());
                assert!(
                    (got - want).abs() <= 0.005 * want,
                    "a = {a}: {got} vs {want}"
                );
                let floor = exact(a) as f64;
                if got > floor {
                    above += 1;
                } else if got < floor {
                    below += 1;
                }
            }
        }
        assert!(above > 0 && below > 0, "above {above}, below {below}");
    }

    /// K for the gaps Cubic meets (cube_factor = 2⁴⁰/410, 1 to 10⁶
    /// packets) stays within a few units of 2⁻¹⁰ s of the exact root.
    #[test]
    fn k_for_real_gaps_is_close() {
        let cube_factor = (1u64 << 40) / 410;
        for gap in (1..1_000_000u64).step_by(997) {
            let a = cube_factor * gap;
            let (got, want) = (cubic_root(a) as i64, exact(a) as i64);
            assert!(
                (got - want).abs() <= 1 + want / 200,
                "gap {gap}: {got} vs {want}"
            );
        }
    }
}
