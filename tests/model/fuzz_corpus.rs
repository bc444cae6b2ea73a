//! The fuzz targets' seed corpus replayed as an ordinary test (issue 7, item 2), so every
//! `cargo test` runs the interpreters that `cargo fuzz` drives (`fuzz/src/interp.rs`, shared
//! by path): the committed seeds in `fuzz/seeds/<target>/`, any local corpus or crash
//! artifacts a fuzzing session left in `fuzz/corpus/<target>/` and `fuzz/artifacts/<target>/`
//! (not committed), and a few thousand deterministic pseudo-random inputs.

use crate::common;
#[allow(dead_code)]
#[path = "../../fuzz/src/interp.rs"]
mod interp;

use std::path::{Path, PathBuf};

use common::quiet_intentional_panics;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of `dir`, sorted (none if it does not exist).
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, Vec<u8>)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|e| e != "py" && e != "md"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

/// Every input for `target`: the committed seeds (which must exist), then local leftovers.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let seeds = files(&fuzz_dir().join("seeds").join(target));
    assert!(
        seeds.len() >= 5,
        "fuzz/seeds/{target}/ has {} seeds; regenerate with fuzz/seeds/generate.py",
        seeds.len()
    );
    let mut all = seeds;
    for local in ["corpus", "artifacts"] {
        all.extend(files(&fuzz_dir().join(local).join(target)));
    }
    all
}

/// SplitMix64 byte strings: a cheap stand-in for fuzzing in every test run.
fn pseudo_random_inputs(count: usize, seed: u64) -> impl Iterator<Item = Vec<u8>> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    (0..count).map(move |_| {
        let len = 16 + (next() % 512) as usize;
        (0..len).map(|_| next() as u8).collect()
    })
}

/// Runs `f` on `bytes`, naming the input if it panics.
fn replay<R>(name: &str, bytes: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(bytes))) {
        Ok(r) => r,
        Err(_) => panic!(
            "fuzz input {name} ({} bytes) failed; reproduce with \
             `cargo +nightly fuzz run <target> {name}`",
            bytes.len()
        ),
    }
}

#[test]
fn ops_corpus_replays() {
    quiet_intentional_panics();
    let mut total = interp::Report::default();
    let inputs = inputs("ops");
    for (path, bytes) in &inputs {
        let r = replay(&path.display().to_string(), bytes, interp::run_ops);
        total.ops += r.ops;
        total.created += r.created;
        total.build_errors += r.build_errors;
        total.op_errors += r.op_errors;
        total.caught_panics += r.caught_panics;
    }
    println!("ops corpus: {} inputs, {total:?}", inputs.len());
    // The seeds reach what they were written for.
    assert!(total.created > 50, "{total:?}");
    assert!(total.build_errors >= 8, "{total:?}");
    assert!(total.op_errors > 10, "{total:?}");
    assert!(total.caught_panics > 0, "{total:?}");
}

#[test]
fn ops_pseudo_random_inputs() {
    quiet_intentional_panics();
    let mut ops = 0;
    for (i, bytes) in pseudo_random_inputs(3000, 0x5eed).enumerate() {
        ops += replay(&format!("pseudo-random #{i}"), &bytes, interp::run_ops).ops;
    }
    println!("ops pseudo-random: 3000 inputs, {ops} operations");
}

#[test]
fn ease_corpus_replays() {
    let inputs = inputs("ease");
    let mut checks = 0;
    for (path, bytes) in &inputs {
        checks += replay(&path.display().to_string(), bytes, interp::run_ease);
    }
    for (i, bytes) in pseudo_random_inputs(3000, 0xea5e).enumerate() {
        checks += replay(&format!("pseudo-random #{i}"), &bytes, interp::run_ease);
    }
    println!(
        "ease: {} corpus inputs + 3000 pseudo-random, {checks} checks",
        inputs.len()
    );
}
