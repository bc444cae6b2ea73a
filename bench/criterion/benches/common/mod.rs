//! What both benchmark binaries build (included with `mod common;`; `tests/gpu/stats.rs`
//! uses [`run_of_type`] and `bench/examples/evaluate_ratio.rs` [`fill_typed`] too).

use glam::{Quat, Vec2, Vec3, Vec4};
use wgpu_tween::{
    AnimationCurve, Color, Ease, EaseMode, Keyframe, LoopType, Motion, MotionWorld, ParametricEase,
    RoundingMode,
};

/// Fills `world` with `n` staggered looping OutQuad motions: all `f32`, or (`mixed`) a
/// quarter each of `f32`, `Vec3`, `Quat` (slerp) and `Color`, interleaved in creation order
/// (the world keeps them in runs of one shape).
pub fn fill_typed(world: &mut MotionWorld, n: usize, mixed: bool) {
    world.reserve(n);
    let q1 = Quat::from_rotation_y(2.0);
    for i in 0..n {
        macro_rules! run {
            ($m:expr) => {
                $m.ease(Ease::OutQuad)
                    .loops(-1, LoopType::Restart)
                    .run(world)
                    .expect("valid motion")
            };
        }
        let h = match if mixed { i % 4 } else { 0 } {
            0 => run!(Motion::new(0.0f32, 10.0, 2.0)),
            1 => run!(Motion::new(Vec3::ZERO, Vec3::ONE, 2.0)),
            2 => run!(Motion::new(Quat::IDENTITY, q1, 2.0)),
            _ => run!(Motion::new(Color::BLACK, Color::WHITE, 2.0)),
        };
        world
            .set_time(h, (i % 1000) as f64 * 0.002)
            .expect("live motion");
    }
}

/// Runs `n` motions of 0.01 s: all `f32`, or (`every_type`) cycling through
/// [`run_of_type`].
pub fn run_short(world: &mut MotionWorld, n: usize, every_type: bool) {
    world.reserve(n);
    for i in 0..n {
        if every_type {
            run_of_type(world, i, 0.01);
        } else {
            Motion::new(0.0f32, 1.0, 0.01)
                .run(world)
                .expect("valid motion");
        }
    }
}

/// Runs motion number `i` of a cycle through every value type and shape a world can hold
/// (each integer rounding, slerp and nlerp, punch and shake, an animation curve, the
/// parametric eases), lasting `duration` seconds.
pub fn run_of_type(world: &mut MotionWorld, i: usize, duration: f32) {
    macro_rules! run {
        ($m:expr) => {{
            $m.run(world).expect("valid motion");
        }};
    }
    let d = duration;
    match i % 16 {
        0 => run!(Motion::new(0.0f32, 1.0, d).ease(Ease::InOutSine)),
        1 => run!(Motion::new(0.0f64, 1.0, d)),
        2 => run!(Motion::new(0i32, 100, d).rounding(RoundingMode::AwayFromZero)),
        3 => run!(Motion::new(0i64, -100, d)),
        4 => run!(Motion::new(Vec2::ZERO, Vec2::ONE, d)),
        5 => run!(Motion::new(Vec3::ZERO, Vec3::ONE, d)),
        6 => run!(Motion::new(Vec4::ZERO, Vec4::ONE, d)),
        7 => run!(Motion::new(Quat::IDENTITY, Quat::from_rotation_z(1.0), d)),
        8 => run!(Motion::new(Quat::IDENTITY, Quat::from_rotation_x(1.0), d).nlerp()),
        9 => run!(Motion::new(Color::BLACK, Color::WHITE, d)),
        10 => run!(Motion::new([0.0f32; 3], [1.0; 3], d)),
        11 => run!(Motion::punch(Vec3::ZERO, Vec3::ONE, d)),
        12 => run!(Motion::shake(Vec2::ZERO, Vec2::ONE, d).seed(i as u32)),
        13 => {
            let curve = AnimationCurve::new([Keyframe::new(0.0, 0.0), Keyframe::new(1.0, 1.0)])
                .expect("valid curve");
            run!(Motion::new(0.0f32, 1.0, d).ease_curve(&curve));
        }
        14 => run!(
            Motion::new(0.0f32, 1.0, d).ease_with(ParametricEase::Elastic {
                mode: EaseMode::Out,
                amplitude: 1.5,
                period: 0.4,
            })
        ),
        _ => {
            run!(Motion::new(0.0f32, 1.0, d)
                .ease_with(ParametricEase::CubicBezier(0.2, 0.0, 0.3, 1.0)))
        }
    }
}
