//! The motion builder: `Motion::new(from, to, duration)`, settings, then `bind` or `run`.
//! Validation and building are in `build.rs`.

mod build;
mod preset;
mod relative;
mod shared;
mod state;

pub use preset::MotionSettings;
pub(crate) use shared::SharedBind;
use shared::{share, Shared};

use crate::core::curve::AnimationCurve;
use crate::core::ease::{Ease, ParametricEase};
use crate::core::handle::{GroupId, MotionHandle};
use crate::core::settings::{DelayType, LoopType, TimeKind};
use crate::core::value::{Animatable, CheckedLanes, Integer, Interpolation, RoundingMode, Vibrate};
use crate::error::BuildError;
use crate::table::targets::Target;
use crate::world::bound_run::own_bind;
use crate::world::built::BuiltMotion;
use crate::world::callbacks::{EventFn, LoopFn};
use crate::world::{MotionCommands, MotionWorld};
use glam::Quat;

/// A motion being configured. Nothing touches a world until a terminal (`bind`, `run`, or
/// their `_deferred` forms) validates the settings.
///
/// A configured motion is a preset: clone it and run each clone (LitMotion's
/// `MotionSettings`, PrimeTween's `TweenSettings`). Clones share their callbacks: every
/// clone that runs calls the same `on_complete` closure. [`MotionSettings`] is the same
/// settings without the values, for data files and for applying to other values.
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
#[derive(Clone)]
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
    on_start: Option<Shared<EventFn>>,
    on_complete: Option<Shared<EventFn>>,
    on_cancel: Option<Shared<EventFn>>,
    on_loop_complete: Option<Shared<LoopFn>>,
    target: Option<Target>,
    group: Option<GroupId>,
    adapter: Interpolation,
    rounding: RoundingMode,
    frequency: f32,
    damping_ratio: f32,
    seed: Option<u32>,
    relative: relative::Relative,
}

impl<T: Animatable> Motion<T> {
    /// A motion from `from` to `to` over `duration` seconds: linear, one loop, no delay,
    /// speed 1, scaled time, immediate bind on, nothing skipped.
    #[inline]
    pub fn new(from: T, to: T, duration: f32) -> Self {
        let _ = CheckedLanes::<T>::LANES; // a compile-time error for more than four lanes
        Self {
            from,
            to: T::path_end(from, to),
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
            on_start: None,
            on_complete: None,
            on_cancel: None,
            on_loop_complete: None,
            target: None,
            group: None,
            adapter: T::INTERPOLATION,
            rounding: RoundingMode::ToEven,
            frequency: 10.0,
            damping_ratio: 1.0,
            seed: None,
            relative: relative::Relative::default(),
        }
    }

    /// The easing function (default [`Ease::Linear`]).
    #[inline]
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
    #[inline]
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
    #[inline]
    pub fn ease_curve(mut self, curve: &AnimationCurve) -> Self {
        self.curve = Some(curve.clone());
        self.parametric = None;
        self
    }

    /// Waits `delay` seconds before the first loop; the bind receives no values meanwhile.
    #[inline]
    pub fn delay(self, delay: f32) -> Self {
        self.delay_with(delay, DelayType::FirstLoop, true)
    }

    /// Waits `delay` seconds before the first loop or before every loop; with
    /// `skip_values_during_delay` false the bind keeps receiving the start value meanwhile.
    #[inline]
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
    #[inline]
    pub fn loops(mut self, loops: i32, loop_type: LoopType) -> Self {
        self.loops = loops;
        self.loop_type = loop_type;
        self
    }

    /// Which world clock drives the motion (default [`TimeKind::Scaled`]).
    #[inline]
    pub fn time_kind(mut self, time_kind: TimeKind) -> Self {
        self.time_kind = time_kind;
        self
    }

    /// Playback speed (default 1; 0 freezes, negative plays backwards).
    #[inline]
    pub fn playback_speed(mut self, speed: f32) -> Self {
        self.speed = speed;
        self
    }

    /// Whether `bind` calls the bind at once with the start value `E(0)` (default true).
    ///
    /// A sequence's children never bind at creation on their own: the sequence's immediate
    /// bind (this setting on the sequence's motion, in
    /// [`Sequence::run_with`](crate::Sequence::run_with)) binds them, and in every update a
    /// child that has not started binds its start value (docs/semantics.md §8). So
    /// `immediate_bind(false)` on a later step does not keep it from overwriting another
    /// motion of its property (a fade-in on `alpha` while a later step waits to fade
    /// `alpha`): use [`Sequence::bind_before_start(false)`](crate::Sequence::bind_before_start).
    #[inline]
    pub fn immediate_bind(mut self, on: bool) -> Self {
        self.immediate_bind = on;
        self
    }

    /// Whether a panic in the bind cancels the motion (default false: it is reported and
    /// the motion goes on).
    #[inline]
    pub fn cancel_on_error(mut self, on: bool) -> Self {
        self.cancel_on_error = on;
        self
    }

    /// Keeps the motion after it completes: it goes on binding its end value, can be rewound
    /// with [`MotionWorld::set_time`], and ends only when cancelled.
    #[inline]
    pub fn preserve(mut self) -> Self {
        self.preserve = true;
        self
    }

    /// A name for debugging. A `&'static str`, so naming never allocates per motion.
    #[inline]
    pub fn debug_name(mut self, name: &'static str) -> Self {
        self.debug_name = name;
        self
    }

    /// Called once when the motion starts: in the first update (or `set_time`,
    /// `complete`) that finds its delay over, after that update's bind delivered its first
    /// value and before loop-complete and complete (docs/semantics.md §6). Never again, even
    /// when the motion is rewound or replays its delay (every-loop delays).
    ///
    /// ```
    /// use wgpu_tween::{Motion, MotionWorld};
    /// use std::sync::{Arc, Mutex};
    ///
    /// let mut world = MotionWorld::new();
    /// let log = Arc::new(Mutex::new(Vec::new()));
    /// let (a, b) = (Arc::clone(&log), Arc::clone(&log));
    /// Motion::new(0.0f32, 1.0, 1.0)
    ///     .delay(0.5)
    ///     .on_start(move || a.lock().unwrap().push("start".to_owned()))
    ///     .bind(&mut world, move |x| b.lock().unwrap().push(format!("{x}")))?;
    /// world.update(0.25)?; // still in the delay: values skipped, no start
    /// world.update(0.5)?; // 0.25 s past the delay
    /// assert_eq!(*log.lock().unwrap(), ["0", "0.25", "start"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn on_start(mut self, f: impl FnMut() + Send + 'static) -> Self {
        self.on_start = Some(share(Box::new(f)));
        self
    }

    /// Runs the motion on `group`'s clock ([`MotionWorld::add_group`]): the group's pause,
    /// speed, cancel and complete apply to it, and its own
    /// [`time_kind`](Self::time_kind) gives way to the group's. An id the world does not
    /// know is [`BuildError::Group`] when built (a deferred spawn whose group was removed
    /// meanwhile runs on its own time kind).
    #[inline]
    pub fn group(mut self, group: GroupId) -> Self {
        self.group = Some(group);
        self
    }

    /// Called once when the motion completes (naturally or by `complete`).
    pub fn on_complete(mut self, f: impl FnMut() + Send + 'static) -> Self {
        self.on_complete = Some(share(Box::new(f)));
        self
    }

    /// Called once when the motion is cancelled.
    pub fn on_cancel(mut self, f: impl FnMut() + Send + 'static) -> Self {
        self.on_cancel = Some(share(Box::new(f)));
        self
    }

    /// Called in each update in which the completed-loop count rose, with the new count.
    pub fn on_loop_complete(mut self, f: impl FnMut(u32) + Send + 'static) -> Self {
        self.on_loop_complete = Some(share(Box::new(f)));
        self
    }

    /// Whether any of `on_start`, `on_complete`, `on_cancel` or `on_loop_complete` is set:
    /// for code that sets its own callbacks on a motion it is handed (which would replace
    /// the caller's).
    #[must_use]
    pub fn has_callbacks(&self) -> bool {
        self.on_start.is_some()
            || self.on_complete.is_some()
            || self.on_cancel.is_some()
            || self.on_loop_complete.is_some()
    }

    /// Also writes the value into a registered target in every update: a host array
    /// ([`MotionWorld::add_host_target`]) or a GPU buffer ([`MotionWorld::add_gpu_target`]),
    /// at the element index, stride and offset of `target` ([`TargetId::at`]), alongside
    /// any bind. An id this world does not know ([`TargetError::Unknown`]) or a place past
    /// the end ([`TargetError::OutOfBounds`]) is a build error
    /// ([`BuildError::Target`]), and nothing is added. Checking costs O(1): no buffer is
    /// cloned per motion.
    ///
    /// ```
    /// use wgpu_tween::{BuildError, Motion, MotionWorld};
    /// use wgpu_tween::error::TargetError;
    ///
    /// let mut world = MotionWorld::new();
    /// let scales = world.add_host_target(10)?;
    /// let h = Motion::new(1.0f32, 3.0, 1.0).target(scales.at(4, 1, 0)).run(&mut world)?;
    /// world.complete(h)?; // a finishing motion leaves its final value
    /// assert_eq!(world.host_target(scales).unwrap()[4], 3.0);
    /// let err = Motion::new(0.0f32, 1.0, 1.0).target(scales.at(10, 1, 0)).run(&mut world);
    /// assert_eq!(err, Err(BuildError::Target(TargetError::OutOfBounds { end: 11, len: 10 })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// [`TargetId::at`]: crate::TargetId::at
    /// [`TargetError::Unknown`]: crate::error::TargetError::Unknown
    /// [`TargetError::OutOfBounds`]: crate::error::TargetError::OutOfBounds
    #[inline]
    pub fn target(mut self, target: Target) -> Self {
        self.target = Some(target);
        self
    }

    /// Adds the motion to `world`, writing its value into `target` (a host array or a GPU
    /// buffer) in every update. Shorthand for `self.target(target).run(world)`.
    pub fn bind_to_buffer(
        self,
        world: &mut MotionWorld,
        target: Target,
    ) -> Result<MotionHandle, BuildError> {
        self.target(target).run(world)
    }

    /// Adds the motion to `world`, calling `bind` with its value in every update that
    /// produces one (docs/semantics.md §6).
    ///
    /// Motions bound one after another with closures of one type (made at one place in the
    /// code, say in a loop) keep their closures side by side, and an update calls them from
    /// one loop with the closure inlined: no box and no indirect call per motion. A motion
    /// made in between (or a bind of another type) starts a new run.
    pub fn bind(
        self,
        world: &mut MotionWorld,
        bind: impl FnMut(T) + Send + 'static,
    ) -> Result<MotionHandle, BuildError> {
        let rounding = self.rounding;
        self.add(world, |world, built| {
            world.insert_with_bind(built, bind, rounding)
        })
    }

    /// Adds the motion to `world` without a bind (read it with
    /// [`MotionWorld::value`], or through a [`target`](Self::target)).
    #[inline]
    pub fn run(self, world: &mut MotionWorld) -> Result<MotionHandle, BuildError> {
        self.add(world, |world, built| world.insert(built, None))
    }

    /// [`run`](Self::run) and [`bind`](Self::bind): checks the motion and what it names in
    /// `world`, then builds it where `insert` puts it into the world.
    #[inline]
    fn add(
        mut self,
        world: &mut MotionWorld,
        insert: impl FnOnce(&mut MotionWorld, BuiltMotion) -> MotionHandle,
    ) -> Result<MotionHandle, BuildError> {
        self.resolve(Some(world))?;
        let checked = self.check()?;
        world.check_built(self.target.as_ref(), self.group, T::LANES)?;
        Ok(insert(world, self.assemble(checked, None)))
    }

    /// Like [`bind`](Self::bind), from inside a callback: validated now, added when the
    /// commands are applied. The handle is valid from then on.
    pub fn bind_deferred(
        mut self,
        commands: &MotionCommands,
        bind: impl FnMut(T) + Send + 'static,
    ) -> Result<MotionHandle, BuildError> {
        self.resolve(None)?;
        let built = {
            let rounding = self.rounding;
            self.build(Some(own_bind(bind, rounding)))
        }?;
        Ok(commands.spawn(built))
    }

    /// Like [`run`](Self::run), from inside a callback.
    pub fn run_deferred(mut self, commands: &MotionCommands) -> Result<MotionHandle, BuildError> {
        self.resolve(None)?;
        let built = self.build(None)?;
        Ok(commands.spawn(built))
    }

    /// Validates the motion of a [`Sequence`](crate::Sequence) (which has no bind).
    pub(crate) fn build_sequence(self) -> Result<BuiltMotion, BuildError> {
        self.build(None)
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
    #[inline]
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
    #[inline]
    pub fn frequency(mut self, frequency: f32) -> Self {
        self.frequency = frequency;
        self
    }

    /// How fast the vibration decays (punch and shake; default 1; 0 never decays). Finite
    /// and ≥ 0.
    #[inline]
    pub fn damping_ratio(mut self, damping_ratio: f32) -> Self {
        self.damping_ratio = damping_ratio;
        self
    }

    /// The shake's noise seed (default: one unique to the motion). Shakes with the same
    /// seed, settings and clock have the same values.
    #[inline]
    pub fn seed(mut self, seed: u32) -> Self {
        self.seed = Some(seed);
        self
    }
}

impl Motion<Quat> {
    /// Interpolates with a normalized lerp along the shortest arc (LitMotion's quaternion
    /// adapter) instead of the default slerp: cheaper, but the angular velocity is not
    /// constant.
    #[inline]
    pub fn nlerp(mut self) -> Self {
        self.adapter = Interpolation::Nlerp;
        self
    }

    /// Interpolates with a slerp along the shortest arc (the default).
    #[inline]
    pub fn slerp(mut self) -> Self {
        self.adapter = Interpolation::Slerp;
        self
    }
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
