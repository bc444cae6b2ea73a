//! Whole loops folded into the segment cache's hot loop, for chunks whose rows loop forward
//! ([`Head::derive`](super::Head)): a row's moving segment `v = w·r + c`, made for one loop,
//! serves every later loop of the epoch (and every-loop delays: `v` then counts periods of
//! delay and loop, see [`fold`]). `v` is folded into
//! the loop it lands in (`x = v − ⌊v⌋`, Yoyo's a triangle wave of `v`) and `⌊v⌋` gives the
//! loops since the segment's first (Flip's mirror, Incremental's offset; see
//! [`segment::folded`](super::segment::folded)), so a loop end costs nothing. Rows within the
//! margins of a boundary (`x` within `segment::LOOP_MARGIN_X + segment::TIME_MARGIN_X·|r|` of
//! 0 or 1, where the reference's loop index could round either way) take the exact path for
//! that update and keep their segment, where the value jumps at the boundary ([`jumps`]). A child of [`super`] (a file of its own: `cache.rs` is
//! long), so it shares the cache's private state.
//!
//! Precision is as with a segment per loop: within an epoch `w·r` stays below
//! `1.5·PRECISION_SPAN` and `c` within `[−1.5·PRECISION_SPAN, 2]`, so `|v| < 8` carries an
//! f32 rounding of < 1e-6 (the exact `v − ⌊v⌋` adds none), far inside the margins; a re-base
//! ([`segment::rebased`](super::segment::rebased)) restarts `c` from the row in f64, so
//! nothing accumulates over loops or epochs.

use super::segment::{Segment, LOOP_MARGIN_X, TIME_MARGIN_X};
use super::{Chunk, Params, CHUNK};
use crate::core::ease::{Ease, ID_BEZIER, ID_ELASTIC};

/// `⌊v⌋` for `|v| < 2²²` by the nearest-integer trick, so that the loop vectorises without
/// SSE4.1's `roundps` (the baseline x86-64 build, where `f32::floor` is a libm call); larger
/// `|v|` (never in a live segment) or NaN gives a finite garbage or NaN, never a fault. With
/// `AVX2`, `roundps` itself (one instruction instead of four). Both are exact, so the two
/// builds fold alike.
#[inline(always)]
fn floor32<const AVX2: bool>(v: f32) -> f32 {
    if AVX2 {
        return v.floor();
    }
    const MAGIC: f32 = 12_582_912.0; // 1.5 · 2^23
    let rounded = (v + MAGIC) - MAGIC;
    if rounded > v {
        rounded - 1.0
    } else {
        rounded
    }
}

/// What the loop type makes of one row's folded segment (`r`, `c`, `off`, see
/// [`segment::folded`](super::segment::folded)) at relative time `w`, before the ease: the
/// ease's input `x`, and the map `a + s·E(x)` that gives the row's eased progress (Flip's
/// mirror `1 − E`, Incremental's `E(1)·k + E` with `e1 = E(1)`); and the row's position `pos`
/// in the loop it lands in, which [`near`] checks against the margins (near a boundary the
/// progress is garbage: the exact path's replaces it). `LT` is [`LoopType`](crate::LoopType)'s
/// discriminant. A constant segment (`r = 0`, `c` in `[0, 1)`, see
/// [`segment::folded`](super::segment::folded)) folds to itself.
///
/// With `EVERY` (a chunk with every-loop delays), `v` counts periods of delay and loop
/// ([`segment::folded`](super::segment::folded)): `x` comes from the phase `φ = v − ⌊v⌋`
/// and the row's `span` ([`segment::span`](super::segment::span)), 0 through the delay, and
/// `pos` is `φ` (near a boundary where `x` is, for the other loop types).
///
/// The ease is applied apart ([`super::ease::mapped`]), so that this runs once per loop
/// type and not once per ease and loop type: the two loops together are as fast as one
/// that eases as it folds, and compile to a tenth of its code.
#[inline(always)]
pub(super) fn fold<const LT: u8, const AVX2: bool, const EVERY: bool>(
    e1: f32,
    r: f32,
    c: f32,
    off: f32,
    span: f32,
    w: f32,
) -> Folded {
    let v = w * r + c;
    let plain = |x: f32, pos: f32| Folded {
        x,
        a: 0.0,
        s: 1.0,
        pos,
    };
    // Flip's mirror on odd loops (`v` counts from an even loop, see `segment::folded`):
    // `⌊v⌋` is odd where `v/2` has a fraction of at least a half (both exact).
    let odd = || {
        let h = v * 0.5;
        h - floor32::<AVX2>(h) >= 0.5
    };
    let mirrored = |x: f32, pos: f32, odd: bool| Folded {
        x,
        a: if odd { 1.0 } else { 0.0 },
        s: if odd { -1.0 } else { 1.0 },
        pos,
    };
    if EVERY {
        let j = floor32::<AVX2>(v);
        let phase = v - j; // exact
        let x = (phase * span - (span - 1.0)).clamp(0.0, 1.0);
        return match LT {
            1 => mirrored(x, phase, odd()),
            // Incremental: `E(1)·k` of the segment's loop plus `E(1)` per loop since.
            2 => Folded {
                x,
                a: off + e1 * j,
                s: 1.0,
                pos: phase,
            },
            3 => plain(if odd() { 1.0 - x } else { x }, phase),
            _ => plain(x, phase),
        };
    }
    if LT == 3 {
        // Yoyo: forward on even loops, backward on odd ones (`v` counts from an even loop,
        // see `segment::folded`): a triangle wave. `v − 2·round(v/2)` is exact.
        let x = (v - 2.0 * floor32::<AVX2>(v * 0.5 + 0.5)).abs();
        return plain(x, x);
    }
    let j = floor32::<AVX2>(v);
    let x = v - j; // exact
    match LT {
        1 => mirrored(x, x, odd()),
        2 => Folded {
            x,
            a: off + e1 * j,
            s: 1.0,
            pos: x,
        },
        _ => plain(x, x),
    }
}

/// One row's [`fold`]: its eased progress is `a + s·E(x)` (exactly `E(x)`, `1 − E(x)` and
/// `E(1)·k + E(x)` as the loop types have it: the map's products are by ±1).
#[derive(Clone, Copy)]
pub(super) struct Folded {
    pub(super) x: f32,
    pub(super) a: f32,
    pub(super) s: f32,
    pos: f32,
}

/// A folding chunk's rows' [`Folded`] maps, a column each, between [`eased`]'s two loops
/// (part of the executor's scratch, so that a chunk clears nothing).
pub(super) struct FoldedColumns {
    pub(super) x: [f32; CHUNK],
    pub(super) a: [f32; CHUNK],
    pub(super) s: [f32; CHUNK],
}

impl Default for FoldedColumns {
    fn default() -> Self {
        Self {
            x: [0.0; CHUNK],
            a: [0.0; CHUNK],
            s: [1.0; CHUNK],
        }
    }
}

impl FoldedColumns {
    /// Row `i`'s map; only its `x` for loop types whose map is the identity ([`plain`]).
    #[inline(always)]
    fn set<const LT: u8>(&mut self, i: usize, m: Folded) {
        self.x[i] = m.x;
        if !plain(LT) {
            (self.a[i], self.s[i]) = (m.a, m.s);
        }
    }
}

/// Whether loop type `lt`'s map is the identity (Restart and Yoyo: `E(x)` itself), so that
/// only `x` is kept and eased.
#[inline(always)]
pub(super) const fn plain(lt: u8) -> bool {
    !matches!(lt, 1 | 2)
}

/// Whether a row of ease `ease` (its id) and loop type `lt` ([`LoopType`](crate::LoopType)'s
/// discriminant) may jump in value at a loop boundary, where the reference's loop index may
/// round the other way than the fold's: Restart's does (`E(1)` then `E(0)`; a period's delay
/// starts at `E(0)` too), and so does every loop type's with an ease that is exact at its
/// ends only by its clamp (Expo and Elastic: `E(1⁻)` is `1 ± 5e-4`, and `Steps`). For the
/// rest, Flip (`E(1)` then `1 − E(0)`), Incremental (`k + E(1)` then `k + 1 + E(0)`) and Yoyo
/// (a triangle wave) are continuous there, so a loop index that rounds the other way moves
/// the value by the ease's slope times the rounding, as anywhere else in the loop: their
/// rows are never near a boundary and skip the exact path there.
#[inline(always)]
pub(super) fn jumps(lt: u8, ease: u8) -> bool {
    let jump_at_ends = [
        Ease::InExpo,
        Ease::OutExpo,
        Ease::InOutExpo,
        Ease::InElastic,
        Ease::OutElastic,
        Ease::InOutElastic,
    ]
    .iter()
    .any(|&e| e as u8 == ease)
        || (u32::from(ease) >= ID_ELASTIC && u32::from(ease) != ID_BEZIER);
    lt == 0 || jump_at_ends
}

/// The margin of a segment of slope `r` in `x`: `segment::end_of`'s, converted.
#[inline(always)]
fn margin(r: f32) -> f32 {
    LOOP_MARGIN_X + TIME_MARGIN_X * r.abs()
}

/// Whether a row at `x` ([`fold`]) of a segment of slope `r` is within the margins of a loop
/// boundary. Constant segments never are.
#[inline(always)]
fn near(x: f32, r: f32) -> bool {
    let m = margin(r);
    (r != 0.0) & ((x < m) | (x > 1.0 - m))
}

/// [`fold`] for one segment (a burst chunk's shared one) with a loop type known at run time,
/// and whether it is [`near`] a boundary.
#[inline(always)]
pub(super) fn fold_segment(
    f: impl Fn(f32) -> f32,
    ease: u8,
    loop_type: u8,
    s: &Segment,
    span: f32,
    w: f32,
) -> (f32, bool) {
    let (r, c, off) = (s.r, s.c, s.off);
    // (Span 1 folds alike in both: the plain fold unless there is a delay to fold.)
    let m = match (loop_type, span != 1.0) {
        (1, false) => fold::<1, false, false>(0.0, r, c, off, 1.0, w),
        (2, false) => fold::<2, false, false>(f(1.0), r, c, off, 1.0, w),
        (3, false) => fold::<3, false, false>(0.0, r, c, off, 1.0, w),
        (_, false) => fold::<0, false, false>(0.0, r, c, off, 1.0, w),
        (1, true) => fold::<1, false, true>(0.0, r, c, off, span, w),
        (2, true) => fold::<2, false, true>(f(1.0), r, c, off, span, w),
        (3, true) => fold::<3, false, true>(0.0, r, c, off, span, w),
        (_, true) => fold::<0, false, true>(0.0, r, c, off, span, w),
    };
    (
        m.a + m.s * f(m.x),
        jumps(loop_type, ease) && near(m.pos, s.r),
    )
}

/// The eased progress of every row of a folding chunk (garbage for rows near a boundary or
/// past their segment's end, which [`super::refresh()`] overwrites, and past a short chunk's
/// end); returns whether any row may be near a boundary. Two loops over the whole chunk:
/// one per loop type folds every row ([`fold`], into `m`), one per ease eases them
/// ([`super::ease::mapped`]).
#[inline(always)]
pub(super) fn eased<const AVX2: bool>(
    chunk: &Chunk<'_>,
    ease: u8,
    loop_type: u8,
    params: &Params,
    w: f32,
    m: &mut FoldedColumns,
    p: &mut [f32; CHUNK],
) -> bool {
    let jumps = jumps(loop_type, ease);
    let e1 = if loop_type == 2 {
        super::ease::at_one(ease, params)
    } else {
        0.0
    };
    let near = if chunk.head.every {
        match loop_type {
            1 => by_row::<1, AVX2, true>(e1, chunk, jumps, w, m),
            2 => by_row::<2, AVX2, true>(e1, chunk, jumps, w, m),
            3 => by_row::<3, AVX2, true>(e1, chunk, jumps, w, m),
            _ => by_row::<0, AVX2, true>(e1, chunk, jumps, w, m),
        }
    } else {
        match loop_type {
            1 => by_row::<1, AVX2, false>(e1, chunk, jumps, w, m),
            2 => by_row::<2, AVX2, false>(e1, chunk, jumps, w, m),
            3 => by_row::<3, AVX2, false>(e1, chunk, jumps, w, m),
            _ => by_row::<0, AVX2, false>(e1, chunk, jumps, w, m),
        }
    };
    super::ease::mapped(ease, params, m, plain(loop_type), p);
    near
}

/// Every row's [`fold`] into `m`; returns whether any may be near a boundary.
#[inline(always)]
fn by_row<const LT: u8, const AVX2: bool, const EVERY: bool>(
    e1: f32,
    chunk: &Chunk<'_>,
    jumps: bool,
    w: f32,
    m: &mut FoldedColumns,
) -> bool {
    let (c, off, span) = (&*chunk.c, &*chunk.off, &*chunk.span);
    if !jumps {
        // No value jumps at a boundary ([`jumps`]): no row is near one.
        // (Two loops, as in `mask_of`: a select of `r[0]` or `r[i]` would not vectorise.)
        let r = &*chunk.r;
        if chunk.head.same_r {
            for i in 0..CHUNK {
                m.set::<LT>(
                    i,
                    fold::<LT, AVX2, EVERY>(e1, r[0], c[i], off[i], span[i], w),
                );
            }
        } else {
            for i in 0..CHUNK {
                m.set::<LT>(
                    i,
                    fold::<LT, AVX2, EVERY>(e1, r[i], c[i], off[i], span[i], w),
                );
            }
        }
        return false;
    }
    if chunk.head.same_r {
        // One margin for the chunk: the smallest and largest `x` say whether any row is near.
        // Compared as integers (the bits of floats ≥ 0 order as the floats do; a negative
        // `x` is negative as an integer too, so it counts as small): integer min/max
        // reductions vectorise, float ones do not without fast-math.
        let r0 = chunk.r[0];
        let (mut lo, mut hi) = (i32::MAX, i32::MIN);
        for i in 0..CHUNK {
            let f = fold::<LT, AVX2, EVERY>(e1, r0, c[i], off[i], span[i], w);
            m.set::<LT>(i, f);
            let bits = f.pos.to_bits() as i32;
            lo = lo.min(bits);
            hi = hi.max(bits);
        }
        let margin = margin(r0);
        // (A constant chunk, `r0` = 0, is never near.)
        (r0 != 0.0) & ((lo < margin.to_bits() as i32) | (hi > (1.0 - margin).to_bits() as i32))
    } else {
        let r = &*chunk.r;
        // An integer OR, which vectorises (a bool one may not).
        let mut any = 0u32;
        for i in 0..CHUNK {
            let f = fold::<LT, AVX2, EVERY>(e1, r[i], c[i], off[i], span[i], w);
            m.set::<LT>(i, f);
            any |= u32::from(near(f.pos, r[i]));
        }
        any != 0
    }
}

/// Bit `i` set where row `i` (of `n`) of a folding chunk is near a loop boundary at `w`: the
/// same arithmetic as the hot loop (the ease does not enter it, and both floors are exact),
/// with `r[0]` for every row while the chunk shares it.
pub(super) fn near_mask(
    same_r: bool,
    loop_type: u8,
    [r, c, off]: [&[f32; CHUNK]; 3],
    w: f32,
    n: usize,
) -> u64 {
    let near = match loop_type {
        1 => mask_of::<1>(same_r, [r, c, off], w),
        2 => mask_of::<2>(same_r, [r, c, off], w),
        3 => mask_of::<3>(same_r, [r, c, off], w),
        _ => mask_of::<0>(same_r, [r, c, off], w),
    };
    // Entries past a short last chunk are stale.
    if n < CHUNK {
        near & ((1u64 << n) - 1)
    } else {
        near
    }
}

/// [`near_mask`] for one loop type, over the whole chunk: the flags as integers first (a
/// plain loop, which vectorises), then packed eight at a time (a compare and a move-mask per
/// vector, as `refresh::due_mask`).
#[inline(always)]
fn mask_of<const LT: u8>(same_r: bool, [r, c, off]: [&[f32; CHUNK]; 3], w: f32) -> u64 {
    let mut flags = [0u32; CHUNK];
    // (Whether a row is near does not depend on its span: the phase `φ` of `EVERY` is near
    // a boundary where `x` is without it.)
    let flag = |ri: f32, i: usize| {
        u32::from(near(
            fold::<LT, false, false>(0.0, ri, c[i], off[i], 1.0, w).pos,
            ri,
        ))
    };
    // (Two loops: a select of `r[0]` or `r[i]` inside one keeps it from vectorising.)
    if same_r {
        for (i, f) in flags.iter_mut().enumerate() {
            *f = flag(r[0], i);
        }
    } else {
        for (i, f) in flags.iter_mut().enumerate() {
            *f = flag(r[i], i);
        }
    }
    let mut mask = 0u64;
    for (k, group) in flags.chunks_exact(8).enumerate() {
        let mut byte = 0u64;
        for (j, &flag) in group.iter().enumerate() {
            byte |= u64::from(flag != 0) << j;
        }
        mask |= byte << (8 * k);
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::super::segment::{folded, rebased, segment, span};
    use super::*;
    use crate::core::row::{pack_flags, MotionRow};
    use crate::core::settings::{DelayType, LoopType, TimeKind};
    use crate::eval::progress;
    use bytemuck::Zeroable;

    #[test]
    fn floor32_is_floor() {
        for v in [
            -7.5f32,
            -2.0,
            -1e-30,
            -0.0,
            0.0,
            0.3,
            1.0,
            1.999_999_9,
            6.999_999,
            4.0e6,
        ] {
            assert_eq!(floor32::<false>(v), v.floor(), "{v}");
        }
    }

    fn row(ease: Ease, speed: f32, delay: f32, lt: LoopType, dt: DelayType) -> MotionRow {
        let mut r = MotionRow {
            duration: 2.0,
            delay,
            loops: -1,
            speed,
            flags: pack_flags(ease, lt, dt, TimeKind::Scaled, 1, 0),
            ..MotionRow::zeroed()
        };
        r.anchor(10.0, 0.0);
        r
    }

    /// Walks rows that loop for ever, forward and back to back, through hundreds of loop
    /// ends on one folded segment per epoch (made once from the reference, then only moved
    /// by [`rebased`] at each re-base): every prediction away from a boundary within the
    /// tolerance of the reference, the boundaries flagged, and the reference needed only
    /// there. Every-loop delays fold too: the delay is part of each folded period.
    #[test]
    fn folded_segments_predict_the_reference() {
        for ease in [Ease::OutQuad, Ease::InOutSine, Ease::OutBack, Ease::Linear] {
            for lt in LoopType::ALL {
                for (dt, delay) in [
                    (DelayType::FirstLoop, 0.5f32),
                    (DelayType::EveryLoop, 0.0),
                    (DelayType::EveryLoop, 0.3),
                    (DelayType::EveryLoop, 1.7),
                ] {
                    for speed in [1.0f32, 0.5, 3.7] {
                        walk(row(ease, speed, delay, lt, dt), lt as u8);
                    }
                }
            }
        }
    }

    fn walk(r: MotionRow, lt: u8) {
        let f = |x: f32| r.ease().evaluate(x);
        let mut epoch = 11.0;
        // Start inside the second loop (past its delay), from the reference.
        let start = if r.delay_type() == DelayType::EveryLoop {
            r.duration + 2.0 * r.delay + 1.0
        } else {
            r.delay + 2.5
        };
        let mut w = 10.0 + f64::from(start) / f64::from(r.speed);
        let mut s = folded(
            &r,
            epoch,
            lt,
            segment(&r, w, epoch, &progress(&r, r.clock(w))),
        );
        assert!(s.hi == f32::INFINITY, "{r:?}");
        let (mut checked, mut near, mut loops) = (0, 0, 0.0f32);
        while w < 400.0 {
            w += 0.013;
            if w - epoch > 7.0 {
                let to = w - 0.005;
                s = rebased(&r, lt, s, epoch, to).expect("a live folded segment re-bases");
                let span = if matches!(lt, 1 | 3) { 2.0 } else { 1.0 };
                assert!((0.0..=span).contains(&s.c) && s.r > 0.0, "{s:?}");
                epoch = to;
            }
            let rel = (w - epoch) as f32;
            let (got, is_near) = fold_segment(f, r.ease_bits() as u8, lt, &s, span(&r, &s), rel);
            loops = loops.max((rel * s.r + s.c).floor());
            let want = progress(&r, r.clock(w)).eased;
            if is_near {
                near += 1;
                continue;
            }
            checked += 1;
            assert!(
                (got - want).abs() < 2e-5 * want.abs().max(1.0),
                "{r:?} w {w}: {got} vs {want}"
            );
        }
        // Several loops per epoch, and few updates on the exact path.
        assert!(loops >= 2.0 || r.speed < 1.0, "{loops}");
        assert!(near * 100 < checked, "{near} near of {checked}");
    }

    /// The margin check flags exactly the rows within the margins of a boundary: a step of
    /// 1e-6 s across a loop end of a Restart segment is near on both sides, and a row a
    /// margin and a bit away is not.
    #[test]
    fn near_flags_the_boundary() {
        // r = 0.5 loops/s, loop end at w = 2.
        let (r, c) = (0.5, 0.0);
        let near_at = |r: f32, w: f32| near(fold::<0, false, false>(0.0, r, c, 0.0, 1.0, w).pos, r);
        for w in [1.999_999, 2.0, 2.000_001, 0.0, 4.0] {
            assert!(near_at(r, w), "{w}");
        }
        for w in [1.999, 2.001, 0.5, 3.0] {
            assert!(!near_at(r, w), "{w}");
        }
        // Constant segments are never near.
        assert!(!near_at(0.0, 1.0));
    }
}
