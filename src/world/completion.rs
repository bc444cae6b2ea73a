//! `await`-able motion completion, with no runtime dependency: a future backed by a shared
//! slot that the world fills when the motion completes or is cancelled.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

/// The motion was cancelled (or cleared) before it completed, or the handle was stale.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, thiserror::Error)]
#[error("the motion was cancelled or no longer exists")]
pub struct Canceled;

#[derive(Default)]
struct State {
    result: Option<Result<(), Canceled>>,
    wakers: Vec<Waker>,
}

/// Shared between a motion's callbacks and every future waiting on it.
#[derive(Default)]
pub(crate) struct CompletionSlot(Mutex<State>);

impl CompletionSlot {
    pub fn resolved(result: Result<(), Canceled>) -> Arc<Self> {
        Arc::new(Self(Mutex::new(State {
            result: Some(result),
            wakers: Vec::new(),
        })))
    }

    /// Resolves (once; later calls are ignored) and wakes every waiting future.
    pub fn resolve(&self, result: Result<(), Canceled>) {
        let wakers = {
            let mut state = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            if state.result.is_some() {
                return;
            }
            state.result = Some(result);
            std::mem::take(&mut state.wakers)
        };
        for waker in wakers {
            waker.wake();
        }
    }
}

/// A future that resolves when a motion completes (`Ok(())`) or is cancelled, cleared or
/// unknown (`Err(Canceled)`). From [`MotionWorld::completion`](crate::MotionWorld::completion).
///
/// It works under any executor (pollster, tokio, a hand-written poll loop) while the world is
/// updated elsewhere, on this thread or another. Dropping it is harmless.
#[must_use = "futures do nothing unless awaited"]
pub struct Completion {
    pub(crate) slot: Arc<CompletionSlot>,
}

impl Future for Completion {
    type Output = Result<(), Canceled>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.slot.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(result) = state.result {
            return Poll::Ready(result);
        }
        if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
            state.wakers.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl std::fmt::Debug for Completion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.slot.0.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("Completion")
            .field("result", &state.result)
            .finish()
    }
}
