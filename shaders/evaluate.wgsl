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

fn world_time(kind: u32) -> vec2<f32> {
    switch kind {
        case 1u: { return frame.world_01.zw; }
        case 2u: { return frame.world_2.xy; }
        default: { return frame.world_01.xy; }
    }
}

@compute @workgroup_size(256)
fn evaluate(@builtin(global_invocation_id) gid: vec3<u32>) {
    // Dispatches over 65 535 workgroups fold into y.
    let i = gid.x + gid.y * frame.groups_x * WORKGROUP_SIZE;
    if i >= frame.row_count {
        return;
    }
    let row = rows[i];
    let kind = (row.flags >> FLAG_TIME_KIND_SHIFT) & 3u;
    let p = progress(row, motion_clock(row, world_time(kind))).eased;
    let lane_count = ((row.flags >> FLAG_LANES_SHIFT) & 3u) + 1u;
    for (var k = 0u; k < lane_count; k++) {
        let pair = lanes[k * frame.lane_stride + i];
        outputs[k * frame.lane_stride + i] = pair.x + (pair.y - pair.x) * p;
    }
}
