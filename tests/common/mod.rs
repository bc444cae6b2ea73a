//! Shared test helpers: which executors to run, where the conformance vectors live.

#![allow(dead_code)]

use std::path::PathBuf;

/// Executors a test should run, from `WGPU_TWEEN_EXECUTOR` (`cpu`, `gpu`, `all`; default all
/// available). Only the CPU executor exists in this build; asking for `gpu` explicitly fails.
pub fn executors() -> Vec<&'static str> {
    match std::env::var("WGPU_TWEEN_EXECUTOR").as_deref() {
        Ok("cpu") => vec!["cpu"],
        Ok("gpu") => panic!("WGPU_TWEEN_EXECUTOR=gpu, but this build has no GPU executor yet"),
        Ok("all") | Ok("") | Err(_) => vec!["cpu"],
        Ok(other) => panic!("WGPU_TWEEN_EXECUTOR must be cpu, gpu or all, got {other:?}"),
    }
}

/// The conformance vector directory: `WGPU_TWEEN_CONFORMANCE_DIR`, else
/// `../shared/conformance` next to the crate root.
pub fn conformance_dir() -> PathBuf {
    std::env::var_os("WGPU_TWEEN_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance"))
}

/// Parses one conformance file.
pub fn load(name: &str) -> serde_json::Value {
    let path = conformance_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read conformance file {}: {e}", path.display()));
    let value: serde_json::Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    assert_eq!(value["version"], 1, "{}: unknown schema version", path.display());
    value
}
