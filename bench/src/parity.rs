//! GPU-vs-CPU parity: thousands of random motions (every ease, loop type, delay type, time
//! kind and lane count; loops -1 and 1..5; speeds including 0 and negative; preserve; zero
//! durations) run in a CPU world and a GPU world side by side with the same operations
//! (spawns, `set_time`, `set_playback_speed`, `complete`, `cancel` mid-run; small and large
//! steps). Every bind value must agree within 1e-4 × max(1, |to − from|) per lane, and the
//! sequence of callbacks must be the same.
//!
//! Shared by `tests/gpu/parity.rs` (which includes this file) and the real-GPU check.

use std::sync::{Arc, Mutex};

use glam::{Vec2, Vec3, Vec4};
use wgpu_tween::gpu::ReadbackMode;
use wgpu_tween::{
    Animatable, DelayType, Ease, Executor, LoopType, Motion, MotionHandle, MotionWorld, TimeDeltas,
    TimeKind,
};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Event {
    Bind([f32; 4]),
    Loop(u32),
    Complete,
    Cancel,
}

type Log = Arc<Mutex<Vec<(u32, Event)>>>;

/// One random motion's settings.
#[derive(Clone, Copy, Debug)]
struct Spec {
    lanes: usize,
    from: [f32; 4],
    to: [f32; 4],
    duration: f32,
    ease: Ease,
    delay: f32,
    delay_type: DelayType,
    skip: bool,
    loops: i32,
    loop_type: LoopType,
    speed: f32,
    preserve: bool,
    time_kind: TimeKind,
    immediate: bool,
}

impl Spec {
    fn random(rng: &mut Rng, n: usize) -> Self {
        let lanes = 1 + rng.below(4);
        let mut from = [0.0; 4];
        let mut to = [0.0; 4];
        let scale = [1.0, 10.0, 1000.0][rng.below(3)];
        for lane in 0..lanes {
            from[lane] = rng.range(-scale, scale) as f32;
            to[lane] = rng.range(-scale, scale) as f32;
        }
        let duration = if rng.chance(0.08) {
            0.0
        } else {
            rng.range(0.05, 3.0) as f32
        };
        let delay = if rng.chance(0.5) {
            0.0
        } else {
            rng.range(0.0, 1.5) as f32
        };
        let loops = match rng.below(7) {
            0 | 1 => -1,
            k => k as i32 - 1, // 1..=5
        };
        let speed = match rng.below(8) {
            0 => 0.0,
            1 => -rng.range(0.2, 2.0) as f32,
            2 => 1.0,
            _ => rng.range(0.1, 3.0) as f32,
        };
        Spec {
            lanes,
            from,
            to,
            duration,
            // Cycle through every ease so each appears many times.
            ease: Ease::ALL[n % Ease::ALL.len()],
            delay,
            delay_type: if rng.chance(0.5) {
                DelayType::FirstLoop
            } else {
                DelayType::EveryLoop
            },
            skip: rng.chance(0.5),
            loops,
            loop_type: LoopType::ALL[(n / Ease::ALL.len()) % 4],
            speed,
            preserve: rng.chance(0.2),
            time_kind: [TimeKind::Scaled, TimeKind::Unscaled, TimeKind::Realtime][rng.below(3)],
            immediate: rng.chance(0.7),
        }
    }

    /// Value tolerance per lane: 1e-4 × max(1, |to − from|), plus a few f32 ulps of the value
    /// itself: Incremental loops grow the value without bound (p = k + E(t)), and there both
    /// executors round `from + (to − from) · p` at the value's magnitude.
    fn tolerance(&self, lane: usize, value: f32) -> f32 {
        1e-4 * f32::max(1.0, (self.to[lane] - self.from[lane]).abs())
            + 8.0 * f32::EPSILON * (value.abs() + self.from[lane].abs())
    }

    fn configure<T: Animatable>(&self, motion: Motion<T>, id: u32, log: &Log) -> Motion<T> {
        let (l1, l2, l3) = (log.clone(), log.clone(), log.clone());
        let mut motion = motion
            .ease(self.ease)
            .delay_with(self.delay, self.delay_type, self.skip)
            .loops(self.loops, self.loop_type)
            .playback_speed(self.speed)
            .time_kind(self.time_kind)
            .immediate_bind(self.immediate)
            .on_complete(move || l1.lock().unwrap().push((id, Event::Complete)))
            .on_cancel(move || l2.lock().unwrap().push((id, Event::Cancel)))
            .on_loop_complete(move |n| l3.lock().unwrap().push((id, Event::Loop(n))));
        if self.preserve {
            motion = motion.preserve();
        }
        motion
    }

    fn spawn(&self, world: &mut MotionWorld, id: u32, log: &Log) -> MotionHandle {
        fn bind<T: Animatable>(
            spec: &Spec,
            world: &mut MotionWorld,
            id: u32,
            log: &Log,
        ) -> MotionHandle {
            let sink = log.clone();
            let from = T::from_lanes(spec.from);
            let to = T::from_lanes(spec.to);
            spec.configure(Motion::new(from, to, spec.duration), id, log)
                .bind(world, move |v: T| {
                    sink.lock().unwrap().push((id, Event::Bind(v.to_lanes())))
                })
                .expect("valid motion")
        }
        match self.lanes {
            1 => bind::<f32>(self, world, id, log),
            2 => bind::<Vec2>(self, world, id, log),
            3 => bind::<Vec3>(self, world, id, log),
            _ => bind::<Vec4>(self, world, id, log),
        }
    }
}

/// A CPU world and a GPU world driven by the same operations.
struct Pair {
    cpu: MotionWorld,
    gpu: MotionWorld,
    cpu_log: Log,
    gpu_log: Log,
    specs: Vec<Spec>,
    handles: Vec<(MotionHandle, MotionHandle)>,
    checked_values: u64,
}

impl Pair {
    fn spawn(&mut self, spec: Spec) {
        let id = self.specs.len() as u32;
        self.specs.push(spec);
        let a = spec.spawn(&mut self.cpu, id, &self.cpu_log);
        let b = spec.spawn(&mut self.gpu, id, &self.gpu_log);
        self.handles.push((a, b));
    }

    /// The GPU world's CPU-side view of a motion's value (from its anchor, no GPU involved).
    fn value_in_gpu_world(&self, id: usize) -> Option<[f32; 4]> {
        let h = self.handles[id].1;
        match self.specs[id].lanes {
            1 => self.gpu.value::<f32>(h).ok().map(|v| v.to_lanes()),
            2 => self.gpu.value::<Vec2>(h).ok().map(|v| v.to_lanes()),
            3 => self.gpu.value::<Vec3>(h).ok().map(|v| v.to_lanes()),
            _ => self.gpu.value::<Vec4>(h).ok().map(|v| v.to_lanes()),
        }
    }

    /// Compares and clears the two event logs.
    fn compare(&mut self, what: &str) {
        let cpu = std::mem::take(&mut *self.cpu_log.lock().unwrap());
        let gpu = std::mem::take(&mut *self.gpu_log.lock().unwrap());
        assert_eq!(
            cpu.len(),
            gpu.len(),
            "{what}: {} CPU events, {} GPU events\nCPU: {:?}\nGPU: {:?}",
            cpu.len(),
            gpu.len(),
            &cpu[..cpu.len().min(20)],
            &gpu[..gpu.len().min(20)]
        );
        for (i, (&(id_c, ev_c), &(id_g, ev_g))) in cpu.iter().zip(&gpu).enumerate() {
            assert_eq!(
                id_c, id_g,
                "{what}: event {i}: motion {id_c} on CPU, {id_g} on GPU"
            );
            let spec = &self.specs[id_c as usize];
            match (ev_c, ev_g) {
                (Event::Bind(c), Event::Bind(g)) => {
                    for lane in 0..spec.lanes {
                        let tol = spec.tolerance(lane, c[lane]);
                        assert!(
                            (c[lane] - g[lane]).abs() <= tol,
                            "{what}: motion {id_c} lane {lane}: CPU {} GPU {} (tolerance {tol})\n{spec:?}\nCPU time {:?}, GPU world's time {:?} and value {:?}",
                            c[lane],
                            g[lane],
                            self.cpu.time(self.handles[id_c as usize].0),
                            self.gpu.time(self.handles[id_c as usize].1),
                            self.value_in_gpu_world(id_c as usize),
                        );
                    }
                    self.checked_values += 1;
                }
                (c, g) => assert_eq!(c, g, "{what}: motion {id_c}: events differ"),
            }
        }
    }
}

/// Runs `motions` random motions for `frames` frames of random operations and steps in a
/// CPU world and a GPU world (executor forced) from `ctx`; panics at the first difference,
/// returns a one-line summary. Async for the browser, whose GPU executor awaits its readback
/// (`update_with_async`); natively it is ready when first polled.
pub async fn run_parity(
    ctx: wgpu_tween::gpu::GpuContext,
    seed: u64,
    motions: usize,
    frames: usize,
) -> String {
    let mut gpu = MotionWorld::with_gpu(ctx).expect("GPU world");
    gpu.set_executor(Executor::Gpu).expect("GPU executor");
    // This update's values (on the web the default is pipelined).
    gpu.gpu_mut().set_readback_mode(ReadbackMode::Blocking);
    let mut pair = Pair {
        cpu: MotionWorld::new(),
        gpu,
        cpu_log: Log::default(),
        gpu_log: Log::default(),
        specs: Vec::new(),
        handles: Vec::new(),
        checked_values: 0,
    };
    let mut rng = Rng(seed);
    for n in 0..motions {
        let spec = Spec::random(&mut rng, n);
        pair.spawn(spec);
    }
    pair.compare("creation");

    for frame in 0..frames {
        // A few operations on random motions, on both worlds alike.
        let ops = rng.below(12);
        for _ in 0..ops {
            let k = rng.below(pair.handles.len());
            let (a, b) = pair.handles[k];
            match rng.below(10) {
                0..=3 => {
                    let total = pair.specs[k].delay as f64
                        + pair.specs[k].duration as f64 * pair.specs[k].loops.max(3) as f64;
                    let t = rng.range(-0.5, total + 1.0);
                    assert_eq!(
                        pair.cpu.set_time(a, t).is_ok(),
                        pair.gpu.set_time(b, t).is_ok()
                    );
                }
                4..=6 => {
                    let speed = match rng.below(4) {
                        0 => 0.0,
                        1 => -rng.range(0.1, 2.0) as f32,
                        _ => rng.range(0.1, 3.0) as f32,
                    };
                    assert_eq!(
                        pair.cpu.set_playback_speed(a, speed).is_ok(),
                        pair.gpu.set_playback_speed(b, speed).is_ok()
                    );
                }
                7 => assert_eq!(pair.cpu.try_complete(a), pair.gpu.try_complete(b)),
                8 => assert_eq!(pair.cpu.try_cancel(a), pair.gpu.try_cancel(b)),
                _ => {
                    let spec = Spec::random(&mut rng, pair.specs.len());
                    pair.spawn(spec);
                }
            }
            pair.compare(&format!("frame {frame} op"));
        }
        let deltas = match rng.below(10) {
            0 => TimeDeltas::uniform(0.0),
            1..=5 => TimeDeltas::uniform(1.0 / 60.0),
            6 | 7 => TimeDeltas::uniform(rng.range(0.0, 2.5)),
            _ => TimeDeltas {
                scaled: rng.range(0.0, 0.2),
                unscaled: rng.range(0.0, 0.2),
                realtime: rng.range(0.0, 0.2),
            },
        };
        pair.cpu.update_with(deltas).expect("CPU update");
        pair.gpu
            .update_with_async(deltas)
            .await
            .expect("GPU update");
        pair.compare(&format!("frame {frame} update {deltas:?}"));
        assert_eq!(
            pair.cpu.len(),
            pair.gpu.len(),
            "frame {frame}: live motions differ"
        );
    }
    assert_eq!(pair.gpu.take_gpu_error(), None, "the GPU executor failed");
    assert_eq!(
        pair.gpu.active_executor(),
        Executor::Gpu,
        "the GPU world left the GPU"
    );
    assert!(
        pair.checked_values > (motions * frames / 20) as u64,
        "too few values compared"
    );
    format!(
        "seed {seed}: {} motions, {frames} frames, {} bound values compared, {} live at the end",
        pair.specs.len(),
        pair.checked_values,
        pair.cpu.len()
    )
}

/// A splitmix64 generator (the same sequence as `tests/common`'s `Rng`).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}
