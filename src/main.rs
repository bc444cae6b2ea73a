//! Headless benchmark: `cargo run --release [-- OPTIONS]`.
//!
//! Probes for a wgpu adapter, then for each N runs a world of N mixed motions (f32, Vec2,
//! Vec3, Vec4; several eases, loop types and delays) for a fixed number of frames on the
//! CPU executor (and on the GPU executor when an adapter exists), next to the hand-written
//! floor ([`BaselineLoop`]) at the same N, and prints a table of ns per motion per update.
//!
//! Options:
//! - `--motions N[,N...]`: motion counts (default `1000,10000,100000,1000000`; `k`/`m`
//!   suffixes allowed, e.g. `10k,1m`).
//! - `--frames F`: frames per measurement round (default 120).
//! - `--threads T`: CPU executor threads (default: all cores, then 1 if that differs).

use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use glam::{Vec2, Vec3, Vec4};
use wgpu_tween::baseline::BaselineLoop;
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{DelayType, Ease, Executor, LoopType, Motion, MotionHandle, MotionWorld};

/// Frame delta, seconds.
const DT: f64 = 1.0 / 60.0;
/// Rounds of `frames` updates are repeated until this much time was measured, so that
/// small N are not lost in timer noise.
const MIN_MEASURED: Duration = Duration::from_millis(150);
/// Untimed updates before measuring (faults in pages, wakes worker threads).
const WARMUP_FRAMES: usize = 5;

const USAGE: &str = "usage: wgpu-tween-bench [--motions N[,N...]] [--frames F] [--threads T]";

struct Options {
    motions: Vec<usize>,
    frames: usize,
    threads: Option<usize>,
}

fn parse_count(s: &str) -> Result<usize, String> {
    let s = s.trim().to_ascii_lowercase().replace('_', "");
    let (digits, scale) = if let Some(d) = s.strip_suffix('k') {
        (d, 1_000)
    } else if let Some(d) = s.strip_suffix('m') {
        (d, 1_000_000)
    } else {
        (s.as_str(), 1)
    };
    let n: usize = digits.parse().map_err(|_| format!("not a count: {s:?}"))?;
    n.checked_mul(scale)
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("count out of range: {s:?}"))
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        motions: vec![1_000, 10_000, 100_000, 1_000_000],
        frames: 120,
        threads: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (arg.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--motions" => {
                options.motions = value()?
                    .split(',')
                    .filter(|s| !s.trim().is_empty())
                    .map(parse_count)
                    .collect::<Result<_, _>>()?;
                if options.motions.is_empty() {
                    return Err("--motions needs at least one count".into());
                }
            }
            "--frames" => options.frames = parse_count(&value()?)?,
            "--threads" => options.threads = Some(parse_count(&value()?)?),
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    Ok(options)
}

/// The GPU context, if an adapter exists, and one line saying what was found. Never panics:
/// a missing driver, or a loader that panics while enumerating adapters, reads as "none".
fn probe_gpu() -> (Option<GpuContext>, String) {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let found = std::panic::catch_unwind(GpuContext::new);
    std::panic::set_hook(hook);
    match found {
        Ok(Ok(ctx)) => {
            let info = ctx.adapter_info();
            let line = format!(
                "GPU adapter: {} ({:?}, {:?} backend){}",
                info.name,
                info.device_type,
                info.backend,
                if ctx.is_software() {
                    "; a software adapter: Executor::Auto would choose the CPU executor here"
                } else {
                    ""
                }
            );
            (Some(ctx), line)
        }
        Ok(Err(e)) => (None, format!("{e}: running the CPU executor only")),
        Err(_) => (
            None,
            "no GPU adapter found (the driver panicked): running the CPU executor only".into(),
        ),
    }
}

const EASES: [Ease; 8] = [
    Ease::Linear,
    Ease::OutQuad,
    Ease::InOutCubic,
    Ease::OutSine,
    Ease::InExpo,
    Ease::OutBack,
    Ease::OutElastic,
    Ease::OutBounce,
];
const LOOP_TYPES: [LoopType; 4] = [
    LoopType::Restart,
    LoopType::Yoyo,
    LoopType::Flip,
    LoopType::Incremental,
];

/// Settings of the `i`-th motion of the mix.
fn configure<T: wgpu_tween::Animatable>(motion: Motion<T>, i: usize) -> Motion<T> {
    let motion = motion.ease(EASES[i % EASES.len()]).loops(
        // Most loop forever; some have a finite but long loop count (they stay live for
        // the whole run but carry a predicted completion event).
        if i % 5 == 4 { 1_000 } else { -1 },
        LOOP_TYPES[(i / 3) % LOOP_TYPES.len()],
    );
    match i % 7 {
        0..=3 => motion,
        4 | 5 => motion.delay(0.25 * (i % 3) as f32),
        _ => motion.delay_with(0.1, DelayType::EveryLoop, false),
    }
}

/// Fills `world` with `n` motions: 40% f32, 20% each Vec2, Vec3, Vec4. Returns one handle of
/// each type for reading values back.
fn populate(world: &mut MotionWorld, n: usize) -> [MotionHandle; 4] {
    let mut probes = [MotionHandle::NONE; 4];
    world.reserve(n);
    for i in 0..n {
        let f = i as f32 * 1e-3;
        let duration = 0.5 + (i % 11) as f32 * 0.25;
        let (kind, handle) = match i % 5 {
            0 | 1 => (
                0,
                configure(Motion::new(f, f + 10.0, duration), i).run(world),
            ),
            2 => (
                1,
                configure(
                    Motion::new(Vec2::splat(f), Vec2::new(4.0, -4.0), duration),
                    i,
                )
                .run(world),
            ),
            3 => (
                2,
                configure(Motion::new(Vec3::ZERO, Vec3::new(1.0, 2.0, f), duration), i).run(world),
            ),
            _ => (
                3,
                configure(Motion::new(Vec4::ONE, Vec4::splat(f), duration), i).run(world),
            ),
        };
        let handle = handle.expect("benchmark motions are valid");
        if probes[kind].is_none() {
            probes[kind] = handle;
        }
    }
    probes
}

/// Runs `frames`-update rounds of `step` until [`MIN_MEASURED`] has passed; returns the
/// mean time per update.
fn measure(frames: usize, mut step: impl FnMut()) -> Duration {
    for _ in 0..WARMUP_FRAMES {
        step();
    }
    let mut updates = 0u32;
    let start = Instant::now();
    loop {
        for _ in 0..frames {
            step();
        }
        updates += frames as u32;
        if start.elapsed() >= MIN_MEASURED {
            break;
        }
    }
    start.elapsed() / updates
}

/// Which executor a measurement runs.
#[derive(Clone)]
enum Engine {
    /// The CPU executor with this many threads (`None`: the default).
    Cpu(Option<usize>),
    /// The GPU executor (forced, even on a software adapter).
    Gpu(GpuContext),
}

struct Row {
    executor: &'static str,
    threads: usize,
    n: usize,
    create_ns: f64,
    engine: Duration,
    baseline: Duration,
}

fn run_engine(n: usize, engine: &Engine, frames: usize) -> Row {
    let (mut world, executor) = match engine {
        Engine::Cpu(threads) => {
            let mut world = MotionWorld::new();
            if let Some(t) = threads {
                world.set_cpu_threads(*t);
            }
            (world, "cpu")
        }
        Engine::Gpu(ctx) => {
            let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU pipelines");
            world
                .set_executor(Executor::Gpu)
                .expect("a GPU context is attached");
            (world, "gpu")
        }
    };
    let start = Instant::now();
    let probes = populate(&mut world, n);
    let create_ns = start.elapsed().as_nanos() as f64 / n as f64;
    assert_eq!(world.len(), n);

    let engine = measure(frames, || {
        world.update(DT).expect("valid delta");
    });
    if let Some(error) = world.take_gpu_error() {
        eprintln!("GPU executor failed, fell back to the CPU: {error}");
    }
    assert_eq!(world.len(), n, "no motion should finish during the run");
    // Read back one value of each type, so the work cannot be assumed dead.
    for (kind, &h) in probes.iter().enumerate() {
        if h.is_none() {
            continue;
        }
        match kind {
            0 => drop(black_box(world.value::<f32>(h))),
            1 => drop(black_box(world.value::<Vec2>(h))),
            2 => drop(black_box(world.value::<Vec3>(h))),
            _ => drop(black_box(world.value::<Vec4>(h))),
        }
    }
    let threads = if executor == "gpu" {
        0
    } else {
        world.cpu_threads()
    };
    drop(black_box(world));

    let mut floor = BaselineLoop::new(n);
    let baseline = measure(frames, || {
        floor.step(DT as f32);
        black_box(floor.outputs());
    });
    Row {
        executor,
        threads,
        n,
        create_ns,
        engine,
        baseline,
    }
}

fn ns_per(d: Duration, n: usize) -> f64 {
    d.as_nanos() as f64 / n as f64
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let (gpu, line) = probe_gpu();
    println!("{line}");
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut engines: Vec<Engine> = match options.threads {
        Some(t) => vec![Engine::Cpu(Some(t))],
        None if cores > 1 => vec![Engine::Cpu(None), Engine::Cpu(Some(1))],
        None => vec![Engine::Cpu(None)],
    };
    engines.extend(gpu.map(Engine::Gpu));
    println!(
        "{} cores; {} frames per round at dt = 1/60 s; mixed motions: 40% f32, 20% each \
         Vec2/Vec3/Vec4, {} eases, 4 loop types, delays; baseline: one f32 OutQuad \
         Restart loop, 1 thread, {} B/motion",
        cores,
        options.frames,
        EASES.len(),
        BaselineLoop::bytes_per_motion()
    );
    println!();
    println!(
        "{:<9} {:>7} {:>9} {:>12} {:>13} {:>12} {:>13} {:>7}",
        "executor",
        "threads",
        "N",
        "create ns/m",
        "update ns/m",
        "update µs",
        "baseline ns/m",
        "ratio"
    );
    for &n in &options.motions {
        for engine in &engines {
            let row = run_engine(n, engine, options.frames);
            let engine = ns_per(row.engine, row.n);
            let baseline = ns_per(row.baseline, row.n);
            println!(
                "{:<9} {:>7} {:>9} {:>12.1} {:>13.2} {:>12.1} {:>13.2} {:>7.2}",
                row.executor,
                row.threads,
                row.n,
                row.create_ns,
                engine,
                row.engine.as_nanos() as f64 / 1e3,
                baseline,
                engine / baseline
            );
        }
    }
    println!();
    println!(
        "ns/m: nanoseconds per motion (per update for update/baseline); update µs: wall time \
         of one world.update (GPU: including the wait for the GPU); threads 0: GPU; ratio: \
         engine ns/m ÷ baseline ns/m"
    );
    ExitCode::SUCCESS
}
