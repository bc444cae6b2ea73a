//! The swarm's particles and their motions, shared by the WebGPU and the Canvas 2D paths.
//!
//! The particles are the native example's (`examples/swarm/particles.rs`, included here):
//! each has a position (`Vec3`) and a color (`Color`) motion with its own ease, delay and
//! loop type, both writing into one instance array of [`STRIDE`] f32s per particle. That
//! array is a GPU buffer (WebGPU) or a host array (the CPU fallback): the motions are bound
//! the same way to either.

use glam::Vec3;
use wgpu_tween::{BuildError, Color, MotionWorld, TargetId};

#[path = "../../examples/swarm/particles.rs"]
mod particles;
pub use particles::*;

/// The side of a particle's square at z = −1, in CSS pixels.
pub const POINT_PX: f32 = 2.0;
/// The seed of the particles (the native example's default, so both show the same swarm).
pub const SEED: u64 = 7;

/// The instance array at time 0: every particle's start values. Motions skip values during
/// their delay, so a delayed particle shows what is here until its delay ends.
#[must_use]
pub fn initial_instances(particles: &[Particle]) -> Vec<f32> {
    let mut instances = vec![0.0f32; particles.len() * STRIDE as usize];
    for (instance, p) in instances.chunks_exact_mut(STRIDE as usize).zip(particles) {
        instance[..3].copy_from_slice(&p.position.from[..3]);
        instance[3] = 1.0;
        instance[4..].copy_from_slice(&p.color.from);
    }
    instances
}

/// Adds every particle's two motions to `world`, writing into `target` (a GPU buffer or a
/// host array of at least `particles.len() · STRIDE` f32s).
pub fn bind_motions(
    world: &mut MotionWorld,
    target: TargetId,
    particles: &[Particle],
) -> Result<(), BuildError> {
    world.reserve(particles.len() * 2);
    for (index, p) in (0u32..).zip(particles) {
        let t = &p.position;
        let (from, to) = (Vec3::from_slice(&t.from), Vec3::from_slice(&t.to));
        t.motion(from, to)
            .bind_to_buffer(world, target.at(index, STRIDE, POSITION))?;
        let c = &p.color;
        let (from, to) = (
            Color::new(c.from[0], c.from[1], c.from[2], c.from[3]),
            Color::new(c.to[0], c.to[1], c.to[2], c.to[3]),
        );
        c.motion(from, to)
            .bind_to_buffer(world, target.at(index, STRIDE, COLOR))?;
    }
    Ok(())
}
