//! The adapters: how a row turns eased progress into lane values (lerp, slerp and nlerp,
//! punch and shake, the integer split), the CPU mirror of the adapter functions in
//! `shaders/evaluate.wgsl`, operation for operation.

use crate::core::value::{Interpolation, Lanes};

/// Lerps `lanes` lanes of `(from, to)` pairs at progress `p` (the CPU mirror of the
/// evaluate pass's lerp adapter).
#[inline]
#[must_use]
pub(crate) fn lerp_lanes(pairs: [[f32; 2]; 4], lanes: usize, p: f32) -> Lanes {
    let mut out = [0.0; 4];
    for (o, [from, to]) in out.iter_mut().zip(pairs).take(lanes) {
        *o = lerp(from, to, p);
    }
    out
}

/// Evaluates the adapter of `row` for its lane pairs `pairs` at eased progress `p`, with
/// `w` the world time of the row's time kind (shake noise): the CPU mirror of the evaluate
/// pass's adapters, operation for operation.
#[inline]
#[must_use]
pub(crate) fn row_value(
    row: &crate::core::row::MotionRow,
    pairs: [[f32; 2]; 4],
    p: f32,
    w: f64,
) -> Lanes {
    let lanes = row.lane_count();
    match Interpolation::from_bits(row.adapter_bits()) {
        Interpolation::Lerp => lerp_lanes(pairs, lanes, p),
        Interpolation::Slerp => quat_interpolate(pairs, p, true, f32::from_bits(row.params)),
        Interpolation::Nlerp => quat_interpolate(pairs, p, false, 0.0),
        Interpolation::Punch => vibrate(pairs, lanes, p, None),
        Interpolation::Shake => vibrate(pairs, lanes, p, Some((row.params, noise_clock(row, w)))),
    }
}

/// The clock bits that key the shake noise: the motion clock formed in f32 as
/// `(W_hi − base_hi) · speed` (`base_hi` at speed 0), where `W_hi` is the world time rounded
/// to f32, exactly the high part the GPU receives. Two correctly rounded f32 operations, so
/// both executors get the same bits (a coarser clock than the f64 one, ample for noise).
#[inline]
#[must_use]
pub(crate) fn noise_clock(row: &crate::core::row::MotionRow, w: f64) -> u32 {
    let t = if row.speed == 0.0 {
        row.base_hi
    } else {
        (w as f32 - row.base_hi) * row.speed
    };
    t.to_bits()
}

/// PCG's output permutation of one LCG step: a bijection on u32 with good avalanche.
#[inline]
#[must_use]
pub(crate) fn pcg(v: u32) -> u32 {
    let state = v.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
    (word >> 22) ^ word
}

/// The shake noise of `lane` for `seed` at clock bits `clock`: `n ∈ [−1, 1)` from 24 hash
/// bits. Only u32 operations and exact float conversions, so the GPU computes the same bits.
#[inline]
#[must_use]
pub fn shake_noise(seed: u32, clock: u32, lane: u32) -> f32 {
    let h = pcg(pcg(seed ^ pcg(clock)) ^ lane);
    (h >> 8) as f32 * (1.0 / 8_388_608.0) - 1.0
}

/// Punch (`noise` None) or shake (`noise` = (seed, clock bits)) of `lanes` lanes of
/// `(from, strength)` pairs, with `(f, k)` in pair 3. Mirrors `vibrate` in evaluate.wgsl.
#[inline]
#[must_use]
fn vibrate(pairs: [[f32; 2]; 4], lanes: usize, p: f32, noise: Option<(u32, u32)>) -> Lanes {
    let [f, k] = pairs[3];
    let scale = if p == 0.0 || p == 1.0 {
        0.0
    } else {
        (-k * p).exp() * (std::f32::consts::PI * f * p).sin()
    };
    let mut out = [0.0; 4];
    for (lane, (o, [from, strength])) in out.iter_mut().zip(pairs).take(lanes).enumerate() {
        let mut v = strength * scale;
        if let Some((seed, clock)) = noise {
            v *= shake_noise(seed, clock, lane as u32);
        }
        *o = from + v;
    }
    out
}

/// Slerp (or nlerp) of the unit quaternions in `pairs` (the builder has already turned
/// `to` onto the shortest arc, so their dot is ≥ 0, and stored the angle `theta` between
/// them), normalized. Slerp takes the weights `sin((1 − p)·θ)·s` and `sin(p·θ)·s` with
/// `s = 1/sin θ` ([`quat_inv_sin`], which the CPU executor keeps per row), or the lerp
/// weights for angles up to [`QUAT_MIN_ANGLE`] (the two rotations are then equal to f32
/// precision); its result is then of unit length up to rounding (|r|² = 1 + ε, ε of a few
/// ulps), so one Newton step from 1, `1.5 − ½·|r|²`, normalizes it to within about ε²
/// instead of a square root and a division. Nlerp (LitMotion's `LerpUnclamped`, |r| down
/// to cos(θ/2)) is normalized in full.
///
/// Kept operation for operation equal to `quat_interpolate` in `shaders/evaluate.wgsl`, but
/// for `sin` (see [`sin_fast`]) and slerp's normalization, which the GPU does in full (its
/// `sin` may be less precise). The CPU executor evaluates quaternion rows eight at a time with
/// the same operations (`quat_block` and `QuatGroup` in `cpu/lanes.rs`, `cpu/lanes_avx2.rs`):
/// keep in sync.
#[must_use]
pub(crate) fn quat_interpolate(pairs: [[f32; 2]; 4], p: f32, slerp: bool, theta: f32) -> Lanes {
    let a = [pairs[0][0], pairs[1][0], pairs[2][0], pairs[3][0]];
    let b = [pairs[0][1], pairs[1][1], pairs[2][1], pairs[3][1]];
    let (mut wa, mut wb) = (1.0 - p, p);
    if slerp && theta > QUAT_MIN_ANGLE {
        let s = quat_inv_sin(theta);
        (wa, wb) = (sin_fast((1.0 - p) * theta) * s, sin_fast(p * theta) * s);
    }
    let mut r = [0.0f32; 4];
    for k in 0..4 {
        r[k] = a[k] * wa + b[k] * wb;
    }
    let len2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
    let inv = if slerp {
        1.5 - 0.5 * len2
    } else if len2 > 0.0 {
        1.0 / len2.sqrt()
    } else {
        0.0
    };
    r.map(|x| x * inv)
}

/// `1/sin θ` for a slerp angle `θ` (in `(QUAT_MIN_ANGLE, π/2]`), as [`quat_interpolate`]
/// forms it.
#[inline]
#[must_use]
pub(crate) fn quat_inv_sin(theta: f32) -> f32 {
    1.0 / sin_fast(theta)
}

/// The largest slerp angle for which [`quat_interpolate`] takes the lerp weights (the two
/// rotations are then equal to f32 precision, and `1/sin θ` would overflow at `θ = 0`).
pub(crate) const QUAT_MIN_ANGLE: f32 = 1e-6;

/// The range of [`sin_poly`]: `|x| ≤ π/2` (the tests' bound; [`sin_reduced`] extends it).
#[cfg(test)]
pub(crate) const SIN_POLY_MAX: f32 = std::f32::consts::FRAC_PI_2;

/// The largest `|x|` for which [`sin_fast`] uses its polynomial ([`sin_reduced`]): its
/// reduction's rounding (`k·PI_LO`) grows with the multiple `k` of π, to 2e-7 here.
pub(crate) const SIN_REDUCED_MAX: f32 = 4096.0;

/// `sin(x)`: a degree-11 Taylor polynomial on `[−π/2, π/2]` (error below 6e-8, about an
/// f32 ulp; every slerp angle of `p ∈ [0, 1]` lies there) and, by [`sin_reduced`], beyond
/// it up to [`SIN_REDUCED_MAX`] (the angles of eases that overshoot and of Incremental
/// loops); `f32::sin` further out. A few times faster than libm's `sinf` on the CPU
/// executor's slerp path, which runs it in SIMD; the GPU uses its `sin`.
#[inline]
#[must_use]
pub(crate) fn sin_fast(x: f32) -> f32 {
    if x.abs() <= SIN_REDUCED_MAX {
        sin_reduced(x)
    } else {
        x.sin()
    }
}

/// `π` in two parts for [`sin_reduced`]: `k·PI_HI` is exact for `|k| < 2¹⁶`.
pub(crate) const PI_HI: f32 = 3.140_625; // 201/64
/// `π − PI_HI`.
pub(crate) const PI_LO: f32 = 9.676_536e-4;
/// `1.5·2²³`: `y + ROUND_MAGIC` rounds `y` to an integer (ties to even, `|y| < 2²²`), held
/// in its last bits (its ulp is 1).
pub(crate) const ROUND_MAGIC: f32 = 12_582_912.0;

/// `sin(x)` for `|x|` up to [`SIN_REDUCED_MAX`] (within 3e-7 of `f32::sin`; a test checks):
/// reduced by the nearest multiple `k` of π in two parts, then [`sin_poly`], its sign
/// flipped for odd `k` (the last bit of `x/π + ROUND_MAGIC`, an even number). Branch-free,
/// so it runs in SIMD (keep in sync with `cpu/lanes_avx2.rs`); for `|x| ≤ π/2`, `k` is 0
/// and this is `sin_poly(x)` bit for bit.
#[inline(always)]
#[must_use]
pub(crate) fn sin_reduced(x: f32) -> f32 {
    let shifted = x * std::f32::consts::FRAC_1_PI + ROUND_MAGIC;
    let k = shifted - ROUND_MAGIC;
    let r = (x - k * PI_HI) - k * PI_LO;
    f32::from_bits(sin_poly(r).to_bits() ^ (shifted.to_bits() << 31))
}

/// [`sin_poly`]'s coefficients of `x³`, `x⁵`, …, `x¹¹` (Taylor's, rounded to f32).
pub(crate) const SIN_POLY: [f32; 5] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
];

/// [`sin_fast`]'s polynomial alone (only meant for `|x| ≤ SIN_POLY_MAX`): branch-free, so
/// the batched slerp (`cpu::lanes`) runs it in SIMD with the same operations (Horner's
/// scheme, innermost first: keep in sync with `cpu/lanes_avx2.rs`).
#[inline(always)]
#[must_use]
pub(crate) fn sin_poly(x: f32) -> f32 {
    let [c3, c5, c7, c9, c11] = SIN_POLY;
    let x2 = x * x;
    x * (1.0 + x2 * (c3 + x2 * (c5 + x2 * (c7 + x2 * (c9 + x2 * c11)))))
}

/// The angle `theta` between unit quaternions `a` and `b` (dot ≥ 0), as a slerp row stores
/// it: `2·atan2(|a − b|, |a + b|)`, accurate for small and large angles alike.
#[must_use]
pub(crate) fn quat_angle(a: Lanes, b: Lanes) -> f32 {
    let (mut diff, mut sum) = (0.0f64, 0.0f64);
    for k in 0..4 {
        let (x, y) = (f64::from(a[k]), f64::from(b[k]));
        diff += (x - y) * (x - y);
        sum += (x + y) * (x + y);
    }
    (2.0 * diff.sqrt().atan2(sum.sqrt())) as f32
}

/// `from + (to − from) · p`, unclamped.
#[inline(always)]
#[must_use]
pub(crate) fn lerp(from: f32, to: f32, p: f32) -> f32 {
    from + (to - from) * p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`sin_reduced`] is `sin_poly` bit for bit on `[−π/2, π/2]` and within 3e-7 of
    /// `f32::sin` up to [`SIN_REDUCED_MAX`].
    #[test]
    fn sin_reduced_is_sin_poly_extended() {
        let half_pi = SIN_POLY_MAX;
        let steps = (-99_999..=99_999).map(|i| i as f32 * (half_pi / 100_000.0));
        for x in steps.chain([half_pi, -half_pi, 0.0, -0.0]) {
            assert_eq!(sin_reduced(x).to_bits(), sin_poly(x).to_bits(), "{x}");
        }
        let steps = (0..=800_000).map(|i| i as f32 * 0.010_24 - SIN_REDUCED_MAX);
        for x in steps.chain([SIN_REDUCED_MAX, 1000.0, -777.7, 3.0, -2.0]) {
            let (got, want) = (sin_reduced(x), x.sin());
            assert!((got - want).abs() <= 3e-7, "{x}: {got} vs {want}");
        }
    }
}
