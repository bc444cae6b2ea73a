// The evaluate pass: one invocation per motion row writes the row's value, lane by lane, into
// the dense output buffer. Nothing is written back to motion state: the pass is a pure
// function of (rows, world clocks).

@group(0) @binding(0) var<uniform> frame: Frame;
// The element types come from rows32.wgsl (read with `load_row`, `load_lanes`).
@group(0) @binding(1) var<storage, read> rows: array<RowWords>;
// (from, to) of lane k of row i at k * lane_stride + i.
@group(0) @binding(2) var<storage, read> lanes: array<LaneWords>;
// Lane k of row i at k * lane_stride + i.
@group(0) @binding(3) var<storage, read_write> outputs: array<f32>;
// The parameter lanes of row i (parametric ease, punch and shake settings).
@group(0) @binding(4) var<storage, read> params: array<vec4<f32>>;
// Paged tables (src/gpu/table.rs): the value of every row of the table (lane 0 of its
// output) by its index in the whole table, copied from each page's outputs; a sequence's
// value is its children's clock. A placeholder on a table of one page.
@group(0) @binding(6) var<storage, read> sequence_values: array<f32>;
// The groups' clocks (entries 3.. of the clock table; src/exec/gpu/header.rs) as
// (hi, mid, lo, 0), summing exactly to the f64 clocks.
@group(0) @binding(7) var<storage, read> group_clocks: array<vec4<f32>>;

// `frame.child_mode` (keep in sync with `CHILD_*` in src/gpu/layout.rs): a table of one page
// walks a child's ancestors' rows; a paged table's main pass skips children, and its child
// rounds (one per level of nesting) evaluate only children, each from its parent's value.
const CHILD_WALK: u32 = 0u;
const CHILD_SKIP: u32 = 1u;
const CHILD_FROM_VALUES: u32 = 2u;

const WORKGROUP_SIZE: u32 = 256u;

// The pipeline variant (`Variant` in src/exec/gpu/variants.rs): each dispatch evaluates one
// run of rows of one shape (src/table/runs.rs) with the code its rows need and no more, so no
// warp runs a branch its rows never take, and software adapters (which run every branch,
// masked, for every row) skip the rest. The defaults are the general variant, which
// evaluates any row.
//
// Lanes of every row in the dispatch (a lerp of that many lanes); 0: each row's own count.
override LANES: u32 = 0u;
// Rows with another adapter than lerp (slerp, nlerp, punch, shake).
override ADAPTERS: bool = true;
// Rows with a parametric ease or an animation curve (ids 32..), and sequence children.
override GENERAL: bool = true;
// Only rows of speed 1, no delay, no every-loop delay and a positive duration: their
// timing is the general code with those fields as constants, so it folds away.
override PLAIN_TIMING: bool = false;

// frame.opaque_zero, read once per invocation.
var<private> opaque_zero: u32;

// x, unchanged, but opaque to the compiler (frame.opaque_zero is always 0). The two-sums of
// clock.wgsl need it: without it, algebraic simplification (which WGSL permits; Mesa does it)
// turns `(a + b) - a` into `b` and the error terms into 0, and the clock loses its low part.
fn opaque(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) | opaque_zero);
}

// The world time of a clock (a time kind's or a group's) as (hi, mid, lo), summing exactly
// to the f64 clock.
fn world_time(clock: u32) -> vec3<f32> {
    if clock < 3u {
        return vec3<f32>(frame.world_hi[clock], frame.world_mid[clock], frame.world_lo[clock]);
    }
    return group_clocks[clock - 3u].xyz;
}

// Slerp (or nlerp) of unit quaternions a -> b (the builder put b on the shortest arc and
// stored the angle theta between them), normalized. Slerp's weights are
// sin((1 - p) * theta) * s and sin(p * theta) * s with s = 1 / sin(theta); angles up to 1e-6
// (QUAT_MIN_ANGLE in src/value.rs) take the lerp weights. Kept operation for operation equal
// to `quat_interpolate` in src/value.rs (its `sin_fast` is `sine` here, within an ulp), but
// for the normalization of slerp results: the CPU takes one Newton step from 1, the GPU
// normalizes in full (its divisions and square roots may be less precise).
fn quat_interpolate(a: vec4<f32>, b: vec4<f32>, p: f32, slerp: bool, theta: f32) -> vec4<f32> {
    var wa = 1.0 - p;
    var wb = p;
    if slerp && theta > 1e-6 {
        let s = 1.0 / sine(theta);
        wa = sine((1.0 - p) * theta) * s;
        wb = sine(p * theta) * s;
    }
    let r = a * wa + b * wb;
    let len2 = r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w;
    let inv = select(0.0, 1.0 / sqrt(len2), len2 > 0.0);
    return r * inv;
}

// PCG's output permutation of one LCG step (`pcg` in src/value.rs).
fn pcg(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// Shake noise in [-1, 1) (`shake_noise` in src/value.rs): u32 operations and exact
// conversions only, so the bits equal the CPU's.
fn shake_noise(seed: u32, clock: u32, lane: u32) -> f32 {
    let h = pcg(pcg(seed ^ pcg(clock)) ^ lane);
    return f32(h >> 8u) * (1.0 / 8388608.0) - 1.0;
}

// The clock bits keying the shake noise (`noise_clock` in src/value.rs): (W_hi - base_hi) *
// speed in f32, each step correctly rounded and kept from reassociation.
fn noise_clock(row: MotionRow, clock_id: u32) -> u32 {
    let elapsed = opaque(world_time(clock_id).x - row.base_hi);
    let speed = row.speed;
    let t = opaque(elapsed * speed);
    return bitcast<u32>(select(t, row.base_hi, speed == 0.0));
}

// Sequences nest at most this deep (`MAX_SEQUENCE_DEPTH` in src/sequence.rs).
const MAX_SEQUENCE_DEPTH: u32 = 8u;

// The clock of a sequence's child row i: its parent's value minus its position, from the
// root sequence down (`clock_at` in src/world/sequence.rs). A parent's value is its eased
// progress lerped over lane 0, (0, D).
fn child_clock(i: u32) -> vec2<f32> {
    var chain: array<u32, MAX_SEQUENCE_DEPTH>;
    var depth = 0u;
    var r = i;
    loop {
        let flags = load_row(r).flags;
        if (flags & FLAG_CHILD) == 0u || depth == MAX_SEQUENCE_DEPTH {
            break;
        }
        chain[depth] = r;
        depth += 1u;
        r = bitcast<u32>(load_row(r).base_lo);
    }
    let root = load_row(r);
    var clock = motion_clock(root, world_time(root.flags >> FLAG_CLOCK_SHIFT));
    for (var d = depth; d > 0u; d--) {
        let parent = load_row(r);
        if GENERAL && (parent.flags & 0xe0u) != 0u {
            ease_params = params[r];
        }
        let p = progress(parent, clock).eased;
        let range = load_lanes(r, frame.lane_stride, 1u);
        let value = range.start.x + (range.end.x - range.start.x) * p;
        r = chain[d - 1u];
        clock = two_sum(value, -load_row(r).base_hi);
    }
    return clock;
}

@compute @workgroup_size(256)
fn evaluate(@builtin(global_invocation_id) gid: vec3<u32>) {
    // Dispatches over 65 535 workgroups fold into y.
    let k = gid.x + gid.y * frame.groups_x * WORKGROUP_SIZE;
    if k >= frame.row_count {
        return;
    }
    let i = frame.row_first + k;
    opaque_zero = frame.opaque_zero;
    let row = load_row(i);
    let clock_id = row.flags >> FLAG_CLOCK_SHIFT;
    let child = GENERAL && (row.flags & FLAG_CHILD) != 0u;
    if (frame.child_mode == CHILD_SKIP && child)
        || (frame.child_mode == CHILD_FROM_VALUES && !child) {
        return;
    }
    var clock: vec2<f32>;
    if child && frame.child_mode == CHILD_WALK {
        clock = child_clock(i);
    } else if child {
        // The parent's value, as `child_clock` forms it, evaluated by the parent's own
        // invocation (an earlier pass or round) and copied here.
        clock = two_sum(sequence_values[bitcast<u32>(row.base_lo)], -row.base_hi);
    } else {
        clock = motion_clock(row, world_time(clock_id));
    }
    // Parameter lanes only for the rows that have them (parametric ease id >= 32), so plain
    // rows read nothing more.
    if GENERAL && (row.flags & 0xe0u) != 0u {
        ease_params = params[i];
    }
    let p = progress(row, clock).eased;
    let lane_count = select(((row.flags >> FLAG_LANES_SHIFT) & 3u) + 1u, LANES, LANES != 0u);
    let adapter = (row.flags >> FLAG_ADAPTER_SHIFT) & 15u;
    let quat = ADAPTERS && (adapter == ADAPTER_SLERP || adapter == ADAPTER_NLERP);
    let vibrate = ADAPTERS && (adapter == ADAPTER_PUNCH || adapter == ADAPTER_SHAKE);
    // Every lane pair (from, to) the row uses is read once, and every output lane written
    // once, whatever the adapter: rows of different adapters share a SIMD vector on software
    // adapters, where each adapter's own reads and writes would cost every row. A
    // quaternion reads all four lanes, punch and shake also lane 3 (their settings).
    let s = frame.lane_stride;
    let reads = select(lane_count, 4u, quat || vibrate);
    let pairs = load_lanes(i, s, reads);
    let a = pairs.start;
    let b = pairs.end;
    var v = a + (b - a) * p;
    if quat {
        v = quat_interpolate(a, b, p, adapter == ADAPTER_SLERP, bitcast<f32>(row.params));
    }
    if vibrate {
        // (from, strength) per lane; lane 3 holds (f, k). `vibrate` in src/value.rs.
        var scale = exp(-b.w * p) * sine(PI * a.w * p);
        scale = select(scale, 0.0, p == 0.0 || p == 1.0);
        var noise = vec4<f32>(1.0);
        if adapter == ADAPTER_SHAKE {
            let clock = noise_clock(row, clock_id);
            noise = vec4<f32>(
                shake_noise(row.params, clock, 0u),
                shake_noise(row.params, clock, 1u),
                shake_noise(row.params, clock, 2u),
                1.0,
            );
        }
        v = a + (b * scale) * noise;
    }
    let writes = select(lane_count, 4u, quat);
    for (var k = 0u; k < writes; k++) {
        outputs[k * s + i] = v[k];
    }
}
