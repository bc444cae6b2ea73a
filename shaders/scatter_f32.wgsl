// The scatter into an f32 target (TargetFormat::F32).

@group(0) @binding(3) var<storage, read_write> destination: array<f32>;

@compute @workgroup_size(64)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>) {
    let job = scatter_job(gid);
    if !job.live {
        return;
    }
    for (var k = 0u; k < job.lanes; k++) {
        destination[job.first + k] = scatter_lane(job, k);
    }
}
