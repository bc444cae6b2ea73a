//! Motions that start from the current value ([`Motion::to`], [`Motion::by`]) and motions
//! timed by their speed ([`Motion::at_speed`]), resolved when the motion is added to a world
//! (docs/semantics.md §9).

use glam::Quat;

use super::Motion;
use crate::core::value::{Animatable, Interpolation, Lanes};
use crate::error::BuildError;
use crate::world::MotionWorld;

/// Start, end and duration still to resolve when the motion is added.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Relative {
    /// The start is the target's current value.
    from_current: bool,
    /// `to` holds a delta from the start.
    by: bool,
    /// The duration is the distance over this speed.
    speed: Option<f32>,
}

impl Relative {
    /// Whether anything is left to resolve.
    pub(super) fn is_set(&self) -> bool {
        self.from_current || self.speed.is_some()
    }
}

impl<T: Animatable> Motion<T> {
    /// A motion to `end` from the current value of its [`target`](Self::target), read from
    /// the host array when the motion is added to the world (`run` or `bind`; see
    /// docs/semantics.md §9). A motion without a host target has no current value:
    /// [`BuildError::NoCurrentValue`] (a GPU buffer is not read back; from inside a
    /// callback, `run_deferred` cannot read the world).
    ///
    /// ```
    /// use wgpu_tween::{Motion, MotionWorld};
    ///
    /// let mut world = MotionWorld::new();
    /// let x = world.add_host_target(1)?;
    /// Motion::new(0.0f32, 10.0, 1.0).target(x.at(0, 1, 0)).run(&mut world)?;
    /// world.update(0.5)?; // x = 5
    /// // Back to 0 from where it is now, at 10 units per second: 0.5 s.
    /// let back = Motion::to(0.0f32, 0.0).at_speed(10.0).target(x.at(0, 1, 0)).run(&mut world)?;
    /// assert_eq!(world.total_duration(back)?, 0.5);
    /// world.update(0.25)?;
    /// assert_eq!(world.host_target(x).unwrap()[0], 2.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to(end: T, duration: f32) -> Self {
        let mut m = Self::new(end, end, duration);
        m.relative.from_current = true;
        m
    }

    /// A motion by `delta` from the current value of its [`target`](Self::target)
    /// (see [`to`](Self::to)): the end is the start plus `delta`, lane by lane (an
    /// [`Angle`](crate::Angle) turns by exactly `delta`, a full turn included); a quaternion
    /// ends at `delta · start` (the start rotated by `delta`).
    ///
    /// ```
    /// use wgpu_tween::{Motion, MotionWorld};
    /// use glam::Vec2;
    ///
    /// let mut world = MotionWorld::new();
    /// let pos = world.add_host_target(2)?;
    /// world.host_target_mut(pos).unwrap().copy_from_slice(&[1.0, 2.0]);
    /// Motion::by(Vec2::new(10.0, 0.0), 1.0).target(pos.at(0, 2, 0)).run(&mut world)?;
    /// world.update(1.0)?;
    /// assert_eq!(world.host_target(pos).unwrap(), &[11.0, 2.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn by(delta: T, duration: f32) -> Self {
        let mut m = Self::to(delta, duration);
        m.relative.by = true;
        m
    }

    /// Sets the duration from a speed instead: the distance from start to end over
    /// `units_per_second` (per loop). The distance is Euclidean over the value's lanes
    /// (for integers and `f64`, their difference below 2^24), the angle in radians between two
    /// quaternions, and the strength's length for a punch or shake; zero distance gives
    /// zero duration. A speed that is not finite and positive is
    /// [`BuildError::InvalidSpeed`].
    ///
    /// ```
    /// use wgpu_tween::{Motion, MotionWorld};
    /// use glam::Vec2;
    ///
    /// let mut world = MotionWorld::new();
    /// let h = Motion::new(Vec2::ZERO, Vec2::new(3.0, 4.0), 0.0).at_speed(2.0).run(&mut world)?;
    /// assert_eq!(world.total_duration(h)?, 2.5); // 5 units at 2 units per second
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn at_speed(mut self, units_per_second: f32) -> Self {
        self.relative.speed = Some(units_per_second);
        self
    }

    /// Resolves the start, end and duration left open (`world`: `None` from a callback).
    #[inline]
    pub(super) fn resolve(&mut self, world: Option<&MotionWorld>) -> Result<(), BuildError> {
        if !self.relative.is_set() {
            return Ok(());
        }
        if self.relative.from_current {
            let current = match (world, &self.target) {
                (Some(world), Some(target)) => world.current_value(target, T::LANES)?,
                _ => None,
            };
            let from = current.ok_or(BuildError::NoCurrentValue)?;
            let from = T::from_lanes_rounded(from, self.rounding_mode());
            self.to = if self.relative.by {
                T::from_lanes(self.offset(from.to_lanes(), self.to.to_lanes()))
            } else {
                T::path_end(from, self.to)
            };
            self.from = from;
            self.relative.from_current = false;
        }
        if let Some(speed) = self.relative.speed.take() {
            if !(speed.is_finite() && speed > 0.0) {
                return Err(BuildError::InvalidSpeed(speed));
            }
            let distance = self.distance(self.from.to_lanes(), self.to.to_lanes());
            self.duration = (distance / f64::from(speed)) as f32;
        }
        Ok(())
    }

    /// `from` moved by `delta`: summed lanes, or for quaternions `delta · from`.
    fn offset(&self, from: Lanes, delta: Lanes) -> Lanes {
        if !matches!(self.adapter, Interpolation::Slerp | Interpolation::Nlerp) {
            return std::array::from_fn(|k| from[k] + delta[k]);
        }
        (Quat::from_array(delta) * Quat::from_array(from)).to_array()
    }

    /// What [`at_speed`](Self::at_speed) divides by the speed.
    fn distance(&self, from: Lanes, to: Lanes) -> f64 {
        let lanes = |l: Lanes| l.map(f64::from);
        let (a, b) = (lanes(from), lanes(to));
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        match self.adapter {
            Interpolation::Slerp | Interpolation::Nlerp => {
                let dot: f64 = (0..4).map(|k| a[k] * b[k]).sum();
                let cos = (dot.abs() / (norm(&a) * norm(&b))).min(1.0);
                // (A zero quaternion gives 0 here; `endpoints` refuses it.)
                2.0 * cos.acos()
            }
            Interpolation::Punch | Interpolation::Shake => norm(&b[..T::LANES]),
            _ => (0..T::LANES)
                .map(|k| (b[k] - a[k]).powi(2))
                .sum::<f64>()
                .sqrt(),
        }
    }
}
