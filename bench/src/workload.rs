//! The mixed workload (f32, Vec3, Quat, Color; several eases, loop types and delays) and
//! its measurement on one executor.

use std::hint::black_box;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::baseline::{BaselineLoop, GpuLerpFloor};
use glam::{Quat, Vec3};
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{
    Animatable, BuildError, Color, DelayType, Ease, Executor, LoopType, Motion, MotionWorld,
};

/// Frame delta, seconds.
pub const DT: f64 = 1.0 / 60.0;
/// Untimed updates before measuring (uploads rows, faults in pages, wakes worker threads).
pub const WARMUP_FRAMES: u32 = 3;
/// Rounds of frames repeat until this much time was measured, so that small N are not
/// lost in timer noise.
pub const MIN_MEASURED: Duration = Duration::from_millis(100);
/// One motion in this many has a CPU bind in the readback measurement.
pub const BOUND_EVERY: usize = 16;

/// The eases of the mix.
pub const EASES: [Ease; 8] = [
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

/// The workload, in words.
#[must_use]
pub fn describe() -> String {
    format!(
        "40% f32, 20% each Vec3, Quat (slerp), Color; {} eases, 4 loop types (infinite or \
         1000 loops), no delay, first-loop and every-loop delays",
        EASES.len()
    )
}

/// Which executor a measurement runs.
#[derive(Clone)]
pub enum Engine {
    /// The CPU executor with this many threads (`None`: the default, all cores).
    Cpu(Option<usize>),
    /// The GPU executor (forced, even on a software adapter).
    Gpu(GpuContext),
}

impl Engine {
    /// `cpu` or `gpu`.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Engine::Cpu(_) => "cpu",
            Engine::Gpu(_) => "gpu",
        }
    }

    fn world(&self) -> Result<MotionWorld, Box<dyn std::error::Error>> {
        Ok(match self {
            Engine::Cpu(threads) => {
                let mut world = MotionWorld::new();
                if let Some(t) = threads {
                    world.set_cpu_threads(*t);
                }
                world
            }
            Engine::Gpu(ctx) => {
                let mut world = MotionWorld::with_gpu(ctx.clone())?;
                world.set_executor(Executor::Gpu)?;
                world.gpu_mut().set_pass_timing(true);
                world
            }
        })
    }

    /// Waits until the GPU has finished everything submitted (no-op on the CPU).
    fn wait(&self) {
        if let Engine::Gpu(ctx) = self {
            let _ = ctx.device().poll(wgpu::PollType::wait_indefinitely());
        }
    }
}

/// Settings of the `i`-th motion of the mix.
fn configure<T: Animatable>(motion: Motion<T>, i: usize) -> Motion<T> {
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

/// Adds the motion, with a CPU bind writing lane 0 into `sink` when `bound`.
fn add<T: Animatable>(
    world: &mut MotionWorld,
    motion: Motion<T>,
    bound: Option<&Arc<AtomicU32>>,
) -> Result<(), BuildError> {
    match bound {
        Some(sink) => {
            let sink = Arc::clone(sink);
            motion.bind(world, move |v: T| {
                sink.store(v.to_lanes()[0].to_bits(), Ordering::Relaxed);
            })?;
        }
        None => {
            motion.run(world)?;
        }
    }
    Ok(())
}

/// Fills `world` with `n` motions of the mix; every [`BOUND_EVERY`]-th gets a CPU bind when
/// `bind` is set. Returns how many are bound.
pub fn populate(world: &mut MotionWorld, n: usize, bind: bool) -> Result<usize, BuildError> {
    let sink = Arc::new(AtomicU32::new(0));
    let mut bound = 0;
    world.reserve(n);
    for i in 0..n {
        let sink = (bind && i % BOUND_EVERY == 0).then_some(&sink);
        bound += usize::from(sink.is_some());
        add_nth(world, i, sink)?;
    }
    Ok(bound)
}

/// Adds motion number `i` of the mix (value type, settings and timing depend on `i` only, so
/// the same motions can be created in another order), with a CPU bind writing lane 0 into
/// `sink` when given.
pub fn add_nth(
    world: &mut MotionWorld,
    i: usize,
    sink: Option<&Arc<AtomicU32>>,
) -> Result<(), BuildError> {
    let f = (i % 1000) as f32 * 1e-3;
    let duration = 0.5 + (i % 11) as f32 * 0.25;
    match i % 5 {
        0 | 1 => add(
            world,
            configure(Motion::new(f, f + 10.0, duration), i),
            sink,
        ),
        2 => add(
            world,
            configure(Motion::new(Vec3::ZERO, Vec3::new(1.0, 2.0, f), duration), i),
            sink,
        ),
        3 => add(
            world,
            configure(
                Motion::new(
                    Quat::from_rotation_y(f),
                    Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), 2.0 + f),
                    duration,
                ),
                i,
            ),
            sink,
        ),
        _ => add(
            world,
            configure(
                Motion::new(
                    Color::new(f, 0.2, 1.0 - f, 1.0),
                    Color::new(1.0, f, 0.1, 0.5),
                    duration,
                ),
                i,
            ),
            sink,
        ),
    }
}

/// The configuration of motion `i` of the mix as a sortable key (value type, ease, loop
/// type and count, delay type): creating the motions in this key's order creates them
/// grouped by configuration.
#[must_use]
pub fn config_key(i: usize) -> (usize, usize, usize, usize) {
    let delay = match i % 7 {
        0..=3 => 0,
        4 | 5 => 1,
        _ => 2,
    };
    (i % 5, i % EASES.len(), (i / 3) % LOOP_TYPES.len(), delay)
}

/// Mean times per update.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timing {
    /// Wall time per update, including the wait for the GPU.
    pub wall: Duration,
    /// Time inside the measured call per update (excluding the wait for the GPU).
    pub cpu: Duration,
    /// GPU time of the evaluate pass per update, from timestamp queries (GPU executor on a
    /// device with `TIMESTAMP_QUERY` only).
    pub gpu: Option<Duration>,
    /// Updates measured.
    pub frames: u32,
}

/// Runs [`WARMUP_FRAMES`], then rounds of `frames` steps until [`MIN_MEASURED`] has passed.
/// `step` returns the time of its CPU part and, where measured, its GPU pass time.
pub fn measure(frames: u32, mut step: impl FnMut() -> (Duration, Option<Duration>)) -> Timing {
    for _ in 0..WARMUP_FRAMES {
        step();
    }
    let mut cpu = Duration::ZERO;
    let (mut gpu, mut timed) = (Duration::ZERO, 0u32);
    let mut count = 0u32;
    let start = Instant::now();
    loop {
        for _ in 0..frames {
            let (c, g) = step();
            cpu += c;
            if let Some(g) = g {
                gpu += g;
                timed += 1;
            }
        }
        count += frames;
        if start.elapsed() >= MIN_MEASURED {
            break;
        }
    }
    Timing {
        wall: start.elapsed() / count,
        cpu: cpu / count,
        gpu: (timed > 0).then(|| gpu / timed),
        frames: count,
    }
}

/// What one executor measured at one N.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Creating the motions, per motion.
    pub create_ns: f64,
    /// The plain world (no binds).
    pub engine: Timing,
    /// The same mix with [`BOUND_EVERY`] bound.
    pub bound: Timing,
    /// Motions bound in `bound`.
    pub bound_count: usize,
    /// The floor: [`BaselineLoop`] (CPU) or [`GpuLerpFloor`] (GPU).
    pub floor: Timing,
    /// A GPU error the run hit, if any.
    pub error: Option<String>,
}

/// What [`run_world`] measured: timing, creation ns per motion, bound motions, a GPU error.
type WorldRun = (Timing, f64, usize, Option<String>);

/// Times `frames` updates of a world of `n` motions of the mix on `engine`.
fn run_world(
    engine: &Engine,
    n: usize,
    frames: u32,
    bind: bool,
) -> Result<WorldRun, Box<dyn std::error::Error>> {
    let mut world = engine.world()?;
    let start = Instant::now();
    let bound = populate(&mut world, n, bind)?;
    let create_ns = start.elapsed().as_nanos() as f64 / n.max(1) as f64;
    let mut failed = None;
    let timing = measure(frames, || {
        let t0 = Instant::now();
        if let Err(e) = world.update(DT) {
            failed.get_or_insert_with(|| e.to_string());
        }
        let cpu = t0.elapsed();
        engine.wait();
        // The wait delivered this update's timestamps, if the device records them.
        (cpu, world.gpu_mut().pass_time())
    });
    let error = failed.or_else(|| world.take_gpu_error().map(|e| e.to_string()));
    if error.is_none() && world.len() != n {
        return Err(format!("{} of {n} motions left during the run", world.len()).into());
    }
    black_box(&world);
    Ok((timing, create_ns, bound, error))
}

/// Measures `engine` at `n` motions: the plain world, the world with binds, the floor.
/// `phase` is called before each part with its name.
pub fn run(
    engine: &Engine,
    n: usize,
    frames: u32,
    mut phase: impl FnMut(&str),
) -> Result<Measured, Box<dyn std::error::Error>> {
    phase("update");
    let (engine_timing, create_ns, _, error) = run_world(engine, n, frames, false)?;
    phase("readback");
    let (bound, _, bound_count, bound_error) = run_world(engine, n, frames, true)?;
    phase("floor");
    let floor = match engine {
        Engine::Cpu(_) => {
            let mut floor = BaselineLoop::new(n);
            measure(frames, || {
                let t0 = Instant::now();
                floor.step(DT as f32);
                black_box(floor.outputs());
                (t0.elapsed(), None)
            })
        }
        Engine::Gpu(ctx) => {
            let mut floor = GpuLerpFloor::new(ctx, n);
            measure(frames, || {
                let t0 = Instant::now();
                floor.step(DT as f32);
                let cpu = t0.elapsed();
                engine.wait();
                (cpu, None)
            })
        }
    };
    Ok(Measured {
        create_ns,
        engine: engine_timing,
        bound,
        bound_count,
        floor,
        error: error.or(bound_error),
    })
}
