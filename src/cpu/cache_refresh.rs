//! The segment cache's refresh: rows at the end of their segment get the next one (derived
//! from the last where the chunk allows, else from the exact path), and the branch-free
//! helpers over a chunk's `hi` column. A child of [`super`] (a file of its own: `cache.rs` is
//! long), so it shares the cache's private state.

use super::segment::{self, Next, Segment};
use super::{progress, Chunk, CHUNK};
use crate::ease::Ease;
use crate::row::{MotionRow, FLAG_TIME_KIND_SHIFT};

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

/// Asks for the cache line at `p` without waiting for it.
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
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

/// Rows at or past the end of their segment: the next loop's segment where it can be derived
/// from the current one, else the exact path, which also gives their next segment. Called
/// when `w` has reached the chunk's `min_hi`.
#[inline(never)]
pub(super) fn refresh(
    chunk: &mut Chunk<'_>,
    index: usize,
    rows: &[MotionRow],
    w_abs: f64,
    w: f32,
    p: &mut [f32; CHUNK],
) {
    let head = &mut *chunk.head;
    let n = rows.len();
    let due = due_mask(chunk.hi, w, n);
    // Whether the rows still share one segment: a full refresh starts over from row 0, a
    // partial one can only keep or lose it (a re-base starts over).
    let full = due.count_ones() as usize == n;
    let (mut same_r, mut same_all) = if full {
        (true, true)
    } else {
        (head.same_r, head.same_all)
    };
    let first = due.trailing_zeros() as usize;
    let max_r = head.max_r;
    let mut bits = due;
    // Rows made together share their timing, hence their progress and segment: one exact
    // evaluation serves the run (a burst's whole chunk ends its loop in the same update).
    let mut last: Option<(&MotionRow, f32, Segment)> = None;
    let ease = Ease::from_bits(u32::from(head.ease));
    let ease = |x: f32| ease.map_or(x, |e| e.evaluate(x));
    let e1 = if head.derive { ease(1.0) } else { 0.0 };
    // Restart and Yoyo never read `off` (always 0 for them); and while the rows share `r`,
    // `r[0]` stands for every row's: the sparse reads and writes of those columns would
    // miss, the hot loop not having touched them.
    let uses_off = matches!(head.loop_type, 1 | 2);
    let (had_same_r, r0_before) = (head.same_r, chunk.r[0]);
    // One division for the chunk's shared `r` (the next loop's end is `(target − c)/r`).
    let inv_r0 = 1.0 / f64::from(r0_before);
    // A burst's loop end: every row due, one shared segment before and so one after (the
    // next loop depends on the segment alone): filled in, without the per-row loop. Not when
    // a row's segment was dropped (`hi` = −∞: a changed row, whose `c` is stale).
    if full && head.same_all && head.derive && chunk.hi[..n].iter().all(|&h| h != f32::NEG_INFINITY)
    {
        let off = if uses_off { chunk.off[0] } else { 0.0 };
        let next = segment::next_loop(head.loop_type, e1, (r0_before, inv_r0), chunk.c[0], off, w);
        if let Next::Segment(s) = next {
            p.fill(segment_eased(ease, head.loop_type, &s, w));
            chunk.r.fill(s.r);
            chunk.c.fill(s.c);
            chunk.hi.fill(s.hi);
            if uses_off {
                chunk.off.fill(s.off);
            }
            head.min_hi = s.hi;
            head.same_r = true; // (`same_all` stays)
            return;
        }
    }
    let mut last_derived: Option<([u32; 3], Segment, f32)> = None;
    let mut last_early: Option<(&MotionRow, f32)> = None;
    while bits != 0 {
        let i = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        // (A dropped segment, `hi` = −∞, has nothing to derive from.)
        let step = if head.derive && chunk.hi[i] != f32::NEG_INFINITY {
            let r = if had_same_r {
                (r0_before, inv_r0)
            } else {
                (chunk.r[i], 1.0 / f64::from(chunk.r[i]))
            };
            let off = if uses_off { chunk.off[i] } else { 0.0 };
            let key = [r.0, chunk.c[i], off].map(f32::to_bits);
            match last_derived {
                // The same segment as the row before (a burst's rows): the same next one.
                Some((k, s, eased)) if k == key => Step::Derived(s, eased),
                _ => match segment::next_loop(head.loop_type, e1, r, chunk.c[i], off, w) {
                    Next::Segment(s) => {
                        let eased = segment_eased(ease, head.loop_type, &s, w);
                        last_derived = Some((key, s, eased));
                        Step::Derived(s, eased)
                    }
                    Next::Early => Step::Early,
                    Next::No => Step::Exact,
                },
            }
        } else {
            Step::Exact
        };
        let row = &rows[i];
        let (eased, s) = match (step, last) {
            // The usual loop end: the next loop's segment, without the row.
            (Step::Derived(s, eased), _) => (eased, s),
            // (Rows for the exact path were prefetched a chunk ago, see
            // `CachePtr::prefetch`.)
            (_, Some((prev, eased, s))) if same_timing(prev, row) => (eased, s),
            (Step::Early, _) => {
                // At the boundary itself: the reference's value (once per run of rows with
                // the same timing, as below), the segment kept.
                p[i] = match last_early {
                    Some((prev, eased)) if same_timing(prev, row) => eased,
                    _ => {
                        let eased = progress(row, row.clock(w_abs)).eased;
                        last_early = Some((row, eased));
                        eased
                    }
                };
                continue;
            }
            (Step::Exact, _) => {
                let at = progress(row, row.clock(w_abs));
                let s = segment::segment(row, w_abs, head.epoch, &at);
                last = Some((row, at.eased, s));
                (at.eased, s)
            }
        };
        p[i] = eased;
        if full && i == first {
            (chunk.r[0], chunk.c[0]) = (s.r, s.c);
            if uses_off {
                chunk.off[0] = s.off;
            }
        }
        let (r0, c0) = (chunk.r[0], chunk.c[0]);
        let kept_r = s.r.to_bits() == r0.to_bits();
        same_r &= kept_r;
        same_all &= same_r
            && s.c.to_bits() == c0.to_bits()
            && (!uses_off || s.off.to_bits() == chunk.off[0].to_bits());
        // A partial refresh of rows that shared `r[0]` and still do leaves `r[i]` as it was.
        if full || !had_same_r || !kept_r {
            chunk.r[i] = s.r;
        }
        chunk.c[i] = s.c;
        chunk.hi[i] = s.hi;
        if uses_off {
            chunk.off[i] = s.off;
        }
        head.max_r = head.max_r.max(s.r.abs());
    }
    head.min_hi = min_of(chunk.hi, n);
    if head.max_r > max_r {
        head.rebase_at = head.rebase_at.min(head.rebase_limit(index));
    }
    head.same_r = same_r;
    head.same_all = same_all;
}

/// What [`refresh`] does for one due row.
#[derive(Clone, Copy)]
enum Step {
    /// The next loop's segment and the eased progress it gives.
    Derived(Segment, f32),
    /// At the boundary itself: the exact value, the segment kept ([`Next::Early`]).
    Early,
    /// The exact path and its segment.
    Exact,
}

/// Whether two rows evaluate to the same progress at every world time: equal timing fields
/// and the `flags` bits that [`progress`] reads (ease, loop and delay types, time kind).
#[inline(always)]
pub(super) fn same_timing(a: &MotionRow, b: &MotionRow) -> bool {
    let mask = 0x7ff | (3 << FLAG_TIME_KIND_SHIFT);
    // The base first: it is what differs between rows made at different times.
    a.base_hi.to_bits() == b.base_hi.to_bits()
        && a.base_lo.to_bits() == b.base_lo.to_bits()
        && a.speed.to_bits() == b.speed.to_bits()
        && a.duration.to_bits() == b.duration.to_bits()
        && a.delay.to_bits() == b.delay.to_bits()
        && a.loops == b.loops
        && (a.flags ^ b.flags) & mask == 0
}
