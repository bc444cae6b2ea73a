//! Targets: the cost of a host target on every motion against the same world without
//! targets (CPU executor, one thread, staggered looping OutQuad f32 motions), and the cost
//! of creating a million targeted motions (a GPU buffer registered once, on wgpu's noop
//! device; a host array) against untargeted ones.
//!
//! `cargo bench -p wgpu-tween-criterion --bench targets` (about 2 minutes on 2 cores). Compare
//! the ids of one group (same run): `update/host-target/N` over `update/no-target/N`,
//! `create/gpu-target/N` over `create/no-target/N`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Ease, LoopType, Motion, MotionWorld, Target};

const DT: f64 = 1.0 / 60.0;

/// The motion of the looping world (the baseline's configuration).
fn looping() -> Motion<f32> {
    Motion::new(0.0f32, 10.0, 2.0)
        .ease(Ease::OutQuad)
        .loops(-1, LoopType::Restart)
}

/// `n` staggered looping motions on one CPU thread; with `targeted`, each writes f32 `i` of
/// one host array.
fn looping_world(n: usize, targeted: bool) -> MotionWorld {
    let mut world = MotionWorld::new();
    world.set_cpu_threads(1);
    world.reserve(n);
    let id = world.add_host_target(n).expect("host array");
    for i in 0..n {
        let motion = looping();
        let motion = if targeted {
            motion.target(id.at(i as u32, 1, 0))
        } else {
            motion
        };
        let h = motion.run(&mut world).expect("valid motion");
        world
            .set_time(h, (i % 1000) as f64 * 0.002)
            .expect("live motion");
    }
    world
}

fn update(c: &mut Criterion) {
    for n in [100_000usize, 1_000_000] {
        let mut group = c.benchmark_group("update");
        group.throughput(Throughput::Elements(n as u64));
        group
            .sample_size(if n >= 1_000_000 { 10 } else { 20 })
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        // Twice each, alternating, so drift of a busy machine shows as a spread.
        for round in 0..2 {
            for (targeted, label) in [(false, "no-target"), (true, "host-target")] {
                let mut world = looping_world(n, targeted);
                let id = format!("{label}-{round}");
                group.bench_function(BenchmarkId::new(id, n), |b| {
                    b.iter(|| world.update(DT).expect("valid delta"));
                });
                black_box(world.len());
            }
        }
        group.finish();
    }
}

/// wgpu's noop device: accepts every command and executes none.
fn noop_context() -> GpuContext {
    let (device, queue) = wgpu::Device::noop(&wgpu::DeviceDescriptor::default());
    let info = device.adapter_info();
    GpuContext::from_device(device, queue, info)
}

fn create(c: &mut Criterion) {
    let n = 1_000_000usize;
    let ctx = noop_context();
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("instances"),
        size: n as u64 * 4,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let mut group = c.benchmark_group("create");
    group.throughput(Throughput::Elements(n as u64));
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    // A fresh world per batch (with the context attached, the target registered and room
    // reserved): only the creation is timed.
    let fresh = |kind: usize| {
        let mut world = MotionWorld::with_gpu(ctx.clone()).expect("noop world");
        world.reserve(n);
        let target = match kind {
            1 => Some(world.add_gpu_target(&buffer).expect("storage buffer")),
            2 => Some(world.add_host_target(n).expect("host array")),
            _ => None,
        };
        (world, target)
    };
    for round in 0..2 {
        for (kind, label) in [(0, "no-target"), (1, "gpu-target"), (2, "host-target")] {
            group.bench_function(BenchmarkId::new(format!("{label}-{round}"), n), |b| {
                b.iter_batched(
                    || fresh(kind),
                    |(mut world, id)| {
                        for i in 0..n as u32 {
                            let motion = looping();
                            let motion = match id {
                                Some(id) => motion.target(Target {
                                    id,
                                    index: i,
                                    stride: 1,
                                    offset: 0,
                                }),
                                None => motion,
                            };
                            motion.run(&mut world).expect("valid motion");
                        }
                        world
                    },
                    BatchSize::PerIteration,
                );
            });
        }
    }
    group.finish();
}

criterion_group!(benches, update, create);
criterion_main!(benches);
