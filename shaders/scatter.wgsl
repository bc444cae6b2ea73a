// Writes motion values into a user's storage buffer (GPU targets): one dispatch per target
// buffer (and page of the table), one invocation per motion targeting it. Each entry names the row to read and the
// index of lane 0 in the user's buffer (in the target format's units); lanes 1..n follow it contiguously.
// The entry points (scatter_f32.wgsl, scatter_packed.wgsl) bind the user's buffer.
//
// The values come from the evaluate pass's dense outputs (GPU executor: lane k of row i at
// k * src_stride + i - row_base of i's page) or from values the CPU executor uploaded for this buffer (lane k of
// entry n at src_offset + k * src_stride + n).

// Keep in sync with `ScatterParams` in src/gpu/layout.rs.
struct ScatterParams {
    count: u32,
    src_stride: u32,
    groups_x: u32,
    // 0: read the entry's row of the outputs; 1: read the entry's own uploaded values.
    by_entry: u32,
    src_offset: u32,
    // by_entry 0: this dispatch binds the outputs of rows row_base..row_end (one page of
    // the table, src/gpu/table.rs); entries of other rows are another dispatch's.
    row_base: u32,
    row_end: u32,
    // The packed entry point's format: 1 unorm8 (bytes), 2 float16 (halves).
    format: u32,
}

// Keep in sync with `TargetEntry` in src/gpu/layout.rs.
struct TargetEntry {
    row: u32,
    // Index of lane 0 in bits 0..30, lane count - 1 in bits 30..32.
    dst: u32,
}

@group(0) @binding(0) var<uniform> params: ScatterParams;
@group(0) @binding(1) var<storage, read> entries: array<TargetEntry>;
@group(0) @binding(2) var<storage, read> values: array<f32>;

// One invocation's motion: its first unit, lane count and lane 0's place in `values`.
struct ScatterJob {
    first: u32,
    lanes: u32,
    source: u32,
    // false: no entry, or another dispatch's row.
    live: bool,
}

fn scatter_job(gid: vec3<u32>) -> ScatterJob {
    let n = gid.x + gid.y * params.groups_x * 64u;
    if n >= params.count {
        return ScatterJob(0u, 0u, 0u, false);
    }
    let entry = entries[n];
    var source = params.src_offset + n;
    if params.by_entry == 0u {
        if entry.row < params.row_base || entry.row >= params.row_end {
            return ScatterJob(0u, 0u, 0u, false);
        }
        source = entry.row - params.row_base;
    }
    return ScatterJob(entry.dst & 0x3fffffffu, (entry.dst >> 30u) + 1u, source, true);
}

fn scatter_lane(job: ScatterJob, k: u32) -> f32 {
    return values[k * params.src_stride + job.source];
}
