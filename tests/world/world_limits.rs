//! Issue 16, items 12 and 15: thread counts are clamped, `reserve` never panics, debug
//! names cannot break the snapshot's lines, and `value::<T>` checks the animated type.

use crate::common;

use wgpu_tween::{Motion, MotionError, MotionWorld};

/// Item 12: `set_cpu_threads` is clamped to the available parallelism (at least 2), so 5000
/// does not spawn 5000 threads and `usize::MAX` does not abort at the next large update.
#[test]
fn cpu_threads_are_clamped() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut world = MotionWorld::new();
    for asked in [5000, usize::MAX] {
        world.set_cpu_threads(asked);
        assert_eq!(world.cpu_threads(), cores.max(2), "asked {asked}");
    }
    world.set_cpu_threads(0);
    assert_eq!(world.cpu_threads(), 1);
    world.set_cpu_threads(usize::MAX);
    for _ in 0..200_000 {
        Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
    }
    world.update(0.5).unwrap();
    assert_eq!(world.len(), 200_000);
}

/// Item 15: `reserve(usize::MAX)` (and other impossible sizes) returns without panicking,
/// and the world still works.
#[test]
fn reserve_of_impossible_sizes_does_not_panic() {
    let mut world = MotionWorld::new();
    let h = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
    for n in [usize::MAX, usize::MAX / 2, 1 << 40] {
        world.reserve(n);
    }
    world.update(0.5).unwrap();
    assert_eq!(world.value::<f32>(h), Ok(0.5));
}

/// Item 15: control characters of debug names are escaped in the snapshot's table, which
/// keeps one line per motion.
#[test]
fn debug_snapshot_escapes_control_characters() {
    let mut world = MotionWorld::new();
    Motion::new(0.0f32, 1.0, 1.0)
        .debug_name("evil\nname\t\u{1b}[31m\r")
        .run(&mut world)
        .unwrap();
    let table = world.debug_snapshot().to_string();
    assert_eq!(
        table.lines().count(),
        3,
        "header, one motion, footer:\n{table}"
    );
    assert!(table.contains(r"evil\nname\t\u{1b}[31m\r"), "{table}");
    assert!(!table.contains('\u{1b}') && !table.contains('\r') && !table.contains('\t'));
}

/// Item 15: `value::<T>` needs the motion's own type, not only its lane layout: an f64
/// motion is not an i32 or i64 one (all three use two lanes), a Vec2 one is not a [f32; 2].
#[test]
fn value_checks_the_type() {
    for exec in common::executors() {
        let mut world = exec.world();
        let h = Motion::new(0.0f64, 10.0, 1.0).run(&mut world).unwrap();
        world.update(0.5).unwrap();
        assert_eq!(world.value::<f64>(h), Ok(5.0), "{}", exec.name());
        assert_eq!(world.value::<i32>(h), Err(MotionError::TypeMismatch(h)));
        assert_eq!(world.value::<i64>(h), Err(MotionError::TypeMismatch(h)));
        let i = Motion::new(0i32, 10, 1.0).run(&mut world).unwrap();
        assert_eq!(world.value::<f64>(i), Err(MotionError::TypeMismatch(i)));
        let v = Motion::new(glam::Vec2::ZERO, glam::Vec2::ONE, 1.0)
            .run(&mut world)
            .unwrap();
        assert_eq!(
            world.value::<[f32; 2]>(v),
            Err(MotionError::TypeMismatch(v))
        );
        assert_eq!(world.value::<glam::Vec2>(v), Ok(glam::Vec2::ZERO));
    }
}
