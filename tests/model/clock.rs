//! A model test of the clock at arbitrary (non-dyadic) and long world times, the operations
//! that found issue 16's items 1, 2 and 4: zero-duration motions created at any world time,
//! pause and resume (speed 0, then back) at any time, `set_time` near and past the time
//! limit, creation after long runs, huge world-time jumps.
//!
//! `tests/model.rs` keeps times dyadic so that every discrete outcome is exact; here times
//! are arbitrary, so the reference (§1: `T += dt · speed` in f64, per motion) is compared
//! within the anchor grid's resolution (`2^-40` of the larger of the clock and the world
//! time), and discrete outcomes only where they cannot hang on rounding: a zero-duration
//! motion completes, once, at the first update that moves its clock forward; a one-loop
//! motion whose clock is clearly past its end has completed once and is gone, one clearly
//! before it is live; a paused clock does not move; every value is finite.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::{Exec, Rng};
use wgpu_tween::{LoopType, Motion, MotionError, MotionHandle, MotionWorld, TimeKind, MAX_TIME};

struct Reference {
    h: MotionHandle,
    /// 0 for a zero-duration motion.
    duration: f64,
    infinite: bool,
    speed: f64,
    t: f64,
    completes: Arc<AtomicUsize>,
}

struct Case {
    world: MotionWorld,
    motions: Vec<Reference>,
    w: f64,
    ops: usize,
}

impl Case {
    fn tolerance(&self, t: f64) -> f64 {
        2f64.powi(-40) * t.abs().max(self.w).max(1.0)
    }

    fn create(&mut self, rng: &mut Rng) {
        let completes = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&completes);
        let zero = rng.chance(0.4);
        let duration = if zero { 0.0 } else { rng.range(0.05, 3.0) };
        let infinite = !zero && rng.chance(0.3);
        let speed = *[1.0f32, 1.0, 0.5, 2.0, 0.0].get(rng.below(5)).unwrap();
        let h = Motion::new(0.0f32, 100.0, duration as f32)
            .loops(if infinite { -1 } else { 1 }, LoopType::Restart)
            .playback_speed(speed)
            .on_complete(move || {
                c.fetch_add(1, Ordering::SeqCst);
            })
            .run(&mut self.world)
            .unwrap();
        assert_eq!(
            self.world.time(h),
            Ok(0.0),
            "clock at creation, W = {}",
            self.w
        );
        self.motions.push(Reference {
            h,
            duration: f64::from(duration as f32),
            infinite,
            speed: f64::from(speed),
            t: 0.0,
            completes,
        });
    }

    fn update(&mut self, dt: f64) {
        self.world.update(dt).unwrap();
        self.w += dt;
        for m in &mut self.motions {
            m.t += dt * m.speed;
        }
    }

    fn pick(&mut self, rng: &mut Rng) -> Option<usize> {
        (!self.motions.is_empty()).then(|| rng.below(self.motions.len()))
    }

    fn step(&mut self, rng: &mut Rng) {
        self.ops += 1;
        match rng.below(12) {
            0..=2 => self.create(rng),
            3..=5 => self.update(if rng.chance(0.1) {
                0.0
            } else {
                rng.range(0.0, 0.2)
            }),
            6 => {
                // A long jump: seconds to months (created motions then start late).
                let dt = 10f64.powf(rng.range(0.0, 7.0));
                self.update(dt);
            }
            7 => {
                if let Some(i) = self.pick(rng) {
                    // Pause.
                    let h = self.motions[i].h;
                    self.world.set_playback_speed(h, 0.0).unwrap();
                    self.motions[i].speed = 0.0;
                }
            }
            8 => {
                if let Some(i) = self.pick(rng) {
                    // Resume (or re-speed) at any time.
                    let s = *[1.0f32, 0.5, 2.0, 3.0].get(rng.below(4)).unwrap();
                    let h = self.motions[i].h;
                    self.world.set_playback_speed(h, s).unwrap();
                    self.motions[i].speed = f64::from(s);
                }
            }
            9 => {
                if let Some(i) = self.pick(rng) {
                    self.set_time(i, rng);
                }
            }
            10 => {
                if let Some(i) = self.pick(rng) {
                    let m = self.motions.swap_remove(i);
                    self.world.cancel(m.h).unwrap();
                }
            }
            _ => {
                // A frozen clock stays put however far the world moves.
                if let Some(i) = self.pick(rng) {
                    let h = self.motions[i].h;
                    self.world.set_playback_speed(h, 0.0).unwrap();
                    self.motions[i].speed = 0.0;
                    let before = self.world.time(h).unwrap();
                    self.update(rng.range(0.0, 1e4));
                    if self.world.is_active(h) {
                        assert_eq!(self.world.time(h), Ok(before), "paused clock moved");
                    }
                }
            }
        }
        self.check();
    }

    fn set_time(&mut self, i: usize, rng: &mut Rng) {
        let h = self.motions[i].h;
        let beyond = [MAX_TIME * 1.5, -MAX_TIME * 4.0, 3.4e38, -3.4e38, 1e300];
        if rng.chance(0.3) {
            let t = beyond[rng.below(beyond.len())];
            let before = self.world.time(h).unwrap();
            assert!(
                matches!(
                    self.world.set_time(h, t),
                    Err(MotionError::OutOfRange { .. })
                ),
                "set_time {t}"
            );
            assert_eq!(
                self.world.time(h),
                Ok(before),
                "refused set_time changed the clock"
            );
            return;
        }
        let t = if rng.chance(0.2) && self.motions[i].infinite {
            // Near the limit (an infinite motion keeps running there).
            MAX_TIME * rng.range(0.01, 0.2)
        } else {
            rng.range(-1.0, 4.0)
        };
        let speed = self.motions[i].speed;
        let anchor = if speed == 0.0 { t } else { self.w - t / speed };
        let got = self.world.set_time(h, t);
        if anchor.abs() > MAX_TIME {
            assert!(
                matches!(got, Err(MotionError::OutOfRange { .. })),
                "{got:?}"
            );
        } else {
            got.unwrap();
            self.motions[i].t = t;
        }
    }

    fn check(&mut self) {
        let mut i = 0;
        while i < self.motions.len() {
            let m = &self.motions[i];
            let tol = self.tolerance(m.t);
            let count = m.completes.load(Ordering::SeqCst);
            let live = self.world.is_active(m.h);
            let finished = !m.infinite
                && if m.duration == 0.0 {
                    m.t > 0.0
                } else {
                    m.t > m.duration + tol
                };
            let running = m.infinite || m.t < m.duration - tol;
            if finished {
                assert!(
                    !live && count == 1,
                    "op {}: motion {:?} (D = {}) at T = {} should have completed once: live \
                     {live}, {count} completes, W = {}",
                    self.ops,
                    m.h,
                    m.duration,
                    m.t,
                    self.w
                );
                self.motions.swap_remove(i);
                continue;
            }
            if running {
                assert!(
                    live && count == 0,
                    "op {}: {:?} at T = {} ended",
                    self.ops,
                    m.h,
                    m.t
                );
            }
            if !live {
                // Completed within rounding of its end.
                assert_eq!(
                    count, 1,
                    "op {}: {:?} ended without completing",
                    self.ops, m.h
                );
                self.motions.swap_remove(i);
                continue;
            }
            let time = self.world.time(m.h).unwrap();
            assert!(
                (time - m.t).abs() <= tol,
                "op {}: clock of {:?}: world {time}, reference {}, W = {}",
                self.ops,
                m.h,
                m.t,
                self.w
            );
            let v = self.world.value::<f32>(m.h).unwrap();
            assert!(v.is_finite(), "op {}: value {v}", self.ops);
            i += 1;
        }
        assert_eq!(self.world.len(), self.motions.len(), "op {}: len", self.ops);
    }
}

fn run(exec: &Exec, cases: u64, ops: usize) -> usize {
    let mut total = 0;
    for seed in 0..cases {
        let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) ^ 0x5eed);
        let mut case = Case {
            world: exec.world(),
            motions: Vec::new(),
            w: 0.0,
            ops: 0,
        };
        // Start anywhere: a tidy 0, or an untidy time such as 0.1 or 12345.678.
        if seed % 2 == 1 {
            case.update(rng.range(0.0, 20_000.0));
        }
        for _ in 0..ops {
            case.step(&mut rng);
            if case.motions.len() > 40 {
                case.world.clear();
                case.motions.clear();
            }
        }
        let w = case.world.world_time(TimeKind::Scaled);
        assert!(
            (w - case.w).abs() <= case.w * 2f64.powi(-47),
            "world time {w}: the exact sum {}, to the grid",
            case.w
        );
        total += case.ops;
    }
    total
}

#[test]
fn model_clock_cpu() {
    // 400 cases × 300 operations = 120 000 operations.
    let ops = run(&Exec::Cpu, 400, 300);
    assert!(ops >= 100_000);
}

#[test]
fn model_clock_gpu() {
    for exec in common::executors() {
        if matches!(exec, Exec::Gpu(_)) {
            run(&exec, 10, 200);
        }
    }
}
