//! What both benchmark binaries build (included with `mod common;`).

use glam::{Quat, Vec3};
use wgpu_tween::{Color, Ease, LoopType, Motion, MotionWorld};

/// Fills `world` with `n` staggered looping OutQuad motions: all `f32`, or (`mixed`) a
/// quarter each of `f32`, `Vec3`, `Quat` (slerp) and `Color`, interleaved in creation order so
/// that every chunk and workgroup mixes them.
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
