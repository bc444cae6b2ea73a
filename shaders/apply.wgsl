// Applies one frame's row changes in a single pass: uploads of new and re-anchored rows
// (from the frame's staging area) and moves left by swap-removes (row copies within the
// table). The CPU resolves chains of moves first, so no move destination is also a move
// source and the invocations of one dispatch are independent.

struct RowOp {
    // Destination row.
    dst: u32,
    // Source: a row of this table (move) or an index into the staged rows (upload).
    src: u32,
    // 0 = move, 1 = upload.
    kind: u32,
    _pad: u32,
}

// Keep in sync with `ApplyParams` in src/gpu/layout.rs. Moves and uploads are two
// dispatches over two ranges of `ops` (moves first: an upload may land on a row that a move
// reads), each with its own params at a dynamic uniform offset.
struct ApplyParams {
    op_offset: u32,
    op_count: u32,
    lane_stride: u32,
    // Staged lane pairs: lane k of staged row s at k * staged_stride + s.
    staged_stride: u32,
    groups_x: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: ApplyParams;
@group(0) @binding(1) var<storage, read> ops: array<RowOp>;
@group(0) @binding(2) var<storage, read> staged_rows: array<MotionRow>;
@group(0) @binding(3) var<storage, read> staged_lanes: array<vec2<f32>>;
@group(0) @binding(4) var<storage, read_write> rows: array<MotionRow>;
@group(0) @binding(5) var<storage, read_write> lanes: array<vec2<f32>>;
// Parameter lanes, one per row (staged: one per staged row).
@group(0) @binding(6) var<storage, read> staged_params: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> params_table: array<vec4<f32>>;

@compute @workgroup_size(64)
fn apply(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = gid.x + gid.y * params.groups_x * 64u;
    if n >= params.op_count {
        return;
    }
    let op = ops[params.op_offset + n];
    var row: MotionRow;
    if op.kind == 0u {
        row = rows[op.src];
        params_table[op.dst] = params_table[op.src];
    } else {
        row = staged_rows[op.src];
        params_table[op.dst] = staged_params[op.src];
    }
    rows[op.dst] = row;
    for (var k = 0u; k < 4u; k++) {
        let j = k * params.lane_stride + op.dst;
        var pair: vec2<f32>;
        if op.kind == 0u {
            pair = lanes[k * params.lane_stride + op.src];
        } else {
            pair = staged_lanes[k * params.staged_stride + op.src];
        }
        lanes[j] = pair;
    }
}
