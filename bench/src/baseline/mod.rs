//! The benchmark floor: a hand-written loop that does, for one configuration only, the job
//! the engine does for every motion in an update.
//!
//! The configuration is an `f32` from `from` to `to` over `duration` seconds, eased with
//! [`Ease::OutQuad`](wgpu_tween::Ease::OutQuad) (`1 − (1 − t)²`), looping forever with
//! [`LoopType::Restart`](wgpu_tween::LoopType::Restart). Each motion keeps its own clock in a plain
//! struct-of-arrays; a step advances every clock by `dt`, wraps it into the loop, eases and
//! lerps. No handles, no callbacks, no other eases or loop types, no delays, no speeds: what
//! a competent programmer would write by hand for exactly this case, single-threaded. The
//! engine's cost per motion divided by this loop's is the price of its generality.
//!
//! ```
//! use wgpu_tween_bench::baseline::BaselineLoop;
//!
//! let mut floor = BaselineLoop::new(1000);
//! floor.step(0.5); // 0.5 s of a 2 s loop: t = 0.25, OutQuad = 0.4375, 0 → 10 gives 4.375
//! assert_eq!(floor.outputs()[0], 4.375);
//! ```
//!
//! The GPU executor's floor is [`GpuLerpFloor`]: a trivial lerp kernel on the same adapter.

mod gpu;
pub use gpu::GpuLerpFloor;

/// Duration of one loop in the [`BaselineLoop::new`] configuration, seconds.
pub const DURATION: f32 = 2.0;
/// Start value in the [`BaselineLoop::new`] configuration.
pub const FROM: f32 = 0.0;
/// End value in the [`BaselineLoop::new`] configuration.
pub const TO: f32 = 10.0;

/// `n` looping OutQuad `f32` motions as plain columns (struct of `Vec`s).
#[derive(Clone, Debug, Default)]
pub struct BaselineLoop {
    /// Clock of each motion within its current loop, `[0, duration)`.
    time: Vec<f32>,
    /// Loop duration per motion, seconds (> 0).
    duration: Vec<f32>,
    /// Start value per motion.
    from: Vec<f32>,
    /// End value per motion.
    to: Vec<f32>,
    /// Value per motion after the last step.
    out: Vec<f32>,
    /// Shortest duration of all motions: a step shorter than this wraps each clock at most
    /// once, so the common case needs one compare-and-subtract instead of a division.
    min_duration: f32,
}

impl BaselineLoop {
    /// `n` motions from [`FROM`] to [`TO`] over [`DURATION`] seconds, all at clock 0 (the
    /// same configuration as `Motion::new(0.0f32, 10.0, 2.0).ease(Ease::OutQuad)
    /// .loops(-1, LoopType::Restart)`).
    #[must_use]
    pub fn new(n: usize) -> Self {
        Self::with_config(n, FROM, TO, DURATION)
    }

    /// `n` motions from `from` to `to` over `duration` seconds (> 0), all at clock 0.
    ///
    /// # Panics
    /// If `duration` is not a positive finite number.
    #[must_use]
    pub fn with_config(n: usize, from: f32, to: f32, duration: f32) -> Self {
        assert!(
            duration.is_finite() && duration > 0.0,
            "baseline duration must be positive, got {duration}"
        );
        Self {
            time: vec![0.0; n],
            duration: vec![duration; n],
            from: vec![from; n],
            to: vec![to; n],
            out: vec![from; n],
            min_duration: duration,
        }
    }

    /// `n` motions over `duration` seconds (> 0), each with its own configuration:
    /// `motion(i)` gives motion `i`'s start value, end value and starting clock (wrapped into
    /// the loop). The peer benchmark's workload: `0 → i`, clocks staggered over a loop.
    ///
    /// # Panics
    /// If `duration` is not a positive finite number.
    #[must_use]
    pub fn with_each(n: usize, duration: f32, motion: impl Fn(usize) -> (f32, f32, f32)) -> Self {
        let mut floor = Self::with_config(n, 0.0, 0.0, duration);
        for i in 0..n {
            let (from, to, clock) = motion(i);
            floor.from[i] = from;
            floor.to[i] = to;
            floor.out[i] = from;
            floor.time[i] = clock.rem_euclid(duration);
        }
        floor
    }

    /// Number of motions.
    #[must_use]
    pub fn len(&self) -> usize {
        self.out.len()
    }

    /// Whether there are no motions.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.out.is_empty()
    }

    /// Advances every clock by `dt` seconds (≥ 0), wraps it into the loop and writes the
    /// eased, interpolated value of every motion to [`outputs`](Self::outputs).
    pub fn step(&mut self, dt: f32) {
        let n = self.out.len();
        // Equal lengths up front let the compiler drop the bounds checks and vectorise.
        let time = &mut self.time[..n];
        let duration = &self.duration[..n];
        let from = &self.from[..n];
        let to = &self.to[..n];
        let out = &mut self.out[..n];
        if dt < self.min_duration {
            // Hot path: a clock wraps at most once per step.
            for i in 0..n {
                let d = duration[i];
                let advanced = time[i] + dt;
                let t = if advanced >= d {
                    advanced - d
                } else {
                    advanced
                };
                time[i] = t;
                let x = t / d;
                let inv = 1.0 - x;
                let eased = 1.0 - inv * inv;
                out[i] = from[i] + (to[i] - from[i]) * eased;
            }
        } else {
            // A step longer than a loop: wrap with a remainder.
            for i in 0..n {
                let d = duration[i];
                let t = (time[i] + dt) % d;
                time[i] = t;
                let x = t / d;
                let inv = 1.0 - x;
                let eased = 1.0 - inv * inv;
                out[i] = from[i] + (to[i] - from[i]) * eased;
            }
        }
    }

    /// The value of every motion after the last step (the start value before any).
    #[must_use]
    pub fn outputs(&self) -> &[f32] {
        &self.out
    }

    /// Bytes of memory per motion: five `f32` columns (clock, duration, from, to, output).
    #[must_use]
    pub const fn bytes_per_motion() -> usize {
        5 * std::mem::size_of::<f32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_value_half_a_second_in() {
        // 0.5 s of a 2 s motion from 0 to 10: t = 0.25, OutQuad = 1 − 0.75² = 0.4375 → 4.375.
        let mut floor = BaselineLoop::new(3);
        floor.step(0.5);
        assert_eq!(floor.outputs(), [4.375; 3]);
    }

    #[test]
    fn restarts_after_each_loop() {
        let mut floor = BaselineLoop::new(2);
        for _ in 0..5 {
            floor.step(0.5); // 2.5 s in total: 0.5 s into the second loop
        }
        assert!((floor.outputs()[0] - 4.375).abs() < 1e-5);
        // A step longer than a loop wraps with a remainder: 2.5 + 4.25 = 6.75 → 0.75 s in.
        floor.step(4.25);
        let x: f32 = 0.75 / 2.0;
        let expected = 10.0 * (1.0 - (1.0 - x) * (1.0 - x));
        assert!((floor.outputs()[1] - expected).abs() < 1e-5);
    }

    #[test]
    fn matches_the_engine() {
        use wgpu_tween::{Ease, LoopType, Motion, MotionWorld};
        let mut world = MotionWorld::new();
        let h = Motion::new(FROM, TO, DURATION)
            .ease(Ease::OutQuad)
            .loops(-1, LoopType::Restart)
            .run(&mut world)
            .unwrap();
        let mut floor = BaselineLoop::new(1);
        for _ in 0..300 {
            world.update(1.0 / 64.0).unwrap();
            floor.step(1.0 / 64.0);
            let engine: f32 = world.value(h).unwrap();
            assert!((engine - floor.outputs()[0]).abs() < 1e-3);
        }
    }

    #[test]
    fn bytes_per_motion_is_five_floats() {
        assert_eq!(BaselineLoop::bytes_per_motion(), 20);
    }
}
