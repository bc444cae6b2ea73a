//! Issue 16, items 1, 2 and the clock parts of 4: a motion's clock at its creation is exactly
//! 0 whatever the world time, re-anchoring keeps the clock (and its status), and no accepted
//! time, speed or delta makes a clock or world time non-finite. On every executor.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use wgpu_tween::{Motion, MotionError, MotionStatus, Sequence, UpdateError, MAX_TIME};

fn counter() -> (Arc<AtomicUsize>, impl FnMut() + Send + 'static) {
    let count = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&count);
    (count, move || {
        c.fetch_add(1, Ordering::SeqCst);
    })
}

/// Item 1: a zero-duration motion created at any world time completes at the next update
/// with a positive step (§2: completed strictly after its start), fires `on_complete` once
/// and is removed. Before the fix, 105 of 200 such motions never completed.
#[test]
fn zero_duration_motions_created_late_complete_at_the_next_update() {
    for exec in common::executors() {
        let mut world = exec.world();
        let (count, on_complete) = counter();
        let mut made = 0;
        for start in [0.1, 12_345.678, 9.005_999_999_999_997] {
            world.update(start).unwrap();
            let h = Motion::new(0.0f32, 1.0, 0.0)
                .on_complete(on_complete_clone(&count))
                .run(&mut world)
                .unwrap();
            assert_eq!(world.time(h), Ok(0.0), "{}: clock at creation", exec.name());
            made += 1;
        }
        // One per frame at 1/60 s.
        for _ in 0..200 {
            Motion::new(0.0f32, 1.0, 0.0)
                .on_complete(on_complete_clone(&count))
                .run(&mut world)
                .unwrap();
            made += 1;
            world.update(1.0 / 60.0).unwrap();
        }
        world.update(0.1).unwrap();
        assert_eq!(count.load(Ordering::SeqCst), made, "{}", exec.name());
        assert_eq!(world.len(), 0, "{}: none left live", exec.name());
        drop(on_complete);
    }
}

fn on_complete_clone(count: &Arc<AtomicUsize>) -> impl FnMut() + Send + 'static {
    let c = Arc::clone(count);
    move || {
        c.fetch_add(1, Ordering::SeqCst);
    }
}

/// Item 1 for sequences: an empty sequence and one of zero-length children, created late,
/// complete at the next update.
#[test]
fn empty_and_zero_length_sequences_created_late_complete() {
    for exec in common::executors() {
        let mut world = exec.world();
        world.update(0.1).unwrap();
        world.update(12_345.678).unwrap();
        let (count, on_complete) = counter();
        let empty = Sequence::new().run(&mut world).unwrap();
        let a = Motion::new(0.0f32, 1.0, 0.0).run(&mut world).unwrap();
        let b = Motion::new(0.0f32, 1.0, 0.0).run(&mut world).unwrap();
        let zero = Sequence::new()
            .append(a)
            .append(b)
            .run_with(&mut world, |m| m.on_complete(on_complete))
            .unwrap();
        world.update(1.0 / 60.0).unwrap();
        assert!(!world.is_active(empty), "{}: empty sequence", exec.name());
        assert!(
            !world.is_active(zero),
            "{}: zero-length sequence",
            exec.name()
        );
        assert_eq!(count.load(Ordering::SeqCst), 1, "{}", exec.name());
        assert_eq!(world.len(), 0, "{}", exec.name());
    }
}

/// Item 2: pausing and resuming keeps the clock: the repro jumped to 17909.76.
#[test]
fn pause_and_resume_keep_the_clock() {
    for exec in common::executors() {
        let mut world = exec.world();
        world.update(9.005_999_999_999_997).unwrap();
        let (count, on_complete) = counter();
        let h = Motion::new(0.0f32, 1.0, 2.0)
            .on_complete(on_complete)
            .run(&mut world)
            .unwrap();
        world.set_playback_speed(h, 0.0).unwrap();
        world.update(8.484_000_000_000_016).unwrap();
        world.set_playback_speed(h, 1.0).unwrap();
        assert_eq!(world.time(h), Ok(0.0), "{}", exec.name());
        assert_eq!(
            world.status(h),
            Ok(MotionStatus::Playing),
            "{}",
            exec.name()
        );
        world.update(0.5).unwrap();
        assert_eq!(world.time(h), Ok(0.5), "{}", exec.name());
        assert_eq!(world.value::<f32>(h), Ok(0.25), "{}", exec.name());
        world.update(1.5).unwrap();
        assert_eq!(count.load(Ordering::SeqCst), 1, "{}", exec.name());
        assert_eq!(world.len(), 0, "{}", exec.name());
    }
}

/// Item 2, many cases: create at an arbitrary world time, pause, resume later; the clock
/// stays within two anchor-grid steps (2^-46 of the world time) of where it was paused, and
/// its status is kept. Before the fix, 194 of 624 such cases jumped by up to hours.
#[test]
fn pause_and_resume_at_arbitrary_times() {
    let mut rng = common::Rng(0x1234_5678_9abc_def1);
    let mut world = wgpu_tween::MotionWorld::new();
    for _ in 0..624 {
        world.update(rng.range(0.0, 20.0)).unwrap();
        let h = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
        world.update(rng.range(0.0, 0.5)).unwrap();
        let paused_at = world.time(h).unwrap();
        world.set_playback_speed(h, 0.0).unwrap();
        world.update(rng.range(0.0, 20.0)).unwrap();
        world.set_playback_speed(h, 1.0).unwrap();
        let resumed = world.time(h).unwrap();
        let grid = world.world_time(wgpu_tween::TimeKind::Scaled) * 2f64.powi(-46);
        assert_eq!(world.status(h), Ok(MotionStatus::Playing));
        assert!(
            (resumed - paused_at).abs() <= grid,
            "paused at {paused_at}, resumed at {resumed}"
        );
        world.cancel(h).unwrap();
    }
}

/// Item 4: `set_time` near and past the time limit; speeds whose anchor would overflow;
/// `complete` of a motion longer than the limit; world time summing past the limit.
#[test]
fn times_beyond_the_limit_are_refused() {
    for exec in common::executors() {
        let mut world = exec.world();
        let h = Motion::new(0.0f32, 1.0, 2.0).run(&mut world).unwrap();
        for t in [3.4e38, -3.5e38, 1e300, MAX_TIME * 2.0] {
            assert!(
                matches!(world.set_time(h, t), Err(MotionError::OutOfRange { .. })),
                "{}: set_time {t}",
                exec.name()
            );
        }
        assert_eq!(world.time(h), Ok(0.0));
        world.set_time(h, 1.0).unwrap();
        assert!(matches!(
            world.set_playback_speed(h, 1e-39),
            Err(MotionError::OutOfRange { .. })
        ));
        assert_eq!(world.time(h), Ok(1.0), "{}: refused speed", exec.name());
        assert_eq!(world.playback_speed(h), Ok(1.0));
        // At the limit itself: finite clock, status and value.
        world.set_time(h, MAX_TIME).unwrap();
        assert!(
            !world.is_active(h),
            "{}: completed and removed",
            exec.name()
        );
        let long = Motion::new(0.0f32, 1.0, f32::MAX)
            .loops(i32::MAX, wgpu_tween::LoopType::Restart)
            .run(&mut world)
            .unwrap();
        assert!(matches!(
            world.complete(long),
            Err(MotionError::OutOfRange { .. })
        ));
        assert_eq!(world.time(long), Ok(0.0));
        world.update(f64::MAX / 4.0).unwrap_err();
        let mut world = exec.world();
        world.update(MAX_TIME / 2.0).unwrap();
        world.update(MAX_TIME / 2.0).unwrap();
        assert!(matches!(
            world.update(MAX_TIME / 2.0),
            Err(UpdateError::WorldTimeOverflow { .. })
        ));
        assert_eq!(world.world_time(wgpu_tween::TimeKind::Scaled), MAX_TIME);
        let h = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
        assert_eq!(world.time(h), Ok(0.0));
        assert_eq!(world.value::<f32>(h), Ok(0.0));
    }
}
