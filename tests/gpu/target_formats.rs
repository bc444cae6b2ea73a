//! GPU targets with a format (`add_gpu_target_with`): unorm8 bytes (colors as wgpu's
//! `Unorm8x4`) and float16 halves, read back as words and compared with hand-packed bits,
//! on both executors (the CPU executor uploads its values, the scatter packs them), for
//! live values and for end values queued between updates. A lane writes only its own unit.
//! Also: a motion from the current value (`Motion::to`) on a GPU world.

use crate::common;

use glam::{Vec2, Vec3};
use wgpu_tween::error::TargetError;
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{BuildError, Color, Executor, Motion, MotionWorld, TargetFormat};

/// What unwritten bytes hold.
const SENTINEL: u32 = 0xAAAA_AAAA;

fn word_buffer(ctx: &GpuContext, words: usize) -> wgpu::Buffer {
    let buffer = crate::targets::storage_buffer(ctx, words);
    ctx.queue()
        .write_buffer(&buffer, 0, bytemuck::cast_slice(&vec![SENTINEL; words]));
    buffer
}

fn words(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Vec<u32> {
    common::read_buffer(ctx, buffer)
        .iter()
        .map(|f| f.to_bits())
        .collect()
}

fn world(ctx: &GpuContext, executor: Executor) -> MotionWorld {
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    world.set_executor(executor).expect("executor");
    world
}

#[test]
fn unorm8_packs_bytes_like_unorm8x4() {
    let Some(ctx) = common::gpu() else { return };
    for executor in [Executor::Gpu, Executor::Cpu] {
        let mut world = world(&ctx, executor);
        let buffer = word_buffer(&ctx, 4);
        let id = world
            .add_gpu_target_with(&buffer, TargetFormat::Unorm8)
            .expect("storage buffer");
        // Word 1: a color red → blue (elements of 4 bytes).
        let red = Color::new(1.0, 0.0, 0.0, 1.0);
        let color = Motion::new(red, Color::new(0.0, 0.0, 1.0, 1.0), 1.0)
            .bind_to_buffer(&mut world, id.at(1, 4, 0))
            .expect("target");
        // Word 2: an f32 0 → 2 at byte 8 (clamped to 1), a Vec2 at bytes 9..11, byte 11 left.
        Motion::new(0.0f32, 2.0, 1.0)
            .bind_to_buffer(&mut world, id.at(8, 1, 0))
            .expect("target");
        Motion::new(Vec2::new(0.2, 0.4), Vec2::new(0.2, 0.4), 1.0)
            .bind_to_buffer(&mut world, id.at(0, 2, 9))
            .expect("target");
        // Word 3: a Vec3 color below -0 (clamped to 0) and up: alpha byte left alone.
        Motion::new(Vec3::new(1.0, 0.5, -1.0), Vec3::new(1.0, 0.5, 1.5), 1.0)
            .bind_to_buffer(&mut world, id.at(3, 4, 0))
            .expect("target");
        world.update(0.5).expect("update");
        assert_eq!(world.take_gpu_error(), None);
        // round(255 · 0.5) = 128 (pack4x8unorm: floor(0.5 + 127.5)); 0.2 → 51, 0.4 → 102;
        // 0.25 → 64 (63.75 rounds up).
        assert_eq!(
            words(&ctx, &buffer),
            [SENTINEL, 0xFF80_0080, 0xAA66_33FF, 0xAA40_80FF],
            "{executor:?}"
        );
        // An end value queued between updates is packed too.
        world.complete(color).expect("complete");
        world.update(0.0).expect("update");
        assert_eq!(words(&ctx, &buffer)[1], 0xFFFF_0000, "{executor:?}");
        // Units are bytes: 16 of them.
        assert_eq!(
            Motion::new(Color::BLACK, Color::WHITE, 1.0)
                .bind_to_buffer(&mut world, id.at(0, 4, 13)),
            Err(BuildError::Target(TargetError::OutOfBounds {
                end: 17,
                len: 16
            })),
        );
    }
}

#[test]
fn float16_packs_halves_and_leaves_the_others() {
    let Some(ctx) = common::gpu() else { return };
    for executor in [Executor::Gpu, Executor::Cpu] {
        let mut world = world(&ctx, executor);
        let buffer = word_buffer(&ctx, 7);
        let id = world
            .add_gpu_target_with(&buffer, TargetFormat::Float16)
            .expect("storage buffer");
        // Half 1 (the high half of word 0): 0 → 2.
        Motion::new(0.0f32, 2.0, 1.0)
            .bind_to_buffer(&mut world, id.at(1, 1, 0))
            .expect("target");
        // Halves 2..4 (word 1 whole): (0, 0) → (1, −4).
        Motion::new(Vec2::ZERO, Vec2::new(1.0, -4.0), 1.0)
            .bind_to_buffer(&mut world, id.at(1, 2, 0))
            .expect("target");
        // Halves 5..8: 0.25, 1e5 (clamped to 65504) and 1/3; half 4 left alone.
        let third = Motion::new(Vec3::ZERO, Vec3::new(0.5, 2e5, 2.0 / 3.0), 1.0)
            .bind_to_buffer(&mut world, id.at(0, 3, 5))
            .expect("target");
        // Halves 10..14: ties round to even: 1 + 2^-11 (between 0x3C00 and 0x3C01),
        // 1 + 3·2^-11 (0x3C01, 0x3C02), and subnormals 2^-25 (0, 1), 3·2^-25 (1, 2).
        let ties = glam::Vec4::new(
            1.0 + 2f32.powi(-11),
            1.0 + 3.0 * 2f32.powi(-11),
            2f32.powi(-25),
            3.0 * 2f32.powi(-25),
        );
        Motion::new(ties, ties, 1.0)
            .bind_to_buffer(&mut world, id.at(0, 4, 10))
            .expect("target");
        world.update(0.5).expect("update");
        assert_eq!(world.take_gpu_error(), None);
        // Halves: 1.0 = 0x3C00, 0.5 = 0x3800, −2 = 0xC000, 0.25 = 0x3400,
        // 65504 = 0x7BFF, 1/3 = 0x3555 (nearest).
        assert_eq!(
            words(&ctx, &buffer),
            [
                0x3C00_AAAA,
                0xC000_3800,
                0x3400_AAAA,
                0x3555_7BFF,
                SENTINEL,
                0x3C02_3C00,
                0x0002_0000
            ],
            "{executor:?}"
        );
        // End values between updates: 0.5 = 0x3800, 65504, 2/3 = 0x3955.
        world.complete(third).expect("complete");
        world.update(0.0).expect("update");
        assert_eq!(
            &words(&ctx, &buffer)[2..4],
            [0x3800_AAAA, 0x3955_7BFF],
            "{executor:?}"
        );
    }
}

#[test]
fn a_gpu_world_starts_from_a_host_target_but_not_from_a_gpu_buffer() {
    let Some(ctx) = common::gpu() else { return };
    for executor in [Executor::Gpu, Executor::Cpu] {
        let mut world = world(&ctx, executor);
        let host = world.add_host_target(1).unwrap();
        world.host_target_mut(host).unwrap()[0] = 2.0;
        Motion::to(4.0f32, 1.0)
            .target(host.at(0, 1, 0))
            .run(&mut world)
            .expect("from the host array");
        world.update(0.5).expect("update");
        assert_eq!(world.host_target(host).unwrap(), &[3.0], "{executor:?}");
        let buffer = word_buffer(&ctx, 1);
        let gpu = world.add_gpu_target(&buffer).expect("storage buffer");
        assert_eq!(
            Motion::to(1.0f32, 1.0).bind_to_buffer(&mut world, gpu.at(0, 1, 0)),
            Err(BuildError::NoCurrentValue)
        );
    }
}
