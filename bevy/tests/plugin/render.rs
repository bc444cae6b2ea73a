//! The GPU path (feature `render`): motions writing a [`TweenBuffer`] on Bevy's own device,
//! read back and compared with the same motions on the CPU executor. Needs an adapter
//! (lavapipe here); skipped without one unless `WGPU_TWEEN_REQUIRE_GPU=1`.

use std::time::Duration;

use bevy::log::LogPlugin;
use bevy::prelude::*;
use bevy::render::pipelined_rendering::PipelinedRenderingPlugin;
use bevy::render::renderer::{RenderDevice, RenderQueue};
use bevy::time::TimeUpdateStrategy;
use bevy::window::ExitCondition;
use bevy_wgpu_tween::wgpu_tween::{wgpu, Executor, TargetId};
use bevy_wgpu_tween::TweenRenderPlugin;
use bevy_wgpu_tween::{Ease, LoopType, Motion, MotionWorld, TweenBuffer, TweenPlugin, Tweens};

const N: u32 = 1000;

/// Whether wgpu finds an adapter; without one the test is skipped, or fails when
/// `WGPU_TWEEN_REQUIRE_GPU=1` (CI).
fn adapter_present() -> bool {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let found = pollster::block_on(instance.request_adapter(&Default::default()));
    match found {
        Ok(_) => true,
        Err(e) if std::env::var_os("WGPU_TWEEN_REQUIRE_GPU").is_some_and(|v| v == "1") => {
            panic!("WGPU_TWEEN_REQUIRE_GPU=1 but no adapter: {e}")
        }
        Err(e) => {
            println!("skipping the render test: {e}");
            false
        }
    }
}

/// Motion `i`: every ease, loop type and a spread of delays and durations, some finite
/// (they complete inside the test) and some looping forever.
fn motion(i: u32) -> Motion<Vec4> {
    let k = i as f32;
    let from = Vec4::new(k, -k, 0.5 * k, 1.0);
    let to = Vec4::new(-2.0 * k, k + 10.0, 3.0, -k);
    let loops = if i.is_multiple_of(3) {
        -1
    } else {
        1 + (i % 4) as i32
    };
    Motion::new(from, to, 0.2 + 0.05 * (i % 17) as f32)
        .ease(Ease::ALL[i as usize % Ease::ALL.len()])
        .loops(loops, LoopType::ALL[i as usize % LoopType::ALL.len()])
        .delay(0.01 * (i % 29) as f32)
}

/// A headless app with Bevy's renderer (no window, no pipelined rendering), the plugins,
/// frames of 1/60 s, and the renderer up and attached.
fn render_app() -> App {
    let window = WindowPlugin {
        primary_window: None,
        exit_condition: ExitCondition::DontExit,
        ..default()
    };
    let mut app = App::new();
    app.add_plugins(
        DefaultPlugins
            .set(window)
            .disable::<PipelinedRenderingPlugin>()
            .disable::<LogPlugin>(),
    );
    app.add_plugins((TweenPlugin, TweenRenderPlugin));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 60.0,
    )));
    app.finish();
    app.cleanup();
    app.update(); // attaches Bevy's device before the tweens' first update
    app
}

/// The buffer's contents, copied to a mappable buffer on Bevy's device and waited for.
fn read_back(app: &App, buffer: &wgpu::Buffer) -> Vec<f32> {
    let device = app.world().resource::<RenderDevice>().wgpu_device().clone();
    let queue: &wgpu::Queue = app.world().resource::<RenderQueue>();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    queue.submit([encoder.finish()]);
    staging.map_async(wgpu::MapMode::Read, .., |r| r.expect("mapped"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    let data = bytemuck::cast_slice(&staging.get_mapped_range(..).expect("mapped")).to_vec();
    staging.unmap();
    data
}

/// Each value within 1e-4 of the CPU's (relative to its size, at least 10): f32 on the
/// GPU against the CPU executor's f64, as the library's own GPU tests allow.
#[track_caller]
fn assert_matches(gpu: &[f32], cpu: &[f32], when: &str) {
    assert_eq!(gpu.len(), cpu.len());
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        let tolerance = 1e-4 * c.abs().max(10.0);
        assert!(
            g.is_finite() && (g - c).abs() <= tolerance,
            "{when}: float {i} (motion {}): GPU {g}, CPU {c}",
            i / 4
        );
    }
}

#[test]
fn gpu_buffer_on_bevys_device_matches_the_cpu_executor() {
    if !adapter_present() {
        return;
    }
    let mut app = render_app();
    let mut cpu = MotionWorld::new();
    let host = cpu.add_host_target(4 * N as usize).expect("a host target");
    let buffer = {
        let mut tweens = app.world_mut().resource_mut::<Tweens>();
        // Lavapipe's `Auto` choice is the CPU executor (uploading GPU targets): run the
        // compute pass itself.
        tweens
            .world_mut()
            .set_executor(Executor::Gpu)
            .expect("Bevy's device is attached");
        let usage = wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_SRC;
        let buffer = TweenBuffer::new(&mut tweens, u64::from(N) * 16, usage).expect("a buffer");
        for i in 0..N {
            motion(i)
                .target(buffer.target.at(i, 4, 0))
                .run(tweens.world_mut())
                .expect("a valid motion");
            motion(i)
                .target(host.at(i, 4, 0))
                .run(&mut cpu)
                .expect("a valid motion");
        }
        buffer
    };
    app.world_mut().spawn(buffer.clone());
    let frame = |app: &mut App, cpu: &mut MotionWorld| {
        app.update();
        let dt = app.world().resource::<Time<Virtual>>().delta_secs_f64();
        cpu.update(dt).expect("a valid delta");
    };
    let check = |app: &mut App, cpu: &MotionWorld, target: TargetId, when: &str| {
        let mut tweens = app.world_mut().resource_mut::<Tweens>();
        assert_eq!(
            tweens.world_mut().active_executor(),
            Executor::Gpu,
            "{when}"
        );
        assert_eq!(tweens.world_mut().take_gpu_error(), None, "{when}");
        let gpu = read_back(app, &buffer.buffer);
        assert_matches(
            &gpu,
            cpu.host_target(target).expect("the host target"),
            when,
        );
    };
    // Mid-flight (delays running out, first loops), then after the finite ones completed.
    for _ in 0..20 {
        frame(&mut app, &mut cpu);
    }
    check(&mut app, &cpu, host, "after 20 frames");
    // The longest finite motion: 0.28 s of delay and 4 loops of 1 s.
    for _ in 0..280 {
        frame(&mut app, &mut cpu);
    }
    check(&mut app, &cpu, host, "after 300 frames");
    // The CPU world finished the same motions: only the endless third are left.
    assert_eq!(cpu.len(), (0..N).filter(|i| i.is_multiple_of(3)).count());
}
