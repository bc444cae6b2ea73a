//! 10,000 sprites, each moving on its own looping path and fading its color: two tweens per
//! sprite, copied into `Transform` and `Sprite` by one parallel system per lens.
//!
//! `cargo run --release --example sprites -- --frames 60` writes target/sprites.png.

use bevy::prelude::*;
use bevy_wgpu_tween::*;
// By name: Bevy's prelude has an `Ease` trait.
use bevy_wgpu_tween::Ease;

mod headless;

const SPRITES: usize = 10_000;

fn main() {
    let run = headless::Run::from_args("sprites");
    let mut app = run.app();
    app.add_plugins(TweenPlugin).add_systems(Startup, setup);
    run.run(app);
}

fn setup(mut commands: Commands, target: Option<Res<headless::HeadlessTarget>>) {
    commands.spawn((Camera2d, headless::camera_target(target)));
    let half = headless::SIZE.as_vec2() / 2.0;
    for i in 0..SPRITES {
        // A cheap hash spreads start points, ends and phases.
        let h = |k: u32| {
            (((i as u32).wrapping_mul(2_654_435_761) ^ k).wrapping_mul(40_503) % 1000) as f32
                / 1000.0
        };
        let from = Vec3::new(
            (h(1) - 0.5) * 2.0 * half.x,
            (h(2) - 0.5) * 2.0 * half.y,
            0.0,
        );
        let to = Vec3::new(
            (h(3) - 0.5) * 2.0 * half.x,
            (h(4) - 0.5) * 2.0 * half.y,
            0.0,
        );
        let hue = 360.0 * h(5);
        let (a, b) = (
            Color::hsl(hue, 0.8, 0.6),
            Color::hsl((hue + 120.0) % 360.0, 0.8, 0.5),
        );
        let period = 1.0 + 2.0 * h(6);
        commands
            .spawn((
                Sprite::from_color(a, Vec2::splat(4.0)),
                Transform::from_translation(from),
            ))
            .tween(
                Translation,
                Motion::new(from, to, period)
                    .ease(Ease::InOutSine)
                    .loops(-1, LoopType::Yoyo),
            )
            .tween(
                SpriteColor,
                Motion::new(a.into(), b.into(), period * 0.5).loops(-1, LoopType::Yoyo),
            );
    }
}
