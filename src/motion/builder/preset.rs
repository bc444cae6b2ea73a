//! Presets: [`MotionSettings`], a motion's settings without its values, and what a sequence
//! template builds from a motion each time it runs.

use super::shared::{lock, SharedBind};
use super::Motion;
use crate::core::curve::AnimationCurve;
use crate::core::ease::{Ease, ParametricEase};
use crate::core::settings::{DelayType, LoopType, TimeKind};
use crate::core::value::Animatable;
use crate::error::BuildError;
use crate::world::bound_run::own_bind;
use crate::world::built::BuiltMotion;
use crate::world::MotionWorld;

/// A motion's settings without its values, bind, callbacks or target: a preset to apply to
/// any values ([`Motion::with_settings`]), and with the `serde` feature what a data file
/// holds (LitMotion's `SerializableMotionSettings`). Validated when the motion is built,
/// like the builder's settings. A missing field in a data file takes its default, which is
/// [`Motion::new`]'s.
///
/// Not included: the value adapter (punch, shake, nlerp) and its parameters, integer
/// rounding, the debug name.
///
/// ```
/// use wgpu_tween::{Ease, LoopType, Motion, MotionSettings, MotionWorld};
///
/// let pop = MotionSettings {
///     duration: 0.5,
///     ease: Ease::OutQuad,
///     loops: 2,
///     loop_type: LoopType::Yoyo,
///     ..MotionSettings::default()
/// };
/// let mut world = MotionWorld::new();
/// let h = Motion::new(0.0f32, 4.0, 1.0).with_settings(&pop).run(&mut world)?;
/// world.update(0.25)?; // OutQuad(0.5) = 0.75
/// assert_eq!(world.value::<f32>(h)?, 3.0);
/// assert_eq!(world.total_duration(h)?, 1.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(default, deny_unknown_fields)
)]
pub struct MotionSettings {
    /// Seconds per loop.
    pub duration: f32,
    /// The standard ease, used when there is no parametric ease or curve.
    pub ease: Ease,
    /// A parametric ease, used when there is no curve ([`Motion::ease_with`]).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub parametric_ease: Option<ParametricEase>,
    /// An animation curve as the ease ([`Motion::ease_curve`]).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub curve: Option<AnimationCurve>,
    /// Seconds of delay ([`Motion::delay_with`]).
    pub delay: f32,
    /// Where the delay applies.
    pub delay_type: DelayType,
    /// Whether the bind receives no values during the delay.
    pub skip_values_during_delay: bool,
    /// Loops (-1 = forever).
    pub loops: i32,
    /// How loops repeat.
    pub loop_type: LoopType,
    /// Which world clock drives the motion.
    pub time_kind: TimeKind,
    /// Playback speed.
    pub playback_speed: f32,
    /// Whether `bind` binds the start value at once.
    pub immediate_bind: bool,
    /// Whether a panicking bind cancels the motion.
    pub cancel_on_error: bool,
    /// Whether the motion is kept after it completes ([`Motion::preserve`]).
    pub preserve: bool,
}

impl Default for MotionSettings {
    /// [`Motion::new`]'s settings, with a duration of 1 second.
    fn default() -> Self {
        Motion::new(0.0f32, 0.0, 1.0).settings()
    }
}

impl<T: Animatable> Motion<T> {
    /// This motion's settings (its values, bind, callbacks and target left out).
    #[must_use]
    pub fn settings(&self) -> MotionSettings {
        MotionSettings {
            duration: self.duration,
            ease: self.ease,
            parametric_ease: self.parametric,
            curve: self.curve.clone(),
            delay: self.delay,
            delay_type: self.delay_type,
            skip_values_during_delay: self.skip_values_during_delay,
            loops: self.loops,
            loop_type: self.loop_type,
            time_kind: self.time_kind,
            playback_speed: self.speed,
            immediate_bind: self.immediate_bind,
            cancel_on_error: self.cancel_on_error,
            preserve: self.preserve,
        }
    }

    /// This motion with every field of `settings` (its duration included); values, adapter,
    /// callbacks and target stay.
    pub fn with_settings(mut self, settings: &MotionSettings) -> Self {
        self.duration = settings.duration;
        self.ease = settings.ease;
        self.parametric = settings.parametric_ease;
        self.curve.clone_from(&settings.curve);
        self.delay = settings.delay;
        self.delay_type = settings.delay_type;
        self.skip_values_during_delay = settings.skip_values_during_delay;
        self.loops = settings.loops;
        self.loop_type = settings.loop_type;
        self.time_kind = settings.time_kind;
        self.speed = settings.playback_speed;
        self.immediate_bind = settings.immediate_bind;
        self.cancel_on_error = settings.cancel_on_error;
        self.preserve = settings.preserve;
        self
    }

    /// A clone of this motion built for `world`, binding to `bind` (a sequence template's
    /// child, built anew each time the template runs). Nothing is added yet. No immediate
    /// bind of its own: the sequence's start binds its children in order (§8).
    pub(crate) fn build_template(
        &self,
        world: &MotionWorld,
        bind: Option<&SharedBind<T>>,
    ) -> Result<BuiltMotion, BuildError> {
        let bind = bind.map(|bind| {
            let bind = SharedBind::clone(bind);
            own_bind(move |v: T| lock(&bind)(v), self.rounding)
        });
        let mut built = self.clone().build(bind)?;
        built.options.immediate_bind = false;
        if let Some(target) = &built.target {
            world.check_target(target, T::LANES)?;
        }
        Ok(built)
    }
}
