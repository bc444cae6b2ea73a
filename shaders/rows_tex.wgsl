// How the evaluate pass reads rows and lane pairs: through the texture mirror of the `rows`
// and `lanes` buffers (src/gpu/tex_mirror.rs). Keep in sync with rows32.wgsl (the same
// functions over the same bytes) and apply_mirror.wgsl (the same texels).
//
// Why: lavapipe loads a storage value with a loop over the SIMD lanes per scalar component
// (examples/access_probe.rs: about 3.5 ns per invocation each), while a 16-byte textureLoad
// costs about 1.3 ns. Row i is texels 2i (base_hi, base_lo, duration, flags) and 2i + 1
// (speed, delay, loops, params) of an Rgba32Uint texture; lane pair j is texel j of an
// Rg32Uint texture (`mirror_texel` in types.wgsl).

// The element types of the (unread) `rows` and `lanes` bindings (evaluate.wgsl).
alias RowWords = MotionRow;
alias LaneWords = vec2<f32>;

@group(0) @binding(7) var rows_tex: texture_2d<u32>;
@group(0) @binding(8) var lanes_tex: texture_2d<u32>;

// Row i of the table. The second texel only where the pipeline variant reads one of its
// fields: otherwise neutral values (speed 1, no delay, infinite loops) that no code reads.
fn load_row(i: u32) -> MotionRow {
    let hot = textureLoad(rows_tex, mirror_texel(2u * i), 0);
    var cold = vec4<u32>(bitcast<u32>(1.0f), 0u, bitcast<u32>(-1i), 0u);
    if HAS_SPEED || HAS_DELAY || HAS_FINITE_LOOPS || HAS_PARAMETRIC || HAS_QUAT || HAS_VIBRATE {
        cold = textureLoad(rows_tex, mirror_texel(2u * i + 1u), 0);
    }
    return MotionRow(
        bitcast<f32>(hot.x),
        bitcast<f32>(hot.y),
        bitcast<f32>(hot.z),
        hot.w,
        bitcast<f32>(cold.x),
        bitcast<f32>(cold.y),
        bitcast<i32>(cold.z),
        cold.w,
    );
}

// The (from, to) pair at index j of the lane buffer.
fn lane_pair(j: u32) -> vec2<f32> {
    let texel = textureLoad(lanes_tex, mirror_texel(j), 0);
    return bitcast<vec2<f32>>(texel.xy);
}
