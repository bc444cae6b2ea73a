// The apply pass's writes to the texture mirror of the rows and lanes (src/gpu/tex_mirror.rs),
// which the evaluate pass reads through rows_tex.wgsl. Keep in sync with apply_plain.wgsl
// (the same functions, writing nothing) and with rows_tex.wgsl (the same texels).

@group(0) @binding(8) var rows_mirror: texture_storage_2d<rgba32uint, write>;
@group(0) @binding(9) var lanes_mirror: texture_storage_2d<rg32uint, write>;

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

// Lane pair j (from, to) as texel j, bits unchanged (an integer format, so no float
// conversion can touch them).
fn mirror_lane(j: u32, pair: vec2<f32>) {
    let bits = bitcast<vec2<u32>>(pair);
    textureStore(lanes_mirror, mirror_texel(j), vec4<u32>(bits, 0u, 0u));
}
