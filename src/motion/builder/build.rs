//! Validating a motion and building what the world inserts (for one motion, or a batch's
//! base and endpoints).

use bytemuck::Zeroable;

use super::Motion;
use crate::core::curve::ID_CURVE;
use crate::core::ease::{Ease, ParametricEase};
use crate::core::row::{pack_flags, MotionRow, FLAG_ROUNDING_SHIFT};
use crate::core::settings::LoopType;
use crate::core::value::{Animatable, Interpolation, Lanes, RoundingMode};
use crate::error::BuildError;
use crate::world::bound_run::BindFn;
use crate::world::built::{BuiltMotion, MotionOptions};
use crate::world::callbacks::Callbacks;

impl<T: Animatable> Motion<T> {
    /// [`BuildError::ValueOverflow`] where `from + (to − from) · p` can leave the f32 range.
    fn check_reach(&self, from: &Lanes, to: &Lanes) -> Result<(), BuildError> {
        // The standard eases stay in [0, 1] but Back's (to about -0.1 and 1.1) and
        // Elastic's (to about -0.37 and 1.37).
        let standard = match self.ease {
            Ease::InBack | Ease::OutBack | Ease::InOutBack => 1.5,
            Ease::InElastic | Ease::OutElastic | Ease::InOutElastic => 1.5,
            _ => 1.0,
        };
        let ease = self.parametric.map_or(standard, ParametricEase::bound);
        let progress = if self.loop_type == LoopType::Incremental {
            let loops = if self.loops < 0 {
                2f64.powi(32)
            } else {
                f64::from(self.loops)
            };
            ease * (loops + 1.0)
        } else {
            ease
        };
        for lane in 0..T::LANES {
            let (a, b) = (f64::from(from[lane]), f64::from(to[lane]));
            let reach = a.abs() + (b - a).abs() * progress;
            if reach > f64::from(f32::MAX) {
                return Err(BuildError::ValueOverflow { lane, reach });
            }
        }
        Ok(())
    }

    #[inline]
    pub(super) fn build(mut self, bind: Option<BindFn>) -> Result<BuiltMotion, BuildError> {
        let checked = self.check()?;
        Ok(self.assemble(checked, bind))
    }

    /// Everything fallible in building the motion (but its target and group, which the
    /// world checks): the row, its parameter lanes and lane pairs.
    #[inline]
    pub(super) fn check(&self) -> Result<Checked, BuildError> {
        let (from, to) = self.endpoints(self.from, self.to)?;
        let (mut row, params) = self.base_row()?;
        let (pairs, row_params) = self.pairs(from, to)?;
        row.params = row_params;
        Ok(Checked { row, params, pairs })
    }

    /// The built motion of checked parts, its callbacks and curve taken. Infallible and by
    /// reference, so that a terminal builds it where the world reads it (moving a
    /// `BuiltMotion` out of a `Result`, or the builder into a call, copies 200-odd bytes).
    #[inline]
    pub(super) fn assemble(&mut self, checked: Checked, bind: Option<BindFn>) -> BuiltMotion {
        let Checked { row, params, pairs } = checked;
        let has_callbacks = self.on_complete.is_some()
            || self.on_cancel.is_some()
            || self.on_loop_complete.is_some()
            || self.on_start.is_some();
        let options = self.options();
        BuiltMotion {
            row,
            pairs,
            params,
            auto_seed: self.auto_seed(),
            options,
            debug_name: self.debug_name,
            value_type: std::any::TypeId::of::<T>(),
            bind,
            callbacks: has_callbacks.then(|| {
                Box::new(Callbacks {
                    start: self.on_start.take().map(super::shared::event),
                    complete: self.on_complete.take().map(super::shared::event),
                    cancel: self.on_cancel.take().map(super::shared::event),
                    loop_complete: self.on_loop_complete.take().map(super::shared::on_loop),
                    completion: None,
                })
            }),
            curve: self.curve.take(),
            target: self.target,
            group: self.group,
        }
    }

    /// The start and end lanes of a motion from `from` to `to`, checked finite; quaternions
    /// normalized, `to` on the shortest arc from `from`.
    #[inline]
    fn endpoints(&self, from: T, to: T) -> Result<(Lanes, Lanes), BuildError> {
        let mut from = from.to_lanes();
        let mut to = to.to_lanes();
        for (which, lanes) in [("start", from), ("end", to)] {
            if let Some((lane, &value)) = lanes
                .iter()
                .enumerate()
                .take(T::LANES)
                .find(|(_, v)| !v.is_finite())
            {
                return Err(BuildError::NonFiniteValue { which, lane, value });
            }
        }
        if matches!(self.adapter, Interpolation::Slerp | Interpolation::Nlerp) {
            // Quaternions interpolate as unit quaternions.
            for (which, lanes) in [("start", &mut from), ("end", &mut to)] {
                let len = lanes
                    .iter()
                    .map(|x| f64::from(*x).powi(2))
                    .sum::<f64>()
                    .sqrt();
                if !(len > 1e-12 && len.is_finite()) {
                    return Err(BuildError::ZeroQuaternion { which });
                }
                for x in lanes.iter_mut() {
                    *x = (f64::from(*x) / len) as f32;
                }
            }
            // The shortest arc: `to` or `-to` (the same rotation), whichever is nearer.
            let dot: f64 = (0..4).map(|k| f64::from(from[k]) * f64::from(to[k])).sum();
            if dot < 0.0 {
                to = to.map(|x| -x);
            }
        }
        Ok((from, to))
    }

    /// The lane pairs of checked endpoints (after [`build_base`](Self::build_base) accepted
    /// the settings) and the row's `params` word; [`BuildError::ValueOverflow`] where they
    /// can leave the f32 range.
    #[inline]
    pub(in crate::motion) fn pairs(
        &self,
        from: Lanes,
        to: Lanes,
    ) -> Result<([[f32; 2]; 4], u32), BuildError> {
        if !matches!(self.adapter, Interpolation::Slerp | Interpolation::Nlerp) {
            self.check_reach(&from, &to)?;
        }
        let mut pairs = [[0.0; 2]; 4];
        for (lane, pair) in pairs.iter_mut().enumerate().take(T::LANES) {
            *pair = [from[lane], to[lane]];
        }
        if matches!(self.adapter, Interpolation::Punch | Interpolation::Shake) {
            // Lane 3 (free: at most three lanes vibrate) holds (f, k = ζ·f/(2π)).
            let k =
                f64::from(self.damping_ratio) * f64::from(self.frequency) / std::f64::consts::TAU;
            pairs[3] = [self.frequency, k as f32];
        }
        let row_params = if self.adapter == Interpolation::Slerp {
            crate::eval::adapters::quat_angle(from, to).to_bits()
        } else {
            self.seed.unwrap_or(0)
        };
        Ok((pairs, row_params))
    }

    /// [`endpoints`](Self::endpoints) then [`pairs`](Self::pairs), for a batch's motion.
    pub(in crate::motion) fn checked_pairs(
        &self,
        from: T,
        to: T,
    ) -> Result<([[f32; 2]; 4], u32), BuildError> {
        let (from, to) = self.endpoints(from, to)?;
        self.pairs(from, to)
    }

    /// A batch's base: [`base_row`](Self::base_row) as a built motion without lanes,
    /// callbacks or target (the row's `params` word unset).
    pub(in crate::motion) fn build_base(&self) -> Result<BuiltMotion, BuildError> {
        let (row, params) = self.base_row()?;
        Ok(BuiltMotion {
            row,
            pairs: [[0.0; 2]; 4],
            params,
            curve: self.curve.clone(),
            auto_seed: self.auto_seed(),
            options: self.options(),
            debug_name: self.debug_name,
            value_type: std::any::TypeId::of::<T>(),
            bind: None,
            callbacks: None,
            target: None,
            group: self.group,
        })
    }

    fn auto_seed(&self) -> bool {
        self.adapter == Interpolation::Shake && self.seed.is_none()
    }

    fn options(&self) -> MotionOptions {
        MotionOptions {
            preserve: self.preserve,
            cancel_on_error: self.cancel_on_error,
            skip_values_during_delay: self.skip_values_during_delay,
            immediate_bind: self.immediate_bind,
        }
    }

    /// Validates everything but the endpoints, the callbacks and the target: the row (its
    /// `params` word unset) and the parameter lanes.
    #[inline]
    fn base_row(&self) -> Result<(MotionRow, [f32; 4]), BuildError> {
        let (ease_id, params) = match self.parametric {
            None => (0, [0.0; 4]),
            Some(ease) => ease.encode().ok_or(BuildError::InvalidEase(ease))?,
        };
        // A curve's key range is written into the parameter lanes on insertion.
        let ease_id = if self.curve.is_some() {
            ID_CURVE
        } else {
            ease_id
        };
        let vibrates = matches!(self.adapter, Interpolation::Punch | Interpolation::Shake);
        let in_range = |x: f32| (0.0..=crate::MAX_EASE_PARAMETER).contains(&x); // not NaN
        if vibrates && !(in_range(self.frequency) && in_range(self.damping_ratio)) {
            return Err(BuildError::InvalidVibration {
                frequency: self.frequency,
                damping_ratio: self.damping_ratio,
            });
        }
        if !(self.duration.is_finite() && self.duration >= 0.0) {
            return Err(BuildError::InvalidDuration(self.duration));
        }
        if !(self.delay.is_finite() && self.delay >= 0.0) {
            return Err(BuildError::InvalidDelay(self.delay));
        }
        if self.loops == 0 || self.loops < -1 {
            return Err(BuildError::InvalidLoops(self.loops));
        }
        if !self.speed.is_finite() {
            return Err(BuildError::InvalidPlaybackSpeed(self.speed));
        }
        let row = MotionRow {
            speed: self.speed,
            duration: self.duration,
            delay: self.delay,
            loops: self.loops,
            flags: pack_flags(
                if self.parametric.is_some() || self.curve.is_some() {
                    Ease::Linear
                } else {
                    self.ease
                },
                self.loop_type,
                self.delay_type,
                self.time_kind,
                T::LANES,
                self.adapter as u32,
            ) | (self.rounding as u32) << FLAG_ROUNDING_SHIFT
                | ease_id,
            ..MotionRow::zeroed()
        };
        Ok((row, params))
    }

    /// How integer values are rounded.
    pub(in crate::motion) fn rounding_mode(&self) -> RoundingMode {
        self.rounding
    }

    /// Whether the motion has callbacks, a target or an open start or duration, which the
    /// motions of a batch cannot share (`"callbacks"`, `"a target"`, ...).
    pub(in crate::motion) fn unshareable(&self) -> Option<&'static str> {
        if self.on_complete.is_some()
            || self.on_cancel.is_some()
            || self.on_loop_complete.is_some()
            || self.on_start.is_some()
        {
            Some("callbacks")
        } else if self.target.is_some() {
            Some("a target")
        } else if self.relative.is_set() {
            Some("a start from the current value or a speed")
        } else {
            None
        }
    }
}

/// What [`Motion::check`] works out: the motion's row, parameter lanes and lane pairs.
pub(super) struct Checked {
    row: MotionRow,
    params: [f32; 4],
    pairs: [[f32; 2]; 4],
}
