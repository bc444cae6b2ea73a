//! What one storage-buffer read costs per invocation, by shape (scalar, vector, struct
//! member, 64-bit word, texel), on the adapter at hand: the measurements behind the 64-bit
//! row reads of the evaluate pass (`shaders/rows64.wgsl`).
//!
//! `cargo run --release --example access_probe [-- N ROUNDS]` (default 2^20 invocations, 5
//! rounds). Each kernel writes one f32 per invocation and differs from the others only in
//! what it reads. Kernels run interleaved, three dispatches each per round, so the load of the
//! machine falls on all alike. Columns: median and minimum wall time of a dispatch and wait,
//! the minimum less the store-only kernel's per invocation, and the process's CPU time per
//! dispatch (all threads, from `/proc/self/task/*/schedstat`; 0 where unavailable), which
//! other processes on the machine disturb less than the wall time.
//!
//! On lavapipe (Mesa 22.3, LLVM 15, AVX2) every storage read costs about 3.3-3.6 ns per
//! invocation per scalar component, 32- or 64-bit alike: a `vec4<f32>` costs four `f32`s
//! (even when only `.x` is used), a `u64` one, a `vec2<u64>` two. Unused members of a struct
//! read whole are dropped; unused components of a vector are not. Stride and struct-of-arrays
//! versus array-of-structs make no difference, nor does an address uniform over the
//! workgroup. A `textureLoad` of an `rgba32float` texel costs about 1.3 ns.

use std::time::Instant;

use wgpu_tween::gpu::GpuContext;

const HEADER: &str = r"
struct Params { n: u32, groups_x: u32, t: f32, zero: u32 }
struct Row8 {
    base_hi: f32, base_lo: f32, duration: f32, flags: u32,
    speed: f32, delay: f32, loops: i32, params: u32,
}
struct Row2 { hot: vec4<f32>, cold: vec4<f32> }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> data: array<f32>;
@group(0) @binding(2) var<storage, read> data4: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;
@group(0) @binding(4) var tex: texture_2d<f32>;
@group(0) @binding(5) var<storage, read> rows: array<Row8>;
@group(0) @binding(6) var<storage, read> rows2: array<Row2>;
@group(0) @binding(7) var<storage, read> data2: array<vec2<f32>>;
@group(0) @binding(8) var<storage, read> datau: array<u32>;
INT64

fn lo(w: u64) -> f32 { return bitcast<f32>(u32(w)); }
fn hi(w: u64) -> f32 { return bitcast<f32>(u32(w >> 32u)); }

@compute @workgroup_size(256)
fn main(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let i = gid.x + gid.y * params.groups_x * 256u;
    if i >= params.n { return; }
    let n = params.n;
    var acc = params.t;
    BODY
    out[i] = acc;
}
";

/// The 64-bit views of the data (with `SHADER_INT64`).
const INT64: &str = r"
@group(0) @binding(9) var<storage, read> data64: array<u64>;
@group(0) @binding(10) var<storage, read> data64v: array<vec2<u64>>;
@group(0) @binding(11) var<storage, read> data64w: array<vec4<u64>>;
";

/// `count` f32 reads, the `c`-th at the index `index(c)`.
fn sum_of(count: u32, index: impl Fn(u32) -> String) -> String {
    (0..count)
        .map(|c| format!("acc += data[{}];", index(c)))
        .collect()
}

/// (name, body): the body adds what it reads to `acc`, which is written to `out[i]`.
fn kernels(int64: bool) -> Vec<(&'static str, String)> {
    let mut k: Vec<(&'static str, String)> = vec![
        ("store only", "acc += f32(i);".into()),
        ("vec2 x1 (the floor's read)", "let p = data2[i]; acc = p.x + (p.y - p.x) * acc;".into()),
        ("f32 x1", sum_of(1, |_| "i".into())),
        ("f32 x2 columns", sum_of(2, |c| format!("{c}u * n + i"))),
        ("f32 x4 columns", sum_of(4, |c| format!("{c}u * n + i"))),
        ("f32 x8 columns", sum_of(8, |c| format!("{c}u * n + i"))),
        ("f32 x4 stride 32 B", sum_of(4, |c| format!("i * 8u + {c}u"))),
        ("f32 x8 stride 32 B", sum_of(8, |c| format!("i * 8u + {c}u"))),
        ("f32 x4 workgroup-uniform", sum_of(4, |c| format!("wid.x * 4u + {c}u"))),
        ("vec2 x2 columns", "let a = data2[i]; let b = data2[n + i]; acc += a.x + a.y + b.x + b.y;".into()),
        ("vec4 x1", "let a = data4[i]; acc += a.x + a.y + a.z + a.w;".into()),
        ("vec4 x1, only .x used", "let a = data4[i]; acc += a.x;".into()),
        ("vec4 x2 stride 32 B", "let s = data4[2u * i] + data4[2u * i + 1u]; acc += s.x + s.y + s.z + s.w;".into()),
        ("struct (8 x 4 B), 4 used", "let r = rows[i]; acc += r.base_hi + r.base_lo + r.duration + bitcast<f32>(r.flags);".into()),
        ("struct (8 x 4 B), 1 used", "let r = rows[i]; acc += r.base_hi;".into()),
        ("struct vec4 member", "let h = rows2[i].hot; acc += h.x + h.y + h.z + h.w;".into()),
        ("u32 x1 as 2 x f16", "let v = unpack2x16float(datau[i]); acc += v.x + v.y;".into()),
        ("texel rgba32f x1", "let a = textureLoad(tex, vec2<u32>(i & 1023u, (i >> 10u) & 1023u), 0); acc += a.x + a.y + a.z + a.w;".into()),
        ("texel rgba32f x2", "let y = (i >> 10u) & 511u; let s = textureLoad(tex, vec2<u32>(i & 1023u, y), 0) + textureLoad(tex, vec2<u32>(i & 1023u, y + 512u), 0); acc += s.x + s.y + s.z + s.w;".into()),
        ("a second store", "out[(i + n / 2u) % n] = acc + 1.0;".into()),
    ];
    if int64 {
        k.push(("u64 x1", "let v = data64[i]; acc += lo(v) + hi(v);".into()));
        k.push((
            "vec2<u64> x1",
            "let v = data64v[i]; acc += lo(v.x) + hi(v.x) + lo(v.y) + hi(v.y);".into(),
        ));
        k.push(("u64 x2 stride 32 B", "let a = data64[4u * i]; let b = data64[4u * i + 1u]; acc += lo(a) + hi(a) + lo(b) + hi(b);".into()));
        k.push((
            "vec4<u64> x1",
            "let v = data64w[i]; acc += lo(v.x) + hi(v.y) + lo(v.z) + hi(v.w);".into(),
        ));
    }
    k
}

/// CPU time of all the process's threads, ms (0 where `/proc` has no schedstat).
fn cpu_ms() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    let mut ns = 0u64;
    for task in tasks.flatten() {
        if let Ok(s) = std::fs::read_to_string(task.path().join("schedstat")) {
            ns += s
                .split(' ')
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
        }
    }
    ns as f64 * 1e-6
}

/// A device with `SHADER_INT64` where the adapter has it.
async fn context() -> Option<(GpuContext, bool)> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = instance.request_adapter(&Default::default()).await.ok()?;
    let int64 = adapter.features().contains(wgpu::Features::SHADER_INT64);
    let supported = adapter.limits();
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            required_features: adapter.features() & wgpu::Features::SHADER_INT64,
            required_limits: wgpu::Limits {
                max_storage_buffers_per_shader_stage: 12,
                ..wgpu::Limits::default()
            }
            .or_worse_values_from(&supported),
            ..Default::default()
        })
        .await
        .ok()?;
    Some((
        GpuContext::from_device(device, queue, adapter.get_info()),
        int64,
    ))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1 << 20);
    let rounds: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let Some((ctx, int64)) = pollster::block_on(context()) else {
        println!("no adapter");
        return;
    };
    println!("adapter: {}, N = {n}", ctx.adapter_info().name);
    let device = ctx.device();
    let queue = ctx.queue();
    let storage = |read_only| wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only },
        has_dynamic_offset: false,
        min_binding_size: None,
    };
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }];
    for b in 1..=(if int64 { 11 } else { 8 }) {
        let ty = match b {
            3 => storage(false),
            4 => wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            _ => storage(true),
        };
        entries.push(wgpu::BindGroupLayoutEntry {
            binding: b,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty,
            count: None,
        });
    }
    let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &entries,
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: None,
        bind_group_layouts: &[Some(&bgl)],
        immediate_size: 0,
    });
    let n64 = u64::from(n);
    // 8 floats per invocation: 8 SoA columns, or N rows of 32 bytes.
    let data = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: n64 * 32,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let fill: Vec<f32> = (0..n64 * 8).map(|i| (i % 97) as f32 * 0.01).collect();
    queue.write_buffer(&data, 0, bytemuck::cast_slice(&fill));
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: n64 * 4,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let params = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let groups = n.div_ceil(256);
    queue.write_buffer(
        &params,
        0,
        bytemuck::cast_slice(&[n, groups, 0.5f32.to_bits(), 0]),
    );
    let tex = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: 1024,
            height: 1024,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba32Float,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let view = tex.create_view(&Default::default());
    fn buf(b: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
        wgpu::BindGroupEntry {
            binding: b,
            resource: buffer.as_entire_binding(),
        }
    }
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &bgl,
        entries: &[
            buf(0, &params),
            buf(1, &data),
            buf(2, &data),
            buf(3, &out),
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::TextureView(&view),
            },
            buf(5, &data),
            buf(6, &data),
            buf(7, &data),
            buf(8, &data),
            buf(9, &data),
            buf(10, &data),
            buf(11, &data),
        ][..if int64 { 12 } else { 9 }],
    });
    let kernels = kernels(int64);
    let header = HEADER.replace("INT64", if int64 { INT64 } else { "" });
    let pipelines: Vec<wgpu::ComputePipeline> = kernels
        .iter()
        .map(|(_, body)| {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::Wgsl(header.replace("BODY", body).into()),
            });
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: Some(&layout),
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            })
        })
        .collect();
    let run = |p: &wgpu::ComputePipeline| {
        let start = Instant::now();
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(p);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        queue.submit([encoder.finish()]);
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        start.elapsed().as_secs_f64() * 1e3
    };
    for p in &pipelines {
        run(p);
    }
    let mut times = vec![Vec::new(); pipelines.len()];
    let mut cpu = vec![0.0; pipelines.len()];
    for _ in 0..rounds {
        for ((t, c), p) in times.iter_mut().zip(&mut cpu).zip(&pipelines) {
            let before = cpu_ms();
            for _ in 0..3 {
                t.push(run(p));
            }
            *c += cpu_ms() - before;
        }
    }
    let stats: Vec<(f64, f64)> = times
        .iter_mut()
        .map(|t| {
            t.sort_by(f64::total_cmp);
            (t[t.len() / 2], t[0])
        })
        .collect();
    let base = stats[0].1;
    println!(
        "{:<28} {:>9} {:>9} {:>16} {:>10}",
        "kernel", "median ms", "min ms", "(min-store)/N ns", "CPU ms"
    );
    for (((name, _), (median, min)), c) in kernels.iter().zip(&stats).zip(&cpu) {
        println!(
            "{name:<28} {median:>9.2} {min:>9.2} {:>16.2} {:>10.2}",
            (min - base) * 1e6 / f64::from(n),
            c / (3 * rounds) as f64
        );
    }
}
