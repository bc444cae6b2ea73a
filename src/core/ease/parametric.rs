//! Eases with parameters (LitMotion #212): Back and Elastic with chosen constants, CSS steps
//! and cubic-bezier. [`parametric`] mirrors `parametric_ease` in `shaders/easing.wgsl`.

/// Which half of a curve an ease plays: the In curve, its mirror (Out), or both (InOut).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
/// The parameters live in the motion's 16-byte parameter lanes (copied to the GPU with
/// its other lanes), so they cost nothing to motions that do not use them.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ParametricEase {
    /// Back with overshoot `c` (the standard eases use 1.70158): `In(x) = (c + 1)x³ − c·x²`.
    /// InOut uses `c · 1.525`, as easings.net does, so `overshoot: 1.70158` reproduces
    /// [`Ease::InBack`], [`Ease::OutBack`] and [`Ease::InOutBack`].
    ///
    /// [`Ease::InBack`]: super::Ease::InBack
    /// [`Ease::OutBack`]: super::Ease::OutBack
    /// [`Ease::InOutBack`]: super::Ease::InOutBack
    Back {
        /// In, Out or InOut.
        mode: EaseMode,
        /// The overshoot `c` (within ±[`MAX_EASE_PARAMETER`]).
        overshoot: f32,
    },
    /// Elastic with amplitude `a` (values below 1 act as 1) and period `P` (> 0):
    /// `In(x) = −a·2^(10x − 10)·sin((x − 1 − s)·2π/P)` with `s = P/(2π)·asin(1/a)`. InOut
    /// uses the period `1.5·P`, as easings.net does, so `amplitude: 1, period: 0.3`
    /// reproduces the standard Elastic eases.
    Elastic {
        /// In, Out or InOut.
        mode: EaseMode,
        /// Amplitude `a` (within ±[`MAX_EASE_PARAMETER`]; below 1 means 1).
        amplitude: f32,
        /// Period `P` in units of progress, from [`MIN_ELASTIC_PERIOD`] to
        /// [`MAX_EASE_PARAMETER`].
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
pub(crate) const ID_BACK: u32 = 32;
pub(crate) const ID_ELASTIC: u32 = 35;
pub(crate) const ID_STEPS: u32 = 38;
pub(crate) const ID_BEZIER: u32 = 39;

/// The largest magnitude of a parametric ease's overshoot, amplitude or Bézier y (so that
/// the ease, and a motion's value, stay finite).
pub const MAX_EASE_PARAMETER: f32 = 1e6;
/// The smallest Elastic period (a million oscillations over the motion).
pub const MIN_ELASTIC_PERIOD: f32 = 1e-6;

impl ParametricEase {
    /// A bound of `|E(x)|` for `x` in `[0, 1]` (valid parameters only).
    pub(crate) fn bound(self) -> f64 {
        match self {
            ParametricEase::Back { overshoot, .. } => 1.0 + 4.0 * f64::from(overshoot.abs()),
            ParametricEase::Elastic { amplitude, .. } => 1.0 + f64::from(amplitude.max(1.0)),
            ParametricEase::Steps(_) => 1.0,
            ParametricEase::CubicBezier(_, y1, _, y2) => {
                1.0 + f64::from(y1.abs()) + f64::from(y2.abs())
            }
        }
    }

    /// The row's ease id and parameter lanes; `None` when the parameters are invalid: not
    /// finite, beyond ±[`MAX_EASE_PARAMETER`], an Elastic period below
    /// [`MIN_ELASTIC_PERIOD`], `Steps(0)`, a Bézier x outside `[0, 1]`.
    pub(crate) fn encode(self) -> Option<(u32, [f32; 4])> {
        let in_range = |x: f32| x.abs() <= MAX_EASE_PARAMETER; // false for NaN
        let mode_of = |m: EaseMode| match m {
            EaseMode::In => 0,
            EaseMode::Out => 1,
            EaseMode::InOut => 2,
        };
        match self {
            ParametricEase::Back { mode, overshoot } => {
                if !in_range(overshoot) {
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
                if !(in_range(amplitude) && in_range(period) && period >= MIN_ELASTIC_PERIOD) {
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
                let ok = [x1, y1, x2, y2].into_iter().all(in_range)
                    && (0.0..=1.0).contains(&x1)
                    && (0.0..=1.0).contains(&x2);
                ok.then_some((ID_BEZIER, [x1, y1, x2, y2]))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Ease;

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
}
