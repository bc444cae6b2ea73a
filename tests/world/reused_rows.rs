//! A motion that ends leaves its row as a hole, and the next motion of its shape writes only
//! the columns it reads (docs/design.md, the table's holes). Whatever the old motion left in
//! the others (a parametric ease's parameters, a curve's key range, its last value) must
//! never show in the new one: before its first update, after it, on every executor.

use crate::common;

use glam::Vec2;
use wgpu_tween::{AnimationCurve, EaseMode, Keyframe, Motion, ParametricEase};

#[test]
fn a_new_motion_in_an_old_row_shows_only_its_own_values() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        // (A world left empty drops its rows at once: one motion stays throughout.)
        let keeper = Motion::new(0.0f32, 1.0, 10.0).run(&mut world).unwrap();
        let steps = Motion::new(0.0f32, 8.0, 1.0)
            .ease_with(ParametricEase::Steps(4))
            .run(&mut world)
            .unwrap();
        let curve =
            AnimationCurve::new([Keyframe::new(0.0, 0.0), Keyframe::new(1.0, 1.0)]).expect("curve");
        let curved = Motion::new(0.0f32, 10.0, 1.0)
            .ease_curve(&curve)
            .run(&mut world)
            .unwrap();
        let pair = Motion::new(Vec2::ZERO, Vec2::new(4.0, -4.0), 1.0)
            .run(&mut world)
            .unwrap();
        world.update(0.5).unwrap();
        assert_eq!(world.value::<f32>(steps).unwrap(), 4.0, "{name}");
        for h in [steps, curved, pair] {
            world.cancel(h).unwrap();
        }
        // No update in between: each new motion takes a row one of those left (the pair
        // first, as a later shape's hole in the way would have the rows compacted).
        let pair = Motion::new(Vec2::new(1.0, 1.0), Vec2::new(3.0, 5.0), 1.0)
            .run(&mut world)
            .unwrap();
        let linear = Motion::new(100.0f32, 200.0, 1.0).run(&mut world).unwrap();
        let back = Motion::new(0.0f32, 1.0, 1.0)
            .ease_with(ParametricEase::Back {
                mode: EaseMode::Out,
                overshoot: 3.0,
            })
            .run(&mut world)
            .unwrap();
        // Before an update: each shows its own start value, not the old row's last.
        assert_eq!(world.value::<f32>(linear).unwrap(), 100.0, "{name}");
        assert_eq!(world.value::<f32>(back).unwrap(), 0.0, "{name}");
        assert_eq!(
            world.value::<Vec2>(pair).unwrap(),
            Vec2::new(1.0, 1.0),
            "{name}"
        );
        world.update(0.5).unwrap();
        assert_eq!(world.value::<f32>(linear).unwrap(), 150.0, "{name}");
        // Back Out with overshoot 3 at 0.5: 1 + 4·(−0.5)³ + 3·(−0.5)² = 1.25 (its own
        // parameters, not the Steps(4) or curve row's).
        let b = world.value::<f32>(back).unwrap();
        assert!((b - 1.25).abs() < 1e-6, "{name}: {b}");
        assert_eq!(
            world.value::<Vec2>(pair).unwrap(),
            Vec2::new(2.0, 3.0),
            "{name}"
        );
        assert_eq!(world.value::<f32>(keeper).unwrap(), 0.1, "{name}");
    }
}
