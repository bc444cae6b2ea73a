//! Creation under a profiler: `cargo run --release --example create_profile -- run|batch [secs]`
//! spawns 100k motions into a world of 100k live ones (the values bench's `spawn` workload),
//! cancels them, and repeats, printing ns per created motion: the thread's CPU time (Linux
//! `schedstat`, so that other processes on a loaded machine do not count) and wall time.

use std::time::{Duration, Instant};

/// This thread's CPU time so far, ns (0 where `/proc` does not say).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

use wgpu_tween::{BatchItem, Ease, LoopType, Motion, MotionHandle, MotionWorld};

const N: usize = 100_000;

fn motion(i: usize) -> Motion<f32> {
    Motion::new(0.0f32, i as f32, 2.0)
        .ease(Ease::OutQuad)
        .loops(-1, LoopType::Restart)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let batch = args.get(1).is_some_and(|a| a == "batch");
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let mut world = MotionWorld::new();
    world.set_cpu_threads(1);
    for i in 0..N {
        motion(i).run(&mut world).expect("valid");
    }
    world.update(1.0 / 60.0).expect("valid delta");
    let mut handles: Vec<MotionHandle> = Vec::with_capacity(N);
    let base = motion(0);
    let (mut timed, mut cpu, mut made) = (Duration::ZERO, 0u64, 0usize);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    while Instant::now() < end {
        let (start, start_cpu) = (Instant::now(), cpu_ns());
        if batch {
            base.run_batch(
                &mut world,
                N,
                |i| BatchItem::new(0.0, i as f32),
                &mut handles,
            )
            .expect("valid motions");
        } else {
            handles.extend((0..N).map(|i| motion(i).run(&mut world).expect("valid")));
        }
        timed += start.elapsed();
        cpu += cpu_ns() - start_cpu;
        made += N;
        for h in handles.drain(..) {
            world.cancel(h).expect("live motion");
        }
    }
    println!(
        "{}: {:.1} ns CPU, {:.1} ns wall per motion",
        if batch { "run_batch" } else { "run" },
        cpu as f64 / made as f64,
        timed.as_nanos() as f64 / made as f64
    );
}
