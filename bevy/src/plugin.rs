//! [`TweenPlugin`]: the world's update, the lenses' copy systems and the events, each frame.

use bevy::prelude::*;
use wgpu_tween::{Animatable, TimeDeltas};

use crate::events::{
    deliver, TweenCanceled, TweenCompleted, TweenFailed, TweenLooped, TweenStarted,
};
use crate::lens::{Lens, Rotation, Scale, Translation};
use crate::tweens::{Tweened, Tweens};

/// Runs the tweens: adds [`Tweens`] (unless the app already has one), the events and,
/// in `PostUpdate`, the [`TweenSystems`].
///
/// Clocks: a motion's [`TimeKind`](wgpu_tween::TimeKind) `Scaled` (the default) runs on
/// `Time<Virtual>` (paused with it, at its relative speed); `Unscaled` and `Realtime` run on
/// `Time<Real>`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TweenPlugin;

/// The plugin's systems, in `PostUpdate`, in this order, all before transform propagation
/// (`TransformSystems::Propagate`) and UI layout (`UiSystems::Prepare`), so a tween started
/// in `Update` moves the same frame and what it writes is drawn that frame. Order your
/// systems against them (`.after(TweenSystems::Apply)` to read this frame's values).
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TweenSystems {
    /// The world advances by the frame's deltas.
    Update,
    /// Each lens's values are copied into its components.
    Apply,
    /// Started, looped, completed and canceled events are sent; finished tweens'
    /// [`Tweened`] components are removed.
    Events,
}

impl Plugin for TweenPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<Tweens>()
            .add_message::<TweenStarted>()
            .add_message::<TweenLooped>()
            .add_message::<TweenCompleted>()
            .add_message::<TweenCanceled>()
            .add_message::<TweenFailed>()
            .configure_sets(
                PostUpdate,
                (
                    TweenSystems::Update,
                    TweenSystems::Apply,
                    TweenSystems::Events,
                )
                    .chain()
                    .before(bevy::transform::TransformSystems::Propagate),
            )
            .add_systems(PostUpdate, advance.in_set(TweenSystems::Update))
            .add_systems(PostUpdate, deliver.in_set(TweenSystems::Events))
            .register_lens::<Translation>()
            .register_lens::<Rotation>()
            .register_lens::<Scale>();
        #[cfg(feature = "sprite")]
        app.register_lens::<crate::lens::SpriteColor>();
        #[cfg(feature = "ui")]
        app.configure_sets(
            PostUpdate,
            TweenSystems::Events.before(bevy::ui::UiSystems::Prepare),
        )
        .register_lens::<crate::lens::BackgroundColorLens>()
        .register_lens::<crate::lens::NodeLeft>()
        .register_lens::<crate::lens::NodeTop>()
        .register_lens::<crate::lens::NodeWidth>()
        .register_lens::<crate::lens::NodeHeight>();
    }
}

/// Registering lenses on an `App`.
pub trait TweenAppExt {
    /// Lets tweens animate lens `L`: adds its copy system to [`TweenSystems::Apply`]. The
    /// plugin registers its own lenses; call this for yours, after adding the plugin.
    /// Registering a lens twice does nothing.
    fn register_lens<L: Lens>(&mut self) -> &mut Self;
}

impl TweenAppExt for App {
    fn register_lens<L: Lens>(&mut self) -> &mut Self {
        let mut tweens = self.world_mut().get_resource_or_init::<Tweens>();
        if tweens.table::<L>().is_none() {
            tweens.register::<L>();
            self.add_systems(PostUpdate, apply::<L>.in_set(TweenSystems::Apply));
        }
        self
    }
}

/// Advances the world by the frame's deltas.
fn advance(
    mut tweens: ResMut<Tweens>,
    virtual_time: Res<Time<Virtual>>,
    real_time: Res<Time<Real>>,
    mut failed: MessageWriter<TweenFailed>,
) {
    let real = real_time.delta_secs_f64();
    let deltas = TimeDeltas {
        scaled: virtual_time.delta_secs_f64(),
        unscaled: real,
        realtime: real,
    };
    let world = tweens.world_mut();
    if let Err(e) = world.update_with(deltas) {
        tracing::warn!("bevy_wgpu_tween: {e}");
        failed.write(TweenFailed {
            entity: None,
            error: e.into(),
        });
    }
    for e in world.take_callback_errors() {
        tracing::warn!("bevy_wgpu_tween: {e}");
    }
}

/// Copies lens `L`'s values from its slots into the components (in parallel).
fn apply<L: Lens>(
    mut tweens: ResMut<Tweens>,
    mut tweened: Query<(&mut L::Component, &Tweened<L>)>,
) {
    let Some((table, world)) = tweens.table_and_world::<L>() else {
        return;
    };
    let arrays = table.arrays(world);
    let lanes = <L::Value as Animatable>::LANES;
    tweened.par_iter_mut().for_each(|(mut component, t)| {
        let value = <L::Value as Animatable>::from_lanes(t.lanes(&arrays, lanes));
        L::set(&mut component, value);
    });
}
