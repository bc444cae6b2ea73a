//! The segment cache's refresh: rows at the end of their segment get the next one from the
//! exact path, rows near a folded loop boundary the exact value, and the branch-free helpers
//! over a chunk's `hi` column. A child of [`super`] (a file of its own: `cache.rs` is
//! long), so it shares the cache's private state.

use super::fold::{jumps, near_mask};
use super::segment::{self, Segment};
use super::{progress, Chunk, Params, CHUNK};
use crate::core::row::{MotionRow, FLAG_CLOCK_SHIFT};
use crate::eval::clock::eased_with;
use crate::eval::Progress;

/// Bit `i` set where row `i` (of `n`) is at or past its segment's end: a branch-free pass (a
/// branch per row mispredicts at random phases).
#[inline(always)]
pub(super) fn due_mask(hi: &[f32; CHUNK], w: f32, n: usize) -> u64 {
    // Eight at a time, which compiles to a compare and a move-mask per four.
    let mut due = 0u64;
    for (k, group) in hi.chunks_exact(8).enumerate() {
        let mut byte = 0u64;
        for (j, &hi) in group.iter().enumerate() {
            byte |= u64::from(w >= hi) << j;
        }
        due |= byte << (8 * k);
    }
    // Entries past a short last chunk are stale.
    if n < CHUNK {
        due &= (1u64 << n) - 1;
    }
    due
}

/// The smallest of the first `n` of `hi`.
#[inline(always)]
pub(super) fn min_of(hi: &[f32; CHUNK], n: usize) -> f32 {
    if n < CHUNK {
        return hi[..n].iter().fold(f32::INFINITY, |m, &h| m.min(h));
    }
    // Eight running minima (the `<` select compiles to `minps`), then one of eight.
    let mut m = [f32::INFINITY; 8];
    for group in hi.chunks_exact(8) {
        for (m, &h) in m.iter_mut().zip(group) {
            *m = if h < *m { h } else { *m };
        }
    }
    m.iter().fold(f32::INFINITY, |a, &b| a.min(b))
}

/// One row's eased progress from its segment `s` at `w`: [`super::by_loop_with`]'s arithmetic.
#[inline(always)]
pub(super) fn segment_eased(f: impl Fn(f32) -> f32, loop_type: u8, s: &Segment, w: f32) -> f32 {
    let e = f((w * s.r + s.c).clamp(0.0, 1.0));
    match loop_type {
        1 if s.off != 0.0 => 1.0 - e,
        2 => s.off + e,
        _ => e,
    }
}

/// Rows at or past the end of their segment (or without one): the exact path, which also gives
/// their next segment (folded, [`segment::folded`], in a chunk that folds loops); and in such a
/// chunk, rows within the margins of a loop boundary: the exact value, their segment kept.
/// Called when `w` has reached the chunk's `min_hi` or the hot loop found a row near a
/// boundary.
#[inline(never)]
pub(super) fn refresh(
    chunk: &mut Chunk<'_>,
    index: usize,
    rows: &[MotionRow],
    params: &Params,
    w_abs: f64,
    w: f32,
    p: &mut [f32; CHUNK],
) {
    let n = rows.len();
    // A parametric ease's progress from the reference's `progress` (whose `eased` is the
    // folded linear progress for those, see `eval::clock::eased_with`) and the row's
    // parameters; rows of one timing share the progress, not the parameters.
    let parametric = chunk.head.parametric;
    let eased = |row: &MotionRow, i: usize, at: &Progress| {
        if parametric {
            eased_with(row, at, params.row(i), &[])
        } else {
            at.eased
        }
    };
    let fold = chunk.head.derive;
    // (Below `min_hi` no row is stale: the `hi` column, which the hot loop does not read,
    // stays unread, a miss saved when only rows near a folded boundary brought us here.)
    let stale = if w >= chunk.head.min_hi {
        due_mask(chunk.hi, w, n)
    } else {
        0
    };
    let near = if fold {
        // Each run's rows by its loop type.
        let (same_r, groups) = (chunk.head.same_r, chunk.head.groups);
        let mut near = 0;
        for g in 0..usize::from(groups.len) {
            let lt = groups.loop_type[g];
            if !jumps(lt, groups.ease[g]) {
                continue;
            }
            let mask = near_mask(same_r, lt, [&*chunk.r, &*chunk.c, &*chunk.off], w, n);
            let range = groups.range(g);
            let bits = (u64::MAX >> (CHUNK - range.len())) << range.start;
            near |= mask & bits;
        }
        near
    } else {
        0
    };
    let head = &mut *chunk.head;
    // Whether the rows still share one segment: a full refresh starts over from row 0, a
    // partial one can only keep or lose it (a re-base starts over).
    let full = stale.count_ones() as usize == n;
    let (mut same_r, mut same_all) = if full {
        (true, true)
    } else {
        (head.same_r, head.same_all)
    };
    let first = stale.trailing_zeros() as usize;
    let max_r = head.max_r;
    let mut bits = stale | near;
    // Rows made together share their timing, hence their progress and segment: one exact
    // evaluation serves the run (a burst's whole chunk ends its loop in the same update).
    let mut last: Option<(&MotionRow, Progress, Segment)> = None;
    let mut last_near: Option<(&MotionRow, Progress)> = None;
    // Restart and Yoyo never read `off` (always 0 for them): the sparse reads and writes of
    // that column would miss, the hot loop not having touched it.
    // (Folded Flip segments leave `off` at 0 too.)
    let uses_off = head.groups.any_loop(2) || (head.groups.any_loop(1) && !fold);
    let every = head.every;
    while bits != 0 {
        let i = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        // (Rows for the exact path were prefetched a chunk ago, see `CachePtr::prefetch`.)
        let row = &rows[i];
        if stale & (1 << i) == 0 {
            // Near a boundary: the reference's value (once per run of rows with the same
            // timing, as below), the segment kept.
            let at = match last_near {
                Some((prev, at)) if same_timing(prev, row) => at,
                _ => {
                    let at = progress(row, row.clock(w_abs));
                    last_near = Some((row, at));
                    at
                }
            };
            p[i] = eased(row, i, &at);
            continue;
        }
        let (at, s) = match last {
            Some((prev, at, s)) if same_timing(prev, row) => (at, s),
            _ => {
                let at = progress(row, row.clock(w_abs));
                let s = segment::segment(row, w_abs, head.epoch, &at);
                let s = if fold {
                    segment::folded(row, head.epoch, row.loop_type() as u8, s)
                } else {
                    s
                };
                last = Some((row, at, s));
                (at, s)
            }
        };
        p[i] = eased(row, i, &at);
        // (A folding chunk with every-loop delays: `x` from the period's phase.)
        let span = if every { segment::span(row, &s) } else { 1.0 };
        if full && i == first {
            (chunk.r[0], chunk.c[0]) = (s.r, s.c);
            if uses_off {
                chunk.off[0] = s.off;
            }
            if every {
                chunk.span[0] = span;
            }
        }
        let (r0, c0) = (chunk.r[0], chunk.c[0]);
        let kept_r = s.r.to_bits() == r0.to_bits();
        same_r &= kept_r;
        same_all &= same_r
            && s.c.to_bits() == c0.to_bits()
            && (!uses_off || s.off.to_bits() == chunk.off[0].to_bits())
            && (!every || span.to_bits() == chunk.span[0].to_bits());
        // Always written, even while the rows share `r[0]`: once a later refresh splits them,
        // the hot loop reads every row's own `r[i]`, which must not be a stale one.
        chunk.r[i] = s.r;
        chunk.c[i] = s.c;
        chunk.hi[i] = s.hi;
        if uses_off {
            chunk.off[i] = s.off;
        }
        if every {
            chunk.span[i] = span;
        }
        // (The rounding of `v` is stretched by the span in `x`.)
        head.max_r = head.max_r.max(s.r.abs() * span);
    }
    if stale != 0 {
        head.min_hi = min_of(chunk.hi, n);
    }
    if head.max_r > max_r {
        head.rebase_at = head.rebase_at.min(head.rebase_limit(index));
    }
    head.same_r = same_r;
    head.same_all = same_all;
}

/// Whether two rows evaluate to the same progress at every world time: equal timing fields
/// and the `flags` bits that [`progress`] reads (ease, loop and delay types, clock).
#[inline(always)]
pub(super) fn same_timing(a: &MotionRow, b: &MotionRow) -> bool {
    let mask = 0x7ff | (0xff << FLAG_CLOCK_SHIFT);
    // The base first: it is what differs between rows made at different times.
    a.base_hi.to_bits() == b.base_hi.to_bits()
        && a.base_lo.to_bits() == b.base_lo.to_bits()
        && a.speed.to_bits() == b.speed.to_bits()
        && a.duration.to_bits() == b.duration.to_bits()
        && a.delay.to_bits() == b.delay.to_bits()
        && a.loops == b.loops
        && (a.flags ^ b.flags) & mask == 0
}
