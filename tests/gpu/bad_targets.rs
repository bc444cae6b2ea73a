//! A target buffer the device no longer accepts (destroyed, or left mapped) costs only the
//! motions that write into it: they lose their target (reported once, by handle, through
//! `take_gpu_error`), while every other target keeps being written, new targets work, and
//! the world keeps its executor. `attach_gpu` refuses while motions have targets.

use crate::common;

use std::collections::BTreeSet;

use wgpu_tween::gpu::{GpuContext, GpuError};
use wgpu_tween::{Ease, Executor, Motion, MotionHandle, MotionWorld};

fn buffer(ctx: &GpuContext, mapped: bool) -> wgpu::Buffer {
    ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("user targets"),
        size: 256,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: mapped,
    })
}

/// Three motions into `buffer` at f32s 0, 1, 2: motion k goes from 0 to 10 · (k + 1) over
/// 1 s, linearly.
fn three(world: &mut MotionWorld, buffer: &wgpu::Buffer) -> Vec<MotionHandle> {
    let target = world.add_gpu_target(buffer).expect("buffer accepted");
    (0..3u32)
        .map(|k| {
            Motion::new(0.0f32, 10.0 * (k + 1) as f32, 1.0)
                .ease(Ease::Linear)
                .bind_to_buffer(world, target.at(k, 1, 0))
                .expect("target accepted")
        })
        .collect()
}

/// Checks that f32s 0..3 of `buffer` hold the three motions' values at `t` seconds.
fn check(ctx: &GpuContext, buffer: &wgpu::Buffer, t: f32, what: &str) {
    let values = common::read_buffer(ctx, buffer);
    for (k, value) in values.iter().take(3).enumerate() {
        let want = 10.0 * (k + 1) as f32 * t.min(1.0);
        assert!(
            (value - want).abs() < 1e-3,
            "{what}: f32 {k} is {value} at {t} s, want {want}"
        );
    }
}

fn run(executor: Executor, spoil: &dyn Fn(&wgpu::Buffer), leave_mapped: bool) {
    let Some(ctx) = common::gpu() else {
        return;
    };
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    world.set_executor(executor).expect("executor");
    let healthy = buffer(&ctx, false);
    let bad = buffer(&ctx, leave_mapped);
    three(&mut world, &healthy);
    let lost: BTreeSet<MotionHandle> = three(&mut world, &bad).into_iter().collect();
    let what = format!("{executor:?}, mapped {leave_mapped}");
    if !leave_mapped {
        world.update(0.25).expect("update");
        assert_eq!(world.take_gpu_error(), None, "{what}");
        check(&ctx, &healthy, 0.25, &what);
    } else {
        world.update(0.25).expect("update");
    }
    spoil(&bad);
    world.update(0.25).expect("update");
    match world.take_gpu_error() {
        Some(GpuError::TargetsLost { motions }) => {
            assert_eq!(motions.into_iter().collect::<BTreeSet<_>>(), lost, "{what}");
        }
        other => panic!("{what}: expected TargetsLost, got {other:?}"),
    }
    assert_eq!(world.active_executor(), executor, "{what}: executor kept");
    check(&ctx, &healthy, 0.5, &what);
    // The motions that lost their target keep running.
    for &h in &lost {
        assert!((world.time(h).expect("live") - 0.5).abs() < 1e-6, "{what}");
    }
    // A new target works; the healthy one keeps updating; nothing more is reported.
    let fresh = buffer(&ctx, false);
    three(&mut world, &fresh);
    world.update(0.25).expect("update");
    assert_eq!(world.take_gpu_error(), None, "{what}");
    check(&ctx, &healthy, 0.75, &what);
    check(&ctx, &fresh, 0.25, &what);
}

#[test]
fn a_destroyed_target_buffer_costs_only_its_motions() {
    for executor in [Executor::Gpu, Executor::Cpu] {
        run(executor, &|b| b.destroy(), false);
    }
}

#[test]
fn a_target_buffer_left_mapped_costs_only_its_motions() {
    for executor in [Executor::Gpu, Executor::Cpu] {
        run(executor, &|_| {}, true);
    }
}

#[test]
fn attach_gpu_refuses_while_motions_have_targets() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    world.set_executor(Executor::Gpu).expect("executor");
    let target = buffer(&ctx, false);
    three(&mut world, &target);
    assert_eq!(
        world.attach_gpu(ctx.clone()),
        Err(GpuError::LiveTargets { targets: 3 })
    );
    world.update(0.5).expect("update");
    assert_eq!(world.take_gpu_error(), None);
    check(&ctx, &target, 0.5, "after the refused attach");
}
