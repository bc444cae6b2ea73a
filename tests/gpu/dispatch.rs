//! Dispatches over the per-axis workgroup limit fold into two dimensions and still evaluate
//! every row.
//!
//! The real limit is 65 535 workgroups per axis, so "just over the limit" for the evaluate
//! pass (256 rows per workgroup) is 16 776 961 rows: gigabytes of motions, too much for a
//! software adapter in a test. The fold logic does not depend on the limit's value, so the
//! test caps it (`set_gpu_max_workgroups_per_axis`) and runs worlds just over `n × 256` and
//! `3 × n × 256` rows. Every motion has a bind, so the gather pass (64 per workgroup) folds
//! too, and so does the apply pass of the first upload and of the moves after mass
//! cancellation. Every row's value is checked against the CPU's f64 evaluation.
//! `full_size_dispatch` runs the real thing; it is ignored by default (run it on a real GPU
//! with `cargo test --release --test gpu_dispatch -- --ignored`).

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Ease, Executor, LoopType, Motion, MotionHandle, MotionWorld};

/// A world of `count` distinct motions, each binding into its own cell of `cells`.
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
    world.reserve(count);
    let cells: Arc<Vec<AtomicU32>> = Arc::new((0..count).map(|_| AtomicU32::new(0)).collect());
    let mut handles = Vec::with_capacity(count);
    for i in 0..count {
        let cells = Arc::clone(&cells);
        // Distinct per row: start, span, duration and ease all vary with i.
        let h = Motion::new(i as f32, i as f32 + 1000.0, 1.0 + (i % 7) as f32 * 0.25)
            .ease(Ease::ALL[i % Ease::ALL.len()])
            .loops(-1, LoopType::Yoyo)
            .immediate_bind(false)
            .bind(&mut world, move |v: f32| {
                cells[i].store(v.to_bits(), Ordering::Relaxed)
            })
            .expect("motion");
        handles.push(h);
    }
    (world, handles, cells)
}

/// Checks every live motion's bound value against the CPU's evaluation from its anchor.
fn check_all(
    world: &MotionWorld,
    handles: &[MotionHandle],
    cells: &[AtomicU32],
    what: &str,
) -> usize {
    let mut checked = 0;
    for (i, &h) in handles.iter().enumerate() {
        if !world.is_active(h) {
            continue;
        }
        let got = f32::from_bits(cells[i].load(Ordering::Relaxed));
        let want = world.value::<f32>(h).expect("value");
        assert!(
            (got - want).abs() <= 1e-4 * 1000.0 + 4.0 * f32::EPSILON * want.abs(),
            "{what}: motion {i} of {}: GPU {got}, CPU {want}",
            handles.len()
        );
        checked += 1;
    }
    checked
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
