//! Segments: the stretch of world time around "now" over which a row's linear progress is an
//! affine function of world time (or a constant), so that later updates can skip the clock
//! and loop arithmetic of [`progress`](super::progress) until the stretch ends.
//!
//! A segment is derived from the reference evaluation at one world time (its loop index,
//! status and linear progress), never computed independently, and checked against it: where
//! the two could disagree (near a boundary, at a precision limit) there is no segment and the
//! row stays on the exact path.

use crate::core::row::MotionRow;
use crate::core::settings::{DelayType, LoopType, MotionStatus};
use crate::eval::clock::Progress;

/// Margin kept from each end of a segment, in loops: the phase that the reference rounds to
/// the loop's end (its snap to the next loop) lies well inside it, and so does any rounding
/// difference between the segment's boundary and the reference's loop index.
const LOOP_MARGIN: f64 = 1e-5;

/// Margin kept from each end of a segment, in seconds of world time: covers the f32 rounding
/// of the relative world time and of the stored end (both < 4e-6 s while the relative world
/// time stays under [`super::cache::REBASE_MAX_S`]).
const TIME_MARGIN: f64 = 2e-5;

/// A row's segment, relative to its chunk's epoch: the linear progress (folded by the loop
/// type, see below) is `x = clamp(w·r + c, 0, 1)` for relative world times `w < hi`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Segment {
    pub r: f32,
    pub c: f32,
    /// End of the segment (exclusive), rounded down; `−∞` for no segment.
    pub hi: f32,
    /// Flip: 1 on a mirrored loop, else 0. Incremental: `E(1)·k`. Unused otherwise.
    pub off: f32,
}

/// No segment: the row takes the exact path at every update.
pub(crate) const NONE: Segment = Segment {
    r: 0.0,
    c: 0.0,
    hi: f32::NEG_INFINITY,
    off: 0.0,
};

/// Largest f32 not above `x` (`x` finite or +∞).
fn f32_down(x: f64) -> f32 {
    let y = x as f32;
    if f64::from(y) > x {
        y.next_down()
    } else {
        y
    }
}

/// The segment of `row` at absolute world time `w` (of its time kind), where the reference
/// gave `p`, with relative times measured from `epoch`. The loop type folds into it so that
/// the eased progress of the segment is:
///
/// - Restart: `E(x)`; Yoyo: `E(x)` (a backward loop's `1 − t` is in `r` and `c`);
/// - Flip: `off ≠ 0 ? 1 − E(x) : E(x)`; Incremental: `off + E(x)`.
///
/// For a constant segment `r = 0` and `c` is the reference's (folded) linear progress, so its
/// eased progress is the reference's bit for bit.
pub(crate) fn segment(row: &MotionRow, w: f64, epoch: f64, p: &Progress) -> Segment {
    let duration = f64::from(row.duration);
    // Instantaneous loops: no stretch worth caching. Steps and curves: never cached (see
    // `cache::classify`), and `E(1)` below is a curve's last key, not 1.
    let id = row.ease_bits();
    if duration <= 0.0 || id == crate::core::ease::ID_STEPS || id >= crate::core::curve::ID_CURVE {
        return NONE;
    }
    let speed = f64::from(row.speed);
    let delay = f64::from(row.delay);
    let loops = f64::from(row.loops);
    let k = p.completed_loops;
    let kf = f64::from(k);
    let every = row.delay_type() == DelayType::EveryLoop;
    let period = if every { duration + delay } else { duration };
    let loop_type = row.loop_type();
    // (A parametric ease reads as Linear here: its `E(1)` is 1 too.)
    let ease_end = || row.ease().evaluate(1.0) * k as f32;

    // The stretch in motion time [ta, tb), and for a moving one its start t0.
    let (ta, tb, moving) = match p.status {
        MotionStatus::Completed => {
            let end = if every {
                period * loops
            } else {
                delay + duration * loops
            };
            (end, f64::INFINITY, None)
        }
        MotionStatus::Delayed => {
            let time = row.clock(w);
            if !every || time < delay {
                (f64::NEG_INFINITY, delay, None)
            } else {
                (period * kf, period * kf + delay, None)
            }
        }
        _ => {
            let t0 = if every {
                period * kf + delay
            } else {
                delay + duration * kf
            };
            (t0, t0 + duration, Some(t0))
        }
    };

    let (r, c, off) = match moving {
        Some(t0) if speed != 0.0 => {
            // x = (T − t0)/D with T = (epoch + w_rel − base)·speed.
            let inv_duration = 1.0 / duration;
            let r = speed * inv_duration;
            let c = ((epoch - row.base()) * speed - t0) * inv_duration;
            let odd = k & 1 == 1;
            // The reference's linear progress here, folded like the segment.
            let (r, c, x) = match loop_type {
                LoopType::Yoyo if odd => (-r, 1.0 - c, 1.0 - f64::from(p.linear)),
                _ => (r, c, f64::from(p.linear)),
            };
            // A segment that does not reproduce the reference where it was taken (a loop
            // index off by one at a boundary) is no segment.
            if ((w - epoch) * r + c - x).abs() > 1e-6 {
                return NONE;
            }
            let off = match loop_type {
                LoopType::Flip => f32::from(u8::from(odd)),
                LoopType::Incremental => ease_end(),
                _ => 0.0,
            };
            (r, c, off)
        }
        _ => {
            // Constant: the reference's own numbers, folded the way `loop_eased` does.
            let linear = p.linear;
            let odd = (k.wrapping_add(u32::from(linear == 1.0))) & 1 == 1;
            let (x, off) = match loop_type {
                LoopType::Restart => (linear, 0.0),
                LoopType::Yoyo => (if odd { 1.0 - linear } else { linear }, 0.0),
                LoopType::Flip => (linear, f32::from(u8::from(odd))),
                LoopType::Incremental => (if linear == 1.0 { 0.0 } else { linear }, ease_end()),
            };
            return constant(row, w, epoch, speed, duration, ta, tb, x, off);
        }
    };
    let hi = end_of(row, w, speed, duration, ta, tb);
    match hi {
        Some(hi) => Segment {
            r: r as f32,
            c: c as f32,
            hi: f32_down(hi - epoch),
            off,
        },
        None => NONE,
    }
}

/// A constant segment: `x` from `ta` to `tb` in motion time (for ever when frozen).
#[allow(clippy::too_many_arguments)]
fn constant(
    row: &MotionRow,
    w: f64,
    epoch: f64,
    speed: f64,
    duration: f64,
    ta: f64,
    tb: f64,
    x: f32,
    off: f32,
) -> Segment {
    let hi = if speed == 0.0 {
        Some(f64::INFINITY)
    } else {
        end_of(row, w, speed, duration, ta, tb)
    };
    match hi {
        Some(hi) => Segment {
            r: 0.0,
            c: x,
            hi: f32_down(hi - epoch),
            off,
        },
        None => NONE,
    }
}

/// The world time at which the stretch `[ta, tb)` of motion time ends, less the margins;
/// `None` when `w` is not safely inside it.
fn end_of(row: &MotionRow, w: f64, speed: f64, duration: f64, ta: f64, tb: f64) -> Option<f64> {
    let margin = LOOP_MARGIN * duration + TIME_MARGIN * speed.abs();
    let (ta, tb) = (ta + margin, tb - margin);
    if ta >= tb {
        return None;
    }
    let base = row.base();
    // World time runs forward; a negative speed runs the motion clock backward.
    let inv_speed = 1.0 / speed;
    let (lo, hi) = if speed > 0.0 {
        (base + ta * inv_speed, base + tb * inv_speed)
    } else {
        (base + tb * inv_speed, base + ta * inv_speed)
    };
    (w >= lo && w < hi).then_some(hi)
}

/// [`end_of`]'s margins in progress units (`x`) for a segment of slope `r`, as the folded hot
/// loop applies them (`super::cache`'s `fold`): `LOOP_MARGIN + TIME_MARGIN·|r|`.
pub(crate) const LOOP_MARGIN_X: f32 = LOOP_MARGIN as f32;
/// See [`LOOP_MARGIN_X`].
pub(crate) const TIME_MARGIN_X: f32 = TIME_MARGIN as f32;

/// A segment for a chunk that folds whole loops into its hot loop (rows that loop forward,
/// back to back; the caller checks that; `loop_type` is [`LoopType`]'s discriminant; `epoch`
/// the chunk's): a moving segment stays valid past its loop's end, to the end of the row's
/// last loop ([`fold_end`]; the hot loop folds `v = w·r + c` into the loop it lands in and
/// sends rows within the margins of a boundary to the exact path), a constant one keeps its
/// end.
///
/// Restart and Incremental keep `(r, c, off)`: `v` counts loops from the segment's loop `k`
/// (`off = E(1)·k`). Flip and Yoyo count them from an even loop instead, so that `⌊v⌋`'s
/// parity alone says whether a loop is mirrored (Flip) or backward (Yoyo), with `r > 0` and
/// `off` = 0 for every row (no `off` column to read, and rows of one speed and duration
/// share `r` whatever their loop): Flip's `c + off`, a backward Yoyo segment's `(−r, c)`
/// unfolded to `(r, 2 − c)`. A constant `c` outside `[0, 1)` would fold differently from how
/// it was made: none.
///
/// A row with an every-loop delay ([`gapped`]) counts `v` in periods (delay and loop)
/// instead of loops: `r = speed/P`, and `c` the position in the period, so that the hot loop
/// folds `v` as above and finds `x` from the period's phase with [`span`] (`P/D`): the
/// delay is the part of the period where `x` clamps to 0.
pub(crate) fn folded(row: &MotionRow, epoch: f64, loop_type: u8, s: Segment) -> Segment {
    if s.hi == f32::NEG_INFINITY {
        return s;
    }
    if s.r == 0.0 && !(0.0..1.0).contains(&s.c) {
        return NONE;
    }
    if s.r == 0.0 {
        // (Constants keep `c`: their span is 1.)
        let c = if loop_type == 1 { s.c + s.off } else { s.c };
        let off = if loop_type == 1 { 0.0 } else { s.off };
        return Segment { c, off, ..s };
    }
    let hi = fold_end(row, epoch);
    if !gapped(row) {
        let (r, c, off) = match loop_type {
            1 => (s.r, s.c + s.off, 0.0),
            3 if s.r < 0.0 => (-s.r, 2.0 - s.c, 0.0),
            _ => (s.r, s.c, s.off),
        };
        return Segment { r, c, hi, off };
    }
    // The forward `x = w·r + c` of the segment's loop (in f64) and the loops it is shifted
    // by; `x·D + d` is the position in the period.
    let c = f64::from(s.c);
    let (c, shift, off) = match loop_type {
        1 => (c, f64::from(s.off), 0.0),
        3 if s.r < 0.0 => (1.0 - c, 1.0, 0.0),
        _ => (c, 0.0, s.off),
    };
    let (duration, delay) = (f64::from(row.duration), f64::from(row.delay));
    let period = duration + delay;
    Segment {
        r: (f64::from(row.speed) / period) as f32,
        c: ((c * duration + delay) / period + shift) as f32,
        hi,
        off,
    }
}

/// Whether `row` has an every-loop delay above 0: its folded segments count periods.
#[inline(always)]
pub(crate) fn gapped(row: &MotionRow) -> bool {
    row.delay_type() == DelayType::EveryLoop && row.delay > 0.0
}

/// The span of `row`'s folded segment `s` ([`folded`]): `P/D` (period over duration) for a
/// moving one of a [`gapped`] row, where `x = clamp(φ·span − (span − 1), 0, 1)` of the phase
/// `φ` in the period; else 1 (`x = φ`, exactly).
#[inline(always)]
pub(crate) fn span(row: &MotionRow, s: &Segment) -> f32 {
    if s.r != 0.0 && s.hi != f32::NEG_INFINITY && gapped(row) {
        let (duration, delay) = (f64::from(row.duration), f64::from(row.delay));
        ((duration + delay) / duration) as f32
    } else {
        1.0
    }
}

/// Motion time before the first loop starts (a first-loop delay), and the length of a loop
/// with its every-loop delay: what a folded segment's `v` counts in.
#[inline(always)]
fn lead_and_period(row: &MotionRow) -> (f64, f64) {
    let (duration, delay) = (f64::from(row.duration), f64::from(row.delay));
    if row.delay_type() == DelayType::EveryLoop {
        (0.0, duration + delay)
    } else {
        (delay, duration)
    }
}

/// Where a folded moving segment of `row` (a forward clock, loops back to back) ends,
/// relative to `epoch`: +∞ for infinite loops, else the end of the last loop less the margins
/// of [`end_of`] (the exact path takes the row from there to its completion).
fn fold_end(row: &MotionRow, epoch: f64) -> f32 {
    if row.loops < 0 {
        return f32::INFINITY;
    }
    let (speed, duration) = (f64::from(row.speed), f64::from(row.duration));
    let (lead, period) = lead_and_period(row);
    let margin = LOOP_MARGIN * duration + TIME_MARGIN * speed.abs();
    let end = lead + period * f64::from(row.loops) - margin;
    f32_down(row.base() + end / speed - epoch)
}

/// Row `row`'s moving folded segment `s` ([`folded`], relative to epoch `from`, of a chunk
/// whose rows loop as it needs) moved to epoch `to`, as a folded segment of the loop that `to`
/// lies in (`c` in `[0, 1)`; Flip and Yoyo: of the even loop at or before it, `c` in
/// `[0, 2)`). `c` is recomputed in f64 from the row, as [`segment`] computes it, with the loop
/// index `k` that the old `c` implies (it is within a rounding of an integer off the row's
/// loop count), so that re-basing never accumulates the rounding of `r` and `c` the way
/// shifting `c` by `(to − from)·r` would; Incremental's offset is `E(1)·k` of the new loop as
/// the reference forms it. An odd `k` for Flip or Yoyo (a `c` not made by [`folded`]), a stale
/// `c` or a constant segment is none.
#[inline]
pub(crate) fn rebased(
    row: &MotionRow,
    loop_type: u8,
    s: Segment,
    from: f64,
    to: f64,
) -> Option<Segment> {
    if s.hi == f32::NEG_INFINITY || s.r <= 0.0 || s.r.is_nan() {
        return None; // no segment, or a constant one
    }
    let speed = f64::from(row.speed);
    // The loop starts at `lead + P·k` (P: a loop and its every-loop delay, see `folded`).
    let (lead, period) = lead_and_period(row);
    let inv_period = 1.0 / period;
    let base = row.base();
    let loops_from = ((from - base) * speed - lead) * inv_period;
    let k_raw = loops_from - f64::from(s.c);
    // (|k_raw| < 2⁵¹: exact.)
    let k = super::batch::round_fast(k_raw);
    // Flip and Yoyo count from an even loop.
    let step = if matches!(loop_type, 1 | 3) { 2.0 } else { 1.0 };
    let odd = (k as i64) & 1 == 1;
    if (k_raw - k).abs() > 1e-3 || k < 0.0 || (step == 2.0 && odd) {
        return None;
    }
    // The phase at `to` counted from loop `k`, then from the loop (an even one for Flip and
    // Yoyo) it lies in.
    let phase = ((to - base) * speed - lead) * inv_period - k;
    let whole = super::batch::round_fast(phase / step);
    let whole = step
        * if whole * step > phase {
            whole - 1.0
        } else {
            whole
        };
    let k = k + whole;
    let off = if loop_type == 2 {
        row.ease().evaluate(1.0) * (k as u32) as f32
    } else {
        0.0
    };
    Some(Segment {
        r: s.r,
        c: (phase - whole) as f32,
        hi: fold_end(row, to),
        off,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ease::Ease;
    use crate::core::row::pack_flags;
    use crate::core::settings::TimeKind;
    use crate::eval::progress;
    use bytemuck::Zeroable;

    fn row(speed: f32, delay: f32, loops: i32, lt: LoopType, dt: DelayType) -> MotionRow {
        let mut r = MotionRow {
            duration: 2.0,
            delay,
            loops,
            speed,
            flags: pack_flags(Ease::OutQuad, lt, dt, TimeKind::Scaled, 1, 0),
            ..MotionRow::zeroed()
        };
        r.anchor(10.0, 0.0);
        r
    }

    /// The eased progress the segment predicts at relative time `w_rel`.
    fn predicted(row: &MotionRow, s: &Segment, w_rel: f32) -> f32 {
        let x = (w_rel * s.r + s.c).clamp(0.0, 1.0);
        let e = row.ease().evaluate(x);
        match row.loop_type() {
            LoopType::Flip if s.off != 0.0 => 1.0 - e,
            LoopType::Incremental => s.off + e,
            _ => e,
        }
    }

    #[test]
    fn segments_predict_the_reference_until_they_end() {
        let epoch = 11.0;
        for lt in LoopType::ALL {
            for dt in [DelayType::FirstLoop, DelayType::EveryLoop] {
                for speed in [1.0, 0.5, -1.5, 0.0] {
                    let r = row(speed, 0.5, 3, lt, dt);
                    let mut w = 10.0;
                    let mut segments = 0;
                    while w < 30.0 {
                        let p = progress(&r, r.clock(w));
                        let s = segment(&r, w, epoch, &p);
                        if s.hi > f32::NEG_INFINITY {
                            segments += 1;
                            // At the start the prediction is the reference (bit for bit
                            // when constant), and stays within tolerance until `hi`.
                            let mut v = w;
                            while v < 30.0 && ((v - epoch) as f32) < s.hi {
                                let want = progress(&r, r.clock(v)).eased;
                                let got = predicted(&r, &s, (v - epoch) as f32);
                                assert!(
                                    (got - want).abs() < 1e-5,
                                    "{lt:?} {dt:?} speed {speed} w {w} v {v}: {got} vs {want}"
                                );
                                if s.r == 0.0 {
                                    assert_eq!(got.to_bits(), want.to_bits());
                                }
                                v += 0.013;
                            }
                        }
                        w += 0.037;
                    }
                    assert!(segments > 100, "{lt:?} {dt:?} {speed}: {segments}");
                }
            }
        }
    }
}
