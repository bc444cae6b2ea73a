//! The swarm's particles: each a position (`Vec3`) and a color (`Color`) track with its own
//! ease, delay and loop type, writing into one instance array of [`STRIDE`] f32s (position
//! at 0..3, an unused f32 at 3, color at 4..8), and where a particle lands on screen. Shared
//! by the native example (`render.rs`, and through it `tests/swarm.rs`) and the web swarm
//! (`web/src/swarm.rs`), so both show the same swarm.

use glam::Vec3;
use wgpu_tween::{Animatable, BuildError, Color, Ease, LoopType, Motion, MotionWorld, TargetId};

/// f32s per particle in the instance array.
pub const STRIDE: u32 = 8;
/// Offset of the position (3 f32s) in an instance, in f32s.
pub const POSITION: u32 = 0;
/// Offset of the color (4 f32s) in an instance, in f32s.
pub const COLOR: u32 = 4;
/// How much farther particles (larger z) shrink: scale `1 / (1 + DEPTH_K · (z + 1))`.
pub const DEPTH_K: f32 = 0.35;

/// The eases particles use (`tests/swarm.rs` evaluates them independently).
pub const EASES: [Ease; 7] = [
    Ease::Linear,
    Ease::InQuad,
    Ease::OutQuad,
    Ease::InOutQuad,
    Ease::OutCubic,
    Ease::InOutSine,
    Ease::OutBack,
];
/// The loop types particles use (all loop forever).
pub const LOOP_TYPES: [LoopType; 3] = [LoopType::Yoyo, LoopType::Restart, LoopType::Flip];

/// One motion of a particle: lanes `from → to` over `duration` seconds after a first-loop
/// `delay`, eased, looping forever.
#[derive(Clone, Copy, Debug)]
pub struct Track {
    /// Start value (lanes; a position uses 3).
    pub from: [f32; 4],
    /// End value.
    pub to: [f32; 4],
    /// Seconds per loop.
    pub duration: f32,
    /// Seconds before the first loop (values are skipped meanwhile: the array keeps `from`).
    pub delay: f32,
    /// The ease.
    pub ease: Ease,
    /// The loop type.
    pub loop_type: LoopType,
}

impl Track {
    /// The track's motion `from → to`: looping forever, with its ease and delay.
    pub fn motion<T: Animatable>(&self, from: T, to: T) -> Motion<T> {
        let motion = Motion::new(from, to, self.duration)
            .ease(self.ease)
            .loops(-1, self.loop_type);
        if self.delay > 0.0 {
            motion.delay(self.delay)
        } else {
            motion
        }
    }
}

/// A particle: its position and color motions.
#[derive(Clone, Copy, Debug)]
pub struct Particle {
    /// Position (`Vec3`), in view space: x and y in about [−1, 1], z in [−1, 1].
    pub position: Track,
    /// Color (`Color`, linear RGBA; alpha stays 1).
    pub color: Track,
}

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `n` particles from `seed`: each flies from a point in a ball to a point on a three-armed
/// spiral and back (mostly Yoyo; some Restart or Flip), fading from warm to cool colors, with
/// varied eases, durations and delays.
#[must_use]
pub fn particles(n: usize, seed: u64) -> Vec<Particle> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|i| {
            // A point in the ball: rejection sampling.
            let from = loop {
                let p = Vec3::new(rng.unit(), rng.unit(), rng.unit()) * 2.0 - 1.0;
                if p.length_squared() <= 1.0 {
                    break p * 0.85;
                }
            };
            let arm = (i % 3) as f32 * std::f32::consts::TAU / 3.0;
            let r = 0.08 + 0.8 * rng.unit().sqrt();
            let angle = arm + r * 4.0 + (rng.unit() - 0.5) * 0.5;
            let to = Vec3::new(
                r * angle.cos(),
                r * angle.sin() * 0.8,
                (rng.unit() - 0.5) * 0.3,
            );
            let warm = [1.0, 0.55 + 0.4 * rng.unit(), 0.2 + 0.3 * rng.unit(), 1.0];
            // Each arm ends in its own hue.
            let jitter = 0.15 * rng.unit();
            let cool = match i % 3 {
                0 => [0.15 + jitter, 0.65 + jitter, 1.0, 1.0],
                1 => [1.0, 0.3 + jitter, 0.75 + jitter, 1.0],
                _ => [0.55 + jitter, 1.0, 0.45 + jitter, 1.0],
            };
            // Mostly Yoyo (the swarm gathers into the spiral and back), some Restart and Flip.
            let loop_type = |k: usize| LOOP_TYPES[[1, 2, 0, 0, 0][k % 5]];
            let duration = 2.0 + 0.6 * rng.unit();
            Particle {
                position: Track {
                    from: [from.x, from.y, from.z, 0.0],
                    to: [to.x, to.y, to.z, 0.0],
                    duration,
                    // The outer arms set off later.
                    delay: if i % 4 == 0 { 0.0 } else { 0.5 * r },
                    ease: EASES[i % EASES.len()],
                    loop_type: loop_type(i),
                },
                color: Track {
                    from: warm,
                    to: cool,
                    duration: duration * (0.8 + 0.4 * rng.unit()),
                    delay: if i % 3 == 0 { 0.3 * rng.unit() } else { 0.0 },
                    ease: EASES[(i / 2 + 3) % EASES.len()],
                    loop_type: loop_type(i / 3),
                },
            }
        })
        .collect()
}

/// Where a view-space position lands in a `width` × `height` image: the center in pixels
/// (x right, y down) and the half-size of its square in pixels for `point_px`-pixel points.
/// The vertex shaders compute the same.
#[must_use]
pub fn project(p: [f32; 3], width: u32, height: u32, point_px: f32) -> (f32, f32, f32) {
    let s = 1.0 / (1.0 + DEPTH_K * (p[2] + 1.0));
    let (x, y) = (p[0] * s, p[1] * s);
    (
        (x * 0.5 + 0.5) * width as f32,
        (0.5 - y * 0.5) * height as f32,
        0.5 * point_px * s,
    )
}

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
