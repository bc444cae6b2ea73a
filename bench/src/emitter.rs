//! The emitter benchmark (`cargo run --release -- emitter`): a particle emitter's steady
//! state, in wgpu-tween and in a hand-written `Vec`, in one process.
//!
//! Every frame (1/60 s) spawns `spawn` `f32` particles, OutQuad from 0 to their index, each
//! living `life` frames (it finishes in its `life`-th update), writing into a ring of
//! `spawn × life` values that is read every frame (the renderer's array). wgpu-tween spawns
//! them with one `run_batch_detached` into a host target; the floor pushes them onto a `Vec`,
//! evaluates every live one, writes its value and swap-removes the finished ones, on one
//! thread. The figure is the wall time of a frame (spawn, update, read) per spawned particle:
//! a particle's whole life. Frames before the steady state (the first `2 × life`) are not
//! measured.

use std::hint::black_box;
use std::time::{Duration, Instant};

use wgpu_tween::{BatchItem, Ease, Motion, MotionWorld};

/// Frame delta, seconds.
pub const FRAME: f64 = 1.0 / 60.0;

/// One configuration's result.
#[derive(Clone, Copy, Debug)]
pub struct EmitterCell {
    /// Particles spawned per frame.
    pub spawn: usize,
    /// Frames each lives.
    pub life: usize,
    /// wgpu-tween's CPU executor threads.
    pub threads: usize,
    /// Particles live at the end.
    pub live: usize,
    /// wgpu-tween, ns per spawned particle.
    pub ours_ns: f64,
    /// The hand-written floor (one thread), ns per spawned particle.
    pub floor_ns: f64,
}

impl EmitterCell {
    /// `ours_ns / floor_ns`.
    #[must_use]
    pub fn ratio(&self) -> f64 {
        self.ours_ns / self.floor_ns.max(f64::MIN_POSITIVE)
    }
}

/// Each particle's duration: it finishes in its `life`-th update.
fn duration(life: usize) -> f32 {
    ((life as f64 - 0.5) * FRAME) as f32
}

/// Runs `frame` through the warm-up and then until `secs` have been measured (at least
/// `life` frames); returns ns per spawned particle.
fn measure(spawn: usize, life: usize, secs: f64, mut frame: impl FnMut(usize)) -> f64 {
    let mut index = 0;
    for _ in 0..2 * life {
        frame(index);
        index += 1;
    }
    let (start, mut frames) = (Instant::now(), 0usize);
    while frames < life || start.elapsed() < Duration::from_secs_f64(secs) {
        frame(index);
        index += 1;
        frames += 1;
    }
    start.elapsed().as_nanos() as f64 / (frames * spawn) as f64
}

/// wgpu-tween's emitter: returns (ns per particle, particles live).
///
/// # Errors
/// If a motion or the host target is refused.
pub fn ours(
    spawn: usize,
    life: usize,
    threads: usize,
    secs: f64,
) -> Result<(f64, usize), Box<dyn std::error::Error>> {
    let mut world = MotionWorld::new();
    world.set_cpu_threads(threads);
    let ring = world.add_host_target(spawn * life)?;
    let particle = Motion::new(0.0f32, 0.0, duration(life)).ease(Ease::OutQuad);
    let mut failed = None;
    let ns = measure(spawn, life, secs, |frame| {
        let base = (frame % life) * spawn;
        let spawned = particle.run_batch_detached(&mut world, spawn, |i| {
            BatchItem::new(0.0, i as f32).target(ring.at((base + i) as u32, 1, 0))
        });
        if let Err(e) = spawned
            .map_err(|e| e.to_string())
            .and_then(|()| world.update(FRAME).map_err(|e| e.to_string()))
        {
            failed.get_or_insert(e);
        }
        black_box(world.host_target(ring).map(|values| values[base]));
    });
    match failed {
        Some(e) => Err(e.into()),
        None => Ok((ns, world.len())),
    }
}

/// A hand-written particle.
struct Particle {
    to: f32,
    start: f64,
    slot: u32,
}

/// The hand-written emitter: returns ns per particle.
#[must_use]
pub fn floor(spawn: usize, life: usize, secs: f64) -> f64 {
    let mut particles: Vec<Particle> = Vec::new();
    let mut ring = vec![0.0f32; spawn * life];
    let particle_duration = f64::from(duration(life));
    let mut now = 0.0f64;
    measure(spawn, life, secs, |frame| {
        let base = (frame % life) * spawn;
        for i in 0..spawn {
            let to = black_box(i as f32);
            let slot = (base + i) as u32;
            particles.push(Particle {
                to,
                start: now,
                slot,
            });
        }
        now += FRAME;
        let mut i = 0;
        while i < particles.len() {
            let p = &particles[i];
            let t = ((now - p.start) / particle_duration).min(1.0) as f32;
            ring[p.slot as usize] = p.to * (1.0 - (1.0 - t) * (1.0 - t));
            if t >= 1.0 {
                particles.swap_remove(i);
            } else {
                i += 1;
            }
        }
        black_box(ring[base]);
    })
}

/// Measures one configuration: wgpu-tween, then the floor.
///
/// # Errors
/// If wgpu-tween refuses a motion or the host target.
pub fn run_cell(
    spawn: usize,
    life: usize,
    threads: usize,
    secs: f64,
) -> Result<EmitterCell, Box<dyn std::error::Error>> {
    let (ours_ns, live) = ours(spawn, life, threads, secs)?;
    let floor_ns = floor(spawn, life, secs);
    Ok(EmitterCell {
        spawn,
        life,
        threads,
        live,
        ours_ns,
        floor_ns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_steady_emitter_keeps_spawn_times_life_particles_minus_the_finished() {
        // After the update of frame f, the particles of frames f - life + 1 ..= f are live
        // except the ones that finished in this update (those of frame f - life + 1).
        let cell = run_cell(100, 5, 1, 0.0).expect("valid motions");
        assert_eq!(cell.live, 100 * 4);
        assert!(cell.ours_ns > 0.0 && cell.floor_ns > 0.0);
    }

    #[test]
    fn the_ring_holds_the_values_of_the_live_particles() {
        // wgpu-tween's ring against the closed form the floor computes, one frame after
        // spawning: t = FRAME / duration.
        let mut world = MotionWorld::new();
        let ring = world.add_host_target(4).expect("host target");
        let particle = Motion::new(0.0f32, 0.0, duration(10)).ease(Ease::OutQuad);
        particle
            .run_batch_detached(&mut world, 4, |i| {
                BatchItem::new(0.0, i as f32).target(ring.at(i as u32, 1, 0))
            })
            .expect("valid motions");
        world.update(FRAME).expect("update");
        let t = FRAME / f64::from(duration(10));
        let eased = 1.0 - (1.0 - t) * (1.0 - t);
        let values = world.host_target(ring).expect("ring");
        for (i, &v) in values.iter().enumerate() {
            assert!((f64::from(v) - i as f64 * eased).abs() < 1e-5, "{i}: {v}");
        }
    }
}
