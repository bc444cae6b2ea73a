// How the evaluate pass reads rows and lane pairs: as 32-bit words (`load_row`, `load_lanes`),
// on every device.

// The element types of the `rows` and `lanes` bindings (evaluate.wgsl).
alias RowWords = MotionRow;
alias LaneWords = vec2<f32>;

// Row i of the table.
fn load_row(i: u32) -> MotionRow {
    return rows[i];
}

// Lanes 0..count of row i (count <= 4; lane k at k * stride + i), one load per lane; lanes
// past count are 0.
fn load_lanes(i: u32, stride: u32, count: u32) -> LanePairs {
    var pairs = LanePairs(vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < count; k++) {
        let pair = lanes[k * stride + i];
        pairs.start[k] = pair.x;
        pairs.end[k] = pair.y;
    }
    return pairs;
}
