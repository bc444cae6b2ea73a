//! The CPU executor: evaluates every row's value into the output columns in one tight loop,
//! split across cores above a size threshold.

mod batch;
pub mod evaluate;
mod pool;

use crate::row::MotionRow;
use crate::world::rows::Rows;
use pool::WorkerPool;

pub use evaluate::{progress, Progress};

/// Rows per thread below which splitting costs more than it saves (waking a parked thread
/// is ~10–30 µs; one row is a few ns). Measured with `benches/cpu.rs` on 2 cores.
const ROWS_PER_PART: usize = 16_384;

/// The CPU executor. Owned by a [`MotionWorld`](crate::MotionWorld).
pub(crate) struct CpuExecutor {
    threads: usize,
    pool: Option<WorkerPool>,
}

impl CpuExecutor {
    pub fn new() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        Self {
            threads,
            pool: None,
        }
    }

    /// Uses at most `threads` threads (≥ 1); 1 evaluates on the calling thread only.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
        if self
            .pool
            .as_ref()
            .is_some_and(|p| p.parts() != self.threads)
        {
            self.pool = None;
        }
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Writes every row's value at world clocks `now` into `rows.outputs`.
    pub fn evaluate(&mut self, rows: &mut Rows, now: &[f64; 3]) {
        let len = rows.len();
        let parts = self.threads.min(len / ROWS_PER_PART).max(1);
        let [o0, o1, o2, o3] = &mut rows.outputs;
        let outputs = [
            OutPtr(o0.as_mut_ptr()),
            OutPtr(o1.as_mut_ptr()),
            OutPtr(o2.as_mut_ptr()),
            OutPtr(o3.as_mut_ptr()),
        ];
        let inputs = Inputs {
            rows: &rows.rows,
            lanes: [
                &rows.lanes[0],
                &rows.lanes[1],
                &rows.lanes[2],
                &rows.lanes[3],
                &rows.lanes[4],
                &rows.lanes[5],
            ],
            keys: rows.curves.keys(),
        };
        if parts == 1 {
            // SAFETY: the whole range, on this thread only.
            unsafe { evaluate_range(&inputs, outputs, 0..len, now) };
            return;
        }
        let pool = self
            .pool
            .get_or_insert_with(|| WorkerPool::new(self.threads - 1));
        let parts = pool.parts();
        // Part boundaries on chunk multiples keep every chunk whole.
        let chunk = len.div_ceil(parts).div_ceil(batch::CHUNK) * batch::CHUNK;
        pool.run(&|part| {
            let start = (part * chunk).min(len);
            let end = (start + chunk).min(len);
            // SAFETY: parts write disjoint ranges of the output columns, which stay alive and
            // unaliased until `run` returns.
            unsafe { evaluate_range(&inputs, outputs, start..end, now) };
        });
    }
}

struct Inputs<'a> {
    rows: &'a [MotionRow],
    lanes: [&'a [[f32; 2]]; 6],
    /// The curve key table.
    keys: &'a [crate::curve::GpuKey],
}

/// A raw output column pointer that parts share, each writing its own range.
#[derive(Clone, Copy)]
struct OutPtr(*mut f32);
// SAFETY: only dereferenced at disjoint ranges (see `evaluate_range`).
unsafe impl Send for OutPtr {}
unsafe impl Sync for OutPtr {}

/// Evaluates `range` of the rows into the same range of the output columns.
///
/// # Safety
/// Every output column must have at least `range.end` elements, and no other thread may
/// touch `range` of them during the call.
unsafe fn evaluate_range(
    inputs: &Inputs<'_>,
    outputs: [OutPtr; 4],
    range: std::ops::Range<usize>,
    now: &[f64; 3],
) {
    let len = range.len();
    // SAFETY: per the contract, `range` of each column is ours alone and in bounds.
    let start = range.start;
    let column = |c: OutPtr| unsafe { std::slice::from_raw_parts_mut(c.0.add(start), len) };
    let r = range.clone();
    batch::evaluate(
        &inputs.rows[range],
        batch::Columns {
            lanes: inputs.lanes.map(|l| &l[r.clone()]),
            outputs: outputs.map(column),
            keys: inputs.keys,
        },
        now,
    );
}
