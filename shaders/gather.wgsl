// Gathers the outputs of the motions with a CPU bind into one contiguous range (4 lanes per
// motion) for a single copy into a readback staging buffer. Each dispatch binds one page of
// the table (src/gpu/table.rs) and gathers the listed rows that page holds.

// Keep in sync with `GatherParams` in src/gpu/layout.rs.
struct GatherParams {
    count: u32,
    lane_stride: u32,
    groups_x: u32,
    // The page's rows: row_base..row_end.
    row_base: u32,
    row_end: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: GatherParams;
@group(0) @binding(1) var<storage, read> rows_to_read: array<u32>;
@group(0) @binding(2) var<storage, read> outputs: array<f32>;
@group(0) @binding(3) var<storage, read_write> gathered: array<vec4<f32>>;

@compute @workgroup_size(64)
fn gather(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = gid.x + gid.y * params.groups_x * 64u;
    if n >= params.count {
        return;
    }
    let row = rows_to_read[n];
    if row < params.row_base || row >= params.row_end {
        return;
    }
    let i = row - params.row_base;
    let s = params.lane_stride;
    gathered[n] = vec4<f32>(outputs[i], outputs[s + i], outputs[2u * s + i], outputs[3u * s + i]);
}
