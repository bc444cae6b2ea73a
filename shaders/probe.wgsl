// A dispatch that binds a target buffer as the scatter pass does and writes nothing: a
// submission of it fails where the device no longer accepts the buffer (destroyed, or
// mapped), which tells a bad target buffer from the others after a failed update.

@group(0) @binding(0) var<storage, read_write> target_buffer: array<f32>;

@compute @workgroup_size(1)
fn probe() {
    // A bound buffer has at least one f32, so this never writes.
    if arrayLength(&target_buffer) == 0u {
        target_buffer[0] = 0.0;
    }
}
