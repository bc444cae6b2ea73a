//! Holes: rows whose motion is gone, left where they are until a new motion of their shape
//! takes one or the table is compacted.
//!
//! Why: a particle emitter removes about as many motions per update as it spawns. Removing a
//! row at once moves its run's last row into its place (twelve columns, and the segment
//! cache's entry of the moved row is lost: it is worked out again), only for the next spawn
//! to append a row again. A hole lets the spawn write its row in place: nothing moves, and
//! the new row is worked out once.
//!
//! The protocol ([`super::motions::MotionTable`] keeps it for its owner):
//! - [`Rows::kill`] makes a hole: the row's curve keys are freed and its `slot_of` is
//!   [`NO_SLOT`] (its slot is freed by the table). The row's content stays, so the shape
//!   runs and the GPU copy's journal are as they were.
//! - [`Rows::push_block`] writes new rows into holes of their class first, in the order the
//!   holes were made (`Rows::push_into_holes`); the rest are appended.
//! - [`Rows::compact`] removes the holes left, as a removal did before: before anything reads
//!   or moves the rows as a whole (an evaluation, a regroup, placing rows past a later
//!   class's holes, a walk over every row).

use super::rows::{class_of, Rows, CLASSES, DIRTY};
use super::shapes::lane_traffic;
use crate::core::row::MotionRow;
use crate::eval::adapters::row_value;

/// The `slot_of` of a hole.
pub(crate) const NO_SLOT: u32 = u32::MAX;

/// The holes of a table, by shape class, each class's in the order they were made.
#[derive(Default)]
pub(crate) struct Holes {
    by_class: [Vec<u32>; CLASSES],
    count: usize,
    /// Scratch of [`Rows::compact`]: every hole, highest first.
    order: Vec<u32>,
}

impl Holes {
    /// Number of holes.
    #[inline]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether a class after `class` has a hole: placing a row of `class` past the runs
    /// would move it (`Rows::place_pending` swaps the first row of every later run).
    #[inline]
    pub fn after(&self, class: usize) -> bool {
        self.count > 0 && self.by_class[class + 1..].iter().any(|h| !h.is_empty())
    }

    pub fn clear(&mut self) {
        for class in &mut self.by_class {
            class.clear();
        }
        self.count = 0;
    }

    /// Keeps room for at most `rows` holes.
    pub fn shrink_to(&mut self, rows: usize) {
        for class in &mut self.by_class {
            class.shrink_to(rows);
        }
        self.order.shrink_to(rows);
    }
}

impl Rows {
    /// Each row that is not a hole, as `(row, the slot that owns it)`: the walk over every
    /// motion between compactions.
    pub fn owned(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let rows = self.slot_of.iter().enumerate();
        rows.filter(|&(_, &slot)| slot != NO_SLOT)
            .map(|(row, &slot)| (row as u32, slot))
    }

    /// Whether row `index` is a hole (its motion is gone; the next compaction removes it).
    #[must_use]
    pub fn is_hole(&self, index: usize) -> bool {
        self.slot_of[index] == NO_SLOT
    }

    /// Row `index`'s motion is gone: the row becomes a hole (see the module docs).
    pub(super) fn kill(&mut self, index: u32) {
        self.release(index);
        self.slot_of[index as usize] = NO_SLOT;
        let class = class_of(&self.rows[index as usize]);
        self.holes.by_class[class].push(index);
        self.holes.count += 1;
    }

    /// [`Rows::push_block`] with holes: the first rows into holes of their class, as many
    /// as there are, the rest appended. Out of line, so that appending alone (no holes, the
    /// common case) compiles as it did before holes.
    #[inline(never)]
    pub(super) fn push_into_holes(
        &mut self,
        row: &MotionRow,
        words: &[u32],
        pairs: &[[[f32; 2]; 4]],
        params: &[[f32; 4]],
        mut slot: impl FnMut(usize, u32) -> u32,
    ) {
        let class = class_of(row);
        if let ([word], [pair], [param]) = (words, pairs, params) {
            // One motion (a `run`): the newest hole, written with the block's code at a
            // length the compiler knows.
            if let Some(at) = self.holes.by_class[class].pop() {
                use std::slice::from_ref;
                self.write_stretch(at, row, from_ref(word), from_ref(pair), from_ref(param));
                self.slot_of[at as usize] = slot(0, at);
                self.holes.count -= 1;
                return;
            }
        }
        let mut holes = std::mem::take(&mut self.holes.by_class[class]);
        let n = words.len().min(holes.len());
        let first = holes.len() - n;
        // A stretch of consecutive holes at a time (a finished block's rows are one), each
        // written a column at a time, as `push_block` appends.
        let (mut rest, mut done) = (&holes[first..], 0);
        while let Some(&at) = rest.first() {
            let stretch = rest
                .iter()
                .zip(at..)
                .take_while(|&(&hole, next)| hole == next)
                .count();
            let block = done..done + stretch;
            self.write_stretch(
                at,
                row,
                &words[block.clone()],
                &pairs[block.clone()],
                &params[block],
            );
            for (k, at) in (at..at + stretch as u32).enumerate() {
                self.slot_of[at as usize] = slot(done + k, at);
            }
            done += stretch;
            rest = &rest[stretch..];
        }
        holes.truncate(first);
        self.holes.by_class[class] = holes;
        self.holes.count -= n;
        if n < words.len() {
            self.append_block(row, &words[n..], &pairs[n..], &params[n..], n, slot);
        }
    }

    /// Writes rows `at..` (holes) as `row` with the `params` words, lane pairs and
    /// parameters given, their outputs at progress 0 (as `push_block` starts a row), and
    /// logs them (but their owners: the caller's).
    #[inline(always)]
    fn write_stretch(
        &mut self,
        at: u32,
        row: &MotionRow,
        words: &[u32],
        pairs: &[[[f32; 2]; 4]],
        params: &[[f32; 4]],
    ) {
        let rows = at as usize..at as usize + words.len();
        for (dst, &params) in self.rows[rows.clone()].iter_mut().zip(words) {
            *dst = MotionRow { params, ..*row };
        }
        // Only the columns the evaluation reads and writes (`lane_traffic`): a hole holds a
        // row of its class, so the other lanes and outputs keep an older row's finite
        // values, which no evaluation or read of this row looks at; the parameter lanes only
        // where the ease reads them.
        let (reads, writes) = lane_traffic(row);
        let [l0, l1, l2, l3, p01, p23] = &mut self.lanes;
        for (k, column) in [l0, l1, l2, l3]
            .into_iter()
            .enumerate()
            .take(reads as usize)
        {
            for (dst, pairs) in column[rows.clone()].iter_mut().zip(pairs) {
                *dst = pairs[k];
            }
        }
        if row.reads_params() {
            let dst = p01[rows.clone()].iter_mut().zip(&mut p23[rows.clone()]);
            for ((p01, p23), &[p0, p1, p2, p3]) in dst.zip(params) {
                (*p01, *p23) = ([p0, p1], [p2, p3]);
            }
        }
        for (j, (row, &pairs)) in self.rows[rows.clone()].iter().zip(pairs).enumerate() {
            let start = row_value(row, pairs, 0.0, 0.0);
            for (column, value) in self.outputs.iter_mut().zip(start).take(writes as usize) {
                column[rows.start + j] = value;
            }
        }
        let len = self.rows.len();
        let range = at..at + words.len() as u32;
        self.touched.mark_range(range.clone(), len);
        if let Some(log) = &mut self.gpu_journal {
            log.origin[rows].fill(DIRTY);
            log.touched.extend(range);
        }
        // Rows of one block share their group: in a stretch of two or more, each has a
        // neighbour of its group.
        if words.len() == 1 {
            self.count_disordered(std::iter::once(at));
        }
    }

    /// Removes every hole, highest first (so each removal's moves take live rows: see
    /// `Rows::remove`); `moved` gets the rows that moved, some twice, and the removed rows
    /// past the end. Call with every row placed.
    pub(super) fn compact(&mut self, moved: &mut Vec<u32>) {
        if self.holes.count == 0 {
            return;
        }
        let mut order = std::mem::take(&mut self.holes.order);
        for class in &mut self.holes.by_class {
            order.append(class);
        }
        order.sort_unstable_by(|a, b| b.cmp(a));
        for &hole in &order {
            moved.extend(self.remove(hole).rows());
        }
        self.holes.count = 0;
        order.clear();
        self.holes.order = order;
    }
}
