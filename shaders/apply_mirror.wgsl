// The apply pass's writes to the texture mirror of the rows and lanes (src/gpu/tex_mirror.rs),
// which the evaluate pass reads through rows_tex.wgsl. Keep in sync with apply_plain.wgsl
// (the same functions, writing nothing) and with rows_tex.wgsl (the same texels).

@group(0) @binding(8) var rows_mirror: texture_storage_2d<rgba32uint, write>;
@group(0) @binding(9) var lanes_mirror: texture_storage_2d<rgba32uint, write>;

// Row i as texels 2i (base_hi, base_lo, duration, flags) and 2i + 1 (speed, delay, loops,
// params), bits unchanged.
fn mirror_row(i: u32, row: MotionRow) {
    textureStore(rows_mirror, mirror_texel(2u * i), vec4<u32>(
        bitcast<u32>(row.base_hi),
        bitcast<u32>(row.base_lo),
        bitcast<u32>(row.duration),
        row.flags,
    ));
    textureStore(rows_mirror, mirror_texel(2u * i + 1u), vec4<u32>(
        bitcast<u32>(row.speed),
        bitcast<u32>(row.delay),
        bitcast<u32>(row.loops),
        row.params,
    ));
}

// The four lane pairs (from, to) of row i as two texels, lanes 0 and 1 then 2 and 3
// (`lane_texel` in types.wgsl), bits unchanged (an integer format, so no float conversion can
// touch them). Whole texels only: every row written is written with all its lanes.
fn mirror_lanes(i: u32, stride: u32, pairs: array<vec2<f32>, 4>) {
    for (var h = 0u; h < 2u; h++) {
        let texel = vec4<f32>(pairs[2u * h], pairs[2u * h + 1u]);
        textureStore(lanes_mirror, lane_texel(i, h, stride), bitcast<vec4<u32>>(texel));
    }
}
