// Motion clock and progress: a port of src/cpu/evaluate.rs (docs/semantics.md §2).
//
// The CPU computes in f64. Here times are (hi, lo) f32 pairs: the world time and the
// motion's base are pairs, their difference is formed exactly (two-sum) before the speed
// multiplies it (an exact two-product), and the phase within a loop is the pair minus
// loop_index * period, again exactly. So a motion that has run for hours is as precise as a
// new one, and loop indices are exact up to 2^24.
//
// The two-product does not use `fma`: WGSL does not require `fma` to be fused (lavapipe's is
// not), and an unfused `fma(a, b, -a * b)` is 0, which loses up to half an ulp of the product
// (4 µs at a clock of 60 s). Instead both factors are split by masking their low 12
// mantissa bits (Dekker's product with a bit-exact split no compiler can reassociate), so the
// four partial products are exact.

// a + b as a pair (Knuth's two-sum). `opaque` (defined by the including module) hides the
// intermediate sums from the compiler's algebraic simplification, which would otherwise
// prove the error term 0.
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = opaque(a + b);
    let bb = opaque(s - a);
    let err = (a - (s - bb)) + (b - bb);
    return vec2<f32>(s, err);
}

// x as hi + lo, each with at most 12 significant bits (exact: lo is x's low mantissa bits).
fn split12(x: f32) -> vec2<f32> {
    let hi = bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
    return vec2<f32>(hi, x - hi);
}

// a * b as a pair, to about 2^-48 relative: the four partial products of the 12-bit halves
// are exact in f32 and are summed with two-sums.
fn two_prod(a: f32, b: f32) -> vec2<f32> {
    let sa = split12(a);
    let sb = split12(b);
    let s1 = two_sum(sa.x * sb.x, sa.x * sb.y);
    let s2 = two_sum(s1.x, sa.y * sb.x);
    return two_sum(s2.x, (s1.y + s2.y) + sa.y * sb.y);
}

// Pair times scalar.
fn pair_mul(p: vec2<f32>, s: f32) -> vec2<f32> {
    let prod = two_prod(p.x, s);
    return two_sum(prod.x, prod.y + p.y * s);
}

// Pair minus scalar times scalar, p - c * d (c * d formed exactly), as a pair.
fn sub_prod(p: vec2<f32>, c: f32, d: f32) -> vec2<f32> {
    let prod = two_prod(c, d);
    let s = two_sum(p.x, -prod.x);
    return two_sum(s.x, (s.y - prod.y) + p.y);
}

// The sum of two pairs.
fn pair_add(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
    let s = two_sum(a.x, b.x);
    return two_sum(s.x, s.y + (a.y + b.y));
}

fn pair_to_f32(p: vec2<f32>) -> f32 {
    return p.x + p.y;
}

// Motion clock T at world time w (hi, mid, lo: exact) for the row's base (a pair). The
// world keeps its time on the grid of the f32 pairs (src/world/clock.rs), so the third part
// is 0 today and a motion anchored at w reads exactly its anchored clock there (0 for a new
// one), as the f64 reference does; it stays for any world time off that grid.
fn motion_clock(row: MotionRow, w: vec3<f32>) -> vec2<f32> {
    let base = vec2<f32>(row.base_hi, row.base_lo);
    // PLAIN_TIMING (evaluate.wgsl): the same arithmetic with the speed known to be 1.
    let speed = select(row.speed, 1.0, PLAIN_TIMING);
    if speed == 0.0 {
        return base;
    }
    let hi = two_sum(w.x, -base.x);
    let elapsed = two_sum(hi.x, hi.y + ((w.y - base.y) + w.z));
    return pair_mul(elapsed, speed);
}

// floor(p / d) and p - floor(p / d) * d for a pair p and a pair d > 0 (the EveryLoop period
// D + d is not an f32: rounding it would shift every loop by up to 3e-8 s, 5 µs after 150
// loops), the index corrected by one where rounding of the quotient put it on the wrong
// side of a boundary.
struct Division {
    index: f32,
    // A pair: rounding it to an f32 before it is compared with the loop's end would put a
    // phase within half an ulp of the end onto it (a spurious boundary).
    rest: vec2<f32>,
}

fn divide(p: vec2<f32>, d: vec2<f32>) -> Division {
    let approx = d.x + d.y;
    var index = floor(pair_to_f32(p) / approx);
    // d.y is below an ulp of d.x, so index * d.y needs no exact product.
    var rest = sub_prod(vec2<f32>(p.x, p.y - index * d.y), index, d.x);
    let r = pair_to_f32(rest);
    if r < 0.0 {
        index -= 1.0;
        rest = pair_add(rest, d);
    } else if r >= approx {
        index += 1.0;
        rest = pair_add(rest, -d);
    }
    return Division(index, rest);
}

struct Progress {
    // 0 delayed, 1 playing, 2 completed (MotionStatus order minus Scheduled).
    status: u32,
    completed_loops: u32,
    linear: f32,
    eased: f32,
}

const STATUS_DELAYED: u32 = 0u;
const STATUS_PLAYING: u32 = 1u;
const STATUS_COMPLETED: u32 = 2u;

fn clamp_loops(c: f32, loops: i32) -> f32 {
    return select(clamp(c, 0.0, f32(loops)), max(c, 0.0), loops < 0);
}

// docs/semantics.md §2, as src/cpu/evaluate.rs computes it. Written with selects and a single
// division and ease where the CPU branches: SIMD-per-lane implementations (lavapipe) run
// every branch of divergent code, masked, so each case written out is paid by every motion.
fn progress(row: MotionRow, time: vec2<f32>) -> Progress {
    // PLAIN_TIMING (evaluate.wgsl): no delay, no every-loop delay, a positive duration, as
    // constants, so the compiler drops the cases they rule out and the delay is not read.
    let delay = select(row.delay, 0.0, PLAIN_TIMING);
    let row_loops = row.loops;
    let duration = row.duration;
    let infinite = row_loops < 0;
    let loops = f32(row_loops);
    let every_loop = !PLAIN_TIMING && (row.flags & FLAG_EVERY_LOOP_DELAY) != 0u;
    let t = pair_to_f32(time);
    let clamped_time = select(time, vec2<f32>(0.0, 0.0), t < 0.0);
    // T − d exactly: hi − d first (two-sum), then the low part, so a clock a hair past its
    // delay (where a zero-duration motion completes) is not rounded back onto it.
    let head = two_sum(time.x, -delay);
    let since_start = two_sum(head.x, head.y + time.y);
    let since_start_f = pair_to_f32(since_start);
    let zero = !PLAIN_TIMING && duration <= 0.0;
    // Zero duration without an every-loop delay: no loops to count (case "instant").
    let instant = zero && (!every_loop || delay == 0.0);

    // One division: FirstLoop divides the time since the start by D, EveryLoop the clamped
    // time by D + d (a pair: see `divide`), or by d when D is 0.
    var divisor = vec2<f32>(duration, 0.0);
    divisor = select(divisor, two_sum(duration, delay), every_loop);
    divisor = select(divisor, vec2<f32>(delay, 0.0), zero);
    divisor = select(divisor, vec2<f32>(1.0, 0.0), instant);
    let div = divide(select(since_start, clamped_time, every_loop), divisor);

    var loop_index = div.index;
    var completed = !infinite && clamp_loops(loop_index, row_loops) >= loops;
    // FirstLoop: before the start (index < 0) the phase is clamped to 0, as on the CPU.
    // EveryLoop: the phase is what is left of the period after the delay.
    let phase_pair = select(
        select(div.rest, vec2<f32>(0.0), loop_index < 0.0),
        pair_add(div.rest, vec2<f32>(-delay, 0.0)),
        every_loop,
    );
    let phase = pair_to_f32(phase_pair);
    var delayed = select(since_start_f < 0.0, phase < 0.0, every_loop);
    // phase / D as the CPU rounds it (correctly, from f64): to 1 exactly when the phase is
    // within half an f32 ulp of 1 below D (phase - D >= -D * 2^-25, formed exactly), else
    // below 1 (the f32 division here may be off by an ulp or two, so it is kept under 1).
    let to_end = pair_add(phase_pair, vec2<f32>(-duration, 0.0));
    let rounds_to_one = pair_to_f32(to_end) >= -duration * 2.9802322e-8;
    let below_one = min(clamp(phase / duration, 0.0, 1.0), 0.99999994);
    var linear = select(select(below_one, 1.0, rounds_to_one), 1.0, completed);
    // Zero duration with an every-loop delay: delayed until completed, no progress.
    delayed = select(delayed, !completed, zero);
    linear = select(linear, select(0.0, 1.0, completed), zero);
    // Zero duration, no every-loop delay: completed strictly after the start.
    let instant_completed = !infinite && since_start_f > 0.0;
    completed = select(completed, instant_completed, instant);
    linear = select(linear, select(0.0, 1.0, instant_completed), instant);
    loop_index = select(
        loop_index,
        select(select(0.0, -1.0, since_start_f < 0.0), loops, instant_completed),
        instant,
    );
    delayed = select(delayed, since_start_f < 0.0, instant);

    // A phase so close to the end of a loop that `phase / duration` rounds to 1 in f32, in a
    // loop that has not completed, is the start of the next loop. Without this, t == 1 there
    // reads as the loop's end (SEMANTICS' int(t) = 1), and Flip, Yoyo and Incremental jump by
    // a whole loop within one ulp of every boundary (e.g. right after `complete`, whose clock
    // the f64 reference puts a hair past the end).
    let snap = !zero && !completed && linear >= 1.0;
    loop_index = select(loop_index, loop_index + 1.0, snap);
    let snapped_completed = !infinite && clamp_loops(loop_index, row_loops) >= loops;
    completed = select(completed, snapped_completed, snap);
    linear = select(linear, select(0.0, 1.0, snapped_completed), snap);
    delayed = select(delayed, every_loop && delay > 0.0 && !snapped_completed, snap);

    let k = clamp_loops(loop_index, row_loops);
    let completed_loops = u32(k);
    let at_end = select(0u, 1u, linear == 1.0);
    let odd = ((completed_loops + at_end) & 1u) == 1u;
    // One ease evaluation for every loop type: Yoyo eases 1 − t on odd loops, Incremental
    // eases fmod(t, 1) and adds E(1) · k. E(1) is exactly 1 for every ease in easing.wgsl
    // (as on the CPU, where a test checks it); an ease added with E(1) != 1 must supply it.
    let loop_type = (row.flags >> FLAG_LOOP_TYPE_SHIFT) & 3u;
    var x = linear;
    x = select(x, 1.0 - linear, loop_type == LOOP_YOYO && odd);
    x = select(x, 0.0, loop_type == LOOP_INCREMENTAL && linear == 1.0);
    let e = ease(row.flags & 0xffu, x);
    var eased = e;
    eased = select(eased, 1.0 - e, loop_type == LOOP_FLIP && odd);
    // Animation curves (shaders/curve.wgsl) supply E(1), read only by Incremental curve rows.
    var end = 1.0;
    if GENERAL && loop_type == LOOP_INCREMENTAL && (row.flags & 0xffu) == ID_CURVE {
        end = ease(ID_CURVE, 1.0);
    }
    eased = select(eased, end * k + e, loop_type == LOOP_INCREMENTAL);

    var status = STATUS_PLAYING;
    status = select(status, STATUS_DELAYED, delayed || t < 0.0);
    status = select(status, STATUS_COMPLETED, completed);
    return Progress(status, completed_loops, linear, eased);
}
