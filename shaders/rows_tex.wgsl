// How the evaluate pass reads rows and lane pairs: through the texture mirror of the `rows`
// and `lanes` buffers (src/gpu/tex_mirror.rs). Keep in sync with rows32.wgsl (the same
// functions over the same bytes) and apply_mirror.wgsl (the same texels).
//
// Why: lavapipe loads a storage value with a loop over the SIMD lanes per scalar component
// (examples/access_probe.rs: about 3.5 ns per invocation each), while a 16-byte textureLoad
// costs about 1.3 ns, an 8-byte one hardly less. Row i is texels 2i (base_hi, base_lo,
// duration, flags) and 2i + 1 (speed, delay, loops, params) of an Rgba32Uint texture; its
// lanes 0 and 1 are texel i of a second Rgba32Uint texture, lanes 2 and 3 texel stride + i
// (`lane_texel` in types.wgsl), so a row of one or two lanes is one load, of three or four
// (and quaternions) two.

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

// Lanes 0..count of row i (count <= 4): the texel of lanes 0 and 1, and that of lanes 2 and
// 3 where count > 2. Unlike the buffer reads, a lane past count within a loaded texel holds
// whatever the mirror holds there (the evaluate pass neither writes nor uses such lanes).
fn load_lanes(i: u32, stride: u32, count: u32) -> LanePairs {
    let low = bitcast<vec4<f32>>(textureLoad(lanes_tex, lane_texel(i, 0u, stride), 0));
    var high = vec4<f32>(0.0);
    if count > 2u {
        high = bitcast<vec4<f32>>(textureLoad(lanes_tex, lane_texel(i, 1u, stride), 0));
    }
    return LanePairs(
        vec4<f32>(low.x, low.z, high.x, high.z),
        vec4<f32>(low.y, low.w, high.y, high.w),
    );
}
