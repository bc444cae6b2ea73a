// Fills the lane texture of a new texture mirror from its page's lane buffer
// (src/gpu/tex_mirror.rs): lanes 2h and 2h + 1 of row i go into one texel (`lane_texel` in
// types.wgsl), an interleaving of two buffer sections that a buffer-to-texture copy cannot
// do. Keep in sync with `mirror_lanes` in apply_mirror.wgsl (the same texels).

// The page's lane pairs, as bits: lane k of row i at k * stride + i.
@group(0) @binding(0) var<storage, read> lanes: array<vec2<u32>>;
// Two texels per row of capacity: stride = the texel count / 2.
@group(0) @binding(1) var lanes_mirror: texture_storage_2d<rgba32uint, write>;

@compute @workgroup_size(64)
fn fill(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    // Dispatches over 65 535 workgroups fold into y.
    let i = gid.x + gid.y * groups.x * 64u;
    let size = textureDimensions(lanes_mirror);
    let stride = size.x * size.y / 2u;
    if i >= stride {
        return;
    }
    for (var h = 0u; h < 2u; h++) {
        let texel = vec4<u32>(lanes[2u * h * stride + i], lanes[(2u * h + 1u) * stride + i]);
        textureStore(lanes_mirror, lane_texel(i, h, stride), texel);
    }
}
