//! Callbacks a motion shares with its clones, which makes a configured motion a preset.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::world::callbacks::{EventFn, LoopFn};

/// A callback held by a motion and its clones: each clone that runs calls the same closure.
pub(super) type Shared<F> = Arc<Mutex<F>>;

/// A bind shared by the runs of a sequence template's child.
pub(crate) type SharedBind<T> = Shared<Box<dyn FnMut(T) + Send>>;

pub(super) fn share<F>(f: F) -> Shared<F> {
    Arc::new(Mutex::new(f))
}

/// The closure itself when no clone holds it any more (the common case: no lock per call),
/// else `wrap` of the shared one.
fn unshare<F>(f: Shared<F>, wrap: impl FnOnce(Shared<F>) -> F) -> F {
    match Arc::try_unwrap(f) {
        Ok(f) => f.into_inner().unwrap_or_else(PoisonError::into_inner),
        Err(shared) => wrap(shared),
    }
}

/// Locks a shared callback. A panic in it poisons the lock but leaves the closure usable
/// (the world catches and reports the panic), so the poison is ignored.
pub(crate) fn lock<F: ?Sized>(f: &Mutex<F>) -> MutexGuard<'_, F> {
    f.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(super) fn event(f: Shared<EventFn>) -> EventFn {
    unshare(f, |f| Box::new(move || lock(&f)()))
}

pub(super) fn on_loop(f: Shared<LoopFn>) -> LoopFn {
    unshare(f, |f| Box::new(move |n| lock(&f)(n)))
}
