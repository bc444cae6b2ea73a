// How the evaluate pass reads rows and lane pairs: 64-bit words, for devices with 64-bit
// integers (SHADER_INT64). Keep in sync with rows32.wgsl (the same functions over the same
// bytes).
//
// Why: lavapipe loads a storage value with a loop over the SIMD lanes per scalar component,
// whatever the component's width (examples/access_probe.rs: about 3.5 ns per invocation for
// an f32, a u64 or each component of a vec4, which is four such loops). Reading two f32s as
// one u64 halves the cost of the row and the lane reads. Loads of words whose fields the
// pipeline variant leaves unused are dropped by the compiler, as with 32-bit reads.

// MotionRow (types.wgsl) as four u64 words; WGSL lays out memory little-endian, so the
// first field of each pair is the word's low half.
struct RowWords {
    base: u64,
    duration_flags: u64,
    speed_delay: u64,
    loops_params: u64,
}
// (from, to): from in the low half.
alias LaneWords = u64;

fn low_bits(w: u64) -> u32 {
    return u32(w);
}

fn high_bits(w: u64) -> u32 {
    return u32(w >> 32u);
}

// Row i of the table.
fn load_row(i: u32) -> MotionRow {
    let base = rows[i].base;
    let duration_flags = rows[i].duration_flags;
    let speed_delay = rows[i].speed_delay;
    let loops_params = rows[i].loops_params;
    return MotionRow(
        bitcast<f32>(low_bits(base)),
        bitcast<f32>(high_bits(base)),
        bitcast<f32>(low_bits(duration_flags)),
        high_bits(duration_flags),
        bitcast<f32>(low_bits(speed_delay)),
        bitcast<f32>(high_bits(speed_delay)),
        bitcast<i32>(low_bits(loops_params)),
        high_bits(loops_params),
    );
}

// Lanes 0..count of row i (count <= 4; lane k at k * stride + i), one load per lane; lanes
// past count are 0.
fn load_lanes(i: u32, stride: u32, count: u32) -> LanePairs {
    var pairs = LanePairs(vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < count; k++) {
        let w = lanes[k * stride + i];
        pairs.start[k] = bitcast<f32>(low_bits(w));
        pairs.end[k] = bitcast<f32>(high_bits(w));
    }
    return pairs;
}
