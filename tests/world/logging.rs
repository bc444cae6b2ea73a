//! The `log` feature: the executor chosen and why, and callback panics, as `log` records
//! with target `wgpu_tween` (built with `--features log`; `.ci/run` runs it).

use crate::common;

use std::sync::Mutex;

use wgpu_tween::{Executor, Motion, MotionWorld};

/// Keeps every record of target `wgpu_tween` as "LEVEL message".
struct Capture;

static RECORDS: Mutex<Vec<String>> = Mutex::new(Vec::new());
static LOGGER: Capture = Capture;

impl log::Log for Capture {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target() == "wgpu_tween"
    }
    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            let line = format!("{} {}", record.level(), record.args());
            RECORDS.lock().unwrap().push(line);
        }
    }
    fn flush(&self) {}
}

/// Records so far that contain every one of `parts`.
fn records_with(parts: &[&str]) -> Vec<String> {
    let _ = log::set_logger(&LOGGER); // once per process; later calls fail harmlessly
    log::set_max_level(log::LevelFilter::Info);
    RECORDS
        .lock()
        .unwrap()
        .iter()
        .filter(|r| parts.iter().all(|p| r.contains(p)))
        .cloned()
        .collect()
}

#[test]
fn the_executor_choice_and_its_reason_are_logged() {
    records_with(&[]);
    let mut world = MotionWorld::new();
    world.set_executor(Executor::Cpu).unwrap();
    assert!(!records_with(&["INFO CPU executor (chosen by set_executor)"]).is_empty());
    if let Some(ctx) = common::gpu() {
        let software = ctx.is_software();
        let name = format!("{:?}", ctx.adapter_info().name);
        let _world = MotionWorld::with_gpu(ctx).unwrap();
        let why = if software {
            "CPU executor (Auto, a software adapter"
        } else {
            "GPU executor (Auto, a real GPU)"
        };
        assert!(!records_with(&[why, &name]).is_empty(), "{why} {name}");
    }
}

#[test]
fn a_callback_panic_is_logged_as_a_warning() {
    records_with(&[]);
    let mut world = MotionWorld::new();
    Motion::new(0.0f32, 1.0, 1.0)
        .debug_name("logging-probe")
        .on_complete(|| panic!("probe panic"))
        .run(&mut world)
        .unwrap();
    world.update(2.0).unwrap();
    let found = records_with(&["WARN Complete callback", "\"logging-probe\"", "probe panic"]);
    assert_eq!(found.len(), 1, "{:?}", records_with(&["logging-probe"]));
}
