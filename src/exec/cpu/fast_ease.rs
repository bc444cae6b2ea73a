//! The eases whose reference calls `sin`, `cos` or `powf` (Sine, Expo, Elastic), for the
//! segment cache's hot loop: the same formulas with polynomial `sin` (the slerp's,
//! [`sin_reduced`]) and `exp2` that compile to SIMD, where the libm calls run row by row
//! (they were a fifth of a mixed world's update).
//! Within 1e-6 of the reference in `[0, 1]` (a test checks), far inside the tolerance the
//! cache already keeps (`segment`), and exact at the ends, as every ease is: `E(0) = 0`,
//! `E(1) = 1`. Every other ease is the reference's own.

use std::f32::consts::PI;

use crate::core::ease::Ease;
use crate::eval::adapters::{sin_reduced as sin, ROUND_MAGIC};

/// Elastic angular constants (as `eval/easing.rs`).
const ELASTIC_C4: f32 = (2.0 * PI) / 3.0;
const ELASTIC_C5: f32 = (2.0 * PI) / 4.5;

/// Nearest integer for `|x| < 2²²` (ties to even), without SSE4.1.
#[inline(always)]
fn round(x: f32) -> f32 {
    (x + ROUND_MAGIC) - ROUND_MAGIC
}

#[inline(always)]
fn cos(y: f32) -> f32 {
    sin(y + PI / 2.0)
}

/// `2^y` for `y` in `[−126, 126]` (clamped): `2^round(y)` by its exponent bits times the
/// Taylor polynomial of `2^f` to degree 6 for `|f| ≤ 0.5` (relative error < 2e-7).
#[inline(always)]
fn exp2(y: f32) -> f32 {
    let y = y.clamp(-126.0, 126.0);
    let n = round(y);
    let f = y - n;
    let p = 0.009_618_129 + f * (0.001_333_355_8 + f * 0.000_154_035_3);
    let p = 1.0 + f * (std::f32::consts::LN_2 + f * (0.240_226_5 + f * (0.055_504_11 + f * p)));
    p * f32::from_bits(((n as i32 + 127) as u32) << 23)
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
    }
}
