//! The GPU executor: the motion rows copied into storage buffers, evaluated by one WGSL
//! compute pass per update, a dispatch per run of rows of one shape with the pipeline
//! variant of that shape (see `shaders/` and `variants.rs`).
//!
//! Attach a context with [`MotionWorld::with_gpu`](crate::MotionWorld::with_gpu); the world
//! then picks the executor by [`Executor`](crate::Executor). Values of motions with a CPU bind
//! come back through a small gather pass and a ring of staging buffers
//! ([`ReadbackMode`]); everything else stays on the GPU, or goes straight into user buffers
//! registered as targets ([`MotionWorld::add_gpu_target`](crate::MotionWorld::add_gpu_target)).

mod buffers;
mod changes;
mod context;
mod curve_keys;
mod evaluate;
pub(crate) mod executor;
mod header;
pub mod layout;
mod pipelines;
mod readback;
pub mod shaders;
mod stats;
mod table;
pub(crate) mod targets;
mod timing;
mod variants;

pub use crate::error::GpuError;
pub use context::GpuContext;
pub use readback::ReadbackMode;
pub use stats::GpuUpdateStats;

/// The label of an object made every update (command encoders, passes, per-frame bind
/// groups): `name` in debug builds, none in release builds, where wgpu would copy it into a
/// new `String` per object, a heap allocation per update that a steady state should not
/// make. Long-lived objects (buffers, pipelines) keep their labels.
#[inline]
#[must_use]
pub(crate) const fn transient_label(name: &'static str) -> Option<&'static str> {
    if cfg!(debug_assertions) {
        Some(name)
    } else {
        None
    }
}
