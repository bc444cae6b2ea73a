//! The easing functions: the 31 standard eases (docs/semantics.md §3, easings.net's formulas
//! in `f32`, the precision the GPU has) and the parametric ones (Back and Elastic with chosen
//! constants, CSS steps and cubic-bezier), the CPU mirror of `shaders/easing.wgsl`.

use std::f32::consts::PI;

use crate::core::ease::{Ease, ParametricEase, ID_BACK, ID_BEZIER, ID_ELASTIC, ID_STEPS};

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

impl ParametricEase {
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
    in_out(id.wrapping_sub(family_base), x, |u| in_curve(p, u))
}

/// A parametric family's member `mode` (0 In, 1 Out, 2 InOut) at `x`, from its In curve:
/// Out mirrors it, InOut joins the two halves; exactly 0 and 1 at the ends. The CPU
/// executor's fast Elastic folds its own In curve through this too.
#[inline(always)]
#[must_use]
pub(crate) fn in_out(mode: u32, x: f32, in_curve: impl Fn(f32) -> f32) -> f32 {
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
    let y = in_curve(u);
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
