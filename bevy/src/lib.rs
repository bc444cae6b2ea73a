//! # bevy_wgpu_tween
//!
//! [wgpu-tween](https://github.com/)'s motions (LitMotion semantics) on Bevy 0.20 components:
//! a [`TweenPlugin`] owns one [`MotionWorld`] ([`Tweens`]), updates it once per frame from
//! Bevy's clocks, and copies each animated value into its component through a [`Lens`], one
//! parallel system per lens, with no closure per entity.
//!
//! ```
//! use bevy::prelude::*;
//! use bevy_wgpu_tween::*;
//!
//! let mut app = App::new();
//! app.add_plugins((MinimalPlugins, TweenPlugin));
//! // Frames of exactly 0.1 s, so the values below are exact.
//! app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
//!     std::time::Duration::from_millis(100),
//! ));
//! let ball = app.world_mut().spawn(Transform::default()).id();
//! app.world_mut()
//!     .commands()
//!     .entity(ball)
//!     .tween(Translation, Motion::new(Vec3::ZERO, Vec3::X * 10.0, 1.0));
//! app.update(); // the first frame has no delta in Bevy
//! for _ in 0..5 {
//!     app.update();
//! }
//! let x = app.world().get::<Transform>(ball).unwrap().translation.x;
//! assert!((x - 5.0).abs() < 1e-5); // half-way: 0.5 s of a 1 s linear tween
//! ```
//!
//! ## What it gives
//! - [`TweenCommandsExt`] on `EntityCommands`: [`tween`](TweenCommandsExt::tween) a lens
//!   with a [`Motion`] (every ease, loop type, delay, punch, shake, `Motion::to` from the
//!   current value), [`tween_transform`](TweenCommandsExt::tween_transform),
//!   [`tween_sequence`](TweenCommandsExt::tween_sequence) ([`TweenSequence`]), cancel and
//!   complete.
//! - Lenses: [`Translation`], [`Rotation`], [`Scale`], [`SpriteColor`] (feature `sprite`),
//!   [`BackgroundColorLens`] and the `Node` pixel lenses (feature `ui`), and yours
//!   ([`TweenAppExt::register_lens`]).
//! - Events, each a message and an entity event for observers: [`TweenStarted`],
//!   [`TweenLooped`] (for entities with [`LoopEvents`]), [`TweenCompleted`],
//!   [`TweenCanceled`]; and [`Tweens::completion`], a
//!   future. A command that cannot run is a [`TweenFailed`] message ([`TweenError`]), never
//!   a panic.
//! - Despawning an entity (or removing its [`Tweened`] component) cancels its tweens.
//!
//! Bevy's prelude has an `Ease` trait of its own: with both globs imported, name this
//! crate's `Ease` (`use bevy_wgpu_tween::Ease;`) where you use it.
//!
//! ## How values reach components
//!
//! Each registered lens has slots in host targets of the world: a tween's motion writes its
//! value there in the world's update ([`TweenSystems::Update`]); the lens's system then
//! copies it into the components of the entities marked [`Tweened<L>`]
//! ([`TweenSystems::Apply`]).

#![warn(missing_docs)]

mod commands;
mod error;
mod events;
mod lens;
mod plugin;
#[cfg(feature = "render")]
mod render;
mod sequence;
mod tweens;

pub use commands::TweenCommandsExt;
pub use error::TweenError;
pub use events::{
    LoopEvents, TweenCanceled, TweenCompleted, TweenFailed, TweenLooped, TweenStarted,
};
#[cfg(feature = "sprite")]
pub use lens::SpriteColor;
#[cfg(feature = "ui")]
pub use lens::{BackgroundColorLens, NodeHeight, NodeLeft, NodeTop, NodeWidth};
pub use lens::{Lens, LinearColor, Rotation, Scale, Translation};
pub use plugin::{TweenAppExt, TweenPlugin, TweenSystems};
#[cfg(feature = "render")]
pub use render::{TweenBuffer, TweenRenderPlugin};
pub use sequence::TweenSequence;
pub use tweens::{Tweened, Tweens};

pub use wgpu_tween;
pub use wgpu_tween::{Ease, LoopType, Motion, MotionHandle, MotionSettings, MotionWorld, TimeKind};
