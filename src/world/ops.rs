//! Handle operations (docs/semantics.md §7). All O(1): none evaluates any other motion.

use std::any::TypeId;

use super::visit::binds_at;
use super::MotionWorld;
use crate::core::handle::MotionHandle;
use crate::core::row::MotionRow;
use crate::core::settings::MotionStatus;
use crate::core::value::{Animatable, Lanes, RoundingMode};
use crate::error::MotionError;
use crate::eval::{progress, Progress};
use crate::table::slots::{Slot, BITS_EXACT, BITS_ROUNDING};

impl MotionWorld {
    /// `(slot, row)` of a live motion, or why there is none.
    #[inline]
    pub(super) fn live(&self, h: MotionHandle) -> Result<(u32, u32), MotionError> {
        if h.world != self.id {
            return Err(if h.is_none() {
                MotionError::Destroyed(h)
            } else {
                MotionError::WrongWorld(h)
            });
        }
        match self.live_slot(h) {
            Some(slot) => Ok((h.slot, slot.row)),
            None => Err(MotionError::Destroyed(h)),
        }
    }

    /// The slot of a live motion of this world's (the caller checks `h.world`). Marked
    /// removals exist only while `removals` lists them, so outside callbacks the metadata is
    /// not read.
    #[inline]
    fn live_slot(&self, h: MotionHandle) -> Option<Slot> {
        self.table.slots.get(h.slot, h.version).filter(|_| {
            self.removals.is_empty() || !self.table.meta[h.slot as usize].pending_removal
        })
    }

    fn row(&self, h: MotionHandle) -> Result<&MotionRow, MotionError> {
        let (_, row) = self.live(h)?;
        Ok(&self.table.rows.rows[row as usize])
    }

    /// [`live`](Self::live) for the operations a sequence's child refuses.
    fn live_alone(&self, h: MotionHandle) -> Result<(u32, u32), MotionError> {
        let (slot, row) = self.live(h)?;
        if self.table.meta[slot as usize].in_sequence {
            return Err(MotionError::InSequence(h));
        }
        Ok((slot, row))
    }

    /// The clock and evaluation now of row `index` (a sequence's child included).
    fn evaluate_index(&self, index: u32) -> (f64, Progress) {
        let time = super::sequence::clock_at(&self.table.rows, index, self.clocks.table());
        (time, progress(&self.table.rows.rows[index as usize], time))
    }

    /// Whether the handle was issued by this world. It may have finished since: use
    /// [`is_active`](Self::is_active) to ask whether the motion still exists.
    #[must_use]
    pub fn is_valid(&self, h: MotionHandle) -> bool {
        h.world == self.id
    }

    /// Whether the motion exists: not finished, not cancelled (a preserved motion that has
    /// completed is still active until cancelled).
    #[must_use]
    pub fn is_active(&self, h: MotionHandle) -> bool {
        self.live(h).is_ok()
    }

    /// Whether the motion exists and has not completed (Scheduled, Delayed or Playing).
    #[must_use]
    pub fn is_playing(&self, h: MotionHandle) -> bool {
        matches!(
            self.status(h),
            Ok(MotionStatus::Scheduled | MotionStatus::Delayed | MotionStatus::Playing)
        )
    }

    /// The motion's status now: Scheduled until the first update after its creation, then
    /// Delayed, Playing or Completed.
    pub fn status(&self, h: MotionHandle) -> Result<MotionStatus, MotionError> {
        let (slot, row) = self.live(h)?;
        let meta = &self.table.meta[slot as usize];
        if meta.birth_update == self.updates && !meta.touched {
            return Ok(MotionStatus::Scheduled);
        }
        Ok(self.evaluate_index(row).1.status)
    }

    /// The motion clock now, seconds (delay included; negative speeds can make it negative).
    pub fn time(&self, h: MotionHandle) -> Result<f64, MotionError> {
        let (_, row) = self.live(h)?;
        Ok(self.evaluate_index(row).0)
    }

    /// Loops completed so far.
    pub fn completed_loops(&self, h: MotionHandle) -> Result<u32, MotionError> {
        let (_, row) = self.live(h)?;
        Ok(self.evaluate_index(row).1.completed_loops)
    }

    /// Eased progress now (after the loop type; the `p` the value is interpolated with).
    pub fn progress(&self, h: MotionHandle) -> Result<f32, MotionError> {
        let (_, row_index) = self.live(h)?;
        let row = &self.table.rows.rows[row_index as usize];
        let now = self.evaluate_index(row_index).1;
        Ok(crate::eval::clock::eased_with(
            row,
            &now,
            self.table.rows.params(row_index),
            self.table.rows.curves.keys(),
        ))
    }

    /// Duration of one loop, seconds.
    pub fn duration(&self, h: MotionHandle) -> Result<f32, MotionError> {
        Ok(self.row(h)?.duration)
    }

    /// Total duration with delays and loops, seconds; `f64::INFINITY` for infinite loops.
    pub fn total_duration(&self, h: MotionHandle) -> Result<f64, MotionError> {
        Ok(self.row(h)?.total_duration())
    }

    /// The playback speed.
    pub fn playback_speed(&self, h: MotionHandle) -> Result<f32, MotionError> {
        Ok(self.row(h)?.speed)
    }

    /// The motion's value now. After an update on the CPU executor it is what the executor
    /// wrote (what a bind gets); where that is not current (the motion was made, re-timed or
    /// completed since, a sequence's child, the GPU executor) it is computed on the CPU from
    /// the motion's anchor. `T` must be the type the motion animates (a sequence's is
    /// `f32`), else [`MotionError::TypeMismatch`].
    pub fn value<T: Animatable>(&self, h: MotionHandle) -> Result<T, MotionError> {
        let (slot, row_index) = self.live(h)?;
        let entry = self.table.slots[slot as usize];
        if self.value_types.get(usize::from(entry.value_type)) != Some(&TypeId::of::<T>()) {
            return Err(MotionError::TypeMismatch(h));
        }
        let rounding = RoundingMode::from_bits(u32::from(entry.bits & BITS_ROUNDING));
        Ok(T::from_lanes_rounded(
            self.lanes_now(entry, row_index, T::LANES as u8),
            rounding,
        ))
    }

    /// The value lanes of the motion in `entry` (at row `row_index`) now: the executor's
    /// output where it is current (see [`value`](Self::value)), else the exact evaluation.
    #[inline]
    pub(super) fn lanes_now(&self, entry: Slot, row_index: u32, lanes: u8) -> Lanes {
        if self.outputs_current
            && entry.changed != self.updates as u32
            && entry.bits & BITS_EXACT == 0
        {
            return super::visit::output(&self.table.rows, row_index, lanes);
        }
        let row = &self.table.rows.rows[row_index as usize];
        let now = self.evaluate_index(row_index).1;
        self.table
            .rows
            .value_at(row_index, &now, self.clocks.now[row.clock_index()])
    }

    /// Keeps the motion after it completes (see [`Motion::preserve`](crate::Motion::preserve)).
    pub fn preserve(&mut self, h: MotionHandle) -> Result<(), MotionError> {
        let (slot, _) = self.live(h)?;
        self.table.meta[slot as usize].options.preserve = true;
        Ok(())
    }

    /// Jumps to the motion's end: clock at the total duration, status Completed, completed
    /// loops `L`; binds once with the end value, fires loop-complete (if the count rose) then
    /// complete. Not for infinite loops, nor twice on a preserved motion, nor
    /// ([`MotionError::OutOfRange`]) for a total duration beyond [`MAX_TIME`](crate::MAX_TIME).
    pub fn complete(&mut self, h: MotionHandle) -> Result<(), MotionError> {
        let result = self.complete_inner(h);
        self.settle();
        result
    }

    /// [`complete`](Self::complete), returning whether it happened.
    pub fn try_complete(&mut self, h: MotionHandle) -> bool {
        self.complete(h).is_ok()
    }

    /// Cancels the motion: no bind, the cancel callback fires, the handle becomes inactive.
    pub fn cancel(&mut self, h: MotionHandle) -> Result<(), MotionError> {
        let result = self.cancel_inner(h);
        self.settle();
        result
    }

    /// [`cancel`](Self::cancel), returning whether it happened.
    pub fn try_cancel(&mut self, h: MotionHandle) -> bool {
        self.cancel(h).is_ok()
    }

    /// Sets the motion clock to `time` (delay included) at once: binds the value there and
    /// fires the callbacks of the step, by the rules of an update. The clock is `time` on
    /// the anchors' grid (exact for 0 and other grid values; else within 2^-46 of the larger
    /// of `time` and the world time, with the status and loop count `time` has).
    /// [`MotionError::OutOfRange`] beyond ±[`MAX_TIME`](crate::MAX_TIME).
    pub fn set_time(&mut self, h: MotionHandle, time: impl Into<f64>) -> Result<(), MotionError> {
        let result = self.set_time_inner(h, time.into());
        self.settle();
        result
    }

    /// Changes the playback speed from now on. The clock keeps its current value (exactly
    /// where it is on the anchors' grid, as a new or paused motion's is; else within 2^-46
    /// of the larger of the clock and the world time) and always its status and loop count.
    /// [`MotionError::OutOfRange`] for a speed so small that the current clock would need
    /// an anchor beyond [`MAX_TIME`](crate::MAX_TIME) (such as 1e-39 at clock 1).
    pub fn set_playback_speed(&mut self, h: MotionHandle, speed: f32) -> Result<(), MotionError> {
        let result = self.set_playback_speed_inner(h, speed);
        self.settle();
        result
    }

    pub(super) fn cancel_inner(&mut self, h: MotionHandle) -> Result<(), MotionError> {
        let (slot, _) = self.live_alone(h)?;
        self.cancel_slot(slot);
        Ok(())
    }

    pub(super) fn complete_inner(&mut self, h: MotionHandle) -> Result<(), MotionError> {
        let (slot, row_index) = self.live_alone(h)?;
        let mut row = self.table.rows.rows[row_index as usize];
        if row.loops < 0 {
            return Err(MotionError::InfiniteLoops(h));
        }
        let w = self.clocks.now[row.clock_index()];
        let (_, prev) = self.evaluate_index(row_index);
        if prev.is_completed() {
            return Err(MotionError::AlreadyCompleted(h));
        }
        // The total duration, nudged up (by the fewest ulps) where §2 needs the clock strictly
        // past it (zero duration) or the anchor's rounding lands a hair short of the end.
        let end = row.total_duration();
        if !anchor_in_range(&row, w, end) {
            return Err(MotionError::OutOfRange {
                handle: h,
                what: "total duration",
                value: end,
            });
        }
        let mut exact = row;
        exact.anchor(w, end);
        let now = anchor_keeping(&mut row, w, end, Progress::is_completed);
        self.reanchored(slot, row_index, row);
        self.table.meta[slot as usize].touched = true;
        let value = self.table.meta[slot as usize]
            .has_bind
            .then(|| self.table.rows.value_at(row_index, &now, w));
        if self.fire(slot, &prev, &now, value.as_ref()) {
            self.schedule(slot, row_index, row.clock(w));
            // The nudge only holds the clock at its end: the first update that moves it
            // takes it off (`unnudge_moved`), as LitMotion's `Time = total` then `+= dt`.
            let nudged = (row.base_hi, row.base_lo) != (exact.base_hi, exact.base_lo);
            let meta = &mut self.table.meta[slot as usize];
            if nudged && !meta.nudged {
                meta.nudged = true;
                self.nudged.push(h);
            }
        }
        Ok(())
    }

    /// Takes `complete`'s nudge off the motions whose clock this update moved: their clock
    /// is the total duration at the update's start plus the step since, exactly (so one
    /// played back to its end is there, not a hair past: docs/semantics.md §7). Run after
    /// the update's visits, which saw the nudged clock; the status and loop count it gave
    /// are kept (else, below the anchor grid's resolution, the nudge stays). A motion whose
    /// clock stood (speed 0, a zero step, a paused group) keeps its nudge.
    pub(super) fn unnudge_moved(&mut self) {
        if self.nudged.is_empty() {
            return;
        }
        let mut nudged = std::mem::take(&mut self.nudged);
        nudged.retain(|&h| {
            let Ok((slot, row_index)) = self.live(h) else {
                return false; // ended (or removed this update)
            };
            if !self.table.meta[slot as usize].nudged {
                return false; // set_time has taken it off
            }
            let mut row = self.table.rows.rows[row_index as usize];
            let kind = row.clock_index();
            let (before, w) = (self.clocks.prev[kind], self.clocks.now[kind]);
            if row.speed == 0.0 || before == w {
                return true;
            }
            let seen = progress(&row, row.clock(w));
            // No set_time since (it drops the entry) and no move before this update: the
            // clock was the total duration when the update began.
            row.anchor(before, row.total_duration());
            let clock = row.clock(w);
            let exact = progress(&row, clock);
            self.table.meta[slot as usize].nudged = false;
            if exact.status == seen.status && exact.completed_loops == seen.completed_loops {
                self.reanchored(slot, row_index, row);
                self.schedule(slot, row_index, clock);
            }
            false
        });
        self.nudged = nudged;
    }

    pub(super) fn set_time_inner(&mut self, h: MotionHandle, time: f64) -> Result<(), MotionError> {
        let (slot, row_index) = self.live_alone(h)?;
        if !time.is_finite() {
            return Err(MotionError::InvalidArgument {
                handle: h,
                what: "time",
                value: time,
            });
        }
        let mut row = self.table.rows.rows[row_index as usize];
        let w = self.clocks.now[row.clock_index()];
        if !anchor_in_range(&row, w, time) {
            return Err(MotionError::OutOfRange {
                handle: h,
                what: "time",
                value: time,
            });
        }
        let (_, prev) = self.evaluate_index(row_index);
        // The clock is `time` from now on, not `complete`'s end.
        self.table.meta[slot as usize].nudged = false;
        let want = progress(&row, time);
        let now = anchor_keeping(&mut row, w, time, |p| {
            p.status == want.status && p.completed_loops == want.completed_loops
        });
        self.reanchored(slot, row_index, row);
        self.table.meta[slot as usize].touched = true;
        let clock = row.clock(w);
        let meta = self.table.meta[slot as usize];
        let value = (meta.has_bind && binds_at(now.status, &meta.options))
            .then(|| self.table.rows.value_at(row_index, &now, w));
        if self.fire(slot, &prev, &now, value.as_ref()) {
            self.schedule(slot, row_index, clock);
        }
        Ok(())
    }

    pub(super) fn set_playback_speed_inner(
        &mut self,
        h: MotionHandle,
        speed: f32,
    ) -> Result<(), MotionError> {
        let (slot, row_index) = self.live_alone(h)?;
        if !speed.is_finite() {
            return Err(MotionError::InvalidArgument {
                handle: h,
                what: "playback speed",
                value: f64::from(speed),
            });
        }
        let mut row = self.table.rows.rows[row_index as usize];
        let w = self.clocks.now[row.clock_index()];
        let (time, before) = self.evaluate_index(row_index);
        row.speed = speed;
        if !anchor_in_range(&row, w, time) {
            return Err(MotionError::OutOfRange {
                handle: h,
                what: "playback speed",
                value: f64::from(speed),
            });
        }
        // The clock keeps its value, and so its status and loops, whatever the rounding.
        anchor_keeping(&mut row, w, time, |p| {
            p.status == before.status && p.completed_loops == before.completed_loops
        });
        self.reanchored(slot, row_index, row);
        self.schedule(slot, row_index, row.clock(w));
        Ok(())
    }

    /// Stores a re-anchored row and makes the motion's pending event entries stale.
    fn reanchored(&mut self, slot: u32, row_index: u32, row: MotionRow) {
        self.table.rows.set_row(row_index, row);
        let meta = &mut self.table.meta[slot as usize];
        meta.stamp = meta.stamp.wrapping_add(1);
        self.table.slots.set_changed(slot, self.updates as u32);
    }
}

/// Anchors `row` so its clock reads `time` at world time `w`. World times are on the anchor
/// grid (see `clock.rs`), so the clock is exact where `time` is (always for 0, a new motion's
/// clock). Elsewhere the base rounds to the grid, and where that puts the clock across a
/// boundary that `keep` rejects (a status or loop count the motion must keep), the grid's
/// next base on either side, nearer `time` first, is tried: the clock then moves by at most
/// two grid steps (2^-46 of the larger of the clock and world time, times the speed), never more. Where no
/// candidate passes (a loop far below the grid's resolution), the nearest stays. Returns the
/// evaluation at the anchor.
fn anchor_keeping(
    row: &mut MotionRow,
    w: f64,
    time: f64,
    keep: impl Fn(&Progress) -> bool,
) -> Progress {
    row.anchor(w, time);
    let nearest = *row;
    let now = progress(row, row.clock(w));
    if keep(&now) {
        return now;
    }
    let base = nearest.base();
    let reach = if row.speed == 0.0 {
        base.abs()
    } else {
        base.abs().max(w.abs())
    };
    let step = reach.max(2f64.powi(-60)) * 2f64.powi(-46);
    let mut candidates = [base - step, base + step].map(|b| {
        let mut candidate = nearest;
        set_base(&mut candidate, b);
        (candidate, candidate.clock(w))
    });
    candidates.sort_by(|a, b| (a.1 - time).abs().total_cmp(&(b.1 - time).abs()));
    for (candidate, clock) in candidates {
        let p = progress(&candidate, clock);
        if keep(&p) {
            *row = candidate;
            return p;
        }
    }
    *row = nearest;
    now
}

/// Stores `base` in the row as its f32 pair.
fn set_base(row: &mut MotionRow, base: f64) {
    let hi = base as f32;
    row.base_hi = hi;
    row.base_lo = (base - f64::from(hi)) as f32;
}

/// Whether anchoring `row` at world time `w` with clock `time` keeps the clock and the base
/// within [`MAX_TIME`](super::MAX_TIME) (so both stay finite in f32 on every executor).
fn anchor_in_range(row: &MotionRow, w: f64, time: f64) -> bool {
    let base = if row.speed == 0.0 {
        time
    } else {
        w - time / f64::from(row.speed)
    };
    time.abs() <= super::MAX_TIME && base.abs() <= super::MAX_TIME
}
