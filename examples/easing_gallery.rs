//! One PNG with a small plot per ease: the 31 standard eases, parametric ones
//! (`ParametricEase` via `Motion::ease_with`), animation curves (`Motion::ease_curve`), a
//! punch and a shake. In each plot the CPU
//! executor's samples are a blue line and the GPU executor's are red dots (no dots, with a
//! note, when there is no GPU adapter), so parity is visible at a glance. Each plot carries
//! its ease's name (top left); stdout lists them with the max |CPU − GPU|.
//!
//! ```sh
//! cargo run --release --example easing_gallery -- --out gallery.png
//! ```
//!
//! `tests/examples.rs` includes this file to check the two executors' samples against the
//! conformance tolerances.

use std::sync::{Arc, Mutex};

use image::{Rgba, RgbaImage};
// The benchmark plot's 5×7 pixel font (no font files, no font dependency).
#[allow(dead_code)]
#[path = "../bench/src/font.rs"]
pub mod font;
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{
    AnimationCurve, Ease, EaseMode, Executor, Keyframe, Motion, MotionWorld, ParametricEase,
};

/// Sample points per curve (x = i / (SAMPLES − 1)).
pub const SAMPLES: usize = 201;

/// What one plot shows.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// A standard ease, 0 → 1.
    Ease(Ease),
    /// A parametric ease, 0 → 1.
    Parametric(ParametricEase),
    /// Animation curve number `n` of [`curve`], as an ease, 0 → 1.
    Curve(usize),
    /// `Motion::punch(0, strength, 1)` with frequency and damping ratio.
    Punch(f32, f32, f32),
    /// `Motion::shake(0, strength, 1)` with frequency, damping ratio, seed 7.
    Shake(f32, f32, f32),
}

impl Kind {
    /// The conformance tolerance for one sample: 1e-5 for eases, 1e-4·max(1, |strength|)
    /// for punch and shake.
    pub fn tolerance(self) -> f32 {
        match self {
            Kind::Ease(_) | Kind::Parametric(_) => 1e-5,
            Kind::Curve(_) => 1e-4, // curves.json's tolerance
            Kind::Punch(s, ..) | Kind::Shake(s, ..) => 1e-4 * s.abs().max(1.0),
        }
    }

    /// The plot's label, short enough for its cell (the pixel font is upper case).
    pub fn label(self) -> String {
        let mode = |m: EaseMode| match m {
            EaseMode::In => "IN",
            EaseMode::Out => "OUT",
            EaseMode::InOut => "IN OUT",
        };
        match self {
            // `InOutSine` as `IN OUT SINE`.
            Kind::Ease(e) => {
                let mut words = String::new();
                for c in e.to_string().chars() {
                    if c.is_ascii_uppercase() && !words.is_empty() {
                        words.push(' ');
                    }
                    words.push(c.to_ascii_uppercase());
                }
                words
            }
            Kind::Parametric(ParametricEase::Back { mode: m, overshoot }) => {
                format!("BACK {} ({overshoot})", mode(m))
            }
            Kind::Parametric(ParametricEase::Elastic {
                mode: m,
                amplitude,
                period,
            }) => format!("ELASTIC {} ({amplitude}, {period})", mode(m)),
            Kind::Parametric(ParametricEase::Steps(n)) => format!("STEPS ({n})"),
            Kind::Parametric(ParametricEase::CubicBezier(a, b, c, d)) => {
                format!("BEZIER ({a},{b},{c},{d})")
            }
            Kind::Curve(n) => format!("ANIMATION CURVE {n}"),
            Kind::Punch(s, f, d) => format!("PUNCH ({s}, {f}, {d})"),
            Kind::Shake(s, f, d) => format!("SHAKE ({s}, {f}, {d})"),
        }
    }

    /// A short description.
    pub fn name(self) -> String {
        match self {
            Kind::Ease(e) => e.to_string(),
            Kind::Parametric(p) => format!("{p:?}"),
            Kind::Curve(n) => format!("animation curve {n}"),
            Kind::Punch(s, f, d) => format!("punch(strength {s}, frequency {f}, damping {d})"),
            Kind::Shake(s, f, d) => format!("shake(strength {s}, frequency {f}, damping {d})"),
        }
    }
}

/// Every plot of the gallery, in order.
pub fn kinds() -> Vec<Kind> {
    let mut out: Vec<Kind> = Ease::ALL.into_iter().map(Kind::Ease).collect();
    for mode in [EaseMode::In, EaseMode::Out, EaseMode::InOut] {
        out.push(Kind::Parametric(ParametricEase::Back {
            mode,
            overshoot: 3.0,
        }));
    }
    for mode in [EaseMode::In, EaseMode::Out, EaseMode::InOut] {
        out.push(Kind::Parametric(ParametricEase::Elastic {
            mode,
            amplitude: 1.5,
            period: 0.45,
        }));
    }
    out.push(Kind::Parametric(ParametricEase::Steps(5)));
    out.push(Kind::Parametric(ParametricEase::CubicBezier(
        0.25, 0.1, 0.25, 1.0,
    )));
    out.push(Kind::Parametric(ParametricEase::CubicBezier(
        0.68, -0.6, 0.32, 1.6,
    )));
    out.extend((0..CURVES).map(Kind::Curve));
    out.push(Kind::Punch(1.0, 10.0, 1.0));
    out.push(Kind::Punch(2.0, 4.0, 0.3));
    out.push(Kind::Shake(1.0, 10.0, 1.0));
    out
}

/// Number of animation curves in the gallery.
pub const CURVES: usize = 2;

/// Gallery curve `n`: 0 overshoots with steep tangents (cubic Hermite segments), 1 has a
/// weighted middle key and a step (an infinite tangent) near the end.
pub fn curve(n: usize) -> AnimationCurve {
    let keys = match n {
        0 => vec![
            Keyframe::with_tangents(0.0, 0.0, 0.0, 4.0),
            Keyframe::with_tangents(0.6, 1.2, 0.0, 0.0),
            Keyframe::with_tangents(1.0, 1.0, 0.0, 0.0),
        ],
        _ => vec![
            Keyframe::new(0.0, 0.0),
            Keyframe::with_tangents(0.5, 0.4, 2.0, 2.0).weights(0.8, 0.1),
            Keyframe::with_tangents(0.8, 0.7, 0.0, f32::INFINITY),
            Keyframe::new(1.0, 1.0),
        ],
    };
    AnimationCurve::new(keys).expect("a valid gallery curve")
}

/// Samples every kind at `SAMPLES` points in one `update(0.0)` of `world`: one frozen
/// motion (speed 0) per point, its clock set with `set_time`, its value read by a bind.
pub fn sample(world: &mut MotionWorld, kinds: &[Kind]) -> Vec<Vec<f32>> {
    let mut probes = Vec::with_capacity(kinds.len());
    for &kind in kinds {
        let mut cells = Vec::with_capacity(SAMPLES);
        for i in 0..SAMPLES {
            let x = i as f64 / (SAMPLES - 1) as f64;
            let seen = Arc::new(Mutex::new(f32::NAN));
            let sink = Arc::clone(&seen);
            let motion = match kind {
                Kind::Ease(e) => Motion::new(0.0f32, 1.0, 1.0).ease(e),
                Kind::Parametric(p) => Motion::new(0.0f32, 1.0, 1.0).ease_with(p),
                Kind::Curve(n) => Motion::new(0.0f32, 1.0, 1.0).ease_curve(&curve(n)),
                Kind::Punch(s, f, d) => Motion::punch(0.0f32, s, 1.0).frequency(f).damping_ratio(d),
                Kind::Shake(s, f, d) => Motion::shake(0.0f32, s, 1.0)
                    .frequency(f)
                    .damping_ratio(d)
                    .seed(7),
            };
            let h = motion
                .playback_speed(0.0)
                .immediate_bind(false)
                .bind(world, move |v| *sink.lock().unwrap() = v)
                .expect("a valid motion");
            world.set_time(h, x).expect("set_time");
            cells.push(seen);
        }
        probes.push(cells);
    }
    world.update(0.0).expect("update");
    let out = probes
        .iter()
        .map(|cells| cells.iter().map(|c| *c.lock().unwrap()).collect())
        .collect();
    world.clear();
    out
}

/// A world on `ctx` that uses the GPU executor (even on a software adapter).
pub fn gpu_world(ctx: GpuContext) -> MotionWorld {
    let mut world = MotionWorld::with_gpu(ctx).expect("a GPU world");
    world.set_executor(Executor::Gpu).expect("the GPU executor");
    world
}

/// The largest |a − b| (NaN when either side has a NaN).
pub fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, |m, d| {
            if d.is_nan() || m.is_nan() {
                f32::NAN
            } else {
                m.max(d)
            }
        })
}

/// A plot's width in pixels.
pub const CELL_W: u32 = 180;
const CELL_H: u32 = 130;
const COLUMNS: u32 = 7;
const MARGIN: i32 = 10;
const WHITE: Rgba<u8> = Rgba([255, 255, 255, 255]);
const FRAME: Rgba<u8> = Rgba([200, 200, 200, 255]);
const GUIDE: Rgba<u8> = Rgba([225, 225, 225, 255]);
const LINE: Rgba<u8> = Rgba([30, 90, 200, 255]);
const DOT: Rgba<u8> = Rgba([220, 40, 40, 255]);
const TEXT: Rgba<u8> = Rgba([60, 60, 60, 255]);

fn put(img: &mut RgbaImage, x: i32, y: i32, c: Rgba<u8>) {
    if x >= 0 && y >= 0 && (x as u32) < img.width() && (y as u32) < img.height() {
        img.put_pixel(x as u32, y as u32, c);
    }
}

/// A line by Bresenham's algorithm.
fn line(img: &mut RgbaImage, (mut x0, mut y0): (i32, i32), (x1, y1): (i32, i32), c: Rgba<u8>) {
    let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
    let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
    let mut err = dx + dy;
    loop {
        put(img, x0, y0, c);
        if x0 == x1 && y0 == y1 {
            break;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x0 += sx;
        }
        if e2 <= dx {
            err += dx;
            y0 += sy;
        }
    }
}

/// `text` in the pixel font, one pixel per font pixel, with its top left at (x, y).
fn label(img: &mut RgbaImage, text: &str, x: i32, y: i32) {
    font::for_each_pixel(text, |px, py| put(img, x + px, y + py, TEXT));
}

/// Draws the gallery: one cell per curve, labelled with its kind, the CPU samples as a line,
/// the GPU ones as dots.
pub fn draw(kinds: &[Kind], cpu: &[Vec<f32>], gpu: Option<&[Vec<f32>]>) -> RgbaImage {
    let rows = (cpu.len() as u32).div_ceil(COLUMNS);
    let mut img = RgbaImage::from_pixel(COLUMNS * CELL_W, rows * CELL_H, WHITE);
    for (k, curve) in cpu.iter().enumerate() {
        let (cx, cy) = (
            (k as u32 % COLUMNS * CELL_W) as i32,
            (k as u32 / COLUMNS * CELL_H) as i32,
        );
        // Frame.
        let (w, h) = (CELL_W as i32 - 1, CELL_H as i32 - 1);
        line(&mut img, (cx, cy), (cx + w, cy), FRAME);
        line(&mut img, (cx, cy + h), (cx + w, cy + h), FRAME);
        line(&mut img, (cx, cy), (cx, cy + h), FRAME);
        line(&mut img, (cx + w, cy), (cx + w, cy + h), FRAME);
        if let Some(kind) = kinds.get(k) {
            label(&mut img, &kind.label(), cx + 4, cy + 4);
        }
        // The y range: [0, 1] widened to the curve (and the GPU samples), with a margin.
        let all = curve
            .iter()
            .chain(gpu.map(|g| g[k].as_slice()).unwrap_or(&[]))
            .filter(|v| v.is_finite());
        let (lo, hi) = all.fold((0.0f32, 1.0f32), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let (left, right) = (cx + MARGIN, cx + w - MARGIN);
        let (top, bottom) = (cy + MARGIN + 8, cy + h - MARGIN);
        let px = |i: usize| left + ((right - left) as f32 * i as f32 / (SAMPLES - 1) as f32) as i32;
        let py = |v: f32| bottom - ((bottom - top) as f32 * (v - lo) / (hi - lo)).round() as i32;
        // Guides at y = 0 and y = 1.
        for v in [0.0, 1.0] {
            line(&mut img, (left, py(v)), (right, py(v)), GUIDE);
        }
        for i in 1..SAMPLES {
            if curve[i - 1].is_finite() && curve[i].is_finite() {
                line(
                    &mut img,
                    (px(i - 1), py(curve[i - 1])),
                    (px(i), py(curve[i])),
                    LINE,
                );
            }
        }
        if let Some(gpu) = gpu {
            for i in (0..SAMPLES).step_by(5) {
                let v = gpu[k][i];
                if v.is_finite() {
                    for (ox, oy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (0, 0), (1, 0)] {
                        put(&mut img, px(i) + ox, py(v) + oy, DOT);
                    }
                    for (ox, oy) in [(-1, 1), (0, 1), (1, 1)] {
                        put(&mut img, px(i) + ox, py(v) + oy, DOT);
                    }
                }
            }
        }
    }
    img
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut out = String::from("gallery.png");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => out = args.next().ok_or("--out needs a path")?,
            "-h" | "--help" => {
                println!("usage: easing_gallery [--out PATH]   (default gallery.png)");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?}").into()),
        }
    }
    let kinds = kinds();
    let cpu = sample(&mut MotionWorld::new(), &kinds);
    let gpu = match GpuContext::new() {
        Ok(ctx) => {
            let info = ctx.adapter_info();
            println!("GPU executor on {} ({:?})", info.name, info.device_type);
            Some(sample(&mut gpu_world(ctx), &kinds))
        }
        Err(why) => {
            println!("no GPU adapter ({why}): plotting the CPU executor only, no dots");
            None
        }
    };
    println!("{:>3}  {:<70} {:>12}", "#", "curve", "max|cpu-gpu|");
    for (k, kind) in kinds.iter().enumerate() {
        let diff = gpu.as_ref().map_or("-".to_owned(), |g| {
            format!("{:.3e}", max_diff(&cpu[k], &g[k]))
        });
        println!("{k:>3}  {:<70} {diff:>12}", kind.name());
    }
    draw(&kinds, &cpu, gpu.as_deref()).save(&out)?;
    println!("wrote {out}");
    Ok(())
}
