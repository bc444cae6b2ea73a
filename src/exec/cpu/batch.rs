//! The CPU executor's hot loop: rows in chunks of 64, each chunk in three passes over small
//! stack arrays so that the common case compiles to SIMD.
//!
//! 1. **Timing** (branch-free, f64): clock → loop index → linear progress, parity and
//!    completed loops. Zero-duration rows (rare, other formulas) are flagged for the scalar path.
//! 2. **Easing**: when the whole chunk shares one ease and loop type (the usual case: rows are
//!    created in batches), one monomorphic loop per (ease, loop type) pair; otherwise row by
//!    row with each row's own ease (a chunk with a zero-duration row: the scalar reference
//!    [`progress`] per row).
//!
//! A chunk whose rows share everything but their lanes (a burst made in one update) skips
//! passes 1 and 2: its one progress comes from the reference.
//! 3. **Values** ([`super::lanes`]): as many lanes as the chunk's widest row has, for every
//!    row; quaternion rows in SIMD groups, punch and shake per row.
//!
//! Every result equals the scalar reference [`progress`] bit for bit (a test checks this on
//! random rows): the same operations in the same order, only without branches.

use crate::core::ease::{with_every_ease, Ease, PARAMETRIC_BASE};
use crate::core::row::{
    MotionRow, FLAG_ADAPTER_SHIFT, FLAG_CLOCK_SHIFT, FLAG_EVERY_LOOP_DELAY, FLAG_LANES_SHIFT,
};
use crate::eval::clock::{eased_with, progress};

/// Rows per chunk: large enough to amortise the per-chunk checks, small enough that the
/// temporaries stay in L1.
pub(crate) const CHUNK: usize = 64;

/// `flags` bits that select the easing loop: ease and loop type.
const EASE_LOOP_MASK: u32 = 0x3ff;

/// Nearest integer (ties to even) by adding and removing 1.5·2⁵², which leaves no fraction
/// bits: SIMD-friendly and no libm call on baseline x86-64 (no SSE4.1 `roundpd`). Exact for
/// |x| < 2^51.
#[inline(always)]
pub(crate) fn round_fast(x: f64) -> f64 {
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5 · 2^52
    (x + MAGIC) - MAGIC
}

/// Floor by [`round_fast`]. Exact for |x| < 2^51; callers clamp to ±2^50 first.
#[inline(always)]
fn floor_fast(x: f64) -> f64 {
    let rounded = round_fast(x);
    if rounded > x {
        rounded - 1.0
    } else {
        rounded
    }
}

/// Stack temporaries of one chunk.
struct Timing {
    time: [f64; CHUNK],
    linear: [f32; CHUNK],
    /// Completed loops as f32 (for Incremental), saturated like the reference's `as u32`.
    loops: [f32; CHUNK],
    /// `(k + int(t))` is odd.
    odd: [bool; CHUNK],
}

/// A row's timing constants: everything but its base.
#[derive(Clone, Copy)]
struct RowTiming {
    w: f64,
    speed: f64,
    delay: f64,
    loops: f64,
    infinite: bool,
    every: bool,
    /// `D + d` (EveryLoop) or `D` (FirstLoop).
    period: f64,
    inv_period: f64,
    inv_duration: f64,
}

impl RowTiming {
    #[inline(always)]
    fn of(row: &MotionRow, now: &[f64]) -> Self {
        let w = now[row.clock_index()];
        let delay = f64::from(row.delay);
        let duration = f64::from(row.duration);
        let every = row.flags & FLAG_EVERY_LOOP_DELAY != 0;
        let period = if every { duration + delay } else { duration };
        Self {
            w,
            speed: f64::from(row.speed),
            delay,
            loops: f64::from(row.loops),
            infinite: row.loops < 0,
            every,
            period,
            inv_period: 1.0 / period,
            inv_duration: 1.0 / duration,
        }
    }
}

/// `flags` bits that affect timing (delay type, clock); with speed, duration, delay and
/// loops equal, two rows differ only in their base.
const TIMING_FLAGS: u32 = FLAG_EVERY_LOOP_DELAY | (0xff << FLAG_CLOCK_SHIFT);

/// What a chunk is made of, found in one branch-free pass.
struct Shape {
    /// Every row has the first row's speed, duration, delay, loops and timing flags.
    same_timing: bool,
    /// Every row has the first row's ease and loop type.
    same_easing: bool,
    /// Every row has the first row's base (rows created in the same update).
    same_base: bool,
    /// Some row has a zero duration (the scalar path's formulas).
    zero_duration: bool,
    /// Lanes of the widest row (1 to 4; an over-approximation where widths differ).
    lanes: usize,
    /// Some row has an adapter other than lerp (overwritten after the lerp pass).
    non_lerp: bool,
    /// Some row has a parametric ease (the scalar path after the easing pass).
    parametric: bool,
}

#[inline(always)]
fn shape(rows: &[MotionRow]) -> Shape {
    let first = &rows[0];
    let (mut timing, mut easing, mut base, mut lanes, mut adapters, mut zero) =
        (0u32, 0u32, 0u32, 0u32, 0u32, false);
    let mut parametric = 0u32;
    for r in rows {
        timing |= (r.speed.to_bits() ^ first.speed.to_bits())
            | (r.duration.to_bits() ^ first.duration.to_bits())
            | (r.delay.to_bits() ^ first.delay.to_bits())
            | (r.loops ^ first.loops) as u32
            | ((r.flags ^ first.flags) & TIMING_FLAGS);
        easing |= (r.flags ^ first.flags) & EASE_LOOP_MASK;
        base |= (r.base_hi.to_bits() ^ first.base_hi.to_bits())
            | (r.base_lo.to_bits() ^ first.base_lo.to_bits());
        lanes |= r.flags & (3 << FLAG_LANES_SHIFT);
        adapters |= r.flags & (0xf << FLAG_ADAPTER_SHIFT);
        parametric |= r.flags & 0xe0; // ease id ≥ 32
        zero |= r.duration <= 0.0;
    }
    Shape {
        same_timing: timing == 0,
        same_easing: easing == 0,
        same_base: base == 0,
        zero_duration: zero,
        lanes: lane_count(lanes),
        non_lerp: adapters != 0,
        parametric: parametric != 0,
    }
}

/// The lanes of a chunk from the OR of its rows' lane bits: the widest row's count, or
/// more where the widths differ (Vec2 | Vec3 reads as four), never less.
#[inline(always)]
pub(crate) fn lane_count(lane_bits: u32) -> usize {
    ((lane_bits >> FLAG_LANES_SHIFT) & 3) as usize + 1
}

/// One row of pass 1: the reference's arithmetic (see [`progress`]) without branches.
#[inline(always)]
fn timing_row(row: &MotionRow, k: &RowTiming, out: &mut Timing, i: usize) {
    let base = f64::from(row.base_hi) + f64::from(row.base_lo);
    let time = if k.speed == 0.0 {
        base
    } else {
        (k.w - base) * k.speed
    };
    // FirstLoop: c = floor((T − d) / D), phase (T − d) − D·clampL(c).
    // EveryLoop: c = floor(max(T, 0) / (D + d)), phase max(T, 0) − (D + d)·c − d.
    let x = if k.every {
        time.max(0.0)
    } else {
        time - k.delay
    };
    let c = floor_fast((x * k.inv_period).clamp(-1e15, 1e15));
    let clamped = if k.infinite {
        c.max(0.0)
    } else {
        c.clamp(0.0, k.loops)
    };
    let completed = !k.infinite && clamped >= k.loops;
    // EveryLoop's c is never negative and differs from the clamped one only once
    // completed, where the phase is not used, so one expression serves both.
    let phase = if k.every {
        x - k.period * clamped - k.delay
    } else {
        x - k.period * clamped
    };
    let linear = if completed {
        1.0
    } else {
        (phase * k.inv_duration).clamp(0.0, 1.0) as f32
    };
    // A phase that rounds to the loop's end is the boundary: the next loop (see `progress`).
    let snap = !completed && linear == 1.0;
    let clamped = if snap { clamped + 1.0 } else { clamped };
    let completed = completed || (snap && !k.infinite && clamped >= k.loops);
    let linear = if completed {
        1.0
    } else if snap {
        0.0
    } else {
        linear
    };
    let saturated = clamped.min(f64::from(u32::MAX));
    let at_end = if linear == 1.0 { 1.0 } else { 0.0 };
    let half = (saturated + at_end) * 0.5;
    out.time[i] = time;
    out.linear[i] = linear;
    out.loops[i] = saturated as f32;
    out.odd[i] = floor_fast(half) != half;
}

/// Pass 1.
#[inline(always)]
fn timing(rows: &[MotionRow], shape: &Shape, now: &[f64], out: &mut Timing) {
    if shape.same_timing && !shape.zero_duration {
        // A run of equal timing: the constants (and their divisions) once per chunk.
        let k = RowTiming::of(&rows[0], now);
        for (i, row) in rows.iter().enumerate() {
            timing_row(row, &k, out, i);
        }
    } else {
        for (i, row) in rows.iter().enumerate() {
            timing_row(row, &RowTiming::of(row, now), out, i);
        }
    }
}

/// Pass 2 for a homogeneous chunk: one ease `f`, one loop type.
#[inline(always)]
fn ease_chunk(f: impl Fn(f32) -> f32, loop_type: u32, t: &Timing, n: usize, p: &mut [f32; CHUNK]) {
    let (p, linear, odd, loops) = (&mut p[..n], &t.linear[..n], &t.odd[..n], &t.loops[..n]);
    match loop_type {
        0 => {
            for (p, &x) in p.iter_mut().zip(linear) {
                *p = f(x);
            }
        }
        1 => {
            for ((p, &x), &odd) in p.iter_mut().zip(linear).zip(odd) {
                let e = f(x);
                *p = if odd { 1.0 - e } else { e };
            }
        }
        2 => {
            let end = f(1.0);
            for ((p, &x), &k) in p.iter_mut().zip(linear).zip(loops) {
                let within = if x == 1.0 { 0.0 } else { x };
                *p = end * k + f(within);
            }
        }
        _ => {
            for ((p, &x), &odd) in p.iter_mut().zip(linear).zip(odd) {
                *p = f(if odd { 1.0 - x } else { x });
            }
        }
    }
}

/// Pass 2 for row `i` of a chunk that mixes eases or loop types: [`ease_chunk`]'s arithmetic
/// with the row's own ease (`key`: ease and loop type bits), so the same result bit for bit,
/// without the reference's second pass over the timing.
#[inline(always)]
fn ease_row(key: u32, t: &Timing, i: usize) -> f32 {
    let ease = Ease::from_bits(key & 0xff);
    let f = |x: f32| ease.map_or(x, |e| e.evaluate(x));
    let (x, odd, loops) = (t.linear[i], t.odd[i], t.loops[i]);
    match key >> 8 {
        0 => f(x),
        1 => {
            let e = f(x);
            if odd {
                1.0 - e
            } else {
                e
            }
        }
        2 => {
            let within = if x == 1.0 { 0.0 } else { x };
            f(1.0) * loops + f(within)
        }
        _ => f(if odd { 1.0 - x } else { x }),
    }
}

/// Dispatches a homogeneous chunk to its monomorphic easing loop.
fn ease_homogeneous(key: u32, t: &Timing, n: usize, p: &mut [f32; CHUNK]) {
    let loop_type = key >> 8;
    macro_rules! dispatch {
        ($($ease:ident),*) => {
            match Ease::from_bits(key & 0xff) {
                $(Some(Ease::$ease) => ease_chunk(|x| Ease::$ease.evaluate(x), loop_type, t, n, p),)*
                None => ease_chunk(|x| x, loop_type, t, n, p),
            }
        };
    }
    with_every_ease!(dispatch);
}

/// Output columns of a range, lane by lane.
pub(crate) struct Columns<'a> {
    /// Four value lanes, then the parameter lanes as two sections of pairs.
    pub lanes: [&'a [[f32; 2]]; 6],
    pub outputs: [&'a mut [f32]; 4],
    /// The world's curve key table (read by curve rows only).
    pub keys: &'a [crate::core::curve::GpuKey],
}

/// Evaluates `rows` (with their lane pairs and output columns, all of the same length) at
/// world clocks `now`.
pub(crate) fn evaluate(rows: &[MotionRow], columns: Columns<'_>, now: &[f64]) {
    let Columns {
        lanes,
        outputs,
        keys,
    } = columns;
    let [out0, out1, out2, out3] = outputs;
    let mut timing_buf = Timing {
        time: [0.0; CHUNK],
        linear: [0.0; CHUNK],
        loops: [0.0; CHUNK],
        odd: [false; CHUNK],
    };
    let mut p = [0.0f32; CHUNK];
    // The constants of a chunk's quaternion rows (`lanes::QuatColumns`).
    let (mut theta, mut inv_sin) = ([0.0f32; CHUNK], [0.0f32; CHUNK]);
    for (chunk_index, chunk) in rows.chunks(CHUNK).enumerate() {
        let start = chunk_index * CHUNK;
        let n = chunk.len();
        let shape = shape(chunk);
        if shape.same_timing && shape.same_base && shape.same_easing {
            // A burst: rows made in the same update with the same settings share one
            // progress, computed once by the reference.
            let first = &chunk[0];
            p[..n].fill(progress(first, first.clock(now[first.clock_index()])).eased);
        } else if shape.same_easing && !shape.zero_duration {
            timing(chunk, &shape, now, &mut timing_buf);
            ease_homogeneous(chunk[0].flags & EASE_LOOP_MASK, &timing_buf, n, &mut p);
        } else if !shape.zero_duration {
            // Mixed eases or loop types: pass 2 row by row, each with its own ease.
            timing(chunk, &shape, now, &mut timing_buf);
            for (i, row) in chunk.iter().enumerate() {
                p[i] = ease_row(row.flags & EASE_LOOP_MASK, &timing_buf, i);
            }
        } else {
            timing(chunk, &shape, now, &mut timing_buf);
            for (i, row) in chunk.iter().enumerate() {
                p[i] = progress(row, timing_buf.time[i]).eased;
            }
        }

        if shape.parametric {
            // Parametric eases read their parameter lanes: the scalar reference.
            for (i, row) in chunk.iter().enumerate() {
                if row.ease_bits() < PARAMETRIC_BASE {
                    continue;
                }
                let r = start + i;
                let ([p0, p1], [p2, p3]) = (lanes[4][r], lanes[5][r]);
                let at = progress(row, row.clock(now[row.clock_index()]));
                p[i] = eased_with(row, &at, [p0, p1, p2, p3], keys);
            }
        }

        let [o0, o1, o2, o3] = [&mut *out0, &mut *out1, &mut *out2, &mut *out3]
            .map(|column| &mut column[start..start + n]);
        let adapters = if shape.non_lerp {
            super::lanes::AdapterMasks::of(chunk)
        } else {
            super::lanes::AdapterMasks::default()
        };
        if adapters.quat != 0 {
            super::lanes::QuatColumns::fill(chunk, adapters.quat, &mut theta, &mut inv_sin);
        }
        super::lanes::values(
            chunk,
            [0, 1, 2, 3].map(|k| &lanes[k][start..start + n]),
            [o0, o1, o2, o3],
            &p[..n],
            super::lanes::QuatColumns {
                theta: &theta,
                inv_sin: &inv_sin,
            },
            shape.lanes,
            adapters,
            now,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::row::pack_flags;
    use crate::core::settings::{DelayType, LoopType, TimeKind};
    use crate::eval::adapters::row_value;
    use bytemuck::Zeroable;

    use crate::exec::cpu::test_rng::Rng;

    fn random_row(rng: &mut Rng, now: &[f64; 3]) -> MotionRow {
        let dt = [DelayType::FirstLoop, DelayType::EveryLoop];
        let kinds = [TimeKind::Scaled, TimeKind::Unscaled, TimeKind::Realtime];
        // Mostly lerp; some quaternion rows (four lanes), punches and shakes (one to
        // three) for the scalar adapter path.
        let adapter = rng.pick(&[0, 0, 0, 0, 0, 0, 1, 2, 3, 4]);
        let lane_count = match adapter {
            0 => 1 + (rng.next() % 4) as usize,
            1 | 2 => 4,
            _ => 1 + (rng.next() % 3) as usize,
        };
        let mut row = MotionRow {
            speed: rng.pick(&[1.0, 2.0, 0.5, 0.0, -1.0, -0.25, 3.7]),
            duration: rng.pick(&[0.0, 0.25, 0.3, 1.0, 2.5, 0.001]),
            delay: rng.pick(&[0.0, 0.0, 0.1, 0.5, 1.0]),
            loops: rng.pick(&[-1, 1, 2, 3, 7]),
            flags: pack_flags(
                rng.pick(&Ease::ALL),
                rng.pick(&LoopType::ALL),
                rng.pick(&dt),
                rng.pick(&kinds),
                lane_count,
                adapter,
            ),
            ..MotionRow::zeroed()
        };
        if rng.next().is_multiple_of(8) {
            // An animation curve row (its key range comes from `curve_params`).
            row.flags = (row.flags & !0xff) | crate::core::curve::ID_CURVE;
        }
        let kind = row.time_kind() as usize;
        row.anchor(now[kind] - rng.unit() * 20.0, rng.unit() * 30.0 - 5.0);
        row
    }

    /// A key table of three curves, and the parameter lanes of curve row `i`.
    fn curve_table() -> (crate::core::curve::CurvePool, Vec<[f32; 4]>) {
        use crate::core::curve::{AnimationCurve, Keyframe, WrapMode};
        let mut pool = crate::core::curve::CurvePool::default();
        let curves = [
            AnimationCurve::ease_in_out(),
            AnimationCurve::new([
                Keyframe::with_tangents(0.1, 0.2, 0.0, 3.0),
                Keyframe::new(0.4, 1.3).weights(0.7, 0.1),
                Keyframe::with_tangents(0.8, 0.9, f32::INFINITY, -1.0),
            ])
            .unwrap()
            .wrap(WrapMode::PingPong),
            AnimationCurve::new([Keyframe::new(0.5, 0.25)]).unwrap(),
        ];
        let params = curves.iter().map(|c| pool.insert(c)).collect();
        (pool, params)
    }

    #[test]
    fn batch_equals_scalar_reference_bit_for_bit() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let now = [123.456, 78.9, 1000.25];
        // Mixed chunks, and homogeneous ones (runs of one configuration).
        let mut rows: Vec<MotionRow> = (0..4096).map(|_| random_row(&mut rng, &now)).collect();
        // Mixed chunks without a zero-duration row (which sends its chunk to the reference):
        // the row-by-row easing pass.
        rows.extend((0..4096).map(|_| {
            let mut row = random_row(&mut rng, &now);
            if row.duration == 0.0 {
                row.duration = 0.5;
            }
            row
        }));
        for run in 0..32 {
            let template = random_row(&mut rng, &now);
            for _ in 0..CHUNK {
                let mut row = template;
                // Odd runs are bursts (one base for the whole chunk), even ones staggered.
                if run % 2 == 0 {
                    let kind = row.time_kind() as usize;
                    row.anchor(
                        now[kind] - rng.unit() * 20.0,
                        rng.unit() * 30.0 * f64::from(run),
                    );
                }
                rows.push(row);
            }
        }
        // Lane pairs as the world stores them: unused lanes (0, 0), punch and shake settings
        // (f, k) in lane 3.
        let pairs_of = |i: usize, row: &MotionRow| -> [[f32; 2]; 4] {
            let mut pairs = [[0.0; 2]; 4];
            for (k, pair) in pairs.iter_mut().enumerate().take(row.lane_count()) {
                *pair = [i as f32 + k as f32, -(i as f32) * 0.5];
            }
            if row.adapter_bits() >= 3 {
                pairs[3] = [10.0, 1.59];
            }
            pairs
        };
        let (pool, curve_params) = curve_table();
        let params_of = |i: usize, row: &MotionRow| -> [f32; 4] {
            if row.ease_bits() == crate::core::curve::ID_CURVE {
                curve_params[i % curve_params.len()]
            } else {
                [0.0; 4]
            }
        };
        let columns: Vec<Vec<[f32; 2]>> = (0..6)
            .map(|k| {
                rows.iter()
                    .enumerate()
                    .map(|(i, row)| {
                        let p = params_of(i, row);
                        match k {
                            0..4 => pairs_of(i, row)[k],
                            4 => [p[0], p[1]],
                            _ => [p[2], p[3]],
                        }
                    })
                    .collect()
            })
            .collect();
        let mut outs = vec![vec![0.0f32; rows.len()]; 4];
        let [o0, o1, o2, o3] = &mut outs[..] else {
            unreachable!()
        };
        evaluate(
            &rows,
            Columns {
                lanes: [
                    &columns[0],
                    &columns[1],
                    &columns[2],
                    &columns[3],
                    &columns[4],
                    &columns[5],
                ],
                outputs: [o0, o1, o2, o3],
                keys: pool.keys(),
            },
            &now,
        );
        for (i, row) in rows.iter().enumerate() {
            let kind = row.time_kind() as usize;
            let at = progress(row, row.clock(now[kind]));
            let p = eased_with(row, &at, params_of(i, row), pool.keys());
            let want = row_value(row, pairs_of(i, row), p, now[kind]);
            // Every lane: the unused ones must read 0.
            for (lane, out) in outs.iter().enumerate() {
                assert_eq!(
                    out[i].to_bits(),
                    want[lane].to_bits(),
                    "row {i} lane {lane}: {row:?}"
                );
            }
        }
    }

    #[test]
    fn floor_fast_is_floor() {
        for x in [
            -2.5, -2.0, -1e-300, -0.0, 0.0, 0.3, 1.0, 1.999_999, 4.5e14, -4.5e14,
        ] {
            assert_eq!(floor_fast(x), x.floor(), "{x}");
        }
    }
}
