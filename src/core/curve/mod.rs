//! Animation curves used as eases (docs/semantics.md §4): keyframes with values, in/out tangents
//! and optional weights, Unity's `AnimationCurve` semantics.
//!
//! ```
//! use wgpu_tween::{AnimationCurve, Keyframe, Motion, MotionWorld};
//!
//! let curve = AnimationCurve::new([
//!     Keyframe::new(0.0, 0.0),
//!     Keyframe::new(0.5, 1.0), // overshoot to the end value at half time...
//!     Keyframe::new(1.0, 0.5), // ...and settle half-way back
//! ])?;
//! let mut world = MotionWorld::new();
//! let h = Motion::new(0.0f32, 10.0, 1.0).ease_curve(&curve).run(&mut world)?;
//! world.update(0.5)?;
//! assert!((world.value::<f32>(h)? - 10.0).abs() < 1e-5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A motion's keys are copied into a key table its world owns (copied into a storage buffer
//! by the GPU executor, bound at `@group(0) @binding(5)` of the evaluate pass) and freed when
//! the motion's row is removed (completion, cancel, clear); LitMotion never frees them. See
//! [`MotionWorld::curve_keys_in_use`](crate::MotionWorld::curve_keys_in_use) and
//! [`MotionWorld::curve_key_capacity`](crate::MotionWorld::curve_key_capacity).

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};

use crate::error::BuildError;

mod pool;
#[cfg(feature = "serde")]
mod serde_io;
pub(crate) use pool::CurvePool;

/// The ease id of an animation curve in a row's ease bits (the standard eases use 0..31,
/// the parametric ones 32..40). Keep in sync with `ID_CURVE` in `shaders/curve.wgsl`.
pub(crate) const ID_CURVE: u32 = 40;

/// The largest magnitude of a key's time, value or finite tangent: beyond it the segment
/// arithmetic could overflow f32 (and give infinities or NaN).
pub const MAX_CURVE_MAGNITUDE: f32 = 1e18;

/// The most keys one curve may have: a key count and a key offset are stored in a row's
/// parameter lanes as exact f32 integers (small integers as raw f32 bits would be
/// subnormals, which GPUs may flush to zero).
pub const MAX_CURVE_KEYS: usize = 1 << 24;

/// Which sides of a key use their explicit weight (Unity's `WeightedMode`). A side that is
/// not weighted uses the default weight 1/3, which makes the segment exactly cubic Hermite.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WeightedMode {
    /// Neither side is weighted.
    #[default]
    None,
    /// The incoming side (towards the previous key) uses `in_weight`.
    In,
    /// The outgoing side (towards the next key) uses `out_weight`.
    Out,
    /// Both sides are weighted.
    Both,
}

impl WeightedMode {
    fn has_in(self) -> bool {
        matches!(self, WeightedMode::In | WeightedMode::Both)
    }

    fn has_out(self) -> bool {
        matches!(self, WeightedMode::Out | WeightedMode::Both)
    }
}

/// What a curve does outside its keys' time range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WrapMode {
    /// Holds the first (before) or last (after) key's value.
    #[default]
    Clamp,
    /// Repeats the keys' time range.
    Loop,
    /// Repeats the keys' time range, every other repetition backwards.
    PingPong,
}

impl WrapMode {
    fn to_bits(self) -> u32 {
        match self {
            WrapMode::Clamp => 0,
            WrapMode::Loop => 1,
            WrapMode::PingPong => 2,
        }
    }
}

/// One key of an [`AnimationCurve`]: a value at a time, with the slopes on either side.
///
/// Between two keys the curve is a cubic Bézier in (time, value) whose inner control points
/// lie at `weight · Δt` along the tangents (the default weight 1/3 makes it exactly cubic
/// Hermite). A non-finite tangent (Unity's "constant" tangent) makes the segment a step that
/// holds the left key's value.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Keyframe {
    /// Time of the key (finite); for an ease, progress in `[0, 1]`.
    #[cfg_attr(feature = "serde", serde(deserialize_with = "serde_io::f32_in_range"))]
    pub time: f32,
    /// Value at the key (finite); for an ease, eased progress.
    #[cfg_attr(feature = "serde", serde(deserialize_with = "serde_io::f32_in_range"))]
    pub value: f32,
    /// Slope arriving at the key (value per unit time).
    #[cfg_attr(
        feature = "serde",
        serde(default, deserialize_with = "serde_io::tangent")
    )]
    pub in_tangent: f32,
    /// Slope leaving the key.
    #[cfg_attr(
        feature = "serde",
        serde(default, deserialize_with = "serde_io::tangent")
    )]
    pub out_tangent: f32,
    /// Weight of the incoming side, a fraction of the previous segment's duration in
    /// `[0, 1]`; used when `weighted` includes [`WeightedMode::In`].
    #[cfg_attr(
        feature = "serde",
        serde(
            default = "serde_io::third",
            deserialize_with = "serde_io::f32_in_range"
        )
    )]
    pub in_weight: f32,
    /// Weight of the outgoing side, in `[0, 1]`; used when `weighted` includes
    /// [`WeightedMode::Out`].
    #[cfg_attr(
        feature = "serde",
        serde(
            default = "serde_io::third",
            deserialize_with = "serde_io::f32_in_range"
        )
    )]
    pub out_weight: f32,
    /// Which weights are used.
    #[cfg_attr(feature = "serde", serde(default))]
    pub weighted: WeightedMode,
}

impl Keyframe {
    /// A key with flat tangents (slope 0) and no weights.
    #[must_use]
    pub const fn new(time: f32, value: f32) -> Self {
        Self::with_tangents(time, value, 0.0, 0.0)
    }

    /// A key with the given tangents and no weights.
    #[must_use]
    pub const fn with_tangents(time: f32, value: f32, in_tangent: f32, out_tangent: f32) -> Self {
        Self {
            time,
            value,
            in_tangent,
            out_tangent,
            in_weight: 1.0 / 3.0,
            out_weight: 1.0 / 3.0,
            weighted: WeightedMode::None,
        }
    }

    /// This key with both weights set (and [`WeightedMode::Both`]).
    #[must_use]
    pub const fn weights(mut self, in_weight: f32, out_weight: f32) -> Self {
        self.in_weight = in_weight;
        self.out_weight = out_weight;
        self.weighted = WeightedMode::Both;
        self
    }

    /// This key with the given weighted mode (weights as set).
    #[must_use]
    pub const fn weighted_mode(mut self, mode: WeightedMode) -> Self {
        self.weighted = mode;
        self
    }
}

/// An animation curve: sorted keys and wrap modes. Use it as an ease with
/// [`Motion::ease_curve`](crate::Motion::ease_curve); evaluate it directly with
/// [`evaluate`](Self::evaluate).
///
/// Cheap to clone (the keys are shared), so one curve can ease many motions. With the
/// `serde` feature it reads and writes as its keys and wrap modes, and reading checks the
/// keys as [`new`](Self::new) does.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "serde_io::CurveData", into = "serde_io::CurveData")
)]
pub struct AnimationCurve {
    keys: Arc<[Keyframe]>,
    gpu: Arc<[GpuKey]>,
    pre_wrap: WrapMode,
    post_wrap: WrapMode,
}

impl AnimationCurve {
    /// A curve through `keys`, clamped at both ends.
    ///
    /// Keys are sorted by time (stably: keys with equal times keep their order and make a
    /// jump). Errors: no keys ([`BuildError::EmptyCurve`]), more than [`MAX_CURVE_KEYS`]
    /// ([`BuildError::CurveTooLong`]), a NaN or infinite time or value, a time, value or
    /// finite tangent beyond ±[`MAX_CURVE_MAGNITUDE`], or a used weight outside `[0, 1]`
    /// ([`BuildError::InvalidCurveKey`]). Tangents may be infinite or NaN (a step).
    pub fn new(keys: impl Into<Vec<Keyframe>>) -> Result<Self, BuildError> {
        let mut keys: Vec<Keyframe> = keys.into();
        if keys.is_empty() {
            return Err(BuildError::EmptyCurve);
        }
        if keys.len() > MAX_CURVE_KEYS {
            return Err(BuildError::CurveTooLong(keys.len()));
        }
        for (index, key) in keys.iter().enumerate() {
            let bad = |what, value| BuildError::InvalidCurveKey { index, what, value };
            let in_range = |x: f32| x.abs() <= MAX_CURVE_MAGNITUDE; // false for NaN
            if !in_range(key.time) {
                return Err(bad("time", key.time));
            }
            if !in_range(key.value) {
                return Err(bad("value", key.value));
            }
            for (what, tangent) in [
                ("in_tangent", key.in_tangent),
                ("out_tangent", key.out_tangent),
            ] {
                if tangent.is_finite() && !in_range(tangent) {
                    return Err(bad(what, tangent));
                }
            }
            let weight_ok = |w: f32| (0.0..=1.0).contains(&w);
            if key.weighted.has_in() && !weight_ok(key.in_weight) {
                return Err(bad("in_weight", key.in_weight));
            }
            if key.weighted.has_out() && !weight_ok(key.out_weight) {
                return Err(bad("out_weight", key.out_weight));
            }
        }
        // Stable, and total on finite times.
        keys.sort_by(|a, b| a.time.total_cmp(&b.time));
        let gpu: Arc<[GpuKey]> = keys.iter().map(GpuKey::from_keyframe).collect();
        Ok(Self {
            keys: keys.into(),
            gpu,
            pre_wrap: WrapMode::Clamp,
            post_wrap: WrapMode::Clamp,
        })
    }

    /// A straight line from `(0, 0)` to `(1, 1)` (the identity ease).
    #[must_use]
    pub fn linear() -> Self {
        Self::from_valid(&[
            Keyframe::with_tangents(0.0, 0.0, 1.0, 1.0),
            Keyframe::with_tangents(1.0, 1.0, 1.0, 1.0),
        ])
    }

    /// A smooth ease in and out from `(0, 0)` to `(1, 1)` (flat tangents at both ends).
    #[must_use]
    pub fn ease_in_out() -> Self {
        Self::from_valid(&[Keyframe::new(0.0, 0.0), Keyframe::new(1.0, 1.0)])
    }

    fn from_valid(keys: &[Keyframe]) -> Self {
        let gpu: Arc<[GpuKey]> = keys.iter().map(GpuKey::from_keyframe).collect();
        Self {
            keys: keys.into(),
            gpu,
            pre_wrap: WrapMode::Clamp,
            post_wrap: WrapMode::Clamp,
        }
    }

    /// This curve with the given wrap mode before its first key.
    #[must_use]
    pub fn pre_wrap(mut self, mode: WrapMode) -> Self {
        self.pre_wrap = mode;
        self
    }

    /// This curve with the given wrap mode after its last key.
    #[must_use]
    pub fn post_wrap(mut self, mode: WrapMode) -> Self {
        self.post_wrap = mode;
        self
    }

    /// This curve with the same wrap mode on both sides.
    #[must_use]
    pub fn wrap(self, mode: WrapMode) -> Self {
        self.pre_wrap(mode).post_wrap(mode)
    }

    /// The keys, sorted by time.
    #[must_use]
    pub fn keys(&self) -> &[Keyframe] {
        &self.keys
    }

    /// The wrap mode before the first key.
    #[must_use]
    pub fn pre_wrap_mode(&self) -> WrapMode {
        self.pre_wrap
    }

    /// The wrap mode after the last key.
    #[must_use]
    pub fn post_wrap_mode(&self) -> WrapMode {
        self.post_wrap
    }

    /// The keys as the executors store them.
    pub(crate) fn gpu_keys(&self) -> &[GpuKey] {
        &self.gpu
    }

    /// The wrap bits of a row's parameter lanes.
    pub(crate) fn wrap_bits(&self) -> (WrapMode, WrapMode) {
        (self.pre_wrap, self.post_wrap)
    }
}

/// `GpuKey::flags`: the in side is weighted.
pub(crate) const KEY_IN_WEIGHTED: u32 = 1;
/// `GpuKey::flags`: the out side is weighted.
pub(crate) const KEY_OUT_WEIGHTED: u32 = 2;
/// `GpuKey::flags`: the in tangent is not finite (the segment ending here is a step).
pub(crate) const KEY_IN_STEP: u32 = 4;
/// `GpuKey::flags`: the out tangent is not finite (the segment starting here is a step).
pub(crate) const KEY_OUT_STEP: u32 = 8;

/// One key as the executors store it (32 bytes): what the evaluation needs and nothing that
/// is NaN or infinite (shader compilers may assume neither exists). Keep in sync with
/// `GpuKey` in `shaders/curve.wgsl` (a test reads the WGSL layout back from naga).
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct GpuKey {
    /// Time of the key.
    pub time: f32,
    /// Value at the key.
    pub value: f32,
    /// Incoming slope (0 when not finite; see `flags`).
    pub in_tangent: f32,
    /// Outgoing slope (0 when not finite).
    pub out_tangent: f32,
    /// Incoming weight (1/3 when that side is not weighted).
    pub in_weight: f32,
    /// Outgoing weight (1/3 when that side is not weighted).
    pub out_weight: f32,
    /// Bits: 1 in weighted, 2 out weighted, 4 in tangent not finite, 8 out tangent not finite.
    pub flags: u32,
    /// Padding.
    pub _pad: u32,
}

impl GpuKey {
    fn from_keyframe(k: &Keyframe) -> Self {
        let third = 1.0 / 3.0;
        let mut flags = 0;
        if k.weighted.has_in() {
            flags |= KEY_IN_WEIGHTED;
        }
        if k.weighted.has_out() {
            flags |= KEY_OUT_WEIGHTED;
        }
        if !k.in_tangent.is_finite() {
            flags |= KEY_IN_STEP;
        }
        if !k.out_tangent.is_finite() {
            flags |= KEY_OUT_STEP;
        }
        let finite = |x: f32| if x.is_finite() { x } else { 0.0 };
        Self {
            time: k.time,
            value: k.value,
            in_tangent: finite(k.in_tangent),
            out_tangent: finite(k.out_tangent),
            in_weight: if k.weighted.has_in() {
                k.in_weight
            } else {
                third
            },
            out_weight: if k.weighted.has_out() {
                k.out_weight
            } else {
                third
            },
            flags,
            _pad: 0,
        }
    }
}

/// A row's parameter lanes for a curve of `count` keys at `offset` in the key table:
/// `[offset mod 2^24, count, pre_wrap + 4·post_wrap, offset / 2^24]`, every lane an exact f32
/// integer. (Not raw bits: small integers as f32 bits are subnormals, which GPUs may flush to
/// zero.)
pub(crate) fn encode_params(
    offset: usize,
    count: usize,
    pre: WrapMode,
    post: WrapMode,
) -> [f32; 4] {
    const LOW: usize = 1 << 24;
    [
        (offset % LOW) as f32,
        count as f32,
        (pre.to_bits() + 4 * post.to_bits()) as f32,
        (offset / LOW) as f32,
    ]
}

/// The key range `(offset, count)` named by a curve row's parameter lanes.
pub(crate) fn key_range(params: [f32; 4]) -> (usize, usize) {
    (
        params[0] as usize + params[3] as usize * (1 << 24),
        params[1] as usize,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hermite_matches_hand_computed_values() {
        // (0, 0) slope 0 → (1, 1) slope 0: smoothstep 3u² − 2u³.
        let c = AnimationCurve::ease_in_out();
        for k in 0..=8 {
            let u = k as f32 / 8.0;
            let want = 3.0 * u * u - 2.0 * u * u * u;
            assert!((c.evaluate(u) - want).abs() < 1e-6, "{u}");
        }
        assert_eq!(AnimationCurve::linear().evaluate(0.3), 0.3);
    }

    #[test]
    fn weighted_thirds_equal_hermite() {
        let keys = [
            Keyframe::with_tangents(0.0, 0.2, 0.0, 2.0),
            Keyframe::with_tangents(1.0, 0.9, -1.0, 0.0),
        ];
        let plain = AnimationCurve::new(keys).unwrap();
        let weighted = AnimationCurve::new(keys.map(|k| k.weights(1.0 / 3.0, 1.0 / 3.0))).unwrap();
        for k in 0..=20 {
            let x = k as f32 / 20.0;
            assert!(
                (plain.evaluate(x) - weighted.evaluate(x)).abs() < 1e-5,
                "{x}"
            );
        }
    }
}
