//! Completion futures (issue 16, items 9–11): they resolve when the world is dropped, keep
//! one waker each however often they are polled, and on a deferred spawn's handle they wait
//! for the motion it makes. Wakers are counted, not timed.

use crate::common;

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use common::executors;
use wgpu_tween::{Canceled, Motion, MotionWorld, Sequence};

/// Counts the distinct wakers alive (a waker and its clones count once) and the wakes.
#[derive(Default)]
struct Counter {
    live: AtomicUsize,
    wakes: AtomicUsize,
}

/// One distinct waker (so `will_wake` tells it from every other) that reports to a counter.
struct Counted(Arc<Counter>);

impl Counted {
    fn waker(counter: &Arc<Counter>) -> Waker {
        counter.live.fetch_add(1, Ordering::SeqCst);
        Waker::from(Arc::new(Counted(Arc::clone(counter))))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Wake for Counted {
    fn wake(self: Arc<Self>) {
        self.0.wakes.fetch_add(1, Ordering::SeqCst);
    }
}

fn poll_with<F: Future + Unpin>(future: &mut F, waker: &Waker) -> Poll<F::Output> {
    std::pin::Pin::new(future).poll(&mut Context::from_waker(waker))
}

#[test]
fn dropping_the_world_resolves_pending_futures_canceled() {
    for exec in executors() {
        let mut world = exec.world();
        let a = Motion::new(0.0f32, 1.0, 10.0).run(&mut world).unwrap();
        let b = Motion::new(0.0f32, 1.0, 10.0)
            .on_complete(|| {})
            .run(&mut world)
            .unwrap();
        let commands = world.commands();
        let queued = Motion::new(0.0f32, 1.0, 10.0)
            .run_deferred(&commands)
            .unwrap();
        let mut polled = world.completion(a);
        let never_polled = world.completion(b);
        let mut queued = world.completion(queued);
        let counter = Arc::new(Counter::default());
        let waker = Counted::waker(&counter);
        assert!(poll_with(&mut polled, &waker).is_pending());
        assert!(poll_with(&mut queued, &waker).is_pending());
        world.update(0.1).unwrap();
        drop(world);
        // Both polled futures were woken, and every future now resolves.
        assert_eq!(counter.wakes.load(Ordering::SeqCst), 2, "{}", exec.name());
        assert_eq!(poll_with(&mut polled, &waker), Poll::Ready(Err(Canceled)));
        assert_eq!(poll_with(&mut queued, &waker), Poll::Ready(Err(Canceled)));
        assert_eq!(pollster::block_on(never_polled), Err(Canceled));
        drop(commands);
    }
}

#[test]
fn a_future_keeps_one_waker_however_often_it_is_polled() {
    let mut world = MotionWorld::new();
    // Never completes: without replacement every poll would keep its waker for ever.
    let h = Motion::new(0.0f32, 1.0, 1.0)
        .loops(-1, wgpu_tween::LoopType::Restart)
        .run(&mut world)
        .unwrap();
    let counter = Arc::new(Counter::default());
    let mut first = world.completion(h);
    let mut second = world.completion(h);
    for _ in 0..1000 {
        assert!(poll_with(&mut first, &Counted::waker(&counter)).is_pending());
        assert!(poll_with(&mut second, &Counted::waker(&counter)).is_pending());
    }
    // The waker of each future's latest poll, nothing else.
    assert_eq!(counter.live.load(Ordering::SeqCst), 2);
    drop(first);
    assert_eq!(counter.live.load(Ordering::SeqCst), 1);
    // Futures dropped after one poll each leave nothing behind either.
    for _ in 0..1000 {
        let mut f = world.completion(h);
        assert!(poll_with(&mut f, &Counted::waker(&counter)).is_pending());
    }
    assert_eq!(counter.live.load(Ordering::SeqCst), 1);
    // The one left is woken when the motion ends.
    world.cancel(h).unwrap();
    assert_eq!(counter.wakes.load(Ordering::SeqCst), 1);
    assert_eq!(counter.live.load(Ordering::SeqCst), 0);
    assert_eq!(pollster::block_on(second), Err(Canceled));
}

#[test]
fn a_deferred_spawns_future_waits_for_the_motion_it_makes() {
    for exec in executors() {
        let mut world = exec.world();
        let commands = world.commands();
        let done = Motion::new(0.0f32, 1.0, 0.5)
            .run_deferred(&commands)
            .unwrap();
        let cancelled = Motion::new(0.0f32, 1.0, 0.5)
            .run_deferred(&commands)
            .unwrap();
        let (a, b) = (
            Motion::new(0.0f32, 1.0, 0.25).run(&mut world).unwrap(),
            Motion::new(0.0f32, 1.0, 0.25).run(&mut world).unwrap(),
        );
        let sequence = Sequence::new()
            .append(a)
            .append(b)
            .run_deferred(&commands)
            .unwrap();
        let mut futures = [
            world.completion(done),
            world.completion(cancelled),
            world.completion(sequence),
        ];
        let counter = Arc::new(Counter::default());
        let waker = Counted::waker(&counter);
        for f in &mut futures {
            assert!(poll_with(f, &waker).is_pending(), "{}", exec.name());
        }
        world.update(0.1).unwrap(); // spawns applied: each is at clock 0
        for f in &mut futures {
            assert!(poll_with(f, &waker).is_pending(), "{}", exec.name());
        }
        world.cancel(cancelled).unwrap();
        assert_eq!(
            poll_with(&mut futures[1], &waker),
            Poll::Ready(Err(Canceled))
        );
        world.update(0.6).unwrap(); // 0.6 s of the 0.5 s motion and the 0.5 s sequence
        assert_eq!(
            poll_with(&mut futures[0], &waker),
            Poll::Ready(Ok(())),
            "{}",
            exec.name()
        );
        assert_eq!(
            poll_with(&mut futures[2], &waker),
            Poll::Ready(Ok(())),
            "{}",
            exec.name()
        );
        // A spawn dropped by `clear` before it is made: its future is Canceled.
        let late = Motion::new(0.0f32, 1.0, 0.5)
            .run_deferred(&commands)
            .unwrap();
        let mut late_future = world.completion(late);
        assert!(poll_with(&mut late_future, &waker).is_pending());
        world.clear();
        assert_eq!(
            poll_with(&mut late_future, &waker),
            Poll::Ready(Err(Canceled))
        );
    }
}
