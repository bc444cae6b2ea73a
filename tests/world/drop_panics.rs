//! Panics in user drop code (issue 16, item 14): the state a callback captured, dropped when
//! its motion ends, or a panic payload whose own `Drop` panics. Neither escapes `update`
//! (or `cancel`, `clear`); the world stays consistent and reports them as callback errors.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{executors, quiet_intentional_panics, PanicOnDrop, INTENTIONAL};
use wgpu_tween::{CallbackKind, Motion, MotionHandle, MotionWorld};

/// A motion of `duration` whose `on_complete` counts into `completes` and captures a value
/// that panics when dropped.
fn bomb(world: &mut MotionWorld, duration: f32, completes: &Arc<AtomicUsize>) -> MotionHandle {
    let (bomb, completes) = (PanicOnDrop, Arc::clone(completes));
    Motion::new(0.0f32, 1.0, duration)
        .on_complete(move || {
            let _keep = &bomb;
            completes.fetch_add(1, Ordering::SeqCst);
        })
        .run(world)
        .unwrap()
}

/// Kinds and handles of the errors reported since the last call.
fn errors(world: &mut MotionWorld) -> Vec<(CallbackKind, MotionHandle)> {
    let mut errors: Vec<_> = world
        .take_callback_errors()
        .into_iter()
        .map(|e| (e.kind, e.handle))
        .collect();
    errors.sort_by_key(|&(_, h)| format!("{h:?}"));
    errors
}

#[test]
fn a_panicking_drop_of_captured_state_is_caught_when_motions_end() {
    quiet_intentional_panics();
    for exec in executors() {
        let mut world = exec.world();
        let completes = Arc::new(AtomicUsize::new(0));
        let a = bomb(&mut world, 0.5, &completes);
        let b = bomb(&mut world, 0.5, &completes);
        let long = Motion::new(0.0f32, 1.0, 10.0).run(&mut world).unwrap();
        world.update(0.6).unwrap();
        // Both completed (callbacks fired), both removed, the long one lives on.
        assert_eq!(completes.load(Ordering::SeqCst), 2, "{}", exec.name());
        assert_eq!(world.len(), 1, "{}", exec.name());
        assert!(!world.is_active(a) && !world.is_active(b) && world.is_active(long));
        let mut want = vec![(CallbackKind::Drop, a), (CallbackKind::Drop, b)];
        want.sort_by_key(|&(_, h)| format!("{h:?}"));
        assert_eq!(errors(&mut world), want, "{}", exec.name());
        // Cancelling and clearing drop captured state too.
        let c = bomb(&mut world, 5.0, &completes);
        world.cancel(c).unwrap();
        assert_eq!(world.len(), 1);
        assert_eq!(errors(&mut world), [(CallbackKind::Drop, c)]);
        let d = bomb(&mut world, 5.0, &completes);
        world.clear();
        assert!(world.is_empty());
        assert_eq!(errors(&mut world), [(CallbackKind::Drop, d)]);
        world.update(0.1).unwrap();
        assert_eq!(completes.load(Ordering::SeqCst), 2);
    }
}

#[test]
fn a_queued_spawn_dropped_by_clear_is_caught() {
    quiet_intentional_panics();
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let bomb = PanicOnDrop;
    let queued = Motion::new(0.0f32, 1.0, 1.0)
        .on_complete(move || {
            let _keep = &bomb;
        })
        .run_deferred(&commands)
        .unwrap();
    world.clear();
    assert!(world.is_empty());
    assert_eq!(errors(&mut world), [(CallbackKind::Drop, queued)]);
    world.update(0.1).unwrap();
    assert!(world.is_empty() && !world.is_active(queued));
}

/// A panic payload whose `Drop` panics (with a string payload).
struct PayloadThatPanicsOnDrop;

impl Drop for PayloadThatPanicsOnDrop {
    fn drop(&mut self) {
        panic!("{INTENTIONAL}: payload drop");
    }
}

#[test]
fn a_panic_payload_that_panics_when_dropped_is_caught() {
    quiet_intentional_panics();
    for exec in executors() {
        let mut world = exec.world();
        let binds = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&binds);
        let h = Motion::new(0.0f32, 1.0, 0.5)
            .immediate_bind(false)
            .bind(&mut world, move |_: f32| {
                seen.fetch_add(1, Ordering::SeqCst);
                std::panic::panic_any(PayloadThatPanicsOnDrop);
            })
            .unwrap();
        let other = Motion::new(0.0f32, 1.0, 0.5).run(&mut world).unwrap();
        world.update(0.25).unwrap();
        world.update(0.5).unwrap(); // both complete
                                    // Two binds, each panic reported; both motions ended and were removed.
        assert_eq!(binds.load(Ordering::SeqCst), 2, "{}", exec.name());
        let errors = world.take_callback_errors();
        assert_eq!(errors.len(), 2, "{}", exec.name());
        assert!(errors
            .iter()
            .all(|e| e.kind == CallbackKind::Bind && e.handle == h));
        assert_eq!(errors[0].message, "non-string panic payload");
        assert!(
            world.is_empty() && !world.is_active(other),
            "{}",
            exec.name()
        );
    }
}

#[test]
fn a_deferred_sequences_configure_closure_that_panics_is_caught() {
    quiet_intentional_panics();
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let a = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
    let bomb = PanicOnDrop;
    let sequence = wgpu_tween::Sequence::new()
        .append(a)
        .run_with_deferred(&commands, move |m| {
            let _keep = &bomb;
            m
        })
        .unwrap();
    world.update(0.5).unwrap(); // applied: the closure runs, then its state drops
    assert_eq!(errors(&mut world), [(CallbackKind::Drop, sequence)]);
    // The world is consistent: the sequence was not made, its child runs on its own.
    assert!(!world.is_active(sequence));
    assert_eq!(world.len(), 1);
    world.update(0.6).unwrap();
    assert!(world.is_empty());
}
