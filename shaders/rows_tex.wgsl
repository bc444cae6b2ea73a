// How the evaluate pass reads rows and lane pairs: through textures that mirror the `rows`
// and `lanes` buffers (a prototype, src/gpu/tex_mirror.rs). Keep in sync with rows32.wgsl
// (the same functions over the same bytes).
//
// Why: lavapipe loads a storage value with a loop over the SIMD lanes per scalar component
// (examples/access_probe.rs), while a 16-byte textureLoad costs about a third of one such
// loop. The row's two 16-byte halves are texels 2i and 2i + 1 of an Rgba32Uint texture,
// TEX_ROW_TEXELS texels wide; lane pair j is texel j of an Rg32Float texture, TEX_LANE_TEXELS
// wide (keep both in sync with src/gpu/tex_mirror.rs).

alias RowWords = MotionRow;
alias LaneWords = vec2<f32>;

@group(0) @binding(7) var rows_tex: texture_2d<u32>;
@group(0) @binding(8) var lanes_tex: texture_2d<f32>;

// log2 of the textures' widths in texels.
const TEX_ROW_SHIFT: u32 = 11u;
const TEX_LANE_SHIFT: u32 = 12u;

// Row i of the table. The second half only where the pipeline variant reads its fields
// (speed, delay, loops, params); otherwise neutral values that no code reads.
fn load_row(i: u32) -> MotionRow {
    let t = 2u * i;
    let x = t & ((1u << TEX_ROW_SHIFT) - 1u);
    let y = t >> TEX_ROW_SHIFT;
    let hot = textureLoad(rows_tex, vec2<u32>(x, y), 0);
    var cold = vec4<u32>(bitcast<u32>(1.0f), 0u, bitcast<u32>(-1i), 0u);
    if HAS_SPEED || HAS_DELAY || HAS_FINITE_LOOPS || HAS_PARAMETRIC || HAS_QUAT || HAS_VIBRATE {
        cold = textureLoad(rows_tex, vec2<u32>(x + 1u, y), 0);
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
    let x = j & ((1u << TEX_LANE_SHIFT) - 1u);
    return textureLoad(lanes_tex, vec2<u32>(x, j >> TEX_LANE_SHIFT), 0).xy;
}
