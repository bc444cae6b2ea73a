// The 31 standard eases (easings.net), the formulas of src/ease/mod.rs, evaluated without
// branches. Keep the ids in sync with the `Ease` discriminants: 0 Linear, then In, Out,
// InOut of Sine, Quad, Cubic, Quart, Quint, Expo, Circ, Elastic, Back, Bounce (ids 1..30).
//
// Every Out and InOut ease is its family's In curve, mirrored: Out(x) = 1 − In(1 − x),
// InOut(x) = In(2x) / 2 below 0.5 and 1 − In(2 − 2x) / 2 above. (InOut Back and Elastic use
// other constants for their In curve: c2, and c5 with phase 11.125.) So one evaluation of one
// In curve serves all 31. The In curves are computed side by side and selected, not branched
// to: a switch over the eases costs every case on SIMD-per-lane implementations (lavapipe
// runs every case, masked, for every motion), while this costs one sine, one exp2 and one
// sqrt. The results equal the CPU's formulas up to f32 rounding (a few ulps; the powers are
// bit-identical).

// sin(x), within an ulp or two of the CPU's for |x| < 8192 on every adapter. WGSL lets the
// built-in sin be off by 2^-11, and SwiftShader (the browser's software adapter) is, by 6e-5
// at small angles, while eases, elastics, punches and slerps must match the CPU executor to
// 1e-5, and eases must end exactly (sin(±π/2) = ±1 and sin(0) = 0 here, as in f32::sin).
// Cody–Waite reduction to the nearest multiple of π/2 (π/4 in three parts, so each product
// is exact), then the minimax polynomials of sin and cos on [−π/4, π/4] (Cephes' sinf and
// cosf); further out, the built-in sin.
fn sine(x: f32) -> f32 {
    let ax = abs(x);
    // The octant, rounded up to even: the nearest multiple of π/2, in quarters of π.
    let j = (u32(ax * 1.2732395447351628) + 1u) & ~1u;
    let y = f32(j);
    let z = ((ax - y * 0.78515625) - y * 2.4187564849853515625e-4) - y * 3.77489497744594108e-8;
    let zz = z * z;
    let s = ((-1.9515295891e-4 * zz + 8.3321608736e-3) * zz - 1.6666654611e-1) * zz * z + z;
    let c = ((2.443315711809948e-5 * zz - 1.388731625493765e-3) * zz + 4.166664568298827e-2)
        * zz * zz - 0.5 * zz + 1.0;
    // Quadrants 0..3 of the multiple of π/2: sin z, cos z, −sin z, −cos z.
    let quadrant = (j >> 1u) & 3u;
    var r = select(s, c, (quadrant & 1u) == 1u);
    r = select(r, -r, quadrant >= 2u);
    r = select(r, -r, x < 0.0);
    return select(sin(x), r, ax < 8192.0);
}

const PI: f32 = 3.14159265358979;
const BACK_C1: f32 = 1.70158;
const BACK_C2: f32 = 2.5949095; // c1 * 1.525
const ELASTIC_C4: f32 = 2.0943951; // 2π / 3
const ELASTIC_C5: f32 = 1.3962634; // 2π / 4.5
const BOUNCE_N1: f32 = 7.5625;
const BOUNCE_D1: f32 = 2.75;

const FAMILY_SINE: u32 = 0u;
const FAMILY_QUAD: u32 = 1u;
const FAMILY_CUBIC: u32 = 2u;
const FAMILY_QUART: u32 = 3u;
const FAMILY_QUINT: u32 = 4u;
const FAMILY_EXPO: u32 = 5u;
const FAMILY_CIRC: u32 = 6u;
const FAMILY_ELASTIC: u32 = 7u;
const FAMILY_BACK: u32 = 8u;
const FAMILY_BOUNCE: u32 = 9u;

const MODE_IN: u32 = 0u;
const MODE_OUT: u32 = 1u;
const MODE_IN_OUT: u32 = 2u;

// easeOutBounce, its four parabolas selected.
fn out_bounce(x: f32) -> f32 {
    let a = BOUNCE_N1 * x * x;
    let x1 = x - 1.5 / BOUNCE_D1;
    let b = BOUNCE_N1 * x1 * x1 + 0.75;
    let x2 = x - 2.25 / BOUNCE_D1;
    let c = BOUNCE_N1 * x2 * x2 + 0.9375;
    let x3 = x - 2.625 / BOUNCE_D1;
    let d = BOUNCE_N1 * x3 * x3 + 0.984375;
    return select(select(select(d, c, x < 2.5 / BOUNCE_D1), b, x < 2.0 / BOUNCE_D1), a, x < 1.0 / BOUNCE_D1);
}

// The In curve of a family at u. `in_out` picks the InOut variants' constants. The
// families are exclusive, so the order of the selects does not change any result.
fn ease_in(family: u32, u: f32, in_out: bool) -> f32 {
    let u2 = u * u;
    let u3 = u2 * u;
    let u4 = u2 * u2;
    let u5 = u4 * u;
    let c = select(BACK_C1, BACK_C2, in_out);

    var y = u2; // Quad
    y = select(y, u3, family == FAMILY_CUBIC);
    y = select(y, u4, family == FAMILY_QUART);
    y = select(y, u5, family == FAMILY_QUINT);
    y = select(y, u2 * ((c + 1.0) * u - c), family == FAMILY_BACK);
    // One exp2 for Expo and Elastic, one sin for Sine (cos(uπ/2) = sin((1 − u)π/2)) and
    // Elastic, one sqrt for Circ.
    let e = exp2(10.0 * u - 10.0);
    let phase = select(10.75, 11.125, in_out);
    let frequency = select(ELASTIC_C4, ELASTIC_C5, in_out);
    let s = sine(select((u * 10.0 - phase) * frequency, ((1.0 - u) * PI) / 2.0, family == FAMILY_SINE));
    y = select(y, 1.0 - s, family == FAMILY_SINE);
    y = select(y, e, family == FAMILY_EXPO);
    y = select(y, 1.0 - sqrt(max(1.0 - u2, 0.0)), family == FAMILY_CIRC);
    y = select(y, -e * s, family == FAMILY_ELASTIC);
    y = select(y, 1.0 - out_bounce(1.0 - u), family == FAMILY_BOUNCE);
    return y;
}

// The parameter lanes of the row being evaluated (set by the evaluate pass before it calls
// `progress`), read by the parametric eases.
var<private> ease_params: vec4<f32>;

const ID_BACK: u32 = 32u;
const ID_ELASTIC: u32 = 35u;
const ID_STEPS: u32 = 38u;
const ID_BEZIER: u32 = 39u;

// One coordinate of the Bézier (0, c1, c2, 1) at t (`bezier` in src/ease/parametric.rs): the CSS
// cubic-bezier ease's, and the weighted key segments' of curve.wgsl.
fn bezier(c1: f32, c2: f32, t: f32) -> f32 {
    let s = 1.0 - t;
    return 3.0 * s * s * t * c1 + 3.0 * s * t * t * c2 + t * t * t;
}

// CSS cubic-bezier: 12 bisection steps, then 3 Newton steps kept in the bracket (the fixed
// scheme of `cubic_bezier` in src/ease/parametric.rs).
fn cubic_bezier(p: vec4<f32>, x: f32) -> f32 {
    var lo = 0.0;
    var hi = 1.0;
    for (var n = 0; n < 12; n++) {
        let mid = 0.5 * (lo + hi);
        let below = bezier(p.x, p.z, mid) < x;
        lo = select(lo, mid, below);
        hi = select(mid, hi, below);
    }
    var t = 0.5 * (lo + hi);
    for (var n = 0; n < 3; n++) {
        let s = 1.0 - t;
        let dx = 3.0 * s * s * p.x + 6.0 * s * t * (p.z - p.x) + 3.0 * t * t * (1.0 - p.z);
        let err = bezier(p.x, p.z, t) - x;
        t = select(t, clamp(t - err / dx, lo, hi), dx > 1e-6);
    }
    let y = bezier(p.y, p.w, t);
    return select(select(y, 1.0, x >= 1.0), 0.0, x <= 0.0);
}

// The parametric eases (ids 32..39, `parametric` in src/ease/parametric.rs) with parameter lanes p.
fn parametric_ease(id: u32, p: vec4<f32>, x: f32) -> f32 {
    if id == ID_CURVE {
        return curve_ease(p, x); // shaders/curve.wgsl
    }
    if id == ID_STEPS {
        return select(max(floor(x * p.x) / p.x, 0.0), 1.0, x >= 1.0);
    }
    if id == ID_BEZIER {
        return cubic_bezier(p, x);
    }
    let elastic = id >= ID_ELASTIC;
    let mode = id - select(ID_BACK, ID_ELASTIC, elastic);
    let lower = x < 0.5;
    var u = x;
    u = select(u, 1.0 - x, mode == MODE_OUT);
    u = select(u, select(2.0 - 2.0 * x, 2.0 * x, lower), mode == MODE_IN_OUT);
    var y: f32;
    if elastic {
        y = -p.x * exp2(10.0 * u - 10.0) * sine((u - 1.0 - p.z) * p.y);
    } else {
        y = u * u * ((p.x + 1.0) * u - p.x);
    }
    var r = y;
    r = select(r, 1.0 - y, mode == MODE_OUT);
    r = select(r, select(1.0 - y / 2.0, y / 2.0, lower), mode == MODE_IN_OUT);
    r = select(r, 0.0, x == 0.0);
    r = select(r, 1.0, x == 1.0);
    return r;
}

fn ease(id: u32, x: f32) -> f32 {
    // GENERAL: see evaluate.wgsl (every other variant holds named eases only).
    if GENERAL && id >= ID_BACK {
        return parametric_ease(id, ease_params, x);
    }
    let family = (id - 1u) / 3u;
    let mode = (id - 1u) % 3u;
    let lower = x < 0.5;
    var u = x;
    u = select(u, 1.0 - x, mode == MODE_OUT);
    u = select(u, select(2.0 - 2.0 * x, 2.0 * x, lower), mode == MODE_IN_OUT);
    let y = ease_in(family, u, mode == MODE_IN_OUT);
    var r = y;
    r = select(r, 1.0 - y, mode == MODE_OUT);
    r = select(r, select(1.0 - y / 2.0, y / 2.0, lower), mode == MODE_IN_OUT);
    // Expo and Elastic are exactly 0 at 0 and 1 at 1.
    let exact_ends = family == FAMILY_EXPO || family == FAMILY_ELASTIC;
    r = select(r, 0.0, exact_ends && x == 0.0);
    r = select(r, 1.0, exact_ends && x == 1.0);
    // Linear (id 0; unknown ids too).
    return select(r, x, id == 0u || id > 30u);
}
