//! Segments: the stretch of world time around "now" over which a row's linear progress is an
//! affine function of world time (or a constant), so that later updates can skip the clock
//! and loop arithmetic of [`progress`](super::progress) until the stretch ends.
//!
//! A segment is derived from the reference evaluation at one world time (its loop index,
//! status and linear progress), never computed independently, and checked against it: where
//! the two could disagree (near a boundary, at a precision limit) there is no segment and the
//! row stays on the exact path.

use super::evaluate::Progress;
use crate::row::MotionRow;
use crate::settings::{DelayType, LoopType, MotionStatus};

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
    if duration <= 0.0 || row.ease_bits() >= crate::ease::PARAMETRIC_BASE {
        return NONE; // instantaneous loops: no stretch worth caching
    }
    let speed = f64::from(row.speed);
    let delay = f64::from(row.delay);
    let loops = f64::from(row.loops);
    let k = p.completed_loops;
    let kf = f64::from(k);
    let every = row.delay_type() == DelayType::EveryLoop;
    let period = if every { duration + delay } else { duration };
    let loop_type = row.loop_type();
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

/// The margin of [`end_of`] in progress units (`x`) for a segment of slope `r`: both margins
/// converted with `x = w·r + c`.
fn margin_x(r: f32) -> f64 {
    LOOP_MARGIN + TIME_MARGIN * f64::from(r.abs())
}

/// What [`next_loop`] found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Next {
    /// The next loop's segment, which covers `w`.
    Segment(Segment),
    /// `w` is at the boundary, short of the next loop's margin: the exact path for this
    /// update, and the current segment kept so that a later update derives again.
    Early,
    /// Past the next loop's stretch (a step over a loop's end margin or more), or no moving
    /// segment: the exact path, and its segment.
    No,
}

/// The next loop's segment, derived from the current one (`r`, `c`, `off`, a moving segment
/// of a row whose loops follow each other without a gap: infinite loops, speed > 0, no delay
/// between loops; the caller checks that), if relative world time `w` lies safely inside it.
/// Within the margins of the boundary, where the reference's loop index could round either
/// way, and past the next loop, the row takes the exact path.
///
/// `loop_type` is [`LoopType`]'s discriminant and `e1` the ease at 1 (Incremental's step).
/// The next loop's `x` is this loop's less one, folded as [`segment`] folds it: Restart, Flip
/// and Incremental `c − 1` (Flip toggles `off`, Incremental adds `E(1)` to it); Yoyo's
/// forward loop `(r, c)` is followed by the backward `(−r, 2 − c)` and a backward one by the
/// forward `(−r, −c)`. Each derivation rounds `c` once more (half an ulp, < 3e-7 while
/// `|c| < 8`); a re-base recomputes `c` from the row ([`rebased`]), which bounds the sum to
/// the loops of one epoch (`PRECISION_SPAN` of them at most); the ends keep [`end_of`]'s
/// margins in `x`, which cover it many times over.
///
/// `inv_r` is `1 / r` in f64 (computed once for a chunk whose rows share `r`).
#[inline]
pub(crate) fn next_loop(
    loop_type: u8,
    e1: f32,
    (r, inv_r): (f32, f64),
    c: f32,
    off: f32,
    w: f32,
) -> Next {
    if !(r > 0.0 || (loop_type == 3 && r < 0.0)) {
        return Next::No; // a constant segment, or a backward clock
    }
    let (r2, c2, off2) = match loop_type {
        3 if r > 0.0 => (-r, 2.0 - c, 0.0),
        3 => (-r, -c, 0.0),
        1 => (r, c - 1.0, 1.0 - off),
        2 => (r, c - 1.0, (f64::from(off) + f64::from(e1)) as f32),
        _ => (r, c - 1.0, 0.0),
    };
    let inv_r2 = if r2 == r { inv_r } else { -inv_r };
    if let Some(s) = ending((r2, inv_r2), c2, off2, w) {
        return Next::Segment(s);
    }
    // How far into the next loop `w` is (the raw phase: a backward loop's `x` runs 1 → 0).
    let x = f64::from(w) * f64::from(r2) + f64::from(c2);
    let into = if r2 > 0.0 { x } else { 1.0 - x };
    if into < margin_x(r2) {
        Next::Early
    } else {
        Next::No
    }
}

/// Row `row`'s moving segment `s` (relative to epoch `from`, a chunk whose rows loop as
/// [`next_loop`] needs) moved to epoch `to`, if relative world time `w` (from `to`) lies
/// safely inside it. The loop is the same, so `r` is kept; `c` is recomputed in f64 from the
/// row, as [`segment`] computes it, with the loop index `k` that the old `c` implies (it is
/// within a rounding of an integer off the row's loop count), and Incremental's `off` from
/// `k`, so that re-basing never accumulates the rounding of `r`, `c` and `off` the way
/// shifting `c` by `(to − from)·r` would. A `k` whose parity disagrees with the segment's
/// folding (Yoyo's direction, Flip's mirror) is no segment.
#[inline]
pub(crate) fn rebased(
    row: &MotionRow,
    loop_type: u8,
    s: Segment,
    from: f64,
    to: f64,
    w: f32,
) -> Option<Segment> {
    let backward = s.r < 0.0;
    if s.hi == f32::NEG_INFINITY || !(s.r > 0.0 || (loop_type == 3 && backward)) {
        return None; // no segment, or a constant one
    }
    let speed = f64::from(row.speed);
    let inv_duration = 1.0 / f64::from(row.duration);
    // The loop starts at `lead + D·k` (an every-loop delay is 0 here).
    let lead = if row.delay_type() == DelayType::EveryLoop {
        0.0
    } else {
        f64::from(row.delay)
    };
    let base = row.base();
    // Yoyo's backward loops are folded: `c = 1 − c_raw`.
    let unfold = |c: f64| if backward { 1.0 - c } else { c };
    let loops_from = ((from - base) * speed - lead) * inv_duration;
    let k_raw = loops_from - unfold(f64::from(s.c));
    // (|k_raw| < 2⁵¹: exact.)
    let k = super::batch::round_fast(k_raw);
    // A `c` that is not the row's (a stale one) or a parity that disagrees: the exact path.
    let odd = (k as i64) & 1 == 1;
    let parity_agrees = match loop_type {
        1 => odd == (s.off != 0.0),
        3 => odd == backward,
        _ => true,
    };
    if (k_raw - k).abs() > 1e-3 || k < 0.0 || !parity_agrees {
        return None;
    }
    let c = unfold(((to - base) * speed - lead) * inv_duration - k);
    // Incremental's offset from `k` as the reference forms it (`E(1)·k`, `k` saturated to
    // u32), not the sum that loop ends built up.
    let off = if loop_type == 2 {
        row.ease().evaluate(1.0) * (k as u32) as f32
    } else {
        s.off
    };
    ending((s.r, 1.0 / f64::from(s.r)), c as f32, off, w)
}

/// The segment `(r, c, off)` with its end where `x` reaches the far margin, if `w` lies inside
/// its stretch `[m, 1 − m]` of `x` (the rounding down keeps `hi` inside; a product with
/// `inv_r = 1/r` instead of the quotient moves it by ~1e-16 relative, far inside the margin).
#[inline]
fn ending((r, inv_r): (f32, f64), c: f32, off: f32, w: f32) -> Option<Segment> {
    let m = margin_x(r);
    let (r64, c64) = (f64::from(r), f64::from(c));
    let x = f64::from(w) * r64 + c64;
    if !(x >= m && x <= 1.0 - m) {
        return None;
    }
    let target = if r > 0.0 { 1.0 - m } else { m };
    let hi = f32_down((target - c64) * inv_r);
    (w < hi).then_some(Segment { r, c, hi, off })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::progress;
    use crate::ease::Ease;
    use crate::row::pack_flags;
    use crate::settings::TimeKind;
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

    /// Walks rows that loop for ever, forward and back to back, through hundreds of loop
    /// ends, deriving each loop's segment from the last ([`next_loop`]) and re-basing now and
    /// then ([`rebased`]) without going back to the reference: every prediction within
    /// tolerance of the reference, and a derivation at nearly every loop end.
    #[test]
    fn derived_segments_predict_the_reference() {
        for lt in LoopType::ALL {
            for (dt, delay) in [(DelayType::FirstLoop, 0.5f32), (DelayType::EveryLoop, 0.0)] {
                for speed in [1.0f32, 0.5, 3.7] {
                    let r = row(speed, delay, -1, lt, dt);
                    let e1 = r.ease().evaluate(1.0);
                    let mut epoch = 11.0;
                    // Start inside the second loop, from the reference.
                    let mut w = 10.0 + f64::from(delay + 2.5) / f64::from(speed);
                    let mut s = segment(&r, w, epoch, &progress(&r, r.clock(w)));
                    assert!(s.hi > f32::NEG_INFINITY);
                    let (mut derived, mut ends, mut dropped) = (0, 0, 0);
                    while w < 400.0 {
                        w += 0.013;
                        if w - epoch > 6.0 {
                            // A re-base: the same loop, `c` from the row.
                            let to = w - 0.005;
                            let kept = rebased(&r, lt as u8, s, epoch, to, (w - to) as f32);
                            epoch = to;
                            // Only next to a loop's end (within its margins) does a re-base
                            // drop the segment: the reference then.
                            s = kept.unwrap_or_else(|| {
                                dropped += 1;
                                segment(&r, w, epoch, &progress(&r, r.clock(w)))
                            });
                            if s.hi == f32::NEG_INFINITY {
                                continue;
                            }
                        }
                        let rel = (w - epoch) as f32;
                        if rel >= s.hi {
                            ends += 1;
                            match next_loop(
                                lt as u8,
                                e1,
                                (s.r, 1.0 / f64::from(s.r)),
                                s.c,
                                s.off,
                                rel,
                            ) {
                                Next::Segment(next) => {
                                    derived += 1;
                                    s = next;
                                }
                                // At the boundary itself (this walk's 0.013 s steps
                                // land on some): the exact path, derived a step later.
                                Next::Early => {
                                    ends -= 1;
                                    continue;
                                }
                                Next::No => panic!("{lt:?} {dt:?} {speed}: no next loop at {w}"),
                            }
                        }
                        let want = progress(&r, r.clock(w)).eased;
                        let got = predicted(&r, &s, rel);
                        assert!(
                            (got - want).abs() < 1e-5 * want.abs().max(1.0),
                            "{lt:?} {dt:?} speed {speed} w {w}: {got} vs {want}"
                        );
                    }
                    assert!(
                        derived > 50 && derived * 10 > ends * 9,
                        "{derived} of {ends}"
                    );
                    assert!(dropped < 5, "{dropped} re-bases dropped the segment");
                }
            }
        }
    }
}
