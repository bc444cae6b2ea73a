// Animation curves as eases (ease id 40, docs/semantics.md §4). A curve row's parameter lanes
// name its keys in the pooled key table: (offset mod 2^24, count, pre_wrap + 4 * post_wrap,
// offset / 2^24), each an exact f32 integer. Kept operation for operation equal to
// `curve_ease` in src/curve/mod.rs: keep in sync.

// Keep in sync with `GpuKey` in src/curve/mod.rs (a test reads this layout back from naga).
struct GpuKey {
    time: f32,
    value: f32,
    // 0 where the key's tangent is not finite (see flags).
    in_tangent: f32,
    out_tangent: f32,
    // 1/3 on a side that is not weighted.
    in_weight: f32,
    out_weight: f32,
    // 1 in weighted, 2 out weighted, 4 in tangent not finite, 8 out tangent not finite.
    flags: u32,
    _pad: u32,
}

// The world's key table. Read only by curve rows.
@group(0) @binding(5) var<storage, read> curve_keys: array<GpuKey>;

const ID_CURVE: u32 = 40u;
const KEY_IN_WEIGHTED: u32 = 1u;
const KEY_OUT_WEIGHTED: u32 = 2u;
const KEY_IN_STEP: u32 = 4u;
const KEY_OUT_STEP: u32 = 8u;
// `SOLVE_ITERATIONS` in src/curve/mod.rs.
const CURVE_SOLVE_ITERATIONS: u32 = 12u;

// `wrap_time` in src/curve/mod.rs: x mapped into [t0, t1] by the wrap mode on its side
// (0 clamp, 1 loop, 2 ping-pong).
fn curve_wrap_time(x: f32, t0: f32, t1: f32, wraps: u32) -> f32 {
    let span = t1 - t0;
    var mode = 0u;
    if x < t0 {
        mode = wraps & 3u;
    } else if x > t1 {
        mode = (wraps >> 2u) & 3u;
    }
    if mode == 0u || span <= 0.0 {
        return clamp(x, t0, t1);
    }
    let u = clamp((x - t0) / span, -8388608.0, 8388608.0);
    var f: f32;
    if mode == 1u {
        f = u - floor(u);
    } else {
        let m = u - 2.0 * floor(u * 0.5);
        f = select(2.0 - m, m, m <= 1.0);
    }
    return clamp(t0 + f * span, t0, t1);
}

// `segment` in src/curve/mod.rs: the curve between keys k0 and k1 at x.
fn curve_segment(k0: GpuKey, k1: GpuKey, x: f32) -> f32 {
    let dt = k1.time - k0.time;
    if dt <= 0.0 {
        return k1.value;
    }
    let u = clamp((x - k0.time) / dt, 0.0, 1.0);
    if u >= 1.0 {
        return k1.value;
    }
    if (k0.flags & KEY_OUT_STEP) != 0u || (k1.flags & KEY_IN_STEP) != 0u {
        return k0.value;
    }
    let m0 = k0.out_tangent * dt;
    let m1 = k1.in_tangent * dt;
    let weighted = (k0.flags & KEY_OUT_WEIGHTED) != 0u || (k1.flags & KEY_IN_WEIGHTED) != 0u;
    if !weighted {
        let u2 = u * u;
        let u3 = u2 * u;
        let a = 2.0 * u3 - 3.0 * u2 + 1.0;
        let b = u3 - 2.0 * u2 + u;
        let c = u3 - u2;
        let d = -2.0 * u3 + 3.0 * u2;
        return a * k0.value + b * m0 + c * m1 + d * k1.value;
    }
    let w0 = k0.out_weight;
    let w1 = k1.in_weight;
    let c1 = w0;
    let c2 = 1.0 - w1;
    var lo = 0.0;
    var hi = 1.0;
    var s = u;
    for (var n = 0u; n < CURVE_SOLVE_ITERATIONS; n++) {
        // `bezier` of easing.wgsl, composed into the same module.
        let f = bezier(c1, c2, s) - u;
        lo = select(lo, s, f < 0.0);
        hi = select(hi, s, f > 0.0);
        lo = select(lo, s, f == 0.0);
        hi = select(hi, s, f == 0.0);
        let r = 1.0 - s;
        let d = 3.0 * r * r * c1 + 6.0 * r * s * (c2 - c1) + 3.0 * s * s * (1.0 - c2);
        let ok = d > 1e-12;
        let nt = s - f / select(1.0, d, ok);
        s = select(0.5 * (lo + hi), nt, ok && nt >= lo && nt <= hi);
    }
    let p1 = k0.value + w0 * m0;
    let p2 = k1.value - w1 * m1;
    let r = 1.0 - s;
    return r * r * r * k0.value + 3.0 * r * r * s * p1 + 3.0 * r * s * s * p2 + s * s * s * k1.value;
}

// `curve_ease` in src/curve/mod.rs: the curve named by parameter lanes p at x.
fn curve_ease(p: vec4<f32>, x: f32) -> f32 {
    let offset = u32(p.x) + u32(p.w) * 16777216u;
    let count = u32(p.y);
    if count == 0u || offset + count > arrayLength(&curve_keys) {
        return x;
    }
    let first = curve_keys[offset];
    if count == 1u {
        return first.value;
    }
    let last = curve_keys[offset + count - 1u];
    let t = curve_wrap_time(x, first.time, last.time, u32(p.z));
    var lo = 0u;
    var hi = count - 1u;
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if curve_keys[offset + mid].time <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return curve_segment(curve_keys[offset + lo], curve_keys[offset + lo + 1u], t);
}
