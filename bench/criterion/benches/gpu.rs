//! GPU executor benchmarks, next to floors measured in the same run on the same adapter:
//!
//! - `evaluate/*`: one update of N GPU-only motions (no binds, no callbacks) including the
//!   wait for the GPU, against `floor-lerp`, a trivial lerp kernel over N (from, to) pairs
//!   (one submission and wait per iteration as well), and `floor-lerp-rows`, the same kernel
//!   also reading a 32-byte row per element (the bytes the evaluate pass reads, without its
//!   timing arithmetic).
//! - `update-cpu/*`: CPU time inside `update` with N GPU-only motions, the wait for the GPU
//!   excluded (the device is drained outside the timed section); and the same on wgpu's noop
//!   device, which executes nothing, so a software adapter's work on the same cores does
//!   not count.
//! - `readback/*`: updates of N motions that each have a CPU bind, blocking (waits for this
//!   update's values) and pipelined (takes the previous update's, never waits).
//! - `mixed/*`: one update and wait of 100k motions, all `f32` or a quarter each of `f32`,
//!   `Vec3`, `Quat` (slerp) and `Color` interleaved (issue 4's target: within 1.25×).
//!
//! - `paged/*`: 1M motions in one page of the table against four (a device with 8 MiB
//!   storage bindings): what splitting the table costs.
//! - `idle/*`: the update of an emptied world, after f32 motions and after motions of every
//!   value type and shape.
//!
//! Also prints the heap allocations of one steady-state GPU update (counting allocator).
//!
//! `cargo bench -p wgpu-tween-criterion --bench gpu` (about 3 minutes on lavapipe). Skips with a message when no
//! adapter exists. Absolute times only mean something on a real GPU; on a software adapter
//! the ratios to the floors do.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use wgpu_tween::gpu::{GpuContext, ReadbackMode};
use wgpu_tween::{Ease, Executor, LoopType, Motion, MotionWorld};
use wgpu_tween_bench::baseline::GpuLerpFloor;

mod common;

const DT: f64 = 1.0 / 60.0;

// ------------------------------------------------------------------ counting allocator

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to `System` unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

// ------------------------------------------------------------------ setup

fn context() -> Option<GpuContext> {
    match GpuContext::new() {
        Ok(ctx) => {
            let info = ctx.adapter_info();
            println!(
                "adapter: {} ({:?}, {:?})",
                info.name, info.device_type, info.backend
            );
            Some(ctx)
        }
        Err(e) => {
            println!("skipping GPU benchmarks: {e}");
            None
        }
    }
}

/// A GPU world of `n` looping OutQuad f32 motions with their own clocks; `bound` gives each
/// a CPU bind (storing into one shared cell).
fn world(ctx: &GpuContext, n: usize, bound: bool) -> MotionWorld {
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    world.set_executor(Executor::Gpu).expect("GPU executor");
    world.reserve(n);
    let sink = Arc::new(AtomicU32::new(0));
    for i in 0..n {
        let motion = Motion::new(0.0f32, 10.0, 2.0)
            .ease(Ease::OutQuad)
            .loops(-1, LoopType::Restart)
            .immediate_bind(false);
        let h = if bound {
            let sink = Arc::clone(&sink);
            motion.bind(&mut world, move |v| {
                sink.store(v.to_bits(), Ordering::Relaxed)
            })
        } else {
            motion.run(&mut world)
        }
        .expect("valid motion");
        world
            .set_time(h, (i % 1000) as f64 * 0.002)
            .expect("live motion");
    }
    // The first update uploads every row; the benchmarks measure steady state.
    world.update(DT).expect("update");
    wait(ctx);
    assert_eq!(world.take_gpu_error(), None);
    world
}

fn wait(ctx: &GpuContext) {
    ctx.device()
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
}

fn configure(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    n: usize,
) {
    group.throughput(Throughput::Elements(n as u64));
    if n >= 1_000_000 {
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(4));
    } else {
        group
            .sample_size(20)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2));
    }
}

// ------------------------------------------------------------------ benchmarks

fn evaluate(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    for n in [10_000usize, 100_000, 1_000_000] {
        let mut group = c.benchmark_group("evaluate");
        configure(&mut group, n);
        let mut world = world(&ctx, n, false);
        group.bench_function(BenchmarkId::new("engine-update-and-wait", n), |b| {
            b.iter(|| {
                world.update(DT).expect("update");
                wait(&ctx);
            });
        });
        assert_eq!(world.take_gpu_error(), None);
        drop(world);
        for (with_rows, label) in [(false, "floor-lerp"), (true, "floor-lerp-rows")] {
            let mut floor = if with_rows {
                GpuLerpFloor::with_rows(&ctx, n)
            } else {
                GpuLerpFloor::new(&ctx, n)
            };
            group.bench_function(BenchmarkId::new(label, n), |b| {
                b.iter(|| {
                    floor.step(DT as f32);
                    wait(&ctx);
                });
            });
        }
        group.finish();
    }
}

fn update_cpu(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    for n in [1_000usize, 1_000_000] {
        let mut group = c.benchmark_group("update-cpu");
        group
            .sample_size(30)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(if n >= 1_000_000 { 4 } else { 2 }));
        let mut world = world(&ctx, n, false);

        // Heap allocations of one steady-state update (ours and wgpu's).
        world.update(DT).expect("update");
        wait(&ctx);
        ALLOCATIONS.store(0, Ordering::Relaxed);
        COUNTING.store(true, Ordering::Relaxed);
        world.update(DT).expect("update");
        COUNTING.store(false, Ordering::Relaxed);
        let allocations = ALLOCATIONS.load(Ordering::Relaxed);
        wait(&ctx);
        // For scale: one plain wgpu submission (write, encoder, pass, dispatch, submit).
        let mut floor = GpuLerpFloor::new(&ctx, 1024);
        floor.step(DT as f32);
        wait(&ctx);
        ALLOCATIONS.store(0, Ordering::Relaxed);
        COUNTING.store(true, Ordering::Relaxed);
        floor.step(DT as f32);
        COUNTING.store(false, Ordering::Relaxed);
        let floor_allocations = ALLOCATIONS.load(Ordering::Relaxed);
        wait(&ctx);
        println!(
            "heap allocations in one steady-state GPU update of {n} motions: {allocations} \
             (one bare wgpu dispatch submission: {floor_allocations})"
        );

        group.bench_function(BenchmarkId::new("gpu-only-no-callbacks", n), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let start = Instant::now();
                    world.update(black_box(DT)).expect("update");
                    total += start.elapsed();
                    wait(&ctx);
                }
                total
            });
        });
        assert_eq!(world.take_gpu_error(), None);

        // The same on wgpu's noop device, which runs no compute: the CPU time of our update
        // and wgpu's command recording alone, without a software adapter sharing the cores.
        let noop = noop_context();
        let mut world = self::world(&noop, n, false);
        group.bench_function(
            BenchmarkId::new("noop-device-gpu-only-no-callbacks", n),
            |b| {
                b.iter(|| world.update(black_box(DT)).expect("update"));
            },
        );
        assert_eq!(world.take_gpu_error(), None);
        group.finish();
    }
}

/// wgpu's noop device: accepts every command and executes none.
fn noop_context() -> GpuContext {
    let (device, queue) = wgpu::Device::noop(&wgpu::DeviceDescriptor::default());
    let info = device.adapter_info();
    GpuContext::from_device(device, queue, info)
}

fn readback(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    for n in [1_000usize, 100_000] {
        let mut group = c.benchmark_group("readback");
        configure(&mut group, n);
        let mut world = world(&ctx, n, true);
        for (mode, label) in [
            (ReadbackMode::Blocking, "blocking"),
            (ReadbackMode::Pipelined, "pipelined"),
        ] {
            world.gpu_mut().set_readback_mode(mode);
            group.bench_function(BenchmarkId::new(label, n), |b| {
                b.iter(|| world.update(black_box(DT)).expect("update"));
            });
        }
        wait(&ctx);
        assert_eq!(world.take_gpu_error(), None);
        group.finish();
    }
}

/// A GPU-executor world of `common::fill_typed`, updated once (the upload of every row).
fn typed_world(ctx: &GpuContext, n: usize, mixed: bool) -> MotionWorld {
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    world.set_executor(Executor::Gpu).expect("GPU executor");
    common::fill_typed(&mut world, n, mixed);
    world.update(DT).expect("update");
    wait(ctx);
    world
}

fn mixed(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    const N: usize = 100_000;
    let mut group = c.benchmark_group("mixed");
    configure(&mut group, N);
    for (label, is_mixed) in [("all-f32", false), ("f32-vec3-quat-color", true)] {
        let mut world = typed_world(&ctx, N, is_mixed);
        group.bench_function(BenchmarkId::new(label, N), |b| {
            b.iter(|| {
                world.update(DT).expect("update");
                wait(&ctx);
            });
        });
        assert_eq!(world.take_gpu_error(), None);
    }
    group.finish();
}

/// The cost of splitting the table into pages: 1M motions on the default context (one page)
/// against a context of the same adapter whose storage bindings are 8 MiB (pages of 256k
/// rows, so four evaluate dispatches per update).
fn paged(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    const N: usize = 1_000_000;
    let mut group = c.benchmark_group("paged");
    configure(&mut group, N);
    let small = small_binding_context(8 << 20);
    for (label, ctx) in [("one-page", &ctx), ("four-pages", &small)] {
        let mut world = world(ctx, N, false);
        group.bench_function(BenchmarkId::new(label, N), |b| {
            b.iter(|| {
                world.update(DT).expect("update");
                wait(ctx);
            });
        });
        assert_eq!(world.take_gpu_error(), None);
    }
    group.finish();
}

/// A context on the default adapter whose storage bindings are at most `bytes`.
fn small_binding_context(bytes: u64) -> GpuContext {
    pollster::block_on(async {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions::default())
            .await
            .expect("adapter");
        let required_limits = wgpu::Limits {
            max_storage_buffer_binding_size: bytes,
            ..wgpu::Limits::default()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("small bindings"),
                required_limits,
                ..Default::default()
            })
            .await
            .expect("device with small bindings");
        GpuContext::from_device(device, queue, adapter.get_info())
    })
}

/// The update of an emptied GPU world (nothing runs, so nothing is submitted): after 100k f32
/// motions finished, and after 100k motions of every value type and shape finished (issue 4:
/// the idle cost must not depend on the types a world ever used).
fn idle(c: &mut Criterion) {
    let Some(ctx) = context() else { return };
    const N: usize = 100_000;
    let mut group = c.benchmark_group("idle");
    group
        .sample_size(50)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for (label, every_type) in [
        ("update-after-100k-finished", false),
        ("update-after-100k-of-every-type-finished", true),
    ] {
        let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
        world.set_executor(Executor::Gpu).expect("GPU executor");
        common::run_short(&mut world, N, every_type);
        world.update(DT).expect("update");
        world.update(0.1).expect("update");
        wait(&ctx);
        assert!(world.is_empty(), "every motion should have completed");
        group.bench_function(label, |b| {
            b.iter(|| world.update(black_box(DT)).expect("update"));
        });
        assert_eq!(world.take_gpu_error(), None);
    }
    group.finish();
}

criterion_group!(benches, evaluate, update_cpu, readback, mixed, paged, idle);
criterion_main!(benches);
