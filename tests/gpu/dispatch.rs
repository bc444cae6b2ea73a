//! Dispatches over the per-axis workgroup limit fold into two dimensions and still evaluate
//! every row.
//!
//! The real limit is 65 535 workgroups per axis, so "just over the limit" for the evaluate
//! pass (256 rows per workgroup) is 16 776 961 rows: gigabytes of motions, too much for a
//! software adapter in a test. The fold logic does not depend on the limit's value, so the
//! test caps it (`world.gpu_mut().set_max_workgroups_per_axis`) and runs worlds just over `n × 256` and
//! `3 × n × 256` rows. Every motion has a bind, so the gather pass (64 per workgroup) folds
//! too, and so does the apply pass of the first upload and of the moves after mass
//! cancellation. Every row's value is checked against the CPU's f64 evaluation.
//! `full_size_dispatch` runs the real thing; it is ignored by default (run it on a real GPU
//! with `cargo test --release --test gpu dispatch -- --ignored`).

use crate::common;

use std::sync::atomic::AtomicU32;
use std::sync::Arc;

use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Executor, MotionHandle, MotionWorld};

#[path = "../../bench/src/dispatch.rs"]
mod shared_dispatch;

/// A GPU world (the dispatch cap lowered to `max_per_axis`) of `count` distinct bound
/// motions.
fn build(
    ctx: &GpuContext,
    count: usize,
    max_per_axis: Option<u32>,
) -> (MotionWorld, Vec<MotionHandle>, Arc<Vec<AtomicU32>>) {
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    world.set_executor(Executor::Gpu).expect("GPU executor");
    if let Some(n) = max_per_axis {
        world.gpu_mut().set_max_workgroups_per_axis(n);
    }
    let (handles, cells) = shared_dispatch::bound_motions(&mut world, count).expect("motions");
    (world, handles, cells)
}

/// Checks every live motion's bound value against the CPU's evaluation from its anchor;
/// returns how many were live.
fn check_all(
    world: &MotionWorld,
    handles: &[MotionHandle],
    cells: &[AtomicU32],
    what: &str,
) -> usize {
    let checked = shared_dispatch::check_bound(world, handles, cells).expect("values");
    assert_eq!(checked.first, None, "{what}");
    checked.live
}

fn run(ctx: &GpuContext, count: usize, max_per_axis: Option<u32>) {
    let (mut world, handles, cells) = build(ctx, count, max_per_axis);
    world.update(0.37).expect("update");
    assert_eq!(check_all(&world, &handles, &cells, "first update"), count);
    // Cancel a third of the motions from the front: each cancellation moves a row from the
    // end, so the next update applies ~count/3 moves in one folded dispatch.
    for h in handles.iter().take(count / 3) {
        world.cancel(*h).expect("cancel");
    }
    world.update(0.21).expect("update");
    let left = check_all(&world, &handles, &cells, "after mass cancellation");
    assert_eq!(left, count - count / 3);
    assert_eq!(world.take_gpu_error(), None);
    assert_eq!(world.active_executor(), Executor::Gpu);
}

#[test]
fn folded_dispatches_evaluate_every_row() {
    let Some(ctx) = common::gpu() else { return };
    // With at most 16 workgroups per axis: 4 096 rows fit in x; one more row needs y = 2;
    // 3 × 4 096 + 1 rows need y = 4 (and the gather and apply passes, at 64 per workgroup,
    // fold at 1 025 items).
    for count in [1, 16 * 256, 16 * 256 + 1, 3 * 16 * 256 + 1] {
        run(&ctx, count, Some(16));
    }
    // An odd limit, so x × y overshoots the row count by less than a workgroup row.
    run(&ctx, 7 * 256 * 5 + 13, Some(7));
}

#[test]
#[ignore = "16.8 M motions: several GB and minutes on a software adapter; run on a real GPU"]
fn full_size_dispatch() {
    let Some(ctx) = common::gpu() else { return };
    run(&ctx, 65_535 * 256 + 1, None);
}
