//! `await`-able completion and the debug snapshot (issue: sequences, async, debug view).

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use wgpu_tween::{Canceled, Ease, LoopType, Motion, MotionStatus, MotionWorld};

#[test]
fn future_resolves_on_completion_while_another_thread_updates() {
    let world = Arc::new(Mutex::new(MotionWorld::new()));
    let done = {
        let mut w = world.lock().unwrap();
        let h = Motion::new(0.0f32, 1.0, 0.5).run(&mut w).unwrap();
        w.completion(h)
    };
    let updater = {
        let world = Arc::clone(&world);
        std::thread::spawn(move || {
            // 0.5 s at 1/60 s: completes on update 30 or 31.
            for _ in 0..40 {
                world.lock().unwrap().update(1.0 / 60.0).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        })
    };
    assert_eq!(pollster::block_on(done), Ok(()));
    updater.join().unwrap();
}

#[test]
fn future_resolves_with_canceled_on_cancel_and_on_clear() {
    let world = Arc::new(Mutex::new(MotionWorld::new()));
    let (cancelled, cleared) = {
        let mut w = world.lock().unwrap();
        let a = Motion::new(0.0f32, 1.0, 10.0).run(&mut w).unwrap();
        let b = Motion::new(0.0f32, 1.0, 10.0).run(&mut w).unwrap();
        (w.completion(a), w.completion(b))
    };
    let canceller = {
        let world = Arc::clone(&world);
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let mut w = world.lock().unwrap();
            w.update(0.1).unwrap();
            let first = w.debug_snapshot().entries[0].handle;
            w.cancel(first).unwrap();
            w.clear();
        })
    };
    assert_eq!(pollster::block_on(cancelled), Err(Canceled));
    assert_eq!(pollster::block_on(cleared), Err(Canceled));
    canceller.join().unwrap();
}

/// A single-threaded poll loop: poll, update, poll again, with a waker that counts wakes.
#[test]
fn single_threaded_poll_loop_is_woken_once_on_completion() {
    struct CountWake(Mutex<u32>);
    impl std::task::Wake for CountWake {
        fn wake(self: Arc<Self>) {
            *self.0.lock().unwrap() += 1;
        }
    }
    let wakes = Arc::new(CountWake(Mutex::new(0)));
    let waker = Waker::from(Arc::clone(&wakes));
    let mut cx = Context::from_waker(&waker);

    let mut world = MotionWorld::new();
    let h = Motion::new(0.0f32, 1.0, 1.0)
        .loops(2, LoopType::Yoyo)
        .run(&mut world)
        .unwrap();
    let mut done = pin!(world.completion(h));
    for _ in 0..7 {
        assert_eq!(done.as_mut().poll(&mut cx), Poll::Pending);
        world.update(0.25).unwrap();
    }
    assert_eq!(*wakes.0.lock().unwrap(), 0, "no wake before the end");
    world.update(0.25).unwrap(); // T = 2.0: the second loop ends
    assert_eq!(*wakes.0.lock().unwrap(), 1);
    assert_eq!(done.as_mut().poll(&mut cx), Poll::Ready(Ok(())));
}

#[test]
fn stale_handle_and_completed_preserved_motion_resolve_at_once() {
    let mut world = MotionWorld::new();
    let gone = Motion::new(0.0f32, 1.0, 0.1).run(&mut world).unwrap();
    let kept = Motion::new(0.0f32, 1.0, 0.1)
        .preserve()
        .run(&mut world)
        .unwrap();
    world.update(0.2).unwrap();
    assert!(!world.is_active(gone));
    assert_eq!(pollster::block_on(world.completion(gone)), Err(Canceled));
    assert_eq!(world.status(kept), Ok(MotionStatus::Completed));
    assert_eq!(pollster::block_on(world.completion(kept)), Ok(()));
    // A future dropped unpolled, and the motion it watched, leave nothing behind.
    let h = Motion::new(0.0f32, 1.0, 0.1).run(&mut world).unwrap();
    drop(world.completion(h));
    world.update(0.2).unwrap();
    assert!(!world.is_active(h));
}

#[test]
fn debug_snapshot_lists_live_motions_in_creation_order() {
    let mut world = MotionWorld::new();
    let a = Motion::new(0.0f32, 1.0, 2.0)
        .debug_name("fade")
        .run(&mut world)
        .unwrap();
    let b = Motion::new(0.0f32, 1.0, 1.0)
        .ease(Ease::InQuad)
        .delay(0.5)
        .loops(-1, LoopType::Restart)
        .debug_name("pulse")
        .run(&mut world)
        .unwrap();
    let snapshot = world.debug_snapshot();
    assert_eq!(snapshot.entries.len(), 2);
    assert_eq!(snapshot.entries[0].status, MotionStatus::Scheduled);

    world.update(1.0).unwrap();
    let snapshot = world.debug_snapshot();
    let [fade, pulse] = &snapshot.entries[..] else {
        panic!("two entries expected")
    };
    assert_eq!((fade.handle, fade.debug_name), (a, "fade"));
    assert_eq!(
        (fade.status, fade.time, fade.progress),
        (MotionStatus::Playing, 1.0, 0.5)
    );
    assert_eq!((pulse.handle, pulse.debug_name), (b, "pulse"));
    // T = 1.0, delay 0.5: half-way through loop 0 of InQuad → 0.25.
    assert_eq!(
        (pulse.status, pulse.progress, pulse.loops),
        (MotionStatus::Playing, 0.25, -1)
    );
    let table = snapshot.to_string();
    assert!(table.contains("fade") && table.contains("pulse") && table.contains("0/inf"));
    assert!(table.ends_with("2 live motion(s)"), "{table}");
}

#[test]
fn debug_snapshot_is_empty_after_a_thousand_motions_finish() {
    let mut world = MotionWorld::new();
    for i in 0..1_000 {
        Motion::new(0.0f32, 1.0, 0.01 + (i % 10) as f32 * 0.01)
            .debug_name("spark")
            .run(&mut world)
            .unwrap();
    }
    assert_eq!(world.debug_snapshot().entries.len(), 1_000);
    world.update(1.0).unwrap();
    let snapshot = world.debug_snapshot();
    assert!(snapshot.entries.is_empty());
    assert_eq!(
        snapshot.to_string().lines().count(),
        2,
        "header and count only"
    );
}
