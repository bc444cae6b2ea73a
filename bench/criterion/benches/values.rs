//! Values out of the world (issue 17): a bind on every motion (its own closure each, or one
//! bind shared by the batch) against the same world without binds and two hand-written floors
//! (the loop alone, and the loop calling one boxed closure per motion, the least any
//! per-motion callback costs), `value(h)` on every motion after an update, and the cost of
//! creating motions one at a time and in batches.
//!
//! `cargo bench -p wgpu-tween-criterion --bench values` (about 2 minutes on 2 cores). The workload: N f32 motions
//! 0 → i, 2 s, OutQuad, infinite Restart loops, start phases staggered over 2 s, dt 1/60, one
//! thread. Per-motion times are the "thrpt" lines' reciprocal.

use std::hint::black_box;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use wgpu_tween::{BatchItem, Ease, LoopType, Motion, MotionHandle, MotionWorld};
use wgpu_tween_bench::baseline::BaselineLoop;

const DT: f64 = 1.0 / 60.0;

/// The workload's motion `i`.
fn motion(i: usize) -> Motion<f32> {
    Motion::new(0.0f32, i as f32, 2.0)
        .ease(Ease::OutQuad)
        .loops(-1, LoopType::Restart)
}

/// How a world's motions deliver their values.
#[derive(Clone, Copy)]
enum Out<'a> {
    /// They do not: values stay in the world.
    Nothing,
    /// A bind per motion (`bind`) stores motion `i`'s value in `sink[i]`.
    EachBind(&'a Arc<Vec<AtomicU32>>),
    /// One bind shared by the batch (`bind_batch_indexed`) does.
    SharedBind(&'a Arc<Vec<AtomicU32>>),
}

/// A one-thread world of `n` workload motions delivering their values as `out` says; then
/// one update.
fn world(n: usize, out: Out) -> (MotionWorld, Vec<MotionHandle>) {
    let mut world = MotionWorld::new();
    world.set_cpu_threads(1);
    world.reserve(n);
    let mut handles = Vec::with_capacity(n);
    match out {
        Out::SharedBind(sink) => {
            let sink = Arc::clone(sink);
            motion(0)
                .bind_batch_indexed(
                    &mut world,
                    n,
                    |i| BatchItem::new(0.0, i as f32),
                    move |i, x: f32| sink[i].store(x.to_bits(), Ordering::Relaxed),
                    &mut handles,
                )
                .expect("valid batch");
        }
        Out::EachBind(sink) => handles.extend((0..n).map(|i| {
            let sink = Arc::clone(sink);
            motion(i)
                .bind(&mut world, move |x| {
                    sink[i].store(x.to_bits(), Ordering::Relaxed);
                })
                .expect("valid motion")
        })),
        Out::Nothing => {
            handles.extend((0..n).map(|i| motion(i).run(&mut world).expect("valid motion")))
        }
    }
    for (i, &h) in handles.iter().enumerate() {
        world
            .set_time(h, 2.0 * i as f64 / n as f64)
            .expect("live motion");
    }
    world.update(DT).expect("valid delta");
    (world, handles)
}

/// Fewer, longer samples for the larger worlds.
fn configure<M: criterion::measurement::Measurement>(
    group: &mut criterion::BenchmarkGroup<'_, M>,
    n: usize,
) {
    let large = n >= 1_000_000;
    group
        .throughput(Throughput::Elements(n as u64))
        .sample_size(if large { 10 } else { 20 })
        .warm_up_time(Duration::from_millis(if large { 500 } else { 300 }))
        .measurement_time(Duration::from_secs(if large { 3 } else { 2 }));
}

/// Updates with a bind on every motion, without binds, and the floor (one thread each).
fn binds(c: &mut Criterion) {
    for n in [100_000usize, 1_000_000] {
        let mut group = c.benchmark_group("binds");
        configure(&mut group, n);
        let mut plain = world(n, Out::Nothing).0;
        let sink = Arc::new((0..n).map(|_| AtomicU32::new(0)).collect::<Vec<_>>());
        let mut bound = world(n, Out::EachBind(&sink)).0;
        let mut shared = world(n, Out::SharedBind(&sink)).0;
        let mut floor = BaselineLoop::new(n);
        // The floor of any per-motion callback: the hand-written loop, then one boxed closure
        // per motion (the same closure the bound world gets) called with its value.
        let mut bind_floor = BaselineLoop::new(n);
        let mut closures: Vec<Box<dyn FnMut(f32) + Send>> = (0..n)
            .map(|i| {
                let sink = Arc::clone(&sink);
                Box::new(move |x: f32| sink[i].store(x.to_bits(), Ordering::Relaxed)) as Box<_>
            })
            .collect();
        let mut steps: [(&str, &mut dyn FnMut()); 5] = [
            ("no-bind-1t", &mut || plain.update(DT).expect("valid delta")),
            ("bind-1t", &mut || bound.update(DT).expect("valid delta")),
            ("bind-indexed-1t", &mut || {
                shared.update(DT).expect("valid delta")
            }),
            ("baseline-1t", &mut || {
                floor.step(DT as f32);
                black_box(floor.outputs());
            }),
            ("baseline-closures-1t", &mut || {
                bind_floor.step(DT as f32);
                for (bind, &x) in closures.iter_mut().zip(bind_floor.outputs()) {
                    bind(x);
                }
            }),
        ];
        for (label, step) in &mut steps {
            group.bench_function(BenchmarkId::new(*label, n), |b| b.iter(&mut **step));
        }
        group.finish();
        black_box(sink[n / 2].load(Ordering::Relaxed));
    }
}

/// `value(h)` on every live motion after an update.
fn values(c: &mut Criterion) {
    let n = 1_000_000;
    let mut group = c.benchmark_group("value");
    configure(&mut group, n);
    let (world, handles) = world(n, Out::Nothing);
    group.bench_function(BenchmarkId::new("every-motion", n), |b| {
        b.iter(|| {
            let mut sum = 0.0f32;
            for &h in &handles {
                sum += world.value::<f32>(h).expect("live f32 motion");
            }
            black_box(sum)
        });
    });
    group.finish();
}

/// Motions created per `spawn` sample.
const SPAWN_N: usize = 100_000;

/// Times `spawn` adding `SPAWN_N` motions to a world of `SPAWN_N` live ones, as an emitter
/// does every frame: between samples the new motions are cancelled (not timed), so the
/// world's memory is warm and its slots are reused, not fresh pages being faulted in.
fn spawn_n<M: criterion::measurement::Measurement<Value = Duration>>(
    group: &mut criterion::BenchmarkGroup<'_, M>,
    label: &str,
    spawn: impl Fn(&mut MotionWorld, &mut Vec<MotionHandle>),
) {
    let (mut world, _) = world(SPAWN_N, Out::Nothing);
    let mut handles = Vec::with_capacity(SPAWN_N);
    group.bench_function(BenchmarkId::new(label, SPAWN_N), |b| {
        b.iter_custom(|iters| {
            let mut timed = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                spawn(&mut world, &mut handles);
                timed += start.elapsed();
                for h in handles.drain(..) {
                    world.cancel(h).expect("live motion");
                }
            }
            timed
        });
    });
}

/// Creating motions: one `run` each, and one `run_batch`.
fn spawn(c: &mut Criterion) {
    let mut group = c.benchmark_group("spawn");
    group
        .throughput(Throughput::Elements(SPAWN_N as u64))
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    spawn_n(&mut group, "run-one-at-a-time", |world, handles| {
        handles.extend((0..SPAWN_N).map(|i| motion(i).run(world).expect("valid")));
    });
    let base = motion(0);
    spawn_n(&mut group, "run-batch", |world, handles| {
        base.run_batch(world, SPAWN_N, |i| BatchItem::new(0.0, i as f32), handles)
            .expect("valid motions");
    });
    group.finish();
}

criterion_group!(benches, binds, values, spawn);
criterion_main!(benches);
