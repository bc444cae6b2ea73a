//! `last_value(h)` (issue 19 item 5, docs/semantics.md §7): the value while the motion lives,
//! and the value it ended on after it completes, until the next update begins; on every
//! executor, through slot reuse.
//!
//! Expected values are worked out by hand (linear and OutQuad motions at exact binary times).

use wgpu_tween::glam::Vec2;
use wgpu_tween::{Ease, Motion, MotionError, MotionWorld};

use crate::common::{executors, Exec};

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * b.abs().max(1.0)
}

fn update(world: &mut MotionWorld, dt: f64, exec: &Exec) {
    world
        .update(dt)
        .unwrap_or_else(|e| panic!("{}: {e}", exec.name()));
}

#[test]
fn a_completed_motion_keeps_its_end_value_until_the_next_update() {
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let h = Motion::new(0.0f32, 10.0, 1.0)
            .ease(Ease::Linear)
            .run(&mut world)
            .unwrap();
        // Before any update (clock 0) and while playing, it is `value`.
        assert_eq!(world.last_value::<f32>(h), Ok(0.0), "{name}");
        update(&mut world, 0.5, &exec);
        assert!(close(world.last_value::<f32>(h).unwrap(), 5.0), "{name}");
        // Past its end in this update: removed, yet its end value (10, not 1.25 · 10) is kept.
        update(&mut world, 0.75, &exec);
        assert_eq!(
            world.value::<f32>(h),
            Err(MotionError::Destroyed(h)),
            "{name}"
        );
        assert!(!world.is_active(h), "{name}");
        assert_eq!(world.last_value::<f32>(h), Ok(10.0), "{name}");
        assert_eq!(
            world.last_value::<Vec2>(h),
            Err(MotionError::TypeMismatch(h)),
            "{name}"
        );
        // The next update ends the window.
        update(&mut world, 0.25, &exec);
        assert_eq!(
            world.last_value::<f32>(h),
            Err(MotionError::Destroyed(h)),
            "{name}"
        );
    }
}

#[test]
fn slot_reuse_keeps_each_motions_own_final_value() {
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let first = Motion::new(Vec2::new(1.0, 2.0), Vec2::new(3.0, -4.0), 1.0)
            .ease(Ease::OutQuad)
            .run(&mut world)
            .unwrap();
        update(&mut world, 0.5, &exec);
        // OutQuad at t = 0.5: 1 − 0.5² = 0.75, so (1 + 2 · 0.75, 2 − 6 · 0.75).
        let mid = world.last_value::<Vec2>(first).unwrap();
        assert!(close(mid.x, 2.5) && close(mid.y, -2.5), "{name}: {mid}");
        update(&mut world, 0.5, &exec); // completes at exactly 1 s
                                        // A new motion takes the freed slot (LIFO reuse); both are answered.
        let second = Motion::new(100.0f32, 200.0, 2.0)
            .ease(Ease::Linear)
            .run(&mut world)
            .unwrap();
        assert_eq!(second.slot(), first.slot(), "{name}: the slot is reused");
        assert_eq!(
            world.last_value::<Vec2>(first),
            Ok(Vec2::new(3.0, -4.0)),
            "{name}"
        );
        assert_eq!(world.last_value::<f32>(second), Ok(100.0), "{name}");
        // `complete` between updates opens the window too: the same slot finishes twice.
        world.complete(second).unwrap();
        assert_eq!(world.last_value::<f32>(second), Ok(200.0), "{name}");
        assert_eq!(
            world.last_value::<Vec2>(first),
            Ok(Vec2::new(3.0, -4.0)),
            "{name}"
        );
        update(&mut world, 0.1, &exec);
        for h in [first, second] {
            assert_eq!(world.last_value::<f32>(h), Err(MotionError::Destroyed(h)));
        }
    }
}

#[test]
fn cancelled_and_cleared_motions_have_no_final_value() {
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let cancelled = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
        let done = Motion::new(0.0f32, 4.0, 0.25)
            .ease(Ease::Linear)
            .run(&mut world)
            .unwrap();
        update(&mut world, 0.5, &exec);
        world.cancel(cancelled).unwrap();
        assert_eq!(
            world.last_value::<f32>(cancelled),
            Err(MotionError::Destroyed(cancelled)),
            "{name}"
        );
        assert_eq!(world.last_value::<f32>(done), Ok(4.0), "{name}");
        world.clear();
        assert_eq!(
            world.last_value::<f32>(done),
            Err(MotionError::Destroyed(done)),
            "{name}"
        );
    }
}

#[test]
fn a_preserved_motion_answers_as_value_does() {
    for exec in executors() {
        let mut world = exec.world();
        let h = Motion::new(0.0f32, 8.0, 0.5)
            .ease(Ease::Linear)
            .preserve()
            .run(&mut world)
            .unwrap();
        update(&mut world, 1.0, &exec);
        update(&mut world, 1.0, &exec);
        assert_eq!(world.last_value::<f32>(h), Ok(8.0), "{}", exec.name());
        assert_eq!(world.value::<f32>(h), Ok(8.0), "{}", exec.name());
    }
}
