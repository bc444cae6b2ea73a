//! Sequences of tweens on one entity.

use bevy::prelude::*;
use bevy_wgpu_tween::*;

use crate::common::*;

#[derive(Resource, Default)]
struct Completed(u32);

#[test]
fn steps_play_one_after_the_other_and_complete_once() {
    let mut app = app();
    app.init_resource::<Completed>();
    app.add_systems(
        Last,
        |mut r: MessageReader<TweenCompleted>, mut c: ResMut<Completed>| {
            c.0 += r.read().count() as u32;
        },
    );
    let e = app.world_mut().spawn(Transform::default()).id();
    let seq = TweenSequence::new()
        .append(Translation, Motion::new(Vec3::ZERO, Vec3::X * 10.0, 0.4))
        .append_interval(0.2)
        .append(Scale, Motion::new(Vec3::ONE, Vec3::splat(2.0), 0.4))
        .join(Translation, Motion::new(Vec3::X * 10.0, Vec3::ZERO, 0.8));
    app.world_mut().commands().entity(e).tween_sequence(seq);
    frames(&mut app, 2); // 0.2 s: the first step half-way
    let t = *app.world().get::<Transform>(e).unwrap();
    assert_near(t.translation, Vec3::X * 5.0);
    assert_near(t.scale, Vec3::ONE);
    frames(&mut app, 3); // 0.5 s: in the interval
    assert_near(translation(&app, e), Vec3::X * 10.0);
    frames(&mut app, 3); // 0.8 s: 0.2 s into the last two steps
    let t = *app.world().get::<Transform>(e).unwrap();
    assert_near(t.scale, Vec3::splat(1.5));
    assert_near(t.translation, Vec3::X * 7.5);
    frames(&mut app, 10);
    let t = *app.world().get::<Transform>(e).unwrap();
    assert_eq!((t.translation, t.scale), (Vec3::ZERO, Vec3::splat(2.0)));
    assert_eq!(app.world().resource::<Completed>().0, 1);
    assert!(app.world().get::<Tweened<Translation>>(e).is_none());
    assert!(app.world().get::<Tweened<Scale>>(e).is_none());
    assert!(app
        .world_mut()
        .resource_mut::<Tweens>()
        .world_mut()
        .is_empty());
}

#[test]
fn a_configured_sequence_loops() {
    let mut app = app();
    let e = app.world_mut().spawn(Transform::default()).id();
    let seq = TweenSequence::new()
        .append(Translation, Motion::new(Vec3::ZERO, Vec3::X * 10.0, 0.5))
        .configure(|m| m.loops(-1, LoopType::Yoyo));
    app.world_mut().commands().entity(e).tween_sequence(seq);
    frames(&mut app, 7); // 0.7 s: 0.2 s into the backward loop
    assert_near(translation(&app, e), Vec3::X * 6.0);
}
