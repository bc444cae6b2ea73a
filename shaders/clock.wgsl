// Motion clock and progress: a port of src/cpu/evaluate.rs (SEMANTICS.md §2).
//
// The CPU computes in f64. Here times are (hi, lo) f32 pairs: the world time and the
// motion's base are pairs, their difference is formed exactly (two-sum) before the speed
// multiplies it (two-product with fma), and the phase within a loop is the pair minus
// loop_index * period, again exactly. So a motion that has run for hours is as precise as a
// new one, and loop indices are exact up to 2^24.

// a + b as a pair (Knuth's two-sum).
fn two_sum(a: f32, b: f32) -> vec2<f32> {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    return vec2<f32>(s, err);
}

// Pair times scalar.
fn pair_mul(p: vec2<f32>, s: f32) -> vec2<f32> {
    let hi = p.x * s;
    let err = fma(p.x, s, -hi);
    return two_sum(hi, err + p.y * s);
}

// Pair minus scalar times scalar: p - c * d, with c * d exact via fma.
fn pair_sub_prod(p: vec2<f32>, c: f32, d: f32) -> vec2<f32> {
    let prod = c * d;
    let err = fma(c, d, -prod);
    let s = two_sum(p.x, -prod);
    return two_sum(s.x, (s.y - err) + p.y);
}

fn pair_to_f32(p: vec2<f32>) -> f32 {
    return p.x + p.y;
}

// Motion clock T at world time w (both pairs).
fn motion_clock(row: MotionRow, w: vec2<f32>) -> vec2<f32> {
    let base = vec2<f32>(row.base_hi, row.base_lo);
    if row.speed == 0.0 {
        return base;
    }
    let hi = two_sum(w.x, -base.x);
    let elapsed = two_sum(hi.x, hi.y + (w.y - base.y));
    return pair_mul(elapsed, row.speed);
}

// floor(p / d) and p - floor(p / d) * d for a pair p and d > 0, the index corrected by one
// where rounding of the quotient put it on the wrong side of a boundary.
struct Division {
    index: f32,
    rest: f32,
}

fn divide(p: vec2<f32>, d: f32) -> Division {
    var index = floor(pair_to_f32(p) / d);
    var rest = pair_to_f32(pair_sub_prod(p, index, d));
    if rest < 0.0 {
        index -= 1.0;
        rest += d;
    } else if rest >= d {
        index += 1.0;
        rest -= d;
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
    if loops < 0 {
        return max(c, 0.0);
    }
    return clamp(c, 0.0, f32(loops));
}

fn progress(row: MotionRow, time: vec2<f32>) -> Progress {
    let delay = row.delay;
    let duration = row.duration;
    let infinite = row.loops < 0;
    let loops = f32(row.loops);
    let every_loop = (row.flags & FLAG_EVERY_LOOP_DELAY) != 0u;
    let t = pair_to_f32(time);
    var clamped_time = time;
    if t < 0.0 {
        clamped_time = vec2<f32>(0.0, 0.0);
    }
    let since_start = two_sum(time.x, time.y - delay);
    let since_start_f = pair_to_f32(since_start);

    var loop_index: f32;
    var completed: bool;
    var delayed: bool;
    var linear: f32;
    if duration <= 0.0 {
        if !every_loop || delay == 0.0 {
            completed = !infinite && since_start_f > 0.0;
            linear = select(0.0, 1.0, completed);
            loop_index = select(select(0.0, -1.0, since_start_f < 0.0), loops, completed);
            delayed = since_start_f < 0.0;
        } else {
            loop_index = divide(clamped_time, delay).index;
            completed = !infinite && clamp_loops(loop_index, row.loops) >= loops;
            delayed = !completed;
            linear = select(0.0, 1.0, completed);
        }
    } else if !every_loop {
        let div = divide(since_start, duration);
        loop_index = div.index;
        completed = !infinite && clamp_loops(loop_index, row.loops) >= loops;
        delayed = since_start_f < 0.0;
        // Before the start (index < 0) the phase is clamped to 0, as on the CPU.
        var phase = div.rest;
        if loop_index < 0.0 {
            phase = 0.0;
        } else if !infinite && loop_index > loops {
            phase = duration;
        }
        linear = select(clamp(phase / duration, 0.0, 1.0), 1.0, completed);
    } else {
        let period = duration + delay;
        let div = divide(clamped_time, period);
        loop_index = div.index;
        let in_loop = div.rest - delay;
        completed = !infinite && clamp_loops(loop_index, row.loops) >= loops;
        delayed = in_loop < 0.0;
        linear = select(clamp(in_loop / duration, 0.0, 1.0), 1.0, completed);
    }

    let k = clamp_loops(loop_index, row.loops);
    let completed_loops = u32(k);
    let ease_id = row.flags & 0xffu;
    let at_end = select(0u, 1u, linear == 1.0);
    let odd = ((completed_loops + at_end) & 1u) == 1u;
    var eased: f32;
    switch (row.flags >> FLAG_LOOP_TYPE_SHIFT) & 3u {
        case 1u: { // Flip
            let e = ease(ease_id, linear);
            eased = select(e, 1.0 - e, odd);
        }
        case 2u: { // Incremental
            let within = select(linear, 0.0, linear == 1.0);
            eased = ease(ease_id, 1.0) * k + ease(ease_id, within);
        }
        case 3u: { // Yoyo
            eased = ease(ease_id, select(linear, 1.0 - linear, odd));
        }
        default: { // Restart
            eased = ease(ease_id, linear);
        }
    }

    var status = STATUS_PLAYING;
    if completed {
        status = STATUS_COMPLETED;
    } else if delayed || t < 0.0 {
        status = STATUS_DELAYED;
    }
    return Progress(status, completed_loops, linear, eased);
}
