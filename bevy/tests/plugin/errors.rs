//! Bad input is a `TweenFailed` message with a typed error, never a panic.

use bevy::prelude::*;
use bevy_wgpu_tween::*;
use wgpu_tween::BuildError;

use crate::common::*;

fn failures(app: &mut App) -> Vec<TweenError> {
    let mut messages = app.world_mut().resource_mut::<Messages<TweenFailed>>();
    messages.drain().map(|f| f.error).collect()
}

#[derive(Component)]
struct Unregistered(f32);

struct UnregisteredLens;

impl Lens for UnregisteredLens {
    type Component = Unregistered;
    type Value = f32;
    fn get(c: &Unregistered) -> f32 {
        c.0
    }
    fn set(c: &mut Unregistered, v: f32) {
        c.0 = v;
    }
}

#[test]
fn a_despawned_entity() {
    let mut app = app();
    let e = app.world_mut().spawn(Transform::default()).id();
    app.world_mut().despawn(e);
    tween(
        &mut app,
        e,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::X, 1.0),
    );
    frames(&mut app, 1);
    assert_eq!(failures(&mut app), [TweenError::NoEntity(e)]);
}

#[test]
fn a_missing_component() {
    let mut app = app();
    let e = app.world_mut().spawn_empty().id();
    tween(
        &mut app,
        e,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::X, 1.0),
    );
    frames(&mut app, 1);
    let err = failures(&mut app);
    assert!(matches!(err[..], [TweenError::MissingComponent { entity, .. }] if entity == e));
    assert!(app.world().get::<Tweened<Translation>>(e).is_none());
}

#[test]
fn an_unregistered_lens() {
    let mut app = app();
    let e = app.world_mut().spawn(Unregistered(1.0)).id();
    tween(&mut app, e, UnregisteredLens, Motion::to(0.0, 1.0));
    frames(&mut app, 1);
    assert!(matches!(
        failures(&mut app)[..],
        [TweenError::UnregisteredLens(_)]
    ));
}

#[test]
fn a_bad_motion_keeps_the_running_tween() {
    let mut app = app();
    let e = app.world_mut().spawn(Transform::default()).id();
    tween(
        &mut app,
        e,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::X * 10.0, 1.0),
    );
    frames(&mut app, 1);
    tween(
        &mut app,
        e,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::Y, f32::NAN),
    );
    frames(&mut app, 1);
    assert!(matches!(
        failures(&mut app)[..],
        [TweenError::Build(BuildError::InvalidDuration(_))]
    ));
    assert_near(translation(&app, e), Vec3::X * 2.0);
}

#[test]
fn a_motion_with_its_own_callbacks() {
    let mut app = app();
    let e = app.world_mut().spawn(Transform::default()).id();
    tween(
        &mut app,
        e,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::X, 1.0).on_complete(|| {}),
    );
    frames(&mut app, 1);
    assert_eq!(failures(&mut app), [TweenError::MotionCallbacks]);
}

#[test]
fn no_plugin_resource_is_an_error_too() {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins);
    app.add_message::<TweenFailed>();
    let e = app.world_mut().spawn(Transform::default()).id();
    tween(
        &mut app,
        e,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::X, 1.0),
    );
    app.update();
    assert!(matches!(
        failures(&mut app)[..],
        [TweenError::UnregisteredLens(_)]
    ));
}
