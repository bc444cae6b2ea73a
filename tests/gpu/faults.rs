//! GPU faults (issue 7, item 4; docs/design.md invariant 6): after the device is lost mid-run the
//! world reports it once, moves to the CPU executor with every motion kept, and its values go
//! on matching a CPU reference world; a table past the device's buffer limits is split into
//! pages and stays on the GPU; what cannot be split (more bound motions than one gather
//! binding holds) is an error (`GpuError::TooLarge`) that leaves the world usable.
//!
//! Each test makes its own device (one is destroyed on purpose), so they never disturb the
//! shared context other tests use. Without an adapter they print that they skipped (and fail
//! with `WGPU_TWEEN_REQUIRE_GPU=1`).

use crate::common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use wgpu_tween::gpu::{GpuContext, GpuError, ReadbackMode};
use wgpu_tween::{
    DelayType, Ease, Executor, LoopType, Motion, MotionHandle, MotionWorld, TimeKind,
};

/// A fresh device of the adapter `common::gpu()` finds (`None`: no adapter, skipped).
/// `max_buffer`: a limit on storage bindings and buffer sizes, in bytes.
fn own_context(max_buffer: Option<u64>) -> Option<GpuContext> {
    common::own_device(
        "gpu_faults",
        |supported| {
            let mut limits = wgpu::Limits::default().or_worse_values_from(supported);
            if let Some(max) = max_buffer {
                limits.max_storage_buffer_binding_size = max;
                limits.max_buffer_size = max;
            }
            limits
        },
        |_| wgpu::Features::empty(),
    )
}

/// What the callbacks of one world saw: the last bound value per motion (with the epoch it
/// was bound in: the test counts updates), completions.
#[derive(Default)]
struct Sink {
    epoch: AtomicU64,
    values: Mutex<Vec<Option<(u64, f32)>>>,
    completes: Mutex<Vec<usize>>,
}

impl Sink {
    fn next_epoch(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }
}

/// Updates both worlds by `dt`, each sink in a new epoch.
fn step(gpu: &mut MotionWorld, cpu: &mut MotionWorld, sinks: [&Sink; 2], dt: f64) {
    sinks.iter().for_each(|s| s.next_epoch());
    gpu.update(dt).expect("updates never fail on GPU faults");
    cpu.update(dt).unwrap();
}

/// Motion `i` of the shared test set: every ease, loop and delay type, time kind, speeds
/// including 0 and negative, some infinite; all bound.
fn motion(i: usize) -> Motion<f32> {
    let ease = Ease::ALL[i % Ease::ALL.len()];
    let loop_type = LoopType::ALL[i % 4];
    let loops = [1, 2, 3, -1][(i / 4) % 4];
    let duration = 0.25 * (1 + i % 7) as f32;
    let delay_type = if i.is_multiple_of(3) {
        DelayType::EveryLoop
    } else {
        DelayType::FirstLoop
    };
    let speed = [1.0, 0.5, 2.0, 0.0, -1.0, 1.5][i % 6];
    Motion::new(i as f32, -(i as f32) * 0.5 - 3.0, duration)
        .ease(ease)
        .loops(loops, loop_type)
        .delay_with(0.125 * (i % 5) as f32, delay_type, i.is_multiple_of(2))
        .playback_speed(speed)
        .time_kind(TimeKind::ALL[i % 3])
        .preserve_if(i.is_multiple_of(11))
}

trait PreserveIf {
    fn preserve_if(self, on: bool) -> Self;
}

impl PreserveIf for Motion<f32> {
    fn preserve_if(self, on: bool) -> Self {
        if on {
            self.preserve()
        } else {
            self
        }
    }
}

/// Adds motions `range` to `world`, reporting into `sink`.
fn populate(
    world: &mut MotionWorld,
    sink: &Arc<Sink>,
    range: std::ops::Range<usize>,
) -> Vec<MotionHandle> {
    sink.values.lock().unwrap().resize(range.end, None);
    range
        .map(|i| {
            let (values, completes) = (Arc::clone(sink), Arc::clone(sink));
            motion(i)
                .on_complete(move || completes.completes.lock().unwrap().push(i))
                .bind(world, move |v| {
                    let epoch = values.epoch.load(Ordering::SeqCst);
                    values.values.lock().unwrap()[i] = Some((epoch, v));
                })
                .unwrap()
        })
        .collect()
}

/// A world on the GPU executor of `ctx` and a CPU twin, each with motions `0..n` reporting
/// into its own sink.
fn twin_worlds(ctx: GpuContext, n: usize) -> (MotionWorld, MotionWorld, Arc<Sink>, Arc<Sink>) {
    let mut gpu = MotionWorld::with_gpu(ctx).unwrap();
    gpu.set_executor(Executor::Gpu).unwrap();
    let mut cpu = MotionWorld::new();
    let (gpu_sink, cpu_sink) = (Arc::new(Sink::default()), Arc::new(Sink::default()));
    populate(&mut gpu, &gpu_sink, 0..n);
    populate(&mut cpu, &cpu_sink, 0..n);
    (gpu, cpu, gpu_sink, cpu_sink)
}

/// The two sinks agree: same completions, same binds per epoch, bound values within
/// 1e-4 · max(1, |to − from|) (scaled by the progress where Incremental loops pass 1).
fn assert_same(gpu: &Sink, cpu: &Sink, when: &str) {
    assert_values(gpu, cpu, when, false);
}

/// Like [`assert_same`], for the values bound in the current epoch only (a pipelined world
/// keeps values read a frame late from before).
fn assert_current_same(gpu: &Sink, cpu: &Sink, when: &str) {
    assert_values(gpu, cpu, when, true);
}

fn assert_values(gpu: &Sink, cpu: &Sink, when: &str, current_only: bool) {
    assert_eq!(
        *gpu.completes.lock().unwrap(),
        *cpu.completes.lock().unwrap(),
        "completions differ {when}"
    );
    let epoch = gpu.epoch.load(Ordering::SeqCst);
    assert_eq!(epoch, cpu.epoch.load(Ordering::SeqCst));
    let (g, c) = (gpu.values.lock().unwrap(), cpu.values.lock().unwrap());
    assert_eq!(g.len(), c.len());
    for (i, (a, b)) in g.iter().zip(c.iter()).enumerate() {
        let bound_now = |x: &Option<(u64, f32)>| x.is_some_and(|(e, _)| e == epoch);
        if current_only {
            assert_eq!(
                bound_now(a),
                bound_now(b),
                "motion {i} bound in one world only {when}"
            );
            if !bound_now(a) {
                continue;
            }
        }
        // Motion i runs from i to −i/2 − 3; Incremental loops take progress past 1.
        let (from, span) = (i as f32, 1.5 * i as f32 + 3.0);
        match (a, b) {
            (Some((ea, a)), Some((eb, b))) => assert!(
                ea == eb && (a - b).abs() <= 1e-4 * span * ((b - from).abs() / span).max(1.0),
                "motion {i} {when}: GPU world {a} (epoch {ea}), CPU world {b} (epoch {eb})"
            ),
            (None, None) => {}
            _ => panic!("motion {i} {when}: GPU world {a:?}, CPU world {b:?}"),
        }
    }
}

fn device_lost_mid_run(mode: ReadbackMode) {
    let Some(ctx) = own_context(None) else {
        return;
    };
    const N: usize = 400;
    let (mut gpu, mut cpu, gpu_sink, cpu_sink) = twin_worlds(ctx.clone(), N);
    gpu.gpu_mut().set_readback_mode(mode);
    let dts = [0.05, 0.125, 0.0, 0.3, 0.5, 0.016, 1.25];

    for (n, &dt) in dts.iter().cycle().take(12).enumerate() {
        step(&mut gpu, &mut cpu, [&gpu_sink, &cpu_sink], dt);
        assert_eq!(gpu.active_executor(), Executor::Gpu);
        assert_eq!(gpu.take_gpu_error(), None, "step {n}");
        assert_eq!(gpu.len(), cpu.len());
        if mode == ReadbackMode::Blocking {
            assert_same(&gpu_sink, &cpu_sink, &format!("before the loss, step {n}"));
        }
    }
    let live = gpu.len();
    assert!(live > N / 2, "most motions still run: {live}");

    // A motion added while the device is gone must be kept too.
    ctx.device().destroy();
    populate(&mut gpu, &gpu_sink, N..N + 1);
    populate(&mut cpu, &cpu_sink, N..N + 1);

    // Blocking readback waits on the device every update, so the first update after the loss
    // sees it. Pipelined readback does not wait; it must still see it within a few updates
    // (lavapipe: by the 2nd or 3rd; until then binds get the last values read back).
    let allowed_lag = match mode {
        ReadbackMode::Blocking => 0,
        ReadbackMode::Pipelined => 3,
    };
    let mut reported = Vec::new();
    for (n, &dt) in dts.iter().cycle().take(30).enumerate() {
        let before = gpu.len();
        step(&mut gpu, &mut cpu, [&gpu_sink, &cpu_sink], dt);
        if let Some(error) = gpu.take_gpu_error() {
            reported.push((n, error));
        }
        if n == 0 {
            assert_eq!(before, live + 1, "every motion kept through the loss");
        }
        if n == allowed_lag {
            assert_eq!(
                reported.len(),
                1,
                "the loss is reported within {} update(s) after it",
                allowed_lag + 1
            );
            assert_eq!(gpu.active_executor(), Executor::Cpu);
            assert!(gpu.gpu().context().is_none(), "the lost context is dropped");
        }
        assert_eq!(gpu.len(), cpu.len(), "step {n} after the loss");
        if mode == ReadbackMode::Blocking {
            assert_same(&gpu_sink, &cpu_sink, &format!("after the loss, step {n}"));
        } else if !reported.is_empty() {
            // Once on the CPU, pipelined worlds bind this update's values too. Motions that
            // ended before (with a value one frame late) are not compared.
            assert_current_same(&gpu_sink, &cpu_sink, &format!("after the loss, step {n}"));
        }
    }
    assert_eq!(reported.len(), 1, "reported once: {reported:?}");
    assert!(
        matches!(
            reported[0].1,
            GpuError::DeviceLost(_) | GpuError::Validation(_) | GpuError::Map(_)
        ),
        "{:?}",
        reported[0].1
    );
    println!(
        "{mode:?} readback: device loss reported by update {} after it, as: {}",
        reported[0].0 + 1,
        reported[0].1
    );
    // The GPU executor can no longer be chosen; the CPU executor goes on.
    assert!(gpu.set_executor(Executor::Gpu).is_err());
    assert_eq!(gpu.active_executor(), Executor::Cpu);
    assert!(gpu.take_gpu_error().is_none());
}

#[test]
fn device_lost_mid_run_blocking_readback() {
    device_lost_mid_run(ReadbackMode::Blocking);
}

#[test]
fn device_lost_mid_run_pipelined_readback() {
    device_lost_mid_run(ReadbackMode::Pipelined);
}

/// 64 KiB buffers: one page of the table holds 512 rows (its change staging, 112 B per row,
/// must fit one buffer). Growing past it adds pages; the world stays on the GPU and matches
/// the CPU.
#[test]
fn table_growth_past_one_buffer_adds_pages_and_stays_on_the_gpu() {
    let Some(ctx) = own_context(Some(64 * 1024)) else {
        return;
    };
    // A few bound motions to compare; the bulk unbound (no readback needed).
    let (mut gpu, mut cpu, gpu_sink, cpu_sink) = twin_worlds(ctx, 64);
    let mut rows = 64;
    while rows < 6000 {
        for i in 0..400 {
            let m = || Motion::new(0.0f32, 1.0, 1000.0 + i as f32).loops(-1, LoopType::Yoyo);
            m().run(&mut gpu).unwrap();
            m().run(&mut cpu).unwrap();
        }
        rows += 400;
        step(&mut gpu, &mut cpu, [&gpu_sink, &cpu_sink], 0.1);
        assert_eq!(gpu.take_gpu_error(), None, "at {rows} rows");
        assert_eq!(gpu.active_executor(), Executor::Gpu, "at {rows} rows");
        assert_same(&gpu_sink, &cpu_sink, &format!("at {rows} rows"));
    }
    assert!(gpu.gpu().capacity() >= 8192, "{}", gpu.gpu().capacity());
}

/// One upload far past one buffer (3000 new bound rows in one update, 6 pages of 512): it is
/// staged page by page, and every value matches the CPU.
#[test]
fn one_upload_past_one_buffer_is_staged_page_by_page() {
    let Some(ctx) = own_context(Some(64 * 1024)) else {
        return;
    };
    let (mut gpu, mut cpu, gpu_sink, cpu_sink) = twin_worlds(ctx, 3000);
    for n in 0..10 {
        step(&mut gpu, &mut cpu, [&gpu_sink, &cpu_sink], 0.3);
        assert_eq!(gpu.take_gpu_error(), None, "step {n}");
        assert_eq!(gpu.active_executor(), Executor::Gpu, "step {n}");
        assert_same(&gpu_sink, &cpu_sink, &format!("step {n}"));
    }
}

/// More bound motions than one gather binding holds (5000 × 16 bytes > 64 KiB): whatever the
/// executor runs into first, it is an error, never a panic, and the world goes on on the CPU.
#[test]
fn readback_past_one_binding_is_an_error_and_the_world_goes_on() {
    let Some(ctx) = own_context(Some(64 * 1024)) else {
        return;
    };
    let (mut gpu, mut cpu, gpu_sink, cpu_sink) = twin_worlds(ctx, 5000);
    step(&mut gpu, &mut cpu, [&gpu_sink, &cpu_sink], 0.1);
    let error = gpu
        .take_gpu_error()
        .expect("5000 bound values cannot fit a 64 KiB binding");
    println!("oversized readback reported as: {error}");
    assert!(
        matches!(error, GpuError::TooLarge { .. }),
        "past the limit is TooLarge, got {error:?}"
    );
    assert_eq!(gpu.active_executor(), Executor::Cpu);
    assert_eq!(gpu.len(), cpu.len());
    assert_same(&gpu_sink, &cpu_sink, "at the failed readback");
    for n in 0..10 {
        step(&mut gpu, &mut cpu, [&gpu_sink, &cpu_sink], 0.3);
        assert_same(
            &gpu_sink,
            &cpu_sink,
            &format!("after the failed readback, step {n}"),
        );
    }
    assert!(gpu.take_gpu_error().is_none(), "reported once");
}

/// Not a fault, but found while testing device loss in pipelined mode: docs/semantics.md §6 binds
/// a completing motion in the update that completes it, and the bind must receive the end
/// value, whatever the readback mode (a pipelined value one frame late is fine while a motion
/// plays, but its last bind is its last word: nothing corrects it afterwards).
#[test]
fn pipelined_readback_binds_the_end_value_on_completion() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    let mut world = MotionWorld::with_gpu(ctx).unwrap();
    world.set_executor(Executor::Gpu).unwrap();
    world.gpu_mut().set_readback_mode(ReadbackMode::Pipelined);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let h = Motion::new(0.0f32, 10.0, 1.0)
        .bind(&mut world, move |v| sink.lock().unwrap().push(v))
        .unwrap();
    for _ in 0..4 {
        world.update(0.25).unwrap();
    }
    assert!(!world.is_active(h));
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.last().copied(),
        Some(10.0),
        "the completing bind received a stale value; binds: {seen:?}"
    );
}

#[test]
fn a_renderers_device_lost_callback_still_runs() {
    let Some((device, queue, info)) = common::own_raw_device(
        "renderer",
        |supported| wgpu::Limits::default().or_worse_values_from(supported),
        |_| wgpu::Features::empty(),
    ) else {
        return;
    };
    let seen = Arc::new(Mutex::new(None));
    let sink = Arc::clone(&seen);
    let ctx = GpuContext::from_device_with_lost_callback(device, queue, info, move |reason, _| {
        *sink.lock().unwrap() = Some(reason);
    });
    assert!(!ctx.is_lost());
    ctx.device().destroy();
    let _ = ctx.device().poll(wgpu::PollType::wait_indefinitely());
    assert!(ctx.is_lost(), "the context saw the loss");
    assert_eq!(
        *seen.lock().unwrap(),
        Some(wgpu::DeviceLostReason::Destroyed),
        "and the renderer's callback ran, with wgpu's reason"
    );
}
