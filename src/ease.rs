//! The 31 standard easing functions (SEMANTICS.md §3).
//!
//! Formulas follow easings.net, as LitMotion does. Every ease is evaluated in `f32`, the
//! precision the GPU executor has, so the CPU and GPU executors agree to the last few ulps.

use std::f32::consts::PI;
use std::fmt;
use std::str::FromStr;

/// Calls `$callback!` with every standard ease variant, in discriminant order: the one list
/// that the enum, [`Ease::ALL`], the names and the CPU executor's easing loops come from.
macro_rules! with_every_ease {
    ($callback:ident) => {
        $callback! {
            Linear,
            InSine,
            OutSine,
            InOutSine,
            InQuad,
            OutQuad,
            InOutQuad,
            InCubic,
            OutCubic,
            InOutCubic,
            InQuart,
            OutQuart,
            InOutQuart,
            InQuint,
            OutQuint,
            InOutQuint,
            InExpo,
            OutExpo,
            InOutExpo,
            InCirc,
            OutCirc,
            InOutCirc,
            InElastic,
            OutElastic,
            InOutElastic,
            InBack,
            OutBack,
            InOutBack,
            InBounce,
            OutBounce,
            InOutBounce
        }
    };
}
pub(crate) use with_every_ease;

macro_rules! define_ease {
    ($first:ident, $($name:ident),*) => {
        /// An easing function: maps linear progress `x` (normally in `[0, 1]`) to eased
        /// progress.
        ///
        /// The discriminants are stable and stored in the motion rows (and so in GPU buffers):
        /// never reorder them. Keep in sync with `shaders/easing.wgsl`.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        #[allow(missing_docs)] // the names are the documentation (easings.net)
        pub enum Ease {
            #[default]
            $first = 0,
            $($name),*
        }

        impl Ease {
            /// Every ease, in discriminant order.
            pub const ALL: [Ease; 31] = [Ease::$first, $(Ease::$name),*];
        }

        const NAMES: [&str; 31] = [stringify!($first), $(stringify!($name)),*];
    };
}
with_every_ease!(define_ease);

/// Back overshoot `c1`, and the derived constants of easings.net.
const BACK_C1: f32 = 1.701_58;
const BACK_C2: f32 = BACK_C1 * 1.525;
const BACK_C3: f32 = BACK_C1 + 1.0;
/// Elastic angular constants `c4 = 2π/3`, `c5 = 2π/4.5`.
const ELASTIC_C4: f32 = (2.0 * PI) / 3.0;
const ELASTIC_C5: f32 = (2.0 * PI) / 4.5;
/// Bounce constants.
const BOUNCE_N1: f32 = 7.5625;
const BOUNCE_D1: f32 = 2.75;

impl Ease {
    /// The variant's name, as written in LitMotion and in the conformance vectors.
    #[must_use]
    pub const fn name(self) -> &'static str {
        NAMES[self as usize]
    }

    /// The discriminant, as stored in a motion row.
    #[must_use]
    pub const fn to_bits(self) -> u32 {
        self as u32
    }

    /// The ease with discriminant `bits`, if there is one.
    #[must_use]
    pub const fn from_bits(bits: u32) -> Option<Ease> {
        if (bits as usize) < Self::ALL.len() {
            Some(Self::ALL[bits as usize])
        } else {
            None
        }
    }

    /// Eases `x`. Exact at the ends: `evaluate(0) == 0` and `evaluate(1) == 1` for every ease.
    #[must_use]
    #[inline(always)]
    pub fn evaluate(self, x: f32) -> f32 {
        match self {
            Ease::Linear => x,
            Ease::InSine => 1.0 - ((x * PI) / 2.0).cos(),
            Ease::OutSine => ((x * PI) / 2.0).sin(),
            Ease::InOutSine => -((PI * x).cos() - 1.0) / 2.0,
            Ease::InQuad => x * x,
            Ease::OutQuad => 1.0 - (1.0 - x) * (1.0 - x),
            Ease::InOutQuad => {
                if x < 0.5 {
                    2.0 * x * x
                } else {
                    1.0 - pow2(-2.0 * x + 2.0) / 2.0
                }
            }
            Ease::InCubic => x * x * x,
            Ease::OutCubic => 1.0 - pow3(1.0 - x),
            Ease::InOutCubic => {
                if x < 0.5 {
                    4.0 * x * x * x
                } else {
                    1.0 - pow3(-2.0 * x + 2.0) / 2.0
                }
            }
            Ease::InQuart => pow2(x * x),
            Ease::OutQuart => 1.0 - pow2(pow2(1.0 - x)),
            Ease::InOutQuart => {
                if x < 0.5 {
                    8.0 * pow2(x * x)
                } else {
                    1.0 - pow2(pow2(-2.0 * x + 2.0)) / 2.0
                }
            }
            Ease::InQuint => pow2(x * x) * x,
            Ease::OutQuint => 1.0 - pow5(1.0 - x),
            Ease::InOutQuint => {
                if x < 0.5 {
                    16.0 * pow5(x)
                } else {
                    1.0 - pow5(-2.0 * x + 2.0) / 2.0
                }
            }
            Ease::InExpo => {
                if x == 0.0 {
                    0.0
                } else {
                    (2.0f32).powf(10.0 * x - 10.0)
                }
            }
            Ease::OutExpo => {
                if x == 1.0 {
                    1.0
                } else {
                    1.0 - (2.0f32).powf(-10.0 * x)
                }
            }
            Ease::InOutExpo => {
                if x == 0.0 {
                    0.0
                } else if x == 1.0 {
                    1.0
                } else if x < 0.5 {
                    (2.0f32).powf(20.0 * x - 10.0) / 2.0
                } else {
                    (2.0 - (2.0f32).powf(-20.0 * x + 10.0)) / 2.0
                }
            }
            Ease::InCirc => 1.0 - sqrt_clamped(1.0 - x * x),
            Ease::OutCirc => sqrt_clamped(1.0 - pow2(x - 1.0)),
            Ease::InOutCirc => {
                if x < 0.5 {
                    (1.0 - sqrt_clamped(1.0 - pow2(2.0 * x))) / 2.0
                } else {
                    (sqrt_clamped(1.0 - pow2(-2.0 * x + 2.0)) + 1.0) / 2.0
                }
            }
            Ease::InElastic => {
                if x == 0.0 {
                    0.0
                } else if x == 1.0 {
                    1.0
                } else {
                    -(2.0f32).powf(10.0 * x - 10.0) * ((x * 10.0 - 10.75) * ELASTIC_C4).sin()
                }
            }
            Ease::OutElastic => {
                if x == 0.0 {
                    0.0
                } else if x == 1.0 {
                    1.0
                } else {
                    (2.0f32).powf(-10.0 * x) * ((x * 10.0 - 0.75) * ELASTIC_C4).sin() + 1.0
                }
            }
            Ease::InOutElastic => {
                if x == 0.0 {
                    0.0
                } else if x == 1.0 {
                    1.0
                } else if x < 0.5 {
                    -((2.0f32).powf(20.0 * x - 10.0) * ((20.0 * x - 11.125) * ELASTIC_C5).sin())
                        / 2.0
                } else {
                    ((2.0f32).powf(-20.0 * x + 10.0) * ((20.0 * x - 11.125) * ELASTIC_C5).sin())
                        / 2.0
                        + 1.0
                }
            }
            Ease::InBack => BACK_C3 * x * x * x - BACK_C1 * x * x,
            Ease::OutBack => 1.0 + BACK_C3 * pow3(x - 1.0) + BACK_C1 * pow2(x - 1.0),
            Ease::InOutBack => {
                if x < 0.5 {
                    (pow2(2.0 * x) * ((BACK_C2 + 1.0) * 2.0 * x - BACK_C2)) / 2.0
                } else {
                    (pow2(2.0 * x - 2.0) * ((BACK_C2 + 1.0) * (x * 2.0 - 2.0) + BACK_C2) + 2.0)
                        / 2.0
                }
            }
            Ease::InBounce => 1.0 - out_bounce(1.0 - x),
            Ease::OutBounce => out_bounce(x),
            Ease::InOutBounce => {
                if x < 0.5 {
                    (1.0 - out_bounce(1.0 - 2.0 * x)) / 2.0
                } else {
                    (1.0 + out_bounce(2.0 * x - 1.0)) / 2.0
                }
            }
        }
    }
}

impl fmt::Display for Ease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown ease name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown ease name {0:?}")]
pub struct UnknownEase(pub String);

impl FromStr for Ease {
    type Err = UnknownEase;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NAMES
            .iter()
            .position(|name| *name == s)
            .map(|i| Self::ALL[i])
            .ok_or_else(|| UnknownEase(s.to_owned()))
    }
}

#[inline]
fn pow2(x: f32) -> f32 {
    x * x
}

#[inline]
fn pow3(x: f32) -> f32 {
    x * x * x
}

#[inline]
fn pow5(x: f32) -> f32 {
    let x2 = x * x;
    x2 * x2 * x
}

/// `sqrt` of a value that is mathematically ≥ 0 on `[0, 1]`; progress outside that range (an
/// Incremental loop feeds `fmod(t, 1)`, a user may call `evaluate(1.5)`) must not give NaN.
#[inline]
fn sqrt_clamped(x: f32) -> f32 {
    x.max(0.0).sqrt()
}

#[inline]
fn out_bounce(mut x: f32) -> f32 {
    if x < 1.0 / BOUNCE_D1 {
        BOUNCE_N1 * x * x
    } else if x < 2.0 / BOUNCE_D1 {
        x -= 1.5 / BOUNCE_D1;
        BOUNCE_N1 * x * x + 0.75
    } else if x < 2.5 / BOUNCE_D1 {
        x -= 2.25 / BOUNCE_D1;
        BOUNCE_N1 * x * x + 0.9375
    } else {
        x -= 2.625 / BOUNCE_D1;
        BOUNCE_N1 * x * x + 0.984375
    }
}

/// Which half of a curve an ease plays: the In curve, its mirror (Out), or both (InOut).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EaseMode {
    /// The In curve: `In(x)`.
    #[default]
    In,
    /// `1 − In(1 − x)`.
    Out,
    /// `In(2x) / 2` below 0.5, `1 − In(2 − 2x) / 2` above.
    InOut,
}

/// Eases with parameters (LitMotion #212), set with
/// [`Motion::ease_with`](crate::Motion::ease_with). Every one is exactly 0 at 0 and 1 at 1.
/// The parameters live in the motion's 16-byte parameter lanes (mirrored to the GPU with
/// its other lanes), so they cost nothing to motions that do not use them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParametricEase {
    /// Back with overshoot `c` (the standard eases use 1.70158): `In(x) = (c + 1)x³ − c·x²`.
    /// InOut uses `c · 1.525`, as easings.net does, so `overshoot: 1.70158` reproduces
    /// [`Ease::InBack`], [`Ease::OutBack`] and [`Ease::InOutBack`].
    Back {
        /// In, Out or InOut.
        mode: EaseMode,
        /// The overshoot `c` (finite).
        overshoot: f32,
    },
    /// Elastic with amplitude `a` (values below 1 act as 1) and period `P` (> 0):
    /// `In(x) = −a·2^(10x − 10)·sin((x − 1 − s)·2π/P)` with `s = P/(2π)·asin(1/a)`. InOut
    /// uses the period `1.5·P`, as easings.net does, so `amplitude: 1, period: 0.3`
    /// reproduces the standard Elastic eases.
    Elastic {
        /// In, Out or InOut.
        mode: EaseMode,
        /// Amplitude `a` (finite; below 1 means 1).
        amplitude: f32,
        /// Period `P` in units of progress (finite, > 0).
        period: f32,
    },
    /// `n` equal steps, CSS `steps(n, jump-end)`: `floor(x·n) / n`, and 1 at `x ≥ 1`.
    /// `n ≥ 1`.
    Steps(u32),
    /// A CSS `cubic-bezier(x1, y1, x2, y2)`: the curve through (0, 0), (x1, y1), (x2, y2),
    /// (1, 1); `x(t) = x` is solved for `t` (bisection to a bracket, then Newton), and the
    /// ease is `y(t)`. `x1` and `x2` must lie in `[0, 1]`.
    CubicBezier(f32, f32, f32, f32),
}

/// The first ease id of the parametric eases in a row's ease bits (the standard ones use
/// 0..31): Back 32..35 (In, Out, InOut), Elastic 35..38, Steps 38, CubicBezier 39.
pub(crate) const PARAMETRIC_BASE: u32 = 32;
const ID_BACK: u32 = 32;
const ID_ELASTIC: u32 = 35;
const ID_STEPS: u32 = 38;
const ID_BEZIER: u32 = 39;

impl ParametricEase {
    /// The row's ease id and parameter lanes; `None` when the parameters are invalid.
    pub(crate) fn encode(self) -> Option<(u32, [f32; 4])> {
        let mode_of = |m: EaseMode| match m {
            EaseMode::In => 0,
            EaseMode::Out => 1,
            EaseMode::InOut => 2,
        };
        match self {
            ParametricEase::Back { mode, overshoot } => {
                if !overshoot.is_finite() {
                    return None;
                }
                let c = if mode == EaseMode::InOut {
                    overshoot * 1.525
                } else {
                    overshoot
                };
                Some((ID_BACK + mode_of(mode), [c, 0.0, 0.0, 0.0]))
            }
            ParametricEase::Elastic {
                mode,
                amplitude,
                period,
            } => {
                if !(amplitude.is_finite() && period.is_finite() && period > 0.0) {
                    return None;
                }
                let period = f64::from(period) * if mode == EaseMode::InOut { 1.5 } else { 1.0 };
                let a = f64::from(amplitude).max(1.0);
                let s = period / std::f64::consts::TAU * (1.0 / a).asin();
                let k = std::f64::consts::TAU / period;
                Some((
                    ID_ELASTIC + mode_of(mode),
                    [a as f32, k as f32, s as f32, 0.0],
                ))
            }
            ParametricEase::Steps(n) => (n >= 1).then_some((ID_STEPS, [n as f32, 0.0, 0.0, 0.0])),
            ParametricEase::CubicBezier(x1, y1, x2, y2) => {
                let ok = [x1, y1, x2, y2].iter().all(|v| v.is_finite())
                    && (0.0..=1.0).contains(&x1)
                    && (0.0..=1.0).contains(&x2);
                ok.then_some((ID_BEZIER, [x1, y1, x2, y2]))
            }
        }
    }

    /// Eases `x` (the same function the executors evaluate). Invalid parameters give `x`.
    #[must_use]
    pub fn evaluate(self, x: f32) -> f32 {
        match self.encode() {
            Some((id, params)) => parametric(id, params, x),
            None => x,
        }
    }
}

/// The parametric ease `id` (≥ [`PARAMETRIC_BASE`]) with parameter lanes `p` at `x`.
/// Mirrors `parametric_ease` in `shaders/easing.wgsl`, operation for operation.
#[inline]
#[must_use]
pub(crate) fn parametric(id: u32, p: [f32; 4], x: f32) -> f32 {
    if id == ID_STEPS {
        let n = p[0];
        return if x >= 1.0 {
            1.0
        } else {
            ((x * n).floor() / n).max(0.0)
        };
    }
    if id == ID_BEZIER {
        return cubic_bezier(p, x);
    }
    let (family_base, in_curve): (u32, InCurve) = if id < ID_ELASTIC {
        (ID_BACK, back_in)
    } else {
        (ID_ELASTIC, elastic_in)
    };
    let mode = id.wrapping_sub(family_base);
    let lower = x < 0.5;
    let u = match mode {
        0 => x,
        1 => 1.0 - x,
        _ => {
            if lower {
                2.0 * x
            } else {
                2.0 - 2.0 * x
            }
        }
    };
    let y = in_curve(p, u);
    let r = match mode {
        0 => y,
        1 => 1.0 - y,
        _ => {
            if lower {
                y / 2.0
            } else {
                1.0 - y / 2.0
            }
        }
    };
    if x == 0.0 {
        0.0
    } else if x == 1.0 {
        1.0
    } else {
        r
    }
}

/// The In curve of a parametric family.
type InCurve = fn([f32; 4], f32) -> f32;

#[inline]
fn back_in(p: [f32; 4], u: f32) -> f32 {
    let c = p[0];
    u * u * ((c + 1.0) * u - c)
}

#[inline]
fn elastic_in(p: [f32; 4], u: f32) -> f32 {
    let (a, k, s) = (p[0], p[1], p[2]);
    -a * (2.0f32).powf(10.0 * u - 10.0) * ((u - 1.0 - s) * k).sin()
}

/// One coordinate of the Bézier `(0, c1, c2, 1)` at `t`: the CSS cubic-bezier ease's and an
/// animation curve's weighted segments' (`bezier` in `shaders/easing.wgsl`).
#[inline]
pub(crate) fn bezier(c1: f32, c2: f32, t: f32) -> f32 {
    let s = 1.0 - t;
    3.0 * s * s * t * c1 + 3.0 * s * t * t * c2 + t * t * t
}

/// CSS `cubic-bezier`: solve `x(t) = x` on `[0, 1]` (x(t) is monotonic there since x1 and
/// x2 are in [0, 1]): 12 bisection steps to a bracket of 2^-12, then 3 Newton steps kept
/// inside the bracket. Fixed iteration counts, so the GPU mirror runs the same steps.
#[must_use]
fn cubic_bezier(p: [f32; 4], x: f32) -> f32 {
    let [x1, y1, x2, y2] = p;
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for _ in 0..12 {
        let mid = 0.5 * (lo + hi);
        if bezier(x1, x2, mid) < x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let mut t = 0.5 * (lo + hi);
    for _ in 0..3 {
        let s = 1.0 - t;
        let dx = 3.0 * s * s * x1 + 6.0 * s * t * (x2 - x1) + 3.0 * t * t * (1.0 - x2);
        let err = bezier(x1, x2, t) - x;
        if dx > 1e-6 {
            t = (t - err / dx).clamp(lo, hi);
        }
    }
    bezier(y1, y2, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_are_exact() {
        for ease in Ease::ALL {
            assert_eq!(ease.evaluate(0.0), 0.0, "{ease} at 0");
            assert!((ease.evaluate(1.0) - 1.0).abs() <= 1e-6, "{ease} at 1");
        }
    }

    #[test]
    fn names_round_trip() {
        for (i, ease) in Ease::ALL.into_iter().enumerate() {
            assert_eq!(ease as usize, i);
            assert_eq!(ease.name().parse::<Ease>(), Ok(ease));
            assert_eq!(Ease::from_bits(ease.to_bits()), Some(ease));
        }
        assert!("Wobble".parse::<Ease>().is_err());
        assert_eq!(Ease::from_bits(31), None);
    }

    #[test]
    fn worked_values_from_easings_net() {
        // Hand-computed midpoints: InQuad(0.5) = 0.25, OutCubic(0.5) = 0.875,
        // InBack(0.5) = c3/8 − c1/4, OutBounce(0.5) = 7.5625·(0.5 − 1.5/2.75)² + 0.75.
        assert_eq!(Ease::InQuad.evaluate(0.5), 0.25);
        assert_eq!(Ease::OutCubic.evaluate(0.5), 0.875);
        let in_back = 2.701_58 / 8.0 - 1.701_58 / 4.0;
        assert!((Ease::InBack.evaluate(0.5) - in_back).abs() < 1e-6);
        let d = 0.5 - 1.5 / 2.75;
        assert!((Ease::OutBounce.evaluate(0.5) - (7.5625 * d * d + 0.75)).abs() < 1e-6);
    }

    #[test]
    fn parametric_defaults_match_the_standard_eases() {
        let modes = [EaseMode::In, EaseMode::Out, EaseMode::InOut];
        let back = [Ease::InBack, Ease::OutBack, Ease::InOutBack];
        let elastic = [Ease::InElastic, Ease::OutElastic, Ease::InOutElastic];
        for i in 0..3 {
            for k in 0..=40 {
                let x = k as f32 / 40.0;
                let b = ParametricEase::Back {
                    mode: modes[i],
                    overshoot: 1.701_58,
                };
                assert!(
                    (b.evaluate(x) - back[i].evaluate(x)).abs() < 1e-5,
                    "{b:?} {x}"
                );
                let e = ParametricEase::Elastic {
                    mode: modes[i],
                    amplitude: 1.0,
                    period: 0.3,
                };
                assert!(
                    (e.evaluate(x) - elastic[i].evaluate(x)).abs() < 1e-4,
                    "{e:?} {x}"
                );
            }
        }
    }

    #[test]
    fn parametric_hand_computed_values() {
        // OutBack, c = 3: 1 + 4·(−0.5)³ + 3·(−0.5)² = 1 − 0.5 + 0.75.
        let back = ParametricEase::Back {
            mode: EaseMode::Out,
            overshoot: 3.0,
        };
        assert!((back.evaluate(0.5) - 1.25).abs() < 1e-6);
        // InElastic, a = 2, P = 0.5: s = 0.5/(2π)·asin(0.5) = 1/24;
        // at x = 0.75: −2·2^(−2.5)·sin((−0.25 − 1/24)·4π).
        let el = ParametricEase::Elastic {
            mode: EaseMode::In,
            amplitude: 2.0,
            period: 0.5,
        };
        let want =
            -2.0 * 2f64.powf(-2.5) * ((-0.25 - 1.0 / 24.0) * 4.0 * std::f64::consts::PI).sin();
        assert!((f64::from(el.evaluate(0.75)) - want).abs() < 1e-5);
        let steps = ParametricEase::Steps(4);
        for (x, y) in [
            (0.0, 0.0),
            (0.24, 0.0),
            (0.25, 0.25),
            (0.6, 0.5),
            (0.99, 0.75),
            (1.0, 1.0),
        ] {
            assert_eq!(steps.evaluate(x), y, "steps(4) at {x}");
        }
        // CSS `ease` = cubic-bezier(0.25, 0.1, 0.25, 1): at x = 0.5, y ≈ 0.8024033877399112
        // (the solution of x(t) = 0.5 is t ≈ 0.41199; computed in f64).
        let css = ParametricEase::CubicBezier(0.25, 0.1, 0.25, 1.0);
        assert!(
            (css.evaluate(0.5) - 0.802_403_4).abs() < 1e-4,
            "{}",
            css.evaluate(0.5)
        );
        // A linear Bézier is the identity.
        let lin = ParametricEase::CubicBezier(1.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0);
        for k in 0..=20 {
            let x = k as f32 / 20.0;
            assert!((lin.evaluate(x) - x).abs() < 1e-5, "{x}");
        }
        // Invalid parameters.
        assert!(ParametricEase::Steps(0).encode().is_none());
        assert!(ParametricEase::CubicBezier(1.5, 0.0, 0.5, 1.0)
            .encode()
            .is_none());
        assert!(ParametricEase::Elastic {
            mode: EaseMode::In,
            amplitude: 1.0,
            period: 0.0
        }
        .encode()
        .is_none());
    }

    #[test]
    fn no_nan_outside_unit_range() {
        for ease in Ease::ALL {
            for x in [-1.0f32, -0.25, 1.25, 2.0, 7.5] {
                assert!(ease.evaluate(x).is_finite(), "{ease} at {x}");
            }
        }
    }
}
