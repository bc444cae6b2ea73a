//! Dense motion rows: struct-of-arrays columns indexed by row; a removed motion leaves a hole
//! (`table/holes.rs`), compacted by swap-remove.
//!
//! Columns rather than one wide struct so that the executor reads only what a motion uses:
//! a one-lane `f32` motion touches the 32-byte row, one 8-byte lane pair and one 4-byte
//! output, never the other lanes' columns.

use crate::core::row::MotionRow;
use crate::core::value::Lanes;
use crate::eval::adapters::row_value;
use std::collections::TryReserveError;

/// Sections of pairs per row: four value lanes `(from, to)`, then the 16-byte parameter
/// lanes (parametric ease, punch and shake settings) as pairs `[p0, p1]`, `[p2, p3]`.
pub(crate) const LANE_SECTIONS: usize = 6;

/// Smallest capacity kept when shrinking.
const MIN_CAPACITY: usize = 64;

/// Shapes of rows, kept in contiguous runs of the table in this order (see
/// [`Rows::class_end`]): lerps of one, two, three and four lanes, then the other adapters
/// (quaternions, punch, shake).
pub(crate) const CLASSES: usize = 5;

/// The shape class of `row` (see [`CLASSES`]).
#[must_use]
pub(crate) fn class_of(row: &MotionRow) -> usize {
    use crate::core::value::Interpolation;
    if row.adapter_bits() != Interpolation::Lerp as u32 {
        CLASSES - 1
    } else {
        row.lane_count() - 1
    }
}

#[derive(Default)]
pub(crate) struct Rows {
    /// Timing and settings per row (copied to the GPU as-is).
    pub rows: Vec<MotionRow>,
    /// `(from, to)` per lane per row, then the row's four parameter lanes as two more
    /// sections of pairs (see [`LANE_SECTIONS`]).
    pub lanes: [Vec<[f32; 2]>; LANE_SECTIONS],
    /// The executor's output per lane per row.
    pub outputs: [Vec<f32>; 4],
    /// The slot that owns each row (see [`Rows::slot_of`]).
    pub(super) slot_of: Vec<u32>,
    /// Change log for a GPU copy of the rows (`None` when no GPU executor keeps one).
    pub gpu_journal: Option<GpuJournal>,
    /// The keys of the animation curves of the rows (freed with their row).
    pub curves: crate::core::curve::CurvePool,
    /// Rows changed since the CPU executor's segment cache last looked.
    pub touched: Touched,
    /// The end of each shape class's run of rows ([`CLASSES`]): class `c` holds rows
    /// `class_end[c − 1]..class_end[c]`, so a chunk of the executors sees rows of one shape
    /// (an interleaved mix would make every SIMD vector pay for every shape). The last
    /// entry is the length.
    pub class_end: [u32; CLASSES],
    /// Grouping by configuration within the runs ([`Rows::regroup`]).
    pub(super) regroup: super::runs::Regroup,
    /// Rows whose motion is gone, kept for new rows (see `table/holes.rs`).
    pub(super) holes: super::holes::Holes,
}

/// Indices of rows pushed, re-anchored or moved since the CPU executor last drained the log
/// (it caches per-row state derived from the rows). Bounded: past a limit, or on `clear`, it
/// says "everything" instead, so a world on another executor never grows it.
#[derive(Default)]
pub(crate) struct Touched {
    pub rows: Vec<u32>,
    pub all: bool,
}

impl Touched {
    fn mark(&mut self, index: u32, len: usize) {
        self.mark_range(index..index + 1, len);
    }

    pub(super) fn mark_range(&mut self, indices: std::ops::Range<u32>, len: usize) {
        if self.all {
            return;
        }
        // (At most one entry per row, duplicates included: a bound only for a world whose
        // executor never drains the log. A quarter was too few: an emitter's update
        // touches a row per spawn and two per removal, and "everything" then refreshed
        // every row of the table.)
        if self.rows.len() + indices.len() > len.max(1024) {
            self.all = true;
            self.rows.clear();
        } else {
            self.rows.extend(indices);
        }
    }

    /// Empties the log once the executor has read it. Its memory follows the table: after
    /// the rows have gone (a world whose motions all completed) it keeps twice what they
    /// need, not what their removal logged.
    pub fn drained(&mut self, len: usize) {
        self.all = false;
        self.rows.clear();
        let kept = (2 * len).max(1024);
        if self.rows.capacity() > 2 * kept {
            self.rows.shrink_to(kept);
        }
    }
}

/// What changed in the rows since the GPU copy was last synchronised.
///
/// `origin[i]` names where row `i`'s current content sits in the GPU copy: `i` itself when in
/// sync, another pre-sync row when a swap moved it (chains of swaps are composed), or
/// [`DIRTY`] when only the CPU has it (new or re-anchored rows). `touched` lists the indices
/// to look at. A drain's moves never read a row another of them writes.
#[derive(Default)]
pub(crate) struct GpuJournal {
    pub(super) origin: Vec<u32>,
    pub(super) touched: Vec<u32>,
    /// Scratch bits of the rows a drain's moves write (kept, so a drain does not allocate).
    written: Vec<u64>,
}

/// `GpuJournal::origin` of a row the GPU copy does not have.
pub(crate) const DIRTY: u32 = u32::MAX;

impl GpuJournal {
    /// Drains the log: `moves` gets `(dst, src)` row copies within the GPU copy, `uploads` the
    /// rows to send from the CPU. Afterwards the GPU copy is in sync.
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))] // the GPU executor's
    pub fn drain(&mut self, len: usize, moves: &mut Vec<[u32; 2]>, uploads: &mut Vec<u32>) {
        for &t in &self.touched {
            let Some(origin) = self.origin.get_mut(t as usize) else {
                continue; // removed since
            };
            if *origin == t {
                continue; // in sync, or already handled
            }
            if *origin == DIRTY {
                uploads.push(t);
            } else {
                moves.push([t, *origin]);
            }
            *origin = t;
        }
        self.touched.clear();
        debug_assert_eq!(self.origin.len(), len);
        // Swaps (see `Rows::swap`) can make a move's source the destination of another
        // move, which the apply pass would overwrite while reading it: those rows go up from
        // the CPU instead.
        if moves.is_empty() {
            return;
        }
        self.written.resize(len.div_ceil(64), 0);
        let bit = |r: u32| (r as usize / 64, 1u64 << (r % 64));
        for &[dst, _] in moves.iter() {
            let (word, mask) = bit(dst);
            self.written[word] |= mask;
        }
        let written = &mut self.written;
        moves.retain(|&[dst, src]| {
            let (word, mask) = bit(src);
            let clash = written.get(word).is_some_and(|w| w & mask != 0);
            if clash {
                uploads.push(dst);
            }
            !clash
        });
        for &dst in moves.iter().map(|[dst, _]| dst).chain(uploads.iter()) {
            let (word, mask) = bit(dst);
            self.written[word] &= !mask;
        }
    }
}

impl Rows {
    #[inline]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The slot that owns each row.
    #[inline]
    pub fn slot_of(&self) -> &[u32] {
        &self.slot_of
    }

    /// Adds rows, into holes of their class first (see `table/holes.rs`), the others past
    /// the runs (`place_pending` puts them in their runs): row `i` is
    /// `row` with the `params` word `words[i]`, the lane pairs `pairs[i]` and the
    /// parameters `params[i]`, owned by the slot that `slot(i, index)` gives (`index`: its
    /// row). One column at a time, each written in one pass, so that a block of motions
    /// costs about what copying its bytes does (inlined: see `MotionTable::append`).
    #[inline(always)]
    pub(super) fn push_block(
        &mut self,
        row: &MotionRow,
        words: &[u32],
        pairs: &[[[f32; 2]; 4]],
        params: &[[f32; 4]],
        slot: impl FnMut(usize, u32) -> u32,
    ) {
        debug_assert!(pairs.len() == words.len() && params.len() == words.len());
        if self.holes.len() > 0 {
            return self.push_into_holes(row, words, pairs, params, slot);
        }
        self.append_block(row, words, pairs, params, 0, slot);
    }

    /// Appends rows past the runs, as [`push_block`](Self::push_block) says; motion `i` of
    /// the block is motion `offset + i` to `slot`.
    #[inline(always)]
    pub(super) fn append_block(
        &mut self,
        row: &MotionRow,
        words: &[u32],
        pairs: &[[[f32; 2]; 4]],
        params: &[[f32; 4]],
        offset: usize,
        mut slot: impl FnMut(usize, u32) -> u32,
    ) {
        let (first, n) = (self.rows.len() as u32, words.len());
        // A plain loop: an `extend` of a `map` would keep `slot` out of line.
        self.slot_of.reserve(n);
        for (i, row) in (first..first + n as u32).enumerate() {
            self.slot_of.push(slot(offset + i, row));
        }
        let rows = words.iter().map(|&params| MotionRow { params, ..*row });
        self.rows.extend(rows);
        let [l0, l1, l2, l3, p01, p23] = &mut self.lanes;
        for (k, column) in [l0, l1, l2, l3].into_iter().enumerate() {
            column.extend(pairs.iter().map(|p| p[k]));
        }
        p01.extend(params.iter().map(|&[p0, p1, _, _]| [p0, p1]));
        p23.extend(params.iter().map(|&[_, _, p2, p3]| [p2, p3]));
        // Outputs start at the value at progress E(0) = 0: what a pipelined readback shows
        // until the first value of this row comes back.
        for (row, &pairs) in self.rows[first as usize..].iter().zip(pairs) {
            let start = row_value(row, pairs, 0.0, 0.0);
            for (column, value) in self.outputs.iter_mut().zip(start) {
                column.push(value);
            }
        }
        let added = first..first + n as u32;
        self.touched.mark_range(added.clone(), self.rows.len());
        if let Some(log) = &mut self.gpu_journal {
            log.origin.resize(self.rows.len(), DIRTY);
            log.touched.extend(added);
        }
    }

    /// Replaces a row's timing (re-anchoring).
    pub fn set_row(&mut self, index: u32, row: MotionRow) {
        self.rows[index as usize] = row;
        self.touched.mark(index, self.rows.len());
        if let Some(log) = &mut self.gpu_journal {
            log.origin[index as usize] = DIRTY;
            log.touched.push(index);
        }
    }

    /// Starts (or stops) keeping a change log for a GPU copy. A new log marks every row
    /// dirty, so the first sync uploads everything.
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))] // the GPU executor's
    pub fn keep_gpu_journal(&mut self, on: bool) {
        self.curves.keep_gpu_journal(on);
        self.gpu_journal = on.then(|| GpuJournal {
            origin: vec![DIRTY; self.rows.len()],
            touched: (0..self.rows.len() as u32).collect(),
            written: Vec::new(),
        });
    }

    /// Exchanges rows `a` and `b` with everything that belongs to them (in a GPU copy's
    /// log too: a move of each, unless the drain finds a clash).
    pub(super) fn swap(&mut self, a: u32, b: u32) {
        let (i, j) = (a as usize, b as usize);
        self.rows.swap(i, j);
        for column in &mut self.lanes {
            column.swap(i, j);
        }
        for column in &mut self.outputs {
            column.swap(i, j);
        }
        self.slot_of.swap(i, j);
        for index in [a, b] {
            self.touched.mark(index, self.rows.len());
        }
        if let Some(log) = &mut self.gpu_journal {
            log.origin.swap(i, j);
            log.touched.extend([a, b]);
        }
    }

    /// Copies row `from` over row `to` with everything that belongs to it (in a GPU copy's
    /// log too: a move, unless the drain finds a clash); `to`'s old content is gone. Half a
    /// [`swap`](Self::swap): a removal's rows go to the end only to be dropped there.
    pub(super) fn move_row(&mut self, from: u32, to: u32) {
        let (i, j) = (from as usize, to as usize);
        self.rows[j] = self.rows[i];
        for column in &mut self.lanes {
            column[j] = column[i];
        }
        for column in &mut self.outputs {
            column[j] = column[i];
        }
        self.slot_of[j] = self.slot_of[i];
        self.touched.mark(to, self.rows.len());
        if let Some(log) = &mut self.gpu_journal {
            log.origin[j] = log.origin[i];
            log.touched.push(to);
        }
    }

    /// Frees what row `index` holds outside the table (its curve's keys): before the row is
    /// removed.
    pub(super) fn release(&mut self, index: u32) {
        if self.rows[index as usize].ease_bits() == crate::core::curve::ID_CURVE {
            self.curves.free(self.params(index));
        }
    }

    /// Drops the last row, whose content was released or moved (see `Rows::remove`).
    pub(super) fn pop(&mut self) {
        self.rows.pop();
        for column in &mut self.lanes {
            column.pop();
        }
        for column in &mut self.outputs {
            column.pop();
        }
        self.slot_of.pop();
        if let Some(log) = &mut self.gpu_journal {
            log.origin.pop();
        }
    }

    /// The `(from, to)` pairs of a row.
    #[inline]
    pub fn pairs(&self, index: u32) -> [[f32; 2]; 4] {
        let i = index as usize;
        [
            self.lanes[0][i],
            self.lanes[1][i],
            self.lanes[2][i],
            self.lanes[3][i],
        ]
    }

    /// The parameter lanes of a row.
    #[inline]
    pub fn params(&self, index: u32) -> [f32; 4] {
        let i = index as usize;
        let ([p0, p1], [p2, p3]) = (self.lanes[4][i], self.lanes[5][i]);
        [p0, p1, p2, p3]
    }

    /// The value of row `index` evaluated as `now` (parametric eases and adapters included).
    #[inline]
    /// `w` is the world time of the row's time kind.
    pub fn value_at(&self, index: u32, now: &crate::eval::Progress, w: f64) -> Lanes {
        let row = &self.rows[index as usize];
        let p = crate::eval::clock::eased_with(row, now, self.params(index), self.curves.keys());
        row_value(row, self.pairs(index), p, w)
    }

    /// The executor's last output for a row.
    #[inline]
    pub fn output(&self, index: u32) -> Lanes {
        let i = index as usize;
        [
            self.outputs[0][i],
            self.outputs[1][i],
            self.outputs[2][i],
            self.outputs[3][i],
        ]
    }

    /// Asks for the cache lines of row `index`'s first `lanes` outputs without waiting for
    /// them: a reader that jumps between rows (a sparse bind) asks a few rows ahead. A row
    /// past the end (a gone motion's `u32::MAX`) asks for nothing.
    #[inline(always)]
    pub fn prefetch_output(&self, index: u32, lanes: u8) {
        for column in &self.outputs[..usize::from(lanes.min(4))] {
            if let Some(x) = column.get(index as usize) {
                prefetch(x);
            }
        }
    }

    /// Shrinks with hysteresis: only when a quarter or less of the capacity is used, and
    /// then to twice the length, so a world oscillating around a size never reallocates.
    pub fn shrink_if_sparse(&mut self) {
        self.curves.shrink_if_sparse();
        let cap = self.rows.capacity();
        if cap > MIN_CAPACITY && self.rows.len() * 4 <= cap {
            let target = (self.rows.len() * 2).max(MIN_CAPACITY);
            self.rows.shrink_to(target);
            for column in &mut self.lanes {
                column.shrink_to(target);
            }
            for column in &mut self.outputs {
                column.shrink_to(target);
            }
            self.slot_of.shrink_to(target);
            self.regroup.shrink_to(target);
            self.holes.shrink_to(target);
            // The logs hold at most about one entry per row (`Touched::mark`) or the rows
            // touched between two syncs.
            self.touched.rows.shrink_to(1024);
            if let Some(log) = &mut self.gpu_journal {
                log.origin.shrink_to(target);
                log.touched.shrink_to(target);
                log.written.shrink_to(target.div_ceil(64));
            }
        }
    }

    /// Reserves room for `additional` more rows; stops at the first allocation that fails.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), TryReserveError> {
        self.rows.try_reserve(additional)?;
        for column in &mut self.lanes {
            column.try_reserve(additional)?;
        }
        for column in &mut self.outputs {
            column.try_reserve(additional)?;
        }
        self.slot_of.try_reserve(additional)
    }

    pub(super) fn clear(&mut self) {
        self.rows.clear();
        for column in &mut self.lanes {
            column.clear();
        }
        for column in &mut self.outputs {
            column.clear();
        }
        self.slot_of.clear();
        self.holes.clear();
        self.class_end = [0; CLASSES];
        self.regroup.disordered = 0;
        self.touched.all = true;
        self.touched.rows.clear();
        if let Some(log) = &mut self.gpu_journal {
            log.origin.clear();
            log.touched.clear();
        }
        self.curves.clear();
        self.shrink_if_sparse();
    }
}

/// Asks for the cache line at `p` without waiting for it.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
