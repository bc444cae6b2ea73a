//! The CPU executor: evaluates every row's value into the output columns chunk by chunk,
//! split across cores above a size threshold. Rows inside their cached segment (`cache`)
//! take a short SIMD loop; the others, and chunks the cache does not serve, take the exact
//! reference ([`progress`]) or the batch loop (`batch`).

mod batch;
mod cache;
mod fast_ease;

mod lanes;
mod pool;
mod segment;
#[cfg(test)]
pub(crate) mod test_rng;

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::core::row::MotionRow;
use crate::table::rows::Rows;
use cache::{Cache, CachePtr};
use pool::WorkerPool;

pub(crate) use crate::eval::Progress;

/// Rows per thread below which splitting costs more than it saves: waking a parked thread and
/// waiting for it is ~10–30 µs on an idle machine (more when the other cores are busy), and a
/// row inside its segment costs under 1 ns. With `benches/cpu.rs` on 2 cores, 100k rows on two
/// threads were no faster than on one when idle and 40–60% slower on a busy machine; so a
/// second thread from 128k cached rows (see [`BATCH_ROW_WEIGHT`] for the others).
const ROWS_PER_PART: usize = 65_536;

/// Rows per tile of a one-thread pass that hands its outputs on as it goes
/// ([`CpuExecutor::evaluate`]): 64 KB per output lane, in L2 when they are read.
const TILE_ROWS: usize = 16 * 1024;
const _: () = assert!(
    TILE_ROWS.is_multiple_of(batch::CHUNK),
    "tiles start on chunk boundaries"
);

/// What reads a pass's outputs as it goes: a range of rows, and the output columns (only
/// the range's elements, and those before it, hold this update's values).
pub(crate) type AfterRows<'a> = &'a mut dyn FnMut(std::ops::Range<usize>, [&[f32]; 4]);

/// How many cached rows one row on the batch path (chunks mixing eases or loop types,
/// parametric eases, sequence children...) costs: 20–60 ns against about 1 ns (the benchmark
/// binary's mixed workload against `benches/cpu.rs`), so a world of such rows takes a second
/// thread from a few thousand rows.
const BATCH_ROW_WEIGHT: usize = 32;

/// The CPU executor. Owned by a [`MotionWorld`](crate::MotionWorld).
pub(crate) struct CpuExecutor {
    threads: usize,
    pool: Option<WorkerPool>,
    /// The segment cache, one entry per chunk of rows (see [`cache`]).
    cache: Cache,
    /// Rows the last update evaluated on the batch path: with the row count, the estimate of
    /// this update's work that decides how many threads share it.
    batch_rows: usize,
    /// Rows at the last update: a chunk that gained or lost rows at the table's end (a
    /// removal pops the last row, which may have been in place) is classified again.
    rows_seen: usize,
}

/// The most threads the executor uses: the machine's available parallelism, but at least 2
/// (so that the threaded path can run, and be tested, on one core). On the web, one: wasm32
/// has no threads.
pub(crate) fn max_threads() -> usize {
    if cfg!(target_arch = "wasm32") {
        return 1;
    }
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .max(2)
}

impl CpuExecutor {
    pub fn new() -> Self {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        Self {
            threads,
            pool: None,
            cache: Cache::default(),
            batch_rows: 0,
            rows_seen: 0,
        }
    }

    /// Uses at most `threads` threads, clamped to `1..=max_threads()`; 1 evaluates on the
    /// calling thread only.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.clamp(1, max_threads());
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

    /// Releases the segment cache of an empty world (which is not evaluated, so the cache
    /// would otherwise keep its peak size).
    pub fn release_idle(&mut self) {
        self.cache.resize(0);
    }

    /// Writes every row's value at world clocks `now` into `rows.outputs`, then hands the
    /// rows to `after` as ascending ranges that cover them once: on one thread, a tile of
    /// [`TILE_ROWS`] at a time, so that `after` reads outputs still in cache (a host target's
    /// copy then costs a store per value, not a second trip to memory); on several, all of
    /// them when every part is done.
    pub fn evaluate(&mut self, rows: &mut Rows, now: &[f64], after: Option<AfterRows<'_>>) {
        let len = rows.len();
        self.sync_cache(rows);
        let cache = self.cache.ptr();
        let work = len + self.batch_rows.min(len) * (BATCH_ROW_WEIGHT - 1);
        let parts = self.threads.min(work / ROWS_PER_PART).max(1);
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
            let Some(after) = after else {
                // SAFETY: the whole range, on this thread only.
                let batch_chunks = unsafe { evaluate_range(&inputs, outputs, cache, 0..len, now) };
                self.batch_rows = batch_chunks * batch::CHUNK;
                return;
            };
            let mut batch_chunks = 0;
            for start in (0..len).step_by(TILE_ROWS) {
                let tile = start..(start + TILE_ROWS).min(len);
                // SAFETY: a range of whole chunks, on this thread only; the outputs are read
                // below only after the call has returned.
                batch_chunks +=
                    unsafe { evaluate_range(&inputs, outputs, cache, tile.clone(), now) };
                // SAFETY: `outputs` point at the columns' buffers, each at least `len` long,
                // and nothing writes them until the next tile.
                let columns = outputs.map(|c| unsafe { std::slice::from_raw_parts(c.0, len) });
                after(tile, columns);
            }
            self.batch_rows = batch_chunks * batch::CHUNK;
            return;
        }
        let pool = self
            .pool
            .get_or_insert_with(|| WorkerPool::new(self.threads - 1));
        let parts = pool.parts();
        // Part boundaries on chunk multiples keep every chunk whole.
        let chunk = len.div_ceil(parts).div_ceil(batch::CHUNK) * batch::CHUNK;
        let batch_chunks = AtomicUsize::new(0);
        pool.run(&|part| {
            let start = (part * chunk).min(len);
            let end = (start + chunk).min(len);
            // SAFETY: parts write disjoint ranges of the output columns and disjoint chunks of
            // the cache (ranges start on chunk multiples), which stay alive and unaliased
            // until `run` returns.
            let n = unsafe { evaluate_range(&inputs, outputs, cache, start..end, now) };
            batch_chunks.fetch_add(n, Ordering::Relaxed);
        });
        self.batch_rows = batch_chunks.into_inner() * batch::CHUNK;
        if let Some(after) = after {
            after(0..len, rows.outputs.each_ref().map(Vec::as_slice));
        }
    }
}

impl CpuExecutor {
    /// Sizes the cache to the rows and drops the segments of the rows that changed.
    fn sync_cache(&mut self, rows: &mut Rows) {
        let len = rows.len();
        self.cache.resize(len.div_ceil(batch::CHUNK));
        let touched = &mut rows.touched;
        if touched.all {
            self.cache.invalidate();
        } else {
            for &i in &touched.rows {
                let i = i as usize;
                if i < len {
                    self.cache.invalidate_row(i);
                }
            }
        }
        touched.drained(len);
        if len != self.rows_seen {
            // The chunks that held the old and the new last row (their row counts changed).
            for end in [len, self.rows_seen.min(len)] {
                if end > 0 {
                    self.cache.invalidate_row(end - 1);
                }
            }
            self.rows_seen = len;
        }
    }
}

struct Inputs<'a> {
    rows: &'a [MotionRow],
    lanes: [&'a [[f32; 2]]; 6],
    /// The curve key table.
    keys: &'a [crate::core::curve::GpuKey],
}

/// A raw output column pointer that parts share, each writing its own range.
#[derive(Clone, Copy)]
struct OutPtr(*mut f32);
// SAFETY: only dereferenced at disjoint ranges (see `evaluate_range`).
unsafe impl Send for OutPtr {}
unsafe impl Sync for OutPtr {}

/// Evaluates `range` of the rows into the same range of the output columns, chunk by chunk,
/// with AVX2 where the CPU has it (the hot loops then take eight rows per instruction instead
/// of four; the results are the same, IEEE operations lane by lane and no fused multiply-add).
/// Returns how many chunks took the batch path.
///
/// # Safety
/// `range.start` must be a multiple of [`batch::CHUNK`]; every output column must have at
/// least `range.end` elements and the cache at least `range.end.div_ceil(CHUNK)` chunks; no
/// other thread may touch `range` of the columns or those chunks during the call.
unsafe fn evaluate_range(
    inputs: &Inputs<'_>,
    outputs: [OutPtr; 4],
    cache: CachePtr,
    range: std::ops::Range<usize>,
    now: &[f64],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2; the rest per this function's contract.
        return unsafe { evaluate_range_avx2(inputs, outputs, cache, range, now) };
    }
    // SAFETY: per the contract.
    unsafe { evaluate_range_with::<false>(inputs, outputs, cache, range, now) }
}

/// [`evaluate_range_with`] compiled for AVX2.
///
/// # Safety
/// As [`evaluate_range`], on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn evaluate_range_avx2(
    inputs: &Inputs<'_>,
    outputs: [OutPtr; 4],
    cache: CachePtr,
    range: std::ops::Range<usize>,
    now: &[f64],
) -> usize {
    // SAFETY: per the contract.
    unsafe { evaluate_range_with::<true>(inputs, outputs, cache, range, now) }
}

/// The body of [`evaluate_range`], inlined into each instruction set's version; `AVX2` says
/// which (it lets the hot loops use instructions the baseline lacks, see
/// `cache::evaluate_chunk`).
///
/// # Safety
/// As [`evaluate_range`].
#[inline(always)]
unsafe fn evaluate_range_with<const AVX2: bool>(
    inputs: &Inputs<'_>,
    outputs: [OutPtr; 4],
    cache: CachePtr,
    range: std::ops::Range<usize>,
    now: &[f64],
) -> usize {
    debug_assert_eq!(range.start % batch::CHUNK, 0);
    let mut batch_chunks = 0;
    let last = range.end.div_ceil(batch::CHUNK);
    let mut scratch = cache::Scratch::default();
    for start in range.clone().step_by(batch::CHUNK) {
        let end = (start + batch::CHUNK).min(range.end);
        // A refresh's reads miss (the hot loop does not touch them): ask for them two and
        // one chunks ahead, the `hi` column then the rows it names.
        let index = start / batch::CHUNK;
        // SAFETY: chunks of this range, not the one in use.
        unsafe {
            if index + 2 < last {
                cache.prefetch(index + 2, None, now);
            }
            if index + 1 < last {
                let next = end..(end + batch::CHUNK).min(range.end);
                cache.prefetch(index + 1, Some(&inputs.rows[next]), now);
            }
        }
        let len = end - start;
        // SAFETY: per the contract, these elements and this chunk are ours alone and in
        // bounds.
        let column = |c: OutPtr| unsafe { std::slice::from_raw_parts_mut(c.0.add(start), len) };
        let [o0, o1, o2, o3] = outputs;
        let l = &inputs.lanes;
        let chunk = unsafe { cache.chunk(index) };
        batch_chunks += usize::from(cache::evaluate_chunk::<AVX2>(
            chunk,
            index,
            &inputs.rows[start..end],
            // Arrays spelled out: `array::map` was not inlined here.
            batch::Columns {
                lanes: [
                    &l[0][start..end],
                    &l[1][start..end],
                    &l[2][start..end],
                    &l[3][start..end],
                    &l[4][start..end],
                    &l[5][start..end],
                ],
                outputs: [column(o0), column(o1), column(o2), column(o3)],
                keys: inputs.keys,
            },
            now,
            &mut scratch,
        ));
    }
    batch_chunks
}
