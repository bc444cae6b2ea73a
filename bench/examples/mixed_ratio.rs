//! The benchmark binary's mixed workload against an all-`f32` world and a lane-proportional
//! floor, at each N, interleaved in one process (issue 18's "at most 3× the all-f32 world of
//! the same N in the same run"):
//!
//! `cargo run --release -p wgpu-tween-bench --example mixed_ratio [-- N,N,... ROUNDS THREADS
//! [ONLY]]`
//!
//! Worlds (all CPU executor, `THREADS` threads, default all cores):
//! - `mixed`: `workload::populate` (the binary's mix, created interleaved);
//! - `f32`: `common::fill_typed` (staggered looping OutQuad `f32` motions);
//! - `vec3`, `color`, `quat`: the same timing and ease, one value type each, from which the
//!   floor is formed in the mix's proportions: `0.4·f32 + 0.2·(vec3 + quat + color)` (what the
//!   mix's lanes and slerps cost with one cheap ease, one loop type and no delays).
//!
//! Prints the median ns per motion per update of each world per N and the ratios
//! `mixed / f32` and `mixed / floor`. With `ONLY` (0–4, a world's index in the list above),
//! only that world is updated, for a profiler: `perf record` then sees nothing else.

use std::time::Instant;

use glam::{Quat, Vec3};
use wgpu_tween::{Animatable, Color, Ease, LoopType, Motion, MotionWorld};
use wgpu_tween_bench::workload;

#[path = "../criterion/benches/common/mod.rs"]
#[allow(dead_code)]
mod common;

const DT: f64 = 1.0 / 60.0;

fn world(threads: Option<usize>) -> MotionWorld {
    let mut world = MotionWorld::new();
    if let Some(t) = threads {
        world.set_cpu_threads(t);
    }
    world
}

/// `n` staggered looping OutQuad motions of one type (the timing of `common::fill_typed`).
fn uniform<T: Animatable>(world: &mut MotionWorld, n: usize, from: T, to: T) {
    world.reserve(n);
    for i in 0..n {
        let h = Motion::new(from, to, 2.0)
            .ease(Ease::OutQuad)
            .loops(-1, LoopType::Restart)
            .run(world)
            .expect("valid motion");
        world
            .set_time(h, (i % 1000) as f64 * 0.002)
            .expect("live motion");
    }
}

/// ns per motion of one update.
fn step(world: &mut MotionWorld, n: usize) -> f64 {
    let t0 = Instant::now();
    world.update(DT).expect("valid delta");
    t0.elapsed().as_nanos() as f64 / n as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> = args.first().map_or(vec![100_000, 1_000_000], |s| {
        s.split(',').map(|x| x.parse().expect("a count")).collect()
    });
    let rounds: usize = args.get(1).map_or(40, |s| s.parse().expect("rounds"));
    let threads: Option<usize> = args.get(2).map(|s| s.parse().expect("threads"));
    let only: Option<usize> = args.get(3).map(|s| s.parse().expect("a world index"));
    println!("threads {threads:?}, {rounds} rounds, median ns/motion/update");
    println!("N        mixed   f32     vec3    color   quat    floor   mixed/f32 mixed/floor");
    for &n in &sizes {
        let mut worlds: Vec<MotionWorld> = (0..5).map(|_| world(threads)).collect();
        workload::populate(&mut worlds[0], n, false).expect("valid motions");
        common::fill_typed(&mut worlds[1], n, false);
        uniform(&mut worlds[2], n, Vec3::ZERO, Vec3::ONE);
        uniform(&mut worlds[3], n, Color::BLACK, Color::WHITE);
        uniform(
            &mut worlds[4],
            n,
            Quat::IDENTITY,
            Quat::from_rotation_y(2.0),
        );
        for w in &mut worlds {
            for _ in 0..3 {
                step(w, n);
            }
        }
        // Round-robin: every world sees the same machine load.
        let mut times = vec![Vec::with_capacity(rounds); worlds.len()];
        for _ in 0..rounds {
            for (k, (w, t)) in worlds.iter_mut().zip(&mut times).enumerate() {
                if only.is_some_and(|o| o != k) {
                    t.push(0.0);
                    continue;
                }
                t.push(step(w, n));
            }
        }
        let m: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
        let floor = 0.4 * m[1] + 0.2 * (m[2] + m[3] + m[4]);
        println!(
            "{n:<8} {:<7.2} {:<7.2} {:<7.2} {:<7.2} {:<7.2} {:<7.2} {:<9.2} {:.2}",
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            floor,
            m[0] / m[1],
            m[0] / floor
        );
    }
}
