//! Motions from the current value (`Motion::to`, `Motion::by`, read from a host target when
//! the motion is added) and speed-based durations (`at_speed`), on every executor, against
//! hand-worked values (docs/semantics.md §9).

use crate::common;

use std::f32::consts::{FRAC_PI_2, PI, TAU};

use glam::{Quat, Vec2, Vec3};
use wgpu_tween::{Angle, BatchItem, BuildError, Motion};

#[test]
fn to_starts_from_the_host_target_when_added() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let x = world.add_host_target(3).unwrap();
        world.host_target_mut(x).unwrap()[1] = 4.0;
        let h = Motion::to(10.0f32, 2.0)
            .target(x.at(1, 1, 0))
            .run(&mut world)
            .unwrap();
        world.update(1.0).unwrap();
        // 4 + (10 − 4) · 0.5
        assert_eq!(world.host_target(x).unwrap(), &[0.0, 7.0, 0.0], "{name}");
        assert_eq!(world.value::<f32>(h).unwrap(), 7.0, "{name}");

        // Sampled when added: a later write to the array does not move the start.
        let y = world.add_host_target(1).unwrap();
        let h = Motion::to(10.0f32, 1.0)
            .delay(1.0)
            .target(y.at(0, 1, 0))
            .run(&mut world)
            .unwrap();
        world.host_target_mut(y).unwrap()[0] = 6.0;
        world.update(1.5).unwrap();
        assert_eq!(world.value::<f32>(h).unwrap(), 5.0, "{name}: 0 + 10 · 0.5");
    }
}

#[test]
fn to_continues_a_running_motion_from_where_it_is() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let pos = world.add_host_target(3).unwrap();
        let target = pos.at(0, 3, 0);
        let first = Motion::new(Vec3::ZERO, Vec3::new(8.0, 0.0, 0.0), 1.0)
            .target(target)
            .run(&mut world)
            .unwrap();
        world.update(0.25).unwrap(); // (2, 0, 0)
        world.cancel(first).unwrap();
        // From (2, 0, 0) up to (2, 4, 0): 4 units at 8 units per second.
        let h = Motion::to(Vec3::new(2.0, 4.0, 0.0), 0.0)
            .at_speed(8.0)
            .target(target)
            .run(&mut world)
            .unwrap();
        assert_eq!(world.total_duration(h).unwrap(), 0.5, "{name}");
        world.update(0.25).unwrap();
        assert_eq!(world.host_target(pos).unwrap(), &[2.0, 2.0, 0.0], "{name}");
    }
}

#[test]
fn by_adds_the_delta_per_type() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let t = world.add_host_target(8).unwrap();
        world
            .host_target_mut(t)
            .unwrap()
            .copy_from_slice(&[1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        // A Vec2 at 0..2 and an i32 (two lanes: 3 + 0) at 2..4.
        let v = Motion::by(Vec2::new(10.0, -2.0), 1.0)
            .target(t.at(0, 2, 0))
            .run(&mut world)
            .unwrap();
        let i = Motion::by(4i32, 1.0)
            .target(t.at(1, 2, 0))
            .run(&mut world)
            .unwrap();
        // An angle of 0 turned by a full turn: half way is π, not 0 (no shortest arc).
        let a = Motion::by(Angle::from_radians(TAU), 1.0)
            .target(t.at(4, 1, 0))
            .run(&mut world)
            .unwrap();
        world.update(0.5).unwrap();
        assert_eq!(
            world.value::<Vec2>(v).unwrap(),
            Vec2::new(6.0, 1.0),
            "{name}"
        );
        assert_eq!(world.value::<i32>(i).unwrap(), 5, "{name}");
        assert_eq!(world.value::<Angle>(a).unwrap().to_radians(), PI, "{name}");
        world.update(0.5).unwrap();
        assert_eq!(
            &world.host_target(t).unwrap()[..5],
            &[11.0, 0.0, 7.0, 0.0, TAU],
            "{name}"
        );
    }
}

#[test]
fn quaternions_compose_and_time_by_angle() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let q = world.add_host_target(4).unwrap();
        let quarter = Quat::from_rotation_z(FRAC_PI_2);
        world
            .host_target_mut(q)
            .unwrap()
            .copy_from_slice(&quarter.to_array());
        // A quarter turn more about z, at π/4 radians per second: 2 s to a half turn.
        let h = Motion::by(quarter, 0.0)
            .at_speed(PI / 4.0)
            .preserve()
            .target(q.at(0, 4, 0))
            .run(&mut world)
            .unwrap();
        assert!(
            (world.total_duration(h).unwrap() - 2.0).abs() < 1e-6,
            "{name}"
        );
        world.update(2.0).unwrap();
        let end = world.value::<Quat>(h).unwrap();
        assert!(
            end.angle_between(Quat::from_rotation_z(PI)) < 1e-3,
            "{name}: {end}"
        );
    }
}

#[test]
fn angles_to_take_the_shorter_arc_from_the_current_value() {
    let mut world = wgpu_tween::MotionWorld::new();
    let t = world.add_host_target(1).unwrap();
    world.host_target_mut(t).unwrap()[0] = 350f32.to_radians();
    let h = Motion::to(Angle::from_degrees(10.0), 1.0)
        .preserve()
        .target(t.at(0, 1, 0))
        .run(&mut world)
        .unwrap();
    world.update(1.0).unwrap();
    let end = world.value::<Angle>(h).unwrap().to_degrees();
    assert!((end - 370.0).abs() < 1e-3, "{end}");
}

#[test]
fn at_speed_sets_the_duration_from_the_distance() {
    let mut world = wgpu_tween::MotionWorld::new();
    // |(2, 3, 6)| = 7 units at 2 per second.
    let h = Motion::new(Vec3::ZERO, Vec3::new(2.0, 3.0, 6.0), 99.0)
        .at_speed(2.0)
        .run(&mut world)
        .unwrap();
    assert_eq!(world.total_duration(h).unwrap(), 3.5);
    // Per loop: two loops take twice as long.
    let h = Motion::new(1.0f32, -1.0, 0.0)
        .at_speed(4.0)
        .loops(2, wgpu_tween::LoopType::Yoyo)
        .run(&mut world)
        .unwrap();
    assert_eq!(world.total_duration(h).unwrap(), 1.0);
    // A punch: the strength's length.
    let h = Motion::punch(Vec2::ZERO, Vec2::new(3.0, 4.0), 0.0)
        .at_speed(10.0)
        .run(&mut world)
        .unwrap();
    assert_eq!(world.total_duration(h).unwrap(), 0.5);
    // Zero distance: zero duration, done once its clock passes 0.
    let h = Motion::new(5.0f32, 5.0, 1.0)
        .at_speed(1.0)
        .run(&mut world)
        .unwrap();
    assert_eq!(world.total_duration(h).unwrap(), 0.0);
    world.update(0.1).unwrap();
    assert!(!world.is_active(h));
}

#[test]
fn bad_speeds_and_missing_current_values_are_typed_errors() {
    let mut world = wgpu_tween::MotionWorld::new();
    for speed in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let err = Motion::new(0.0f32, 1.0, 1.0)
            .at_speed(speed)
            .run(&mut world);
        match err {
            Err(BuildError::InvalidSpeed(s)) => assert!(s.to_bits() == speed.to_bits()),
            other => panic!("speed {speed}: {other:?}"),
        }
    }
    // A huge distance at a tiny speed is an invalid (infinite) duration, not a panic.
    let err = Motion::new(-3e38f32, 3e38, 1.0)
        .at_speed(1e-30)
        .run(&mut world);
    assert!(
        matches!(err, Err(BuildError::InvalidDuration(_))),
        "{err:?}"
    );
    // No target, or a target read from a callback: nothing to start from.
    assert_eq!(
        Motion::to(1.0f32, 1.0).run(&mut world),
        Err(BuildError::NoCurrentValue)
    );
    let t = world.add_host_target(2).unwrap();
    assert_eq!(
        Motion::to(1.0f32, 1.0)
            .target(t.at(2, 1, 0))
            .run(&mut world),
        Err(BuildError::Target(
            wgpu_tween::error::TargetError::OutOfBounds { end: 3, len: 2 }
        ))
    );
    assert_eq!(
        Motion::by(1.0f32, 1.0)
            .target(t.at(0, 1, 0))
            .run_deferred(&world.commands()),
        Err(BuildError::NoCurrentValue)
    );
    // A batch's base cannot leave its start or duration open.
    let mut handles = Vec::new();
    let err = Motion::new(0.0f32, 1.0, 1.0).at_speed(1.0).run_batch(
        &mut world,
        2,
        |i| BatchItem::new(0.0, i as f32),
        &mut handles,
    );
    assert!(matches!(err, Err(BuildError::NotBatchable(_))), "{err:?}");
    assert!(handles.is_empty());
}
