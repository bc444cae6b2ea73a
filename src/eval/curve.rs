//! Animation curves as eases: the wrapped time, the key segment (Hermite, or a weighted
//! Bézier solved for time) and the key search, the CPU mirror of `shaders/curve.wgsl`.

use crate::core::curve::{
    encode_params, key_range, AnimationCurve, GpuKey, KEY_IN_STEP, KEY_IN_WEIGHTED, KEY_OUT_STEP,
    KEY_OUT_WEIGHTED,
};

impl AnimationCurve {
    /// The curve's value at `time` (the function both executors evaluate, in f32). Never
    /// NaN for a finite `time`; one key is a constant.
    #[must_use]
    pub fn evaluate(&self, time: f32) -> f32 {
        let keys = self.gpu_keys();
        let params = encode_params(0, keys.len(), self.pre_wrap_mode(), self.post_wrap_mode());
        curve_ease(keys, params, time)
    }
}

/// Iterations of the safeguarded Newton solve of a weighted segment's `x(s) = u`.
const SOLVE_ITERATIONS: u32 = 12;

/// The wrapped time: `x` mapped into `[t0, t0 + span]` by the wrap mode on its side.
#[inline]
fn wrap_time(x: f32, t0: f32, t1: f32, wraps: u32) -> f32 {
    let span = t1 - t0;
    let mode = if x < t0 {
        wraps & 3
    } else if x > t1 {
        (wraps >> 2) & 3
    } else {
        0
    };
    if mode == 0 || span <= 0.0 {
        return x.clamp(t0, t1);
    }
    // Bounded so that floor and the subtraction below stay exact and finite (beyond 2^23
    // every f32 is an integer: the wrapped phase is 0).
    let u = ((x - t0) / span).clamp(-8_388_608.0, 8_388_608.0);
    let f = if mode == 1 {
        u - u.floor()
    } else {
        let m = u - 2.0 * (u * 0.5).floor();
        if m <= 1.0 {
            m
        } else {
            2.0 - m
        }
    };
    (t0 + f * span).clamp(t0, t1)
}

/// The segment value at `x` between keys `k0` and `k1` (`x` in `[k0.time, k1.time]`).
#[inline]
fn segment(k0: &GpuKey, k1: &GpuKey, x: f32) -> f32 {
    let dt = k1.time - k0.time;
    if dt <= 0.0 {
        return k1.value; // a jump: the right key from its time on
    }
    let u = ((x - k0.time) / dt).clamp(0.0, 1.0);
    if u >= 1.0 {
        return k1.value;
    }
    if (k0.flags & KEY_OUT_STEP) != 0 || (k1.flags & KEY_IN_STEP) != 0 {
        return k0.value;
    }
    let m0 = k0.out_tangent * dt;
    let m1 = k1.in_tangent * dt;
    let weighted = (k0.flags & KEY_OUT_WEIGHTED) != 0 || (k1.flags & KEY_IN_WEIGHTED) != 0;
    if !weighted {
        // Cubic Hermite.
        let u2 = u * u;
        let u3 = u2 * u;
        let a = 2.0 * u3 - 3.0 * u2 + 1.0;
        let b = u3 - 2.0 * u2 + u;
        let c = u3 - u2;
        let d = -2.0 * u3 + 3.0 * u2;
        return a * k0.value + b * m0 + c * m1 + d * k1.value;
    }
    // Cubic Bézier in (time, value): x control points w0 and 1 − w1 of the unit interval;
    // solve x(s) = u (monotonic: both in [0, 1]) by Newton kept in a bisection bracket, a
    // fixed number of steps.
    let w0 = k0.out_weight;
    let w1 = k1.in_weight;
    let (c1, c2) = (w0, 1.0 - w1);
    let (mut lo, mut hi, mut s) = (0.0f32, 1.0f32, u);
    for _ in 0..SOLVE_ITERATIONS {
        let f = crate::eval::easing::bezier(c1, c2, s) - u;
        if f < 0.0 {
            lo = s;
        }
        if f > 0.0 {
            hi = s;
        }
        if f == 0.0 {
            lo = s;
            hi = s;
        }
        let r = 1.0 - s;
        let d = 3.0 * r * r * c1 + 6.0 * r * s * (c2 - c1) + 3.0 * s * s * (1.0 - c2);
        let ok = d > 1e-12;
        let n = s - f / if ok { d } else { 1.0 };
        s = if ok && n >= lo && n <= hi {
            n
        } else {
            0.5 * (lo + hi)
        };
    }
    let p1 = k0.value + w0 * m0;
    let p2 = k1.value - w1 * m1;
    let r = 1.0 - s;
    r * r * r * k0.value + 3.0 * r * r * s * p1 + 3.0 * r * s * s * p2 + s * s * s * k1.value
}

/// The curve named by a row's parameter lanes `params`, its keys in `table`, at `x`.
/// Mirrors `curve_ease` in `shaders/curve.wgsl`, operation for operation. A range outside
/// the table (never made by the builder) gives `x`.
#[must_use]
pub(crate) fn curve_ease(table: &[GpuKey], params: [f32; 4], x: f32) -> f32 {
    let (offset, count) = key_range(params);
    let Some(keys) = table.get(offset..offset.saturating_add(count)) else {
        return x;
    };
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else {
        return x;
    };
    if keys.len() == 1 {
        return first.value;
    }
    let wraps = params[2] as u32;
    let t = wrap_time(x, first.time, last.time, wraps);
    // The last key at or before t, among the first count − 1 (binary search).
    let (mut lo, mut hi) = (0usize, keys.len() - 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if keys[mid].time <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    segment(&keys[lo], &keys[lo + 1], t)
}
