//! A particle emitter's steady state (docs/design.md, the table's holes): every frame spawns
//! a batch that finishes four updates later, so each spawn takes rows that finished particles
//! left. Each particle's value, what its batch's shared bind saw and its host-array element
//! follow the linear formula worked out here, on every executor; a finished particle leaves
//! its end value in the array.

use crate::common;

use std::sync::{Arc, Mutex};

use glam::Vec2;
use wgpu_tween::{BatchItem, Motion, MotionHandle, MotionWorld, TargetId};

/// Scalar particles per frame (bound, host-targeted) and `Vec2` ones (a later shape run,
/// so that their holes lie in the way of the next scalar batch).
const SCALARS: usize = 24;
const PAIRS: usize = 8;
/// Each particle's duration and the frame step: it finishes in its fourth update.
const DURATION: f32 = 0.9;
const DT: f64 = 0.25;
const LIFE: usize = 4;
const FRAMES: usize = 12;

/// One frame's particles.
struct Generation {
    frame: usize,
    scalars: Vec<MotionHandle>,
    pairs: Vec<MotionHandle>,
    /// What the batch's shared bind saw last, per particle.
    seen: Arc<Mutex<Vec<f32>>>,
}

/// Particle `i` of frame `g`'s scalar end value (it starts at 0).
fn scalar_end(g: usize, i: usize) -> f32 {
    (100 * g + i + 1) as f32
}

fn pair_end(g: usize, i: usize) -> Vec2 {
    Vec2::new(g as f32 + 1.0, -(i as f32) - 1.0)
}

/// The host-array element of particle `i` of frame `g`: a ring of `LIFE + 1` frames, so a
/// finished particle's element is taken again only after it was checked.
fn element(g: usize, i: usize) -> usize {
    (g % (LIFE + 1)) * SCALARS + i
}

fn spawn(world: &mut MotionWorld, id: TargetId, g: usize) -> Generation {
    let base = Motion::new(0.0f32, 0.0, DURATION);
    let seen = Arc::new(Mutex::new(vec![f32::NAN; SCALARS]));
    let sink = Arc::clone(&seen);
    let mut scalars = Vec::new();
    base.bind_batch_indexed(
        world,
        SCALARS,
        |i| BatchItem::new(0.0, scalar_end(g, i)).target(id.at(element(g, i) as u32, 1, 0)),
        move |i, v| sink.lock().unwrap()[i] = v,
        &mut scalars,
    )
    .expect("valid batch");
    let mut pairs = Vec::new();
    Motion::new(Vec2::ZERO, Vec2::ZERO, DURATION)
        .run_batch(
            world,
            PAIRS,
            |i| BatchItem::new(Vec2::ZERO, pair_end(g, i)),
            &mut pairs,
        )
        .expect("valid batch");
    Generation {
        frame: g,
        scalars,
        pairs,
        seen,
    }
}

fn close(got: f32, want: f32, what: &str) {
    assert!(
        (got - want).abs() <= 1e-4 * want.abs().max(1.0),
        "{what}: got {got}, want {want}"
    );
}

#[test]
fn an_emitters_new_particles_take_the_rows_of_finished_ones() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let id = world.add_host_target((LIFE + 1) * SCALARS).unwrap();
        let mut live: Vec<Generation> = Vec::new();
        for frame in 0..FRAMES {
            live.push(spawn(&mut world, id, frame));
            world.update(DT).expect("update");
            assert_eq!(world.take_gpu_error(), None);
            for generation in &live {
                let updates = frame - generation.frame + 1;
                let progress = (updates as f32 * DT as f32 / DURATION).min(1.0);
                let finished = updates == LIFE;
                let what = format!("{name}: frame {frame}, generation {}", generation.frame);
                let array = world.host_target(id).expect("registered");
                let seen = generation.seen.lock().unwrap();
                for (i, &h) in generation.scalars.iter().enumerate() {
                    let want = scalar_end(generation.frame, i) * progress;
                    assert_eq!(world.is_active(h), !finished, "{what}: scalar {i}");
                    if !finished {
                        close(world.value::<f32>(h).expect("live"), want, &what);
                    }
                    close(seen[i], want, &format!("{what}: bind {i}"));
                    close(array[element(generation.frame, i)], want, &what);
                }
                for (i, &h) in generation.pairs.iter().enumerate() {
                    assert_eq!(world.is_active(h), !finished, "{what}: pair {i}");
                    if !finished {
                        let want = pair_end(generation.frame, i) * progress;
                        let got = world.value::<Vec2>(h).expect("live");
                        close(got.x, want.x, &what);
                        close(got.y, want.y, &what);
                    }
                }
            }
            live.retain(|generation| frame - generation.frame + 1 < LIFE);
            // In a steady state, three frames' particles are live between updates.
            assert_eq!(world.len(), live.len() * (SCALARS + PAIRS), "{name}");
        }
    }
}
