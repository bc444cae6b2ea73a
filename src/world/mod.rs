//! The motion world: slots, dense rows, clocks, predicted events and callbacks.
//!
//! Per update the executor evaluates every row (one pass over dense columns), then the world
//! visits, in creation order, only the motions that need the CPU: those with a bind, and
//! those whose predicted completion or loop boundary is due. Transitions (loop-complete,
//! complete) are computed by evaluating the motion at the previous and the current world
//! time, so a visit is idempotent and a callback can never fire twice for one transition.

pub(crate) mod callbacks;
mod clock;
pub(crate) mod commands;
mod completion;
mod debug;
pub(crate) mod events;
mod ops;
pub(crate) mod rows;
mod slots;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::builder::{BuiltMotion, MotionOptions};
use crate::cpu::{progress, CpuExecutor, Progress};
use crate::error::{BuildError, UpdateError};
use crate::gpu::executor::{FrameInput, GpuExecutor};
use crate::gpu::targets::{TargetRef, Targets};
use crate::gpu::{GpuContext, GpuError, GpuTarget, ReadbackMode};
use crate::handle::MotionHandle;
use crate::settings::MotionStatus;
use crate::value::{lerp_lanes, Lanes};
use callbacks::{guarded, CallbackError, CallbackKind, Callbacks, MAX_KEPT_ERRORS};
use commands::{Command, QueueState};
use events::{next_event_key, Due, Event, EventQueue};
use rows::Rows;
use slots::SlotTable;

pub use clock::TimeDeltas;
pub use commands::MotionCommands;
pub use completion::{Canceled, Completion};
pub use debug::{DebugEntry, DebugSnapshot};

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
    /// Update count at creation; `status` is Scheduled until the next update.
    birth_update: u64,
    /// Re-timed by `set_time` or `complete` since creation (then no longer Scheduled).
    touched: bool,
    /// Finished during the current callback loop; removed right after it.
    pending_removal: bool,
    /// The motion's GPU target, if it has one.
    target: Option<TargetRef>,
}

/// Which executor evaluates a world's motions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Executor {
    /// The GPU when a context is attached and its adapter is a real GPU; the CPU on a
    /// software adapter (lavapipe, where the CPU executor is faster) or without a context.
    /// `WGPU_TWEEN_EXECUTOR=cpu|gpu` in the environment overrides this choice.
    #[default]
    Auto,
    /// The CPU executor.
    Cpu,
    /// The GPU executor (requires an attached [`GpuContext`]).
    Gpu,
}

/// A motion with a bind, in creation order (visited every update).
#[derive(Clone, Copy, Debug)]
struct BoundEntry {
    seq: u64,
    slot: u32,
    version: u32,
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
    targets: Targets,
    /// In an update's visiting loop (whose values the executor has just written).
    visiting: bool,
    bound_rows: Vec<u32>,
    bound_motions: Vec<[u32; 2]>,
    errors: Vec<CallbackError>,
    errors_dropped: u64,
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
            visiting: false,
            bound_rows: Vec::new(),
            bound_motions: Vec::new(),
            errors: Vec::new(),
            errors_dropped: 0,
        }
    }

    /// An empty world that evaluates on the GPU of `ctx` (by [`Executor::Auto`]'s rule: a
    /// software adapter still gets the CPU executor; see [`set_executor`](Self::set_executor)).
    pub fn with_gpu(ctx: GpuContext) -> Result<Self, GpuError> {
        let mut world = Self::new();
        world.attach_gpu(ctx)?;
        Ok(world)
    }

    /// Attaches a GPU context (building its pipelines) and chooses the executor by
    /// [`Executor::Auto`].
    pub fn attach_gpu(&mut self, ctx: GpuContext) -> Result<(), GpuError> {
        let gpu = GpuExecutor::new(ctx)?;
        // Targets name buffers of the previous device.
        self.drop_targets();
        self.gpu = Some(Box::new(gpu));
        self.set_executor(Executor::Auto)
    }

    /// The attached GPU context, if any.
    #[must_use]
    pub fn gpu_context(&self) -> Option<&GpuContext> {
        self.gpu.as_deref().map(GpuExecutor::context)
    }

    /// Chooses the executor. [`Executor::Gpu`] without an attached context is an error
    /// ([`GpuError::NoAdapter`]); the world stays on the CPU.
    pub fn set_executor(&mut self, executor: Executor) -> Result<(), GpuError> {
        let executor = match (executor, std::env::var("WGPU_TWEEN_EXECUTOR").as_deref()) {
            (Executor::Auto, Ok("cpu")) => Executor::Cpu,
            (Executor::Auto, Ok("gpu")) => Executor::Gpu,
            (choice, _) => choice,
        };
        let use_gpu = match executor {
            Executor::Cpu => false,
            Executor::Gpu => {
                if self.gpu.is_none() {
                    return Err(GpuError::NoAdapter(": no GPU context attached".into()));
                }
                true
            }
            Executor::Auto => self
                .gpu
                .as_ref()
                .is_some_and(|g| !g.context().is_software()),
        };
        self.use_gpu = use_gpu;
        self.rows.set_mirrored(use_gpu);
        Ok(())
    }

    /// The executor evaluating the motions now ([`Executor::Cpu`] or [`Executor::Gpu`]).
    #[must_use]
    pub fn active_executor(&self) -> Executor {
        if self.use_gpu {
            Executor::Gpu
        } else {
            Executor::Cpu
        }
    }

    /// How bound values come back from the GPU executor (default blocking).
    pub fn set_readback_mode(&mut self, mode: ReadbackMode) {
        if let Some(gpu) = &mut self.gpu {
            gpu.set_readback_mode(mode);
        }
    }

    /// The readback mode of the GPU executor (blocking when none is attached).
    #[must_use]
    pub fn readback_mode(&self) -> ReadbackMode {
        self.gpu
            .as_deref()
            .map_or(ReadbackMode::Blocking, GpuExecutor::readback_mode)
    }

    /// A GPU failure since the last call, after which the world moved to the CPU executor
    /// with every motion kept. Reported once.
    pub fn take_gpu_error(&mut self) -> Option<GpuError> {
        self.gpu_error.take()
    }

    /// Row capacity of the GPU mirror (0 without one); for tests and diagnostics.
    #[doc(hidden)]
    #[must_use]
    pub fn gpu_capacity(&self) -> u32 {
        self.gpu.as_deref().map_or(0, GpuExecutor::capacity)
    }

    /// Caps the GPU executor's workgroups per dispatch axis below the device's limit, so
    /// tests can exercise the two-dimensional fold of large dispatches with small worlds.
    #[doc(hidden)]
    pub fn set_gpu_max_workgroups_per_axis(&mut self, groups: u32) {
        if let Some(gpu) = self.gpu.as_deref_mut() {
            gpu.set_max_workgroups_per_axis(groups);
        }
    }

    /// Evaluates every row with the active executor. A GPU failure moves the world to the
    /// CPU executor for good (the rows are the whole truth) and is kept for
    /// [`take_gpu_error`](Self::take_gpu_error).
    fn evaluate_rows(&mut self) {
        if self.use_gpu {
            if let Some(gpu) = self.gpu.as_deref_mut() {
                self.bound_rows.clear();
                self.bound_motions.clear();
                for entry in &self.bound {
                    if let Some(slot) = self.slots.get(entry.slot, entry.version) {
                        self.bound_rows.push(slot.row);
                        self.bound_motions.push([entry.slot, entry.version]);
                    }
                }
                let input = FrameInput {
                    now: &self.clocks.now,
                    bound_rows: &self.bound_rows,
                    bound_motions: &self.bound_motions,
                };
                let slots = &self.slots;
                match gpu.evaluate(&mut self.rows, &input, &mut self.targets, |s, v| {
                    slots.get(s, v).map(|x| x.row)
                }) {
                    Ok(()) => return,
                    Err(error) => self.lose_gpu(error),
                }
            }
        }
        self.executor.evaluate(&mut self.rows, &self.clocks.now);
        // With a device attached, targets are filled under the CPU executor too.
        if let Some(gpu) = self.gpu.as_deref_mut() {
            if let Err(error) = gpu.fill_targets(&mut self.targets, &self.rows) {
                self.lose_gpu(error);
            }
        }
    }

    /// After a GPU failure: the CPU executor for good (the rows are the whole truth), the
    /// error kept for [`take_gpu_error`](Self::take_gpu_error), targets dropped.
    fn lose_gpu(&mut self, error: GpuError) {
        self.gpu_error = Some(error);
        self.gpu = None;
        self.use_gpu = false;
        self.rows.set_mirrored(false);
        self.drop_targets();
    }

    /// Forgets every GPU target (their device is gone or replaced).
    fn drop_targets(&mut self) {
        if self.targets.is_empty() {
            return;
        }
        self.targets.clear();
        for &slot in &self.rows.slot_of {
            self.meta[slot as usize].target = None;
        }
    }

    /// Whether bound values arrive an update late (GPU executor, pipelined readback).
    fn values_are_late(&self) -> bool {
        self.use_gpu && self.readback_mode() == ReadbackMode::Pipelined
    }

    /// Writes a finishing motion's value at `now` into its target, if it has one.
    fn write_final_target(&mut self, slot: u32, now: &Progress) {
        let (Some(target), Some(gpu)) = (self.meta[slot as usize].target, self.gpu.as_deref())
        else {
            return;
        };
        let row = self.slots.slots[slot as usize].row;
        let lanes = self.rows.rows[row as usize].lane_count();
        let value = lerp_lanes(self.rows.pairs(row), lanes, now.eased);
        if let Err(error) = self
            .targets
            .write_now(gpu.context(), target, &value[..lanes])
        {
            self.lose_gpu(error);
        }
    }

    /// Checks that this world can fill `target` for a value of `lanes` lanes.
    pub(crate) fn check_target(&self, target: &GpuTarget, lanes: usize) -> Result<(), BuildError> {
        let gpu = self.gpu.as_deref().ok_or(BuildError::NoGpu)?;
        target.validate(lanes, gpu.target_binding_size(&target.buffer))?;
        if self.targets.knows(&target.buffer) {
            return Ok(());
        }
        gpu.probe_target(&target.buffer)
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
    pub fn reserve(&mut self, additional: usize) {
        self.rows.reserve(additional);
        self.slots.reserve(additional);
        self.meta
            .reserve((self.slots.slots.len() + additional).saturating_sub(self.meta.len()));
        self.callbacks
            .reserve((self.slots.slots.len() + additional).saturating_sub(self.callbacks.len()));
    }

    /// A handle for queueing changes from inside callbacks (or other threads).
    #[must_use]
    pub fn commands(&self) -> MotionCommands {
        MotionCommands {
            world: self.id,
            shared: Arc::clone(&self.shared),
        }
    }

    /// World time of a kind, seconds since the world was made.
    #[must_use]
    pub fn world_time(&self, kind: crate::TimeKind) -> f64 {
        self.clocks.now[kind as usize]
    }

    /// Uses at most `threads` threads for the CPU executor (1 = the calling thread only).
    /// Default: all available cores, engaged only above a size threshold.
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
        self.settle();
        self.clocks.advance(deltas);
        self.updates += 1;
        if self.rows.len() == 0 {
            return Ok(());
        }
        self.evaluate_rows();

        self.due.clear();
        let meta = &self.meta;
        self.events.pop_due(
            &self.clocks.now,
            |slot, seq, stamp| {
                meta.get(slot as usize)
                    .is_some_and(|m| m.seq == seq && m.stamp == stamp)
            },
            &mut self.due,
        );
        self.due.sort_unstable_by_key(|d| d.seq);
        self.due.dedup_by_key(|d| d.seq);

        // Visit bound motions and due events merged in creation order (SEMANTICS.md §6).
        self.settling = true;
        self.visiting = true;
        let (mut b, mut d) = (0, 0);
        let (nb, nd) = (self.bound.len(), self.due.len());
        while b < nb || d < nd {
            let bound = self.bound.get(b).copied();
            let due = self.due.get(d).copied();
            match (bound, due) {
                (Some(entry), Some(event)) if entry.seq == event.seq => {
                    b += 1;
                    d += 1;
                    self.visit(event.slot, true);
                }
                (Some(entry), event) if event.is_none_or(|e| entry.seq < e.seq) => {
                    b += 1;
                    if self.slots.get(entry.slot, entry.version).is_some() {
                        self.visit(entry.slot, false);
                    }
                }
                (_, Some(event)) => {
                    d += 1;
                    self.visit(event.slot, true);
                }
                (_, None) => unreachable!("loop condition guarantees an entry"),
            }
        }
        self.visiting = false;
        self.settling = false;
        self.settle();
        Ok(())
    }

    /// Removes every motion at once, without calling their callbacks, and drops queued
    /// commands (handles they reserved never become valid). Every old handle stays invalid
    /// forever: slot versions keep rising across a clear. Memory is released.
    pub fn clear(&mut self) {
        self.shared
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .commands
            .clear();
        self.clear_motions();
        self.settle();
    }

    fn clear_motions(&mut self) {
        for i in 0..self.rows.len() {
            let slot = self.rows.slot_of[i];
            self.resolve_completion(slot, Err(Canceled));
            self.slots.free(slot);
            self.callbacks[slot as usize] = None;
            self.meta[slot as usize].pending_removal = false;
            self.meta[slot as usize].target = None;
        }
        self.targets.clear();
        self.rows.clear();
        self.bound.clear();
        self.bound.shrink_to(0);
        self.bound_dead = 0;
        self.removals.clear();
        self.events.clear();
    }

    // ---------------------------------------------------------------- insertion

    /// Inserts a built motion at clock 0 (anchored at the current world time), into
    /// `reserved` if a command reserved its handle. Runs the immediate bind.
    pub(crate) fn insert(
        &mut self,
        built: BuiltMotion,
        reserved: Option<MotionHandle>,
    ) -> MotionHandle {
        let mut row = built.row;
        row.anchor(self.clocks.now[row.time_kind() as usize], 0.0);
        let row_index = self.rows.len() as u32;
        let (slot, version) = match reserved {
            Some(h) => {
                self.slots.occupy_reserved(h.slot, h.version, row_index);
                (h.slot, h.version)
            }
            None => self.slots.alloc(row_index),
        };
        self.rows.push(row, built.pairs, slot);
        let needed = slot as usize + 1;
        if self.meta.len() < needed {
            self.meta.resize(needed, SlotMeta::default());
            self.callbacks.resize_with(needed, || None);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let has_bind = built.callbacks.as_ref().is_some_and(|c| c.bind.is_some());
        let has_loop_callback = built
            .callbacks
            .as_ref()
            .is_some_and(|c| c.loop_complete.is_some());
        self.meta[slot as usize] = SlotMeta {
            seq,
            stamp: 0,
            options: built.options,
            debug_name: built.debug_name,
            has_bind,
            has_loop_callback,
            birth_update: self.updates,
            touched: false,
            pending_removal: false,
            target: None,
        };
        if let Some(target) = &built.target {
            // Checked by the builder's terminal; a deferred spawn is checked here, and a
            // target this world cannot fill is dropped (the motion runs without it).
            let lanes = row.lane_count();
            if let (Some(gpu), Ok(())) = (self.gpu.as_deref(), self.check_target(target, lanes)) {
                let size = gpu.target_binding_size(&target.buffer);
                self.meta[slot as usize].target =
                    Some(self.targets.add(slot, row_index, target, lanes, size));
            }
        }
        self.callbacks[slot as usize] = built.callbacks;
        if has_bind {
            self.bound.push(BoundEntry { seq, slot, version });
        }
        self.schedule(slot, row_index, 0.0);
        let handle = MotionHandle {
            world: self.id,
            slot,
            version,
        };
        if has_bind && built.options.immediate_bind {
            let p = row.ease().evaluate(0.0);
            let value = lerp_lanes(built.pairs, row.lane_count(), p);
            self.call_bind(slot, &value);
        }
        self.settle();
        handle
    }

    // ---------------------------------------------------------------- visiting

    /// Looks at one motion in an update: bind, loop-complete, complete, reschedule.
    fn visit(&mut self, slot: u32, scheduled: bool) {
        let meta = self.meta[slot as usize];
        if meta.pending_removal {
            return;
        }
        let row_index = self.slots.slots[slot as usize].row;
        let row = self.rows.rows[row_index as usize];
        let kind = row.time_kind() as usize;
        let prev = progress(&row, row.clock(self.clocks.prev[kind]));
        let time = row.clock(self.clocks.now[kind]);
        let now = progress(&row, time);
        let value = (meta.has_bind && binds_at(now.status, &meta.options)).then(|| {
            if now.is_completed() && !prev.is_completed() && self.values_are_late() {
                // A completing bind is the motion's last word: its end value, not the
                // previous update's (a pipelined readback is one update late).
                lerp_lanes(self.rows.pairs(row_index), row.lane_count(), now.eased)
            } else {
                self.rows.output(row_index)
            }
        });
        if self.fire(slot, &prev, &now, value.as_ref()) && scheduled {
            self.schedule(slot, row_index, time);
        }
    }

    /// Runs the callbacks of one step from `prev` to `now`: the bind (when `value` is
    /// given), loop-complete if the loop count rose, complete on the transition into
    /// Completed. Returns whether the motion lives on.
    fn fire(&mut self, slot: u32, prev: &Progress, now: &Progress, value: Option<&Lanes>) -> bool {
        if let Some(value) = value {
            if !self.call_bind(slot, value) {
                return false;
            }
        }
        if now.completed_loops > prev.completed_loops {
            let loops = now.completed_loops;
            self.call(slot, CallbackKind::LoopComplete, |c| {
                c.loop_complete.as_mut().map(|f| guarded(|| f(loops)))
            });
        }
        if now.is_completed() && !prev.is_completed() {
            self.call(slot, CallbackKind::Complete, |c| {
                c.complete.as_mut().map(guarded)
            });
            self.resolve_completion(slot, Ok(()));
            if !self.meta[slot as usize].options.preserve {
                if !self.visiting {
                    // Completed by `complete` or `set_time`: no update will scatter its end
                    // value, so its target gets it now. (In an update, the pass did.)
                    self.write_final_target(slot, now);
                }
                self.mark_removal(slot);
                return false;
            }
        }
        true
    }

    /// Calls the bind; a panic is reported and, with cancel-on-error, cancels the motion.
    /// Returns whether the motion lives on.
    fn call_bind(&mut self, slot: u32, value: &Lanes) -> bool {
        let ok = self.call(slot, CallbackKind::Bind, |c| {
            c.bind.as_mut().map(|f| guarded(|| f(value)))
        });
        if !ok && self.meta[slot as usize].options.cancel_on_error {
            self.cancel_slot(slot);
            return false;
        }
        true
    }

    /// Calls one callback of `slot` through `run` (which returns `None` when that callback
    /// is not set), reporting a caught panic. Returns false if it panicked.
    fn call(
        &mut self,
        slot: u32,
        kind: CallbackKind,
        run: impl FnOnce(&mut Callbacks) -> Option<Result<(), String>>,
    ) -> bool {
        let Some(callbacks) = self.callbacks[slot as usize].as_deref_mut() else {
            return true;
        };
        match run(callbacks) {
            None | Some(Ok(())) => true,
            Some(Err(message)) => {
                let handle = self.handle_of(slot);
                self.report(CallbackError {
                    handle,
                    debug_name: self.meta[slot as usize].debug_name,
                    kind,
                    message,
                });
                false
            }
        }
    }

    fn report(&mut self, error: CallbackError) {
        if self.errors.len() < MAX_KEPT_ERRORS {
            self.errors.push(error);
        } else {
            self.errors_dropped += 1;
        }
    }

    fn handle_of(&self, slot: u32) -> MotionHandle {
        MotionHandle {
            world: self.id,
            slot,
            version: self.slots.slots[slot as usize].version,
        }
    }

    /// Cancels a live motion: cancel callback, then removal after the current loop.
    fn cancel_slot(&mut self, slot: u32) {
        self.mark_removal(slot);
        self.call(slot, CallbackKind::Cancel, |c| {
            c.cancel.as_mut().map(guarded)
        });
        self.resolve_completion(slot, Err(Canceled));
    }

    /// Wakes the futures waiting for `slot`'s motion, if any.
    fn resolve_completion(&mut self, slot: u32, result: Result<(), Canceled>) {
        if let Some(waiting) = self.callbacks[slot as usize]
            .as_deref()
            .and_then(|c| c.completion.as_ref())
        {
            waiting.resolve(result);
        }
    }

    /// A future that resolves when the motion completes (`Ok(())`; at once for a preserved
    /// motion that already has) or is cancelled or cleared (`Err(Canceled)`; at once for a
    /// stale handle). Needs no async runtime: await it anywhere while the world is updated.
    ///
    /// ```
    /// use wgpu_tween::{Motion, MotionWorld};
    /// use std::sync::{Arc, Mutex};
    ///
    /// let world = Arc::new(Mutex::new(MotionWorld::new()));
    /// let done = {
    ///     let mut w = world.lock().unwrap();
    ///     let h = Motion::new(0.0f32, 1.0, 0.5).run(&mut w).unwrap();
    ///     w.completion(h)
    /// };
    /// let updater = {
    ///     let world = Arc::clone(&world);
    ///     std::thread::spawn(move || {
    ///         for _ in 0..60 {
    ///             world.lock().unwrap().update(1.0 / 60.0).unwrap();
    ///         }
    ///     })
    /// };
    /// assert_eq!(pollster::block_on(done), Ok(()));
    /// updater.join().unwrap();
    /// ```
    pub fn completion(&mut self, h: MotionHandle) -> Completion {
        let Ok((slot, row)) = self.live(h) else {
            return Completion {
                slot: completion::CompletionSlot::resolved(Err(Canceled)),
            };
        };
        let row = self.rows.rows[row as usize];
        if progress(&row, row.clock(self.clocks.now[row.time_kind() as usize])).is_completed() {
            return Completion {
                slot: completion::CompletionSlot::resolved(Ok(())),
            };
        }
        let callbacks = self.callbacks[slot as usize].get_or_insert_with(Box::default);
        let waiting = callbacks.completion.get_or_insert_with(Arc::default);
        Completion {
            slot: Arc::clone(waiting),
        }
    }

    fn mark_removal(&mut self, slot: u32) {
        let meta = &mut self.meta[slot as usize];
        if !meta.pending_removal {
            meta.pending_removal = true;
            meta.stamp = meta.stamp.wrapping_add(1);
            self.removals.push(slot);
        }
    }

    /// Pushes the motion's next event, if it has one. `time` is its clock now.
    fn schedule(&mut self, slot: u32, row_index: u32, time: f64) {
        let meta = &self.meta[slot as usize];
        let row = &self.rows.rows[row_index as usize];
        let now = progress(row, time);
        if let Some(key) = next_event_key(
            row,
            time,
            now.completed_loops,
            now.is_completed(),
            meta.has_loop_callback,
        ) {
            let event = Event {
                key,
                seq: meta.seq,
                slot,
                stamp: meta.stamp,
            };
            self.events.push(row.time_kind() as usize, event);
        }
    }

    // ---------------------------------------------------------------- settling

    /// Applies removals and queued commands until none are left, then keeps memory in
    /// line with load. Re-entrant calls (from inside a command) return at once: the outer
    /// loop picks up what they would have done.
    fn settle(&mut self) {
        if self.settling {
            return;
        }
        self.settling = true;
        loop {
            self.apply_removals();
            {
                let mut state = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
                std::mem::swap(&mut state.commands, &mut self.batch);
            }
            if self.batch.is_empty() {
                break;
            }
            let mut batch = std::mem::take(&mut self.batch);
            for command in batch.drain(..) {
                self.apply(command);
            }
            self.batch = batch;
        }
        self.settling = false;
        self.maintain();
    }

    fn apply(&mut self, command: Command) {
        match command {
            Command::Spawn(handle, built) => {
                self.insert(*built, Some(handle));
            }
            Command::Cancel(h) => {
                let _ = self.cancel_inner(h);
            }
            Command::Complete(h) => {
                let _ = self.complete_inner(h);
            }
            Command::SetTime(h, t) => {
                let _ = self.set_time_inner(h, t);
            }
            Command::SetPlaybackSpeed(h, s) => {
                let _ = self.set_playback_speed_inner(h, s);
            }
            Command::Preserve(h) => {
                let _ = self.preserve(h);
            }
            Command::Clear => self.clear_motions(),
        }
        // Removals from this command before the next one looks at rows.
        self.apply_removals();
    }

    fn apply_removals(&mut self) {
        for i in 0..self.removals.len() {
            let slot = self.removals[i];
            let meta = &mut self.meta[slot as usize];
            if !meta.pending_removal {
                continue; // cleared in between
            }
            meta.pending_removal = false;
            if meta.has_bind {
                self.bound_dead += 1;
            }
            if let Some(target) = meta.target.take() {
                if let Some(owner) = self.targets.remove(target) {
                    self.meta[owner as usize].target = Some(target);
                }
            }
            let row = self.slots.slots[slot as usize].row;
            if let Some(moved) = self.rows.swap_remove(row) {
                self.slots.set_row(moved, row);
                if let Some(target) = self.meta[moved as usize].target {
                    self.targets.set_row(target, row);
                }
            }
            self.slots.free(slot);
            self.callbacks[slot as usize] = None;
        }
        self.removals.clear();
    }

    /// Shrinks what grew: the bound list, stale heap entries, rows, slots. Each check is
    /// O(1) unless it acts, and it acts only when at least half of a structure is waste.
    fn maintain(&mut self) {
        if self.bound_dead > 32 && self.bound_dead * 2 > self.bound.len() {
            let slots = &self.slots;
            self.bound
                .retain(|e| slots.get(e.slot, e.version).is_some());
            self.bound_dead = 0;
            if self.bound.capacity() > 64 && self.bound.len() * 4 < self.bound.capacity() {
                self.bound.shrink_to(self.bound.len() * 2);
            }
        }
        if self.events.len() > 2 * self.rows.len() + 1024 {
            let meta = &self.meta;
            self.events.purge(|slot, seq, stamp| {
                meta.get(slot as usize)
                    .is_some_and(|m| m.seq == seq && m.stamp == stamp)
            });
        }
        self.rows.shrink_if_sparse();
        if self.rows.len() == 0 {
            // An empty world submits nothing, so the GPU table would never shrink otherwise.
            if let Some(gpu) = self.gpu.as_deref_mut() {
                gpu.release_idle();
            }
        }
        let slot_count = self.slots.slots.len();
        if slot_count > 64
            && self.slots.vacant() * 2 > slot_count
            && self.slots.slots.last().is_some_and(|s| !s.is_occupied())
        {
            self.slots.trim();
            let len = self.slots.slots.len();
            if len < self.meta.len() {
                self.meta.truncate(len);
                self.callbacks.truncate(len);
                self.meta.shrink_to(len * 2);
                self.callbacks.shrink_to(len * 2);
            }
        }
        if self.due.capacity() > 1024 && self.due.capacity() > 4 * self.rows.len() {
            self.due.shrink_to(self.rows.len());
        }
    }
}

/// Whether the bind runs at `status` (SEMANTICS.md §6).
#[inline]
fn binds_at(status: MotionStatus, options: &MotionOptions) -> bool {
    match status {
        MotionStatus::Playing | MotionStatus::Completed => true,
        MotionStatus::Delayed => !options.skip_values_during_delay,
        MotionStatus::Scheduled | MotionStatus::Canceled => false,
    }
}

impl std::fmt::Debug for MotionWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MotionWorld")
            .field("id", &self.id)
            .field("motions", &self.rows.len())
            .field("world_time", &self.clocks.now)
            .field("updates", &self.updates)
            .finish_non_exhaustive()
    }
}
