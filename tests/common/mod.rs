//! Shared test helpers: which executors to run, GPU contexts, a test RNG.

#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, OnceLock};

use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Executor, MotionWorld};

/// An executor under test.
#[derive(Clone, Debug)]
pub enum Exec {
    Cpu,
    Gpu(Box<GpuContext>),
}

impl Exec {
    pub fn name(&self) -> &'static str {
        match self {
            Exec::Cpu => "cpu",
            Exec::Gpu(ctx)
                if ctx.device().limits().max_storage_buffer_binding_size <= PAGED_BINDING =>
            {
                "gpu-paged"
            }
            Exec::Gpu(_) => "gpu",
        }
    }

    /// A new world on this executor.
    pub fn world(&self) -> MotionWorld {
        match self {
            Exec::Cpu => MotionWorld::new(),
            Exec::Gpu(ctx) => {
                let mut world = MotionWorld::with_gpu((**ctx).clone()).expect("GPU world");
                world.set_executor(Executor::Gpu).expect("GPU executor");
                world
            }
        }
    }
}

/// A CPU-executor world and a GPU-executor world for side-by-side parity checks, or `None`
/// (skipped, or a failure under `WGPU_TWEEN_REQUIRE_GPU=1`) without an adapter.
pub fn cpu_and_gpu_worlds() -> Option<(MotionWorld, MotionWorld)> {
    let ctx = gpu()?;
    Some((MotionWorld::new(), Exec::Gpu(Box::new(ctx)).world()))
}

/// Whether GPU tests must fail rather than skip without an adapter.
pub fn gpu_required() -> bool {
    std::env::var("WGPU_TWEEN_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// The shared GPU context, or `None` with a printed reason (a panic when
/// `WGPU_TWEEN_REQUIRE_GPU=1`).
pub fn gpu() -> Option<GpuContext> {
    static CONTEXT: OnceLock<Result<GpuContext, String>> = OnceLock::new();
    match CONTEXT.get_or_init(|| GpuContext::new().map_err(|e| e.to_string())) {
        Ok(ctx) => Some(ctx.clone()),
        Err(why) if gpu_required() => panic!("WGPU_TWEEN_REQUIRE_GPU=1 but no GPU: {why}"),
        Err(why) => {
            println!("skipping GPU executor: {why}");
            None
        }
    }
}

/// One update of a world that must stay on the GPU executor: no GPU error, no fallback to
/// the CPU (`what` names the step in failures).
pub fn update_on_gpu(world: &mut MotionWorld, dt: f64, what: &str) {
    world.update(dt).expect("update");
    assert_eq!(world.take_gpu_error(), None, "{what}: GPU error");
    assert_eq!(
        world.active_executor(),
        Executor::Gpu,
        "{what}: left the GPU"
    );
}

/// A context on a new device of the adapter [`gpu`] finds, with `limits` and `features`
/// (each given the adapter's own, to stay within them). `None` without an adapter (skipped,
/// or a failure under `WGPU_TWEEN_REQUIRE_GPU=1`).
pub fn own_device(
    label: &'static str,
    limits: impl FnOnce(&wgpu::Limits) -> wgpu::Limits,
    features: impl FnOnce(wgpu::Features) -> wgpu::Features,
) -> Option<GpuContext> {
    let (device, queue, info) = own_raw_device(label, limits, features)?;
    Some(GpuContext::from_device(device, queue, info))
}

/// [`own_device`]'s device, queue and adapter description, before a context is made.
#[allow(dead_code)] // not every test binary makes its own contexts
pub fn own_raw_device(
    label: &'static str,
    limits: impl FnOnce(&wgpu::Limits) -> wgpu::Limits,
    features: impl FnOnce(wgpu::Features) -> wgpu::Features,
) -> Option<(wgpu::Device, wgpu::Queue, wgpu::AdapterInfo)> {
    gpu()?;
    pollster::block_on(async {
        let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        });
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .expect("gpu() found an adapter");
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some(label),
                required_limits: limits(&adapter.limits()),
                required_features: features(adapter.features()),
                ..Default::default()
            })
            .await
            .expect("a device of the test adapter");
        Some((device, queue, adapter.get_info()))
    })
}

/// The contents of `buffer` (which needs `COPY_SRC`) as f32s, read back and waited for.
pub fn read_buffer(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Vec<f32> {
    let device = ctx.device();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    ctx.queue().submit([encoder.finish()]);
    let done = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&done);
    staging.map_async(wgpu::MapMode::Read, .., move |r| {
        r.expect("map");
        flag.store(true, Ordering::Release);
    });
    // Other test threads share the device and may run our callback in their poll.
    while !done.load(Ordering::Acquire) {
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("poll");
        std::thread::yield_now();
    }
    let data = bytemuck::cast_slice(&staging.get_mapped_range(..).expect("mapped")).to_vec();
    staging.unmap();
    data
}

/// Storage bindings of [`gpu_paged`]'s device: pages of 256 rows (32 bytes a row), room for
/// 512 CPU-bound motions' readback (16 bytes each).
pub const PAGED_BINDING: u64 = 8 * 1024;

/// A context on a second device of the shared context's adapter whose storage bindings are
/// [`PAGED_BINDING`] bytes, so that worlds of more than 256 motions span pages of the GPU
/// table (`src/gpu/table.rs`). `None` without an adapter.
pub fn gpu_paged() -> Option<GpuContext> {
    static CONTEXT: OnceLock<Option<GpuContext>> = OnceLock::new();
    CONTEXT
        .get_or_init(|| {
            own_device(
                "tests with paged tables",
                |_| wgpu::Limits {
                    max_storage_buffer_binding_size: PAGED_BINDING,
                    ..wgpu::Limits::default()
                },
                |_| wgpu::Features::empty(),
            )
        })
        .clone()
}

/// Executors a test should run, from `WGPU_TWEEN_EXECUTOR` (`cpu`, `gpu`, `all`; default all
/// available). `gpu` is the shared context and [`gpu_paged`] (a table split into pages).
pub fn executors() -> Vec<Exec> {
    let choice = std::env::var("WGPU_TWEEN_EXECUTOR").unwrap_or_default();
    let want_cpu = matches!(choice.as_str(), "" | "all" | "cpu");
    let want_gpu = matches!(choice.as_str(), "" | "all" | "gpu");
    assert!(
        want_cpu || want_gpu,
        "WGPU_TWEEN_EXECUTOR must be cpu, gpu or all, got {choice:?}"
    );
    let mut out = Vec::new();
    if want_cpu {
        out.push(Exec::Cpu);
    }
    if want_gpu {
        match gpu() {
            Some(ctx) => {
                out.push(Exec::Gpu(Box::new(ctx)));
                // And a table split into pages of 256 rows.
                if let Some(ctx) = gpu_paged() {
                    out.push(Exec::Gpu(Box::new(ctx)));
                }
            }
            None if choice == "gpu" => panic!("WGPU_TWEEN_EXECUTOR=gpu but no GPU adapter"),
            None => {}
        }
    }
    out
}

/// Panics raised on purpose by tests carry this text; [`quiet_intentional_panics`] keeps them
/// off stderr.
pub const INTENTIONAL: &str = "intentional test panic";

/// Panics (intentionally) when dropped: state a callback captures, to test drops that panic.
pub struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        panic!("{INTENTIONAL}: drop");
    }
}

/// What every deliberate panic's message contains (the fuzz interpreter's included).
const INTENTIONAL_MARK: &str = "intentional";

/// Installs (once) a panic hook that drops panics whose message says they are intentional
/// and passes every other one to the previous hook.
pub fn quiet_intentional_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("");
            if !message.contains(INTENTIONAL_MARK) {
                previous(info);
            }
        }));
    });
}

/// SplitMix64: a small deterministic generator for randomised tests.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// A motion's value now as lanes (`lanes` of them: f32, Vec2, Vec3 or Vec4), from the world's
/// f64 evaluation of its anchor.
pub fn value_lanes(
    world: &MotionWorld,
    handle: wgpu_tween::MotionHandle,
    lanes: usize,
) -> [f32; 4] {
    use wgpu_tween::Animatable;
    match lanes {
        1 => world.value::<f32>(handle).expect("live").to_lanes(),
        2 => world.value::<glam::Vec2>(handle).expect("live").to_lanes(),
        3 => world.value::<glam::Vec3>(handle).expect("live").to_lanes(),
        _ => world.value::<glam::Vec4>(handle).expect("live").to_lanes(),
    }
}
