//! Detached batches kept whole (`src/world/cohorts.rs`): their host-array values are those
//! of the same motions added with handles (the general path), for every value kind, ease,
//! loop type, delay and speed, on every executor; they are counted until the update they
//! end in; a refused batch adds nothing; a GPU target part-way hands the rest of the batch
//! to the general path; `clear` and a removed array end or silence them as they would
//! motions with handles.

use crate::common;

use glam::{Quat, Vec2, Vec3, Vec4};
use wgpu_tween::{
    Animatable, AnimationCurve, BatchItem, BuildError, DelayType, Ease, EaseMode, Keyframe,
    LoopType, Motion, MotionWorld, ParametricEase, TargetId, TimeDeltas, TimeKind,
};

/// Motions per batch.
const N: usize = 40;

/// One configuration: its name, its base motion, and how far values may differ between the
/// general path on `exec` and the cohort (the reference's, evaluated on the CPU).
struct Case<T: Animatable> {
    name: &'static str,
    base: Motion<T>,
    item: fn(usize) -> (T, T),
    tolerance: f32,
}

/// Adds one batch of `case` to `world`, writing `array` from element `at`: detached (a
/// cohort) or with handles kept (the general path).
fn spawn<T: Animatable>(
    world: &mut MotionWorld,
    case: &Case<T>,
    array: TargetId,
    at: usize,
    detached: bool,
) {
    let item = |i: usize| {
        let (from, to) = (case.item)(i);
        BatchItem::new(from, to).target(array.at((at + i) as u32, T::LANES as u32, 0))
    };
    let added = if detached {
        case.base.run_batch_detached(world, N, item)
    } else {
        case.base.run_batch(world, N, item, &mut Vec::new())
    };
    added.expect("valid batch");
}

/// Runs `case` in two worlds on `exec`, one detached and one kept, three batches spawned a
/// few updates apart, and compares the arrays and the motion counts after every update.
fn compare<T: Animatable>(exec: &common::Exec, case: &Case<T>) {
    let lanes = T::LANES;
    // Values are compared relative to the largest endpoint lane (an ease's error scales
    // with the motion's range).
    let scale = (0..N)
        .flat_map(|i| {
            let (from, to) = (case.item)(i);
            from.to_lanes().into_iter().chain(to.to_lanes())
        })
        .fold(1.0f32, |m, x| m.max(x.abs()));
    let (mut cohort, mut kept) = (exec.world(), exec.world());
    let len = 3 * N * lanes;
    let (a, b) = (
        cohort.add_host_target(len).expect("array"),
        kept.add_host_target(len).expect("array"),
    );
    // Uneven deltas, the unscaled clock running at half the scaled one's rate.
    let deltas = [
        0.05, 0.31, 0.12, 0.5, 0.07, 0.9, 0.21, 1.3, 0.4, 2.0, 0.6, 3.0,
    ];
    for (update, &dt) in deltas.iter().enumerate() {
        if update % 4 == 0 {
            let at = (update / 4) * N;
            spawn(&mut cohort, case, a, at, true);
            spawn(&mut kept, case, b, at, false);
        }
        let step = TimeDeltas {
            scaled: dt,
            unscaled: dt * 0.5,
            realtime: dt,
        };
        cohort.update_with(step).expect("update");
        kept.update_with(step).expect("update");
        let what = format!("{} on {}, update {update}", case.name, exec.name());
        assert_eq!(cohort.len(), kept.len(), "{what}: motions");
        let (got, want) = (
            cohort.host_target(a).expect("array"),
            kept.host_target(b).expect("array"),
        );
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            let span = case.tolerance * scale;
            assert!(
                (g - w).abs() <= span && g.is_finite(),
                "{what}: f32 {i}: {g} (cohort) vs {w} (general)"
            );
        }
    }
}

fn scalar(i: usize) -> (f32, f32) {
    (i as f32 * 0.25 - 3.0, 10.0 - i as f32 * 0.5)
}

fn pair(i: usize) -> (Vec2, Vec2) {
    (Vec2::new(i as f32, -1.0), Vec2::new(-2.0, i as f32 * 3.0))
}

fn triple(i: usize) -> (Vec3, Vec3) {
    (
        Vec3::splat(i as f32 * 0.1),
        Vec3::new(1.0, -(i as f32), 7.5),
    )
}

fn quad(i: usize) -> (Vec4, Vec4) {
    (Vec4::splat(1.0), Vec4::new(i as f32, 0.5, -0.5, 2.0))
}

fn rotation(i: usize) -> (Quat, Quat) {
    let axis = Vec3::new(1.0, i as f32 * 0.1, 0.3).normalize();
    (
        Quat::IDENTITY,
        Quat::from_axis_angle(axis, 0.2 + i as f32 * 0.07),
    )
}

#[test]
fn detached_batches_write_what_batches_with_handles_write() {
    let curve = AnimationCurve::new([
        Keyframe::new(0.0, 0.0),
        Keyframe::new(0.4, 1.2),
        Keyframe::new(1.0, 1.0),
    ])
    .expect("curve");
    for exec in common::executors() {
        let ease = 1e-5;
        compare(
            &exec,
            &Case {
                name: "f32 OutQuad",
                base: Motion::new(0.0f32, 0.0, 1.1).ease(Ease::OutQuad),
                item: scalar,
                tolerance: ease,
            },
        );
        compare(
            &exec,
            &Case {
                name: "f32 InOutElastic, yoyo, delay every loop, unscaled",
                base: Motion::new(0.0f32, 0.0, 0.7)
                    .ease(Ease::InOutElastic)
                    .loops(3, LoopType::Yoyo)
                    .delay_with(0.2, DelayType::EveryLoop, false)
                    .time_kind(TimeKind::Unscaled),
                item: scalar,
                tolerance: ease,
            },
        );
        compare(
            &exec,
            &Case {
                name: "Vec2 Back (parametric), incremental, speed 1.5",
                base: Motion::new(Vec2::ZERO, Vec2::ZERO, 0.9)
                    .ease_with(ParametricEase::Back {
                        mode: EaseMode::InOut,
                        overshoot: 2.5,
                    })
                    .loops(2, LoopType::Incremental)
                    .playback_speed(1.5),
                item: pair,
                tolerance: ease,
            },
        );
        compare(
            &exec,
            &Case {
                name: "Vec3 curve, endless restart",
                base: Motion::new(Vec3::ZERO, Vec3::ZERO, 0.8)
                    .ease_curve(&curve)
                    .loops(-1, LoopType::Restart),
                item: triple,
                tolerance: ease,
            },
        );
        compare(
            &exec,
            &Case {
                name: "Vec4 InSine, flip, delay",
                base: Motion::new(Vec4::ZERO, Vec4::ZERO, 1.6)
                    .ease(Ease::InSine)
                    .loops(2, LoopType::Flip)
                    .delay(0.3),
                item: quad,
                tolerance: ease,
            },
        );
        compare(
            &exec,
            &Case {
                name: "Quat slerp OutCubic",
                base: Motion::new(Quat::IDENTITY, Quat::IDENTITY, 1.2).ease(Ease::OutCubic),
                item: rotation,
                tolerance: 1e-5,
            },
        );
        compare(
            &exec,
            &Case {
                name: "Vec3 punch",
                base: Motion::punch(Vec3::ZERO, Vec3::ZERO, 1.4).frequency(7.0),
                item: triple,
                tolerance: 1e-4,
            },
        );
        compare(
            &exec,
            &Case {
                name: "f32 shake, seeds from the world",
                base: Motion::shake(0.0f32, 0.0, 1.9),
                item: scalar,
                tolerance: 1e-4,
            },
        );
    }
}

#[test]
fn a_detached_batch_follows_the_worked_values_and_ends_whole() {
    // Linear from 0 to 8·(i + 1) over 2 s after a 0.5 s delay: the values at quarter
    // steps are exact in f32.
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let xs = world.add_host_target(2 * 8 * 3).expect("array");
        let base = Motion::new(Vec3::ZERO, Vec3::ZERO, 2.0)
            .ease(Ease::Linear)
            .delay(0.5);
        base.run_batch_detached(&mut world, 8, |i| {
            let end = 8.0 * (i + 1) as f32;
            BatchItem::new(Vec3::splat(-1.0), Vec3::new(end, -end, 0.0))
                .target(xs.at(i as u32, 6, 3))
        })
        .expect("valid batch");
        assert_eq!(world.len(), 8, "{name}");
        for (dt, t) in [(0.25, 0.25), (0.5, 0.75), (0.75, 1.5), (1.0, 2.5)] {
            world.update(dt).expect("update");
            let array = world.host_target(xs).expect("array");
            let p = ((t - 0.5f32) / 2.0).clamp(0.0, 1.0);
            for i in 0..8 {
                let end = 8.0 * (i + 1) as f32;
                let want = [-1.0 + (end + 1.0) * p, -1.0 + (-end + 1.0) * p, -1.0 + p];
                assert_eq!(
                    &array[6 * i + 3..6 * i + 6],
                    &want,
                    "{name}: t = {t}, motion {i}"
                );
                assert_eq!(
                    &array[6 * i..6 * i + 3],
                    &[0.0; 3],
                    "{name}: the stride's gap"
                );
            }
            // Counted until the update it ends in.
            assert_eq!(world.len(), if t < 2.5 { 8 } else { 0 }, "{name}: t = {t}");
        }
    }
}

#[test]
fn a_refused_detached_batch_adds_nothing() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let xs = world.add_host_target(8).expect("array");
        let base = Motion::new(0.0f32, 0.0, 1.0);
        let bad = base.run_batch_detached(&mut world, 8, |i| {
            let to = if i == 5 { f32::NAN } else { 1.0 };
            BatchItem::new(0.0, to).target(xs.at(i as u32, 1, 0))
        });
        assert!(
            matches!(bad, Err(BuildError::InBatch { index: 5, .. })),
            "{name}: {bad:?}"
        );
        let outside = base.run_batch_detached(&mut world, 8, |i| {
            BatchItem::new(0.0, 1.0).target(xs.at(i as u32 + 1, 1, 0))
        });
        assert!(
            matches!(outside, Err(BuildError::InBatch { index: 7, .. })),
            "{name}: {outside:?}"
        );
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            base.run_batch_detached(&mut world, 8, |i| {
                assert!(i < 3, "{}: item", common::INTENTIONAL);
                BatchItem::new(0.0, 1.0).target(xs.at(i as u32, 1, 0))
            })
        }));
        assert!(panicked.is_err());
        assert!(world.is_empty(), "{name}");
        world.update(0.5).expect("update");
        assert_eq!(world.host_target(xs).expect("array"), &[0.0; 8], "{name}");
    }
}

#[test]
fn detached_motions_in_groups_or_preserved_stay_nameable() {
    // A group lists its motions and a preserved motion stays after its end: these batches
    // take the general path, and keep doing what they did.
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let group = world.add_group(TimeKind::Scaled).expect("group");
        let item = |i: usize| BatchItem::new(0.0f32, i as f32);
        Motion::new(0.0f32, 0.0, 1.0)
            .group(group)
            .run_batch_detached(&mut world, 5, item)
            .expect("valid batch");
        assert_eq!(
            world.group_motions(group).expect("group").count(),
            5,
            "{name}"
        );
        Motion::new(0.0f32, 0.0, 1.0)
            .preserve()
            .run_batch_detached(&mut world, 3, item)
            .expect("valid batch");
        world.update(2.0).expect("update");
        assert_eq!(world.len(), 3, "{name}: the preserved ones");
        assert_eq!(world.cancel_group(group), Ok(0), "{name}");
    }
}

#[test]
fn clear_and_a_removed_array_end_or_silence_detached_motions() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let (xs, ys) = (
            world.add_host_target(4).expect("array"),
            world.add_host_target(4).expect("array"),
        );
        let base = Motion::new(0.0f32, 0.0, 1.0).ease(Ease::Linear);
        // One batch writing both arrays (two cohorts) and one with no target.
        base.run_batch_detached(&mut world, 8, |i| {
            let array = if i % 2 == 0 { xs } else { ys };
            BatchItem::new(0.0, 4.0).target(array.at(i as u32 / 2, 1, 0))
        })
        .expect("valid batch");
        base.run_batch_detached(&mut world, 6, |_| BatchItem::new(0.0, 1.0))
            .expect("valid batch");
        assert_eq!(world.len(), 14, "{name}");
        world.update(0.25).expect("update");
        assert_eq!(world.host_target(xs).expect("array"), &[1.0; 4], "{name}");
        assert_eq!(world.host_target(ys).expect("array"), &[1.0; 4], "{name}");
        world.remove_target(ys).expect("registered");
        world.update(0.25).expect("update");
        assert_eq!(world.host_target(xs).expect("array"), &[2.0; 4], "{name}");
        assert_eq!(
            world.len(),
            14,
            "{name}: the motions go on without the array"
        );
        // Cleared: gone at once, their last values left.
        world.clear();
        assert!(world.is_empty(), "{name}");
        world.update(0.25).expect("update");
        assert_eq!(world.host_target(xs).expect("array"), &[2.0; 4], "{name}");
        // Endless motions are counted until cleared.
        base.loops(-1, LoopType::Yoyo)
            .run_batch_detached(&mut world, 4, |i| {
                BatchItem::new(0.0, 4.0).target(xs.at(i as u32, 1, 0))
            })
            .expect("valid batch");
        world.update(1.25).expect("update");
        assert_eq!(
            world.host_target(xs).expect("array"),
            &[3.0; 4],
            "{name}: 1.25 s into a yoyo"
        );
        world.update(100.0).expect("update");
        assert_eq!(world.len(), 4, "{name}");
    }
}

#[cfg(feature = "gpu")]
#[test]
fn a_gpu_target_part_way_hands_the_rest_of_the_batch_to_the_general_path() {
    let Some(ctx) = common::gpu() else {
        assert!(
            !common::gpu_required(),
            "WGPU_TWEEN_REQUIRE_GPU=1 but no GPU adapter"
        );
        return;
    };
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    let host = world.add_host_target(4).expect("array");
    let usage = wgpu::BufferUsages::COPY_SRC;
    let (gpu, buffer) = world
        .create_gpu_target(16, usage, wgpu_tween::TargetFormat::F32)
        .expect("GPU target");
    Motion::new(0.0f32, 0.0, 1.0)
        .ease(Ease::Linear)
        .run_batch_detached(&mut world, 8, |i| {
            let target = if i < 4 {
                host.at(i as u32, 1, 0)
            } else {
                gpu.at(i as u32 - 4, 1, 0)
            };
            BatchItem::new(0.0, (i + 1) as f32).target(target)
        })
        .expect("valid batch");
    assert_eq!(world.len(), 8);
    world.update(0.5).expect("update");
    assert_eq!(
        world.host_target(host).expect("array"),
        &[0.5, 1.0, 1.5, 2.0]
    );
    assert_eq!(common::read_buffer(&ctx, &buffer), [2.5, 3.0, 3.5, 4.0]);
    world.update(0.5).expect("update");
    assert!(world.is_empty());
    assert_eq!(
        world.host_target(host).expect("array"),
        &[1.0, 2.0, 3.0, 4.0]
    );
}
