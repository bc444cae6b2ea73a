//! The eases whose reference calls `sin`, `cos` or `powf` (Sine, Expo, Elastic), for the
//! segment cache's hot loop: the same formulas with polynomial `sin` (the slerp's,
//! [`sin_reduced`]) and `exp2` that compile to SIMD, where the libm calls run row by row
//! (they were a fifth of a mixed world's update).
//! Within 1e-6 of the reference in `[0, 1]` (a test checks), far inside the tolerance the
//! cache already keeps (`segment`), and exact at the ends, as every ease is: `E(0) = 0`,
//! `E(1) = 1`. Every other ease is the reference's own.

use std::f32::consts::PI;

use crate::core::ease::{Ease, ID_ELASTIC, ID_STEPS};
use crate::eval::adapters::{sin_reduced as sin, ROUND_MAGIC};
use crate::eval::easing;

/// Elastic angular constants (as `eval/easing.rs`).
const ELASTIC_C4: f32 = (2.0 * PI) / 3.0;
const ELASTIC_C5: f32 = (2.0 * PI) / 4.5;

#[inline(always)]
fn cos(y: f32) -> f32 {
    sin(y + PI / 2.0)
}

/// `2^y` for `y` in `[−126, 126]` (clamped): `2^round(y)` by its exponent bits times the
/// Taylor polynomial of `2^f` to degree 6 for `|f| ≤ 0.5` (relative error < 2e-7).
#[inline(always)]
fn exp2(y: f32) -> f32 {
    let y = y.clamp(-126.0, 126.0);
    // `y + ROUND_MAGIC` holds `n = round(y)` in its low mantissa bits (two's complement
    // over `ROUND_MAGIC`'s bits, which the shift below pushes out): the exponent bits of
    // `2^n` without a float-to-int conversion, whose saturating `as i32` kept this loop
    // scalar (a fifth of a mixed world's update with Expo and Elastic rows).
    let shifted = y + ROUND_MAGIC;
    let n = shifted - ROUND_MAGIC;
    let f = y - n;
    let p = 0.009_618_129 + f * (0.001_333_355_8 + f * 0.000_154_035_3);
    let p = 1.0 + f * (std::f32::consts::LN_2 + f * (0.240_226_5 + f * (0.055_504_11 + f * p)));
    p * f32::from_bits(shifted.to_bits().wrapping_add(127) << 23)
}

/// `ease` at `x`: see the module doc. `ease` is a constant where this is inlined, so the
/// match folds away.
#[inline(always)]
pub(super) fn evaluate(ease: Ease, x: f32) -> f32 {
    let e = match ease {
        Ease::InSine => 1.0 - cos((x * PI) / 2.0),
        Ease::OutSine => sin((x * PI) / 2.0),
        Ease::InOutSine => -(cos(PI * x) - 1.0) / 2.0,
        Ease::InExpo => exp2(10.0 * x - 10.0),
        Ease::OutExpo => 1.0 - exp2(-10.0 * x),
        Ease::InOutExpo => {
            if x < 0.5 {
                exp2(20.0 * x - 10.0) / 2.0
            } else {
                (2.0 - exp2(-20.0 * x + 10.0)) / 2.0
            }
        }
        Ease::InElastic => -exp2(10.0 * x - 10.0) * sin((x * 10.0 - 10.75) * ELASTIC_C4),
        Ease::OutElastic => exp2(-10.0 * x) * sin((x * 10.0 - 0.75) * ELASTIC_C4) + 1.0,
        Ease::InOutElastic => {
            let s = sin((20.0 * x - 11.125) * ELASTIC_C5);
            if x < 0.5 {
                -(exp2(20.0 * x - 10.0) * s) / 2.0
            } else {
                (exp2(-20.0 * x + 10.0) * s) / 2.0 + 1.0
            }
        }
        _ => return ease.evaluate(x),
    };
    if x == 0.0 {
        0.0
    } else if x == 1.0 {
        1.0
    } else {
        e
    }
}

/// Parametric ease `id` (Back, Elastic or cubic-bezier; see [`crate::eval::easing::parametric`])
/// with parameter lanes `p` at `x`: Elastic with the polynomial `exp2` and `sin` above (within
/// `1e-6·a` of the reference), the others the reference's own. `id` is a constant where this
/// is inlined.
#[inline(always)]
pub(super) fn parametric(id: u32, p: [f32; 4], x: f32) -> f32 {
    if !(ID_ELASTIC..ID_STEPS).contains(&id) {
        return easing::parametric(id, p, x);
    }
    // The reference's In/Out/InOut folding around the polynomial Elastic In curve.
    let (a, k, s) = (p[0], p[1], p[2]);
    easing::in_out(id - ID_ELASTIC, x, |u| {
        -a * exp2(10.0 * u - 10.0) * sin((u - 1.0 - s) * k)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ease within 1e-6 of the reference
    /// over `[0, 1]`, and exact at the ends.
    #[test]
    fn fast_eases_follow_the_reference() {
        for ease in Ease::ALL {
            assert_eq!(evaluate(ease, 0.0), 0.0, "{ease:?}");
            assert_eq!(evaluate(ease, 1.0), 1.0, "{ease:?}");
            for i in 0..=100_000 {
                let x = i as f32 / 100_000.0;
                let (got, want) = (evaluate(ease, x), ease.evaluate(x));
                assert!(
                    (got - want).abs() <= 1e-6,
                    "{ease:?} at {x}: {got} vs {want}"
                );
            }
        }
        for y in [-20.0f32, -3.0, -1.0, 0.0, 0.5, 2.0, 7.0, 20.0] {
            assert!((sin(y) - y.sin()).abs() < 2e-7, "sin {y}");
            assert!((exp2(y) / y.exp2() - 1.0).abs() < 3e-7, "exp2 {y}");
        }
        // Parametric Elastic (amplitude, period, each mode) within 1e-6·a, Back and Bézier
        // the reference's own.
        use crate::core::ease::{EaseMode, ParametricEase};
        for mode in [EaseMode::In, EaseMode::Out, EaseMode::InOut] {
            for (amplitude, period) in [(1.0f32, 0.3f32), (2.5, 0.45), (1.0, 0.1), (4.0, 1.0)] {
                let ease = ParametricEase::Elastic {
                    mode,
                    amplitude,
                    period,
                };
                let (id, p) = ease.encode().expect("valid parameters");
                for i in 0..=10_000 {
                    let x = i as f32 / 10_000.0;
                    let (got, want) = (parametric(id, p, x), easing::parametric(id, p, x));
                    assert!(
                        (got - want).abs() <= 1e-6 * amplitude,
                        "{ease:?} at {x}: {got} vs {want}"
                    );
                }
            }
        }
        // The exponent bits from the rounding's mantissa: every power of two exact.
        for k in -126..=126 {
            assert_eq!(exp2(k as f32), 2.0f32.powi(k), "exp2 {k}");
        }
    }
}
