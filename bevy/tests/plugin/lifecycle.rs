//! Despawns, removals and clocks.

use bevy::prelude::*;
use bevy_wgpu_tween::*;

use crate::common::*;

#[derive(Resource, Default)]
struct Canceled(Vec<Entity>);

#[test]
fn despawn_mid_motion_cancels_it_and_frees_its_slot() {
    let mut app = app();
    app.init_resource::<Canceled>();
    app.add_systems(
        Last,
        |mut r: MessageReader<TweenCanceled>, mut c: ResMut<Canceled>| {
            c.0.extend(r.read().map(|m| m.entity));
        },
    );
    let a = app.world_mut().spawn(Transform::default()).id();
    let b = app.world_mut().spawn(Transform::default()).id();
    let m = || Motion::new(Vec3::ZERO, Vec3::X * 10.0, 1.0);
    tween(&mut app, a, Translation, m());
    tween(&mut app, b, Translation, m());
    frames(&mut app, 2);
    app.world_mut().despawn(a);
    frames(&mut app, 2);
    assert_eq!(app.world().resource::<Canceled>().0, [a]);
    assert_eq!(
        app.world_mut().resource_mut::<Tweens>().world_mut().len(),
        1
    );
    assert_near(translation(&app, b), Vec3::X * 4.0);
    // A new entity takes the freed slot and starts from its own value, not `a`'s.
    let c = app
        .world_mut()
        .spawn(Transform::from_xyz(-1.0, 0.0, 0.0))
        .id();
    tween(
        &mut app,
        c,
        Translation,
        Motion::to(Vec3::new(-1.0, 5.0, 0.0), 1.0).delay(0.5),
    );
    frames(&mut app, 1);
    assert_eq!(translation(&app, c), Vec3::new(-1.0, 0.0, 0.0));
}

#[test]
fn removing_tweened_cancels_and_leaves_the_value() {
    let mut app = app();
    let e = app.world_mut().spawn(Transform::default()).id();
    tween(
        &mut app,
        e,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::X * 10.0, 1.0),
    );
    frames(&mut app, 2);
    app.world_mut()
        .entity_mut(e)
        .remove::<Tweened<Translation>>();
    frames(&mut app, 3);
    assert_near(translation(&app, e), Vec3::X * 2.0);
    assert!(app
        .world_mut()
        .resource_mut::<Tweens>()
        .world_mut()
        .is_empty());
}

#[test]
fn pausing_virtual_time_pauses_scaled_tweens_only() {
    let mut app = app();
    let scaled = app.world_mut().spawn(Transform::default()).id();
    let real = app.world_mut().spawn(Transform::default()).id();
    tween(
        &mut app,
        scaled,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::X * 10.0, 1.0),
    );
    let realtime = Motion::new(Vec3::ZERO, Vec3::X * 10.0, 1.0).time_kind(TimeKind::Realtime);
    tween(&mut app, real, Translation, realtime);
    frames(&mut app, 2);
    app.world_mut().resource_mut::<Time<Virtual>>().pause();
    frames(&mut app, 3);
    assert_near(translation(&app, scaled), Vec3::X * 2.0);
    assert_near(translation(&app, real), Vec3::X * 5.0);
    app.world_mut().resource_mut::<Time<Virtual>>().unpause();
    frames(&mut app, 1);
    assert_near(translation(&app, scaled), Vec3::X * 3.0);
    // Half speed: half a frame's delta per frame.
    app.world_mut()
        .resource_mut::<Time<Virtual>>()
        .set_relative_speed(0.5);
    frames(&mut app, 2);
    assert_near(translation(&app, scaled), Vec3::X * 4.0);
}
