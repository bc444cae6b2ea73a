//! The reference model's arithmetic, written straight from docs/semantics.md §2–§3 in f64, with no
//! code from the library: eases by the easings.net formulas, progress by the §2 pseudo-code
//! (division and `fmod`, not the library's reciprocals).

use wgpu_tween::{DelayType, Ease, LoopType, MotionStatus};

/// The timing settings of a motion.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub duration: f64,
    pub delay: f64,
    pub delay_type: DelayType,
    pub loops: i32,
    pub loop_type: LoopType,
    pub ease: Ease,
}

/// A motion evaluated at one clock value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eval {
    pub status: MotionStatus,
    pub completed_loops: u32,
    pub p: f64,
}

impl Eval {
    pub fn completed(&self) -> bool {
        self.status == MotionStatus::Completed
    }
}

impl Timing {
    /// `d·(EveryLoop ? L : 1) + D·L` (finite loops only).
    pub fn total(&self) -> f64 {
        let l = f64::from(self.loops);
        let delays = match self.delay_type {
            DelayType::EveryLoop => self.delay * l,
            DelayType::FirstLoop => self.delay,
        };
        delays + self.duration * l
    }

    /// docs/semantics.md §2 at clock `t`. `above` means "infinitesimally above `t`": where `complete`
    /// put the clock at the total duration of a zero-duration motion, which §2's strict
    /// `tss > 0` would otherwise not count as completed (§7 says it is).
    pub fn eval(&self, t: f64, above: bool) -> Eval {
        let d = self.delay;
        let dur = self.duration;
        let l = self.loops;
        let lf = f64::from(l);
        let infinite = l < 0;
        let clamp_l = |c: f64| {
            if infinite {
                c.max(0.0)
            } else {
                c.clamp(0.0, lf)
            }
        };
        let tc = t.max(0.0);
        let tss = t - d;
        let (c, completed, delayed, lin);
        if dur <= 0.0 {
            if self.delay_type == DelayType::FirstLoop || d == 0.0 {
                completed = !infinite && (tss > 0.0 || (tss == 0.0 && above));
                lin = if completed { 1.0 } else { 0.0 };
                c = if completed {
                    lf
                } else if tss < 0.0 {
                    -1.0
                } else {
                    0.0
                };
                delayed = tss < 0.0;
            } else {
                c = (tc / d).floor();
                completed = !infinite && clamp_l(c) >= lf;
                delayed = !completed;
                lin = if completed { 1.0 } else { 0.0 };
            }
        } else if self.delay_type == DelayType::FirstLoop {
            c = (tss / dur).floor();
            completed = !infinite && clamp_l(c) >= lf;
            delayed = tss < 0.0;
            lin = if completed {
                1.0
            } else {
                ((tss - dur * clamp_l(c)) / dur).clamp(0.0, 1.0)
            };
        } else {
            let period = dur + d;
            let lt = tc % period - d;
            c = (tc / period).floor();
            completed = !infinite && clamp_l(c) >= lf;
            delayed = lt < 0.0;
            lin = if completed {
                1.0
            } else {
                (lt / dur).clamp(0.0, 1.0)
            };
        }
        let k = clamp_l(c) as u32;
        let int_t = u32::from(lin == 1.0);
        let odd = (k + int_t) % 2 == 1;
        let e = |x: f64| ease(self.ease, x);
        let p = match self.loop_type {
            LoopType::Restart => e(lin),
            LoopType::Flip => {
                if odd {
                    1.0 - e(lin)
                } else {
                    e(lin)
                }
            }
            LoopType::Yoyo => {
                if odd {
                    e(1.0 - lin)
                } else {
                    e(lin)
                }
            }
            LoopType::Incremental => e(1.0) * f64::from(k) + e(lin % 1.0),
        };
        let status = if completed {
            MotionStatus::Completed
        } else if delayed || t < 0.0 {
            MotionStatus::Delayed
        } else {
            MotionStatus::Playing
        };
        Eval {
            status,
            completed_loops: k,
            p,
        }
    }
}

fn out_bounce(x: f64) -> f64 {
    const N1: f64 = 7.5625;
    const D1: f64 = 2.75;
    if x < 1.0 / D1 {
        N1 * x * x
    } else if x < 2.0 / D1 {
        let x = x - 1.5 / D1;
        N1 * x * x + 0.75
    } else if x < 2.5 / D1 {
        let x = x - 2.25 / D1;
        N1 * x * x + 0.9375
    } else {
        let x = x - 2.625 / D1;
        N1 * x * x + 0.984375
    }
}

/// The 31 eases of docs/semantics.md §3 (easings.net), in f64.
pub fn ease(e: Ease, x: f64) -> f64 {
    use std::f64::consts::PI;
    const C1: f64 = 1.70158;
    const C2: f64 = C1 * 1.525;
    const C3: f64 = C1 + 1.0;
    const C4: f64 = 2.0 * PI / 3.0;
    const C5: f64 = 2.0 * PI / 4.5;
    let p2 = |v: f64| v * v;
    match e {
        Ease::Linear => x,
        Ease::InSine => 1.0 - (x * PI / 2.0).cos(),
        Ease::OutSine => (x * PI / 2.0).sin(),
        Ease::InOutSine => -((PI * x).cos() - 1.0) / 2.0,
        Ease::InQuad => x * x,
        Ease::OutQuad => 1.0 - (1.0 - x) * (1.0 - x),
        Ease::InOutQuad => {
            if x < 0.5 {
                2.0 * x * x
            } else {
                1.0 - (-2.0 * x + 2.0).powi(2) / 2.0
            }
        }
        Ease::InCubic => x.powi(3),
        Ease::OutCubic => 1.0 - (1.0 - x).powi(3),
        Ease::InOutCubic => {
            if x < 0.5 {
                4.0 * x.powi(3)
            } else {
                1.0 - (-2.0 * x + 2.0).powi(3) / 2.0
            }
        }
        Ease::InQuart => x.powi(4),
        Ease::OutQuart => 1.0 - (1.0 - x).powi(4),
        Ease::InOutQuart => {
            if x < 0.5 {
                8.0 * x.powi(4)
            } else {
                1.0 - (-2.0 * x + 2.0).powi(4) / 2.0
            }
        }
        Ease::InQuint => x.powi(5),
        Ease::OutQuint => 1.0 - (1.0 - x).powi(5),
        Ease::InOutQuint => {
            if x < 0.5 {
                16.0 * x.powi(5)
            } else {
                1.0 - (-2.0 * x + 2.0).powi(5) / 2.0
            }
        }
        Ease::InExpo => {
            if x == 0.0 {
                0.0
            } else {
                2f64.powf(10.0 * x - 10.0)
            }
        }
        Ease::OutExpo => {
            if x == 1.0 {
                1.0
            } else {
                1.0 - 2f64.powf(-10.0 * x)
            }
        }
        Ease::InOutExpo => {
            if x == 0.0 {
                0.0
            } else if x == 1.0 {
                1.0
            } else if x < 0.5 {
                2f64.powf(20.0 * x - 10.0) / 2.0
            } else {
                (2.0 - 2f64.powf(-20.0 * x + 10.0)) / 2.0
            }
        }
        Ease::InCirc => 1.0 - (1.0 - x * x).max(0.0).sqrt(),
        Ease::OutCirc => (1.0 - p2(x - 1.0)).max(0.0).sqrt(),
        Ease::InOutCirc => {
            if x < 0.5 {
                (1.0 - (1.0 - p2(2.0 * x)).max(0.0).sqrt()) / 2.0
            } else {
                ((1.0 - p2(-2.0 * x + 2.0)).max(0.0).sqrt() + 1.0) / 2.0
            }
        }
        Ease::InElastic => {
            if x == 0.0 || x == 1.0 {
                x
            } else {
                -2f64.powf(10.0 * x - 10.0) * ((x * 10.0 - 10.75) * C4).sin()
            }
        }
        Ease::OutElastic => {
            if x == 0.0 || x == 1.0 {
                x
            } else {
                2f64.powf(-10.0 * x) * ((x * 10.0 - 0.75) * C4).sin() + 1.0
            }
        }
        Ease::InOutElastic => {
            if x == 0.0 || x == 1.0 {
                x
            } else if x < 0.5 {
                -(2f64.powf(20.0 * x - 10.0) * ((20.0 * x - 11.125) * C5).sin()) / 2.0
            } else {
                (2f64.powf(-20.0 * x + 10.0) * ((20.0 * x - 11.125) * C5).sin()) / 2.0 + 1.0
            }
        }
        Ease::InBack => C3 * x.powi(3) - C1 * x * x,
        Ease::OutBack => 1.0 + C3 * (x - 1.0).powi(3) + C1 * (x - 1.0).powi(2),
        Ease::InOutBack => {
            if x < 0.5 {
                (p2(2.0 * x) * ((C2 + 1.0) * 2.0 * x - C2)) / 2.0
            } else {
                (p2(2.0 * x - 2.0) * ((C2 + 1.0) * (x * 2.0 - 2.0) + C2) + 2.0) / 2.0
            }
        }
        Ease::InBounce => 1.0 - out_bounce(1.0 - x),
        Ease::OutBounce => out_bounce(x),
        Ease::InOutBounce => {
            if x < 0.5 {
                (1.0 - out_bounce(1.0 - 2.0 * x)) / 2.0
            } else {
                (1.0 + out_bounce(2.0 * x - 1.0)) / 2.0
            }
        }
    }
}
