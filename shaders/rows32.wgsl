// How the evaluate pass reads rows and lane pairs: 32-bit words, for devices without 64-bit
// integers. Keep in sync with rows64.wgsl (the same functions over the same bytes).

// The element types of the `rows` and `lanes` bindings (evaluate.wgsl).
alias RowWords = MotionRow;
alias LaneWords = vec2<f32>;

// Row i of the table.
fn load_row(i: u32) -> MotionRow {
    return rows[i];
}

// The (from, to) pair at index j of the lane buffer.
fn lane_pair(j: u32) -> vec2<f32> {
    return lanes[j];
}
