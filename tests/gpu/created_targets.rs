//! Target buffers made by the context (`GpuContext::create_target_buffer`,
//! `MotionWorld::create_gpu_target`), and the mistake they exist to prevent: a buffer of
//! another `wgpu::Instance` handed to `add_gpu_target` is refused, never a panic.

use crate::common;

use wgpu_tween::error::TargetError;
use wgpu_tween::gpu::{GpuContext, GpuError};
use wgpu_tween::{Ease, Executor, Motion, MotionWorld, TargetFormat};

#[test]
fn a_created_target_receives_its_motions_values() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    for executor in [Executor::Cpu, Executor::Gpu] {
        let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
        world.set_executor(executor).expect("executor");
        // Instances of 4 f32s; a Vec3 at f32 0 of instance 1, a scale at f32 3 of instance 2.
        let (id, buffer) = world
            .create_gpu_target(3 * 16, wgpu::BufferUsages::COPY_SRC, TargetFormat::F32)
            .expect("created");
        assert!(buffer.usage().contains(wgpu::BufferUsages::STORAGE));
        Motion::new(glam::Vec3::ZERO, glam::Vec3::new(4.0, 8.0, 12.0), 1.0)
            .ease(Ease::Linear)
            .bind_to_buffer(&mut world, id.at(1, 4, 0))
            .expect("vec3 target");
        Motion::new(1.0f32, 3.0, 2.0)
            .ease(Ease::Linear)
            .bind_to_buffer(&mut world, id.at(2, 4, 3))
            .expect("scale target");
        world.update(0.5).expect("update");
        let floats = common::read_buffer(&ctx, &buffer);
        // Hand-computed: at 0.5 s the Vec3 is half-way (2, 4, 6), the scale a quarter (1.5).
        let want = [0.0, 0.0, 0.0, 0.0, 2.0, 4.0, 6.0, 0.0, 0.0, 0.0, 0.0, 1.5];
        assert_eq!(floats, want, "{executor:?}");
    }
}

#[test]
fn create_target_buffer_checks_the_device_limit() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    let limit = ctx.device().limits().max_buffer_size;
    let error = ctx
        .create_target_buffer(limit + 1, wgpu::BufferUsages::empty())
        .expect_err("over the limit");
    assert!(matches!(error, GpuError::TooLarge { needed, .. } if needed == limit + 1));
    let mut world = MotionWorld::with_gpu(ctx).expect("GPU world");
    let error = world
        .create_gpu_target(limit + 1, wgpu::BufferUsages::empty(), TargetFormat::F32)
        .expect_err("over the limit");
    assert!(matches!(
        error,
        TargetError::Create(GpuError::TooLarge { .. })
    ));
    assert_eq!(
        MotionWorld::new()
            .create_gpu_target(16, wgpu::BufferUsages::empty(), TargetFormat::F32)
            .map(|(id, _)| id),
        Err(TargetError::NoGpu)
    );
}

#[test]
fn a_buffer_of_another_instance_is_refused_not_a_panic() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    common::quiet_intentional_panics();
    let mut world = MotionWorld::with_gpu(ctx).expect("GPU world");
    // The newcomer's mistake: a renderer that made its own `GpuContext::new()`.
    let other = GpuContext::new().expect("a second instance");
    let foreign = other
        .create_target_buffer(64, wgpu::BufferUsages::empty())
        .expect("buffer on the other instance");
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.add_gpu_target(&foreign)
    }));
    match result {
        Ok(Err(TargetError::Rejected(_))) => {}
        Ok(other) => panic!("a foreign buffer was not refused: {other:?}"),
        Err(_) => panic!("add_gpu_target panicked on a foreign buffer"),
    }
    // The world is unharmed: a buffer it made itself works.
    let (id, _buffer) = world
        .create_gpu_target(64, wgpu::BufferUsages::empty(), TargetFormat::F32)
        .expect("own buffer");
    Motion::new(0.0f32, 1.0, 1.0)
        .bind_to_buffer(&mut world, id.at(0, 1, 0))
        .expect("target");
    world.update(0.5).expect("update");
    assert!(world.take_gpu_error().is_none());
}
