//! The 31 standard easing functions (docs/semantics.md §3).
//!
//! Formulas follow easings.net, as LitMotion does. Every ease is evaluated in `f32`, the
//! precision the GPU executor has, so the CPU and GPU executors agree to the last few ulps.

use std::f32::consts::PI;
use std::fmt;
use std::str::FromStr;

mod parametric;

pub(crate) use parametric::{bezier, parametric, PARAMETRIC_BASE};
pub use parametric::{EaseMode, ParametricEase, MAX_EASE_PARAMETER, MIN_ELASTIC_PERIOD};

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
    fn no_nan_outside_unit_range() {
        for ease in Ease::ALL {
            for x in [-1.0f32, -0.25, 1.25, 2.0, 7.5] {
                assert!(ease.evaluate(x).is_finite(), "{ease} at {x}");
            }
        }
    }
}
