//! The GPU work of an update, as `MotionWorld::gpu_update_stats` counts it: a world with
//! nothing to evaluate submits nothing; each run of rows of one shape is one evaluate
//! dispatch per page of the table it reaches, with the general variant only while it holds
//! a row that needs it; row changes, CPU binds and GPU targets add their own
//! passes only when there are some. Runs on wgpu's `noop` device (always), on the shared
//! adapter and on the paged test device when there is one.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use glam::{Quat, Vec2, Vec3};
use wgpu_tween::gpu::{GpuContext, GpuUpdateStats};
use wgpu_tween::{EaseMode, Executor, LoopType, Motion, MotionWorld, ParametricEase, Sequence};

use crate::common;
// `run_of_type`: a cycle through every value type and shape.
#[allow(dead_code)]
#[path = "../../bench/criterion/benches/common/mod.rs"]
mod shapes;

const DT: f64 = 1.0 / 60.0;

/// The noop device, and the shared adapter's context where there is one.
fn contexts() -> Vec<GpuContext> {
    let (device, queue) = wgpu::Device::noop(&wgpu::DeviceDescriptor::default());
    let info = device.adapter_info();
    let mut out = vec![GpuContext::from_device(device, queue, info)];
    out.extend(common::gpu());
    out
}

fn gpu_world(ctx: &GpuContext) -> MotionWorld {
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    world.set_executor(Executor::Gpu).expect("GPU executor");
    world
}

/// A storage buffer of `bytes` bytes to target.
fn instances(ctx: &GpuContext, bytes: u64) -> wgpu::Buffer {
    ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("instances"),
        size: bytes,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    })
}

fn stats(world: &MotionWorld) -> GpuUpdateStats {
    world.gpu().update_stats().expect("a device is attached")
}

#[test]
fn a_world_with_nothing_to_evaluate_submits_nothing() {
    for ctx in contexts() {
        let mut world = gpu_world(&ctx);
        world.update(DT).expect("update");
        assert_eq!(stats(&world), GpuUpdateStats::default(), "empty world");

        for _ in 0..10 {
            Motion::new(0.0f32, 1.0, 0.05)
                .run(&mut world)
                .expect("valid motion");
        }
        common::update_on_gpu(&mut world, DT, "first update");
        let first = stats(&world);
        assert_eq!((first.submissions, first.uploaded_rows), (1, 10));
        // The update that passes their end still evaluates them (their final values).
        common::update_on_gpu(&mut world, 1.0, "last update");
        assert_eq!(world.len(), 0);
        common::update_on_gpu(&mut world, DT, "after the end");
        assert_eq!(stats(&world), GpuUpdateStats::default(), "finished world");
    }
}

/// Dispatches of a table whose runs of one shape are `runs` (rows, in the table's order of
/// shapes), split into pages of `page_rows` rows: one per run per page it reaches.
fn run_dispatches(runs: &[u32], page_rows: u32) -> u32 {
    let mut start = 0;
    let mut dispatches = 0;
    for &len in runs {
        if len > 0 {
            let (first, last) = (start / page_rows, (start + len - 1) / page_rows);
            dispatches += last - first + 1;
        }
        start += len;
    }
    dispatches
}

#[test]
fn each_run_of_one_shape_is_one_evaluate_dispatch_per_page() {
    // 500 f32, 300 Vec3 and 200 Quat motions, created interleaved: the table keeps them
    // in runs (lerps of one lane, of three, then the other interpolations).
    let runs = [500, 300, 200];
    let mut contexts: Vec<(GpuContext, u32)> =
        contexts().into_iter().map(|c| (c, 1 << 20)).collect();
    // Pages of 256 rows: runs 0..500, 500..800, 800..1000 cross pages 0..3.
    contexts.extend(common::gpu_paged().map(|c| (c, 256)));
    for (ctx, page_rows) in contexts {
        let mut world = gpu_world(&ctx);
        for i in 0..1000u32 {
            // Interleaved: motion i is of shape i % 10 < 5 → f32, < 8 → Vec3, else Quat.
            let handle = match i % 10 {
                0..=4 => Motion::new(0.0f32, 1.0, 10.0).run(&mut world),
                5..=7 => Motion::new(Vec3::ZERO, Vec3::ONE, 10.0).run(&mut world),
                _ => Motion::new(Quat::IDENTITY, Quat::from_rotation_y(1.0), 10.0).run(&mut world),
            };
            handle.expect("valid motion");
        }
        let pages = 1000u32.div_ceil(page_rows);
        let dispatches = run_dispatches(&runs, page_rows);
        common::update_on_gpu(&mut world, DT, "first update");
        let first = stats(&world);
        assert_eq!(first.submissions, 1);
        assert_eq!(first.uploaded_rows, 1000);
        assert_eq!(first.moved_rows, 0);
        assert_eq!(
            first.evaluate_dispatches, dispatches,
            "{page_rows} rows a page"
        );
        assert_eq!(first.general_rows, 0, "named eases only");
        for _ in 0..3 {
            common::update_on_gpu(&mut world, DT, "steady update");
            let steady = stats(&world);
            let counts = (
                steady.submissions,
                steady.evaluate_dispatches,
                steady.dispatches,
                steady.uploaded_rows,
                steady.moved_rows,
                steady.read_back_values,
            );
            assert_eq!(
                counts,
                (1, dispatches, dispatches, 0, 0, 0),
                "{pages} pages"
            );
            // Only the frame header: per page slot, 256 bytes for each of the five runs'
            // evaluate params, the child rounds' and the gather's, in a power of two of slots.
            let slots = u64::from(pages.next_power_of_two());
            assert_eq!(steady.bytes_written, 7 * 256 * slots);
        }
    }
}

#[test]
fn a_run_holding_a_parametric_ease_uses_the_general_variant_until_it_is_gone() {
    for ctx in contexts() {
        let mut world = gpu_world(&ctx);
        for _ in 0..100 {
            Motion::new(0.0f32, 1.0, 10.0)
                .run(&mut world)
                .expect("valid motion");
        }
        for _ in 0..10 {
            Motion::new(Vec3::ZERO, Vec3::ONE, 10.0)
                .run(&mut world)
                .expect("valid motion");
        }
        common::update_on_gpu(&mut world, DT, "named eases");
        assert_eq!(stats(&world).general_rows, 0);
        // One `Back { overshoot }` f32 motion: the f32 run (101 rows) goes general, the
        // Vec3 run does not.
        let back = Motion::new(0.0f32, 1.0, 10.0)
            .ease_with(ParametricEase::Back {
                mode: EaseMode::Out,
                overshoot: 2.0,
            })
            .run(&mut world)
            .expect("valid motion");
        common::update_on_gpu(&mut world, DT, "one parametric ease");
        assert_eq!(stats(&world).general_rows, 101);
        // A sequence child is general too, in whichever run it is.
        let child = Motion::new(Vec3::ZERO, Vec3::X, 1.0)
            .run(&mut world)
            .expect("valid motion");
        let seq = Sequence::new()
            .append(child)
            .run(&mut world)
            .expect("valid sequence");
        common::update_on_gpu(&mut world, DT, "a sequence");
        // The sequence's own row is a plain one-lane row, in the f32 run (102 rows now).
        assert_eq!(stats(&world).general_rows, 102 + 11);
        world.cancel(back).expect("live motion");
        world.cancel(seq).expect("live sequence");
        common::update_on_gpu(&mut world, DT, "after the cancels");
        assert_eq!(stats(&world).general_rows, 0, "the counts follow removals");
        assert_eq!(stats(&world).evaluate_dispatches, 2);
    }
}

#[test]
fn changes_binds_and_targets_add_their_passes() {
    for ctx in contexts() {
        let mut world = gpu_world(&ctx);
        let seen = Arc::new(AtomicU32::new(0));
        let mut handles = Vec::new();
        for i in 0..100 {
            let motion = Motion::new(0.0f32, 1.0, 1.0).loops(-1, LoopType::Restart);
            let handle = if i < 10 {
                let seen = Arc::clone(&seen);
                motion.bind(&mut world, move |v: f32| {
                    seen.store(v.to_bits(), Ordering::Relaxed)
                })
            } else {
                motion.run(&mut world)
            };
            handles.push(handle.expect("valid motion"));
        }
        let target = world
            .add_gpu_target(&instances(&ctx, 256))
            .expect("storage buffer");
        Motion::new(Vec2::ZERO, Vec2::ONE, 1.0)
            .loops(-1, LoopType::Flip)
            .bind_to_buffer(&mut world, target.at(3, 4, 0))
            .expect("target in bounds");
        common::update_on_gpu(&mut world, DT, "first update");
        common::update_on_gpu(&mut world, DT, "steady update");
        let steady = stats(&world);
        // Evaluate (the f32 run and the Vec2 run), gather, scatter; ten values back
        // (blocking readback: this update's).
        assert_eq!(
            (
                steady.submissions,
                steady.evaluate_dispatches,
                steady.dispatches
            ),
            (1, 2, 4)
        );
        assert_eq!(steady.read_back_values, 10);
        assert_eq!((steady.uploaded_rows, steady.moved_rows), (0, 0));

        // A removal from the middle of the f32 run (rows 0–99, the Vec2 row 100): the world
        // swaps it past the last f32 row and then past the Vec2 row, so row 50 takes row 99
        // and row 99 takes row 100. The first move reads a row the second writes, so it goes
        // up as an upload instead: one move, one upload, a dispatch each.
        world.cancel(handles[50]).expect("live motion");
        common::update_on_gpu(&mut world, DT, "after a removal");
        let removal = stats(&world);
        assert_eq!(
            (
                removal.moved_rows,
                removal.uploaded_rows,
                removal.dispatches
            ),
            (1, 1, 6)
        );
        // A re-anchored motion goes up again.
        world.set_time(handles[20], 0.5).expect("live motion");
        common::update_on_gpu(&mut world, DT, "after set_time");
        let reanchor = stats(&world);
        assert_eq!((reanchor.uploaded_rows, reanchor.moved_rows), (1, 0));
        assert_eq!(reanchor.dispatches, 5);
    }
}

#[test]
fn the_cpu_executor_counts_its_target_writes_only() {
    for ctx in contexts() {
        let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
        world.set_executor(Executor::Cpu).expect("CPU executor");
        Motion::new(0.0f32, 1.0, 1.0)
            .run(&mut world)
            .expect("valid motion");
        world.update(DT).expect("update");
        assert_eq!(stats(&world), GpuUpdateStats::default(), "no target");

        let target = world
            .add_gpu_target(&instances(&ctx, 64))
            .expect("storage buffer");
        Motion::new(0.0f32, 1.0, 1.0)
            .bind_to_buffer(&mut world, target.at(2, 1, 0))
            .expect("target in bounds");
        world.update(DT).expect("update");
        let s = stats(&world);
        assert_eq!(
            (s.submissions, s.evaluate_dispatches, s.dispatches),
            (1, 0, 1)
        );
        assert_eq!((s.uploaded_rows, s.read_back_values), (0, 0));
        assert!(s.bytes_written >= 4, "the value went up");
    }
    assert!(MotionWorld::new().gpu().update_stats().is_none());
}
