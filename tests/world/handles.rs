//! Stale handles (docs/semantics.md §7, docs/design.md invariant 1; seed 001): a handle kept past its
//! motion's end — completion, cancel, slot reuse, `clear()` — never reads or changes another
//! motion, and never becomes valid again.
//!
//! Every expected value below is worked out by hand from docs/semantics.md (linear motions, exact
//! binary times), never taken from the library's own output.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use wgpu_tween::{LoopType, Motion, MotionError, MotionHandle, MotionStatus, MotionWorld};

/// Counters and the last bound value of one motion.
#[derive(Default)]
struct Probe {
    binds: AtomicUsize,
    completes: AtomicUsize,
    cancels: AtomicUsize,
    last: Mutex<Option<f32>>,
}

impl Probe {
    fn binds(&self) -> usize {
        self.binds.load(Ordering::SeqCst)
    }
    fn completes(&self) -> usize {
        self.completes.load(Ordering::SeqCst)
    }
    fn cancels(&self) -> usize {
        self.cancels.load(Ordering::SeqCst)
    }
    fn last(&self) -> Option<f32> {
        *self.last.lock().unwrap()
    }
}

/// A linear `from → to` motion over `duration` seconds, reporting into a fresh probe.
fn probed(
    world: &mut MotionWorld,
    from: f32,
    to: f32,
    duration: f32,
    preserve: bool,
) -> (MotionHandle, Arc<Probe>) {
    let probe = Arc::new(Probe::default());
    let (c, x, b) = (probe.clone(), probe.clone(), probe.clone());
    let mut motion = Motion::new(from, to, duration)
        .on_complete(move || {
            c.completes.fetch_add(1, Ordering::SeqCst);
        })
        .on_cancel(move || {
            x.cancels.fetch_add(1, Ordering::SeqCst);
        });
    if preserve {
        motion = motion.preserve();
    }
    let handle = motion
        .bind(world, move |v| {
            b.binds.fetch_add(1, Ordering::SeqCst);
            *b.last.lock().unwrap() = Some(v);
        })
        .expect("valid motion");
    (handle, probe)
}

/// Every operation on a handle that no longer refers to a live motion of `world` fails with
/// `Destroyed(h)` (or `false` for the `try_*` forms) and reports nothing.
fn assert_destroyed(world: &mut MotionWorld, h: MotionHandle) {
    let gone = Err(MotionError::Destroyed(h));
    assert!(!world.is_active(h), "{h:?} must not be active");
    assert!(!world.is_playing(h), "{h:?} must not be playing");
    assert_eq!(world.status(h), gone.map(|()| MotionStatus::Playing));
    assert_eq!(world.value::<f32>(h), gone.map(|()| 0.0));
    assert_eq!(world.time(h), gone.map(|()| 0.0));
    assert_eq!(world.completed_loops(h), gone.map(|()| 0));
    assert_eq!(world.cancel(h), gone);
    assert_eq!(world.complete(h), gone);
    assert_eq!(world.set_time(h, 0.5), gone);
    assert_eq!(world.set_playback_speed(h, 2.0), gone);
    assert_eq!(world.preserve(h), gone);
    assert!(!world.try_cancel(h));
    assert!(!world.try_complete(h));
}

fn assert_close(got: f32, want: f32) {
    assert!(
        (got - want).abs() <= 1e-5 * want.abs().max(1.0),
        "expected {want}, got {got}"
    );
}

#[test]
fn handle_after_natural_completion_is_destroyed() {
    let mut world = MotionWorld::new();
    let (a, pa) = probed(&mut world, 0.0, 10.0, 1.0, false);
    world.update(0.5).unwrap();
    assert_eq!(world.value::<f32>(a), Ok(5.0));
    world.update(0.5).unwrap(); // T = 1 = D: completed, removed
    assert_eq!(pa.completes(), 1);
    assert_eq!(pa.last(), Some(10.0));
    assert_eq!(world.len(), 0);
    assert_destroyed(&mut world, a);
    // Nothing fired through the stale handle.
    assert_eq!((pa.completes(), pa.cancels()), (1, 0));
}

#[test]
fn handle_after_cancel_is_destroyed() {
    let mut world = MotionWorld::new();
    let (a, pa) = probed(&mut world, 0.0, 10.0, 1.0, false);
    world.update(0.25).unwrap();
    assert_eq!(world.cancel(a), Ok(()));
    assert_eq!(pa.cancels(), 1);
    assert_destroyed(&mut world, a);
    // The cancel callback fired once, and only once, whatever the stale handle did.
    assert_eq!((pa.completes(), pa.cancels()), (0, 1));
    // No more binds after the cancel.
    let binds = pa.binds();
    world.update(0.25).unwrap();
    world.update(1.0).unwrap();
    assert_eq!(pa.binds(), binds);
    assert_eq!((pa.completes(), pa.cancels()), (0, 1));
}

#[test]
fn handle_after_explicit_complete_is_destroyed() {
    let mut world = MotionWorld::new();
    let (a, pa) = probed(&mut world, 0.0, 10.0, 1.0, false);
    world.update(0.25).unwrap();
    assert_eq!(world.complete(a), Ok(()));
    assert_eq!(pa.completes(), 1);
    assert_eq!(pa.last(), Some(10.0));
    assert_destroyed(&mut world, a);
    assert_eq!((pa.completes(), pa.cancels()), (1, 0));
}

/// The old motion ends, a new one takes its slot: the old handle must miss the new motion.
fn check_slot_reuse(end_old: impl FnOnce(&mut MotionWorld, MotionHandle)) {
    let mut world = MotionWorld::new();
    let (old, p_old) = probed(&mut world, 0.0, 10.0, 1.0, false);
    world.update(0.25).unwrap();
    end_old(&mut world, old);
    assert!(!world.is_active(old));
    let (completes_old, cancels_old) = (p_old.completes(), p_old.cancels());

    let (new, p_new) = probed(&mut world, 0.0, 100.0, 2.0, false);
    // Premise of the test: the freed slot is reused (only the version tells them apart).
    assert_eq!(new.slot(), old.slot(), "test premise: the slot is reused");
    assert_ne!(new.version(), old.version());
    assert_ne!(new, old);

    world.update(0.5).unwrap(); // new: T = 0.5 of 2 → 25
    assert_destroyed(&mut world, old);

    // The new motion was not touched: not cancelled, not completed, not re-timed, speed 1.
    assert!(world.is_active(new));
    assert_eq!(world.status(new), Ok(MotionStatus::Playing));
    assert_eq!(world.time(new), Ok(0.5));
    assert_eq!(world.playback_speed(new), Ok(1.0));
    assert_eq!(world.value::<f32>(new), Ok(25.0));
    assert_eq!((p_new.completes(), p_new.cancels()), (0, 0));
    assert_eq!(p_new.last(), Some(25.0));
    world.update(0.5).unwrap(); // T = 1 → 50
    assert_eq!(p_new.last(), Some(50.0));
    assert_eq!(world.value::<f32>(new), Ok(50.0));
    // And not made preserved: it is removed at its natural end, its own callback once.
    world.update(1.0).unwrap(); // T = 2 = D
    assert_eq!(p_new.last(), Some(100.0));
    assert_eq!((p_new.completes(), p_new.cancels()), (1, 0));
    assert!(!world.is_active(new));
    assert_eq!(world.len(), 0);
    // The old motion's callbacks never fired again.
    assert_eq!(
        (p_old.completes(), p_old.cancels()),
        (completes_old, cancels_old)
    );
}

#[test]
fn completed_handle_misses_the_motion_reusing_its_slot() {
    check_slot_reuse(|world, _old| {
        world.update(1.0).unwrap(); // T = 1.25 > D: completed
    });
}

#[test]
fn cancelled_handle_misses_the_motion_reusing_its_slot() {
    check_slot_reuse(|world, old| world.cancel(old).unwrap());
}

#[test]
fn explicitly_completed_handle_misses_the_motion_reusing_its_slot() {
    check_slot_reuse(|world, old| world.complete(old).unwrap());
}

#[test]
fn many_generations_on_one_slot_stay_apart() {
    let mut world = MotionWorld::new();
    let mut old = Vec::new();
    for _ in 0..200 {
        let h = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
        world.cancel(h).unwrap();
        old.push(h);
    }
    let (live, probe) = probed(&mut world, 0.0, 8.0, 1.0, false);
    for &h in &old {
        assert_ne!(h, live);
        assert_destroyed(&mut world, h);
    }
    world.update(0.5).unwrap();
    assert_eq!(world.value::<f32>(live), Ok(4.0));
    assert_eq!((probe.completes(), probe.cancels()), (0, 0));
}

#[test]
fn litmotion_clear_bug_first_handle_differs_after_clear() {
    // LitMotion: slot 0 version 1 before Clear equals the first handle after it (seed 001).
    let mut world = MotionWorld::new();
    let (before, p_before) = probed(&mut world, 0.0, 10.0, 1.0, false);
    assert_eq!(
        before.slot(),
        0,
        "test premise: the first motion takes slot 0"
    );
    world.clear();
    assert_eq!(world.len(), 0);
    // Clearing calls no callbacks.
    assert_eq!((p_before.completes(), p_before.cancels()), (0, 0));

    let (after, p_after) = probed(&mut world, 0.0, 100.0, 1.0, false);
    assert_ne!(after, before, "a cleared handle must not equal a new one");
    assert_destroyed(&mut world, before);
    world.update(0.25).unwrap();
    assert!(world.is_active(after));
    assert_eq!(world.value::<f32>(after), Ok(25.0));
    assert_eq!(p_after.last(), Some(25.0));
    assert_eq!((p_after.completes(), p_after.cancels()), (0, 0));
    assert_eq!((p_before.completes(), p_before.cancels()), (0, 0));
}

#[test]
fn handles_from_before_clear_never_become_valid_again() {
    let mut world = MotionWorld::new();
    let mut old: Vec<MotionHandle> = Vec::new();
    // Several clear cycles, small and large (large ones let the world drop its vacant
    // slots), with some motions ended before the clear and slots reused in between.
    for (round, count) in [3usize, 150, 10, 300, 70, 1, 500].into_iter().enumerate() {
        let mut handles = Vec::new();
        for i in 0..count {
            let h = Motion::new(0.0f32, 1.0, 1.0 + i as f32)
                .run(&mut world)
                .unwrap();
            assert!(
                !old.contains(&h),
                "round {round}: new handle {h:?} equals a handle from before a clear"
            );
            handles.push(h);
        }
        for h in handles.iter().step_by(3) {
            world.cancel(*h).unwrap();
        }
        for _ in 0..count / 5 {
            // Refill some freed slots.
            let fresh = Motion::new(0.0f32, 1.0, 50.0).run(&mut world).unwrap();
            assert!(!old.contains(&fresh));
            handles.push(fresh);
        }
        world.update(0.5).unwrap();
        for &h in &old {
            assert!(
                !world.is_active(h),
                "round {round}: {h:?} came back to life"
            );
            assert_eq!(world.cancel(h), Err(MotionError::Destroyed(h)));
        }
        old.extend(handles);
        world.clear();
        assert_eq!(world.len(), 0);
        for &h in &old {
            assert!(!world.is_active(h));
        }
    }
    // Plenty of motions after the last clear: none of them answers to an old handle.
    let mut fresh = Vec::new();
    for _ in 0..2000 {
        let h = Motion::new(0.0f32, 4.0, 1.0).run(&mut world).unwrap();
        assert!(
            !old.contains(&h),
            "{h:?} equals a handle from before a clear"
        );
        fresh.push(h);
    }
    for &h in &old {
        assert_destroyed(&mut world, h);
    }
    world.update(0.25).unwrap();
    assert_eq!(world.len(), 2000);
    for &h in &fresh {
        assert_eq!(world.value::<f32>(h), Ok(1.0));
    }
}

#[test]
fn handles_reserved_by_commands_dropped_by_clear_never_become_valid() {
    // `clear` drops queued spawns; the handles they reserved must stay invalid forever,
    // including after the world drops its vacant slots and issues fresh ones again.
    let mut world = MotionWorld::new();
    let commands = world.commands();
    // 200 motions; the last 130 end in the first update, so the world trims its vacant
    // trailing slots (70 remain).
    let mut keep = Vec::new();
    for i in 0..200 {
        let duration = if i < 70 { 100.0 } else { 1.0 };
        let h = Motion::new(0.0f32, 1.0, duration).run(&mut world).unwrap();
        if i < 70 {
            keep.push(h);
        }
    }
    world.update(1.0).unwrap();
    assert_eq!(world.len(), 70);

    let reserved = Motion::new(0.0f32, 1.0, 5.0)
        .run_deferred(&commands)
        .unwrap();
    world.clear();
    assert!(!world.is_active(reserved));
    for &h in &keep {
        assert!(!world.is_active(h));
    }

    for i in 0..500 {
        let h = Motion::new(0.0f32, 1.0, 5.0).run(&mut world).unwrap();
        assert_ne!(
            h, reserved,
            "motion {i} after clear got the dropped reserved handle"
        );
        assert!(
            !keep.contains(&h),
            "motion {i} after clear got a pre-clear handle"
        );
        assert!(
            !world.is_active(reserved),
            "after {i} new motions the dropped reserved handle became valid"
        );
    }
    world.update(0.5).unwrap();
    assert_destroyed(&mut world, reserved);
    assert_eq!(world.len(), 500);
}

#[test]
fn clear_queued_from_commands_invalidates_handles_too() {
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let (a, pa) = probed(&mut world, 0.0, 10.0, 1.0, false);
    commands.clear();
    world.update(0.25).unwrap(); // applies the clear before advancing
    assert_eq!(world.len(), 0);
    assert_eq!((pa.completes(), pa.cancels()), (0, 0));
    assert_eq!(
        pa.binds(),
        1,
        "only the immediate bind: the clear came first"
    );
    for _ in 0..100 {
        let h = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
        assert_ne!(h, a);
    }
    assert_destroyed(&mut world, a);
}

#[test]
fn handles_of_another_world_are_wrong_world() {
    let mut w1 = MotionWorld::new();
    let mut w2 = MotionWorld::new();
    let (h1, p1) = probed(&mut w1, 0.0, 10.0, 1.0, false);
    let (h2, p2) = probed(&mut w2, 0.0, 20.0, 1.0, false);
    // Both first motions of their worlds: same slot and version, different worlds.
    assert_eq!((h1.slot(), h1.version()), (h2.slot(), h2.version()));
    assert_ne!(h1, h2);

    let wrong = Err(MotionError::WrongWorld(h1));
    assert!(!w2.is_active(h1));
    assert_eq!(w2.status(h1), wrong.map(|()| MotionStatus::Playing));
    assert_eq!(w2.value::<f32>(h1), wrong.map(|()| 0.0));
    assert_eq!(w2.cancel(h1), wrong);
    assert_eq!(w2.complete(h1), wrong);
    assert_eq!(w2.set_time(h1, 0.5), wrong);
    assert_eq!(w2.set_playback_speed(h1, 3.0), wrong);
    assert!(!w2.try_cancel(h1));
    assert!(!w2.try_complete(h1));

    // Neither world's motion was touched.
    w1.update(0.25).unwrap();
    w2.update(0.25).unwrap();
    assert_eq!(w2.value::<f32>(h2), Ok(5.0));
    assert_eq!(w2.playback_speed(h2), Ok(1.0));
    assert_eq!(w1.value::<f32>(h1), Ok(2.5));
    assert_eq!((p1.completes(), p1.cancels()), (0, 0));
    assert_eq!((p2.completes(), p2.cancels()), (0, 0));
    assert!(w1.is_active(h1) && w2.is_active(h2));

    // Also a world's commands ignore another world's handles.
    w2.commands().cancel(h1);
    w2.commands().complete(h1);
    w2.update(0.25).unwrap();
    w1.update(0.25).unwrap();
    assert_eq!(w2.value::<f32>(h2), Ok(10.0));
    assert_eq!(w1.value::<f32>(h1), Ok(5.0));
    assert_eq!((p1.completes(), p1.cancels()), (0, 0));
    assert_eq!((p2.completes(), p2.cancels()), (0, 0));
}

#[test]
fn none_handle_is_destroyed() {
    let mut world = MotionWorld::new();
    let (live, probe) = probed(&mut world, 0.0, 10.0, 1.0, false);
    let none = MotionHandle::NONE;
    assert!(none.is_none());
    assert_eq!(MotionHandle::default(), none);
    assert_ne!(live, none);
    assert_destroyed(&mut world, none);
    world.update(0.5).unwrap();
    assert_eq!(world.value::<f32>(live), Ok(5.0));
    assert_eq!((probe.completes(), probe.cancels()), (0, 0));
}

#[test]
fn complete_on_infinite_loops_is_refused() {
    let mut world = MotionWorld::new();
    let probe = Arc::new(Probe::default());
    let (c, x, b) = (probe.clone(), probe.clone(), probe.clone());
    let h = Motion::new(0.0f32, 10.0, 1.0)
        .loops(-1, LoopType::Restart)
        .on_complete(move || {
            c.completes.fetch_add(1, Ordering::SeqCst);
        })
        .on_cancel(move || {
            x.cancels.fetch_add(1, Ordering::SeqCst);
        })
        .bind(&mut world, move |v| {
            b.binds.fetch_add(1, Ordering::SeqCst);
            *b.last.lock().unwrap() = Some(v);
        })
        .unwrap();
    world.update(2.5).unwrap(); // 2 loops done, half-way into the third → 5
    let binds = probe.binds();
    assert_eq!(world.complete(h), Err(MotionError::InfiniteLoops(h)));
    assert!(!world.try_complete(h));
    // Unchanged: still playing at T = 2.5, nothing fired, nothing bound.
    assert!(world.is_active(h));
    assert_eq!(world.status(h), Ok(MotionStatus::Playing));
    assert_eq!(world.time(h), Ok(2.5));
    assert_eq!(world.completed_loops(h), Ok(2));
    assert_eq!(world.value::<f32>(h), Ok(5.0));
    assert_eq!(probe.binds(), binds);
    assert_eq!((probe.completes(), probe.cancels()), (0, 0));
    world.update(0.25).unwrap();
    assert_eq!(probe.last(), Some(7.5));
}

#[test]
fn complete_twice_on_a_preserved_motion() {
    let mut world = MotionWorld::new();
    let (h, probe) = probed(&mut world, 0.0, 10.0, 1.0, true);
    world.update(0.25).unwrap();
    assert_eq!(world.complete(h), Ok(()));
    assert_eq!(probe.completes(), 1);
    assert_eq!(probe.last(), Some(10.0));
    assert!(
        world.is_active(h),
        "a preserved motion outlives its completion"
    );
    assert_eq!(world.status(h), Ok(MotionStatus::Completed));
    assert_eq!(world.value::<f32>(h), Ok(10.0));
    let binds = probe.binds();

    assert_eq!(world.complete(h), Err(MotionError::AlreadyCompleted(h)));
    assert!(!world.try_complete(h));
    assert_eq!(probe.completes(), 1);
    assert_eq!(probe.binds(), binds, "a refused complete binds nothing");

    // It keeps binding its end value, completes no more, and ends only when cancelled.
    world.update(0.5).unwrap();
    assert_eq!(probe.last(), Some(10.0));
    assert_eq!(probe.completes(), 1);
    assert_eq!(world.complete(h), Err(MotionError::AlreadyCompleted(h)));
    world.cancel(h).unwrap();
    assert_eq!((probe.completes(), probe.cancels()), (1, 1));
    assert_destroyed(&mut world, h);
}

#[test]
fn preserved_motion_after_natural_end_refuses_complete() {
    let mut world = MotionWorld::new();
    let (h, probe) = probed(&mut world, 2.0, 4.0, 0.5, true);
    world.update(0.75).unwrap(); // past the end: completed, kept
    assert_eq!(probe.completes(), 1);
    assert_eq!(world.complete(h), Err(MotionError::AlreadyCompleted(h)));
    // Rewound by set_time, it can complete again (a new transition), exactly once.
    world.set_time(h, 0.125).unwrap(); // 2 + 2·0.25 = 2.5
    assert_close(probe.last().unwrap(), 2.5);
    assert_eq!(world.complete(h), Ok(()));
    assert_eq!(probe.completes(), 2);
    assert_eq!(probe.last(), Some(4.0));
    assert_eq!(world.complete(h), Err(MotionError::AlreadyCompleted(h)));
    assert_eq!(probe.completes(), 2);
}
