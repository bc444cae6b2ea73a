//! The peer benchmark (`cargo run --release -- peers`): issue 17's workload run in one
//! process, side by side, by a hand-written loop, peer crates from crates.io and wgpu-tween.
//!
//! The workload: N `f32` motions, motion `i` from 0 to `i` over 2 s, OutQuad, restarting
//! forever, their clocks staggered over the 2 s loop; updates of 1/60 s. Each contender makes
//! the N motions its own idiomatic way (timed: the creation columns), is staggered (untimed),
//! and then steps all of them per update, every value consumed: summed and passed to
//! [`black_box`](std::hint::black_box), written to an array that is, or delivered to a bind.
//! The update columns are the median over the measured updates of one update's wall time ÷ N
//! (a GPU contender's including the wait for the device). The unit tests check every
//! contender's values against the closed form ([`expected`]).

mod contenders;

use std::time::{Duration, Instant};

use serde::Serialize;

pub use contenders::{
    animato_device, Built, Contender, Creation, Env, Failure, Motions, Shows, CONTENDERS,
};

/// Loop duration, seconds.
pub const DURATION: f32 = 2.0;
/// Update delta, seconds.
pub const DT: f32 = 1.0 / 60.0;
/// Untimed updates before measuring (faults in pages, warms caches).
pub const WARMUP_FRAMES: u32 = 3;
/// Updates are measured until at least this much time has passed (and the minimum count).
pub const MIN_MEASURED: Duration = Duration::from_millis(100);
/// At most this many updates are measured per cell.
pub const MAX_FRAMES: usize = 20_000;
/// At most this many builds are timed per cell, after an untimed one (the creation table's
/// median).
pub const CREATE_ROUNDS: usize = 5;
/// Schema version of [`PeerReport`].
pub const VERSION: u32 = 1;

/// End value of motion `i` (its start value is 0).
#[must_use]
pub fn target(i: usize) -> f32 {
    i as f32
}

/// Clock of motion `i` when the measurement starts: staggered over one loop, 1000 phases.
#[must_use]
pub fn phase(i: usize) -> f32 {
    (i % 1000) as f32 * (DURATION / 1000.0)
}

/// Motion `i`'s value after `elapsed` seconds of updates, in closed form (f64): where its
/// clock is in the loop, eased with OutQuad (`1 − (1 − x)²`), lerped from 0 to `i`. Also
/// returns the clock's distance to a loop end, where contenders may legitimately differ
/// (one restarts at exactly the end, another shows the end value first).
#[must_use]
pub fn expected(i: usize, elapsed: f64) -> (f64, f64) {
    let duration = f64::from(DURATION);
    let clock = (f64::from(phase(i)) + elapsed).rem_euclid(duration);
    let x = clock / duration;
    let eased = 1.0 - (1.0 - x) * (1.0 - x);
    (f64::from(target(i)) * eased, clock.min(duration - clock))
}

/// The workload, in words.
#[must_use]
pub fn describe() -> String {
    format!(
        "N f32 motions, motion i from 0 to i over {DURATION} s, OutQuad, restarting forever, \
         clocks staggered over the loop (1000 phases); dt = 1/60 s; ns per motion per update \
         = median over updates of one update's wall time / N"
    )
}

/// One contender at one N.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// The contender's key ([`Contender::key`]).
    pub contender: &'static str,
    /// Motions.
    pub n: usize,
    /// Median ns per motion per update (`None`: not measured here).
    pub update_ns: Option<f64>,
    /// Creating the motions, ns per motion (`None`: not measured here).
    pub create_ns: Option<f64>,
    /// Minor page faults per motion while creating them (with `create_ns`).
    pub create_faults: Option<f64>,
    /// Updates measured.
    pub frames: usize,
    /// What went wrong, if the contender failed.
    pub error: Option<String>,
}

/// A column of the report.
#[derive(Clone, Debug, Serialize)]
pub struct Column {
    /// JSON key of the cells.
    pub key: &'static str,
    /// Header.
    pub name: &'static str,
    /// Whether it has an update column.
    pub updates: bool,
    /// Whether it has a creation column.
    pub creates: bool,
}

/// Everything one `peers` run measured (`--json PATH`).
#[derive(Clone, Debug, Serialize)]
pub struct PeerReport {
    /// Schema version ([`VERSION`]).
    pub version: u32,
    /// Seconds since the Unix epoch when the run started.
    pub started_unix: u64,
    /// Logical CPU cores.
    pub cores: usize,
    /// The workload, in words.
    pub workload: String,
    /// What the GPU probe found.
    pub gpu: String,
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// One cell per contender and N.
    pub cells: Vec<Cell>,
}

/// Times updates of `motions`: [`WARMUP_FRAMES`] untimed, then at least `min_frames` and
/// [`MIN_MEASURED`] (at most [`MAX_FRAMES`]). Returns the median update and the count.
pub fn measure(motions: &mut dyn Motions, min_frames: usize) -> Result<(Duration, usize), Failure> {
    for _ in 0..WARMUP_FRAMES {
        motions.step(DT)?;
    }
    let mut samples = Vec::with_capacity(min_frames.max(64));
    let start = Instant::now();
    while samples.len() < MAX_FRAMES
        && (samples.len() < min_frames || start.elapsed() < MIN_MEASURED)
    {
        let t0 = Instant::now();
        motions.step(DT)?;
        samples.push(t0.elapsed());
    }
    samples.sort_unstable();
    Ok((samples[samples.len() / 2], samples.len()))
}

/// Asks the allocator to keep what a dropped build frees, for the next build to reuse.
/// Otherwise glibc gives buffers above its mmap threshold, and a trimmed heap top, back to the
/// system, and the next contender to ask for that much pays a fault on every page of it
/// (about 1 µs a page on a VM: 0.05 faults, some 70 ns, per wgpu-tween motion); which one
/// pays depends on what the others left on the heap. With it, each creation measures its own
/// code on memory the process has, as after a first load; the faults table shows the first
/// touches that remain (buffers above 32 MiB still map fresh memory). Returns whether it took
/// effect (glibc only).
pub fn keep_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallopt` only sets allocator parameters; both values are in range.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    false
}

/// Builds `contender`'s motions once untimed (a warm-up: the allocator's first touches of
/// fresh memory), then at least once more and up to [`CREATE_ROUNDS`] times until
/// [`MIN_MEASURED`] has passed: the median creation time of those (one build is one sample,
/// which a preemption spoils at small N) and the last build. `None` where it does not run.
fn build(contender: &Contender, env: &Env, n: usize) -> Option<Result<(Creation, Built), Failure>> {
    let mut warm_up = true;
    let mut times = Vec::new();
    let mut last = None;
    let mut started = Instant::now();
    while times.is_empty() || (times.len() < CREATE_ROUNDS && started.elapsed() < MIN_MEASURED) {
        drop(last.take()); // the previous build's memory goes first
        let built = match (contender.build)(env, n)? {
            Ok(built) => built,
            Err(e) => return Some(Err(e)),
        };
        if warm_up {
            warm_up = false;
            started = Instant::now();
        } else {
            times.push(built.create);
        }
        last = Some(built);
    }
    times.sort_unstable_by_key(|c: &Creation| c.time);
    Some(Ok((times[times.len() / 2], last?)))
}

/// Builds and measures `contender` at `n`.
pub fn run_cell(contender: &Contender, env: &Env, n: usize, min_frames: usize) -> Cell {
    let mut cell = Cell {
        contender: contender.key,
        n,
        update_ns: None,
        create_ns: None,
        create_faults: None,
        frames: 0,
        error: None,
    };
    let per = |d: Duration| d.as_nanos() as f64 / n.max(1) as f64;
    match build(contender, env, n) {
        None => {}
        Some(Err(e)) => cell.error = Some(e.to_string()),
        Some(Ok((create, mut built))) => {
            if contender.shows.creation() {
                cell.create_ns = Some(per(create.time));
                cell.create_faults = Some(create.faults as f64 / n.max(1) as f64);
            }
            if contender.shows.updates() {
                match measure(built.motions.as_mut(), min_frames) {
                    Ok((median, frames)) => {
                        cell.update_ns = Some(per(median));
                        cell.frames = frames;
                    }
                    Err(e) => cell.error = Some(e.to_string()),
                }
            }
        }
    }
    cell
}

/// The columns of [`CONTENDERS`].
#[must_use]
pub fn columns() -> Vec<Column> {
    CONTENDERS
        .iter()
        .map(|c| Column {
            key: c.key,
            name: c.name,
            updates: c.shows.updates(),
            creates: c.shows.creation(),
        })
        .collect()
}

/// `1k`, `100k`, `1M`, or the plain number.
fn count(n: usize) -> String {
    match n {
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n >= 1_000 && n % 1_000 == 0 => format!("{}k", n / 1_000),
        n => n.to_string(),
    }
}

/// A number with three significant digits or one decimal, whichever is shorter to read (a
/// positive one under 0.01, such as a rare page fault per motion, in exponent form).
fn number(v: f64) -> String {
    if v > 0.0 && v < 0.01 {
        format!("{v:.1e}")
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The markdown tables (updates, creation, and the page faults of creation): a row per N, a
/// column per contender; "–" where a contender does not run here, "error" where it failed.
#[must_use]
pub fn markdown(report: &PeerReport) -> String {
    let mut ns: Vec<usize> = report.cells.iter().map(|c| c.n).collect();
    ns.dedup();
    let mut out = String::new();
    for (title, wanted, pick) in [
        (
            "ns per motion per update (median of updates)",
            (|c: &Column| c.updates) as fn(&Column) -> bool,
            (|c: &Cell| c.update_ns) as fn(&Cell) -> Option<f64>,
        ),
        (
            "creation, ns per motion",
            |c: &Column| c.creates,
            |c: &Cell| c.create_ns,
        ),
        (
            // What decides a fresh world's creation cost besides the code: whether the
            // allocator had the memory or had to fault it in (about 1 µs a page here).
            "creation, minor page faults per motion",
            |c: &Column| c.creates,
            |c: &Cell| c.create_faults,
        ),
    ] {
        let columns: Vec<&Column> = report.columns.iter().filter(|c| wanted(c)).collect();
        out += &format!("{title}:\n\n| N |");
        for c in &columns {
            out += &format!(" {} |", c.name);
        }
        out += "\n| --- |";
        out += &" --- |".repeat(columns.len());
        out += "\n";
        for &n in &ns {
            out += &format!("| {} |", count(n));
            for c in &columns {
                let cell = report
                    .cells
                    .iter()
                    .find(|x| x.n == n && x.contender == c.key);
                let text = match cell {
                    Some(x) if x.error.is_some() => "error".to_string(),
                    Some(x) => pick(x).map_or("–".to_string(), number),
                    None => "–".to_string(),
                };
                out += &format!(" {text} |");
            }
            out += "\n";
        }
        out += "\n";
    }
    for cell in report.cells.iter().filter(|c| c.error.is_some()) {
        out += &format!(
            "error: {} at N = {}: {}\n",
            cell.contender,
            cell.n,
            cell.error.as_deref().unwrap_or_default()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every CPU contender's values after `frames` updates, against the closed form.
    fn check(contender: &Contender, env: &Env, n: usize, frames: u32) {
        let Some(built) = (contender.build)(env, n) else {
            return;
        };
        let mut motions = built
            .unwrap_or_else(|e| panic!("{}: {e}", contender.key))
            .motions;
        for _ in 0..frames {
            motions.step(DT).expect("step");
        }
        let values = motions.values().expect("values");
        assert_eq!(values.len(), n, "{}", contender.key);
        let elapsed = f64::from(frames) * f64::from(DT);
        let mut checked = 0;
        for (i, &v) in values.iter().enumerate() {
            let (want, to_end) = expected(i, elapsed);
            // Clocks within a few f32 steps of a loop end may sit on either side of it.
            if to_end < 1e-3 {
                continue;
            }
            let tolerance = 1e-3 * (1.0 + f64::from(target(i)));
            assert!(
                (f64::from(v) - want).abs() <= tolerance,
                "{}: motion {i} after {frames} updates: {v}, expected {want}",
                contender.key
            );
            checked += 1;
        }
        assert!(
            checked > n * 9 / 10,
            "{}: only {checked} checked",
            contender.key
        );
    }

    #[test]
    fn closed_form_worked_example() {
        // Motion 250: phase 0.5 s, 0 → 250; 0.5 s later its clock is 1 s: x = 0.5, OutQuad
        // 0.75, value 187.5.
        let (v, to_end) = expected(250, 0.5);
        assert!((v - 187.5).abs() < 1e-9);
        assert!((to_end - 1.0).abs() < 1e-9);
    }

    #[test]
    fn every_cpu_contender_computes_the_workload() {
        let env = Env::default();
        // 3 s: every clock passes a loop end once.
        for contender in &CONTENDERS {
            check(contender, &env, 1200, 180);
        }
    }

    #[test]
    fn the_gpu_contenders_compute_the_workload() {
        let ctx = match wgpu_tween::gpu::GpuContext::new() {
            Ok(ctx) => ctx,
            Err(e) if std::env::var("WGPU_TWEEN_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
                panic!("WGPU_TWEEN_REQUIRE_GPU=1 but no GPU: {e}")
            }
            Err(_) => return,
        };
        let env = Env {
            gpu: Some(ctx),
            animato: animato_device(),
        };
        assert!(
            env.animato.is_some(),
            "animato-gpu finds the adapter wgpu-tween found"
        );
        for contender in CONTENDERS
            .iter()
            .filter(|c| ["animato_gpu", "wt_gpu_targets", "wt_gpu"].contains(&c.key))
        {
            check(contender, &env, 1200, 100);
        }
    }

    #[test]
    fn the_tables_have_a_row_per_n_and_dashes_for_what_did_not_run() {
        let env = Env::default();
        let cells: Vec<Cell> = [10, 20]
            .into_iter()
            .flat_map(|n| CONTENDERS.iter().map(move |c| (c, n)))
            .map(|(c, n)| run_cell(c, &env, n, 2))
            .collect();
        let report = PeerReport {
            version: VERSION,
            started_unix: 0,
            cores: 1,
            workload: describe(),
            gpu: String::new(),
            columns: columns(),
            cells,
        };
        let text = markdown(&report);
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| 10 |")).collect();
        assert_eq!(rows.len(), 3, "updates, creation, faults: {text}");
        // The update table: the host-target and GPU columns print "–" here.
        let update_cells = rows[0].split('|').count() - 2;
        assert_eq!(
            update_cells,
            CONTENDERS.iter().filter(|c| c.shows.updates()).count() + 1
        );
        assert!(rows[0].contains('–'), "{text}");
        assert!(!text.contains("error"), "{text}");
    }
}
