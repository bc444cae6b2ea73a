// The apply pass without a texture mirror: keep in sync with apply_mirror.wgsl (the same
// functions), which writes what these leave out.

fn mirror_row(i: u32, row: MotionRow) {}

fn mirror_lanes(i: u32, stride: u32, pairs: array<vec2<f32>, 4>) {}
