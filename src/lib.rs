//! # wgpu-tween
//!
//! Tweens ("motions") with [LitMotion](https://github.com/annulusgames/LitMotion)'s
//! semantics, built for a million motions per frame: a motion's state is a pure function of
//! world time, rows are dense Pod columns, and an executor evaluates them all in one pass:
//! the CPU executor, or the GPU executor (a WGSL compute pass over the same rows copied into
//! storage buffers, writing values straight into a renderer's buffers).
//!
//! ```
//! use wgpu_tween::{Ease, LoopType, Motion, MotionWorld};
//! use std::sync::{Arc, Mutex};
//!
//! let mut world = MotionWorld::new();
//! let x = Arc::new(Mutex::new(0.0f32));
//! let sink = Arc::clone(&x);
//! let handle = Motion::new(0.0f32, 10.0, 1.0)
//!     .ease(Ease::OutQuad)
//!     .loops(2, LoopType::Yoyo)
//!     .on_complete(|| println!("done"))
//!     .bind(&mut world, move |v| *sink.lock().unwrap() = v)?;
//!
//! world.update(0.5)?; // half-way through the first loop: OutQuad(0.5) = 0.75
//! assert_eq!(*x.lock().unwrap(), 7.5);
//! world.update(1.5)?; // past the end of the second (backward) loop
//! assert_eq!(*x.lock().unwrap(), 0.0);
//! assert!(!world.is_active(handle)); // completed and removed
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The behaviour is specified in the repository's `docs/semantics.md` (LitMotion 2.0.2 plus
//! fixes of its known defects) and checked against the conformance vectors in
//! `tests/conformance/vectors/` on every executor; `docs/design.md` describes the design.
//!
//! ## Time
//!
//! One rule: **clocks are `f64`, what a motion stores is `f32`.** Seconds that run a clock
//! are `f64`, as they must stay exact over hours: the world's deltas and times
//! ([`MotionWorld::update`], [`TimeDeltas`], [`MotionWorld::world_time`]), a motion's clock
//! ([`MotionWorld::set_time`], [`MotionWorld::time`], [`MotionWorld::total_duration`]) and a
//! group's clock and speed ([`MotionWorld::set_group_speed`]). What each motion stores is
//! `f32`, as its row is 4-byte lanes on both executors: duration, delay, intervals,
//! playback speed ([`MotionWorld::set_playback_speed`]) and progress. The methods that take
//! an `f64` take an `f32` as well (`impl Into<f64>`), so `world.update(dt)` works with the
//! `f32` delta most engines give.
//!
//! ## Map
//! - [`Motion`]: the builder; [`MotionWorld`]: clocks, slots, callbacks, updates;
//!   [`MotionHandle`]: generational handles; [`MotionCommands`]: changes from callbacks.
//! - [`Ease`]: the 31 easing functions; [`ParametricEase`] (Back, Elastic, Steps, CSS
//!   cubic-bezier) via [`Motion::ease_with`]; [`AnimationCurve`] (keyframes, Unity
//!   semantics) via [`Motion::ease_curve`].
//! - [`Animatable`]: how values map to lanes. Built in: `f32`, `f64`, `i32`/`i64` (with a
//!   [`RoundingMode`]), glam `Vec2`/`Vec3`/`Vec4`/`Quat` (slerp, or [`Motion::nlerp`]),
//!   [`Color`], [`Angle`] (the shorter arc), `[f32; N]`; [`Motion::punch`] and
//!   [`Motion::shake`] for `f32`, `Vec2`, `Vec3`; text reveals ([`TextReveal`],
//!   [`Motion::bind_text`]); your own types by hand or with `#[derive(Animatable)]`
//!   (feature `derive`). [`glam`] and [`wgpu`] are re-exported.
//! - Targets: arrays motions write their values into, registered once
//!   ([`MotionWorld::add_host_target`], read as `&[f32]` with [`MotionWorld::host_target`];
//!   [`MotionWorld::add_gpu_target`], a storage buffer filled on the GPU, or
//!   [`MotionWorld::add_gpu_target_with`] a [`TargetFormat`]: unorm8, float16) and addressed
//!   per motion by [`TargetId::at`] and [`Motion::target`]. [`Motion::to`] and
//!   [`Motion::by`] start from a host target's current value; [`Motion::at_speed`] times a
//!   motion by its speed.
//! - Batches: [`Motion::run_batch`] and [`Motion::bind_batch`] add many motions of one
//!   configuration in one call, each with its own [`BatchItem`] (endpoints, target);
//!   [`Motion::bind_batch_indexed`] gives them one bind, called with each motion's index.
//! - [`error`]: every error type, with the table of which bad input gives which.
//! - [`gpu`]: [`GpuContext`](gpu::GpuContext) (own device or a renderer's), readback modes;
//!   attach with [`MotionWorld::with_gpu`] and choose with [`Executor`]; settings and
//!   counters through [`MotionWorld::gpu`] and [`MotionWorld::gpu_mut`].
//! - [`Sequence`]: motions placed on one timeline (append, join, insert, intervals, nesting),
//!   run as one motion with its own ease, loops and callbacks; of [`Motion`]s (a
//!   [`SequenceChild`] each) it is a template, run any number of times.
//! - Presets: [`Motion`] is `Clone`; [`MotionSettings`] (settings without values),
//!   [`MotionData`] (with values) and [`SequenceData`] are plain data, read from files with
//!   the `serde` feature. [`Motion::bind_with`]: a bind with a state argument.
//! - [`MotionWorld::completion`]: a future per motion; [`MotionWorld::debug_snapshot`]: a
//!   table of the live motions.
//! - Features: `gpu` (on by default: the GPU executor, GPU targets, [`gpu`] and the
//!   re-exported `wgpu`; `default-features = false` builds the CPU executor alone, without
//!   wgpu), `derive` (`#[derive(Animatable)]`), `log` (records with target `wgpu_tween`:
//!   the executor chosen and why, GPU faults and fallbacks, callback panics), `serde`
//!   (`Serialize`/`Deserialize` for settings, eases, curves, sequence data and glam values),
//!   `window` (the swarm example's window; implies `gpu`).
//!
//! ## The web
//!
//! The crate builds for `wasm32-unknown-unknown`, where nothing may block: make the context
//! with [`GpuContext::new_async`](gpu::GpuContext::new_async), and await
//! [`MotionWorld::update_async`] for this update's values of GPU-evaluated binds (the
//! synchronous [`MotionWorld::update`] reads them an update late there, as
//! [`ReadbackMode::Pipelined`](gpu::ReadbackMode) does, the web's default). GPU errors are
//! returned by the next update. The CPU executor runs on one thread. The repository's `web/`
//! holds a swarm drawn in a canvas and the browser tests.

#![warn(missing_docs)]

// Layers, bottom to top: core (with error), eval, table, exec, world, motion. Each imports
// only from the layers below it (`scripts/check-layers` checks).
mod core;
pub mod error;
mod eval;
mod exec;
mod motion;
mod table;
mod world;

pub use crate::core::angle::Angle;
pub use crate::core::curve::{
    AnimationCurve, Keyframe, WeightedMode, WrapMode, MAX_CURVE_KEYS, MAX_CURVE_MAGNITUDE,
};
pub use crate::core::ease::{
    Ease, EaseMode, ParametricEase, UnknownEase, MAX_EASE_PARAMETER, MIN_ELASTIC_PERIOD,
};
pub use crate::core::handle::{GroupId, MotionHandle};
pub use crate::core::settings::{DelayType, LoopType, MotionStatus, TimeKind};
pub use crate::core::value::{Animatable, Color, Integer, Interpolation, RoundingMode, Vibrate};
pub use error::{BuildError, GroupError, MotionError, SequenceChildError, UpdateError};
pub use motion::batch::BatchItem;
pub use motion::builder::{Motion, MotionSettings};
pub use motion::data::{MotionData, SequenceData, SequenceStep};
pub use motion::sequence::{Sequence, SequenceChild, MAX_SEQUENCE_DEPTH};
pub use motion::text::{ScrambleMode, TextReveal};
pub use table::host_targets::MAX_HOST_TARGET_LEN;
pub use table::targets::{Target, TargetFormat, TargetId};
/// `#[derive(Animatable)]` (feature `derive`): a struct of lerped fields (`f32`, glam vectors,
/// [`Color`], [`Angle`], ...) animates as their lanes side by side, at most four in all.
#[cfg(feature = "derive")]
pub use wgpu_tween_derive::Animatable;
pub use world::callbacks::{CallbackError, CallbackKind};
pub use world::{
    Canceled, Completion, DebugEntry, DebugSnapshot, EvaluateProfile, Executor, MotionCommands,
    MotionWorld, TimeDeltas, MAX_GROUPS, MAX_TIME, WARP_ROWS,
};
#[cfg(feature = "gpu")]
pub use world::{WorldGpu, WorldGpuMut};

/// The glam this crate animates (`Vec2`, `Vec3`, `Vec4`, `Quat`): use it to match versions.
pub use glam;
/// The wgpu this crate runs on: use it to match versions when sharing a renderer's device.
#[cfg(feature = "gpu")]
pub use wgpu;

/// The GPU side: a [`GpuContext`](gpu::GpuContext) (an own device or a renderer's), readback
/// modes and per-update counters. Attach a context with [`MotionWorld::with_gpu`]; register a
/// renderer's buffer as a target with [`MotionWorld::add_gpu_target`] (feature `gpu`, on by
/// default).
#[cfg(feature = "gpu")]
pub mod gpu {
    pub use crate::exec::gpu::{GpuContext, GpuError, GpuUpdateStats, ReadbackMode};
}

/// Internals for the fuzz crate and the crate's own tests: not part of the public API and not
/// covered by semver.
#[doc(hidden)]
pub mod internals {
    pub use crate::core::row::MotionRow;
    pub use crate::eval::adapters::shake_noise;
    pub use crate::eval::{progress, Progress};
}

/// Compiles the README's Rust examples as doctests (some use the GPU side).
#[cfg(all(doctest, feature = "gpu"))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
