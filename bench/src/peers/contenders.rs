//! The contenders of the peer benchmark: each builds issue 17's N motions its own idiomatic
//! way (creation timed, the stagger not), then steps them, consuming every value.

use std::error::Error;
use std::hint::black_box;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{
    BatchItem, BuildError, Ease, Executor, LoopType, Motion, MotionHandle, MotionWorld, TargetId,
};

use super::{phase, target, DURATION};
use crate::baseline::BaselineLoop;
use crate::counters::minor_faults;

/// What a contender's step or read can fail with.
pub type Failure = Box<dyn Error>;

/// A contender's N motions, created and staggered.
pub trait Motions {
    /// One update of `dt` seconds; every motion's value is produced and consumed (summed,
    /// written where the optimiser cannot drop it, or delivered to a bind).
    fn step(&mut self, dt: f32) -> Result<(), Failure>;
    /// Every motion's current value in creation order (the equivalence test reads it).
    fn values(&mut self) -> Result<Vec<f32>, Failure>;
}

/// A contender's motions and what creating them cost.
pub struct Built {
    /// The motions, staggered, ready to step.
    pub motions: Box<dyn Motions>,
    /// What creating the N motions (not staggering them) cost.
    pub create: Creation,
}

/// What creating a contender's motions cost.
#[derive(Clone, Copy, Debug, Default)]
pub struct Creation {
    /// Wall time.
    pub time: Duration,
    /// Minor page faults meanwhile (the first touch of memory the allocator had to get from
    /// the system, or had given back): 0 where `/proc` does not say.
    pub faults: u64,
}

/// What the contenders may use.
#[derive(Clone, Default)]
pub struct Env {
    /// wgpu-tween's GPU context, when an adapter exists and the GPU columns are wanted.
    pub gpu: Option<GpuContext>,
    /// animato-gpu's device and queue (its own wgpu, 29), when its GPU batch is wanted.
    pub animato: Option<(wgpu29::Device, wgpu29::Queue)>,
}

/// Opens a device for animato-gpu's GPU batch: the backends wgpu-tween's context uses
/// (`WGPU_BACKEND`, else the primary ones), the default limits animato-gpu asks for itself.
/// `None` without an adapter, or where the loader panics.
#[must_use]
pub fn animato_device() -> Option<(wgpu29::Device, wgpu29::Queue)> {
    let open = || {
        let backends = wgpu29::Backends::from_env().unwrap_or(wgpu29::Backends::PRIMARY);
        let instance = wgpu29::Instance::new(wgpu29::InstanceDescriptor {
            backends,
            ..wgpu29::InstanceDescriptor::new_without_display_handle_from_env()
        });
        let adapter =
            pollster::block_on(instance.request_adapter(&wgpu29::RequestAdapterOptions {
                power_preference: wgpu29::PowerPreference::HighPerformance,
                ..Default::default()
            }))
            .ok()?;
        pollster::block_on(adapter.request_device(&wgpu29::DeviceDescriptor {
            label: Some("peers: animato-gpu"),
            ..Default::default()
        }))
        .ok()
    };
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let opened = std::panic::catch_unwind(open);
    std::panic::set_hook(hook);
    opened.ok().flatten()
}

/// What builds a contender at N: `None` where it cannot run here (no adapter) or its API
/// does not exist yet; the cell then prints "–".
pub type Build = fn(&Env, usize) -> Option<Result<Built, Failure>>;

/// Which tables a contender has a column in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shows {
    /// The update table only.
    Updates,
    /// The creation table only.
    Creation,
    /// Both.
    Both,
}

impl Shows {
    /// Whether it has an update column.
    #[must_use]
    pub fn updates(self) -> bool {
        self != Shows::Creation
    }

    /// Whether it has a creation column.
    #[must_use]
    pub fn creation(self) -> bool {
        self != Shows::Updates
    }
}

/// One contender of the benchmark.
#[derive(Clone, Copy)]
pub struct Contender {
    /// JSON key.
    pub key: &'static str,
    /// Column header.
    pub name: &'static str,
    /// Which tables it has a column in.
    pub shows: Shows,
    /// Builds its N motions.
    pub build: Build,
}

const fn contender(key: &'static str, name: &'static str, shows: Shows, build: Build) -> Contender {
    Contender {
        key,
        name,
        shows,
        build,
    }
}

/// Every contender, in column order (one a line, unformatted, to read as a table).
#[rustfmt::skip]
pub const CONTENDERS: [Contender; 14] = [
    contender("floor", "hand-written loop", Shows::Updates, floor),
    contender("floor_bind", "hand-written loop, a closure per motion", Shows::Updates, floor_bind),
    contender("tween", "`tween` 2", Shows::Both, tween),
    contender("keyframe", "`keyframe` 1", Shows::Both, keyframe),
    contender("glissade", "`glissade` 0.2", Shows::Both, glissade),
    contender("animato_cpu", "animato-gpu, CPU batch", Shows::Both, animato_cpu),
    // Its creation is the CPU batch's (the same pushes).
    contender("animato_gpu", "animato-gpu, GPU batch + wait", Shows::Updates, animato_gpu),
    contender("wt_run", "wgpu-tween, no bind, 1 thread", Shows::Both, wt_run),
    contender("wt_bind", "wgpu-tween, a bind on every motion, 1 thread", Shows::Both, wt_bind),
    contender("wt_bind_indexed", "wgpu-tween, one bind shared by the batch, 1 thread", Shows::Both, wt_bind_indexed),
    contender("wt_host", "wgpu-tween, host targets, 1 thread", Shows::Both, wt_host),
    contender("wt_gpu_targets", "wgpu-tween, GPU targets, GPU executor + wait", Shows::Both, wt_gpu_targets),
    // The looping world of `wt_run` on the GPU executor: its own cost next to the targets'.
    contender("wt_gpu", "wgpu-tween, GPU executor + wait, no targets", Shows::Updates, wt_gpu),
    contender("wt_batch", "wgpu-tween, batch spawn", Shows::Creation, wt_batch),
];

/// Times `make`, the creation of the motions, and counts its page faults.
fn timed<T>(make: impl FnOnce() -> T) -> (T, Creation) {
    let (faults, start) = (minor_faults(), Instant::now());
    let made = make();
    let time = start.elapsed();
    let faults = minor_faults().saturating_sub(faults);
    (made, Creation { time, faults })
}

fn built(motions: impl Motions + 'static, create: Creation) -> Option<Result<Built, Failure>> {
    Some(Ok(Built {
        motions: Box::new(motions),
        create,
    }))
}

// ---- the floor ----------------------------------------------------------------------------

impl Motions for BaselineLoop {
    fn step(&mut self, dt: f32) -> Result<(), Failure> {
        BaselineLoop::step(self, dt);
        black_box(self.outputs());
        Ok(())
    }
    fn values(&mut self) -> Result<Vec<f32>, Failure> {
        Ok(self.outputs().to_vec())
    }
}

fn floor(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    let (floor, create) =
        timed(|| BaselineLoop::with_each(n, DURATION, |i| (0.0, target(i), phase(i))));
    built(floor, create)
}

/// The floor handing each value to a closure of its own, all of one type side by side (as
/// a run of `wt_bind`'s closures lies): the least a bind on every motion costs.
struct BoundFloor<F> {
    floor: BaselineLoop,
    binds: Vec<F>,
    slots: Arc<[AtomicU32]>,
}

impl<F: FnMut(f32)> Motions for BoundFloor<F> {
    fn step(&mut self, dt: f32) -> Result<(), Failure> {
        self.floor.step(dt);
        for (bind, &value) in self.binds.iter_mut().zip(self.floor.outputs()) {
            bind(value);
        }
        Ok(())
    }
    fn values(&mut self) -> Result<Vec<f32>, Failure> {
        Ok(stored(&self.slots))
    }
}

fn floor_bind(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    let slots = slots(n);
    let floor = BaselineLoop::with_each(n, DURATION, |i| (0.0, target(i), phase(i)));
    let binds = (0..n).map(|i| store_in(&slots, i)).collect();
    let floor = BoundFloor {
        floor,
        binds,
        slots,
    };
    built(floor, Creation::default())
}

/// `n` slots for values, as `f32` bits.
fn slots(n: usize) -> Arc<[AtomicU32]> {
    (0..n).map(|_| AtomicU32::new(0)).collect()
}

/// The values in `slots`.
fn stored(slots: &[AtomicU32]) -> Vec<f32> {
    slots
        .iter()
        .map(|s| f32::from_bits(s.load(Ordering::Relaxed)))
        .collect()
}

/// The bind that stores motion `i`'s value in slot `i`, as a user writes it.
fn store_in(slots: &Arc<[AtomicU32]>, i: usize) -> impl FnMut(f32) + Send + 'static {
    let slots = Arc::clone(slots);
    move |v| slots[i].store(v.to_bits(), Ordering::Relaxed)
}

// ---- tween 2: a Tweener per motion, its Looper restarting, `move_by` returns the value ---

type Tweener = tween::Tweener<f32, f32, tween::Looper<tween::QuadOut>>;

struct Tweens {
    tweens: Vec<Tweener>,
    last: Vec<f32>,
}

impl Motions for Tweens {
    fn step(&mut self, dt: f32) -> Result<(), Failure> {
        let mut sum = 0.0;
        for t in &mut self.tweens {
            sum += t.move_by(dt);
        }
        black_box(sum);
        Ok(())
    }
    fn values(&mut self) -> Result<Vec<f32>, Failure> {
        self.last.clear();
        self.last
            .extend(self.tweens.iter_mut().map(|t| t.move_by(0.0)));
        Ok(self.last.clone())
    }
}

fn tween(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    let mut tweens = Vec::with_capacity(n);
    let ((), create) = timed(|| {
        for i in 0..n {
            tweens.push(Tweener::new(
                0.0,
                target(i),
                DURATION,
                tween::Looper::new(tween::QuadOut),
            ));
        }
    });
    for (i, t) in tweens.iter_mut().enumerate() {
        t.current_time = phase(i);
    }
    built(
        Tweens {
            tweens,
            last: Vec::new(),
        },
        create,
    )
}

// ---- keyframe 1: a two-key AnimationSequence per motion, wrapped when it passes its end ---

struct Sequences(Vec<keyframe::AnimationSequence<f32>>);

impl Motions for Sequences {
    fn step(&mut self, dt: f32) -> Result<(), Failure> {
        let mut sum = 0.0;
        for s in &mut self.0 {
            s.advance_and_maybe_wrap(f64::from(dt));
            sum += s.now();
        }
        black_box(sum);
        Ok(())
    }
    fn values(&mut self) -> Result<Vec<f32>, Failure> {
        Ok(self
            .0
            .iter()
            .map(keyframe::AnimationSequence::now)
            .collect())
    }
}

fn keyframe(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    use keyframe::{functions::EaseOutQuad, AnimationSequence, Keyframe};
    let mut sequences = Vec::with_capacity(n);
    let ((), create) = timed(|| {
        for i in 0..n {
            sequences.push(AnimationSequence::from(vec![
                Keyframe::new(0.0f32, 0.0f32, EaseOutQuad),
                Keyframe::new(target(i), DURATION, EaseOutQuad),
            ]));
        }
    });
    for (i, s) in sequences.iter_mut().enumerate() {
        s.advance_to(f64::from(phase(i)));
    }
    built(Sequences(sequences), create)
}

// ---- glissade 0.2: stateless animations sampled at a shared clock -------------------------

struct Glissade<A> {
    animations: Vec<A>,
    now: f32,
}

impl<A: glissade::Animated<f32, f32>> Motions for Glissade<A> {
    fn step(&mut self, dt: f32) -> Result<(), Failure> {
        self.now += dt;
        let mut sum = 0.0;
        for a in &self.animations {
            sum += a.get(self.now);
        }
        black_box(sum);
        Ok(())
    }
    fn values(&mut self) -> Result<Vec<f32>, Failure> {
        Ok(self.animations.iter().map(|a| a.get(self.now)).collect())
    }
}

fn glissade(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    use glissade::{keyframes, Easing, Keyframes};
    // The start time is the stagger: a motion `phase` into its loop started `phase` ago.
    let make = |i: usize| {
        keyframes::from(0.0f32)
            .ease_to(target(i), DURATION, Easing::QuadraticOut)
            .repeat()
            .run(-phase(i))
    };
    let mut animations = Vec::with_capacity(n);
    let ((), create) = timed(|| animations.extend((0..n).map(make)));
    built(
        Glissade {
            animations,
            now: 0.0,
        },
        create,
    )
}

// ---- animato-gpu 1.7: GpuAnimationBatch of animato Tweens, on the CPU or the GPU ----------

struct Animato(animato_gpu::GpuAnimationBatch);

impl Motions for Animato {
    fn step(&mut self, dt: f32) -> Result<(), Failure> {
        let gpu = self.0.backend() == animato_gpu::GpuBackend::Gpu;
        self.0.tick(dt);
        // A failed dispatch silently continues on its CPU path: that is not its GPU column.
        if gpu && self.0.backend() != animato_gpu::GpuBackend::Gpu {
            return Err("animato-gpu's GPU batch fell back to its CPU path".into());
        }
        black_box(self.0.read_back());
        Ok(())
    }
    fn values(&mut self) -> Result<Vec<f32>, Failure> {
        Ok(self.0.read_back().to_vec())
    }
}

/// Pushes the N tweens into `batch`, timed. The batch has no access to a pushed tween, so
/// each is staggered (`seek`, a multiply and a clamp) before its push.
fn animato(mut batch: animato_gpu::GpuAnimationBatch, n: usize) -> Option<Result<Built, Failure>> {
    use animato_core::Easing;
    use animato_tween::{Loop, Tween};
    let ((), create) = timed(|| {
        for i in 0..n {
            let mut tween = Tween::new(0.0f32, target(i))
                .duration(DURATION)
                .easing(Easing::EaseOutQuad)
                .looping(Loop::Forever)
                .build();
            tween.seek(phase(i) / DURATION);
            batch.push(tween);
        }
    });
    built(Animato(batch), create)
}

fn animato_cpu(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    animato(animato_gpu::GpuAnimationBatch::new_cpu(), n)
}

fn animato_gpu(env: &Env, n: usize) -> Option<Result<Built, Failure>> {
    let (device, queue) = env.animato.clone()?;
    match animato_gpu::GpuAnimationBatch::new(device, queue) {
        Ok(batch) => animato(batch, n),
        Err(e) => Some(Err(format!("{e:?}").into())),
    }
}

// ---- wgpu-tween -------------------------------------------------------------------------

/// The motion of the workload: `0 → i` over 2 s, OutQuad, restarting forever.
fn motion(i: usize) -> Motion<f32> {
    Motion::new(0.0f32, target(i), DURATION)
        .ease(Ease::OutQuad)
        .loops(-1, LoopType::Restart)
}

/// What a wgpu-tween world steps with, besides `update`.
enum Out {
    /// Nothing: values stay in the world (read with `value`).
    None,
    /// Each motion's bind stores its value in its own slot.
    Slots(Arc<[AtomicU32]>),
    /// Each motion writes element `i` of this storage buffer.
    Buffer(wgpu::Buffer),
    /// Each motion writes element `i` of this host array (registered when the motions are
    /// made).
    Host(Arc<OnceLock<TargetId>>),
}

struct World {
    world: MotionWorld,
    handles: Vec<MotionHandle>,
    out: Out,
    /// The GPU executor's context: each step waits for the device.
    gpu: Option<GpuContext>,
}

impl Motions for World {
    fn step(&mut self, dt: f32) -> Result<(), Failure> {
        self.world.update(f64::from(dt))?;
        if let Some(ctx) = &self.gpu {
            ctx.device().poll(wgpu::PollType::wait_indefinitely())?;
            // A GPU error moves the world to the CPU executor: not this column's numbers.
            if let Some(e) = self.world.take_gpu_error() {
                return Err(e.to_string().into());
            }
        }
        black_box(&self.world);
        Ok(())
    }
    fn values(&mut self) -> Result<Vec<f32>, Failure> {
        match &self.out {
            Out::None => Ok(self
                .handles
                .iter()
                .map(|&h| self.world.value::<f32>(h))
                .collect::<Result<_, _>>()?),
            Out::Slots(slots) => Ok(stored(slots)),
            Out::Host(id) => id
                .get()
                .and_then(|&id| self.world.host_target(id))
                .map(<[f32]>::to_vec)
                .ok_or_else(|| "no host target".into()),
            Out::Buffer(buffer) => match &self.gpu {
                Some(ctx) => read_buffer(ctx, buffer),
                None => Err("GPU targets without a GPU context".into()),
            },
        }
    }
}

/// A world on one CPU thread (or the GPU executor), `reserve`d for `n`.
fn world(gpu: Option<&GpuContext>, n: usize) -> Result<MotionWorld, Failure> {
    let mut world = match gpu {
        Some(ctx) => {
            let mut world = MotionWorld::with_gpu(ctx.clone())?;
            world.set_executor(Executor::Gpu)?;
            world
        }
        None => MotionWorld::new(),
    };
    world.set_cpu_threads(1);
    world.reserve(n);
    Ok(world)
}

/// Creation one motion at a time: `add(world, i)` for every `i < n`, handles appended.
fn each(
    n: usize,
    mut add: impl FnMut(&mut MotionWorld, usize) -> Result<MotionHandle, BuildError>,
) -> impl FnOnce(&mut MotionWorld, &mut Vec<MotionHandle>) -> Result<(), BuildError> {
    move |world, handles| {
        for i in 0..n {
            handles.push(add(world, i)?);
        }
        Ok(())
    }
}

/// Creates the N motions with `create` (timed; it appends their handles in creation order),
/// then staggers them.
fn wt_world(
    gpu: Option<&GpuContext>,
    n: usize,
    out: Out,
    create: impl FnOnce(&mut MotionWorld, &mut Vec<MotionHandle>) -> Result<(), BuildError>,
) -> Result<Built, Failure> {
    let mut world = world(gpu, n)?;
    let mut handles = Vec::with_capacity(n);
    let (made, create) = timed(|| create(&mut world, &mut handles));
    made?;
    if handles.len() != n {
        return Err(format!("{} handles for {n} motions", handles.len()).into());
    }
    for (i, &h) in handles.iter().enumerate() {
        world.set_time(h, f64::from(phase(i)))?;
    }
    Ok(Built {
        motions: Box::new(World {
            world,
            handles,
            out,
            gpu: gpu.cloned(),
        }),
        create,
    })
}

fn wt_run(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    Some(wt_world(
        None,
        n,
        Out::None,
        each(n, |w, i| motion(i).run(w)),
    ))
}

fn wt_bind(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    let slots = slots(n);
    let out = Out::Slots(Arc::clone(&slots));
    Some(wt_world(
        None,
        n,
        out,
        each(n, move |w, i| motion(i).bind(w, store_in(&slots, i))),
    ))
}

/// One batch whose shared bind stores motion `i`'s value in slot `i`.
fn wt_bind_indexed(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    let slots = slots(n);
    let out = Out::Slots(Arc::clone(&slots));
    Some(wt_world(None, n, out, move |w, handles| {
        motion(0).bind_batch_indexed(
            w,
            n,
            |i| BatchItem::new(0.0, target(i)),
            move |i, v| slots[i].store(v.to_bits(), Ordering::Relaxed),
            handles,
        )
    }))
}

/// A host array of N f32s registered once; motion `i` writes element `i`.
fn wt_host(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    let id = Arc::new(OnceLock::new());
    let out = Out::Host(Arc::clone(&id));
    Some(wt_world(None, n, out, move |w, handles| {
        let array = *id.get_or_init(|| w.add_host_target(n).expect("host array"));
        for i in 0..n {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            handles.push(motion(i).target(array.at(index, 1, 0)).run(w)?);
        }
        Ok(())
    }))
}

/// The N motions added in one call (`Motion::run_batch`), `from`/`to` per index.
fn wt_batch(_: &Env, n: usize) -> Option<Result<Built, Failure>> {
    Some(wt_world(None, n, Out::None, move |w, handles| {
        motion(0).run_batch(w, n, |i| BatchItem::new(0.0, target(i)), handles)
    }))
}

fn wt_gpu_targets(env: &Env, n: usize) -> Option<Result<Built, Failure>> {
    let ctx = env.gpu.as_ref()?;
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("peers: GPU targets"),
        size: (n.max(1) * 4) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let out = Out::Buffer(buffer.clone());
    Some(wt_world(Some(ctx), n, out, move |w, handles| {
        let id = w.add_gpu_target(&buffer).map_err(BuildError::Target)?;
        for i in 0..n {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            handles.push(motion(i).target(id.at(index, 1, 0)).run(w)?);
        }
        Ok(())
    }))
}

fn wt_gpu(env: &Env, n: usize) -> Option<Result<Built, Failure>> {
    let ctx = env.gpu.as_ref()?;
    Some(wt_world(
        Some(ctx),
        n,
        Out::None,
        each(n, |w, i| motion(i).run(w)),
    ))
}

/// Copies `buffer` (f32s, `COPY_SRC`) back to the host.
fn read_buffer(ctx: &GpuContext, buffer: &wgpu::Buffer) -> Result<Vec<f32>, Failure> {
    let device = ctx.device();
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("peers: readback"),
        size: buffer.size(),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
    ctx.queue().submit([encoder.finish()]);
    let slice = staging.slice(..);
    let (send, receive) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = send.send(r);
    });
    device.poll(wgpu::PollType::wait_indefinitely())?;
    receive.recv()??;
    let values = bytemuck::cast_slice(&slice.get_mapped_range()?).to_vec();
    staging.unmap();
    Ok(values)
}
