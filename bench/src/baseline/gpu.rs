//! The GPU floor: a trivial lerp kernel over N `(from, to)` pairs, one submission per step
//! (as an update makes), measured next to the evaluate pass on the same adapter.

use wgpu_tween::gpu::GpuContext;

/// The kernel; `ROWS` (spliced in for [`GpuLerpFloor::with_rows`]) also reads a 32-byte row
/// per element, the bytes the evaluate pass reads, without its timing arithmetic.
const WGSL: &str = r"
struct Params { count: u32, groups_x: u32, t: f32, _pad: u32 }
struct Row { a: vec4<f32>, b: vec4<f32> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> pairs: array<vec2<f32>>;
@group(0) @binding(2) var<storage, read_write> outputs: array<f32>;
ROWS_BINDING

@compute @workgroup_size(256)
fn lerp(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * params.groups_x * 256u;
    if i >= params.count {
        return;
    }
    var t = params.t;
    ROWS_READ
    let p = pairs[i];
    outputs[i] = p.x + (p.y - p.x) * t;
}
";

/// `outputs[i] = from[i] + (to[i] − from[i]) · t` over `n` pairs: the least a lerp pass can
/// cost on an adapter.
///
/// ```no_run
/// use wgpu_tween_bench::baseline::GpuLerpFloor;
/// use wgpu_tween::gpu::GpuContext;
///
/// let ctx = GpuContext::new()?;
/// let mut floor = GpuLerpFloor::new(&ctx, 100_000);
/// floor.step(1.0 / 60.0); // one submission, not waited for
/// # Ok::<(), wgpu_tween::gpu::GpuError>(())
/// ```
pub struct GpuLerpFloor {
    ctx: GpuContext,
    pipeline: wgpu::ComputePipeline,
    group: wgpu::BindGroup,
    params: wgpu::Buffer,
    n: u32,
    groups: (u32, u32),
    t: f32,
}

impl GpuLerpFloor {
    /// The kernel over `n` pairs.
    #[must_use]
    pub fn new(ctx: &GpuContext, n: usize) -> Self {
        Self::build(ctx, n, false)
    }

    /// The kernel over `n` pairs, also reading a 32-byte row per element.
    #[must_use]
    pub fn with_rows(ctx: &GpuContext, n: usize) -> Self {
        Self::build(ctx, n, true)
    }

    fn build(ctx: &GpuContext, n: usize, rows: bool) -> Self {
        let device = ctx.device();
        let source = if rows {
            WGSL.replace(
                "ROWS_BINDING",
                "@group(0) @binding(3) var<storage, read> rows: array<Row>;",
            )
            .replace(
                "ROWS_READ",
                "let r = rows[i]; let s = r.a + r.b; t += s.x + s.y + s.z + s.w;",
            )
        } else {
            WGSL.replace("ROWS_BINDING", "").replace("ROWS_READ", "")
        };
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("floor lerp"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("floor lerp"),
            layout: None,
            module: &module,
            entry_point: Some("lerp"),
            compilation_options: Default::default(),
            cache: None,
        });
        let buffer = |label, size: u64, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: size.max(4),
                usage,
                mapped_at_creation: false,
            })
        };
        let n64 = n as u64;
        let storage = wgpu::BufferUsages::STORAGE;
        let pairs = buffer(
            "floor pairs",
            n64 * 8,
            storage | wgpu::BufferUsages::COPY_DST,
        );
        let values: Vec<[f32; 2]> = (0..n).map(|i| [i as f32, i as f32 + 10.0]).collect();
        ctx.queue()
            .write_buffer(&pairs, 0, bytemuck::cast_slice(&values));
        let outputs = buffer("floor outputs", n64 * 4, storage);
        let params = buffer(
            "floor params",
            16,
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        );
        // Zeroed rows: their content does not matter, only that they are read.
        let row_buffer = rows.then(|| buffer("floor rows", n64 * 32, storage));
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: params.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: pairs.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: outputs.as_entire_binding(),
            },
        ];
        if let Some(rows) = &row_buffer {
            entries.push(wgpu::BindGroupEntry {
                binding: 3,
                resource: rows.as_entire_binding(),
            });
        }
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("floor lerp"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        let limit = device.limits().max_compute_workgroups_per_dimension;
        Self {
            ctx: ctx.clone(),
            pipeline,
            group,
            params,
            n: n as u32,
            groups: fold_dispatch(n as u32, 256, limit),
            t: 0.0,
        }
    }

    /// One submission (a params write and one dispatch), not waited for.
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

impl std::fmt::Debug for GpuLerpFloor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuLerpFloor")
            .field("n", &self.n)
            .finish_non_exhaustive()
    }
}

/// Workgroups `(x, y)` covering `items` in groups of `size`, folded into a second dimension
/// when one axis would exceed `max_per_axis`.
fn fold_dispatch(items: u32, size: u32, max_per_axis: u32) -> (u32, u32) {
    let groups = items.div_ceil(size).max(1);
    if groups <= max_per_axis {
        (groups, 1)
    } else {
        let y = groups.div_ceil(max_per_axis);
        (groups.div_ceil(y), y)
    }
}
