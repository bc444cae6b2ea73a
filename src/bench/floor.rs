//! The GPU floor: a trivial lerp kernel over N `(from, to)` pairs on the same adapter, one
//! submission per step (as an update makes), the same kernel `benches/gpu.rs` measures.

use wgpu_tween::gpu::GpuContext;

const FLOOR_WGSL: &str = r"
struct Params { count: u32, groups_x: u32, t: f32, _pad: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> pairs: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> outputs: array<f32>;

@compute @workgroup_size(256)
fn lerp(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * params.groups_x * 256u;
    if i >= params.count {
        return;
    }
    let p = pairs[i];
    outputs[i] = p.x + (p.y - p.x) * params.t;
}
";

/// `outputs[i] = from[i] + (to[i] − from[i]) · t` over `n` pairs: the least a lerp pass can
/// cost on this adapter.
pub struct FloorKernel {
    ctx: GpuContext,
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    params: wgpu::Buffer,
    n: u32,
    groups: (u32, u32),
    t: f32,
}

impl FloorKernel {
    /// The kernel's pipeline and buffers for `n` pairs.
    pub fn new(ctx: &GpuContext, n: usize) -> Self {
        let device = ctx.device();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("floor lerp"),
            source: wgpu::ShaderSource::Wgsl(FLOOR_WGSL.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("floor lerp"),
            layout: None,
            module: &module,
            entry_point: Some("lerp"),
            compilation_options: Default::default(),
            cache: None,
        });
        let pairs: Vec<[f32; 2]> = (0..n).map(|i| [i as f32, i as f32 + 10.0]).collect();
        let pairs_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("floor pairs"),
            size: (n as u64 * 8).max(8),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        ctx.queue()
            .write_buffer(&pairs_buffer, 0, bytemuck::cast_slice(&pairs));
        let outputs = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("floor outputs"),
            size: (n as u64 * 4).max(4),
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("floor params"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("floor lerp"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: pairs_buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: outputs.as_entire_binding(),
                },
            ],
        });
        let limit = device.limits().max_compute_workgroups_per_dimension;
        let groups = (n as u32).div_ceil(256).max(1);
        let groups = if groups <= limit {
            (groups, 1)
        } else {
            let y = groups.div_ceil(limit);
            (groups.div_ceil(y), y)
        };
        Self {
            ctx: ctx.clone(),
            pipeline,
            group,
            params,
            n: n as u32,
            groups,
            t: 0.0,
        }
    }

    /// One submission (params write, one dispatch), not waited for.
    pub fn step(&mut self, dt: f32) {
        self.t = (self.t + dt) % 1.0;
        let params = [self.n, self.groups.0, self.t.to_bits(), 0];
        self.ctx
            .queue()
            .write_buffer(&self.params, 0, bytemuck::cast_slice(&params));
        let mut encoder = self
            .ctx
            .device()
            .create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.group, &[]);
            pass.dispatch_workgroups(self.groups.0, self.groups.1, 1);
        }
        self.ctx.queue().submit([encoder.finish()]);
    }
}
