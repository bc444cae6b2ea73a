//! The tests' GPU side: the shared context, own devices, buffer readback.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Executor, MotionWorld};

use super::{gpu_required, Exec};

/// A CPU-executor world and a GPU-executor world for side-by-side parity checks, or `None`
/// (skipped, or a failure under `WGPU_TWEEN_REQUIRE_GPU=1`) without an adapter.
pub fn cpu_and_gpu_worlds() -> Option<(MotionWorld, MotionWorld)> {
    let ctx = gpu()?;
    Some((MotionWorld::new(), Exec::Gpu(Box::new(ctx)).world()))
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
