//! The real-GPU check: `gpu-check OUT_DIR [--quick] [--vectors DIR]...`.
//!
//! Runs what needs a real GPU, on the GPU executor forced (never `Executor::Auto`), and
//! writes `OUT_DIR/gpu-check.json` and `OUT_DIR/summary.txt`:
//! 1. every conformance set: the vendored vectors (embedded in the binary) and each
//!    `--vectors DIR` with the same schema;
//! 2. CPU-vs-GPU parity: random motions and operations through both executors;
//! 3. the full-size dispatch: 65 535 × 256 + 1 motions (the evaluate pass folds into two
//!    dimensions), every bound value checked against the CPU's evaluation;
//! 4. the benchmark binary's GPU measurements at 10k, 100k, 1M and 10M motions (pass time
//!    from timestamp queries, CPU time inside `update`, wall time), each pass next to its
//!    roofline: the bandwidth-bound time of the mixed workload's bytes on an H100 and an H200.
//!
//! `--quick` shrinks parity, dispatch and benchmark sizes so that a software adapter
//! finishes in a minute (to test the bundle, not the GPU). A failing check is recorded and
//! the others still run; the exit status is 1 when any failed.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use serde_json::{json, Value};
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Executor, MotionWorld};
use wgpu_tween_bench::roofline::{self, Workload};
use wgpu_tween_bench::workload::{self, Engine};
use wgpu_tween_bench::{conformance, dispatch, parity};

/// The vendored vectors, embedded.
const EMBEDDED: [(&str, &str); 4] = [
    (
        "eases.json",
        include_str!("../../../tests/conformance/vectors/eases.json"),
    ),
    (
        "curves.json",
        include_str!("../../../tests/conformance/vectors/curves.json"),
    ),
    (
        "punch.json",
        include_str!("../../../tests/conformance/vectors/punch.json"),
    ),
    (
        "motions.json",
        include_str!("../../../tests/conformance/vectors/motions.json"),
    ),
];

/// One check's outcome.
struct Check {
    name: String,
    passed: bool,
    seconds: f64,
    detail: Value,
    line: String,
}

/// Runs `f`, turning a panic into a failure with its message.
fn check(name: &str, f: impl FnOnce() -> Result<(Value, String), String>) -> Check {
    eprintln!("gpu-check: {name} ...");
    let start = Instant::now();
    let outcome = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "panic".to_owned());
        Err(format!("panicked: {why}"))
    });
    let seconds = start.elapsed().as_secs_f64();
    let (passed, detail, line) = match outcome {
        Ok((detail, line)) => (true, detail, line),
        Err(why) => (false, json!({ "error": why }), why),
    };
    eprintln!("gpu-check: {name}: {} ({seconds:.1} s)", ok(passed));
    Check {
        name: name.to_owned(),
        passed,
        seconds,
        detail,
        line,
    }
}

fn ok(passed: bool) -> &'static str {
    if passed {
        "PASS"
    } else {
        "FAIL"
    }
}

/// A world on the GPU executor, forced.
fn gpu_world(ctx: &GpuContext) -> MotionWorld {
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    world.set_executor(Executor::Gpu).expect("GPU executor");
    world
}

/// One conformance set (four files) on the GPU executor.
fn conformance_set(
    ctx: &GpuContext,
    files: &[(String, String)],
) -> Result<(Value, String), String> {
    let mut failures = Vec::new();
    let mut cases = 0;
    for (name, text) in files {
        let data = conformance::parse(text, name)?;
        cases += conformance::cases(&data).len();
        let new_world = || gpu_world(ctx);
        for line in conformance::ready(conformance::failures(name, &data, &new_world)) {
            failures.push(format!("{name}: {line}"));
        }
        if ctx.device().poll(wgpu::PollType::Poll).is_err() {
            return Err("device lost".into());
        }
    }
    let line = format!("{cases} cases, {} failing", failures.len());
    failures.truncate(50);
    let detail = json!({ "cases": cases, "failures": failures });
    if failures.is_empty() {
        Ok((detail, line))
    } else {
        Err(format!("{line}: {}", failures.join("; ")))
    }
}

/// `count` distinct bound motions; after one update every bound value must equal the CPU's
/// evaluation from the motion's anchor (as `tests/gpu/dispatch.rs`).
fn full_dispatch(ctx: &GpuContext, count: usize) -> Result<(Value, String), String> {
    let mut world = gpu_world(ctx);
    let (handles, cells) = dispatch::bound_motions(&mut world, count).map_err(|e| e.to_string())?;
    let start = Instant::now();
    world.update(0.37).map_err(|e| e.to_string())?;
    let update_ms = start.elapsed().as_secs_f64() * 1e3;
    if let Some(e) = world.take_gpu_error() {
        return Err(e.to_string());
    }
    if world.active_executor() != Executor::Gpu {
        return Err("the world left the GPU executor".into());
    }
    let checked = dispatch::check_bound(&world, &handles, &cells).map_err(|e| e.to_string())?;
    let (wrong, first) = (checked.wrong, checked.first);
    let line = format!("{count} motions, {wrong} wrong, first update {update_ms:.1} ms");
    match first {
        None => Ok((json!({ "motions": count, "update_ms": update_ms }), line)),
        Some(f) => Err(format!("{line}; {f}")),
    }
}

/// The benchmark binary's GPU measurement at each N.
fn benchmark(ctx: &GpuContext, sizes: &[usize]) -> Result<(Value, String), String> {
    let engine = Engine::Gpu(ctx.clone());
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    let us = |d: std::time::Duration| d.as_secs_f64() * 1e6;
    // The roofline: the mixed pass's bytes per motion, and the bound at each GPU's bandwidth.
    let roof = roofline::measure(Workload::Mixed).map_err(|e| format!("roofline: {e}"))?;
    for &n in sizes {
        let frames = if n >= 1_000_000 { 15 } else { 60 };
        let m = workload::run(&engine, n, frames, |_| {}).map_err(|e| format!("N = {n}: {e}"))?;
        if let Some(e) = &m.error {
            return Err(format!("N = {n}: {e}"));
        }
        let pass_us = m.engine.gpu.map(us);
        let bounds: Vec<Value> = (roofline::GPUS.iter())
            .map(|&(gpu, bandwidth)| {
                let bound_us = roof.bound_us(n as u64, bandwidth);
                json!({
                    "gpu": gpu,
                    "bound_us": bound_us,
                    "pass_over_bound": pass_us.map(|p| p / bound_us),
                })
            })
            .collect();
        rows.push(json!({
            "bytes_per_motion": roof.read_per_motion + roof.written_per_motion,
            "bandwidth_bounds": bounds,
            "n": n,
            "wall_us": us(m.engine.wall),
            "cpu_us": us(m.engine.cpu),
            "pass_us": pass_us,
            "bound_wall_us": us(m.bound.wall),
            "bound_count": m.bound_count,
            "floor_wall_us": us(m.floor.wall),
            "create_ns_per_motion": m.create_ns,
            "frames": m.engine.frames,
        }));
        let h100_us = roof.bound_us(n as u64, roofline::GPUS[0].1);
        lines.push(format!(
            "N={n}: wall {:.0} us, cpu {:.0} us, pass {}, floor {:.0} us, H100 bound {h100_us:.1} us{}",
            us(m.engine.wall),
            us(m.engine.cpu),
            pass_us.map_or("n/a".to_owned(), |p| format!("{p:.0} us")),
            us(m.floor.wall),
            pass_us.map_or(String::new(), |p| format!(" (pass {:.1}x)", p / h100_us)),
        ));
    }
    Ok((
        json!({ "workload": workload::describe(), "rows": rows }),
        lines.join("; "),
    ))
}

fn main() -> ExitCode {
    let mut out: Option<PathBuf> = None;
    let mut quick = false;
    let mut sets: Vec<PathBuf> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--vectors" => match args.next() {
                Some(dir) => sets.push(dir.into()),
                None => return usage("--vectors needs a directory"),
            },
            "-h" | "--help" => return usage(""),
            _ if out.is_none() && !arg.starts_with('-') => out = Some(arg.into()),
            other => return usage(&format!("unexpected argument {other}")),
        }
    }
    let Some(out) = out else {
        return usage("missing OUT_DIR");
    };
    match run(&out, quick, &sets) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("gpu-check: {e}");
            ExitCode::from(2)
        }
    }
}

fn usage(why: &str) -> ExitCode {
    if !why.is_empty() {
        eprintln!("gpu-check: {why}");
    }
    eprintln!("usage: gpu-check OUT_DIR [--quick] [--vectors DIR]...");
    ExitCode::from(2)
}

/// Runs every check; whether all passed.
fn run(out: &Path, quick: bool, sets: &[PathBuf]) -> Result<bool, Box<dyn std::error::Error>> {
    std::fs::create_dir_all(out)?;
    let started = Instant::now();
    let ctx = GpuContext::new()?;
    let info = ctx.adapter_info().clone();
    let adapter = json!({
        "name": info.name,
        "device_type": format!("{:?}", info.device_type),
        "backend": format!("{:?}", info.backend),
        "driver": info.driver,
        "driver_info": info.driver_info,
    });
    eprintln!("gpu-check: adapter {} ({:?})", info.name, info.device_type);

    let mut checks = Vec::new();
    let embedded: Vec<(String, String)> = EMBEDDED
        .iter()
        .map(|(n, t)| ((*n).to_owned(), (*t).to_owned()))
        .collect();
    checks.push(check("conformance: vendored vectors", || {
        conformance_set(&ctx, &embedded)
    }));
    for dir in sets {
        checks.push(check(&format!("conformance: {}", dir.display()), || {
            let mut files = Vec::new();
            for name in conformance::FILES {
                let path = dir.join(name);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                files.push((name.to_owned(), text));
            }
            conformance_set(&ctx, &files)
        }));
    }
    let (parity_motions, parity_frames) = if quick { (300, 60) } else { (3000, 240) };
    checks.push(check("parity: CPU vs GPU", || {
        let line = conformance::ready(parity::run_parity(
            ctx.clone(),
            0x5eed_0001,
            parity_motions,
            parity_frames,
        ));
        Ok((json!({ "summary": line }), line))
    }));
    checks.push(check("parity: every ease and loop type", || {
        let line = conformance::ready(parity::run_parity(
            ctx.clone(),
            0x5eed_0002,
            31 * 4 * 2,
            600,
        ));
        Ok((json!({ "summary": line }), line))
    }));
    let dispatch = if quick { 100_000 } else { 65_535 * 256 + 1 };
    checks.push(check("dispatch: full size", || {
        full_dispatch(&ctx, dispatch)
    }));
    let sizes: &[usize] = if quick {
        &[10_000, 100_000]
    } else {
        &[10_000, 100_000, 1_000_000, 10_000_000]
    };
    checks.push(check("benchmark: GPU executor", || benchmark(&ctx, sizes)));

    let passed = checks.iter().all(|c| c.passed);
    let seconds = started.elapsed().as_secs_f64();
    let report = json!({
        "version": 1,
        "quick": quick,
        "adapter": adapter,
        "passed": passed,
        "seconds": seconds,
        "checks": checks.iter().map(|c| json!({
            "name": c.name, "passed": c.passed, "seconds": c.seconds, "detail": c.detail,
        })).collect::<Vec<_>>(),
    });
    std::fs::write(
        out.join("gpu-check.json"),
        serde_json::to_string_pretty(&report)?,
    )?;
    let mut summary = format!(
        "gpu-check on {} ({:?}, {:?}){}: {} in {seconds:.0} s\n",
        info.name,
        info.device_type,
        info.backend,
        if quick { ", quick" } else { "" },
        ok(passed)
    );
    for c in &checks {
        summary += &format!(
            "{} {} ({:.1} s): {}\n",
            ok(c.passed),
            c.name,
            c.seconds,
            c.line
        );
    }
    std::fs::write(out.join("summary.txt"), &summary)?;
    print!("{summary}");
    Ok(passed)
}
