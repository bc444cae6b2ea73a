//! No drift: looping motions driven for 10 simulated hours on the GPU executor (large steps,
//! then 1/60 s steps) match the f64 reference within 1e-4 all along: the closed-form value
//! from the f64 clock, and a CPU-executor world driven alike.

use crate::common;

use std::sync::{Arc, Mutex};

use wgpu_tween::{DelayType, Ease, Executor, LoopType, Motion, MotionHandle, MotionWorld};

const HOURS: f64 = 10.0;

/// The motions under test: (duration, speed, delay, delay type, loop type).
const CASES: [(f32, f32, f32, DelayType, LoopType); 6] = [
    // The motion: 0.7 s, infinite Restart, Linear, speed 1.3.
    (0.7, 1.3, 0.0, DelayType::FirstLoop, LoopType::Restart),
    (0.7, 1.3, 0.0, DelayType::FirstLoop, LoopType::Yoyo),
    (0.33, 0.77, 0.21, DelayType::EveryLoop, LoopType::Restart),
    (1.1, 2.9, 0.4, DelayType::FirstLoop, LoopType::Flip),
    (0.7, -1.3, 0.0, DelayType::FirstLoop, LoopType::Restart),
    (0.123, 1.0, 0.0, DelayType::FirstLoop, LoopType::Restart),
];

/// The latest value a bind received.
type Sink = Arc<Mutex<f32>>;

/// Both executors' worlds with the same motions; each bind stores its latest value.
struct Worlds {
    gpu: MotionWorld,
    cpu: MotionWorld,
    handles: Vec<(MotionHandle, MotionHandle)>,
    bound: Vec<(Sink, Sink)>,
    /// Largest GPU error seen against each reference.
    worst_vs_formula: f64,
    worst_vs_cpu: f64,
    samples: u64,
}

impl Worlds {
    fn add(
        &mut self,
        duration: f32,
        speed: f32,
        delay: f32,
        delay_type: DelayType,
        loop_type: LoopType,
    ) {
        let mut pair = Vec::new();
        let mut sinks = Vec::new();
        for world in [&mut self.gpu, &mut self.cpu] {
            let seen = Arc::new(Mutex::new(f32::NAN));
            let sink = Arc::clone(&seen);
            let h = Motion::new(0.0f32, 1.0, duration)
                .ease(Ease::Linear)
                .loops(-1, loop_type)
                .delay_with(delay, delay_type, false)
                .playback_speed(speed)
                .bind(world, move |v| *sink.lock().unwrap() = v)
                .expect("motion");
            pair.push(h);
            sinks.push(seen);
        }
        if speed < 0.0 {
            // Start late enough that ten hours backwards stay in positive time.
            let start = HOURS * 3600.0 * f64::from(-speed) + 77.7;
            self.gpu.set_time(pair[0], start).expect("set_time");
            self.cpu.set_time(pair[1], start).expect("set_time");
        }
        self.handles.push((pair[0], pair[1]));
        self.bound.push((sinks[0].clone(), sinks[1].clone()));
    }

    fn update(&mut self, dt: f64) {
        self.gpu.update(dt).expect("GPU update");
        self.cpu.update(dt).expect("CPU update");
    }

    /// Compares every motion's GPU value with the closed form at the f64 clock and with the
    /// CPU world.
    fn check(&mut self, when: &str) {
        for (i, (&(hg, hc), (sg, sc))) in self.handles.iter().zip(&self.bound).enumerate() {
            let gpu = f64::from(*sg.lock().unwrap());
            let cpu = f64::from(*sc.lock().unwrap());
            let time = self.cpu.time(hc).expect("live");
            assert!(
                (time - self.gpu.time(hg).expect("live")).abs() < 1e-9,
                "{when}: the worlds' clocks differ"
            );
            let want = closed_form(i, time);
            let (e_formula, e_cpu) = ((gpu - want).abs(), (gpu - cpu).abs());
            assert!(
                e_formula <= 1e-4 && e_cpu <= 1e-4,
                "{when}: motion {i} at T = {time}: GPU {gpu}, CPU {cpu}, f64 closed form {want}"
            );
            self.worst_vs_formula = self.worst_vs_formula.max(e_formula);
            self.worst_vs_cpu = self.worst_vs_cpu.max(e_cpu);
            self.samples += 1;
        }
    }
}

/// The value of motion `i` at clock `time`, in f64 (docs/semantics.md §2, linear ease, from 0
/// to 1, infinite loops). The steps below are chosen so that no sample falls within
/// rounding of a loop boundary, where either side would be right.
fn closed_form(i: usize, time: f64) -> f64 {
    let (duration, _, delay, delay_type, loop_type) = CASES[i % CASES.len()];
    let (duration, delay) = (f64::from(duration), f64::from(delay));
    let (k, t) = match delay_type {
        DelayType::FirstLoop => {
            let since = time - delay;
            if since < 0.0 {
                (0.0, 0.0)
            } else {
                let k = (since / duration).floor();
                (k, (since - k * duration) / duration)
            }
        }
        DelayType::EveryLoop => {
            let period = duration + delay;
            let c = time.max(0.0);
            let k = (c / period).floor();
            (k, ((c - k * period - delay) / duration).clamp(0.0, 1.0))
        }
    };
    let odd = (k as u64) % 2 == 1;
    match loop_type {
        LoopType::Restart => t,
        LoopType::Flip if odd => 1.0 - t,
        LoopType::Yoyo if odd => 1.0 - t,
        _ => t,
    }
}

#[test]
fn ten_hours_of_loops_match_the_f64_reference() {
    let Some(ctx) = common::gpu() else { return };
    let mut gpu = MotionWorld::with_gpu(ctx).expect("GPU world");
    gpu.set_executor(Executor::Gpu).expect("GPU executor");
    let mut worlds = Worlds {
        gpu,
        cpu: MotionWorld::new(),
        handles: Vec::new(),
        bound: Vec::new(),
        worst_vs_formula: 0.0,
        worst_vs_cpu: 0.0,
        samples: 0,
    };
    for (duration, speed, delay, delay_type, loop_type) in CASES {
        worlds.add(duration, speed, delay, delay_type, loop_type);
    }

    // Large steps: 10 hours, about 1.25 s at a time (no rational relation to any loop, so no
    // sample lands on a boundary), sampled often.
    let big = 1.25 + std::f64::consts::SQRT_2 * 1e-3;
    let steps = (HOURS * 3600.0 / big) as u64;
    for step in 1..=steps {
        worlds.update(big);
        if step % 97 == 0 {
            worlds.check(&format!("large step {step}"));
        }
    }
    worlds.check("after 10 hours of large steps");
    // Small steps for a while (every frame checked).
    for frame in 0..1200 {
        worlds.update(1.0 / 60.0);
        worlds.check(&format!("small step {frame}"));
    }
    // A motion started after hours (anchored at a large world time) is as precise.
    worlds.add(0.7, 1.3, 0.0, DelayType::FirstLoop, LoopType::Restart);
    for frame in 0..300 {
        worlds.update(1.0 / 60.0);
        worlds.check(&format!("late motion, frame {frame}"));
    }
    assert_eq!(worlds.gpu.take_gpu_error(), None);
    assert_eq!(worlds.gpu.active_executor(), Executor::Gpu);
    println!(
        "world time {:.1} s, {} samples: worst GPU error {:.2e} vs the f64 closed form, {:.2e} vs the CPU executor",
        worlds.cpu.world_time(wgpu_tween::TimeKind::Scaled),
        worlds.samples,
        worlds.worst_vs_formula,
        worlds.worst_vs_cpu
    );
}
