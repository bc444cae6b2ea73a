// Shared types of the motion passes.
//
// Keep in sync with `MotionRow` in src/core/row.rs (a test reads this layout back from naga and
// compares every offset with the Rust struct).

// Fields every row reads first (16 bytes), then those only some rows need.
struct MotionRow {
    // The clock base as an f32 pair (hi + lo): T = (W - base) * speed, or T = base at speed 0.
    base_hi: f32,
    base_lo: f32,
    duration: f32,
    // ease 0..8, loop type 8..10, every-loop delay bit 10, time kind 11..13,
    // lane count - 1 at 13..16, adapter 16..20, rounding 20..23, child of a sequence 23,
    // clock 24..32 (0..3 the time kinds' in `Frame`, 3.. the groups' in `group_clocks`).
    flags: u32,
    speed: f32,
    delay: f32,
    // -1 = infinite, never 0.
    loops: i32,
    params: u32,
}

// Keep in sync with `GpuFrame` in src/gpu/layout.rs.
struct Frame {
    // World time per time kind (x scaled, y unscaled, z realtime) as hi + mid + lo, exact.
    world_hi: vec4<f32>,
    world_mid: vec4<f32>,
    world_lo: vec4<f32>,
    // Rows to evaluate, from row_first.
    row_count: u32,
    // Capacity of each lane section in the lane and output buffers.
    lane_stride: u32,
    // Workgroups per row of a 2D-folded dispatch.
    groups_x: u32,
    // Always 0: see `opaque` in evaluate.wgsl.
    opaque_zero: u32,
    // How sequence children get their clocks (CHILD_* in evaluate.wgsl).
    child_mode: u32,
    // First row of the dispatch's run within the page.
    row_first: u32,
    _pad1: u32,
    _pad2: u32,
}

const FLAG_LOOP_TYPE_SHIFT: u32 = 8u;
const FLAG_EVERY_LOOP_DELAY: u32 = 1024u;
const FLAG_CLOCK_SHIFT: u32 = 24u;
const FLAG_LANES_SHIFT: u32 = 13u;
const FLAG_ADAPTER_SHIFT: u32 = 16u;
// A sequence's child: base_hi holds its position, base_lo its parent's row index (bits).
const FLAG_CHILD: u32 = 8388608u; // 1 << 23

// Adapter kinds (`AdapterKind` in src/value.rs).
const ADAPTER_LERP: u32 = 0u;
const ADAPTER_SLERP: u32 = 1u;
const ADAPTER_NLERP: u32 = 2u;
const ADAPTER_PUNCH: u32 = 3u;
const ADAPTER_SHAKE: u32 = 4u;

const LOOP_RESTART: u32 = 0u;
const LOOP_FLIP: u32 = 1u;
const LOOP_INCREMENTAL: u32 = 2u;
const LOOP_YOYO: u32 = 3u;

// The texture mirror of the row table (src/gpu/tex_mirror.rs; keep in sync with
// `WIDTH_SHIFT` there): texel t of a mirror texture, filled row by row, 2^13 texels a row
// (a texture of fewer texels is one row of them).
const MIRROR_WIDTH_SHIFT: u32 = 13u;

fn mirror_texel(t: u32) -> vec2<u32> {
    return vec2<u32>(t & ((1u << MIRROR_WIDTH_SHIFT) - 1u), t >> MIRROR_WIDTH_SHIFT);
}

// The texel of the lane mirror holding lanes 2h and 2h + 1 of row i (stride: the page's
// capacity), as (from, to, from, to): two lane pairs per 16-byte texel, so a row of four
// lanes is two texture loads. Keep in sync with `LANES_PER_TEXEL` in src/gpu/tex_mirror.rs.
fn lane_texel(i: u32, h: u32, stride: u32) -> vec2<u32> {
    return mirror_texel(h * stride + i);
}

// The lane pairs of one row, lane k's (from, to) in (start[k], end[k]), as the evaluate pass
// reads them (`load_lanes` in rows32.wgsl).
struct LanePairs {
    start: vec4<f32>,
    end: vec4<f32>,
}
