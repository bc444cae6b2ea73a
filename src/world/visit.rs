//! Visiting motions: binds, loop-complete and complete callbacks (with panics caught),
//! cancellation, completion futures, and event scheduling.

use super::callbacks::{guarded, CallbackError, CallbackKind, Callbacks, MAX_KEPT_ERRORS};
use super::commands::Command;
use super::completion::{Canceled, Completion, Resolver};
use super::events::{next_event_key, Event};
use super::meta::{BoundEntry, BoundVisit, GONE};
use super::MotionWorld;
use crate::core::handle::MotionHandle;
use crate::core::row::MotionRow;
use crate::core::settings::{DelayType, MotionStatus};
use crate::core::value::Lanes;
use crate::eval::{progress, Progress};
use crate::table::rows::Rows;
use crate::world::built::MotionOptions;

impl MotionWorld {
    /// Looks at one motion in an update: bind, loop-complete, complete, reschedule.
    pub(super) fn visit(&mut self, slot: u32, scheduled: bool) {
        let meta = self.table.meta[slot as usize];
        if meta.pending_removal || meta.in_sequence {
            return; // gone, or driven by its sequence
        }
        let row_index = self.table.slots[slot as usize].row;
        let row = self.table.rows.rows[row_index as usize];
        let kind = row.clock_index();
        let prev = progress(&row, row.clock(self.clocks.prev[kind]));
        let time = row.clock(self.clocks.now[kind]);
        let now = progress(&row, time);
        let value = (meta.has_bind && binds_at(now.status, &meta.options)).then(|| {
            if now.is_completed() && !prev.is_completed() && self.values_are_late() {
                // A completing bind is the motion's last word: its end value, not the
                // previous update's (a pipelined readback is one update late).
                self.table
                    .rows
                    .value_at(row_index, &now, self.clocks.now[kind])
            } else {
                self.table.rows.output(row_index)
            }
        });
        if self.fire(slot, &prev, &now, value.as_ref()) && scheduled {
            self.schedule(slot, row_index, time);
        }
    }

    /// Runs the callbacks of one step from `prev` to `now`: the bind (when `value` is
    /// given), loop-complete if the loop count rose, complete on the transition into
    /// Completed. Returns whether the motion lives on.
    pub(super) fn fire(
        &mut self,
        slot: u32,
        prev: &Progress,
        now: &Progress,
        value: Option<&Lanes>,
    ) -> bool {
        if self.table.meta[slot as usize].is_sequence {
            self.drive_children(slot, prev, now);
        }
        if let Some(value) = value {
            if !self.call_bind(slot, value) {
                return false;
            }
        }
        if self.table.meta[slot as usize].awaits_start && started(now.status) {
            self.table.meta[slot as usize].awaits_start = false;
            self.call(slot, CallbackKind::Start, |c| c.start.as_mut().map(guarded));
        }
        if now.completed_loops > prev.completed_loops {
            let loops = now.completed_loops;
            self.call(slot, CallbackKind::LoopComplete, |c| {
                c.loop_complete.as_mut().map(|f| guarded(|| f(loops)))
            });
        }
        if now.is_completed() && !prev.is_completed() {
            self.end_with_complete(slot);
            let meta = &self.table.meta[slot as usize];
            // A sequence's children live (and can replay) until their sequence ends.
            if !meta.options.preserve && !meta.in_sequence {
                if !self.visiting {
                    // Completed by `complete` or `set_time`: no update will scatter its end
                    // value, so its target gets it now. (In an update, the pass did.)
                    self.write_final_target(slot, now);
                }
                self.record_final(slot);
                self.mark_removal(slot);
                return false;
            }
        }
        true
    }

    /// Fires the complete callback and resolves the futures, unless the motion (a child of
    /// a looping or scrubbed sequence, replaying) has ended already: a motion ends once.
    pub(super) fn end_with_complete(&mut self, slot: u32) {
        let meta = &mut self.table.meta[slot as usize];
        if meta.ended {
            return;
        }
        meta.ended = meta.in_sequence;
        self.call(slot, CallbackKind::Complete, |c| {
            c.complete.as_mut().map(guarded)
        });
        self.resolve_completion(slot, Ok(()));
    }

    /// Reports a bind's panic and, with cancel-on-error, cancels its motion. Returns
    /// whether the motion lives on.
    pub(super) fn bind_failed(&mut self, slot: u32, message: String) -> bool {
        self.report(CallbackError {
            handle: self.handle_of(slot),
            debug_name: self.table.meta[slot as usize].debug_name,
            kind: CallbackKind::Bind,
            message,
        });
        if self.table.meta[slot as usize].options.cancel_on_error {
            self.cancel_slot(slot);
            return false;
        }
        true
    }

    /// Calls one callback of `slot` through `run` (which returns `None` when that callback
    /// is not set), reporting a caught panic. Returns false if it panicked.
    pub(super) fn call(
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
                    debug_name: self.table.meta[slot as usize].debug_name,
                    kind,
                    message,
                });
                false
            }
        }
    }

    /// Drops a motion's callbacks (before its slot is freed: the report names its handle),
    /// catching a panic in the `Drop` of what they captured.
    pub(super) fn drop_callbacks(&mut self, slot: u32) {
        let meta = &mut self.table.meta[slot as usize];
        let (bind, run_binds, dropped) = match meta
            .bound
            .take()
            .map(|i| self.bound.motion_mut(i, meta.seq))
        {
            Some((BoundEntry::One(entry), _)) => {
                entry.row = GONE;
                (entry.bind.take(), None, Ok(()))
            }
            // A run's binds go with its last motion, and the entry with them.
            Some((BoundEntry::Run(run), index)) => {
                let (dropped, released) = run.release(index);
                self.bound_dead += usize::from(!run.is_live());
                (None, released, dropped)
            }
            None => (None, None, Ok(())),
        };
        let callbacks = self.callbacks[slot as usize].take();
        // A run dropped this motion's closure under its own guard.
        if let Err(message) = dropped {
            self.report_drop(slot, message);
        }
        if bind.is_none() && run_binds.is_none() && callbacks.is_none() {
            return;
        }
        // One guard, as for one struct: a panic in the bind's `Drop` still drops the rest.
        if let Err(message) = guarded(move || drop((bind, run_binds, callbacks))) {
            self.report_drop(slot, message);
        }
    }

    /// Reports a panic in the `Drop` of what a motion's callbacks captured.
    fn report_drop(&mut self, slot: u32, message: String) {
        self.report(CallbackError {
            handle: self.handle_of(slot),
            debug_name: self.table.meta[slot as usize].debug_name,
            kind: CallbackKind::Drop,
            message,
        });
    }

    pub(super) fn report(&mut self, error: CallbackError) {
        diag!(
            warn,
            "{:?} callback of {:?} ({:?}) panicked: {}",
            error.kind,
            error.handle,
            error.debug_name,
            error.message
        );
        if self.errors.len() < MAX_KEPT_ERRORS {
            self.errors.push(error);
        } else {
            self.errors_dropped += 1;
        }
    }

    pub(super) fn handle_of(&self, slot: u32) -> MotionHandle {
        MotionHandle {
            world: self.id,
            slot,
            version: self.table.slots[slot as usize].version,
        }
    }

    /// Cancels a live motion: cancel callback, then removal after the current loop.
    pub(super) fn cancel_slot(&mut self, slot: u32) {
        self.mark_removal(slot);
        let meta = &mut self.table.meta[slot as usize];
        if !meta.ended {
            meta.ended = meta.in_sequence;
            self.call(slot, CallbackKind::Cancel, |c| {
                c.cancel.as_mut().map(guarded)
            });
            self.resolve_completion(slot, Err(Canceled));
        }
        if self.table.meta[slot as usize].is_sequence {
            self.cancel_children(slot);
        }
    }

    /// Wakes the futures waiting for `slot`'s motion, if any.
    pub(super) fn resolve_completion(&mut self, slot: u32, result: Result<(), Canceled>) {
        if let Some(waiting) = self.callbacks[slot as usize]
            .as_deref()
            .and_then(|c| c.completion.as_ref())
        {
            waiting.resolve(result);
        }
    }

    /// A future that resolves when the motion completes (`Ok(())`; at once for a preserved
    /// motion that already has) or is cancelled or cleared (`Err(Canceled)`; at once for a
    /// stale handle, and when the world is dropped first). A handle from `run_deferred`
    /// whose spawn is still queued waits for the motion that spawn makes. Needs no async
    /// runtime: await it anywhere while the world is updated.
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
            return self.queued_completion(h);
        };
        let time = super::sequence::clock_at(&self.table.rows, row, self.clocks.table());
        if self.table.meta[slot as usize].ended
            || progress(&self.table.rows.rows[row as usize], time).is_completed()
        {
            return Completion::resolved(Ok(()));
        }
        let callbacks = self.callbacks[slot as usize].get_or_insert_with(Box::default);
        callbacks
            .completion
            .get_or_insert_with(Resolver::default)
            .future()
    }

    /// [`completion`](Self::completion) of a handle that is not live: a spawn or sequence
    /// still queued (made by the next update) gets a future on the motion it will make;
    /// anything else resolves `Err(Canceled)` at once. O(queued commands).
    fn queued_completion(&mut self, h: MotionHandle) -> Completion {
        if h.world == self.id {
            let mut state = self.shared.lock();
            for command in &mut state.commands {
                let resolver = match command {
                    Command::Spawn(handle, built) if *handle == h => built
                        .callbacks
                        .get_or_insert_with(Box::default)
                        .completion
                        .get_or_insert_with(Resolver::default),
                    Command::Deferred(handle, deferred) if *handle == h => {
                        deferred.completion.get_or_insert_with(Resolver::default)
                    }
                    _ => continue,
                };
                return resolver.future();
            }
        }
        Completion::resolved(Err(Canceled))
    }

    pub(super) fn mark_removal(&mut self, slot: u32) {
        let meta = &mut self.table.meta[slot as usize];
        if !meta.pending_removal {
            meta.pending_removal = true;
            meta.stamp = meta.stamp.wrapping_add(1);
            self.removals.push(slot);
        }
    }

    /// Pushes the motion's next event, if it has one, and sets how an update visits it
    /// without one if it is bound with a bind that skips values during a delay (a delay it
    /// is rising through ends in an event: its start). `time` is its clock now. Called
    /// whenever its clock starts to run a new course: made, re-anchored, visited as due.
    pub(super) fn schedule(&mut self, slot: u32, row_index: u32, time: f64) {
        let meta = &self.table.meta[slot as usize];
        if meta.in_sequence {
            return; // its sequence drives it
        }
        let row = &self.table.rows.rows[row_index as usize];
        let skips = meta.options.skip_values_during_delay && meta.bound.is_some();
        let visit = (skips && !meta.is_sequence).then(|| skipping_visit(row, time));
        let awaits_start = meta.awaits_start || visit == Some(BoundVisit::Wait);
        if let Some(visit) = visit {
            self.set_bound_visit(slot, visit);
        }
        let loop_callback = self.table.meta[slot as usize].has_loop_callback;
        let row = &self.table.rows.rows[row_index as usize];
        if let Some(key) = event_key(row, time, loop_callback, awaits_start) {
            self.push_event(slot, row.clock_index(), key);
        }
    }

    /// [`schedule`](Self::schedule) of new motions made alike, at clock 0: the motions in
    /// `slots` (just made: the `k`-th has sequence number `first_seq + k`) all have `row`'s
    /// timing and no callbacks of their own (a batch's motions), and are bound with binds
    /// that skip values during a delay if `bound_skipping`. How they are visited and their
    /// events' key are worked out once, and their events are one entry of the queue.
    pub(super) fn schedule_alike(
        &mut self,
        row: &MotionRow,
        first_seq: u64,
        slots: impl Iterator<Item = u32> + Clone,
        bound_skipping: bool,
    ) {
        let visit = bound_skipping.then(|| skipping_visit(row, 0.0));
        let key = event_key(row, 0.0, false, visit == Some(BoundVisit::Wait));
        if let Some(visit) = visit {
            for slot in slots.clone() {
                self.set_bound_visit(slot, visit);
            }
        }
        if let Some(key) = key {
            debug_assert!(slots.clone().zip(first_seq..).all(|(slot, seq)| {
                let meta = &self.table.meta[slot as usize];
                meta.seq == seq && meta.stamp == 0
            }));
            self.events
                .push_block(row.clock_index(), key, first_seq, slots);
        }
    }

    /// Pushes the event of the motion in `slot` (as it is now: its sequence number and
    /// stamp) at `key` on clock `clock`.
    fn push_event(&mut self, slot: u32, clock: usize, key: f64) {
        let meta = &self.table.meta[slot as usize];
        let event = Event {
            key,
            seq: meta.seq,
            slot,
            stamp: meta.stamp,
        };
        self.events.push(clock, event);
    }
}

/// The key of the next event of a motion of `row` at clock `time` (see [`next_event_key`]),
/// with a loop callback or an `on_start` (or a delay's end) still to come as said; `None`
/// if it has none.
fn event_key(row: &MotionRow, time: f64, loop_callback: bool, awaits_start: bool) -> Option<f64> {
    if !may_have_events(row, loop_callback, awaits_start) {
        return None; // spare the evaluation
    }
    let now = progress(row, time);
    let next = next_event_key(
        row,
        time,
        now.completed_loops,
        now.is_completed(),
        loop_callback,
    );
    let start = awaits_start.then(|| start_key(row, time, now.status));
    next.into_iter().chain(start).reduce(f64::min)
}

/// Whether a motion of `row` can ever have an event (see `next_event_key`), with a loop
/// callback or an `on_start` that has not fired as said: not when it never moves, nor when
/// it loops forever with neither.
#[inline]
pub(super) fn may_have_events(row: &MotionRow, loop_callback: bool, awaits_start: bool) -> bool {
    row.speed > 0.0 && (row.loops >= 0 || loop_callback || awaits_start)
}

/// The executor's output of row `index`, its first `lanes` lanes (the others are 0).
#[inline]
pub(super) fn output(rows: &Rows, index: u32, lanes: u8) -> Lanes {
    let (i, o) = (index as usize, &rows.outputs);
    match lanes {
        1 => [o[0][i], 0.0, 0.0, 0.0],
        2 => [o[0][i], o[1][i], 0.0, 0.0],
        3 => [o[0][i], o[1][i], o[2][i], 0.0],
        _ => rows.output(index),
    }
}

/// Whether a motion at `status` has started: its delay is over (docs/semantics.md §6).
#[inline]
fn started(status: MotionStatus) -> bool {
    matches!(status, MotionStatus::Playing | MotionStatus::Completed)
}

/// The key of a not yet started motion's start (`on_start`): where its clock reaches the
/// delay, biased early as [`next_event_key`] does; the next update when it has started.
fn start_key(row: &crate::core::row::MotionRow, time: f64, status: MotionStatus) -> f64 {
    let delay = f64::from(row.delay);
    if started(status) || time >= delay {
        return f64::NEG_INFINITY;
    }
    let key = row.base() + delay / f64::from(row.speed);
    key - (key.abs() + delay.abs()) * 4.0 * f64::EPSILON
}

/// How an update visits a bound motion of `row` at clock `time`, whose bind skips values
/// during its delay, until something re-anchors it (docs/semantics.md §2's status, §6): by
/// value once past a first-loop delay (its clock then never falls back into it); not at
/// all while its clock rises through such a delay (its end is an event); exactly otherwise
/// (a clock that falls or stands in the delay, a delay every loop).
fn skipping_visit(row: &MotionRow, time: f64) -> BoundVisit {
    if row.delay_type() == DelayType::EveryLoop {
        return BoundVisit::Exact;
    }
    let over = time >= 0.0 && time - f64::from(row.delay) >= 0.0;
    match (over, row.speed) {
        (true, speed) if speed >= 0.0 => BoundVisit::Value,
        (false, speed) if speed > 0.0 => BoundVisit::Wait,
        _ => BoundVisit::Exact,
    }
}

/// Whether the bind runs at `status` (docs/semantics.md §6).
#[inline]
pub(super) fn binds_at(status: MotionStatus, options: &MotionOptions) -> bool {
    match status {
        MotionStatus::Playing | MotionStatus::Completed => true,
        MotionStatus::Delayed => !options.skip_values_during_delay,
        MotionStatus::Scheduled | MotionStatus::Canceled => false,
    }
}
