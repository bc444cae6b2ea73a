//! The segment cache: per chunk of 64 rows, each row's current [`Segment`] in compact f32
//! columns relative to the chunk's epoch, so that an update of a row inside its segment reads
//! 8 bytes of cache (`r`, `c`) and its lane pair instead of the 32-byte row, and evaluates
//! `x = w·r + c`, the ease and the lerp instead of the f64 clock and loop arithmetic.
//!
//! Rows outside their segment (loop ends, completion, new or re-anchored rows) take the exact
//! path, [`progress`], which also gives them their next segment; in chunks whose rows loop
//! forward, a segment serves every loop of the epoch, every-loop delays included ([`fold`]),
//! and only rows at a loop boundary take the exact path. A chunk is up to
//! [`GROUPS`](classify::GROUPS) runs of rows of one ease and loop type (the table keeps rows
//! grouped by configuration, so most chunks are one run, and a chunk where two groups meet is
//! two), each eased by its own loop; parametric eases (Back, Elastic, cubic-bezier) read their
//! rows' parameters there. A chunk whose rows do not share a time kind, that has more runs,
//! or rows the cache does not serve (Circ eases, steps, curves, parametric eases steeper than
//! [`MAX_STEEPNESS`](classify::MAX_STEEPNESS), sequence children), keeps the batch path
//! ([`super::batch`]); [`classify`] decides.

use super::batch::{self, Columns, CHUNK};
use super::lanes::{AdapterMasks, QuatColumns};
use super::segment::{self, Segment};
use crate::core::ease::Ease;
use crate::core::row::MotionRow;
use crate::eval::clock::progress;
use crate::table::rows::prefetch;
use classify::Groups;
use ease::{eased, Params};
use refresh::{due_mask, min_of, refresh, same_timing, segment_eased};

/// Relative world time (seconds) after which a chunk is re-based whatever its rows: keeps the
/// f32 relative times precise to < 4e-6 s (see `segment::TIME_MARGIN`).
pub(crate) const REBASE_MAX_S: f64 = 32.0;

/// Re-base once `w_rel · max|r|` (progress units) reaches this: bounds the rounding error of
/// `x = w·r + c` to about `3·PRECISION_SPAN·2⁻²⁴ ≈ 1e-6`, well inside the conformance
/// tolerance even for the steepest standard ease (Elastic, slope ≈ 30).
const PRECISION_SPAN: f64 = 4.0;

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Served by the cache.
    Fast,
    /// Served by the batch path.
    Slow,
}

/// One f32 per row of a chunk, on its own cache lines.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Column(pub [f32; CHUNK]);

/// The cache, as columns of chunks: the hot loop reads only `heads` (one line per chunk),
/// `c` and, where the rows do not share one, `r`; `hi` and `off` are read at segment ends
/// and for Flip and Incremental, `theta` and `inv_sin` where the chunk has quaternion rows.
#[derive(Default)]
pub(crate) struct Cache {
    pub heads: Vec<Head>,
    pub r: Vec<Column>,
    pub c: Vec<Column>,
    pub hi: Vec<Column>,
    pub off: Vec<Column>,
    /// The constants of the chunk's quaternion rows ([`QuatColumns`]), found with its
    /// [`AdapterMasks`]: the value pass then reads no row.
    pub theta: Vec<Column>,
    /// See `theta`.
    pub inv_sin: Vec<Column>,
    /// Each row's [`segment::span`], read by chunks that fold every-loop delays
    /// ([`Head::every`]).
    pub span: Vec<Column>,
}

impl Cache {
    /// `chunks` chunks; new ones start unclassified.
    pub fn resize(&mut self, chunks: usize) {
        // Shrink with hysteresis (as the rows do); growing only when the rows grow keeps
        // steady-state updates free of allocation.
        if self.heads.capacity() > 64 && chunks * 4 <= self.heads.capacity() {
            let target = (chunks * 2).max(64);
            self.heads.truncate(chunks);
            self.heads.shrink_to(target);
            for column in [
                &mut self.r,
                &mut self.c,
                &mut self.hi,
                &mut self.off,
                &mut self.theta,
                &mut self.inv_sin,
                &mut self.span,
            ] {
                column.truncate(chunks);
                column.shrink_to(target);
            }
        }
        self.heads.resize(chunks, Head::default());
        let zero = Column([0.0; CHUNK]);
        self.r.resize(chunks, zero);
        self.c.resize(chunks, zero);
        self.hi.resize(chunks, Column([f32::NEG_INFINITY; CHUNK]));
        self.off.resize(chunks, zero);
        self.theta.resize(chunks, zero);
        self.inv_sin.resize(chunks, zero);
        self.span.resize(chunks, Column([1.0; CHUNK]));
    }

    /// Row `i` changed.
    pub fn invalidate_row(&mut self, i: usize) {
        let head = &mut self.heads[i / CHUNK];
        head.dirty = true;
        head.min_hi = f32::NEG_INFINITY;
        self.hi[i / CHUNK].0[i % CHUNK] = f32::NEG_INFINITY;
    }

    /// Anything may have changed.
    pub fn invalidate(&mut self) {
        for head in &mut self.heads {
            head.dirty = true;
            head.rebase_at = -1.0; // re-based (every row refreshed) on next use
        }
    }

    /// Raw pointers for parts that each use their own chunks.
    pub fn ptr(&mut self) -> CachePtr {
        CachePtr {
            heads: self.heads.as_mut_ptr(),
            r: self.r.as_mut_ptr(),
            c: self.c.as_mut_ptr(),
            hi: self.hi.as_mut_ptr(),
            off: self.off.as_mut_ptr(),
            theta: self.theta.as_mut_ptr(),
            inv_sin: self.inv_sin.as_mut_ptr(),
            span: self.span.as_mut_ptr(),
        }
    }
}

/// [`Cache`]'s columns, shared by parts that each use their own chunks.
#[derive(Clone, Copy)]
pub(crate) struct CachePtr {
    heads: *mut Head,
    r: *mut Column,
    c: *mut Column,
    hi: *mut Column,
    off: *mut Column,
    theta: *mut Column,
    inv_sin: *mut Column,
    span: *mut Column,
}
// SAFETY: only dereferenced at disjoint chunks (see `CachePtr::chunk`).
unsafe impl Send for CachePtr {}
unsafe impl Sync for CachePtr {}

impl CachePtr {
    /// Chunk `index`.
    ///
    /// # Safety
    /// `index` must be in bounds of the cache this came from, which must outlive `'a`, and
    /// nothing else may use that chunk during `'a`.
    pub unsafe fn chunk<'a>(self, index: usize) -> Chunk<'a> {
        // SAFETY: per the contract.
        unsafe {
            Chunk {
                head: &mut *self.heads.add(index),
                r: &mut (*self.r.add(index)).0,
                c: &mut (*self.c.add(index)).0,
                hi: &mut (*self.hi.add(index)).0,
                off: &mut (*self.off.add(index)).0,
                theta: &mut (*self.theta.add(index)).0,
                inv_sin: &mut (*self.inv_sin.add(index)).0,
                span: &mut (*self.span.add(index)).0,
            }
        }
    }
}

impl CachePtr {
    /// Prefetches what chunk `index`'s refresh will read, ahead of time, so that the misses
    /// overlap the hot loop of the chunks before it: with `rows` `None` its `hi` column, with
    /// its rows (`rows` of the chunk) the rows that are due. Nothing when it has no row due.
    ///
    /// A folding chunk ([`Head::derive`]) reads its rows only at the rare boundary or
    /// dropped segment: only its `hi` column is prefetched.
    ///
    /// # Safety
    /// As [`chunk`](Self::chunk), for the duration of the call.
    #[inline(always)]
    pub unsafe fn prefetch(self, index: usize, rows: Option<&[MotionRow]>, now: &[f64]) {
        // SAFETY: per the contract.
        let (head, hi) = unsafe { (&*self.heads.add(index), &(*self.hi.add(index)).0) };
        if head.dirty || head.state != State::Fast || (rows.is_some() && head.derive) {
            return;
        }
        let w = now[head.kind as usize] - head.epoch;
        if !(w >= 0.0 && w < head.rebase_at) {
            return;
        }
        let w = w as f32;
        if w < head.min_hi {
            return;
        }
        match rows {
            None => {
                for line in hi.chunks(16) {
                    prefetch(line.as_ptr());
                }
            }
            Some(rows) => {
                let mut bits = due_mask(hi, w, rows.len());
                while bits != 0 {
                    prefetch(&rows[bits.trailing_zeros() as usize]);
                    bits &= bits - 1;
                }
            }
        }
    }
}

/// The per-chunk state of the cache.
#[derive(Clone, Copy)]
pub(crate) struct Head {
    epoch: f64,
    /// Relative world time at which the chunk is re-based.
    rebase_at: f64,
    /// Smallest `hi` of the chunk: below it no row needs the exact path.
    min_hi: f32,
    /// Largest `|r|` since the last re-base.
    max_r: f32,
    state: State,
    /// Rows changed since `state` was decided.
    dirty: bool,
    /// Every row has `r[0]` (and `c[0]`, `off[0]`): read one instead of the columns.
    same_r: bool,
    same_all: bool,
    /// Clock (table index) of every row, and the runs of one ease and loop type (Fast only).
    kind: u8,
    groups: Groups,
    /// Lanes of the chunk's widest row (`batch::lane_count`).
    lanes: u8,
    /// The rows with another adapter than lerp (found by `classify`).
    adapters: AdapterMasks,
    /// Every row loops forward (finite or not), with no every-loop delay or one of at most
    /// [`MAX_GAP`] loops: the hot loop folds whole loops (and delays) into each row's
    /// segment ([`fold`]), and a re-base moves the segments along ([`segment::rebased`]).
    derive: bool,
    /// `derive`, and some row has an every-loop delay: the hot loop reads `span`.
    every: bool,
    /// Some run has a parametric ease: the hot loop reads the rows' parameter lanes.
    parametric: bool,
}

/// The longest every-loop delay a folding chunk takes, in loops: the fold's rounding in `x`
/// grows with the span (`1 + delay/duration`, see `segment::span`).
const MAX_GAP: f32 = 3.0;

impl Default for Head {
    fn default() -> Self {
        Self {
            epoch: 0.0,
            rebase_at: -1.0,
            min_hi: f32::NEG_INFINITY,
            max_r: 0.0,
            state: State::Slow,
            dirty: true,
            same_r: false,
            same_all: false,
            kind: 0,
            groups: Groups::default(),
            lanes: 1,
            adapters: AdapterMasks::default(),
            derive: false,
            every: false,
            parametric: false,
        }
    }
}

/// One chunk of the cache.
pub(crate) struct Chunk<'a> {
    head: &'a mut Head,
    r: &'a mut [f32; CHUNK],
    c: &'a mut [f32; CHUNK],
    hi: &'a mut [f32; CHUNK],
    off: &'a mut [f32; CHUNK],
    theta: &'a mut [f32; CHUNK],
    inv_sin: &'a mut [f32; CHUNK],
    span: &'a mut [f32; CHUNK],
}

impl Head {
    /// Re-base limit for the current `max_r`, with a per-chunk stretch so that chunks made
    /// together do not all re-base (refresh every row) in the same update.
    fn rebase_limit(&self, index: usize) -> f64 {
        let jitter = 1.0 + ((index * 7) % 16) as f64 / 32.0;
        let span = if self.max_r > 0.0 {
            (PRECISION_SPAN / f64::from(self.max_r)).min(REBASE_MAX_S)
        } else {
            REBASE_MAX_S
        };
        span * jitter
    }
}

impl Chunk<'_> {
    /// Moves the epoch to `w` (absolute): every segment is dropped (refreshed on this update).
    fn rebase(&mut self, w: f64, index: usize) {
        let head = &mut *self.head;
        head.epoch = w;
        *self.hi = [f32::NEG_INFINITY; CHUNK];
        head.min_hi = f32::NEG_INFINITY;
        head.max_r = 0.0;
        head.rebase_at = head.rebase_limit(index);
    }

    /// [`rebase`](Self::rebase) for a chunk whose segments were made for its current rows
    /// ([`Head::derive`]): every moving (folded) segment is moved to the new epoch and the
    /// loop it lies in ([`segment::rebased`]), reading the rows (in order) but not evaluating
    /// them; the others are dropped.
    fn rebase_derived(&mut self, rows: &[MotionRow], w: f64, index: usize) {
        let head = &mut *self.head;
        let from = head.epoch;
        head.epoch = w;
        let n = rows.len();
        // Incremental's offsets (folded segments of the other loop types leave `off` at 0).
        let uses_off = head.groups.any_loop(2);
        // Rows made together (a burst) have the same timing and segment: one re-base each run.
        let mut last: Option<(&MotionRow, Segment, Segment)> = None;
        for (i, row) in rows.iter().enumerate() {
            let old = Segment {
                r: self.r[i],
                c: self.c[i],
                hi: self.hi[i],
                off: self.off[i],
            };
            let s = match last {
                Some((prev, prev_old, s))
                    if same_segment(&prev_old, &old) && same_timing(prev, row) =>
                {
                    s
                }
                _ => {
                    let lt = row.loop_type() as u8;
                    let s = segment::rebased(row, lt, old, from, w).unwrap_or(segment::NONE);
                    last = Some((row, old, s));
                    s
                }
            };
            // (Yoyo's direction changes with the loop; a dropped row keeps its stale `r`.)
            if s.hi != f32::NEG_INFINITY {
                self.r[i] = s.r;
            }
            self.c[i] = s.c;
            self.hi[i] = s.hi;
            if uses_off {
                self.off[i] = s.off;
            }
        }
        // The rows that kept a segment got theirs from their own timing: a chunk that shared
        // one still does only if the new `c`s (and offsets) agree too.
        let (r0, c0, off0) = (
            self.r[0].to_bits(),
            self.c[0].to_bits(),
            self.off[0].to_bits(),
        );
        // (Every `r` is written or kept: a chunk whose rows have come to share one, such as
        // rows that left a first-loop delay at different times, shares it again.)
        head.same_r = self.r[..n].iter().all(|r| r.to_bits() == r0);
        head.same_all &= head.same_r
            && self.c[..n].iter().all(|c| c.to_bits() == c0)
            && (!uses_off || self.off[..n].iter().all(|o| o.to_bits() == off0));
        head.min_hi = min_of(self.hi, n);
        head.rebase_at = head.rebase_limit(index);
    }
}

/// Whether two segments are the same, bit for bit.
#[inline(always)]
fn same_segment(a: &Segment, b: &Segment) -> bool {
    [a.r, a.c, a.hi, a.off].map(f32::to_bits) == [b.r, b.c, b.hi, b.off].map(f32::to_bits)
}

/// A pass's scratch space for its chunks: kept by the caller, so that it is not cleared per
/// chunk.
pub(crate) struct Scratch {
    /// Each row's eased progress.
    p: [f32; CHUNK],
    /// One group's eased progress, before it is copied into `p`.
    q: [f32; CHUNK],
    /// Parametric rows' parameters (gathered only for chunks that have any).
    params: Params,
    /// A folding chunk's rows before their ease ([`fold::eased`]).
    folded: fold::FoldedColumns,
}

impl Default for Scratch {
    fn default() -> Self {
        Self {
            p: [0.0; CHUNK],
            q: [0.0; CHUNK],
            params: Params::default(),
            folded: fold::FoldedColumns::default(),
        }
    }
}

/// Evaluates one chunk (`index` in the cache) of rows with their columns at world clocks
/// `now`, in `scratch`. Returns whether the chunk took the batch path. Inlined into the
/// executor's loop, once per instruction set (see `cpu::evaluate_range`); `AVX2` says whether
/// that one has AVX2 (and so SSE4.1's `roundps`).
#[inline(always)]
pub(crate) fn evaluate_chunk<const AVX2: bool>(
    mut chunk: Chunk<'_>,
    index: usize,
    rows: &[MotionRow],
    columns: Columns<'_>,
    now: &[f64],
    scratch: &mut Scratch,
) -> bool {
    let Scratch {
        p,
        q,
        params,
        folded,
    } = scratch;
    let [.., l4, l5] = columns.lanes;
    if chunk.head.dirty {
        chunk.head.classify(rows, [l4, l5]);
        let quat = chunk.head.adapters.quat;
        if quat != 0 {
            QuatColumns::fill(rows, quat, chunk.theta, chunk.inv_sin);
        }
    }
    if chunk.head.state == State::Slow {
        batch::evaluate(rows, columns, now);
        return true;
    }
    let w_abs = now[chunk.head.kind as usize];
    let mut w = w_abs - chunk.head.epoch;
    if !(w >= 0.0 && w < chunk.head.rebase_at) {
        // A chunk past its re-base time moves its segments along; one that was invalidated
        // (`rebase_at` < 0) or cannot derive drops them.
        if chunk.head.derive && chunk.head.rebase_at > 0.0 && w >= chunk.head.rebase_at {
            chunk.rebase_derived(rows, w_abs, index);
        } else {
            chunk.rebase(w_abs, index);
        }
        w = 0.0;
    }
    let w = w as f32;
    let fold = chunk.head.derive;
    let groups = chunk.head.groups;
    // Parametric rows' parameters, one column each; other chunks read none (so the
    // caller's scratch is not cleared per chunk: 1 KB per 64 rows was 15% of an update).
    if chunk.head.parametric {
        params.fill(l4, l5);
    }
    let params = &*params;
    // (Rows of one segment share their progress, not a parametric ease's parameters.)
    let near = if chunk.head.same_all && groups.len == 1 && !chunk.head.parametric {
        // A burst: one segment for the whole chunk.
        let s = Segment {
            r: chunk.r[0],
            c: chunk.c[0],
            hi: chunk.hi[0],
            off: chunk.off[0],
        };
        let ease = Ease::from_bits(u32::from(groups.ease[0]));
        let ease = |x: f32| ease.map_or(x, |e| e.evaluate(x));
        let (e, near) = if fold {
            let span = if chunk.head.every { chunk.span[0] } else { 1.0 };
            fold::fold_segment(ease, groups.ease[0], groups.loop_type[0], &s, span, w)
        } else {
            (segment_eased(ease, groups.loop_type[0], &s, w), false)
        };
        p.fill(e);
        near
    } else if groups.len == 1 {
        let (ease, lt) = (groups.ease[0], groups.loop_type[0]);
        if fold {
            fold::eased::<AVX2>(&chunk, ease, lt, params, w, folded, p)
        } else {
            eased(&chunk, ease, lt, params, w, p);
            false
        }
    } else {
        // Each run by its own loop over the whole chunk (SIMD, no tail), its rows kept.
        let mut near = false;
        for g in 0..usize::from(groups.len) {
            let (ease, lt) = (groups.ease[g], groups.loop_type[g]);
            near |= if fold {
                fold::eased::<AVX2>(&chunk, ease, lt, params, w, folded, q)
            } else {
                eased(&chunk, ease, lt, params, w, q);
                false
            };
            let range = groups.range(g);
            p[range.clone()].copy_from_slice(&q[range]);
        }
        near
    };
    // (Checked here: most updates of a chunk have no row due, and `refresh` is not inlined.)
    if near || w >= chunk.head.min_hi {
        refresh(&mut chunk, index, rows, params, w_abs, w, p);
    }
    let quat = QuatColumns {
        theta: chunk.theta,
        inv_sin: chunk.inv_sin,
    };
    lerp_lanes(chunk.head, rows, columns, p, quat, now);
    false
}

/// `out = lerp(from, to, p)` for every lane in use; other adapters after (quaternion rows in
/// SIMD groups, see [`lanes`](super::lanes)).
#[inline(always)]
fn lerp_lanes(
    chunk: &Head,
    rows: &[MotionRow],
    columns: Columns<'_>,
    p: &[f32; CHUNK],
    quat: QuatColumns<'_>,
    now: &[f64],
) {
    let Columns { lanes, outputs, .. } = columns;
    let [l0, l1, l2, l3, ..] = lanes;
    super::lanes::values(
        rows,
        [l0, l1, l2, l3],
        outputs,
        p,
        quat,
        usize::from(chunk.lanes),
        chunk.adapters,
        now,
    );
}

#[path = "cache_classify.rs"]
mod classify;

// (Before `fold`, which runs its `with_parametric!`.)
#[macro_use]
#[path = "cache_ease.rs"]
mod ease;

#[path = "cache_refresh.rs"]
mod refresh;

#[path = "cache_fold.rs"]
mod fold;

#[cfg(test)]
#[path = "cache_tests.rs"]
mod tests;
