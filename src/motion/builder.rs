//! The motion builder: `Motion::new(from, to, duration)`, settings, then `bind` or `run`.

use bytemuck::Zeroable;

use crate::core::curve::{AnimationCurve, ID_CURVE};
use crate::core::ease::{Ease, ParametricEase};
use crate::core::handle::MotionHandle;
use crate::core::row::{pack_flags, MotionRow, FLAG_ROUNDING_SHIFT};
use crate::core::settings::{DelayType, LoopType, TimeKind};
use crate::core::value::{Animatable, Integer, Interpolation, Lanes, RoundingMode, Vibrate};
use crate::error::BuildError;
use crate::exec::gpu::GpuTarget;
use crate::world::built::{BuiltMotion, MotionOptions};
use crate::world::callbacks::{BindFn, Callbacks, EventFn, LoopFn};
use crate::world::{MotionCommands, MotionWorld};
use glam::Quat;

/// A motion being configured. Nothing touches a world until a terminal (`bind`, `run`, or
/// their `_deferred` forms) validates the settings.
///
/// ```
/// use wgpu_tween::{Ease, LoopType, Motion, MotionWorld};
///
/// let mut world = MotionWorld::new();
/// let handle = Motion::new(0.0f32, 10.0, 2.0)
///     .ease(Ease::OutQuad)
///     .loops(3, LoopType::Yoyo)
///     .delay(0.5)
///     .run(&mut world)?;
/// world.update(1.5)?;
/// assert_eq!(world.value::<f32>(handle)?, 7.5); // OutQuad(0.5) = 0.75
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "a motion does nothing until `bind` or `run` adds it to a world"]
pub struct Motion<T: Animatable> {
    from: T,
    to: T,
    duration: f32,
    ease: Ease,
    parametric: Option<ParametricEase>,
    curve: Option<AnimationCurve>,
    delay: f32,
    delay_type: DelayType,
    skip_values_during_delay: bool,
    loops: i32,
    loop_type: LoopType,
    time_kind: TimeKind,
    speed: f32,
    immediate_bind: bool,
    cancel_on_error: bool,
    preserve: bool,
    debug_name: &'static str,
    on_complete: Option<EventFn>,
    on_cancel: Option<EventFn>,
    on_loop_complete: Option<LoopFn>,
    target: Option<GpuTarget>,
    adapter: Interpolation,
    rounding: RoundingMode,
    frequency: f32,
    damping_ratio: f32,
    seed: Option<u32>,
}

impl<T: Animatable> Motion<T> {
    /// A motion from `from` to `to` over `duration` seconds: linear, one loop, no delay,
    /// speed 1, scaled time, immediate bind on, nothing skipped.
    pub fn new(from: T, to: T, duration: f32) -> Self {
        Self {
            from,
            to,
            duration,
            ease: Ease::Linear,
            parametric: None,
            curve: None,
            delay: 0.0,
            delay_type: DelayType::FirstLoop,
            // Without a delay nothing is skipped (docs/semantics.md §6): a negative clock is
            // Delayed too, and its bind still receives the start value.
            skip_values_during_delay: false,
            loops: 1,
            loop_type: LoopType::Restart,
            time_kind: TimeKind::Scaled,
            speed: 1.0,
            immediate_bind: true,
            cancel_on_error: false,
            preserve: false,
            debug_name: "",
            on_complete: None,
            on_cancel: None,
            on_loop_complete: None,
            target: None,
            adapter: T::INTERPOLATION,
            rounding: RoundingMode::ToEven,
            frequency: 10.0,
            damping_ratio: 1.0,
            seed: None,
        }
    }

    /// The easing function (default [`Ease::Linear`]).
    pub fn ease(mut self, ease: Ease) -> Self {
        self.ease = ease;
        self.parametric = None;
        self.curve = None;
        self
    }

    /// A parametric ease instead of a standard one (replaces [`ease`](Self::ease)); invalid
    /// parameters are a build error ([`BuildError::InvalidEase`]).
    ///
    /// ```
    /// use wgpu_tween::{EaseMode, Motion, MotionWorld, ParametricEase};
    ///
    /// let mut world = MotionWorld::new();
    /// let h = Motion::new(0.0f32, 1.0, 1.0)
    ///     .ease_with(ParametricEase::Steps(4))
    ///     .run(&mut world)?;
    /// world.update(0.6)?;
    /// assert_eq!(world.value::<f32>(h)?, 0.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ease_with(mut self, ease: ParametricEase) -> Self {
        self.parametric = Some(ease);
        self.curve = None;
        self
    }

    /// An animation curve as the ease (replaces [`ease`](Self::ease) and
    /// [`ease_with`](Self::ease_with)): eased progress is the curve's value at the linear
    /// progress, so a curve from `(0, 0)` to `(1, 1)` plays `from` to `to` (docs/semantics.md §4).
    /// The curve is shared, not copied, until the motion is added to a world, which keeps
    /// the keys in its key table until the motion ends.
    ///
    /// ```
    /// use wgpu_tween::{AnimationCurve, Keyframe, Motion, MotionWorld};
    ///
    /// let curve = AnimationCurve::new([Keyframe::new(0.0, 0.0), Keyframe::new(1.0, 1.0)])?;
    /// let mut world = MotionWorld::new();
    /// let h = Motion::new(0.0f32, 1.0, 1.0).ease_curve(&curve).run(&mut world)?;
    /// world.update(0.5)?;
    /// assert_eq!(world.value::<f32>(h)?, 0.5); // smoothstep(0.5)
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn ease_curve(mut self, curve: &AnimationCurve) -> Self {
        self.curve = Some(curve.clone());
        self.parametric = None;
        self
    }

    /// Waits `delay` seconds before the first loop; the bind receives no values meanwhile.
    pub fn delay(self, delay: f32) -> Self {
        self.delay_with(delay, DelayType::FirstLoop, true)
    }

    /// Waits `delay` seconds before the first loop or before every loop; with
    /// `skip_values_during_delay` false the bind keeps receiving the start value meanwhile.
    pub fn delay_with(
        mut self,
        delay: f32,
        delay_type: DelayType,
        skip_values_during_delay: bool,
    ) -> Self {
        self.delay = delay;
        self.delay_type = delay_type;
        self.skip_values_during_delay = skip_values_during_delay;
        self
    }

    /// Plays `loops` times (-1 = forever; 0 is rejected when built).
    pub fn loops(mut self, loops: i32, loop_type: LoopType) -> Self {
        self.loops = loops;
        self.loop_type = loop_type;
        self
    }

    /// Which world clock drives the motion (default [`TimeKind::Scaled`]).
    pub fn time_kind(mut self, time_kind: TimeKind) -> Self {
        self.time_kind = time_kind;
        self
    }

    /// Playback speed (default 1; 0 freezes, negative plays backwards).
    pub fn playback_speed(mut self, speed: f32) -> Self {
        self.speed = speed;
        self
    }

    /// Whether `bind` calls the bind at once with the start value `E(0)` (default true).
    pub fn immediate_bind(mut self, on: bool) -> Self {
        self.immediate_bind = on;
        self
    }

    /// Whether a panic in the bind cancels the motion (default false: it is reported and
    /// the motion goes on).
    pub fn cancel_on_error(mut self, on: bool) -> Self {
        self.cancel_on_error = on;
        self
    }

    /// Keeps the motion after it completes: it goes on binding its end value, can be rewound
    /// with [`MotionWorld::set_time`], and ends only when cancelled.
    pub fn preserve(mut self) -> Self {
        self.preserve = true;
        self
    }

    /// A name for debugging. A `&'static str`, so naming never allocates per motion.
    pub fn debug_name(mut self, name: &'static str) -> Self {
        self.debug_name = name;
        self
    }

    /// Called once when the motion completes (naturally or by `complete`).
    pub fn on_complete(mut self, f: impl FnMut() + Send + 'static) -> Self {
        self.on_complete = Some(Box::new(f));
        self
    }

    /// Called once when the motion is cancelled.
    pub fn on_cancel(mut self, f: impl FnMut() + Send + 'static) -> Self {
        self.on_cancel = Some(Box::new(f));
        self
    }

    /// Called in each update in which the completed-loop count rose, with the new count.
    pub fn on_loop_complete(mut self, f: impl FnMut(u32) + Send + 'static) -> Self {
        self.on_loop_complete = Some(Box::new(f));
        self
    }

    /// Also writes the value into a user's storage buffer in every update (see
    /// [`GpuTarget`]), alongside any bind. The world needs a GPU context; a target outside
    /// its buffer, a buffer without `STORAGE` usage, or a world without a context is a
    /// build error.
    pub fn target(mut self, target: GpuTarget) -> Self {
        self.target = Some(target);
        self
    }

    /// Adds the motion to `world`, writing its value into `target` in every update, on
    /// the GPU (with either executor; no readback). Shorthand for
    /// `self.target(target).run(world)`.
    pub fn bind_to_buffer(
        self,
        world: &mut MotionWorld,
        target: GpuTarget,
    ) -> Result<MotionHandle, BuildError> {
        self.target(target).run(world)
    }

    /// Adds the motion to `world`, calling `bind` with its value in every update that
    /// produces one (docs/semantics.md §6).
    pub fn bind(
        self,
        world: &mut MotionWorld,
        bind: impl FnMut(T) + Send + 'static,
    ) -> Result<MotionHandle, BuildError> {
        let built = {
            let rounding = self.rounding;
            self.build(Some(wrap_bind(bind, rounding)))
        }?;
        if let Some(target) = &built.target {
            world.check_target(target, T::LANES)?;
        }
        Ok(world.insert(built, None))
    }

    /// Adds the motion to `world` without a bind (read it with
    /// [`MotionWorld::value`], or through a GPU [`target`](Self::target)).
    pub fn run(self, world: &mut MotionWorld) -> Result<MotionHandle, BuildError> {
        let built = self.build(None)?;
        if let Some(target) = &built.target {
            world.check_target(target, T::LANES)?;
        }
        Ok(world.insert(built, None))
    }

    /// Like [`bind`](Self::bind), from inside a callback: validated now, added when the
    /// commands are applied. The handle is valid from then on.
    pub fn bind_deferred(
        self,
        commands: &MotionCommands,
        bind: impl FnMut(T) + Send + 'static,
    ) -> Result<MotionHandle, BuildError> {
        let built = {
            let rounding = self.rounding;
            self.build(Some(wrap_bind(bind, rounding)))
        }?;
        Ok(commands.spawn(built))
    }

    /// Like [`run`](Self::run), from inside a callback.
    pub fn run_deferred(self, commands: &MotionCommands) -> Result<MotionHandle, BuildError> {
        let built = self.build(None)?;
        Ok(commands.spawn(built))
    }

    /// Validates the motion of a [`Sequence`](crate::Sequence) (which has no bind).
    pub(crate) fn build_sequence(self) -> Result<BuiltMotion, BuildError> {
        self.build(None)
    }

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
    fn build(self, bind: Option<BindFn>) -> Result<BuiltMotion, BuildError> {
        let (from, to) = self.endpoints(self.from, self.to)?;
        let (mut row, params) = self.base_row()?;
        let (pairs, row_params) = self.pairs(from, to)?;
        if let Some(target) = &self.target {
            target.validate(T::LANES, target.buffer.size())?;
        }
        row.params = row_params;
        let has_callbacks = self.on_complete.is_some()
            || self.on_cancel.is_some()
            || self.on_loop_complete.is_some();
        let options = self.options();
        // Built in place (no intermediate `BuiltMotion`: its moves cost a `run` ~20%).
        Ok(BuiltMotion {
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
                    complete: self.on_complete,
                    cancel: self.on_cancel,
                    loop_complete: self.on_loop_complete,
                    completion: None,
                })
            }),
            curve: self.curve,
            target: self.target,
        })
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
    pub(super) fn pairs(&self, from: Lanes, to: Lanes) -> Result<([[f32; 2]; 4], u32), BuildError> {
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
    pub(super) fn checked_pairs(&self, from: T, to: T) -> Result<([[f32; 2]; 4], u32), BuildError> {
        let (from, to) = self.endpoints(from, to)?;
        self.pairs(from, to)
    }

    /// A batch's base: [`base_row`](Self::base_row) as a built motion without lanes,
    /// callbacks or target (the row's `params` word unset).
    pub(super) fn build_base(&self) -> Result<BuiltMotion, BuildError> {
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
    pub(super) fn rounding_mode(&self) -> RoundingMode {
        self.rounding
    }

    /// Whether the motion has callbacks or a target, which the motions of a batch cannot
    /// share (`"callbacks"` or `"a GPU target"`).
    pub(super) fn unshareable(&self) -> Option<&'static str> {
        if self.on_complete.is_some() || self.on_cancel.is_some() || self.on_loop_complete.is_some()
        {
            Some("callbacks")
        } else if self.target.is_some() {
            Some("a GPU target")
        } else {
            None
        }
    }
}

impl<T: Integer> Motion<T> {
    /// How the interpolated value is rounded to the integer (default
    /// [`RoundingMode::ToEven`]).
    ///
    /// ```
    /// use wgpu_tween::{Motion, MotionWorld, RoundingMode};
    ///
    /// let mut world = MotionWorld::new();
    /// let h = Motion::new(0i32, 5, 1.0)
    ///     .rounding(RoundingMode::AwayFromZero)
    ///     .run(&mut world)?;
    /// world.update(0.5)?; // 2.5
    /// assert_eq!(world.value::<i32>(h)?, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rounding(mut self, mode: RoundingMode) -> Self {
        self.rounding = mode;
        self
    }
}

impl<T: Vibrate> Motion<T> {
    /// A punch (docs/semantics.md §5): the value starts at `from`, vibrates around it with an
    /// amplitude of `strength` that decays over `duration` seconds, and ends at `from`:
    /// `from + strength·e^(−k·p)·sin(π·f·p)` with `k = ζ·f/(2π)` at eased progress `p`
    /// ([`frequency`](Self::frequency) `f`, default 10; [`damping_ratio`](Self::damping_ratio)
    /// `ζ`, default 1).
    ///
    /// ```
    /// use wgpu_tween::{Motion, MotionWorld};
    ///
    /// let mut world = MotionWorld::new();
    /// let h = Motion::punch(0.0f32, 2.0, 1.0).run(&mut world)?;
    /// world.update(0.05)?; // sin(π·10·0.05) = 1, e^(−0.05·10/2π) ≈ 0.9235
    /// assert!((world.value::<f32>(h)? - 1.847).abs() < 1e-3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn punch(from: T, strength: T, duration: f32) -> Self {
        let mut m = Self::new(from, strength, duration);
        m.adapter = Interpolation::Punch;
        m
    }

    /// A shake: like [`punch`](Self::punch), each lane's vibration multiplied by noise
    /// `n ∈ [−1, 1)` re-drawn every evaluation from a hash of the seed, the motion clock and
    /// the lane (the same bits on every executor). Without [`seed`](Self::seed) each shake
    /// gets a seed of its own (from its creation sequence number), so two shakes never move
    /// in lockstep.
    pub fn shake(from: T, strength: T, duration: f32) -> Self {
        let mut m = Self::new(from, strength, duration);
        m.adapter = Interpolation::Shake;
        m
    }

    /// Vibrations over the motion (punch and shake; default 10). Finite and ≥ 0.
    pub fn frequency(mut self, frequency: f32) -> Self {
        self.frequency = frequency;
        self
    }

    /// How fast the vibration decays (punch and shake; default 1; 0 never decays). Finite
    /// and ≥ 0.
    pub fn damping_ratio(mut self, damping_ratio: f32) -> Self {
        self.damping_ratio = damping_ratio;
        self
    }

    /// The shake's noise seed (default: one unique to the motion). Shakes with the same
    /// seed, settings and clock have the same values.
    pub fn seed(mut self, seed: u32) -> Self {
        self.seed = Some(seed);
        self
    }
}

impl Motion<Quat> {
    /// Interpolates with a normalized lerp along the shortest arc (LitMotion's quaternion
    /// adapter) instead of the default slerp: cheaper, but the angular velocity is not
    /// constant.
    pub fn nlerp(mut self) -> Self {
        self.adapter = Interpolation::Nlerp;
        self
    }

    /// Interpolates with a slerp along the shortest arc (the default).
    pub fn slerp(mut self) -> Self {
        self.adapter = Interpolation::Slerp;
        self
    }
}

pub(super) fn wrap_bind<T: Animatable>(
    mut bind: impl FnMut(T) + Send + 'static,
    rounding: RoundingMode,
) -> BindFn {
    Box::new(move |lanes| bind(T::from_lanes_rounded(*lanes, rounding)))
}

impl<T: Animatable + std::fmt::Debug> std::fmt::Debug for Motion<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Motion")
            .field("from", &self.from)
            .field("to", &self.to)
            .field("duration", &self.duration)
            .field("ease", &self.ease)
            .field("delay", &self.delay)
            .field("delay_type", &self.delay_type)
            .field("loops", &self.loops)
            .field("loop_type", &self.loop_type)
            .field("playback_speed", &self.speed)
            .field("parametric_ease", &self.parametric)
            .field("curve", &self.curve)
            .field("adapter", &self.adapter)
            .field("debug_name", &self.debug_name)
            .finish_non_exhaustive()
    }
}
