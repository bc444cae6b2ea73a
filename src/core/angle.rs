//! Angles that animate along the shorter arc.

use super::value::{Animatable, Interpolation};
use std::f64::consts::TAU;

/// An angle in radians that a motion turns along the shorter arc: from 350° to 10° it passes
/// 0°, not 180°. (A plain `f32` lerps the numbers, the long way round.)
///
/// The motion heads for the turn of `to` nearest `from` (within half a turn; exactly half a
/// turn goes the positive way), so its values, the end value included, may lie outside
/// `[0, 2π)`: `from + Δ` with `Δ ∈ (−π, π]`. [`Angle::wrapped`] brings one back into
/// `(−π, π]`.
///
/// ```
/// use wgpu_tween::{Angle, Motion, MotionWorld};
///
/// let mut world = MotionWorld::new();
/// let h = Motion::new(Angle::from_degrees(350.0), Angle::from_degrees(10.0), 1.0)
///     .run(&mut world)?;
/// world.update(0.5)?;
/// let halfway = world.value::<Angle>(h)?;
/// assert!((halfway.to_degrees() - 360.0).abs() < 1e-3); // through 0°, not 180°
/// assert!(halfway.wrapped().to_degrees().abs() < 1e-3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(transparent)]
pub struct Angle(pub f32);

impl Angle {
    /// An angle of `radians`.
    #[must_use]
    pub const fn from_radians(radians: f32) -> Self {
        Self(radians)
    }

    /// An angle of `degrees`.
    #[must_use]
    pub fn from_degrees(degrees: f32) -> Self {
        Self(degrees.to_radians())
    }

    /// The angle in radians.
    #[must_use]
    pub const fn to_radians(self) -> f32 {
        self.0
    }

    /// The angle in degrees.
    #[must_use]
    pub fn to_degrees(self) -> f32 {
        self.0.to_degrees()
    }

    /// The same direction in `(−π, π]`.
    #[must_use]
    pub fn wrapped(self) -> Self {
        Self(half_turn_range(f64::from(self.0)) as f32)
    }
}

/// `x` plus whole turns, in `(−π, π]`. A half turn is compared with f32's π (a hair above
/// the real one), so an `f32` half turn, `180f32.to_radians()`, counts as exactly half.
fn half_turn_range(x: f64) -> f64 {
    let r = x.rem_euclid(TAU); // [0, 2π)
    if r > f64::from(std::f32::consts::PI) {
        r - TAU
    } else {
        r
    }
}

impl Animatable for Angle {
    const LANES: usize = 1;
    const INTERPOLATION: Interpolation = Interpolation::Lerp;
    #[inline]
    fn to_lanes(self) -> [f32; 4] {
        [self.0, 0.0, 0.0, 0.0]
    }
    #[inline]
    fn from_lanes(lanes: [f32; 4]) -> Self {
        Self(lanes[0])
    }
    /// The turn of `to` nearest `from`: `from + Δ`, `Δ ∈ (−π, π]` (computed in f64).
    fn path_end(from: Self, to: Self) -> Self {
        let from64 = f64::from(from.0);
        Self((from64 + half_turn_range(f64::from(to.0) - from64)) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end_degrees(from: f32, to: f32) -> f32 {
        Angle::path_end(Angle::from_degrees(from), Angle::from_degrees(to)).to_degrees()
    }

    #[test]
    fn the_end_is_the_nearest_turn() {
        // Worked by hand: the signed difference brought into (−180°, 180°].
        for (from, to, end) in [
            (350.0, 10.0, 370.0),
            (10.0, 350.0, -10.0),
            (0.0, 90.0, 90.0),
            (0.0, 180.0, 180.0),
            (0.0, -180.0, 180.0),
            (720.0, 0.0, 720.0),
            (-170.0, 170.0, -190.0),
        ] {
            assert!((end_degrees(from, to) - end).abs() < 1e-3, "{from} -> {to}");
        }
    }

    #[test]
    fn wrapped_is_in_the_half_turn_range() {
        for (deg, wrapped) in [
            (370.0, 10.0),
            (-190.0, 170.0),
            (180.0, 180.0),
            (-180.0, 180.0),
        ] {
            let got = Angle::from_degrees(deg).wrapped().to_degrees();
            assert!((got - wrapped).abs() < 1e-3, "{deg}: {got}");
        }
    }
}
