//! The GPU executor's bound values agree with the CPU executor's where a loop's end falls on
//! an update: a clock within half an f32 ulp of a loop's end reads as that end (progress 1)
//! or as the next loop's start exactly as the CPU reference rounds it, never the other one.

use crate::common;

use std::sync::{Arc, Mutex};

use common::Rng;
use wgpu_tween::{Ease, LoopType, Motion, MotionWorld};

type Probe = Arc<Mutex<f32>>;

fn probe(world: &mut MotionWorld, motion: Motion<f32>) -> Probe {
    let seen: Probe = Arc::new(Mutex::new(f32::NAN));
    let sink = Arc::clone(&seen);
    motion
        .immediate_bind(false)
        .bind(world, move |v: f32| *sink.lock().unwrap() = v)
        .expect("valid motion");
    seen
}

fn value(p: &Probe) -> f32 {
    *p.lock().unwrap()
}

/// The case: 0 → 10 over 0.3 s, two Restart loops, six updates of 0.05 s. The world
/// clock is then 0.30000000000000004 s, below the f32 duration 0.3000000119 s: still the
/// first loop, a hair before its end, so the value is 10 (the CPU's 9.999999), not the
/// second loop's start 0.
#[test]
fn restart_at_a_loop_end_on_an_update_matches_the_cpu() {
    let Some((mut cpu, mut gpu)) = common::cpu_and_gpu_worlds() else {
        return;
    };
    let make = || {
        Motion::new(0.0f32, 10.0, 0.3)
            .ease(Ease::Linear)
            .loops(2, LoopType::Restart)
    };
    let (c, g) = (probe(&mut cpu, make()), probe(&mut gpu, make()));
    for frame in 1..=6 {
        cpu.update(0.05).expect("cpu update");
        common::update_on_gpu(&mut gpu, 0.05, "restart");
        let expected = 10.0 * (0.05 * frame as f32 / 0.3).min(1.0);
        assert!(
            (value(&c) - expected).abs() < 1e-4,
            "cpu frame {frame}: {} vs {expected}",
            value(&c)
        );
        assert!(
            (value(&g) - expected).abs() < 1e-4,
            "gpu frame {frame}: {} vs {expected}",
            value(&g)
        );
    }
}

/// Randomized: motions whose durations are whole numbers of the update step (so loop ends
/// fall on updates, or within rounding of them), every loop type, finite and infinite
/// loops; the GPU bind agrees with the CPU bind at every update within 1e-4 of the range
/// (a wrong side of a boundary is off by the whole range).
#[test]
fn loop_ends_on_updates_agree_with_the_cpu_randomized() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    let loop_types = [
        LoopType::Restart,
        LoopType::Flip,
        LoopType::Yoyo,
        LoopType::Incremental,
    ];
    for (run, dt) in [0.05f64, 1.0 / 60.0, 0.1, 0.025].into_iter().enumerate() {
        let mut rng = Rng(0xb0da_0000 + run as u64);
        let mut cpu = MotionWorld::new();
        let mut gpu = common::Exec::Gpu(Box::new(ctx.clone())).world();
        let mut probes = Vec::new();
        for _ in 0..500 {
            let steps = 1 + rng.below(12);
            let duration = (dt * steps as f64) as f32;
            let loops = if rng.chance(0.2) {
                -1
            } else {
                2 + rng.below(4) as i32
            };
            let loop_type = loop_types[rng.below(4)];
            let ease = if rng.chance(0.5) {
                Ease::Linear
            } else {
                Ease::InOutQuad
            };
            let make = || {
                Motion::new(0.0f32, 10.0, duration)
                    .ease(ease)
                    .loops(loops, loop_type)
            };
            probes.push((probe(&mut cpu, make()), probe(&mut gpu, make())));
        }
        for frame in 0..90 {
            cpu.update(dt).expect("cpu update");
            common::update_on_gpu(&mut gpu, dt, "randomized");
            for (k, (c, g)) in probes.iter().enumerate() {
                let (c, g) = (value(c), value(g));
                // Incremental grows by 10 per loop: the tolerance follows the value.
                let tolerance = 1e-4 * c.abs().max(10.0);
                assert!(
                    (c - g).abs() <= tolerance,
                    "dt {dt} frame {frame} motion {k}: cpu {c} gpu {g}"
                );
            }
        }
    }
}
