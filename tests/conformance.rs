//! Runs the conformance vectors (`eases.json`, `curves.json`, `motions.json`, `punch.json`)
//! on every executor and prints one line per failing case with its first differing frame.
//! The vectors are `tests/conformance/vectors/` unless `WGPU_TWEEN_CONFORMANCE_DIR` names
//! another set with the same schema. The runner is shared with the real-GPU check.

mod common;
#[allow(dead_code)] // `failures` serves the real-GPU check
#[path = "../bench/src/conformance.rs"]
mod runner;

use std::path::PathBuf;

use serde_json::Value;

/// The vector directory: `WGPU_TWEEN_CONFORMANCE_DIR`, else the vendored set.
fn vectors_dir() -> PathBuf {
    std::env::var_os("WGPU_TWEEN_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/vectors")
        })
}

fn load(name: &str) -> Value {
    runner::load(&vectors_dir(), name).unwrap_or_else(|e| panic!("{e}"))
}

/// Prints every failure and fails the test if there is one.
fn report(failures: &[String], what: &str) {
    for line in failures {
        println!("FAIL {line}");
    }
    assert!(
        failures.is_empty(),
        "{} {what} cases failed",
        failures.len()
    );
}

/// The failure lines of `data` through every executor, each prefixed with its name.
fn on_every_executor(
    data: &Value,
    run: fn(&dyn Fn() -> wgpu_tween::MotionWorld, &Value) -> Vec<String>,
) -> Vec<String> {
    let mut failures = Vec::new();
    for exec in common::executors() {
        for line in run(&|| exec.world(), data) {
            failures.push(format!("[{}] {line}", exec.name()));
        }
    }
    failures
}

#[test]
fn eases_match_vectors() {
    let data = load("eases.json");
    let cases = runner::cases(&data);
    assert!(
        cases.len() >= 31,
        "expected every ease, got {} cases",
        cases.len()
    );
    let mut failures = runner::ease_function_failures(&data);
    failures.extend(on_every_executor(&data, |world, data| {
        runner::ready(runner::ease_failures(world, data))
    }));
    report(&failures, "ease");
}

/// `curves.json`: each curve as the ease of a motion 0 → 1; one frozen motion per sample
/// (clock set to x), evaluated by one update of each executor. Tolerance 1e-4.
#[test]
fn curves_match_vectors() {
    let data = load("curves.json");
    assert!(!runner::cases(&data).is_empty(), "no curve cases");
    let mut failures = runner::curve_function_failures(&data);
    failures.extend(on_every_executor(&data, |world, data| {
        runner::ready(runner::curve_failures(world, data))
    }));
    report(&failures, "curve");
}

/// `punch.json`: one frozen punch per sample (start → strength over 1 s, linear, clock set
/// to the progress), evaluated by one update of each executor.
#[test]
fn punch_matches_vectors() {
    let data = load("punch.json");
    assert!(!runner::cases(&data).is_empty(), "no punch cases");
    report(
        &on_every_executor(&data, |world, data| {
            runner::ready(runner::punch_failures(world, data))
        }),
        "punch",
    );
}

#[test]
fn motions_match_vectors() {
    let data = load("motions.json");
    let total = runner::cases(&data).len();
    for exec in common::executors() {
        let executor = exec.name();
        let failures = runner::ready(runner::motion_failures(&|| exec.world(), &data));
        for line in &failures {
            println!("FAIL [{executor}] {line}");
        }
        println!(
            "[{executor}] {} of {total} motion cases passed",
            total - failures.len()
        );
        assert!(
            failures.is_empty(),
            "[{executor}] {} motion cases failed (see the FAIL lines)",
            failures.len()
        );
    }
}
