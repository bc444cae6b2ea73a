//! The conformance-vector runner: every case of the four files (`eases.json`, `curves.json`,
//! `punch.json`, `motions.json`, schema in `tests/conformance/vectors/README.md`) through
//! worlds from a caller's constructor, returning one line per failing case (its first
//! differing sample or frame). Shared by the library's `tests/conformance.rs` (which includes
//! this file), the real-GPU check (`gpu-check`) and the browser tests (`web/tests`). A
//! malformed file panics.
//!
//! The runner is async: each update is [`MotionWorld::update_async`], which the browser's
//! GPU executor awaits (it cannot block). Natively every update is ready at once, and
//! [`ready`] runs a runner function to its end.

use std::future::Future;
#[cfg(not(target_arch = "wasm32"))]
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use wgpu_tween::{
    AnimationCurve, DelayType, Ease, Keyframe, LoopType, Motion, MotionStatus, MotionWorld,
    WeightedMode,
};

/// The vector files, in the order they are run.
pub const FILES: [&str; 4] = ["eases.json", "curves.json", "punch.json", "motions.json"];

/// Parses one vector file's text (`what` names it in errors) and checks its schema version.
pub fn parse(text: &str, what: &str) -> Result<Value, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("{what} is not JSON: {e}"))?;
    if value["version"] != 1 {
        return Err(format!(
            "{what}: unknown schema version {}",
            value["version"]
        ));
    }
    Ok(value)
}

/// The output of a runner function where updates are ready at once (natively: see the
/// module docs). Panics if it would have to wait.
pub fn ready<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => panic!("a conformance run waited for the GPU off the web"),
    }
}

/// Reads and parses `dir/name`.
#[cfg(not(target_arch = "wasm32"))]
pub fn load(dir: &Path, name: &str) -> Result<Value, String> {
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read conformance file {}: {e}", path.display()))?;
    parse(&text, &path.display().to_string())
}

/// A file's cases.
pub fn cases(data: &Value) -> &[Value] {
    data["cases"].as_array().expect("cases")
}

/// Runs one file (by its name in [`FILES`]) through worlds from `new_world`: the failure
/// lines of every case (the ease and curve functions themselves included for those files).
pub async fn failures(
    name: &str,
    data: &Value,
    new_world: &dyn Fn() -> MotionWorld,
) -> Vec<String> {
    match name {
        "eases.json" => {
            let mut out = ease_function_failures(data);
            out.extend(ease_failures(new_world, data).await);
            out
        }
        "curves.json" => {
            let mut out = curve_function_failures(data);
            out.extend(curve_failures(new_world, data).await);
            out
        }
        "punch.json" => punch_failures(new_world, data).await,
        "motions.json" => motion_failures(new_world, data).await,
        other => panic!("unknown conformance file {other}"),
    }
}

fn f(v: &Value) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("expected a number, got {v}"))
}

/// One sample of a case: a motion frozen at clock `at` (speed 0) whose bind records the value
/// the next update delivers.
struct Probe {
    case: String,
    at: f64,
    want: f64,
    tolerance: f64,
    seen: Arc<Mutex<f32>>,
}

impl Probe {
    /// Binds `motion` in `world`, frozen at clock `at`.
    fn bind(
        world: &mut MotionWorld,
        motion: Motion<f32>,
        case: &str,
        (at, want, tolerance): (f64, f64, f64),
    ) -> Self {
        let seen = Arc::new(Mutex::new(f32::NAN));
        let sink = Arc::clone(&seen);
        let h = motion
            .playback_speed(0.0)
            .immediate_bind(false)
            .bind(world, move |v| *sink.lock().unwrap() = v)
            .expect("motion");
        world.set_time(h, at).expect("set_time");
        Self {
            case: case.to_owned(),
            at,
            want,
            tolerance,
            seen,
        }
    }
}

/// Runs one update of `world` and returns the first mismatch of each case among `probes`
/// (off by more than its tolerance, or NaN), `axis` naming the sampled coordinate.
async fn mismatches(world: &mut MotionWorld, probes: Vec<Probe>, axis: &str) -> Vec<String> {
    world.update_async(0.0).await.expect("update");
    let mut failures: Vec<String> = Vec::new();
    for probe in probes {
        let got = *probe.seen.lock().unwrap();
        let error = (f64::from(got) - probe.want).abs();
        let case = &probe.case;
        if (error.is_nan() || error > probe.tolerance)
            && !failures.iter().any(|f| f.starts_with(&format!("{case}:")))
        {
            failures.push(format!(
                "{case}: at {axis} = {} expected {}, got {got}",
                probe.at, probe.want
            ));
        }
    }
    failures
}

/// `eases.json` through [`Ease::evaluate`]: the first mismatch per ease (|Δ| > 1e-5).
pub fn ease_function_failures(data: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    for case in cases(data) {
        let name = case["ease"].as_str().expect("ease name");
        let ease: Ease = name.parse().unwrap_or_else(|e| panic!("{e}"));
        for sample in case["samples"].as_array().expect("samples") {
            let (x, y) = (f(&sample[0]) as f32, f(&sample[1]) as f32);
            let got = ease.evaluate(x);
            if (got - y).abs() > 1e-5 {
                failures.push(format!(
                    "[Ease::evaluate] {name}: at x = {x} expected {y}, got {got}"
                ));
                break;
            }
        }
    }
    failures
}

/// Samples every ease case through a world: one frozen motion per sample (from 0 to 1 over
/// 1 s, clock set to x), evaluated by one update; the first mismatch per case.
pub async fn ease_failures(new_world: &dyn Fn() -> MotionWorld, data: &Value) -> Vec<String> {
    let mut world = new_world();
    let mut probes = Vec::new();
    for case in cases(data) {
        let name = case["ease"].as_str().expect("ease name");
        let ease: Ease = name.parse().unwrap_or_else(|e| panic!("{e}"));
        for sample in case["samples"].as_array().expect("samples") {
            let (x, y) = (f(&sample[0]), f(&sample[1]));
            let motion = Motion::new(0.0f32, 1.0, 1.0).ease(ease);
            probes.push(Probe::bind(&mut world, motion, name, (x, y, 1e-5)));
        }
    }
    mismatches(&mut world, probes, "x").await
}

/// A `curves.json` case's curve (default wrap modes).
fn curve_of(case: &Value) -> AnimationCurve {
    let keys: Vec<Keyframe> = case["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .map(|k| {
            let num = |name: &str| f(&k[name]) as f32;
            let mut key = Keyframe::with_tangents(
                num("time"),
                num("value"),
                num("in_tangent"),
                num("out_tangent"),
            );
            let mode = match k.get("weighted_mode").and_then(Value::as_str) {
                None | Some("None") => WeightedMode::None,
                Some("In") => WeightedMode::In,
                Some("Out") => WeightedMode::Out,
                Some("Both") => WeightedMode::Both,
                Some(other) => panic!("unknown weighted mode {other}"),
            };
            if mode != WeightedMode::None {
                key = key
                    .weights(num("in_weight"), num("out_weight"))
                    .weighted_mode(mode);
            }
            key
        })
        .collect();
    AnimationCurve::new(keys).unwrap_or_else(|e| panic!("{}: {e}", case["name"]))
}

/// `curves.json` through [`AnimationCurve::evaluate`]: the first mismatch per curve.
pub fn curve_function_failures(data: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    for case in cases(data) {
        let name = case["name"].as_str().expect("name");
        let curve = curve_of(case);
        for sample in case["samples"].as_array().expect("samples") {
            let (x, y) = (f(&sample[0]), f(&sample[1]));
            let got = curve.evaluate(x as f32);
            if (f64::from(got) - y).abs() > 1e-4 || got.is_nan() {
                failures.push(format!(
                    "[AnimationCurve::evaluate] {name}: at x = {x} expected {y}, got {got}"
                ));
                break;
            }
        }
    }
    failures
}

/// `curves.json`: each curve as the ease of a motion 0 → 1; one frozen motion per sample
/// (clock set to x), evaluated by one update. Tolerance 1e-4.
pub async fn curve_failures(new_world: &dyn Fn() -> MotionWorld, data: &Value) -> Vec<String> {
    let mut world = new_world();
    let mut probes = Vec::new();
    for case in cases(data) {
        let name = case["name"].as_str().expect("name");
        let curve = curve_of(case);
        for sample in case["samples"].as_array().expect("samples") {
            let (x, y) = (f(&sample[0]), f(&sample[1]));
            let motion = Motion::new(0.0f32, 1.0, 1.0).ease_curve(&curve);
            probes.push(Probe::bind(&mut world, motion, name, (x, y, 1e-4)));
        }
    }
    mismatches(&mut world, probes, "x").await
}

/// `punch.json`: one frozen punch per sample (start → strength over 1 s, linear, clock set
/// to the progress), evaluated by one update.
pub async fn punch_failures(new_world: &dyn Fn() -> MotionWorld, data: &Value) -> Vec<String> {
    let mut world = new_world();
    let mut probes = Vec::new();
    for case in cases(data) {
        let name = case["name"].as_str().expect("name");
        let (start, strength) = (f(&case["start"]) as f32, f(&case["strength"]) as f32);
        let (frequency, damping) = (f(&case["frequency"]), f(&case["damping_ratio"]));
        let tolerance = 1e-4 * f64::from(strength.abs()).max(1.0);
        for sample in case["samples"].as_array().expect("samples") {
            let (p, y) = (f(&sample[0]), f(&sample[1]));
            let motion = Motion::punch(start, strength, 1.0)
                .frequency(frequency as f32)
                .damping_ratio(damping as f32);
            probes.push(Probe::bind(&mut world, motion, name, (p, y, tolerance)));
        }
    }
    mismatches(&mut world, probes, "p").await
}

/// `motions.json`: every case in a world of its own; `"name: why"` per failing case.
pub async fn motion_failures(new_world: &dyn Fn() -> MotionWorld, data: &Value) -> Vec<String> {
    let mut failures = Vec::new();
    for case in cases(data) {
        if let Err(why) = run_case(new_world, case).await {
            failures.push(format!("{}: {why}", case["name"].as_str().unwrap_or("?")));
        }
    }
    failures
}

#[derive(Default)]
struct Record {
    bound: Option<f32>,
    events: Vec<String>,
}

fn status_name(s: MotionStatus) -> &'static str {
    match s {
        MotionStatus::Scheduled => "Scheduled",
        MotionStatus::Delayed => "Delayed",
        MotionStatus::Playing => "Playing",
        MotionStatus::Completed => "Completed",
        MotionStatus::Canceled => "Canceled",
    }
}

/// Runs one motion case; returns the first mismatch.
async fn run_case(new_world: &dyn Fn() -> MotionWorld, case: &Value) -> Result<(), String> {
    let m = &case["motion"];
    let (from, to) = (f(&m["from"]) as f32, f(&m["to"]) as f32);
    let loops = m["loops"].as_i64().expect("loops") as i32;
    let preserve = m["preserve"].as_bool().expect("preserve");
    let delay_type = match m["delay_type"].as_str() {
        Some("FirstLoop") => DelayType::FirstLoop,
        Some("EveryLoop") => DelayType::EveryLoop,
        other => panic!("unknown delay type {other:?}"),
    };
    let loop_type = match m["loop_type"].as_str() {
        Some("Restart") => LoopType::Restart,
        Some("Flip") => LoopType::Flip,
        Some("Incremental") => LoopType::Incremental,
        Some("Yoyo") => LoopType::Yoyo,
        other => panic!("unknown loop type {other:?}"),
    };
    let ease: Ease = m["ease"]
        .as_str()
        .expect("ease")
        .parse()
        .map_err(|e| format!("{e}"))?;

    let record = Arc::new(Mutex::new(Record::default()));
    let (r1, r2, r3, r4) = (
        record.clone(),
        record.clone(),
        record.clone(),
        record.clone(),
    );
    let mut world = new_world();
    let mut motion = Motion::new(from, to, f(&m["duration"]) as f32)
        .ease(ease)
        .delay_with(
            f(&m["delay"]) as f32,
            delay_type,
            m["skip_values_during_delay"].as_bool().expect("skip"),
        )
        .loops(loops, loop_type)
        .playback_speed(f(&m["playback_speed"]) as f32)
        .immediate_bind(false)
        .on_complete(move || r1.lock().unwrap().events.push("complete".into()))
        .on_cancel(move || r2.lock().unwrap().events.push("cancel".into()))
        .on_loop_complete(move |n| r3.lock().unwrap().events.push(format!("loop:{n}")));
    if preserve {
        motion = motion.preserve();
    }
    let handle = motion
        .bind(&mut world, move |v| r4.lock().unwrap().bound = Some(v))
        .map_err(|e| format!("build failed: {e}"))?;
    let value_tol = 1e-4 * f64::max(1.0, (f64::from(to) - f64::from(from)).abs());

    for (i, frame) in case["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .enumerate()
    {
        *record.lock().unwrap() = Record::default();
        let op = frame.get("op").and_then(Value::as_str);
        match op {
            None => world
                .update_async(f(&frame["dt"]))
                .await
                .map_err(|e| format!("frame {i}: {e}"))?,
            Some("complete") => world
                .complete(handle)
                .map_err(|e| format!("frame {i}: {e}"))?,
            Some("cancel") => world
                .cancel(handle)
                .map_err(|e| format!("frame {i}: {e}"))?,
            Some(other) => panic!("unknown op {other}"),
        }
        let rec = std::mem::take(&mut *record.lock().unwrap());
        let fail = |what: String| Err(format!("frame {i} ({}): {what}", op.unwrap_or("update")));

        let expected_events: Vec<&str> = frame["events"]
            .as_array()
            .expect("events")
            .iter()
            .map(|e| e.as_str().expect("event"))
            .collect();
        if rec.events != expected_events {
            return fail(format!(
                "events {:?}, expected {expected_events:?}",
                rec.events
            ));
        }

        let expected_status = frame["status"].as_str().expect("status");
        let active = world.is_active(handle);
        let finished =
            expected_status == "Canceled" || (expected_status == "Completed" && !preserve);
        let status = if active {
            status_name(world.status(handle).map_err(|e| e.to_string())?)
        } else if rec.events.iter().any(|e| e == "cancel") {
            "Canceled"
        } else if rec.events.iter().any(|e| e == "complete") {
            "Completed"
        } else {
            "gone"
        };
        if status != expected_status {
            return fail(format!("status {status}, expected {expected_status}"));
        }
        if finished {
            if active {
                return fail("handle still active after the motion finished".into());
            }
            if rec.bound.is_some() != frame["bound"].as_bool().unwrap_or(false) {
                return fail(format!(
                    "bound {:?}, expected {}",
                    rec.bound, frame["bound"]
                ));
            }
            if let (Some(got), Some(want)) = (rec.bound, frame["value"].as_f64()) {
                if (f64::from(got) - want).abs() > value_tol {
                    return fail(format!("value {got}, expected {want}"));
                }
            }
            return Ok(());
        }

        let loops_now = world.completed_loops(handle).map_err(|e| e.to_string())?;
        let want_loops = frame["completed_loops"].as_u64().expect("completed_loops") as u32;
        if loops_now != want_loops {
            return fail(format!(
                "completed_loops {loops_now}, expected {want_loops}"
            ));
        }
        let progress = world.progress(handle).map_err(|e| e.to_string())?;
        let want_progress = f(&frame["progress"]);
        if (f64::from(progress) - want_progress).abs() > 1e-4 {
            return fail(format!("progress {progress}, expected {want_progress}"));
        }
        if let Some(want_time) = frame.get("time").and_then(Value::as_f64) {
            let time = world.time(handle).map_err(|e| e.to_string())?;
            if (time - want_time).abs() > 1e-5 {
                return fail(format!("time {time}, expected {want_time}"));
            }
        }
        let want_bound = frame["bound"].as_bool().expect("bound");
        if rec.bound.is_some() != want_bound {
            return fail(format!("bound {:?}, expected {want_bound}", rec.bound));
        }
        if let (Some(got), Some(want)) = (rec.bound, frame["value"].as_f64()) {
            if (f64::from(got) - want).abs() > value_tol {
                return fail(format!("value {got}, expected {want}"));
            }
        }
    }
    Ok(())
}
