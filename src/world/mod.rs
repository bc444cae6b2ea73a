//! The motion world: the motion table, clocks, predicted events and callbacks.
//!
//! Per update the executor evaluates every row (one pass over dense columns), then the world
//! visits, in creation order, only the motions that need the CPU: those with a bind, and
//! those whose predicted completion or loop boundary is due. Transitions (loop-complete,
//! complete) are computed by evaluating the motion at the previous and the current world
//! time, so a visit is idempotent and a callback can never fire twice for one transition.

/// A `log` record (feature `log`) with target `wgpu_tween`; without the feature its
/// arguments are only type-checked.
macro_rules! diag {
    ($level:ident, $($arg:tt)+) => {{
        #[cfg(feature = "log")]
        log::$level!(target: "wgpu_tween", $($arg)+);
        #[cfg(not(feature = "log"))]
        let _ = format_args!($($arg)+);
    }};
}

mod bound;
pub(crate) mod bound_run;
pub(crate) mod built;
pub(crate) mod callbacks;
mod clock;
pub(crate) mod cohorts;
pub(crate) mod commands;
pub(crate) mod completion;
mod curves;
mod debug;
pub(crate) mod events;
mod executor;
mod finals;
#[cfg(feature = "gpu")]
mod gpu;
#[cfg(feature = "gpu")]
mod gpu_targets;
mod groups;
mod insert;
mod meta;
mod ops;
mod partition;
mod profile;
mod quiet;
pub(crate) mod sequence;
mod settle;
mod targets;
mod visit;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::core::handle::MotionHandle;
use crate::error::UpdateError;
use crate::exec::cpu::{CpuExecutor, Progress};
#[cfg(feature = "gpu")]
use crate::exec::gpu::{executor::GpuExecutor, targets::Targets, GpuError};
use crate::table::host_targets::HostTargets;
use crate::table::motions::MotionTable;
use callbacks::{CallbackError, Callbacks};
use commands::Command;
use events::{Due, Event, EventQueue, Pop};
use meta::{BoundList, SlotMeta};

pub use clock::{TimeDeltas, MAX_TIME};
pub use commands::MotionCommands;
pub use completion::{Canceled, Completion};
pub use debug::{DebugEntry, DebugSnapshot};
pub use executor::Executor;
#[cfg(feature = "gpu")]
pub use gpu::{WorldGpu, WorldGpuMut};
pub use groups::MAX_GROUPS;
pub use profile::{EvaluateProfile, WARP_ROWS};

/// World ids start at 1; 0 is `MotionHandle::NONE`'s.
static NEXT_WORLD_ID: AtomicU32 = AtomicU32::new(1);

/// A set of motions and the clocks that drive them.
///
/// ```
/// use wgpu_tween::{Ease, Motion, MotionWorld};
/// use std::sync::{Arc, Mutex};
///
/// let mut world = MotionWorld::new();
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let sink = Arc::clone(&seen);
/// let handle = Motion::new(0.0f32, 100.0, 1.0)
///     .ease(Ease::Linear)
///     .bind(&mut world, move |x| sink.lock().unwrap().push(x))?;
/// world.update(0.25)?;
/// world.update(0.25)?;
/// assert_eq!(*seen.lock().unwrap(), [0.0, 25.0, 50.0]); // immediate bind, then two updates
/// assert!(world.is_active(handle));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct MotionWorld {
    id: u32,
    clocks: clock::WorldClocks,
    updates: u64,
    next_seq: u64,
    /// Slots, rows, runs, journals and per-slot metadata.
    table: MotionTable<SlotMeta>,
    callbacks: Vec<Option<Box<Callbacks>>>,
    events: EventQueue,
    due: Vec<Due>,
    /// This update's due events of motions nothing watches (`quiet.rs`).
    quiet: Vec<Event>,
    bound: BoundList,
    bound_dead: usize,
    removals: Vec<u32>,
    shared: Arc<commands::Queue>,
    batch: Vec<Command>,
    settling: bool,
    executor: CpuExecutor,
    #[cfg(feature = "gpu")]
    gpu: Option<Box<GpuExecutor>>,
    #[cfg(feature = "gpu")]
    use_gpu: bool,
    #[cfg(feature = "gpu")]
    gpu_error: Option<GpuError>,
    /// GPU buffers registered as targets.
    #[cfg(feature = "gpu")]
    targets: Targets,
    /// Host arrays registered as targets.
    host_targets: HostTargets,
    /// In an update's visiting loop (whose values the executor has just written).
    visiting: bool,
    /// The CPU executor wrote every row's value at the current clocks in the last update
    /// (rows written since are told by `SlotMeta::changed`).
    outputs_current: bool,
    bound_rows: Vec<u32>,
    bound_motions: Vec<[u32; 2]>,
    errors: Vec<CallbackError>,
    errors_dropped: u64,
    /// Live sequences by slot.
    sequences: std::collections::HashMap<u32, sequence::SequenceData>,
    /// Group slots (their clocks are in `clocks`).
    groups: groups::Groups,
    /// The animated types, indexed by `Slot::value_type`.
    value_types: Vec<std::any::TypeId>,
    /// End values of the motions completed since the last update began.
    finals: finals::Finals,
    /// Motions whose clock `complete` put just past their end and that have not moved since
    /// (`ops.rs`, `unnudge_moved`; each has `SlotMeta::nudged`): few, as a moving update
    /// takes them off.
    nudged: Vec<MotionHandle>,
    /// A batch's motions waiting to be placed (`insert.rs`), kept for the next batch.
    staged: insert::Staged,
    /// Detached batches kept whole (`cohorts.rs`).
    cohorts: cohorts::Cohorts,
}

impl Default for MotionWorld {
    fn default() -> Self {
        Self::new()
    }
}

impl MotionWorld {
    /// An empty world at time 0, evaluated by the CPU executor.
    #[must_use]
    pub fn new() -> Self {
        let table = MotionTable::default();
        let shared = Arc::new(commands::Queue::new(table.fresh()));
        Self {
            id: NEXT_WORLD_ID.fetch_add(1, Ordering::Relaxed),
            clocks: clock::WorldClocks::default(),
            updates: 0,
            next_seq: 0,
            table,
            callbacks: Vec::new(),
            events: EventQueue::default(),
            due: Vec::new(),
            quiet: Vec::new(),
            bound: BoundList::default(),
            bound_dead: 0,
            removals: Vec::new(),
            shared,
            batch: Vec::new(),
            settling: false,
            executor: CpuExecutor::new(),
            #[cfg(feature = "gpu")]
            gpu: None,
            #[cfg(feature = "gpu")]
            use_gpu: false,
            #[cfg(feature = "gpu")]
            gpu_error: None,
            #[cfg(feature = "gpu")]
            targets: Targets::default(),
            host_targets: HostTargets::default(),
            visiting: false,
            outputs_current: false,
            bound_rows: Vec::new(),
            bound_motions: Vec::new(),
            errors: Vec::new(),
            errors_dropped: 0,
            sequences: std::collections::HashMap::new(),
            groups: groups::Groups::default(),
            value_types: Vec::new(),
            finals: finals::Finals::default(),
            nudged: Vec::new(),
            staged: insert::Staged::default(),
            cohorts: cohorts::Cohorts::default(),
        }
    }

    /// Live motions (preserved completed ones included).
    #[must_use]
    pub fn len(&self) -> usize {
        self.table.len() + self.cohorts.len()
    }

    /// Whether no motion is live.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reserves room for `additional` more motions, so creating them does not reallocate.
    /// A hint: it never panics. `additional` is capped at what a world can hold (2^32 − 2
    /// motions: handles have u32 slots), and where the memory cannot be had (or its size
    /// overflows) it reserves what it could and returns.
    pub fn reserve(&mut self, additional: usize) {
        let additional = additional.min(((u32::MAX - 1) as usize).saturating_sub(self.table.len()));
        let slots = self.table.slots.len().saturating_add(additional);
        let _ = self.table.try_reserve(additional).and_then(|()| {
            self.callbacks
                .try_reserve(slots.saturating_sub(self.callbacks.len()))
        });
    }

    /// A handle for queueing changes from inside callbacks (or other threads).
    #[must_use]
    pub fn commands(&self) -> MotionCommands {
        MotionCommands {
            world: self.id,
            shared: Arc::clone(&self.shared),
        }
    }

    /// World time of a kind, seconds since the world was made: the exact sum of the deltas,
    /// rounded to the anchors' grid (below 2^-48 of it; see [`MAX_TIME`] for its limit).
    #[must_use]
    pub fn world_time(&self, kind: crate::TimeKind) -> f64 {
        self.clocks.now[kind as usize]
    }

    /// Uses at most `threads` threads for the CPU executor (1 = the calling thread only).
    /// Default: all available cores, engaged only above a size threshold. `threads` is
    /// clamped to `1..=max(available parallelism, 2)` (more threads than cores only cost
    /// memory and context switches); [`cpu_threads`](Self::cpu_threads) reads the result.
    pub fn set_cpu_threads(&mut self, threads: usize) {
        self.executor.set_threads(threads);
    }

    /// The CPU executor's thread limit.
    #[must_use]
    pub fn cpu_threads(&self) -> usize {
        self.executor.threads()
    }

    /// Panics caught in callbacks since the last call (at most 64 kept; see
    /// [`dropped_callback_errors`](Self::dropped_callback_errors)).
    pub fn take_callback_errors(&mut self) -> Vec<CallbackError> {
        std::mem::take(&mut self.errors)
    }

    /// Caught callback panics that were not kept because 64 were already waiting.
    #[must_use]
    pub fn dropped_callback_errors(&self) -> u64 {
        self.errors_dropped
    }

    /// Advances every time kind by `dt` seconds and runs binds and callbacks.
    ///
    /// `dt` is an `f32` or an `f64`, whichever your game loop has: the world's clocks are
    /// `f64` (see "Time" in the crate docs), and an `f32` delta is widened exactly.
    ///
    /// ```
    /// # let mut world = wgpu_tween::MotionWorld::new();
    /// let dt: f32 = 1.0 / 60.0; // e.g. from a game engine's frame timer
    /// world.update(dt)?;
    /// world.update(1.0 / 60.0)?; // an f64
    /// # Ok::<(), wgpu_tween::UpdateError>(())
    /// ```
    pub fn update(&mut self, dt: impl Into<f64>) -> Result<(), UpdateError> {
        self.update_with(TimeDeltas::uniform(dt.into()))
    }

    /// Advances each time kind by its own delta and runs binds and callbacks.
    ///
    /// Commands queued since the last update are applied first (so motions spawned between
    /// updates start at clock 0 and are first advanced here). A negative or non-finite delta
    /// is refused and leaves the world unchanged.
    pub fn update_with(&mut self, deltas: TimeDeltas) -> Result<(), UpdateError> {
        if self.begin_update(deltas)? {
            self.evaluate_rows();
            self.finish_update();
        }
        self.update_cohorts();
        Ok(())
    }

    /// [`update`](Self::update) that awaits the GPU instead of waiting for it: on the web
    /// (wasm32), where nothing may block, the GPU executor's blocking readback is awaited
    /// here, so binds get this update's values; a synchronous `update` there reads the
    /// previous update's, as [`ReadbackMode::Pipelined`](crate::gpu::ReadbackMode) does.
    /// Elsewhere it is `update`, ready when first polled.
    ///
    /// ```
    /// # let mut world = wgpu_tween::MotionWorld::new();
    /// # pollster::block_on(async {
    /// world.update_async(1.0 / 60.0).await?;
    /// # Ok::<(), wgpu_tween::UpdateError>(())
    /// # })?;
    /// # Ok::<(), wgpu_tween::UpdateError>(())
    /// ```
    pub async fn update_async(&mut self, dt: impl Into<f64>) -> Result<(), UpdateError> {
        self.update_with_async(TimeDeltas::uniform(dt.into())).await
    }

    /// [`update_with`](Self::update_with), awaiting the GPU (see
    /// [`update_async`](Self::update_async)).
    pub async fn update_with_async(&mut self, deltas: TimeDeltas) -> Result<(), UpdateError> {
        if self.begin_update(deltas)? {
            self.evaluate_rows_async().await;
            self.finish_update();
        }
        self.update_cohorts();
        Ok(())
    }

    /// An update up to the evaluation: commands applied, clocks advanced, rows regrouped.
    /// Returns whether there are rows to evaluate (and the update goes on).
    fn begin_update(&mut self, deltas: TimeDeltas) -> Result<bool, UpdateError> {
        deltas.validate()?;
        self.clocks.check(deltas)?;
        self.groups.check(&self.clocks, deltas)?;
        self.finals.clear(self.table.slots.len());
        self.begin_gpu_update();
        self.settle();
        // The holes that removals left and no spawn took go before the rows are regrouped
        // and evaluated (`table/holes.rs`).
        self.compact_rows();
        self.clocks.advance(deltas);
        self.groups.advance(&mut self.clocks);
        self.updates += 1;
        self.outputs_current = false;
        if self.table.len() == 0 {
            return Ok(false);
        }
        self.regroup_rows();
        Ok(true)
    }

    /// An update after the evaluation: binds and callbacks run, events popped, commands
    /// they queued applied.
    fn finish_update(&mut self) {
        // `evaluate_rows` ends on the CPU executor when it did not run on the GPU.
        self.outputs_current = !self.on_gpu();

        self.due.clear();
        self.quiet.clear();
        let (meta, callbacks) = (&self.table.meta, &self.callbacks);
        self.events.pop_due(
            self.clocks.table(),
            |e| match meta.get(e.slot as usize) {
                Some(m) if m.seq == e.seq && m.stamp == e.stamp => {
                    if m.is_quiet() && callbacks.get(e.slot as usize).is_none_or(Option::is_none) {
                        Pop::Quiet
                    } else {
                        Pop::Visit
                    }
                }
                _ => Pop::Stale,
            },
            &mut self.due,
            &mut self.quiet,
        );
        self.due.sort_unstable_by_key(|d| d.seq);
        self.due.dedup_by_key(|d| d.seq);

        self.settling = true;
        self.visiting = true;
        self.visit_all();
        self.finish_quiet();
        self.visiting = false;
        self.unnudge_moved();
        self.settling = false;
        // (Emptied now, so that `settle` can shrink them after a burst.)
        self.due.clear();
        self.quiet.clear();
        self.settle();
    }

    /// Removes every motion at once, without calling their callbacks, and drops queued
    /// commands (handles they reserved never become valid). Every old handle stays invalid
    /// forever: slot versions keep rising across a clear. Memory is released.
    pub fn clear(&mut self) {
        let mut queued = Vec::new();
        self.shared.take(&mut queued);
        for command in queued {
            let handle = command.handle();
            if let Err(message) = callbacks::guarded(move || drop(command)) {
                self.report(CallbackError {
                    handle: handle.unwrap_or(MotionHandle::NONE),
                    debug_name: "",
                    kind: callbacks::CallbackKind::Drop,
                    message,
                });
            }
        }
        self.clear_motions();
        self.settle();
    }

    fn clear_motions(&mut self) {
        self.compact_rows();
        for i in 0..self.table.len() {
            let slot = self.table.rows.slot_of()[i];
            self.resolve_completion(slot, Err(Canceled));
            self.drop_callbacks(slot);
            self.table.meta[slot as usize].pending_removal = false;
            self.table.meta[slot as usize].target = None;
        }
        // The targets stay registered; only their motions go.
        #[cfg(feature = "gpu")]
        self.targets.clear_entries();
        self.host_targets.clear_entries();
        // (Before the table, which clears the curve keys the cohorts name.)
        self.cohorts.clear();
        self.table.clear();
        self.bound.clear();
        self.bound_rows = Vec::new();
        self.bound_motions = Vec::new();
        self.bound_dead = 0;
        self.removals.clear();
        self.events.clear();
        self.groups.clear_members();
        self.sequences = std::collections::HashMap::new();
        self.finals.clear(0);
        self.nudged = Vec::new();
    }
}

impl std::fmt::Debug for MotionWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MotionWorld")
            .field("id", &self.id)
            .field("motions", &self.len())
            .field("world_time", &self.clocks.table())
            .field("updates", &self.updates)
            .finish_non_exhaustive()
    }
}
