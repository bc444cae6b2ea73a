//! A swarm of particles animated by motions that write straight into an instance buffer.
//!
//! Every particle has a position (`Vec3`) and a color (`Color`) motion with its own ease,
//! delay and loop type; both write into one instance buffer registered as a GPU target, so each
//! update writes that buffer on the GPU (no readback, no copy) and one instanced draw renders
//! it. Headless: renders `--frames` frames to PNG files and prints the frame time and the
//! motions evaluated per second.
//!
//! ```sh
//! cargo run --release --example swarm -- --particles 100000 --frames 4 --out swarm-frames
//! ```
//!
//! Options: `--particles N` (default 100000), `--frames N` (4), `--dt SECONDS` between frames
//! (0.5), `--out DIR` (`swarm-frames`), `--size WxH` (1024x768), `--point PIXELS` (2),
//! `--executor gpu|cpu|auto` (gpu; the CPU executor fills the same targets by upload),
//! `--seed N`, and `--window` (cargo feature `window`: winit), which shows the swarm in a
//! window in real time instead (`--frames`, if given, quits after that many frames):
//!
//! ```sh
//! cargo run --release --features window --example swarm -- --window
//! ```
//!
//! The rendering code is `examples/swarm/render.rs`, which `tests/swarm.rs` reuses to check
//! particles' pixels against their motions.

#[allow(dead_code)] // the test uses parts the example does not
#[path = "swarm/render.rs"]
mod render;
#[cfg(feature = "window")]
#[path = "swarm/window.rs"]
mod window;

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use wgpu_tween::gpu::GpuContext;
use wgpu_tween::Executor;

struct Options {
    particles: usize,
    frames: u32,
    dt: f64,
    out: PathBuf,
    size: (u32, u32),
    point: f32,
    executor: Executor,
    seed: u64,
    /// `--window`: show the swarm in a window instead of writing PNG files.
    window: bool,
    /// Whether `--frames` was given (in a window: quit after that many frames).
    frames_given: bool,
}

const USAGE: &str = "usage: swarm [--particles N] [--frames N] [--dt SECONDS] [--out DIR] \
                     [--size WxH] [--point PIXELS] [--executor gpu|cpu|auto] [--seed N] [--window]";

fn parse() -> Result<Options, String> {
    let mut o = Options {
        particles: 100_000,
        frames: 4,
        dt: 0.5,
        out: PathBuf::from("swarm-frames"),
        size: (1024, 768),
        point: 2.0,
        executor: Executor::Gpu,
        seed: 7,
        window: false,
        frames_given: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            println!("{USAGE}");
            std::process::exit(0);
        }
        if arg == "--window" {
            if !cfg!(feature = "window") {
                return Err("--window needs the `window` feature: cargo run --release \
                            --features window --example swarm -- --window"
                    .into());
            }
            o.window = true;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{arg} needs a value"))?;
        let bad = |what: &str| format!("{arg}: {what}, got {value:?}");
        match arg.as_str() {
            "--particles" => {
                o.particles = value
                    .parse()
                    .ok()
                    .filter(|&n| (1..=4_000_000).contains(&n))
                    .ok_or_else(|| bad("a count from 1 to 4000000"))?;
            }
            "--frames" => {
                o.frames = value
                    .parse()
                    .ok()
                    .filter(|&n| (1..=10_000).contains(&n))
                    .ok_or_else(|| bad("a count from 1 to 10000"))?;
                o.frames_given = true;
            }
            "--dt" => {
                o.dt = value
                    .parse()
                    .ok()
                    .filter(|d: &f64| d.is_finite() && *d >= 0.0)
                    .ok_or_else(|| bad("seconds ≥ 0"))?;
            }
            "--out" => o.out = PathBuf::from(value),
            "--size" => {
                o.size = value
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
                    .filter(|&(w, h): &(u32, u32)| {
                        (1..=8192).contains(&w) && (1..=8192).contains(&h)
                    })
                    .ok_or_else(|| bad("WIDTHxHEIGHT, each 1 to 8192"))?;
            }
            "--point" => {
                o.point = value
                    .parse()
                    .ok()
                    .filter(|p: &f32| p.is_finite() && *p > 0.0 && *p <= 64.0)
                    .ok_or_else(|| bad("pixels in (0, 64]"))?;
            }
            "--executor" => {
                o.executor = match value.as_str() {
                    "gpu" => Executor::Gpu,
                    "cpu" => Executor::Cpu,
                    "auto" => Executor::Auto,
                    _ => return Err(bad("gpu, cpu or auto")),
                };
            }
            "--seed" => o.seed = value.parse().map_err(|_| bad("an integer"))?,
            _ => return Err(format!("unknown option {arg:?}\n{USAGE}")),
        }
    }
    Ok(o)
}

#[cfg(feature = "window")]
fn run_window(o: Options) -> Result<(), Box<dyn Error>> {
    window::run(window::Settings {
        particles: o.particles,
        seed: o.seed,
        size: o.size,
        point: o.point,
        executor: o.executor,
        frames: o.frames_given.then_some(o.frames),
    })
}

#[cfg(not(feature = "window"))]
fn run_window(_: Options) -> Result<(), Box<dyn Error>> {
    Err("--window needs the `window` feature".into())
}

fn run(o: Options) -> Result<(), Box<dyn Error>> {
    if o.window {
        return run_window(o);
    }
    let ctx = GpuContext::new()
        .map_err(|e| format!("the swarm renders with wgpu and needs an adapter: {e}"))?;
    let info = ctx.adapter_info();
    println!(
        "adapter: {} ({:?}, {:?})",
        info.name, info.device_type, info.backend
    );
    let particles = render::particles(o.particles, o.seed);
    let start = Instant::now();
    let mut swarm = render::Swarm::new(&ctx, &particles, o.executor, o.size, o.point)?;
    println!(
        "{} particles, {} motions (position Vec3 + color Color, written into one instance \
         buffer by GPU targets), {:?} executor; set up in {:.0} ms",
        o.particles,
        swarm.world.len(),
        swarm.world.active_executor(),
        start.elapsed().as_secs_f64() * 1e3
    );
    std::fs::create_dir_all(&o.out)
        .map_err(|e| format!("cannot create {}: {e}", o.out.display()))?;
    let motions = swarm.world.len() as f64;
    let (mut update_total, mut frame_total) = (Duration::ZERO, Duration::ZERO);
    for frame in 0..o.frames {
        // The update, until the GPU has written the instance buffer (the GPU executor's
        // update only records and submits; the wait makes the time comparable).
        let t0 = Instant::now();
        swarm.update(o.dt)?;
        swarm.wait()?;
        let update = t0.elapsed();
        swarm.render();
        swarm.wait()?;
        let total = t0.elapsed();
        update_total += update;
        frame_total += total;
        let image = swarm.read_frame()?;
        let path = o.out.join(format!("frame_{frame:04}.png"));
        image
            .save(&path)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!(
            "frame {frame}: t = {:.2} s, update {:.2} ms, update + draw {:.2} ms, {:.1} M \
             motions/s -> {}",
            f64::from(frame + 1) * o.dt,
            update.as_secs_f64() * 1e3,
            total.as_secs_f64() * 1e3,
            motions / update.as_secs_f64().max(1e-9) / 1e6,
            path.display()
        );
    }
    let frames = f64::from(o.frames);
    println!(
        "mean frame time {:.2} ms (update {:.2} ms, including the wait for the GPU); {:.1} M \
         motions/s evaluated and written into the instance buffer",
        frame_total.as_secs_f64() * 1e3 / frames,
        update_total.as_secs_f64() * 1e3 / frames,
        motions * frames / update_total.as_secs_f64().max(1e-9) / 1e6
    );
    Ok(())
}

fn main() -> ExitCode {
    let options = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match run(options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
