//! GPU executor tests: buffers, pages, targets, faults, drift, parity with the CPU executor,
//! large dispatches and per-update counters; on the noop device or the machine's adapter
//! (WGPU_TWEEN_REQUIRE_GPU=1 makes a missing adapter a failure).

#[path = "../common/mod.rs"]
mod common;

mod bad_targets;
mod buffers;
mod created_targets;
mod dispatch;
mod drift;
mod faults;
mod groups;
mod kinds;
mod large_tables;
mod loop_boundaries;
mod pages;
mod parity;
mod stats;
mod target_formats;
mod targets;
