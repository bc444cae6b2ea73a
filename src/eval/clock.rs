//! The reference evaluation of one motion row (docs/semantics.md §2): clock → loops, status and
//! eased progress. Both the CPU executor's hot loop and the world's O(1) queries call this,
//! so they cannot disagree; the GPU pass ports it to WGSL.

use crate::core::curve::{GpuKey, ID_CURVE};
use crate::core::ease::PARAMETRIC_BASE;
use crate::core::row::MotionRow;
use crate::core::settings::{DelayType, LoopType, MotionStatus};
use crate::eval::curve::curve_ease;
use crate::eval::easing::parametric;

/// A motion evaluated at one clock value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Delayed, Playing or Completed (Scheduled and Canceled are the world's to report).
    pub status: MotionStatus,
    /// Completed loops `k`, clamped to `[0, L]` (saturating at `u32::MAX` for infinite loops).
    pub completed_loops: u32,
    /// Linear progress within the current loop, `[0, 1]`.
    pub linear: f32,
    /// Eased progress after the loop type, the `p` that adapters interpolate with.
    pub eased: f32,
}

impl Progress {
    /// Whether the status is Completed.
    #[inline]
    #[must_use]
    pub fn is_completed(&self) -> bool {
        self.status == MotionStatus::Completed
    }
}

/// `floor` without a libm call on baseline x86-64 (no SSE4.1 `roundsd`): exact for
/// `|x| < 2^52`, the identity above (where every f64 is already an integer).
#[inline(always)]
fn floor(x: f64) -> f64 {
    if x.abs() < 4_503_599_627_370_496.0 {
        let truncated = x as i64 as f64;
        if truncated > x {
            truncated - 1.0
        } else {
            truncated
        }
    } else {
        x
    }
}

/// The loop type applied around ease `f` (docs/semantics.md §2): `p` from the linear progress
/// `linear` and the completed loops.
#[inline(always)]
fn loop_eased(
    loop_type: LoopType,
    linear: f32,
    completed_loops: u32,
    f: impl Fn(f32) -> f32,
) -> f32 {
    let at_end = u32::from(linear == 1.0);
    let odd = (completed_loops.wrapping_add(at_end)) & 1 == 1;
    match loop_type {
        LoopType::Restart => f(linear),
        LoopType::Flip => {
            let e = f(linear);
            if odd {
                1.0 - e
            } else {
                e
            }
        }
        LoopType::Yoyo => f(if odd { 1.0 - linear } else { linear }),
        LoopType::Incremental => {
            let within = if linear == 1.0 { 0.0 } else { linear };
            f(1.0) * completed_loops as f32 + f(within)
        }
    }
}

/// The eased progress of `p` (an evaluation of `row`) with the row's parameter lanes
/// `params` and the world's curve key table `keys`: `p.eased` for the standard eases;
/// parametric eases and animation curves (whose parameters [`progress`] does not see) are
/// evaluated here.
#[inline]
#[must_use]
pub(crate) fn eased_with(row: &MotionRow, p: &Progress, params: [f32; 4], keys: &[GpuKey]) -> f32 {
    let id = row.ease_bits();
    if id < PARAMETRIC_BASE {
        p.eased
    } else {
        loop_eased(row.loop_type(), p.linear, p.completed_loops, |x| {
            parametric_or_curve(id, params, keys, x)
        })
    }
}

/// The row's ease (with its parameter lanes `params`, curve keys in `keys`) at `x`.
#[inline]
#[must_use]
pub(crate) fn ease_at(row: &MotionRow, params: [f32; 4], keys: &[GpuKey], x: f32) -> f32 {
    let id = row.ease_bits();
    if id < PARAMETRIC_BASE {
        row.ease().evaluate(x)
    } else {
        parametric_or_curve(id, params, keys, x)
    }
}

/// A parametric ease or an animation curve (id ≥ 32) at `x`.
#[inline]
fn parametric_or_curve(id: u32, params: [f32; 4], keys: &[GpuKey], x: f32) -> f32 {
    if id == ID_CURVE {
        curve_ease(keys, params, x)
    } else {
        parametric(id, params, x)
    }
}

/// Evaluates `row` at motion clock `time` (delay included, may be negative). For a
/// parametric ease (which needs the row's parameter lanes) `eased` is the linear progress after
/// the loop type; [`MotionWorld::progress`](crate::MotionWorld::progress) applies the ease.
#[inline(always)]
#[must_use]
pub fn progress(row: &MotionRow, time: f64) -> Progress {
    let Timing {
        completed_loops,
        completed,
        delayed,
        linear,
    } = timing(row, time);
    let ease = row.ease();
    let eased = loop_eased(row.loop_type(), linear, completed_loops, |x| {
        ease.evaluate(x)
    });

    let status = if completed {
        MotionStatus::Completed
    } else if delayed || time < 0.0 {
        MotionStatus::Delayed
    } else {
        MotionStatus::Playing
    };
    Progress {
        status,
        completed_loops,
        linear,
        eased,
    }
}

/// Whether `row` has completed at motion clock `time`: [`progress`]'s status is
/// Completed, without the ease (the world's check of a finishing motion that nothing
/// watches).
#[inline(always)]
#[must_use]
pub(crate) fn completed_at(row: &MotionRow, time: f64) -> bool {
    timing(row, time).completed
}

/// [`progress`] before the ease: loops, completion, delay and the linear progress.
struct Timing {
    completed_loops: u32,
    completed: bool,
    delayed: bool,
    linear: f32,
}

#[inline(always)]
fn timing(row: &MotionRow, time: f64) -> Timing {
    let delay = f64::from(row.delay);
    let duration = f64::from(row.duration);
    let infinite = row.loops < 0;
    let loops = f64::from(row.loops);
    let clamp_loops = |c: f64| {
        if infinite {
            c.max(0.0)
        } else {
            c.clamp(0.0, loops)
        }
    };
    let clamped_time = time.max(0.0);
    let since_start = time - delay;
    let every_loop = row.delay_type() == DelayType::EveryLoop;

    let (mut loop_index, mut completed, mut delayed, linear);
    if duration <= 0.0 {
        if !every_loop || delay == 0.0 {
            completed = !infinite && since_start > 0.0;
            linear = if completed { 1.0 } else { 0.0 };
            loop_index = if completed {
                loops
            } else if since_start < 0.0 {
                -1.0
            } else {
                0.0
            };
            delayed = since_start < 0.0;
        } else {
            loop_index = floor(clamped_time / delay);
            completed = !infinite && clamp_loops(loop_index) >= loops;
            delayed = !completed;
            linear = if completed { 1.0 } else { 0.0 };
        }
    } else if !every_loop {
        // Multiplying by reciprocals (rather than dividing) lets the executor hoist them out
        // of its loop for runs of rows with equal timing, with bit-identical results.
        let inv_duration = 1.0 / duration;
        loop_index = floor(since_start * inv_duration);
        completed = !infinite && clamp_loops(loop_index) >= loops;
        delayed = since_start < 0.0;
        linear = if completed {
            1.0
        } else {
            ((since_start - duration * clamp_loops(loop_index)) * inv_duration).clamp(0.0, 1.0)
        };
    } else {
        let period = duration + delay;
        loop_index = floor(clamped_time * (1.0 / period));
        // `clamped_time − period·c` rather than a separate fmod, so that the phase and the
        // loop index can never disagree by one loop at a boundary.
        let in_loop = clamped_time - period * loop_index - delay;
        completed = !infinite && clamp_loops(loop_index) >= loops;
        delayed = in_loop < 0.0;
        linear = if completed {
            1.0
        } else {
            (in_loop * (1.0 / duration)).clamp(0.0, 1.0)
        };
    }

    let mut linear = linear as f32;
    if duration > 0.0 && !completed && linear == 1.0 {
        // The phase is within half an f32 ulp of the loop's end: that is the boundary
        // itself, the start of the next loop (or the end). Without this, `int(t)` would
        // flip the parity of Flip and Yoyo, and Incremental would drop a loop, for one
        // update just before a boundary. The GPU pass does the same.
        loop_index += 1.0;
        completed = !infinite && clamp_loops(loop_index) >= loops;
        delayed = every_loop && delay > 0.0 && !completed;
        linear = if completed { 1.0 } else { 0.0 };
    }
    Timing {
        // `as u32` saturates: an infinite loop past 2^32 loops reports u32::MAX.
        completed_loops: clamp_loops(loop_index) as u32,
        completed,
        delayed,
        linear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ease::Ease;
    use crate::core::row::pack_flags;
    use crate::core::settings::TimeKind;
    use bytemuck::Zeroable;

    fn row(duration: f32, delay: f32, loops: i32, lt: LoopType, dt: DelayType) -> MotionRow {
        MotionRow {
            duration,
            delay,
            loops,
            speed: 1.0,
            flags: pack_flags(Ease::Linear, lt, dt, TimeKind::Scaled, 1, 0),
            ..MotionRow::zeroed()
        }
    }

    #[test]
    fn floor_matches_std() {
        for x in [-2.5, -2.0, -0.0, 0.0, 0.3, 1.0, 1.999, 7e15, -7e15] {
            assert_eq!(floor(x), x.floor(), "{x}");
        }
    }

    #[test]
    fn first_loop_delay_worked_example() {
        // D = 1, d = 0.5, 3 loops, Restart: at T = 2.0 one loop done, half-way through loop 2.
        let r = row(1.0, 0.5, 3, LoopType::Restart, DelayType::FirstLoop);
        let p = progress(&r, 2.0);
        assert_eq!(p.status, MotionStatus::Playing);
        assert_eq!(p.completed_loops, 1);
        assert_eq!(p.eased, 0.5);
        assert_eq!(progress(&r, 0.25).status, MotionStatus::Delayed);
        let end = progress(&r, 3.5);
        assert_eq!(
            (end.status, end.completed_loops, end.eased),
            (MotionStatus::Completed, 3, 1.0)
        );
    }

    #[test]
    fn every_loop_delay_and_yoyo() {
        // Period 1.5 (D = 1, d = 0.5). T = 2.25: loop 1, 0.25 s into it → Yoyo plays back: 0.75.
        let r = row(1.0, 0.5, 2, LoopType::Yoyo, DelayType::EveryLoop);
        let p = progress(&r, 2.25);
        assert_eq!(p.completed_loops, 1);
        assert!((p.eased - 0.75).abs() < 1e-6);
        // T = 1.6 is inside loop 1's delay: Delayed, holding the start of the backward loop.
        let q = progress(&r, 1.6);
        assert_eq!(q.status, MotionStatus::Delayed);
        assert_eq!(q.eased, 1.0);
    }

    #[test]
    fn incremental_and_flip_at_completion() {
        let inc = row(1.0, 0.0, 3, LoopType::Incremental, DelayType::FirstLoop);
        assert_eq!(progress(&inc, 3.0).eased, 3.0);
        assert_eq!(progress(&inc, 1.5).eased, 1.5);
        let flip = row(1.0, 0.0, 2, LoopType::Flip, DelayType::FirstLoop);
        assert_eq!(progress(&flip, 2.0).eased, 0.0);
        assert_eq!(progress(&flip, 1.25).eased, 0.75);
    }

    #[test]
    fn zero_duration_completes_strictly_after_delay() {
        let r = row(0.0, 0.0, 1, LoopType::Restart, DelayType::FirstLoop);
        assert_eq!(progress(&r, 0.0).status, MotionStatus::Playing);
        assert_eq!(progress(&r, 1e-9).status, MotionStatus::Completed);
        // Every-loop delay 0.125 (exact in binary), 3 loops: one loop per delay period.
        let every = row(0.0, 0.125, 3, LoopType::Restart, DelayType::EveryLoop);
        assert_eq!(progress(&every, 0.3).status, MotionStatus::Delayed);
        assert_eq!(progress(&every, 0.3).completed_loops, 2);
        assert_eq!(progress(&every, 0.375).status, MotionStatus::Completed);
    }

    #[test]
    fn negative_clock_is_delayed_at_start() {
        let r = row(1.0, 0.0, -1, LoopType::Restart, DelayType::FirstLoop);
        let p = progress(&r, -0.5);
        assert_eq!(
            (p.status, p.completed_loops, p.eased),
            (MotionStatus::Delayed, 0, 0.0)
        );
    }

    #[test]
    fn a_phase_rounding_to_the_end_is_the_boundary() {
        // Yoyo 0→1 over 0.5 s: at T a hair (≈2e-16 s) before 0.5 the f64 phase rounds to
        // 1.0 in f32; the value must be the end of loop 0 (= start of the backward loop 1),
        // not E(0) of a flipped parity.
        let r = row(0.5, 0.0, 4, LoopType::Yoyo, DelayType::FirstLoop);
        let p = progress(&r, 0.499_999_999_999_999_8);
        assert_eq!((p.completed_loops, p.eased), (1, 1.0));
        // On the last loop the boundary is the end.
        let last = row(0.5, 0.0, 1, LoopType::Restart, DelayType::FirstLoop);
        let q = progress(&last, 0.499_999_999_999_999_8);
        assert_eq!((q.status, q.eased), (MotionStatus::Completed, 1.0));
    }
}
