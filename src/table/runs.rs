//! Rows kept in runs of one shape ([`CLASSES`]): a new row is swapped down past the first
//! row of each later class, a removed one up past the last row of each, so either costs at
//! most `CLASSES − 1` swaps, and none in a world of one shape.
//!
//! Within its class's run, rows are grouped by configuration ([`group_key`]: ease, loop and
//! delay types, time kind), lazily: a new row stays at the end of its class, a removal's swap
//! leaves a row among others, and [`Rows::regroup`] puts every class back in groups in one
//! pass once such rows make up `1/REGROUP_SHARE` of the table (of its first million rows in a
//! larger one). So spawning costs what it did, a burst of creations in any order is grouped
//! by the next update (`O(rows)` moves, amortised: at most [`REGROUP_SHARE`] per creation or
//! removal while the table is under a million rows),
//! and the executors' chunks mostly see one configuration (the CPU's segment cache serves
//! chunks of a few groups, see `exec/cpu/cache.rs`).
//!
//! Why: both executors evaluate rows side by side (64-row chunks of SIMD vectors on the CPU,
//! SIMD lanes of a workgroup on software GPUs), and a vector that mixes shapes pays for all
//! of them: four lanes read and written for a one-lane row, the quaternion code for a lerp.
//! Lerps are split by lane count, as a CPU chunk lerps the lanes of its widest row: a world
//! of `Vec2` motions costs 30% less than when its chunks lerped four lanes.

use super::rows::{class_of, Rows, CLASSES};
use crate::core::row::{MotionRow, FLAG_CHILD};

/// Rows out of their group, as a share of the table, at which [`Rows::regroup`] regroups:
/// `1/16`. Smaller regroups more often (each moves up to every row), larger leaves more
/// chunks mixed between regroups.
pub(crate) const REGROUP_SHARE: usize = 16;

/// Distinct [`group_key`]s.
const KEYS: usize = 1 << 14;

/// The configuration group of a row within its shape class: its ease (ids below 64), loop
/// type, delay type and clock (the `flags` bits 0..11 and 24..32 that the executors' timing
/// and easing read; the clock's low four bits, so that a kind's rows and each of the first
/// groups' rows stay apart), and whether it is a sequence child (never cached).
#[must_use]
#[inline]
pub(crate) fn group_key(row: &MotionRow) -> usize {
    let f = row.flags;
    (f & 0x3f) as usize
        | (((f >> 8) & 0x7) as usize) << 6
        | usize::from(f & FLAG_CHILD != 0) << 9
        | ((row.clock_index() & 0xf) << 10)
}

/// Scratch space of [`Rows::regroup`], kept so that a regroup does not allocate once the
/// table has reached its size.
#[derive(Default)]
pub(crate) struct Regroup {
    /// Rows placed or moved out of their group since the last regroup.
    pub disordered: usize,
    /// Per key: its group's next row, or `u32::MAX` when not seen in this class.
    next: Vec<u32>,
    /// Keys in the order of their first row in the class.
    order: Vec<u16>,
    /// Per row of the class: where it goes.
    dest: Vec<u32>,
    /// The rows whose content a regroup changed (their owners must be told).
    pub moved: Vec<u32>,
    /// A class's column being moved, as 4-byte words (every column is Pod).
    words: Vec<u32>,
}

impl Regroup {
    /// Keeps room for regrouping at most `rows` rows.
    pub fn shrink_to(&mut self, rows: usize) {
        self.dest.shrink_to(rows);
        self.moved.shrink_to(rows);
        self.words.shrink_to(rows * size_of::<MotionRow>() / 4);
    }
}

/// Moves the elements `start..start + dest.len()` of `column` to `dest` (a permutation of
/// that range), through `scratch`: one sequential read and one write per element, where
/// swaps along the permutation's cycles would miss the cache twice per row and column.
fn permute<T: bytemuck::Pod>(column: &mut [T], start: usize, dest: &[u32], scratch: &mut Vec<u32>) {
    let range = &mut column[start..start + dest.len()];
    scratch.clear();
    scratch.extend_from_slice(bytemuck::cast_slice(range));
    let old: &[T] = bytemuck::cast_slice(scratch);
    for (value, &d) in old.iter().zip(dest) {
        column[d as usize] = *value;
    }
}

/// The row swaps a [`Rows::place_next`] made, or the moves of a [`Rows::remove`], in order:
/// at most one per class, so it never allocates.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Swaps {
    pairs: [[u32; 2]; CLASSES],
    len: usize,
}

impl Swaps {
    fn push(&mut self, a: u32, b: u32) {
        self.pairs[self.len] = [a, b];
        self.len += 1;
    }

    /// Every row index a swap or move touched (some twice): the rows whose owners must be
    /// told where their row now is.
    pub fn rows(&self) -> impl Iterator<Item = u32> + Clone + '_ {
        self.pairs[..self.len].iter().flatten().copied()
    }
}

impl Rows {
    /// Whether rows were pushed past the runs' end (for [`place_pending`](Self::place_pending)).
    #[inline]
    pub fn has_pending(&self) -> bool {
        self.class_end[CLASSES - 1] < self.len() as u32
    }

    /// Moves the rows pushed past the runs' end into their runs, in order; `moved` gets the
    /// rows that moved (some twice). A stretch of one class with no row of a later class to
    /// pass (a batch in a world of one shape) moves nothing: its run just grows over it.
    pub(super) fn place_pending(&mut self, moved: &mut Vec<u32>) {
        let len = self.len() as u32;
        let mut next = self.class_end[CLASSES - 1];
        while next < len {
            let class = class_of(&self.rows[next as usize]);
            if self.class_end[class] == next {
                let rows = &self.rows[next as usize..];
                let stretch = rows.iter().take_while(|r| class_of(r) == class).count();
                let end = next + stretch as u32;
                for e in &mut self.class_end[class..] {
                    *e = end;
                }
                self.count_disordered(next..end);
                next = end;
            } else {
                moved.extend(self.place_next().rows());
                next += 1;
            }
        }
    }

    /// Moves the first row past the runs' end into its class's run, past the first row of
    /// each later class.
    fn place_next(&mut self) -> Swaps {
        let index = self.class_end[CLASSES - 1];
        let class = class_of(&self.rows[index as usize]);
        let mut at = index;
        let mut planned = Swaps::default();
        for later in (class + 1..CLASSES).rev() {
            let start = self.class_end[later - 1];
            if start < at {
                planned.push(start, at);
                at = start;
            }
        }
        for end in &mut self.class_end[class..] {
            *end += 1;
        }
        for [a, b] in planned.pairs[..planned.len].iter().copied() {
            self.swap(a, b);
        }
        self.count_disordered(planned.rows().chain([at]));
        planned
    }

    /// Puts the rows of every class in groups of one [`group_key`], each group where its
    /// first row is (so a class already in groups moves nothing), when enough rows are out
    /// of their group ([`REGROUP_SHARE`]). `regroup.moved` lists the rows that moved
    /// (empty when none did). Stable: rows of one group keep their order.
    pub(super) fn regroup(&mut self) {
        debug_assert_eq!(
            self.class_end[CLASSES - 1] as usize,
            self.len(),
            "rows unplaced"
        );
        let mut scratch = std::mem::take(&mut self.regroup);
        scratch.moved.clear();
        let len = self.len();
        if scratch.disordered == 0 || scratch.disordered * REGROUP_SHARE < len.min(1 << 20) {
            self.regroup = scratch;
            return;
        }
        scratch.disordered = 0;
        scratch.next.resize(KEYS, u32::MAX);
        let mut start = 0;
        for c in 0..CLASSES {
            let end = self.class_end[c];
            self.regroup_range(start, end, &mut scratch);
            start = end;
        }
        self.regroup = scratch;
    }

    /// Counts the rows of `moved` (indices may repeat, or be past the end) that sit beside
    /// no row of their group.
    pub(super) fn count_disordered(&mut self, moved: impl Iterator<Item = u32>) {
        for i in moved {
            let Some(row) = self.rows.get(i as usize) else {
                continue;
            };
            let (key, class) = (group_key(row), class_of(row));
            let start = if class == 0 {
                0
            } else {
                self.class_end[class - 1]
            };
            let end = self.class_end[class];
            let same = |j: u32| group_key(&self.rows[j as usize]) == key;
            let grouped =
                end - start == 1 || (i > start && same(i - 1)) || (i + 1 < end && same(i + 1));
            self.regroup.disordered += usize::from(!grouped);
        }
    }

    /// [`regroup`](Self::regroup) of rows `start..end`.
    fn regroup_range(&mut self, start: u32, end: u32, s: &mut Regroup) {
        let rows = &self.rows[start as usize..end as usize];
        // Group sizes (in `next`), in order of first appearance.
        s.order.clear();
        for row in rows {
            let key = group_key(row);
            if s.next[key] == u32::MAX {
                s.next[key] = 0;
                s.order.push(key as u16);
            }
            s.next[key] += 1;
        }
        // Then each group's first row.
        let mut at = start;
        for &key in &s.order {
            let size = s.next[key as usize];
            s.next[key as usize] = at;
            at += size;
        }
        s.dest.clear();
        s.dest.extend(rows.iter().map(|row| {
            let next = &mut s.next[group_key(row)];
            *next += 1;
            *next - 1
        }));
        for &key in &s.order {
            s.next[key as usize] = u32::MAX;
        }
        let moved = s.moved.len();
        for (k, &d) in s.dest.iter().enumerate() {
            if d != start + k as u32 {
                s.moved.push(start + k as u32);
            }
        }
        if s.moved.len() == moved {
            return;
        }
        // Every column of the class through the permutation.
        let at = start as usize;
        permute(&mut self.rows, at, &s.dest, &mut s.words);
        for column in &mut self.lanes {
            permute(column, at, &s.dest, &mut s.words);
        }
        for column in &mut self.outputs {
            permute(column, at, &s.dest, &mut s.words);
        }
        permute(&mut self.slot_of, at, &s.dest, &mut s.words);
        // The executors' logs: the CPU's cache starts over; a GPU copy moves the rows (or
        // uploads them where moves would clash, see `GpuJournal::drain`).
        self.touched.all = true;
        self.touched.rows.clear();
        if let Some(log) = &mut self.gpu_journal {
            permute(&mut log.origin, at, &s.dest, &mut s.words);
            log.touched.extend_from_slice(&s.moved[moved..]);
        }
    }

    /// Removes row `index`, a hole (`Rows::kill`, its keys freed already): the last row of
    /// its class's run moves into its place, the last of the next class's run into that
    /// one's, and so on, and the table's last row goes; no other row moves. Returns the
    /// moves as pairs `(to, from)`.
    pub(super) fn remove(&mut self, index: u32) -> Swaps {
        debug_assert_eq!(
            self.class_end[CLASSES - 1] as usize,
            self.len(),
            "rows unplaced"
        );
        let class = class_of(&self.rows[index as usize]);
        let mut hole = index;
        let mut swaps = Swaps::default();
        for c in class..CLASSES {
            let last = self.class_end[c] - 1;
            if hole != last {
                self.move_row(last, hole);
                swaps.push(hole, last);
                hole = last;
            }
            self.class_end[c] -= 1;
        }
        debug_assert_eq!(hole as usize + 1, self.len());
        self.pop();
        self.count_disordered(swaps.rows());
        swaps
    }
}
