//! Headless benchmark: `cargo run --release [-- OPTIONS]` (`--help` lists them).
//!
//! Probes for a wgpu adapter, then on each executor (the GPU executor when an adapter
//! exists, the CPU executor always) runs worlds of N mixed motions (f32, Vec3, Quat, Color;
//! several eases, loop types and delays) for a fixed number of frames and prints a table:
//! executor, adapter name and type, N, ns per motion, CPU time per update, GPU time per
//! pass, readback cost, and the floor measured in the same run at the same N (the
//! hand-written loop of [`wgpu_tween_bench::baseline`] for the CPU, a trivial lerp kernel for the
//! GPU) with the ratio, then the roofline of the GPU evaluate pass per workload
//! ([`wgpu_tween_bench::roofline`], no GPU needed). A progress bar runs on stderr; `--json`
//! writes the results and `--plot` a PNG of ns per motion against N.
//!
//! `cargo run --release -- emitter [OPTIONS]` runs the emitter benchmark instead
//! ([`wgpu_tween_bench::emitter`]): a particle's whole life in wgpu-tween against a
//! hand-written `Vec`.
//!
//! `cargo run --release -p wgpu-tween-bench --features peers -- peers [OPTIONS]` runs the peer
//! benchmark instead (`wgpu_tween_bench::peers`, built with the feature `peers` only): issue
//! 17's looping f32 workload in a hand-written loop, peer crates and wgpu-tween, side by
//! side, as markdown tables.

use std::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::{Args, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use wgpu_tween::gpu::GpuContext;
use wgpu_tween_bench::baseline::BaselineLoop;
#[cfg(feature = "peers")]
use wgpu_tween_bench::peers::{self, PeerReport};

use wgpu_tween_bench::emitter;
use wgpu_tween_bench::plot::{self, Series};
use wgpu_tween_bench::report::{Report, Row, VERSION};
use wgpu_tween_bench::roofline::{self, Roofline, Workload};
use wgpu_tween_bench::workload::{self, Engine, Measured, BOUND_EVERY, DT};

/// Which executors to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Which {
    /// The CPU executor only.
    Cpu,
    /// The GPU executor only (fails without an adapter).
    Gpu,
    /// The GPU executor when an adapter exists, and the CPU executor.
    All,
}

/// wgpu-tween's headless benchmark: N mixed motions per executor, against same-run floors.
#[derive(Debug, Parser)]
#[command(
    name = "wgpu-tween-bench",
    version,
    args_conflicts_with_subcommands = true
)]
struct Options {
    #[command(subcommand)]
    command: Option<Command>,
    /// Motion counts, comma-separated (`k`/`m` suffixes allowed: `10k,1m`).
    #[arg(long, value_delimiter = ',', value_parser = parse_count,
          default_values_t = [1_000usize, 10_000, 100_000, 1_000_000])]
    motions: Vec<usize>,
    /// Frames per measurement round (a quarter of it, at least 1, at N ≥ 1M). Rounds repeat
    /// until 100 ms were measured.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..))]
    frames: u32,
    /// Executors to run.
    #[arg(long, value_enum, default_value_t = Which::All)]
    executor: Which,
    /// CPU executor threads (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..256))]
    threads: Option<u32>,
    /// Write the results as JSON to this file.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
    /// Write a PNG plot of ns per motion against N, per executor, to this file.
    #[arg(long, value_name = "PATH")]
    plot: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The peer benchmark: looping f32 OutQuad motions in a hand-written loop, peer crates
    /// (tween, keyframe, glissade, animato-gpu) and wgpu-tween, as markdown tables (needs the
    /// feature `peers`: `cargo run --release -p wgpu-tween-bench --features peers -- peers`).
    Peers(PeersOptions),
    /// The emitter benchmark: a particle emitter's steady state (spawn a batch a frame,
    /// each particle living a fixed number of frames, values into a host array read every
    /// frame) in wgpu-tween and in a hand-written `Vec`, ns per particle's whole life.
    Emitter(EmitterOptions),
}

#[derive(Debug, Args)]
struct EmitterOptions {
    /// Particles spawned per frame, comma-separated (`k`/`m` suffixes allowed).
    #[arg(long, value_delimiter = ',', value_parser = parse_count,
          default_values_t = [1_000usize, 10_000, 100_000])]
    spawn: Vec<usize>,
    /// Frames each particle lives, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [10u16, 120],
          value_parser = clap::value_parser!(u16).range(1..))]
    life: Vec<u16>,
    /// wgpu-tween's CPU executor threads, comma-separated (the floor runs on one).
    #[arg(long, value_delimiter = ',', default_values_t = [1u16, 2],
          value_parser = clap::value_parser!(u16).range(1..))]
    threads: Vec<u16>,
    /// Seconds measured per configuration and contender (after the warm-up).
    #[arg(long, default_value_t = 0.5)]
    secs: f64,
}

#[derive(Debug, Args)]
struct PeersOptions {
    /// Motion counts, comma-separated (`k`/`m` suffixes allowed).
    #[arg(long, value_delimiter = ',', value_parser = parse_count,
          default_values_t = [1_000usize, 100_000, 1_000_000])]
    motions: Vec<usize>,
    /// Updates measured per cell at least (more until 100 ms were measured).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    frames: u32,
    /// Skip the GPU columns (wgpu-tween's GPU executor, animato-gpu's GPU batch).
    #[arg(long)]
    cpu_only: bool,
    /// Write the results as JSON to this file.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
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
        .filter(|&n| (1..=64_000_000).contains(&n))
        .ok_or_else(|| format!("count out of range (1 to 64m): {s:?}"))
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
        Ok(Err(e)) => (
            None,
            format!("no GPU adapter ({e}): running the CPU executor only"),
        ),
        Err(_) => (
            None,
            "no GPU adapter (the driver panicked while probing): running the CPU executor only"
                .into(),
        ),
    }
}

/// The host CPU's model name, from `/proc/cpuinfo` where there is one.
fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

fn frames_for(frames: u32, n: usize) -> u32 {
    if n >= 1_000_000 {
        (frames / 4).max(1)
    } else {
        frames
    }
}

fn us(d: Duration) -> f64 {
    d.as_nanos() as f64 / 1e3
}

fn ns_per(d: Duration, n: usize) -> f64 {
    d.as_nanos() as f64 / n.max(1) as f64
}

/// A table cell: at most `width` characters.
fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(width - 1).collect();
        out.push('…');
        out
    }
}

fn make_row(engine: &Engine, cpu_model: &str, n: usize, m: &Measured, threads: usize) -> Row {
    let ns_per_motion = ns_per(m.engine.wall, n);
    let floor_ns = ns_per(m.floor.wall, n);
    let readback = m.bound.wall.saturating_sub(m.engine.wall);
    let (adapter, adapter_type, backend, floor) = match engine {
        Engine::Cpu(_) => (
            cpu_model.to_string(),
            "host".to_string(),
            None,
            "hand-written loop (wgpu_tween_bench::baseline, 1 thread)".to_string(),
        ),
        Engine::Gpu(ctx) => {
            let info = ctx.adapter_info();
            (
                info.name.clone(),
                format!("{:?}", info.device_type),
                Some(format!("{:?}", info.backend)),
                "trivial lerp kernel, same adapter (submit + wait)".to_string(),
            )
        }
    };
    Row {
        executor: engine.name().to_string(),
        adapter,
        adapter_type,
        backend,
        threads: match engine {
            Engine::Cpu(_) => threads,
            Engine::Gpu(_) => 0,
        },
        n,
        frames_measured: m.engine.frames,
        create_ns_per_motion: m.create_ns,
        ns_per_motion,
        cpu_update_us: us(m.engine.cpu),
        gpu_pass_us: match engine {
            Engine::Cpu(_) => None,
            Engine::Gpu(_) => Some(us(m.engine.gpu.unwrap_or(m.engine.wall))),
        },
        gpu_pass_timestamps: matches!(engine, Engine::Gpu(_)).then_some(m.engine.gpu.is_some()),
        readback_us: us(readback),
        readback_bound: m.bound_count,
        floor,
        floor_ns_per_motion: floor_ns,
        ratio: ns_per_motion / floor_ns.max(f64::MIN_POSITIVE),
        error: m.error.clone(),
    }
}

fn header() -> String {
    format!(
        "{:<8} {:<22} {:<13} {:>8} {:>10} {:>12} {:>12} {:>12} {:>11} {:>7}",
        "executor",
        "adapter",
        "type",
        "N",
        "ns/motion",
        "CPU µs/upd",
        "GPU µs/pass",
        "readback µs",
        "floor ns/m",
        "ratio"
    )
}

fn format_row(r: &Row) -> String {
    format!(
        "{:<8} {:<22} {:<13} {:>8} {:>10.2} {:>12.1} {:>12} {:>12.1} {:>11.2} {:>7.1}",
        r.executor,
        clip(&r.adapter, 22),
        clip(&r.adapter_type, 13),
        r.n,
        r.ns_per_motion,
        r.cpu_update_us,
        r.gpu_pass_us.map_or("-".to_string(), |v| format!("{v:.1}")),
        r.readback_us,
        r.floor_ns_per_motion,
        r.ratio
    )
}

fn plot_series(rows: &[Row]) -> Vec<Series> {
    let mut out = Vec::new();
    for (executor, color, floor_color, floor_label) in [
        (
            "cpu",
            plotters::style::RGBColor(30, 90, 200),
            plotters::style::RGBColor(120, 160, 230),
            "CPU FLOOR LOOP",
        ),
        (
            "gpu",
            plotters::style::RGBColor(210, 50, 40),
            plotters::style::RGBColor(235, 150, 140),
            "GPU FLOOR KERNEL",
        ),
    ] {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.executor == executor).collect();
        if mine.is_empty() {
            continue;
        }
        out.push(Series {
            label: format!("{} EXECUTOR", executor.to_uppercase()),
            color,
            floor: false,
            points: mine.iter().map(|r| (r.n as f64, r.ns_per_motion)).collect(),
        });
        out.push(Series {
            label: floor_label.to_string(),
            color: floor_color,
            floor: true,
            points: mine
                .iter()
                .map(|r| (r.n as f64, r.floor_ns_per_motion))
                .collect(),
        });
    }
    out
}

/// One line: each executor at its largest N (ns per motion, and the ratio to its floor),
/// and how long the run took.
fn summary(rows: &[Row], took: Duration) -> String {
    let mut parts = Vec::new();
    for executor in ["gpu", "cpu"] {
        if let Some(r) = rows
            .iter()
            .filter(|r| r.executor == executor)
            .max_by_key(|r| r.n)
        {
            parts.push(format!(
                "{executor} executor {:.2} ns/motion at N = {} ({:.1}× its floor)",
                r.ns_per_motion, r.n, r.ratio
            ));
        }
    }
    format!(
        "summary: {}; {} measurements in {:.0} s",
        parts.join(", "),
        rows.len(),
        took.as_secs_f64()
    )
}

fn run(options: Options) -> Result<(), Box<dyn Error>> {
    let started_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut motions = options.motions.clone();
    motions.sort_unstable();
    motions.dedup();

    let (gpu, gpu_line) = if options.executor == Which::Cpu {
        (
            None,
            "GPU executor not requested (--executor cpu)".to_string(),
        )
    } else {
        probe_gpu()
    };
    println!("{gpu_line}");
    let mut engines = Vec::new();
    match (&gpu, options.executor) {
        (Some(ctx), Which::Gpu | Which::All) => engines.push(Engine::Gpu(ctx.clone())),
        (None, Which::Gpu) => return Err("--executor gpu needs a GPU adapter".into()),
        _ => {}
    }
    if options.executor != Which::Gpu {
        engines.push(Engine::Cpu(options.threads.map(|t| t as usize)));
    }
    let threads = options.threads.map_or(cores, |t| t as usize);
    let gpu_time_method = match &gpu {
        Some(ctx)
            if ctx
                .device()
                .features()
                .contains(wgpu::Features::TIMESTAMP_QUERY) =>
        {
            "timestamp queries around the evaluate pass (world.gpu_mut().pass_time())"
        }
        _ => {
            "wall time of one update plus a blocking device poll (an upper bound: the device \
             has no timestamp queries)"
        }
    }
    .to_string();
    println!(
        "{cores} cores; {} frames per round ({} at N ≥ 1M), dt = 1/60 s; workload: {}",
        options.frames,
        frames_for(options.frames, 1_000_000),
        workload::describe()
    );
    println!();

    let started = std::time::Instant::now();
    let progress = ProgressBar::new((engines.len() * motions.len() * 3) as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:30}] {pos}/{len} (about {eta} left) {msg}",
    ) {
        progress.set_style(style.progress_chars("=> "));
    }
    let cpu_model = cpu_name();
    let mut rows = Vec::new();
    progress.suspend(|| println!("{}", header()));
    for engine in &engines {
        for &n in &motions {
            let frames = frames_for(options.frames, n);
            let measured = workload::run(engine, n, frames, |phase| {
                progress.set_message(format!("{} N={n}: {phase}", engine.name()));
                progress.inc(1);
            })
            .map_err(|e| format!("{} executor, N = {n}: {e}", engine.name()))?;
            let row = make_row(engine, &cpu_model, n, &measured, threads);
            progress.suspend(|| {
                println!("{}", format_row(&row));
                if let Some(e) = &row.error {
                    println!("  (GPU error, the world fell back to the CPU executor: {e})");
                }
            });
            rows.push(row);
        }
    }
    progress.finish_and_clear();
    println!();
    println!("{}", summary(&rows, started.elapsed()));
    println!();
    println!(
        "ns/motion: wall time of one update ÷ N (GPU: including the wait for the GPU); CPU \
         µs/upd: time inside world.update; GPU µs/pass: {gpu_time_method}; readback µs: extra \
         time per update when 1 motion in {BOUND_EVERY} has a CPU bind (GPU: gather, copy, \
         map; CPU: the bind calls); floor: CPU — one-thread hand-written loop, one f32 OutQuad \
         Restart loop, {} B/motion; GPU — trivial lerp kernel on the same adapter; ratio: \
         ns/motion ÷ floor ns/m",
        BaselineLoop::bytes_per_motion()
    );

    let rooflines = print_rooflines(&rows)?;

    let report = Report {
        version: VERSION,
        started_unix,
        cores,
        frames: options.frames,
        dt: DT,
        gpu: gpu_line,
        gpu_time_method,
        workload: workload::describe(),
        rows,
        rooflines,
    };
    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("JSON: {}", path.display());
    }
    if let Some(path) = &options.plot {
        plot::write_png(
            path,
            "WGPU-TWEEN: NS PER MOTION PER UPDATE (LOG-LOG)",
            &plot_series(&report.rows),
        )
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("plot: {}", path.display());
    }
    Ok(())
}

/// Prints the roofline of each workload (no GPU needed), with the GPU executor's measured
/// pass at the largest N next to the H100 bound where a GPU ran it.
fn print_rooflines(rows: &[Row]) -> Result<Vec<Roofline>, Box<dyn Error>> {
    println!();
    println!(
        "roofline of the GPU evaluate pass, from the table on the CPU ({} motions a workload; \
         dispatches and uploads of a steady update on wgpu's noop device):",
        roofline::PROFILE_MOTIONS
    );
    println!("{}", roofline::header());
    let mut out = Vec::new();
    for workload in [Workload::Mixed, Workload::AllF32] {
        let r = roofline::measure(workload)?;
        println!("{}", roofline::format_row(&r));
        out.push(r);
    }
    println!(
        "B/m: bytes per motion (32-byte row, 8 per lane pair read, 16 per parametric ease; 4 per \
         output lane); coherent: 32-row warps whose rows take one path; general: rows in runs \
         the general variant evaluates; dispatches: evaluate/all; µs: bandwidth-bound time of \
         one pass (H100 3.35 TB/s, H200 4.8 TB/s)"
    );
    let mixed = &out[0];
    let measured = rows
        .iter()
        .filter(|r| r.executor == "gpu" && r.adapter_type != "Cpu")
        .max_by_key(|r| r.n);
    match measured.and_then(|r| Some((r, r.gpu_pass_us?))) {
        Some((r, pass)) => {
            let bound = mixed.bound_us(r.n as u64, roofline::GPUS[0].1);
            println!(
                "measured: the mixed pass at N = {} on {} took {pass:.1} µs, {:.1}× the H100 \
                 bound of {bound:.1} µs",
                r.n,
                r.adapter,
                pass / bound.max(f64::MIN_POSITIVE)
            );
        }
        None => println!("(no hardware GPU ran here: the bound is not compared with a pass)"),
    }
    Ok(out)
}

fn run_emitter(options: &EmitterOptions) -> Result<(), Box<dyn Error>> {
    if !(options.secs.is_finite() && options.secs >= 0.0) {
        return Err(format!("--secs must be a duration in seconds, not {}", options.secs).into());
    }
    println!(
        "emitter: each frame (1/60 s) spawns N f32 particles, OutQuad 0 → i, each living L \
         frames, values into a ring of N·L read every frame; ns per particle = wall time of \
         a frame (spawn, update, read) / N, steady state; the floor: a hand-written Vec with \
         swap-remove on one thread"
    );
    println!();
    println!(
        "{:>8} {:>5} {:>8} {:>10} {:>16} {:>12} {:>7}",
        "N/frame", "L", "threads", "live", "wgpu-tween ns/p", "floor ns/p", "ratio"
    );
    for &spawn in &options.spawn {
        for &life in &options.life {
            for &threads in &options.threads {
                let (life, threads) = (usize::from(life), usize::from(threads));
                let cell = emitter::run_cell(spawn, life, threads, options.secs)?;
                println!(
                    "{:>8} {:>5} {:>8} {:>10} {:>16.1} {:>12.1} {:>7.2}",
                    cell.spawn,
                    cell.life,
                    cell.threads,
                    cell.live,
                    cell.ours_ns,
                    cell.floor_ns,
                    cell.ratio()
                );
            }
        }
    }
    Ok(())
}

#[cfg(not(feature = "peers"))]
fn run_peers(_: &PeersOptions) -> Result<(), Box<dyn Error>> {
    Err("this binary was built without the peer crates: run \
         `cargo run --release -p wgpu-tween-bench --features peers -- peers`"
        .into())
}

#[cfg(feature = "peers")]
fn run_peers(options: &PeersOptions) -> Result<(), Box<dyn Error>> {
    let started_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut motions = options.motions.clone();
    motions.sort_unstable();
    motions.dedup();
    let (gpu, gpu_line) = if options.cpu_only {
        (None, "GPU columns not requested (--cpu-only)".to_string())
    } else {
        probe_gpu()
    };
    println!("{gpu_line}");
    if peers::keep_freed_memory() {
        println!("allocator: freed memory kept for the next build (glibc mallopt)");
    }
    println!("{}", peers::describe());
    let env = peers::Env {
        // Only where wgpu-tween found an adapter (`WGPU_ADAPTER_NAME` and all).
        animato: gpu.as_ref().and_then(|_| peers::animato_device()),
        gpu,
    };
    let progress = ProgressBar::new((motions.len() * peers::CONTENDERS.len()) as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
    {
        progress.set_style(style.progress_chars("=> "));
    }
    let mut cells = Vec::new();
    for &n in &motions {
        for contender in &peers::CONTENDERS {
            progress.set_message(format!("N={n}: {}", contender.key));
            cells.push(peers::run_cell(contender, &env, n, options.frames as usize));
            progress.inc(1);
        }
    }
    progress.finish_and_clear();
    let report = PeerReport {
        version: peers::VERSION,
        started_unix,
        cores: std::thread::available_parallelism().map_or(1, usize::from),
        workload: peers::describe(),
        gpu: gpu_line,
        columns: peers::columns(),
        cells,
    };
    println!();
    print!("{}", peers::markdown(&report));
    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("JSON: {}", path.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut options = Options::parse();
    let result = match options.command.take() {
        Some(Command::Peers(peers)) => run_peers(&peers),
        Some(Command::Emitter(emitter)) => run_emitter(&emitter),
        None => run(options),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
