//! Deferred structural changes: what callbacks use to touch the world (docs/design.md invariant 3).
//!
//! A callback cannot borrow the world that is calling it, so it captures a
//! [`MotionCommands`] instead. Commands are applied, in the order they were queued, after the
//! callback loop of the update (or the handle operation) that ran the callback — never in the
//! middle of it, so no row moves and no transition fires twice while callbacks run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::completion::Resolver;
use crate::core::handle::MotionHandle;
use crate::error::BuildError;
use crate::table::slots::FreshSlots;
use crate::world::built::BuiltMotion;

/// A queued operation.
pub(crate) enum Command {
    Spawn(MotionHandle, Box<BuiltMotion>),
    Cancel(MotionHandle),
    Complete(MotionHandle),
    SetTime(MotionHandle, f64),
    SetPlaybackSpeed(MotionHandle, f32),
    Preserve(MotionHandle),
    Clear,
    /// A motion made when the commands are applied (a deferred sequence), into its reserved
    /// handle.
    Deferred(MotionHandle, Box<Deferred>),
}

impl Command {
    /// The handle a spawn or sequence reserved.
    pub fn handle(&self) -> Option<MotionHandle> {
        match self {
            Command::Spawn(h, _) | Command::Deferred(h, _) => Some(*h),
            _ => None,
        }
    }
}

/// A motion made when the commands are applied (a deferred sequence), and the futures that
/// await it since it was queued (`Err(Canceled)` if it is never made).
pub(crate) struct Deferred {
    pub spawn: DeferredSpawn,
    pub completion: Option<Resolver>,
}

/// Makes a deferred motion into its reserved handle, handing it the futures awaiting it.
pub(crate) type DeferredSpawn = Box<
    dyn FnOnce(
            &mut super::MotionWorld,
            MotionHandle,
            Option<Resolver>,
        ) -> Result<MotionHandle, BuildError>
        + Send,
>;

/// State shared between a world and its command handles: the queue, and the table's
/// fresh-slot reservations (a reservation for a queued command is taken under this lock, so
/// the table trims its slots only while holding it with the queue empty).
pub(crate) struct QueueState {
    pub commands: Vec<Command>,
    fresh: Arc<FreshSlots>,
}

impl QueueState {
    pub fn new(fresh: Arc<FreshSlots>) -> Self {
        Self {
            commands: Vec::new(),
            fresh,
        }
    }
}

/// The queue a world shares with its command handles, and a flag that lets the world ask
/// "anything queued?" without the lock on every insert.
pub(crate) struct Queue {
    state: Mutex<QueueState>,
    /// Set with every command queued (under the lock), cleared by [`Queue::take`]: never
    /// false while a command waits, at worst true for an empty queue (one needless settle).
    maybe_queued: AtomicBool,
}

impl Queue {
    pub fn new(fresh: Arc<FreshSlots>) -> Self {
        Self {
            state: Mutex::new(QueueState::new(fresh)),
            maybe_queued: AtomicBool::new(false),
        }
    }

    pub fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a command may be waiting (see `maybe_queued`).
    #[inline]
    pub fn maybe_queued(&self) -> bool {
        self.maybe_queued.load(Ordering::Relaxed)
    }

    /// Swaps the queued commands into `into` (which must be empty), leaving the queue empty.
    /// Without the lock when the flag says nothing waits (a cancel settles at once, so this
    /// runs once per cancel).
    #[inline]
    pub fn take(&self, into: &mut Vec<Command>) {
        if self.maybe_queued() {
            self.take_locked(into);
        }
    }

    fn take_locked(&self, into: &mut Vec<Command>) {
        let mut state = self.lock();
        std::mem::swap(&mut state.commands, into);
        self.maybe_queued.store(false, Ordering::Relaxed);
    }

    fn push(&self, state: &mut QueueState, command: Command) {
        state.commands.push(command);
        self.maybe_queued.store(true, Ordering::Relaxed);
    }
}

/// A cloneable, `Send` handle for changing a world from inside its callbacks (or from any
/// thread). Obtained from [`MotionWorld::commands`](crate::MotionWorld::commands).
///
/// Every operation is queued and applied after the current callback loop, or at the start of
/// the next [`update`](crate::MotionWorld::update) when queued outside one. Operations behave
/// like the world's `try_*` methods: one on a motion that is gone by then does nothing.
///
/// ```
/// use wgpu_tween::{Motion, MotionWorld};
///
/// let mut world = MotionWorld::new();
/// let commands = world.commands();
/// // Chain a second motion when the first completes.
/// Motion::new(0.0f32, 1.0, 0.5)
///     .on_complete(move || {
///         let _next = Motion::new(1.0f32, 0.0, 0.5).run_deferred(&commands);
///     })
///     .run(&mut world)
///     .unwrap();
/// world.update(0.6).unwrap(); // completes the first, spawns the second
/// assert_eq!(world.len(), 1);
/// ```
#[derive(Clone)]
pub struct MotionCommands {
    pub(crate) world: u32,
    pub(crate) shared: Arc<Queue>,
}

impl MotionCommands {
    fn push(&self, command: Command) {
        self.shared.push(&mut self.shared.lock(), command);
    }

    /// Queues a built motion and returns its handle now (the slot is reserved at once).
    pub(crate) fn spawn(&self, motion: BuiltMotion) -> MotionHandle {
        self.reserve(|handle| Command::Spawn(handle, Box::new(motion)))
    }

    /// Reserves a handle and queues the command that will fill it.
    pub(crate) fn reserve(&self, command: impl FnOnce(MotionHandle) -> Command) -> MotionHandle {
        let mut state = self.shared.lock();
        let (slot, version) = state.fresh.reserve();
        let handle = MotionHandle {
            world: self.world,
            slot,
            version,
        };
        self.shared.push(&mut state, command(handle));
        handle
    }

    /// Queues [`MotionWorld::try_cancel`](crate::MotionWorld::try_cancel).
    pub fn cancel(&self, handle: MotionHandle) {
        self.push(Command::Cancel(handle));
    }

    /// Queues [`MotionWorld::try_complete`](crate::MotionWorld::try_complete).
    pub fn complete(&self, handle: MotionHandle) {
        self.push(Command::Complete(handle));
    }

    /// Queues [`MotionWorld::set_time`](crate::MotionWorld::set_time).
    pub fn set_time(&self, handle: MotionHandle, time: impl Into<f64>) {
        self.push(Command::SetTime(handle, time.into()));
    }

    /// Queues [`MotionWorld::set_playback_speed`](crate::MotionWorld::set_playback_speed).
    pub fn set_playback_speed(&self, handle: MotionHandle, speed: f32) {
        self.push(Command::SetPlaybackSpeed(handle, speed));
    }

    /// Queues [`MotionWorld::preserve`](crate::MotionWorld::preserve).
    pub fn preserve(&self, handle: MotionHandle) {
        self.push(Command::Preserve(handle));
    }

    /// Queues [`MotionWorld::clear`](crate::MotionWorld::clear). Commands queued before it are
    /// applied first; those queued after it apply to the cleared world.
    pub fn clear(&self) {
        self.push(Command::Clear);
    }
}

impl std::fmt::Debug for MotionCommands {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MotionCommands")
            .field("world", &self.world)
            .finish_non_exhaustive()
    }
}
