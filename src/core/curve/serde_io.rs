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

/// A tangent; `null` is infinite (a step), which is how JSON writes a non-finite float.
pub(super) fn tangent<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    Ok(Option::<f32>::deserialize(d)?.unwrap_or(f32::INFINITY))
}
