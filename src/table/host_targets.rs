//! Host targets: f32 arrays owned by the world that motions write their values into.
//!
//! Per-frame protocol: the world edits the lists as motions come and go (`add`, `remove`,
//! `set_row`) and writes a finishing motion's final value at once ([`HostTargets::write`]);
//! after the executor has produced this update's outputs (the CPU executor's, or the GPU
//! executor's readback), [`HostTargets::fill`] copies every entry's value into its array.
//! A one-thread CPU pass calls [`HostTargets::fill_rows`] instead, a tile of rows at a time
//! while the tile's outputs are still in cache.
//!
//! The fill is a copy from the output columns (one per lane) into the array. Entry by
//! entry it costs a few ns per motion (a gather), as much as evaluating the motion. But
//! motions created in order usually sit in consecutive rows and write consecutive
//! elements, so an array whose entries have not changed for an update is filled by *runs*:
//! entries merged while their rows and elements are consecutive, each run a slice copy (a
//! `memcpy` for one lane at stride 1). Runs are rebuilt (O(entries), no allocation once
//! grown) in the first update after changes; an update with changes, or a list whose runs
//! are short (churn scrambles rows and entries), takes the entry loop.

use std::ops::Range;

use super::targets::{TargetEntry, TargetList, TargetLists, TargetRef};
use crate::error::TargetError;

/// A world's host arrays, each with the motions writing into it.
#[derive(Default)]
pub(crate) struct HostTargets {
    /// By [`TargetId::slot`]; `None` once removed (indices are never reused, so a stale id
    /// names nothing).
    arrays: Vec<Option<HostArray>>,
    /// Targeting motions.
    len: usize,
}

struct HostArray {
    data: Vec<f32>,
    list: TargetList,
    /// The entries merged into runs (valid when `plan` is [`Plan::Runs`]).
    runs: Vec<Run>,
    plan: Plan,
    /// `runs` go up by row, so a pass can fill them tile by tile in their order.
    ascending: bool,
    /// The first run not yet filled by this update's tiles.
    next_run: usize,
}

/// How an array is filled this update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    /// The entries changed since the runs were built.
    Stale,
    /// Entry by entry (the runs were too short to pay).
    Entries,
    /// By `runs`.
    Runs,
}

/// Entries `row + j` → f32s `first + j · stride + lane`, `j < count`, `lane < lanes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    row: u32,
    first: u32,
    count: u32,
    stride: u32,
    lanes: u32,
}

/// The longest host array: a target addresses f32s `0..2^30`
/// ([`TargetEntry::MAX_FIRST`] is the last lane 0 it can start at).
pub const MAX_HOST_TARGET_LEN: usize = TargetEntry::MAX_FIRST as usize + 1;

/// Below this many entries per run on average, the entry loop is as fast.
const MIN_MEAN_RUN: usize = 8;

impl HostTargets {
    /// Registers an array of `len` zeros; returns its index, or `TooLarge` if the memory
    /// cannot be had (the allocation is tried, not assumed).
    pub fn register(&mut self, len: usize) -> Result<u32, TargetError> {
        if len > MAX_HOST_TARGET_LEN {
            return Err(TargetError::TooLarge { len });
        }
        let mut data = Vec::new();
        data.try_reserve_exact(len)
            .map_err(|_| TargetError::TooLarge { len })?;
        data.resize(len, 0.0);
        self.arrays
            .try_reserve(1)
            .map_err(|_| TargetError::TooLarge { len })?;
        self.arrays.push(Some(HostArray {
            data,
            list: TargetList::default(),
            runs: Vec::new(),
            plan: Plan::Stale,
            ascending: false,
            next_run: 0,
        }));
        Ok(self.arrays.len() as u32 - 1)
    }

    /// No motion targets a host array.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Array `i`, if registered.
    pub fn get(&self, i: u32) -> Option<&[f32]> {
        Some(&self.arrays.get(i as usize)?.as_ref()?.data)
    }

    /// Array `i`, if registered.
    pub fn get_mut(&mut self, i: u32) -> Option<&mut [f32]> {
        Some(&mut self.arrays.get_mut(i as usize)?.as_mut()?.data)
    }

    /// Removes array `i`; returns the slots of its motions (`None`: no such array).
    pub fn unregister(&mut self, i: u32) -> Option<Vec<u32>> {
        let array = self.arrays.get_mut(i as usize)?.take()?;
        self.len -= array.list.owners.len();
        Some(array.list.owners)
    }

    /// Writes a motion's value into its array now (a final value).
    pub fn write(&mut self, r: TargetRef, value: &[f32; 4]) {
        let Some(Some(array)) = self.arrays.get_mut(r.list() as usize) else {
            return;
        };
        let Some(&e) = array.list.entries.get(r.entry as usize) else {
            return;
        };
        if let Some(dst) = array.data.get_mut(e.first()..e.first() + e.lanes()) {
            dst.copy_from_slice(&value[..e.lanes()]);
        }
    }

    /// Copies every entry's value from the output columns into its array.
    pub fn fill(&mut self, outputs: &[Vec<f32>; 4]) {
        let len = outputs[0].len();
        self.fill_rows(0..len, outputs.each_ref().map(Vec::as_slice), len);
    }

    /// Copies the values of the entries whose rows are in `rows` (of a table of `len` rows):
    /// an update's calls go up by row and cover `0..len` once, each after the outputs of its
    /// rows (and those before) were written. An array whose runs do not go up by row, or
    /// that is filled entry by entry, is filled whole at the last range.
    pub fn fill_rows(&mut self, rows: Range<usize>, outputs: [&[f32]; 4], len: usize) {
        if self.len == 0 {
            return;
        }
        for array in self.arrays.iter_mut().flatten() {
            if rows.start == 0 {
                array.plan_fill();
            }
            if array.plan == Plan::Runs && array.ascending {
                array.fill_runs_in(&rows, &outputs);
            } else if rows.end == len {
                array.fill_whole(&outputs);
            }
        }
    }

    /// The rows and slots of every targeting motion (the GPU executor reads them back).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))] // the GPU executor's
    pub fn motions(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.arrays
            .iter()
            .flatten()
            .flat_map(|a| a.list.entries.iter().zip(&a.list.owners))
            .map(|(e, &slot)| (e.row, slot))
    }

    /// Forgets every motion's entry (the arrays stay registered, with their contents).
    pub fn clear_entries(&mut self) {
        for array in self.arrays.iter_mut().flatten() {
            array.list.clear();
            array.plan = Plan::Stale;
        }
        self.len = 0;
    }
}

impl TargetLists for HostTargets {
    fn list_mut(&mut self, list: u32) -> Option<&mut TargetList> {
        Some(&mut self.arrays.get_mut(list as usize)?.as_mut()?.list)
    }

    fn count_mut(&mut self) -> &mut usize {
        &mut self.len
    }
}

impl HostArray {
    /// Settles how this update fills the array (before its first range).
    fn plan_fill(&mut self) {
        // (`dirty` is the GPU lists' upload range; here it says "changed since last looked".)
        if self.list.dirty.take().is_some() {
            self.plan = Plan::Stale;
        } else if self.plan == Plan::Stale {
            (self.plan, self.ascending) = build_runs(&self.list.entries, &mut self.runs);
        }
        self.next_run = 0;
    }

    fn fill_whole(&mut self, outputs: &[&[f32]; 4]) {
        match self.plan {
            Plan::Runs => {
                for run in &self.runs {
                    fill_run(&mut self.data, run, outputs);
                }
            }
            Plan::Stale | Plan::Entries => {
                fill_entries(&mut self.data, &self.list.entries, outputs)
            }
        }
    }

    /// Fills the parts of the runs (which go up by row) that lie in `rows`.
    fn fill_runs_in(&mut self, rows: &Range<usize>, outputs: &[&[f32]; 4]) {
        while let Some(run) = self.runs.get(self.next_run) {
            let (start, end) = (run.row as usize, (run.row + run.count) as usize);
            if start >= rows.end {
                return;
            }
            let skip = rows.start.saturating_sub(start);
            let count = end.min(rows.end) - start - skip;
            let part = Run {
                row: (start + skip) as u32,
                first: run.first + skip as u32 * run.stride,
                count: count as u32,
                ..*run
            };
            fill_run(&mut self.data, &part, outputs);
            if end > rows.end {
                return; // the rest in the next range
            }
            self.next_run += 1;
        }
    }
}

/// Merges `entries` into `runs` in entry order; returns the plan they make, and whether the
/// runs go up by row (each starts after the previous one ends).
fn build_runs(entries: &[TargetEntry], runs: &mut Vec<Run>) -> (Plan, bool) {
    runs.clear();
    for e in entries {
        let (row, first, lanes) = (e.row, e.first() as u32, e.lanes() as u32);
        if let Some(r) = runs.last_mut() {
            if r.lanes == lanes && r.row + r.count == row {
                // (Elements at least a value apart: runs never overlap themselves.)
                if r.count == 1 && first >= r.first + lanes {
                    r.stride = first - r.first;
                    r.count = 2;
                    continue;
                }
                if r.count > 1 && r.first + r.count * r.stride == first {
                    r.count += 1;
                    continue;
                }
            }
        }
        runs.push(Run {
            row,
            first,
            count: 1,
            stride: lanes,
            lanes,
        });
    }
    if runs.capacity() > 64 && runs.len() * 4 <= runs.capacity() {
        runs.shrink_to(runs.len() * 2);
    }
    let ascending = runs.windows(2).all(|w| w[0].row + w[0].count <= w[1].row);
    let plan = if runs.len() * MIN_MEAN_RUN > entries.len() {
        Plan::Entries
    } else {
        Plan::Runs
    };
    (plan, ascending)
}

/// Copies one run's values. Entries were checked against the array when added and the
/// output columns are as long as the table, so the slices never miss; `get` keeps that a
/// skipped run rather than a panic should it ever not hold.
fn fill_run(data: &mut [f32], run: &Run, outputs: &[&[f32]; 4]) {
    let (row, count) = (run.row as usize, run.count as usize);
    let (first, stride) = (run.first as usize, run.stride as usize);
    let end = first + (count - 1) * stride + run.lanes as usize;
    let Some(dst) = data.get_mut(first..end) else {
        return;
    };
    for (k, column) in outputs.iter().enumerate().take(run.lanes as usize) {
        let Some(src) = column.get(row..row + count) else {
            return;
        };
        if stride == 1 {
            dst.copy_from_slice(src); // one lane, packed
        } else {
            for (d, &x) in dst[k..].iter_mut().step_by(stride).zip(src) {
                *d = x;
            }
        }
    }
}

/// The entry loop (see [`fill_run`] on the `get`s).
fn fill_entries(data: &mut [f32], entries: &[TargetEntry], outputs: &[&[f32]; 4]) {
    let [o0, o1, o2, o3] = outputs;
    for e in entries {
        let (row, first) = (e.row as usize, e.first());
        match e.lanes() {
            1 => {
                if let (Some(d), Some(&x)) = (data.get_mut(first), o0.get(row)) {
                    *d = x;
                }
            }
            lanes => {
                let Some(dst) = data.get_mut(first..first + lanes) else {
                    continue;
                };
                for (d, column) in dst.iter_mut().zip([o0, o1, o2, o3]) {
                    if let Some(&x) = column.get(row) {
                        *d = x;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outputs of `rows` rows: lane `k` of row `r` is `r + k / 10`.
    fn outputs(rows: usize) -> [Vec<f32>; 4] {
        std::array::from_fn(|k| (0..rows).map(|r| r as f32 + k as f32 / 10.0).collect())
    }

    fn columns(out: &[Vec<f32>; 4]) -> [&[f32]; 4] {
        out.each_ref().map(Vec::as_slice)
    }

    #[test]
    fn runs_merge_consecutive_rows_and_elements() {
        let e = TargetEntry::new;
        let entries = [
            e(0, 0, 1),
            e(1, 1, 1),
            e(2, 2, 1),
            e(3, 10, 3), // another lane count
            e(4, 14, 3), // stride 4
            e(5, 18, 3),
            e(9, 22, 3), // not the next row
        ];
        let mut runs = Vec::new();
        assert_eq!(build_runs(&entries, &mut runs), (Plan::Entries, true));
        let run = |row, first, count, stride, lanes| Run {
            row,
            first,
            count,
            stride,
            lanes,
        };
        assert_eq!(
            runs,
            [run(0, 0, 3, 1, 1), run(3, 10, 3, 4, 3), run(9, 22, 1, 3, 3)]
        );
    }

    #[test]
    fn runs_and_entries_fill_the_same_values() {
        let out = outputs(64);
        // Rows 0..20 as vec3s at stride 5 offset 1, then rows 40..30 (descending) as
        // f32s from 200, then rows 20..30 packed as vec2s from 300.
        let mut entries: Vec<TargetEntry> =
            (0..20).map(|r| TargetEntry::new(r, 1 + 5 * r, 3)).collect();
        entries.extend((0..10).map(|j| TargetEntry::new(40 - j, 200 + j, 1)));
        entries.extend((0..10).map(|j| TargetEntry::new(20 + j, 300 + 2 * j, 2)));
        let mut by_entries = vec![-1.0; 400];
        fill_entries(&mut by_entries, &entries, &columns(&out));
        // Hand-worked: element 2's vec3 is row 2's lanes; the descending block; a vec2.
        assert_eq!(&by_entries[11..14], &[2.0, 2.1, 2.2]);
        assert_eq!(&by_entries[200..202], &[40.0, 39.0]);
        assert_eq!(&by_entries[302..304], &[21.0, 21.1]);
        assert_eq!(by_entries[0], -1.0);
        let mut runs = Vec::new();
        let (_, ascending) = build_runs(&entries, &mut runs);
        assert!(!ascending, "rows 40..30 go down");
        let mut by_runs = vec![-1.0; 400];
        for run in &runs {
            fill_run(&mut by_runs, run, &columns(&out));
        }
        assert_eq!(by_runs, by_entries);
    }

    /// An array of `len` elements whose motion `j` (row `rows[j]`) writes element `j`.
    fn targets(len: usize, rows: impl Iterator<Item = u32>) -> HostTargets {
        let mut targets = HostTargets::default();
        let list = targets.register(len).expect("a small array");
        for (j, row) in rows.enumerate() {
            targets.add(list, j as u32, TargetEntry::new(row, j as u32, 1));
        }
        targets
    }

    #[test]
    fn tiles_fill_what_one_pass_fills() {
        let out = outputs(100);
        // Runs of 30 rows (ascending, so filled tile by tile), split by tiles of 16 rows.
        let mut tiled = targets(100, 0..100);
        let mut whole = targets(100, 0..100);
        for targets in [&mut tiled, &mut whole] {
            targets.fill(&out); // the first fill builds the runs; the next ones use them
        }
        let fresh = outputs(100).map(|c| c.iter().map(|x| x + 1000.0).collect::<Vec<_>>());
        for start in (0..100).step_by(16) {
            tiled.fill_rows(start..(start + 16).min(100), columns(&fresh), 100);
        }
        whole.fill(&fresh);
        assert_eq!(tiled.get(0), whole.get(0));
        // Hand-worked: element j holds row j's lane 0 of the fresh outputs.
        assert_eq!(
            &tiled.get(0).expect("registered")[15..18],
            &[1015.0, 1016.0, 1017.0]
        );
        // Rows that go down are filled whole, at the last range only.
        let mut down = targets(100, (0..100).rev());
        down.fill(&out);
        down.fill_rows(0..50, columns(&fresh), 100);
        assert_eq!(
            down.get(0).expect("registered")[0],
            99.0,
            "not filled before the end"
        );
        down.fill_rows(50..100, columns(&fresh), 100);
        assert_eq!(down.get(0).expect("registered")[0], 1099.0);
    }
}
