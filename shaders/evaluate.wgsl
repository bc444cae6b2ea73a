// The evaluate pass: one invocation per motion row writes the row's value, lane by lane, into
// the dense output buffer. Nothing is written back to motion state: the pass is a pure
// function of (rows, world clocks).

@group(0) @binding(0) var<uniform> frame: Frame;
@group(0) @binding(1) var<storage, read> rows: array<MotionRow>;
// (from, to) of lane k of row i at k * lane_stride + i.
@group(0) @binding(2) var<storage, read> lanes: array<vec2<f32>>;
// Lane k of row i at k * lane_stride + i.
@group(0) @binding(3) var<storage, read_write> outputs: array<f32>;

const WORKGROUP_SIZE: u32 = 256u;

// frame.opaque_zero, read once per invocation.
var<private> opaque_zero: u32;

// x, unchanged, but opaque to the compiler (frame.opaque_zero is always 0). The two-sums of
// clock.wgsl need it: without it, algebraic simplification (which WGSL permits; Mesa does it)
// turns `(a + b) - a` into `b` and the error terms into 0, and the clock loses its low part.
fn opaque(x: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(x) | opaque_zero);
}

// World time of a kind as (hi, mid, lo), summing exactly to the f64 world clock.
fn world_time(kind: u32) -> vec3<f32> {
    let k = min(kind, 2u);
    return vec3<f32>(frame.world_hi[k], frame.world_mid[k], frame.world_lo[k]);
}

@compute @workgroup_size(256)
fn evaluate(@builtin(global_invocation_id) gid: vec3<u32>) {
    // Dispatches over 65 535 workgroups fold into y.
    let i = gid.x + gid.y * frame.groups_x * WORKGROUP_SIZE;
    if i >= frame.row_count {
        return;
    }
    opaque_zero = frame.opaque_zero;
    let row = rows[i];
    let kind = (row.flags >> FLAG_TIME_KIND_SHIFT) & 3u;
    let p = progress(row, motion_clock(row, world_time(kind))).eased;
    let lane_count = ((row.flags >> FLAG_LANES_SHIFT) & 3u) + 1u;
    for (var k = 0u; k < lane_count; k++) {
        let pair = lanes[k * frame.lane_stride + i];
        outputs[k * frame.lane_stride + i] = pair.x + (pair.y - pair.x) * p;
    }
}
