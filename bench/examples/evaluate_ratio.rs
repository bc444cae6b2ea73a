//! The evaluate pass against the lerp floor, measured interleaved so that the load of a
//! shared machine falls on all alike.
//!
//! `cargo run --release -p wgpu-tween-bench --example evaluate_ratio [-- N,N,... ROUNDS]` (default 10k, 100k, 1M
//! and 7 rounds). Per N: the floor (`GpuLerpFloor`), the floor plus a 32-byte row read per
//! element (`GpuLerpFloor::with_rows`: the bytes an `f32` motion moves), a world of N looping
//! OutQuad `f32`
//! motions (as `benches/gpu.rs` `evaluate/*`), and a world of N/4 each of
//! `f32`, `Vec3`, `Quat` (slerp) and `Color` (as `mixed/*`). Each round runs every
//! configuration 3 times (one update or step, then a blocking wait); columns: median and
//! minimum wall time, the median's ratio to the floor's, and the process's CPU time per
//! iteration (all threads, `/proc/self/task/*/schedstat`; 0 where unavailable), which other
//! processes disturb less than the wall time.

use std::time::Instant;

use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Executor, MotionWorld};
use wgpu_tween_bench::baseline::GpuLerpFloor;

// `fill_typed`: the worlds of the benchmarks' `evaluate/*` and `mixed/*`.
#[allow(dead_code)]
#[path = "../criterion/benches/common/mod.rs"]
mod shapes;

const DT: f64 = 1.0 / 60.0;

/// CPU time of all the process's threads, ms (0 where `/proc` has no schedstat).
fn cpu_ms() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    let ns: u64 = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split(' ').next().and_then(|v| v.parse::<u64>().ok()))
        .sum();
    ns as f64 * 1e-6
}

/// A GPU world of `n` motions of `shapes::fill_typed` (all `f32`, or a quarter each of
/// `f32`, `Vec3`, `Quat` and `Color`), after its first update.
fn world(ctx: &GpuContext, n: usize, mixed: bool) -> Option<MotionWorld> {
    let mut world = MotionWorld::with_gpu(ctx.clone()).ok()?;
    world.set_executor(Executor::Gpu).ok()?;
    shapes::fill_typed(&mut world, n, mixed);
    world.update(DT).ok()?;
    wait(ctx);
    Some(world)
}

fn wait(ctx: &GpuContext) {
    let _ = ctx.device().poll(wgpu::PollType::wait_indefinitely());
}

/// Something measured: one update (or floor step) and a wait.
enum Subject {
    Floor(GpuLerpFloor, GpuContext),
    World(Box<MotionWorld>, GpuContext),
}

impl Subject {
    fn run(&mut self) {
        match self {
            Subject::Floor(floor, ctx) => {
                floor.step(DT as f32);
                wait(ctx);
            }
            Subject::World(world, ctx) => {
                if world.update(DT).is_err() {
                    eprintln!("update failed");
                }
                wait(ctx);
            }
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sizes: Vec<usize> = args
        .get(1)
        .map(|s| s.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000, 1_000_000]);
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(7);
    let Ok(ctx) = GpuContext::new() else {
        println!("no GPU adapter: nothing to measure");
        return;
    };
    let info = ctx.adapter_info();
    println!("adapter: {} ({:?})", info.name, info.device_type);
    for &n in &sizes {
        let mut subjects: Vec<(String, Subject)> = vec![
            (
                "floor-lerp".into(),
                Subject::Floor(GpuLerpFloor::new(&ctx, n), ctx.clone()),
            ),
            (
                "floor-lerp-rows".into(),
                Subject::Floor(GpuLerpFloor::with_rows(&ctx, n), ctx.clone()),
            ),
        ];
        for (kind, mixed) in [("f32", false), ("mixed", true)] {
            if let Some(w) = world(&ctx, n, mixed) {
                subjects.push((kind.into(), Subject::World(Box::new(w), ctx.clone())));
            }
        }
        let mut wall: Vec<Vec<f64>> = vec![Vec::new(); subjects.len()];
        let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); subjects.len()];
        for s in &mut subjects {
            s.1.run();
        }
        for _ in 0..rounds {
            for (k, (_, s)) in subjects.iter_mut().enumerate() {
                for _ in 0..3 {
                    let (c0, t0) = (cpu_ms(), Instant::now());
                    s.run();
                    wall[k].push(t0.elapsed().as_secs_f64() * 1e3);
                    cpu[k].push(cpu_ms() - c0);
                }
            }
        }
        println!("\nN = {n}: ms per update and wait ({rounds} rounds x 3)");
        println!(
            "{:<16} {:>9} {:>9} {:>7} {:>9} {:>7}",
            "", "median", "min", "ratio", "cpu ms", "ratio"
        );
        let floor_wall = median(&mut wall[0].clone());
        let floor_cpu = median(&mut cpu[0].clone());
        for (k, (label, _)) in subjects.iter().enumerate() {
            let m = median(&mut wall[k]);
            let c = median(&mut cpu[k]);
            let min = wall[k].iter().copied().fold(f64::INFINITY, f64::min);
            println!(
                "{label:<16} {m:>9.3} {min:>9.3} {:>7.2} {c:>9.3} {:>7.2}",
                m / floor_wall,
                if floor_cpu > 0.0 { c / floor_cpu } else { 0.0 }
            );
        }
    }
}
