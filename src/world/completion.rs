//! `await`-able motion completion, with no runtime dependency: a future backed by a shared
//! slot that the world fills when the motion completes or is cancelled.
//!
//! The world holds a [`Resolver`]; every [`Completion`] future shares its slot. Each future
//! keeps at most one waker in the slot (replaced when it is polled with another, removed
//! when it is dropped), and a resolver dropped unresolved (the motion removed without
//! completing, a queued spawn dropped, the world dropped) resolves `Err(Canceled)`, so no
//! future waits for ever.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

/// The motion was cancelled (or cleared) before it completed, or the handle was stale.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, thiserror::Error)]
#[error("the motion was cancelled or no longer exists")]
pub struct Canceled;

#[derive(Default)]
struct State {
    result: Option<Result<(), Canceled>>,
    /// One waker per pending future that has been polled, by the future's key.
    wakers: Vec<(u64, Waker)>,
    next_key: u64,
}

/// Shared between a motion's resolver and every future waiting on it.
#[derive(Default)]
struct CompletionSlot(Mutex<State>);

impl CompletionSlot {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Resolves (once; later calls are ignored) and wakes every waiting future.
    fn resolve(&self, result: Result<(), Canceled>) {
        let wakers = {
            let mut state = self.lock();
            if state.result.is_some() {
                return;
            }
            state.result = Some(result);
            std::mem::take(&mut state.wakers)
        };
        for (_, waker) in wakers {
            waker.wake();
        }
    }
}

/// The world's end of a motion's completion: resolves its futures, and resolves them
/// `Err(Canceled)` if dropped before resolving.
#[derive(Default)]
pub(crate) struct Resolver(Arc<CompletionSlot>);

impl Resolver {
    /// Resolves (once) and wakes every waiting future.
    pub fn resolve(&self, result: Result<(), Canceled>) {
        self.0.resolve(result);
    }

    /// A new future on this motion.
    pub fn future(&self) -> Completion {
        Completion {
            slot: Arc::clone(&self.0),
            key: None,
        }
    }
}

impl Drop for Resolver {
    fn drop(&mut self) {
        self.0.resolve(Err(Canceled));
    }
}

/// A future that resolves when a motion completes (`Ok(())`) or is cancelled, cleared or
/// unknown (`Err(Canceled)`). From [`MotionWorld::completion`](crate::MotionWorld::completion).
///
/// It works under any executor (pollster, tokio, a hand-written poll loop) while the world is
/// updated elsewhere, on this thread or another. If the world is dropped first it resolves
/// `Err(Canceled)`. Each future keeps only the waker of its latest poll, and dropping it
/// removes that waker, so polling or abandoning futures costs no memory over time.
///
/// **Never block on it on the thread that calls [`update`](crate::MotionWorld::update)**
/// (`pollster::block_on(done)`, or `.await` in a task that thread runs to completion before
/// its next update): only an update resolves it, so that thread waits for ever. A
/// single-threaded game loop polls instead, once per frame:
///
/// ```
/// use wgpu_tween::{Canceled, Motion, MotionWorld};
///
/// let mut world = MotionWorld::new();
/// let handle = Motion::new(0.0f32, 1.0, 1.0).run(&mut world)?;
/// let done = world.completion(handle);
/// let mut frames = 0;
/// while !done.is_ready() {
///     world.update(0.25)?; // the game's frame
///     frames += 1;
/// }
/// assert_eq!(frames, 4); // resolved by the update that reaches 1 s
/// assert_eq!(done.try_result(), Some(Ok(())));
///
/// let cancelled = Motion::new(0.0f32, 1.0, 0.5).run(&mut world)?;
/// let done = world.completion(cancelled);
/// world.cancel(cancelled)?;
/// assert_eq!(done.try_result(), Some(Err(Canceled)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[must_use = "futures do nothing unless awaited"]
pub struct Completion {
    slot: Arc<CompletionSlot>,
    /// This future's waker entry in the slot, once it has been polled.
    key: Option<u64>,
}

impl Completion {
    /// Whether the motion has ended (completed or cancelled): polling would return
    /// `Ready`. It does not poll (no waker is kept).
    #[must_use]
    pub fn is_ready(&self) -> bool {
        self.slot.lock().result.is_some()
    }

    /// The result without waiting: `None` while the motion runs, then `Some(Ok(()))` if it
    /// completed and `Some(Err(Canceled))` if it was cancelled, cleared or removed. For game
    /// loops that check once per frame instead of awaiting.
    #[must_use]
    pub fn try_result(&self) -> Option<Result<(), Canceled>> {
        self.slot.lock().result
    }

    /// A future that is resolved already.
    pub(crate) fn resolved(result: Result<(), Canceled>) -> Self {
        let slot = CompletionSlot::default();
        slot.resolve(result);
        Self {
            slot: Arc::new(slot),
            key: None,
        }
    }
}

impl Future for Completion {
    type Output = Result<(), Canceled>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let mut state = this.slot.lock();
        if let Some(result) = state.result {
            return Poll::Ready(result);
        }
        let waker = cx.waker();
        let entry = this
            .key
            .and_then(|key| state.wakers.iter_mut().find(|(k, _)| *k == key));
        match entry {
            Some((_, kept)) => {
                if !kept.will_wake(waker) {
                    kept.clone_from(waker);
                }
            }
            None => {
                let key = state.next_key;
                state.next_key += 1;
                state.wakers.push((key, waker.clone()));
                this.key = Some(key);
            }
        }
        Poll::Pending
    }
}

impl Drop for Completion {
    fn drop(&mut self) {
        let Some(key) = self.key else {
            return;
        };
        let removed = {
            let mut state = self.slot.lock();
            let at = state.wakers.iter().position(|(k, _)| *k == key);
            at.map(|at| state.wakers.swap_remove(at))
        };
        // (The waker is dropped outside the lock: its drop is the executor's code.)
        drop(removed);
    }
}

impl std::fmt::Debug for Completion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.slot.lock();
        f.debug_struct("Completion")
            .field("result", &state.result)
            .finish()
    }
}
