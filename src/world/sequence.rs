//! Sequences in the world (docs/semantics.md §8): child clocks from their ancestors, driving the
//! children when their sequence is visited, and completion and cancel propagation.
//!
//! A child row keeps its own settings but its clock base fields hold the link to its parent
//! (see [`FLAG_CHILD`]): `T_child = v_parent − position`, where `v_parent` is the parent's
//! value (its eased progress lerped over `[0, D]`). Every executor computes the same chain:
//! the CPU with [`clock_at`], the GPU pass in `child_clock` (shaders/evaluate.wgsl).

use super::meta::{BoundMotion, BoundVisit};
use super::visit::binds_at;
use super::MotionWorld;
use crate::core::handle::MotionHandle;
use crate::core::row::{MotionRow, FLAG_CHILD};
use crate::error::SequenceChildError;
use crate::eval::clock::eased_with;
use crate::eval::{progress, Progress};
use crate::table::rows::Rows;
use crate::world::built::BuiltMotion;

/// A child of a sequence: its slot (with the version, in case it is removed on its own by
/// a failing bind) and its position on the sequence's timeline.
#[derive(Clone, Copy, Debug)]
pub(super) struct Child {
    slot: u32,
    version: u32,
    position: f32,
}

/// What the world keeps per live sequence.
#[derive(Debug, Default)]
pub(super) struct SequenceData {
    /// In placement order.
    children: Vec<Child>,
    /// 1 + the deepest child's height (a plain child counts 0).
    height: usize,
    /// `Sequence::bind_before_start(false)`: children the sequence has not reached do not
    /// bind.
    hold_unstarted: bool,
    /// Set while its parent drives this sequence (a child) before its start with binds
    /// held: its own children do not bind either.
    held: bool,
}

/// The motion clock of row `index` at world times `w` (one per time kind). A child's clock
/// is its parent's value minus its position, recursively up to the root sequence (depth at
/// most [`MAX_SEQUENCE_DEPTH`]).
pub(super) fn clock_at(rows: &Rows, index: u32, w: &[f64]) -> f64 {
    let row = &rows.rows[index as usize];
    if !row.is_child() {
        return row.clock(w[row.clock_index()]);
    }
    let parent = row.parent_row();
    let parent_progress = progress(&rows.rows[parent as usize], clock_at(rows, parent, w));
    sequence_value(rows, parent, &parent_progress) - f64::from(row.base_hi)
}

/// A sequence's value (the time it gives its children) at `p`: the lane-0 lerp in f32,
/// exactly as the executors compute it.
fn sequence_value(rows: &Rows, index: u32, p: &Progress) -> f64 {
    let row = &rows.rows[index as usize];
    let eased = eased_with(row, p, rows.params(index), rows.curves.keys());
    let [from, to] = rows.lanes[0][index as usize];
    f64::from(from + (to - from) * eased)
}

impl MotionWorld {
    /// The settings of a fresh motion that may join a sequence (its row, which gives its
    /// total duration), or why it cannot join one.
    pub(crate) fn sequence_child_row(
        &self,
        h: MotionHandle,
    ) -> Result<MotionRow, SequenceChildError> {
        let (slot, row) = self.live(h).map_err(|_| SequenceChildError::NotLive)?;
        let meta = &self.table.meta[slot as usize];
        let row = &self.table.rows.rows[row as usize];
        if meta.in_sequence {
            return Err(SequenceChildError::AlreadyInSequence);
        }
        if meta.birth_update != self.updates || meta.touched {
            return Err(SequenceChildError::AlreadyStarted);
        }
        if let Some(reason) = child_row_error(row) {
            return Err(reason);
        }
        if self.sequence_height(slot) >= MAX_SEQUENCE_DEPTH {
            return Err(SequenceChildError::TooDeep);
        }
        Ok(*row)
    }

    fn sequence_height(&self, slot: u32) -> usize {
        self.sequences.get(&slot).map_or(0, |s| s.height)
    }

    /// Inserts a sequence motion (into `reserved` if a command reserved its handle) and
    /// links the (checked) children to it. With immediate
    /// bind (the default), the children bind their values at the sequence's start, in the
    /// order of §8, so the first child's start value is what shows (LitMotion #226 shows the
    /// last created child's); with `hold_unstarted` only the children at position 0 do.
    pub(crate) fn insert_sequence(
        &mut self,
        built: BuiltMotion,
        placed: &[Placed],
        hold_unstarted: bool,
        reserved: Option<MotionHandle>,
    ) -> MotionHandle {
        let immediate_bind = built.options.immediate_bind;
        // Queued commands wait until the children are linked (one could clear the world).
        let handle = self.insert_unsettled(built, reserved);
        let seq_slot = handle.slot;
        let seq_row = self.table.slots[seq_slot as usize].row;
        let meta = &mut self.table.meta[seq_slot as usize];
        meta.is_sequence = true;
        // Visited every update, like a bound motion, to drive its children. (Not always
        // last: `insert` may have applied queued spawns after making the sequence.)
        let seq = meta.seq;
        self.insert_bound(
            seq,
            BoundMotion {
                row: seq_row,
                lanes: 1,
                visit: BoundVisit::Exact,
                bind: None,
            },
        );
        let mut data = SequenceData {
            children: Vec::with_capacity(placed.len()),
            height: 1,
            hold_unstarted,
            held: false,
        };
        for child in placed {
            let slot = child.handle.slot;
            data.height = data.height.max(self.sequence_height(slot) + 1);
            let meta = &mut self.table.meta[slot as usize];
            meta.in_sequence = true;
            // Its clock is the sequence's now: pending event entries become stale.
            meta.stamp = meta.stamp.wrapping_add(1);
            self.visit_exactly(slot);
            let index = self.table.slots[slot as usize].row;
            let mut row = self.table.rows.rows[index as usize];
            row.flags |= FLAG_CHILD;
            row.base_hi = child.position;
            row.base_lo = f32::from_bits(seq_row);
            self.table.rows.set_row(index, row);
            data.children.push(Child {
                slot,
                version: child.handle.version,
                position: child.position,
            });
        }
        self.sequences.insert(seq_slot, data);
        if immediate_bind {
            let row = &self.table.rows.rows[seq_row as usize];
            let start = progress(row, row.clock(self.clocks.now[row.clock_index()]));
            self.drive_children(seq_slot, &start, &start);
        }
        self.settle();
        handle
    }

    /// Runs the children of sequence `slot` for a step of the sequence from `prev` to
    /// `now`: each child's bind and callbacks by the rules of an update, children not yet
    /// started last-to-first, then started ones first-to-last (so for one value the latest
    /// started child wins); with `bind_before_start(false)` (or while this sequence is held
    /// by its own parent) the children not yet started run without their binds. When the
    /// sequence completes in this step, children that have not completed are completed
    /// (their complete callbacks fire).
    pub(super) fn drive_children(&mut self, slot: u32, prev: &Progress, now: &Progress) {
        let index = self.table.slots[slot as usize].row;
        let v_prev = sequence_value(&self.table.rows, index, prev);
        let v_now = sequence_value(&self.table.rows, index, now);
        let finishing = now.is_completed() && !prev.is_completed();
        // Taken out while callbacks run (nothing structural happens until they are done;
        // a nested sequence takes out its own list).
        let Some((children, hold, held)) = self.sequences.get_mut(&slot).map(|s| {
            let children = std::mem::take(&mut s.children);
            (children, s.hold_unstarted, s.held)
        }) else {
            return;
        };
        let started = |c: &&Child| v_now >= f64::from(c.position);
        for child in children.iter().rev().filter(|c| !started(c)) {
            self.drive_child(child, v_prev, v_now, finishing, hold || held);
        }
        for child in children.iter().filter(started) {
            self.drive_child(child, v_prev, v_now, finishing, held);
        }
        if let Some(data) = self.sequences.get_mut(&slot) {
            data.children = children;
        }
    }

    /// Runs one child for a step of its sequence from `v_prev` to `v_now`; `held`: without
    /// its bind (nor, for a nested sequence, its children's).
    fn drive_child(&mut self, child: &Child, v_prev: f64, v_now: f64, finishing: bool, held: bool) {
        let Some(entry) = self.table.slots.get(child.slot, child.version) else {
            return; // removed on its own (a failing bind with cancel-on-error)
        };
        let meta = self.table.meta[child.slot as usize];
        if meta.pending_removal {
            return;
        }
        let row = self.table.rows.rows[entry.row as usize];
        let position = f64::from(child.position);
        let prev = progress(&row, v_prev - position);
        let now = progress(&row, v_now - position);
        let completing = now.is_completed() && !prev.is_completed();
        let w = self.clocks.now[row.clock_index()];
        let value = (meta.has_bind && !held && binds_at(now.status, &meta.options)).then(|| {
            if self.visiting && !(completing && self.values_are_late()) {
                self.table.rows.output(entry.row)
            } else {
                self.table.rows.value_at(entry.row, &now, w)
            }
        });
        if !self.visiting {
            // Re-timed outside an update (the sequence's `set_time` or `complete`): no pass
            // scatters this value, so its target gets it now.
            self.write_final_target(child.slot, &now);
        }
        if let Some(data) = self.sequences.get_mut(&child.slot) {
            data.held = held; // a nested sequence: for its own children
        }
        let lives = self.fire(child.slot, &prev, &now, value.as_ref());
        if let Some(data) = self.sequences.get_mut(&child.slot) {
            data.held = false;
        }
        if lives && finishing && !now.is_completed() {
            self.force_complete(child.slot);
        }
    }

    /// Fires the complete callback of a child its sequence is completing (and of its own
    /// children that have not completed, if it is a sequence).
    fn force_complete(&mut self, slot: u32) {
        self.end_with_complete(slot);
        for child in self.children_of(slot) {
            if let Some(entry) = self.table.slots.get(child.slot, child.version) {
                let row = &self.table.rows.rows[entry.row as usize];
                let time = clock_at(&self.table.rows, entry.row, self.clocks.table());
                if !progress(row, time).is_completed() {
                    self.force_complete(child.slot);
                }
            }
        }
    }

    /// Cancels the children of a cancelled sequence: the cancel callbacks of those that
    /// have not ended (completed, in any pass) fire, in placement order.
    pub(super) fn cancel_children(&mut self, slot: u32) {
        for child in self.children_of(slot) {
            if self.table.slots.get(child.slot, child.version).is_some()
                && !self.table.meta[child.slot as usize].pending_removal
            {
                self.cancel_slot(child.slot);
            }
        }
    }

    /// A sequence is removed: its children go with it (their callbacks have fired).
    pub(super) fn remove_children(&mut self, slot: u32) {
        let Some(data) = self.sequences.remove(&slot) else {
            return;
        };
        for child in data.children {
            if self.table.slots.get(child.slot, child.version).is_some() {
                self.mark_removal(child.slot);
            }
        }
    }

    /// A sequence's row moved to `index`: its children's links follow.
    pub(super) fn relink_children(&mut self, slot: u32, index: u32) {
        let Some(data) = self.sequences.get(&slot) else {
            return;
        };
        for child in &data.children {
            if let Some(entry) = self.table.slots.get(child.slot, child.version) {
                let mut row = self.table.rows.rows[entry.row as usize];
                row.base_lo = f32::from_bits(index);
                self.table.rows.set_row(entry.row, row);
            }
        }
    }

    /// The children's values under the CPU executor, whose batch pass evaluates every row
    /// by its own clock (a child's is its ancestors'). O(children of live sequences).
    pub(super) fn evaluate_children(&mut self) {
        let now = self.clocks.now;
        for data in self.sequences.values() {
            for child in &data.children {
                let Some(entry) = self.table.slots.get(child.slot, child.version) else {
                    continue;
                };
                let row = self.table.rows.rows[entry.row as usize];
                let p = progress(&row, clock_at(&self.table.rows, entry.row, &now));
                let value = self
                    .table
                    .rows
                    .value_at(entry.row, &p, now[row.clock_index()]);
                for (column, lane) in self.table.rows.outputs.iter_mut().zip(value) {
                    column[entry.row as usize] = lane;
                }
            }
        }
    }

    /// The deepest nesting of the live sequences: 1 for a sequence of plain motions, 0
    /// without sequences (for a paged GPU table, see `FrameInput::sequence_depth`).
    /// O(sequences).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))] // the GPU executor's
    pub(super) fn sequence_depth(&self) -> u32 {
        self.sequences
            .values()
            .map(|s| s.height as u32)
            .max()
            .unwrap_or(0)
    }

    /// A copy of a sequence's children (empty for other motions); for the rare paths
    /// (cancel, forced completion) that call back into the world while walking them.
    fn children_of(&self, slot: u32) -> Vec<Child> {
        self.sequences
            .get(&slot)
            .map(|s| s.children.clone())
            .unwrap_or_default()
    }
}

#[cfg(test)]
impl MotionWorld {
    /// Asserts that every live child row names its sequence's current row as its parent.
    pub(super) fn assert_children_linked(&self) {
        for (&sequence, data) in &self.sequences {
            let parent = self.table.slots[sequence as usize].row;
            for child in &data.children {
                if let Some(entry) = self.table.slots.get(child.slot, child.version) {
                    assert_eq!(
                        self.table.rows.rows[entry.row as usize].parent_row(),
                        parent,
                        "child of the sequence in slot {sequence}"
                    );
                }
            }
        }
    }
}

/// Why a motion of these settings cannot be a sequence's child, if it cannot: infinite
/// loops or a playback speed other than 1.
pub(crate) fn child_row_error(row: &MotionRow) -> Option<SequenceChildError> {
    if row.loops < 0 {
        Some(SequenceChildError::InfiniteLoops)
    } else if row.speed != 1.0 {
        Some(SequenceChildError::PlaybackSpeed)
    } else {
        None
    }
}

/// Sequences nest at most this deep (a child of a child of … a sequence): the GPU pass
/// walks a child's ancestors in a fixed-size array.
pub const MAX_SEQUENCE_DEPTH: usize = 8;

/// A child with its resolved position.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placed {
    pub handle: MotionHandle,
    pub position: f32,
}
