//! `#[derive(Animatable)]`: a struct's fields as lanes side by side, on every executor.

use crate::common;

use glam::Vec2;
use wgpu_tween::{Angle, Animatable, Color, Motion};

#[derive(Clone, Copy, Debug, Default, PartialEq, wgpu_tween_derive::Animatable)]
struct Sprite {
    position: Vec2,
    alpha: f32,
    turn: Angle,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, wgpu_tween_derive::Animatable)]
struct Tint(Color);

#[test]
fn fields_are_lanes_in_declaration_order() {
    assert_eq!(<Sprite as Animatable>::LANES, 4);
    assert_eq!(<Tint as Animatable>::LANES, 4);
    let s = Sprite {
        position: Vec2::new(1.0, 2.0),
        alpha: 3.0,
        turn: Angle(4.0),
    };
    assert_eq!(s.to_lanes(), [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(Sprite::from_lanes([1.0, 2.0, 3.0, 4.0]), s);
    let t = Tint(Color::new(0.1, 0.2, 0.3, 0.4));
    assert_eq!(t.to_lanes(), [0.1, 0.2, 0.3, 0.4]);
    assert_eq!(Tint::from_lanes(t.to_lanes()), t);
}

#[test]
fn a_derived_struct_lerps_every_field_on_every_executor() {
    for exec in common::executors() {
        let mut world = exec.world();
        let from = Sprite {
            position: Vec2::new(0.0, 10.0),
            alpha: 1.0,
            turn: Angle::from_degrees(0.0),
        };
        let to = Sprite {
            position: Vec2::new(100.0, -10.0),
            alpha: 0.0,
            turn: Angle::from_degrees(320.0), // the short way from 0°: −40°, not +320°
        };
        let h = Motion::new(from, to, 2.0)
            .preserve()
            .run(&mut world)
            .unwrap();
        world.update(0.5).unwrap(); // linear, a quarter of the way
        let got = world.value::<Sprite>(h).unwrap();
        let want = Sprite {
            position: Vec2::new(25.0, 5.0),
            alpha: 0.75,
            turn: Angle::from_degrees(-10.0),
        };
        assert_eq!(got.position, want.position, "{}", exec.name());
        assert_eq!(got.alpha, want.alpha, "{}", exec.name());
        let turn = got.turn.to_degrees();
        assert!(
            (turn - want.turn.to_degrees()).abs() < 1e-3,
            "{}: {turn}",
            exec.name()
        );
    }
}
