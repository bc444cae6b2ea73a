//! How curves and keys read and write with the `serde` feature.

use serde::{Deserialize, Deserializer, Serialize};

use super::{AnimationCurve, Keyframe, WrapMode};
use crate::error::BuildError;

/// A curve as data: checked by [`AnimationCurve::new`] when read.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CurveData {
    keys: Vec<Keyframe>,
    #[serde(default)]
    pre_wrap: WrapMode,
    #[serde(default)]
    post_wrap: WrapMode,
}

impl TryFrom<CurveData> for AnimationCurve {
    type Error = BuildError;

    fn try_from(data: CurveData) -> Result<Self, BuildError> {
        Ok(AnimationCurve::new(data.keys)?
            .pre_wrap(data.pre_wrap)
            .post_wrap(data.post_wrap))
    }
}

impl From<AnimationCurve> for CurveData {
    fn from(curve: AnimationCurve) -> Self {
        CurveData {
            keys: curve.keys.to_vec(),
            pre_wrap: curve.pre_wrap,
            post_wrap: curve.post_wrap,
        }
    }
}

/// A key's default weight.
pub(super) fn third() -> f32 {
    1.0 / 3.0
}

/// A tangent; `null` is infinite (a step), which is how JSON writes a non-finite float. A
/// number too large for an f32 is refused, not read as infinite.
pub(super) fn tangent<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    match Option::<f64>::deserialize(d)? {
        Some(x) => narrow(x),
        None => Ok(f32::INFINITY),
    }
}

/// A number as an f32, refused if it overflows (a data format reads `1e39` as an f64, and
/// `as f32` would make it infinite: a step where a tangent was meant, or a key that
/// `AnimationCurve::new` reports as infinite rather than as written).
pub(super) fn f32_in_range<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    narrow(f64::deserialize(d)?)
}

fn narrow<E: serde::de::Error>(x: f64) -> Result<f32, E> {
    let narrowed = x as f32;
    if x.is_finite() && !narrowed.is_finite() {
        return Err(E::custom(format_args!(
            "{x:e} does not fit in an f32 (at most ±{:e})",
            f32::MAX
        )));
    }
    Ok(narrowed)
}
