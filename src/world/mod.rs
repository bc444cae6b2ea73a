//! The motion world: slots, dense rows, clocks, predicted events and callbacks.
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

pub(crate) mod built;
pub(crate) mod callbacks;
mod clock;
pub(crate) mod commands;
pub(crate) mod completion;
mod curves;
mod debug;
pub(crate) mod events;
mod finals;
mod gpu;
mod groups;
mod ops;
mod partition;
pub(crate) mod sequence;
mod settle;
mod slots;
mod targets;
mod visit;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::core::handle::MotionHandle;
use crate::error::UpdateError;
use crate::eval::adapters::row_value;
use crate::exec::cpu::{CpuExecutor, Progress};
use crate::exec::gpu::executor::GpuExecutor;
use crate::exec::gpu::targets::Targets;
use crate::exec::gpu::GpuError;
use crate::table::host_targets::HostTargets;
use crate::table::rows::Rows;
use crate::table::targets::TargetRef;
use crate::world::built::{BuiltMotion, MotionOptions};
use callbacks::{BindFn, CallbackError, Callbacks};
use commands::{Command, QueueState};
use events::{Due, EventQueue};
use slots::SlotTable;

pub use clock::{TimeDeltas, MAX_TIME};
pub use commands::MotionCommands;
pub use completion::{Canceled, Completion};
pub use debug::{DebugEntry, DebugSnapshot};
pub use gpu::{Executor, WorldGpu, WorldGpuMut};
pub use groups::MAX_GROUPS;

/// World ids start at 1; 0 is `MotionHandle::NONE`'s.
static NEXT_WORLD_ID: AtomicU32 = AtomicU32::new(1);

/// Per-slot CPU-side state (never moves on swap-remove).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SlotMeta {
    /// Creation sequence number: unique for the world's lifetime, defines visiting order.
    seq: u64,
    /// Rises on every re-anchor; heap entries of older stamps (or other seqs) are stale.
    stamp: u32,
    options: MotionOptions,
    debug_name: &'static str,
    has_bind: bool,
    has_loop_callback: bool,
    /// Has an `on_start` that has not fired yet (its start is an event to predict).
    awaits_start: bool,
    /// Update count at creation; `status` is Scheduled until the next update.
    birth_update: u64,
    /// Re-timed by `set_time` or `complete` since creation (then no longer Scheduled).
    touched: bool,
    /// Finished during the current callback loop; removed right after it.
    pending_removal: bool,
    /// The motion's target (host array or GPU buffer), if it has one.
    target: Option<TargetRef>,
    /// A sequence: visited every update to drive its children.
    is_sequence: bool,
    /// A child of a sequence: driven by its sequence, never visited on its own.
    in_sequence: bool,
    /// A sequence's child that has fired its end (complete or cancel): it replays in later
    /// passes of a looping sequence, but ends only once.
    ended: bool,
    /// Its entry in the bound list (a bind or a sequence).
    bound: Option<u32>,
}

/// A motion visited every update (one with a bind, or a sequence), in creation order, with
/// what its visit needs side by side: the bind itself (so calling it is one indirection),
/// and whether its value is all it needs.
struct BoundEntry {
    seq: u64,
    slot: u32,
    version: u32,
    /// Lanes of its value (the outputs a bind reads).
    lanes: u8,
    /// Needs the exact visit every update: a sequence (drives its children), a sequence's
    /// child (driven by it), a bind that skips values during a delay (its status decides;
    /// a negative clock is a delay too).
    /// Other bound motions without a due event only get their value: their transitions
    /// (loop complete, complete) come through the event heap.
    exact: bool,
    bind: Option<BindFn>,
}

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
    rows: Rows,
    slots: SlotTable,
    meta: Vec<SlotMeta>,
    callbacks: Vec<Option<Box<Callbacks>>>,
    events: EventQueue,
    due: Vec<Due>,
    bound: Vec<BoundEntry>,
    bound_dead: usize,
    removals: Vec<u32>,
    shared: Arc<Mutex<QueueState>>,
    batch: Vec<Command>,
    settling: bool,
    executor: CpuExecutor,
    gpu: Option<Box<GpuExecutor>>,
    use_gpu: bool,
    gpu_error: Option<GpuError>,
    /// GPU buffers registered as targets.
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
    /// The last batch's list of motions, empty, kept for its room (`insert_batch`).
    batch_scratch: Vec<BatchMotion>,
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
        let shared = Arc::new(Mutex::new(QueueState::new()));
        Self {
            id: NEXT_WORLD_ID.fetch_add(1, Ordering::Relaxed),
            clocks: clock::WorldClocks::default(),
            updates: 0,
            next_seq: 0,
            rows: Rows::default(),
            slots: SlotTable::new(Arc::clone(&shared)),
            meta: Vec::new(),
            callbacks: Vec::new(),
            events: EventQueue::default(),
            due: Vec::new(),
            bound: Vec::new(),
            bound_dead: 0,
            removals: Vec::new(),
            shared,
            batch: Vec::new(),
            settling: false,
            executor: CpuExecutor::new(),
            gpu: None,
            use_gpu: false,
            gpu_error: None,
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
            batch_scratch: Vec::new(),
        }
    }

    /// Live motions (preserved completed ones included).
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no motion is live.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows.len() == 0
    }

    /// Reserves room for `additional` more motions, so creating them does not reallocate.
    /// A hint: it never panics. `additional` is capped at what a world can hold (2^32 − 2
    /// motions: handles have u32 slots), and where the memory cannot be had (or its size
    /// overflows) it reserves what it could and returns.
    pub fn reserve(&mut self, additional: usize) {
        let additional = additional.min(((u32::MAX - 1) as usize).saturating_sub(self.rows.len()));
        let slots = self.slots.slots.len().saturating_add(additional);
        let _ = self.rows.try_reserve(additional).and_then(|()| {
            self.slots.try_reserve(additional)?;
            self.meta
                .try_reserve(slots.saturating_sub(self.meta.len()))?;
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
    pub fn update(&mut self, dt: f64) -> Result<(), UpdateError> {
        self.update_with(TimeDeltas::uniform(dt))
    }

    /// Advances each time kind by its own delta and runs binds and callbacks.
    ///
    /// Commands queued since the last update are applied first (so motions spawned between
    /// updates start at clock 0 and are first advanced here). A negative or non-finite delta
    /// is refused and leaves the world unchanged.
    pub fn update_with(&mut self, deltas: TimeDeltas) -> Result<(), UpdateError> {
        deltas.validate()?;
        self.clocks.check(deltas)?;
        self.groups.check(&self.clocks, deltas)?;
        self.finals.clear(self.slots.slots.len());
        self.begin_gpu_update();
        self.settle();
        self.clocks.advance(deltas);
        self.groups.advance(&mut self.clocks);
        self.updates += 1;
        self.outputs_current = false;
        if self.rows.len() == 0 {
            return Ok(());
        }
        self.regroup_rows();
        self.evaluate_rows();
        // `evaluate_rows` ends on the CPU executor when it did not run on the GPU.
        self.outputs_current = !self.use_gpu;

        self.due.clear();
        let meta = &self.meta;
        self.events.pop_due(
            self.clocks.table(),
            |slot, seq, stamp| {
                meta.get(slot as usize)
                    .is_some_and(|m| m.seq == seq && m.stamp == stamp)
            },
            &mut self.due,
        );
        self.due.sort_unstable_by_key(|d| d.seq);
        self.due.dedup_by_key(|d| d.seq);

        self.settling = true;
        self.visiting = true;
        self.visit_all();
        self.visiting = false;
        self.settling = false;
        // (Emptied now, so that `settle` can shrink it after a burst.)
        self.due.clear();
        self.settle();
        Ok(())
    }

    /// Removes every motion at once, without calling their callbacks, and drops queued
    /// commands (handles they reserved never become valid). Every old handle stays invalid
    /// forever: slot versions keep rising across a clear. Memory is released.
    pub fn clear(&mut self) {
        let queued = std::mem::take(
            &mut self
                .shared
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .commands,
        );
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
        for i in 0..self.rows.len() {
            let slot = self.rows.slot_of[i];
            self.resolve_completion(slot, Err(Canceled));
            self.drop_callbacks(slot);
            self.slots.free(slot);
            self.meta[slot as usize].pending_removal = false;
            self.meta[slot as usize].target = None;
        }
        // The targets stay registered; only their motions go.
        self.targets.clear_entries();
        self.host_targets.clear_entries();
        self.rows.clear();
        self.bound.clear();
        self.bound.shrink_to(0);
        self.bound_rows = Vec::new();
        self.bound_motions = Vec::new();
        self.bound_dead = 0;
        self.removals.clear();
        self.events.clear();
        self.groups.clear_members();
        self.sequences = std::collections::HashMap::new();
        self.finals.clear(0);
        self.batch_scratch = Vec::new();
    }

    // ---------------------------------------------------------------- insertion

    /// Inserts a built motion at clock 0 (anchored at the current world time), into
    /// `reserved` if a command reserved its handle. Runs the immediate bind.
    #[inline]
    pub(crate) fn insert(
        &mut self,
        built: BuiltMotion,
        reserved: Option<MotionHandle>,
    ) -> MotionHandle {
        let handle = self.insert_unsettled(built, reserved);
        // An insert only adds, so `maintain` (which shrinks) has nothing to do after it:
        // settle only where the immediate bind queued a command or cancelled its motion.
        if !self.removals.is_empty() || self.commands_queued() {
            self.settle();
        }
        handle
    }

    /// Checks what a built motion names in the world (its target, its group) before it is
    /// inserted.
    pub(crate) fn check_built(
        &self,
        built: &BuiltMotion,
        lanes: usize,
    ) -> Result<(), crate::error::BuildError> {
        if let Some(target) = &built.target {
            self.check_target(target, lanes)?;
        }
        if let Some(g) = built.group {
            self.group_clock(g)?;
        }
        Ok(())
    }

    /// Whether commands are waiting in the queue.
    fn commands_queued(&self) -> bool {
        !self
            .shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .commands
            .is_empty()
    }

    /// [`insert`](Self::insert) without applying queued commands afterwards (which could
    /// remove what was just made before the caller is done with it).
    #[inline]
    pub(crate) fn insert_unsettled(
        &mut self,
        built: BuiltMotion,
        reserved: Option<MotionHandle>,
    ) -> MotionHandle {
        let mut row = built.row;
        // A motion of a group runs on its group's clock (a group removed before a deferred
        // spawn was applied leaves it on its own time kind).
        let group = built.group.filter(|&g| {
            self.group_clock(g).is_ok_and(|(clock, kind)| {
                row.set_clock(clock, kind);
                true
            })
        });
        row.anchor(self.clocks.now[row.clock_index()], 0.0);
        if built.auto_seed {
            // Unique per motion for the world's first 2^32 motions (pcg is a bijection).
            row.params = crate::eval::adapters::pcg(self.next_seq as u32 ^ 0x5eed_5eed);
        }
        let row_index = self.rows.len() as u32;
        let (slot, version) = match reserved {
            Some(h) => {
                self.slots.occupy_reserved(h.slot, h.version, row_index);
                (h.slot, h.version)
            }
            None => self.slots.alloc(row_index),
        };
        // An animation curve's keys go into the world's key table (freed with the row).
        let params = match &built.curve {
            Some(curve) => self.rows.curves.insert(curve),
            None => built.params,
        };
        self.rows.push(row, built.pairs, params, slot);
        let needed = slot as usize + 1;
        if self.meta.len() < needed {
            self.meta.resize(needed, SlotMeta::default());
            self.callbacks.resize_with(needed, || None);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let has_bind = built.bind.is_some();
        let has_loop_callback = built
            .callbacks
            .as_ref()
            .is_some_and(|c| c.loop_complete.is_some());
        let awaits_start = built.callbacks.as_ref().is_some_and(|c| c.start.is_some());
        self.meta[slot as usize] = SlotMeta {
            seq,
            stamp: 0,
            options: built.options,
            debug_name: built.debug_name,
            has_bind,
            has_loop_callback,
            awaits_start,
            birth_update: self.updates,
            touched: false,
            pending_removal: false,
            target: None,
            is_sequence: false,
            in_sequence: false,
            ended: false,
            bound: has_bind.then_some(self.bound.len() as u32),
        };
        let value_type = self.value_type_index(built.value_type);
        let entry = &mut self.slots.slots[slot as usize];
        entry.changed = self.updates as u32;
        entry.value_type = value_type;
        entry.bits = row.rounding() as u8 & slots::BITS_ROUNDING;
        if let Some(target) = &built.target {
            // Checked by the builder's terminal; a deferred spawn's is checked here.
            self.link_target(slot, row_index, target, row.lane_count());
        }
        self.callbacks[slot as usize] = built.callbacks;
        if let Some(bind) = built.bind {
            self.bound.push(BoundEntry {
                seq,
                slot,
                version,
                lanes: row.lane_count() as u8,
                exact: built.options.skip_values_during_delay,
                bind: Some(bind),
            });
        }
        self.schedule(slot, row_index, 0.0);
        self.place_new_row();
        let handle = MotionHandle {
            world: self.id,
            slot,
            version,
        };
        if let Some(g) = group {
            self.join_group(g, handle);
        }
        if has_bind && built.options.immediate_bind {
            let p = crate::eval::clock::ease_at(&row, params, self.rows.curves.keys(), 0.0);
            let value = row_value(&row, built.pairs, p, self.clocks.now[row.clock_index()]);
            self.call_bind(slot, &value);
        }
        handle
    }
}

impl MotionWorld {
    /// `value_type`'s index in the world's list of types (added if new; the last type is
    /// checked first, as motions of one type come in runs). Past `u16::MAX` types (far more
    /// than a program has) the index names none, and `value` refuses every type.
    #[inline]
    fn value_type_index(&mut self, value_type: std::any::TypeId) -> u16 {
        if let Some(i) = self.value_types.iter().rposition(|&t| t == value_type) {
            return i as u16;
        }
        if self.value_types.len() >= usize::from(u16::MAX) {
            return u16::MAX;
        }
        self.value_types.push(value_type);
        (self.value_types.len() - 1) as u16
    }
}

/// One motion of a batch: its lane pairs, the row's `params` word, its bind and its target.
pub(crate) type BatchMotion = (
    [[f32; 2]; 4],
    u32,
    Option<BindFn>,
    Option<crate::table::targets::Target>,
);

impl MotionWorld {
    /// Inserts a batch in order: motions made from `base` with each `(pairs, params word,
    /// bind, target)` (targets checked by the caller), their handles appended to `handles`;
    /// queued commands are applied once, after the last.
    pub(crate) fn insert_batch(
        &mut self,
        base: &BuiltMotion,
        mut motions: Vec<BatchMotion>,
        handles: &mut Vec<MotionHandle>,
    ) {
        self.reserve(motions.len());
        handles.reserve(motions.len());
        for (pairs, word, bind, target) in motions.drain(..) {
            let built = BuiltMotion {
                row: crate::core::row::MotionRow {
                    params: word,
                    ..base.row
                },
                pairs,
                params: base.params,
                curve: base.curve.clone(),
                group: base.group,
                auto_seed: base.auto_seed,
                options: base.options,
                debug_name: base.debug_name,
                value_type: base.value_type,
                bind,
                callbacks: None,
                target,
            };
            handles.push(self.insert_unsettled(built, None));
        }
        // Kept for the next batch (an emitter's every frame): a fresh list of this size
        // would be fresh pages, faulted in per batch. Sized by the world, like the lists
        // `maintain` shrinks.
        if motions.capacity() > 1024 && motions.capacity() > 4 * self.rows.len() {
            motions.shrink_to(2 * self.rows.len());
        }
        self.batch_scratch = motions;
        self.settle();
    }

    /// An empty list for a batch's motions, with the room the last batch left.
    pub(crate) fn batch_list(&mut self) -> Vec<BatchMotion> {
        std::mem::take(&mut self.batch_scratch)
    }
}

impl std::fmt::Debug for MotionWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MotionWorld")
            .field("id", &self.id)
            .field("motions", &self.rows.len())
            .field("world_time", &self.clocks.table())
            .field("updates", &self.updates)
            .finish_non_exhaustive()
    }
}
