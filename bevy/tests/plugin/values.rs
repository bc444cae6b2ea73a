//! Components reach hand-computed values at given frames.

use bevy::prelude::*;
use bevy_wgpu_tween::*;
// By name: Bevy's prelude has an `Ease` trait.
use bevy_wgpu_tween::Ease;

use crate::common::*;

#[test]
fn linear_translation_moves_one_frame_delta_per_frame() {
    let mut app = app();
    let e = app.world_mut().spawn(Transform::default()).id();
    tween(
        &mut app,
        e,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::new(10.0, 0.0, -20.0), 1.0),
    );
    // The tween starts in the first frame and moves by that frame's delta in it.
    frames(&mut app, 1);
    assert_near(translation(&app, e), Vec3::new(1.0, 0.0, -2.0));
    frames(&mut app, 4);
    assert_near(translation(&app, e), Vec3::new(5.0, 0.0, -10.0));
    frames(&mut app, 10);
    // Ended exactly on its end value and left there.
    assert_eq!(translation(&app, e), Vec3::new(10.0, 0.0, -20.0));
    assert!(app.world().get::<Tweened<Translation>>(e).is_none());
    assert!(app
        .world_mut()
        .resource_mut::<Tweens>()
        .world_mut()
        .is_empty());
}

#[test]
fn eased_looping_translation() {
    let mut app = app();
    let e = app.world_mut().spawn(Transform::default()).id();
    let m = Motion::new(Vec3::ZERO, Vec3::X * 4.0, 1.0)
        .ease(Ease::OutQuad)
        .loops(-1, LoopType::Yoyo);
    tween(&mut app, e, Translation, m);
    frames(&mut app, 5); // OutQuad(0.5) = 0.75
    assert_near(translation(&app, e), Vec3::X * 3.0);
    frames(&mut app, 10); // 1.5 s: backwards at 0.5 again
    assert_near(translation(&app, e), Vec3::X * 3.0);
    frames(&mut app, 5); // 2.0 s: back at the start
    assert_near(translation(&app, e), Vec3::ZERO);
}

#[test]
fn to_starts_from_the_current_value() {
    let mut app = app();
    let e = app
        .world_mut()
        .spawn(Transform::from_xyz(2.0, 1.0, 0.0))
        .id();
    tween(
        &mut app,
        e,
        Translation,
        Motion::to(Vec3::new(4.0, 1.0, 0.0), 1.0),
    );
    frames(&mut app, 5);
    assert_near(translation(&app, e), Vec3::new(3.0, 1.0, 0.0));
}

#[test]
fn rotation_slerps_and_scale_lerps() {
    let mut app = app();
    let e = app.world_mut().spawn(Transform::default()).id();
    let quarter = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    tween(
        &mut app,
        e,
        Rotation,
        Motion::new(Quat::IDENTITY, quarter, 1.0),
    );
    tween(
        &mut app,
        e,
        Scale,
        Motion::new(Vec3::ONE, Vec3::splat(3.0), 1.0),
    );
    frames(&mut app, 5);
    let t = *app.world().get::<Transform>(e).unwrap();
    let eighth = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
    assert!(t.rotation.angle_between(eighth) < 1e-4, "{:?}", t.rotation);
    assert_near(t.scale, Vec3::splat(2.0));
}

#[test]
fn whole_transform_together() {
    let mut app = app();
    let e = app.world_mut().spawn(Transform::default()).id();
    let end = Transform::from_xyz(10.0, 0.0, 0.0).with_scale(Vec3::splat(2.0));
    let settings = MotionSettings {
        duration: 1.0,
        ..MotionSettings::default()
    };
    app.world_mut()
        .commands()
        .entity(e)
        .tween_transform(end, settings);
    frames(&mut app, 5);
    let t = *app.world().get::<Transform>(e).unwrap();
    assert_near(t.translation, Vec3::X * 5.0);
    assert_near(t.scale, Vec3::splat(1.5));
    frames(&mut app, 5);
    assert_eq!(*app.world().get::<Transform>(e).unwrap(), end);
}

#[test]
fn sprite_color_lerps_in_linear_rgba() {
    let mut app = app();
    let e = app.world_mut().spawn(Sprite::default()).id();
    let (from, to) = (
        LinearRgba::new(0.0, 0.2, 1.0, 1.0),
        LinearRgba::new(1.0, 0.4, 0.0, 0.0),
    );
    tween(
        &mut app,
        e,
        SpriteColor,
        Motion::new(from.into(), to.into(), 1.0),
    );
    frames(&mut app, 5);
    let c = app.world().get::<Sprite>(e).unwrap().color.to_linear();
    let want = [0.5, 0.3, 0.5, 0.5];
    let got = [c.red, c.green, c.blue, c.alpha];
    assert!(
        got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-5),
        "{got:?}"
    );
}

#[test]
fn ui_node_width_in_pixels() {
    let mut app = app();
    let e = app
        .world_mut()
        .spawn(Node {
            width: Val::Px(100.0),
            ..default()
        })
        .id();
    tween(&mut app, e, NodeWidth, Motion::to(300.0, 1.0));
    frames(&mut app, 5);
    assert_eq!(app.world().get::<Node>(e).unwrap().width, Val::Px(200.0));
}

/// A user component and lens.
#[derive(Component)]
struct Health(f32);

struct HealthLens;

impl Lens for HealthLens {
    type Component = Health;
    type Value = f32;
    fn get(h: &Health) -> f32 {
        h.0
    }
    fn set(h: &mut Health, v: f32) {
        h.0 = v;
    }
}

#[test]
fn a_registered_custom_lens() {
    let mut app = app();
    app.register_lens::<HealthLens>();
    let e = app.world_mut().spawn(Health(100.0)).id();
    tween(
        &mut app,
        e,
        HealthLens,
        Motion::to(0.0, 2.0).ease(Ease::InQuad),
    );
    frames(&mut app, 10); // InQuad(0.5) = 0.25
    assert!((app.world().get::<Health>(e).unwrap().0 - 75.0).abs() < 1e-4);
}

#[test]
fn many_entities_each_their_own_value() {
    let mut app = app();
    let n = 70_000; // more than one chunk of slots
    let es: Vec<Entity> = (0..n)
        .map(|_| app.world_mut().spawn(Transform::default()).id())
        .collect();
    for (i, &e) in es.iter().enumerate() {
        let to = Vec3::new(i as f32, 0.0, 0.0);
        tween(
            &mut app,
            e,
            Translation,
            Motion::new(Vec3::ZERO, to, 1.0).delay((i % 3) as f32 * 0.1),
        );
    }
    frames(&mut app, 5);
    for (i, &e) in es.iter().enumerate() {
        let t = 0.5 - (i % 3) as f64 * 0.1; // each delay shifts its start
        let (x, want) = (translation(&app, e).x as f64, i as f64 * t);
        assert!(
            (x - want).abs() <= 1e-5 * want.max(1.0),
            "{i}: {x} != {want}"
        );
    }
}
