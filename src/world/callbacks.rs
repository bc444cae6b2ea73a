//! User callbacks, stored per slot and looked up by slot and version at call time
//! (docs/design.md invariant 2), and the catching of panics inside them.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::completion::Resolver;
use crate::core::handle::MotionHandle;

pub(crate) type EventFn = Box<dyn FnMut() + Send>;
pub(crate) type LoopFn = Box<dyn FnMut(u32) + Send>;

/// A motion's callbacks but its bind (which the world keeps in its bound list). Boxed once
/// per motion that has any, so a `run()` or `bind()` motion costs no allocation for them.
#[derive(Default)]
pub(crate) struct Callbacks {
    pub start: Option<EventFn>,
    pub complete: Option<EventFn>,
    pub cancel: Option<EventFn>,
    pub loop_complete: Option<LoopFn>,
    /// Futures waiting for this motion (see `MotionWorld::completion`).
    pub completion: Option<Resolver>,
}

/// Which callback panicked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallbackKind {
    /// The bind (value) callback.
    Bind,
    /// `on_start`.
    Start,
    /// `on_complete`.
    Complete,
    /// `on_cancel`.
    Cancel,
    /// `on_loop_complete`.
    LoopComplete,
    /// Dropping the motion's callbacks (the state they captured) when it ended, was
    /// cleared, or its queued spawn was dropped; or a deferred sequence's configure
    /// closure, run (or dropped) when the commands are applied.
    Drop,
}

/// A panic caught inside a callback. The world stays consistent; with `cancel_on_error` a
/// panicking bind cancels its motion. Read them with
/// [`MotionWorld::take_callback_errors`](crate::MotionWorld::take_callback_errors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallbackError {
    /// The motion whose callback panicked.
    pub handle: MotionHandle,
    /// Its debug name (empty if none was given).
    pub debug_name: &'static str,
    /// Which callback.
    pub kind: CallbackKind,
    /// The panic message, when it was a string.
    pub message: String,
}

impl std::fmt::Display for CallbackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} callback of {:?} {:?} panicked: {}",
            self.kind, self.handle, self.debug_name, self.message
        )
    }
}

impl std::error::Error for CallbackError {}

/// Runs `f`, catching a panic. Returns the panic message on failure (allocating only then).
/// The panic's payload is dropped here too, its own `Drop` panics caught (see
/// [`drop_payload`]). Inlined: binds call it once per motion and update.
#[inline]
pub(crate) fn guarded(f: impl FnOnce()) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(panic_message)
}

/// The message of a caught panic (dropping its payload).
#[cold]
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    };
    drop_payload(payload);
    message
}

/// Drops a panic payload whose `Drop` may itself panic (with a payload that may do the
/// same): a few times caught, then the last one is leaked rather than let out.
fn drop_payload(payload: Box<dyn std::any::Any + Send>) {
    let mut payload = payload;
    for _ in 0..8 {
        match catch_unwind(AssertUnwindSafe(move || drop(payload))) {
            Ok(()) => return,
            Err(next) => payload = next,
        }
    }
    std::mem::forget(payload);
}

/// Errors kept until read; older ones beyond this are counted, not kept, so a bind that
/// panics every frame cannot grow memory without bound.
pub(crate) const MAX_KEPT_ERRORS: usize = 64;
