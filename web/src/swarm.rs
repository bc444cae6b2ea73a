//! The swarm's particles and their motions, shared by the WebGPU and the Canvas 2D paths.
//!
//! The particles are the native example's (`examples/swarm/particles.rs`, included here):
//! each has a position (`Vec3`) and a color (`Color`) motion with its own ease, delay and
//! loop type, both writing into one instance array of [`STRIDE`] f32s per particle. That
//! array is a GPU buffer (WebGPU) or a host array (the CPU fallback): the motions are bound
//! the same way to either.

#[path = "../../examples/swarm/particles.rs"]
mod particles;
pub use particles::*;

/// The side of a particle's square at z = −1, in CSS pixels.
pub const POINT_PX: f32 = 2.0;
/// The seed of the particles (the native example's default, so both show the same swarm).
pub const SEED: u64 = 7;
