//! Host targets: f32 arrays owned by the world that motions write their values into.
//!
//! Per-frame protocol: the world edits the lists as motions come and go (`add`, `remove`,
//! `set_row`) and writes a finishing motion's final value at once ([`HostTargets::write`]);
//! after the executor has produced this update's outputs (the CPU executor's, or the GPU
//! executor's readback), [`HostTargets::fill`] copies every entry's value into its array.
//!
//! The fill is a copy from the output columns (one per lane) into the array. Entry by
//! entry it costs a few ns per motion (a gather), as much as evaluating the motion. But
//! motions created in order usually sit in consecutive rows and write consecutive
//! elements, so an array whose entries have not changed for an update is filled by *runs*:
//! entries merged while their rows and elements are consecutive, each run a slice copy (a
//! `memcpy` for one lane at stride 1). Runs are rebuilt (O(entries), no allocation once
//! grown) in the first update after changes; an update with changes, or a list whose runs
//! are short (churn scrambles rows and entries), takes the entry loop.

use super::targets::{TargetEntry, TargetList, TargetLists, TargetRef};

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
}

/// How an array is filled this update.
#[derive(Clone, Copy, PartialEq, Eq)]
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

/// Below this many entries per run on average, the entry loop is as fast.
const MIN_MEAN_RUN: usize = 8;

impl HostTargets {
    /// Registers an array of `len` zeros; returns its index.
    pub fn register(&mut self, len: usize) -> u32 {
        self.arrays.push(Some(HostArray {
            data: vec![0.0; len],
            list: TargetList::default(),
            runs: Vec::new(),
            plan: Plan::Stale,
        }));
        self.arrays.len() as u32 - 1
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
        if self.len == 0 {
            return;
        }
        for array in self.arrays.iter_mut().flatten() {
            array.fill(outputs);
        }
    }

    /// The rows and slots of every targeting motion (the GPU executor reads them back).
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
    fn fill(&mut self, outputs: &[Vec<f32>; 4]) {
        // (`dirty` is the GPU lists' upload range; here it says "changed since last looked".)
        if self.list.dirty.take().is_some() {
            self.plan = Plan::Stale;
        } else if self.plan == Plan::Stale {
            self.plan = build_runs(&self.list.entries, &mut self.runs);
        }
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
}

/// Merges `entries` into `runs` in entry order; returns the plan they make.
fn build_runs(entries: &[TargetEntry], runs: &mut Vec<Run>) -> Plan {
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
    if runs.len() * MIN_MEAN_RUN > entries.len() {
        Plan::Entries
    } else {
        Plan::Runs
    }
}

/// Copies one run's values. Entries were checked against the array when added and the
/// output columns are as long as the table, so the slices never miss; `get` keeps that a
/// skipped run rather than a panic should it ever not hold.
fn fill_run(data: &mut [f32], run: &Run, outputs: &[Vec<f32>; 4]) {
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
fn fill_entries(data: &mut [f32], entries: &[TargetEntry], outputs: &[Vec<f32>; 4]) {
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
        build_runs(&entries, &mut runs);
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
        fill_entries(&mut by_entries, &entries, &out);
        // Hand-worked: element 2's vec3 is row 2's lanes; the descending block; a vec2.
        assert_eq!(&by_entries[11..14], &[2.0, 2.1, 2.2]);
        assert_eq!(&by_entries[200..202], &[40.0, 39.0]);
        assert_eq!(&by_entries[302..304], &[21.0, 21.1]);
        assert_eq!(by_entries[0], -1.0);
        let mut runs = Vec::new();
        build_runs(&entries, &mut runs);
        let mut by_runs = vec![-1.0; 400];
        for run in &runs {
            fill_run(&mut by_runs, run, &out);
        }
        assert_eq!(by_runs, by_entries);
    }
}
