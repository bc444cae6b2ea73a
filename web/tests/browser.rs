//! The library in a real browser (`scripts/web-test`: wasm-bindgen-test in headless
//! Chromium, WebGPU on SwiftShader): the vendored conformance vectors on the CPU executor and
//! on the GPU executor (WebGPU), the random CPU/GPU parity run, a GPU target read back, and
//! the pipelined readback the web's synchronous `update` has.
//!
//! The GPU cases need a WebGPU adapter. Without one they print why and pass, unless the
//! tests were built with `WGPU_TWEEN_REQUIRE_GPU=1` (as `scripts/web-test` does): then they
//! fail. Each conformance file prints `N passed, N failed` per executor.
//!
//! The vectors are compiled in (`include_str!`): a browser has no file system, so
//! `WGPU_TWEEN_CONFORMANCE_DIR` does not apply here.

#![cfg(target_arch = "wasm32")]

#[path = "../../bench/src/parity.rs"]
mod parity;
#[allow(dead_code)] // `load` reads files, which the browser has not
#[path = "../../bench/src/conformance.rs"]
mod runner;

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use wgpu_tween::gpu::{GpuContext, ReadbackMode};
use wgpu_tween::{Ease, Executor, LoopType, Motion, MotionWorld, TargetFormat};

wasm_bindgen_test_configure!(run_in_browser);

/// The vendored vector files, by name.
const VECTORS: [(&str, &str); 4] = [
    (
        "eases.json",
        include_str!("../../tests/conformance/vectors/eases.json"),
    ),
    (
        "curves.json",
        include_str!("../../tests/conformance/vectors/curves.json"),
    ),
    (
        "punch.json",
        include_str!("../../tests/conformance/vectors/punch.json"),
    ),
    (
        "motions.json",
        include_str!("../../tests/conformance/vectors/motions.json"),
    ),
];

/// A WebGPU context, or `None` (with the reason printed) where the browser has no adapter
/// and the build does not require one.
async fn gpu() -> Option<GpuContext> {
    match GpuContext::new_async().await {
        Ok(ctx) => Some(ctx),
        Err(e) if option_env!("WGPU_TWEEN_REQUIRE_GPU") == Some("1") => {
            panic!("WGPU_TWEEN_REQUIRE_GPU=1 but no WebGPU context: {e}")
        }
        Err(e) => {
            log(&format!("skipped: no WebGPU context ({e})"));
            None
        }
    }
}

fn log(line: &str) {
    wasm_bindgen_test::console_log!("{line}");
}

/// A world on the GPU executor that delivers each update's values (awaited by
/// `update_async`; the web's default readback is pipelined).
fn gpu_world(ctx: &GpuContext) -> MotionWorld {
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    world.set_executor(Executor::Gpu).expect("GPU executor");
    world.gpu_mut().set_readback_mode(ReadbackMode::Blocking);
    world
}

/// Runs every vector file through worlds from `new_world`; logs `N passed, N failed` per
/// file and returns the failure lines.
async fn conformance(executor: &str, new_world: &dyn Fn() -> MotionWorld) -> Vec<String> {
    let mut all = Vec::new();
    for (name, text) in VECTORS {
        let data = runner::parse(text, name).expect("vector file");
        let cases = runner::cases(&data).len();
        let failures = runner::failures(name, &data, new_world).await;
        log(&format!(
            "{name} [{executor}]: {} passed, {} failed",
            cases.saturating_sub(failures.len()),
            failures.len()
        ));
        for line in &failures {
            log(&format!("FAIL [{executor}] {name}: {line}"));
        }
        all.extend(failures);
    }
    all
}

#[wasm_bindgen_test]
async fn conformance_vectors_on_the_cpu_executor() {
    let failures = conformance("cpu", &MotionWorld::new).await;
    assert!(failures.is_empty(), "{} CPU cases failed", failures.len());
}

#[wasm_bindgen_test]
async fn conformance_vectors_on_the_gpu_executor() {
    let Some(ctx) = gpu().await else { return };
    let failures = conformance("gpu", &|| gpu_world(&ctx)).await;
    assert!(failures.is_empty(), "{} GPU cases failed", failures.len());
}

#[wasm_bindgen_test]
async fn random_motions_agree_on_both_executors() {
    let Some(ctx) = gpu().await else { return };
    log(&parity::run_parity(ctx, 0x5eed_0001, 500, 120).await);
}

/// Waits `ms` milliseconds, letting the browser run its callbacks (map callbacks included).
async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window()
            .expect("a window")
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .expect("setTimeout");
    });
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .expect("timeout");
}

/// Waits until the GPU has run every submission so far and the browser its callbacks.
async fn gpu_idle(ctx: &GpuContext) {
    let done = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&done);
    ctx.queue()
        .on_submitted_work_done(move || flag.store(true, Ordering::Release));
    for _ in 0..2000 {
        if done.load(Ordering::Acquire) {
            break;
        }
        sleep(5).await;
    }
    assert!(
        done.load(Ordering::Acquire),
        "the GPU did not finish in 10 s"
    );
    sleep(5).await; // the map callbacks after the work
}

/// The f32s of `buffer` (made with `COPY_SRC`), read back through `map_async`.
async fn read_buffer(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Vec<f32> {
    let device = ctx.device();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("browser test readback"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    ctx.queue().submit([encoder.finish()]);
    let mapped = Rc::new(Cell::new(None));
    let flag = Rc::clone(&mapped);
    staging.map_async(wgpu::MapMode::Read, .., move |r| flag.set(Some(r.is_ok())));
    for _ in 0..2000 {
        if mapped.get().is_some() {
            break;
        }
        sleep(5).await;
    }
    assert_eq!(
        mapped.get(),
        Some(true),
        "the readback buffer was not mapped"
    );
    let values = bytemuck::cast_slice(&staging.get_mapped_range(..).expect("mapped")).to_vec();
    staging.unmap();
    values
}

/// Motions written into a GPU buffer by the GPU executor hold the values a hand computation
/// gives at 1 s: 0 → 10 linear over 4 s is 2.5; OutQuad 0 → 4 over 2 s is 4·(1 − 0.5²) = 3;
/// a Yoyo of 0.625 s loops is in its second loop at 1 s, coming back, 0.6 of the way: 8·0.4.
#[wasm_bindgen_test]
async fn gpu_targets_hold_hand_computed_values() {
    let Some(ctx) = gpu().await else { return };
    let mut world = gpu_world(&ctx);
    let (target, buffer) = world
        .create_gpu_target(16, wgpu::BufferUsages::COPY_SRC, TargetFormat::F32)
        .expect("GPU target");
    let motions = [
        Motion::new(0.0f32, 10.0, 4.0),
        Motion::new(0.0f32, 4.0, 2.0).ease(Ease::OutQuad),
        Motion::new(0.0f32, 8.0, 0.625).loops(2, LoopType::Yoyo),
    ];
    for (i, motion) in motions.into_iter().enumerate() {
        motion
            .target(target.at(i as u32, 1, 0))
            .run(&mut world)
            .expect("motion");
    }
    world.update_async(1.0).await.expect("update");
    let values = read_buffer(&ctx, &buffer).await;
    assert_eq!(world.take_gpu_error(), None);
    assert_eq!(world.active_executor(), Executor::Gpu);
    for (got, want) in values.iter().zip([2.5, 3.0, 3.2]) {
        assert!(
            (got - want).abs() < 1e-5,
            "{values:?}, expected [2.5, 3, 3.2]"
        );
    }
}

/// The synchronous `update` on the web never waits: a bound value is the previous update's,
/// delivered once the browser has run its map callback.
#[wasm_bindgen_test]
async fn a_synchronous_update_delivers_the_previous_updates_values() {
    let Some(ctx) = gpu().await else { return };
    let mut world = MotionWorld::with_gpu(ctx).expect("GPU world");
    world.set_executor(Executor::Gpu).expect("GPU executor");
    assert_eq!(world.gpu().readback_mode(), ReadbackMode::Pipelined);
    let seen = Arc::new(Mutex::new(f32::NAN));
    let sink = Arc::clone(&seen);
    Motion::new(0.0f32, 1.0, 1.0)
        .immediate_bind(false)
        .bind(&mut world, move |v| *sink.lock().expect("sink") = v)
        .expect("motion");
    world.update(0.5).expect("update");
    // The browser maps the readback once it has run the submission (the first compiles the
    // pipelines): wait for that.
    let ctx = world.gpu().context().expect("a context").clone();
    gpu_idle(&ctx).await;
    world.update(0.25).expect("update");
    assert_eq!(
        *seen.lock().expect("sink"),
        0.5,
        "the value at 0.5 s, an update late"
    );
    assert_eq!(world.take_gpu_error(), None);
}

/// The web has no threads: the CPU executor takes one whatever it is asked, and a world
/// large enough for the threaded path evaluates on it (0 → 2 linear over 1 s at 0.25 s).
#[wasm_bindgen_test]
async fn the_cpu_executor_runs_on_one_thread() {
    let mut world = MotionWorld::new();
    world.set_cpu_threads(8);
    assert_eq!(world.cpu_threads(), 1);
    let handles: Vec<_> = (0..100_000)
        .map(|_| {
            Motion::new(0.0f32, 2.0, 1.0)
                .run(&mut world)
                .expect("motion")
        })
        .collect();
    world.update_async(0.25).await.expect("update");
    for h in [handles[0], handles[99_999]] {
        assert_eq!(world.value::<f32>(h), Ok(0.5));
    }
}

/// A GPU error on the web is reported by a later update instead of blocking, and is typed:
/// after its target buffer is destroyed, the world moves to the CPU executor with the error
/// kept for `take_gpu_error` (natively a probe singles the buffer out; its answer cannot be
/// awaited here), and its motions go on with their values.
#[wasm_bindgen_test]
async fn a_gpu_error_is_reported_by_a_later_update_and_the_world_goes_on() {
    let Some(ctx) = gpu().await else { return };
    let mut world = gpu_world(&ctx);
    let (target, buffer) = world
        .create_gpu_target(16, wgpu::BufferUsages::COPY_SRC, TargetFormat::F32)
        .expect("GPU target");
    Motion::new(0.0f32, 1.0, 1.0)
        .target(target.at(0, 1, 0))
        .run(&mut world)
        .expect("targeted motion");
    let seen = Arc::new(Mutex::new(f32::NAN));
    let sink = Arc::clone(&seen);
    Motion::new(0.0f32, 4.0, 4.0)
        .immediate_bind(false)
        .bind(&mut world, move |v| *sink.lock().expect("sink") = v)
        .expect("bound motion");
    world.update_async(0.5).await.expect("update");
    assert_eq!(world.take_gpu_error(), None);
    buffer.destroy();
    let mut error = None;
    for _ in 0..10 {
        world
            .update_async(0.25)
            .await
            .expect("an update never fails for the GPU's sake");
        gpu_idle(&ctx).await;
        error = error.or(world.take_gpu_error());
    }
    let error = error.expect("the destroyed buffer's error, reported");
    log(&format!("reported: {error}"));
    assert_eq!(world.active_executor(), Executor::Cpu);
    // 0.5 + 10 · 0.25 = 3 s of 4: 0 → 4 linear is at 3.
    assert_eq!(*seen.lock().expect("sink"), 3.0);
}
