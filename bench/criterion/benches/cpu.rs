//! CPU executor benchmarks: update cost per motion next to the hand-written floor
//! ([`BaselineLoop`]) at the same N, the idle update of an emptied world, the amortised
//! cost of creating a motion, and a world mixing value types against an all-f32 one.
//!
//! `cargo bench -p wgpu-tween-criterion --bench cpu` (about 3 minutes on 2 cores). Per-element times are the
//! "thrpt" lines' reciprocal; the `time` lines are per update (per batch for `create`).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use glam::{Quat, Vec2, Vec3};
use wgpu_tween::{
    Animatable, BuildError, Color, Ease, LoopType, Motion, MotionHandle, MotionWorld,
};
use wgpu_tween_bench::baseline::BaselineLoop;
use wgpu_tween_bench::workload;

mod common;

const DT: f64 = 1.0 / 60.0;

/// A world of `n` looping OutQuad f32 motions (the baseline's configuration). `staggered`
/// gives every motion its own clock (as the baseline has); otherwise they all start in the
/// same update, a burst that the executor evaluates once per 64-row chunk.
fn looping_world(n: usize, threads: Option<usize>, staggered: bool) -> (MotionWorld, MotionHandle) {
    let mut world = MotionWorld::new();
    if let Some(t) = threads {
        world.set_cpu_threads(t);
    }
    world.reserve(n);
    let mut first = MotionHandle::NONE;
    for i in 0..n {
        let h = Motion::new(0.0f32, 10.0, 2.0)
            .ease(Ease::OutQuad)
            .loops(-1, LoopType::Restart)
            .run(&mut world)
            .expect("valid motion");
        if staggered {
            world
                .set_time(h, (i % 1000) as f64 * 0.002)
                .expect("live motion");
        }
        if i == 0 {
            first = h;
        }
    }
    (world, first)
}

fn update(c: &mut Criterion) {
    for n in [1_000usize, 10_000, 100_000, 1_000_000] {
        let mut group = c.benchmark_group("update");
        group.throughput(Throughput::Elements(n as u64));
        if n >= 1_000_000 {
            group
                .sample_size(10)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(3));
        } else if n >= 100_000 {
            group
                .sample_size(20)
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(2));
        } else {
            group
                .sample_size(30)
                .warm_up_time(Duration::from_millis(300))
                .measurement_time(Duration::from_secs(1));
        }

        for (staggered, shape) in [(true, "staggered"), (false, "burst")] {
            for threads in [None, Some(1)] {
                let (mut world, h) = looping_world(n, threads, staggered);
                let label = format!("engine-{}t-{shape}", world.cpu_threads());
                group.bench_function(BenchmarkId::new(label, n), |b| {
                    b.iter(|| {
                        world.update(DT).expect("valid delta");
                    });
                    black_box(world.value::<f32>(h).ok());
                });
            }
        }

        let mut floor = BaselineLoop::new(n);
        group.bench_function(BenchmarkId::new("baseline-1t", n), |b| {
            b.iter(|| {
                floor.step(DT as f32);
                black_box(floor.outputs());
            });
        });
        group.finish();
    }
}

/// The update of an emptied world: after a million f32 motions finished, and after a million
/// motions of every value type and shape finished (issue 4: the idle cost must not depend on
/// the types a world ever used).
fn idle(c: &mut Criterion) {
    const N: usize = 1_000_000;
    let mut group = c.benchmark_group("idle");
    group
        .sample_size(50)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for (label, every_type) in [
        ("update-after-1M-finished", false),
        ("update-after-1M-of-every-type-finished", true),
    ] {
        let mut world = MotionWorld::new();
        common::run_short(&mut world, N, every_type);
        world.update(0.1).expect("valid delta");
        assert!(world.is_empty(), "every motion should have completed");
        group.bench_function(label, |b| {
            b.iter(|| world.update(black_box(DT)).expect("valid delta"));
        });
    }
    group.finish();
}

/// Motions per `create` batch.
const CREATE_N: usize = 10_000;

/// Times creating `CREATE_N` motions into a fresh reserved world per batch (the world is
/// dropped outside the timed section); `run(world, i)` creates motion `i`.
fn create_n<M: criterion::measurement::Measurement>(
    group: &mut criterion::BenchmarkGroup<'_, M>,
    label: &str,
    run: impl Fn(&mut MotionWorld, usize) -> Result<MotionHandle, BuildError> + Copy,
) {
    group.bench_function(BenchmarkId::new(label, CREATE_N), |b| {
        b.iter_batched(
            || {
                let mut world = MotionWorld::new();
                world.reserve(CREATE_N);
                world
            },
            |mut world| {
                for i in 0..CREATE_N {
                    black_box(run(&mut world, i).expect("valid motion"));
                }
                world
            },
            BatchSize::PerIteration,
        );
    });
}

fn create(c: &mut Criterion) {
    let mut group = c.benchmark_group("create");
    group
        .throughput(Throughput::Elements(CREATE_N as u64))
        .sample_size(30)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    let f32_motion = || Motion::new(0.0f32, 10.0, 2.0).ease(Ease::OutQuad);
    create_n(&mut group, "run-f32-looping", |world, _| {
        f32_motion().loops(-1, LoopType::Restart).run(world)
    });
    create_n(&mut group, "run-f32-finite", |world, _| {
        f32_motion().run(world)
    });
    // A cycle through five shapes (lerps of one to four lanes, a slerp): a new row is swapped
    // past the first row of every later run that has rows (`src/world/partition.rs`).
    create_n(&mut group, "run-five-shapes", |world, i| match i % 5 {
        0 => Motion::new(0.0f32, 10.0, 2.0).run(world),
        1 => Motion::new(Vec2::ZERO, Vec2::ONE, 2.0).run(world),
        2 => Motion::new(Vec3::ZERO, Vec3::ONE, 2.0).run(world),
        3 => Motion::new(Color::BLACK, Color::WHITE, 2.0).run(world),
        _ => Motion::new(Quat::IDENTITY, Quat::from_rotation_y(2.0), 2.0).run(world),
    });
    // The benchmark binary's mixed workload (value types, eases, loop types and delays
    // interleaved); and the same followed by the first update, which evaluates every row.
    create_n(&mut group, "populate-mixed-workload", |world, i| {
        workload::add_nth(world, i, None).map(|()| MotionHandle::NONE)
    });
    group.bench_function(
        BenchmarkId::new("populate-mixed-workload-and-update", CREATE_N),
        |b| {
            b.iter_batched(
                MotionWorld::new,
                |mut world| {
                    workload::populate(&mut world, CREATE_N, false).expect("valid motions");
                    world.update(DT).expect("valid delta");
                    world
                },
                BatchSize::PerIteration,
            );
        },
    );
    group.finish();
}

/// The benchmark binary's mixed workload at 100k motions (one thread) created interleaved
/// (its own order) and grouped by configuration (issue 18: the cost of a world must not
/// depend on the order its motions were created in), next to an all-`f32` world of the
/// same size and timing (`common::fill_typed`).
fn order(c: &mut Criterion) {
    const N: usize = 100_000;
    let mut group = group_of_worlds(c, "order", N);
    let mixed_world = |order: &[usize]| {
        let mut world = MotionWorld::new();
        world.set_cpu_threads(1);
        world.reserve(order.len());
        for &i in order {
            workload::add_nth(&mut world, i, None).expect("valid motion");
        }
        world
    };
    let interleaved: Vec<usize> = (0..N).collect();
    let mut grouped = interleaved.clone();
    grouped.sort_by_key(|&i| workload::config_key(i));
    let worlds = [
        ("mixed-interleaved-1t", mixed_world(&interleaved)),
        ("mixed-grouped-1t", mixed_world(&grouped)),
        ("all-f32-1t", typed_world(N, false)),
    ];
    for (label, mut world) in worlds {
        group.bench_function(BenchmarkId::new(label, N), |b| {
            b.iter(|| world.update(DT).expect("valid delta"));
        });
    }
    group.finish();
}

/// A one-thread world of `common::fill_typed`.
fn typed_world(n: usize, mixed: bool) -> MotionWorld {
    let mut world = MotionWorld::new();
    world.set_cpu_threads(1);
    common::fill_typed(&mut world, n, mixed);
    world
}

/// A one-thread world of `n` staggered looping OutQuad motions of one type from `from` to
/// `to` (the timing of `common::fill_typed`).
fn uniform_world<T: Animatable>(n: usize, from: T, to: T) -> MotionWorld {
    let mut world = MotionWorld::new();
    world.set_cpu_threads(1);
    world.reserve(n);
    for i in 0..n {
        let h = Motion::new(from, to, 2.0)
            .ease(Ease::OutQuad)
            .loops(-1, LoopType::Restart)
            .run(&mut world)
            .expect("valid motion");
        world
            .set_time(h, (i % 1000) as f64 * 0.002)
            .expect("live motion");
    }
    world
}

/// A group timing updates of worlds of `n` motions.
fn group_of_worlds<'a>(
    c: &'a mut Criterion,
    name: &str,
    n: usize,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .throughput(Throughput::Elements(n as u64))
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    group
}

/// Per-motion update cost of a world mixing value types against an all-f32 world of the
/// same size (one thread; the target is within 1.25×), with three references: an
/// all-`Vec3` and an all-`Color` world (three and four lerped lanes per row: the memory
/// traffic of those rows) and an all-`Quat` world (every row slerped).
fn mixed(c: &mut Criterion) {
    const N: usize = 100_000;
    let mut group = group_of_worlds(c, "mixed", N);
    let worlds = [
        ("all-f32-1t", typed_world(N, false)),
        ("f32-vec3-quat-color-1t", typed_world(N, true)),
        ("all-vec3-1t", uniform_world(N, Vec3::ZERO, Vec3::ONE)),
        ("all-color-1t", uniform_world(N, Color::BLACK, Color::WHITE)),
        (
            "all-quat-1t",
            uniform_world(N, Quat::IDENTITY, Quat::from_rotation_y(2.0)),
        ),
    ];
    for (label, mut world) in worlds {
        group.bench_function(BenchmarkId::new(label, N), |b| {
            b.iter(|| world.update(DT).expect("valid delta"));
        });
    }
    group.finish();
}

criterion_group!(benches, update, idle, create, mixed, order);
criterion_main!(benches);
