//! 10,000 sprites, each moving on its own looping path and fading its color: two tweens per
//! sprite, copied into `Transform` and `Sprite` by one parallel system per lens.
//!
//! `cargo run --release --example sprites -- --frames 60` writes target/sprites.png;
//! `--sprites N` draws N instead.
//!
//! On lavapipe (a CPU Vulkan driver) Bevy 0.20's sprite renderer takes hundreds of MB per
//! frame and does not give it back, tweens or not (it does the same with plain sprites):
//! there, run it headless with a hundred sprites (`--sprites 100 --frames 5`).

use bevy::prelude::*;
use bevy_wgpu_tween::*;
// By name: Bevy's prelude has an `Ease` trait.
use bevy_wgpu_tween::Ease;

mod headless;

/// How many sprites (`--sprites N`).
#[derive(Resource)]
struct Sprites(usize);

fn main() {
    let run = headless::Run::from_args("sprites");
    let sprites = headless::flag("--sprites").unwrap_or(10_000);
    let mut app = run.app();
    app.add_plugins(TweenPlugin)
        .insert_resource(Sprites(sprites))
        .add_systems(Startup, setup);
    run.run(app);
}

fn setup(
    mut commands: Commands,
    sprites: Res<Sprites>,
    target: Option<Res<headless::HeadlessTarget>>,
) {
    commands.spawn((Camera2d, headless::camera_target(target)));
    let half = headless::SIZE.as_vec2() / 2.0;
    for i in 0..sprites.0 {
        let h = |k: u32| hash(i as u32, k);
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

/// A number in [0, 1) from a sprite index and a key (a 32-bit integer hash: the
/// low-bias "lowbias32" mixer), so starts, ends and phases look random and differ per key.
fn hash(i: u32, k: u32) -> f32 {
    let mut x = i.wrapping_mul(0x9E37_79B9) ^ k.wrapping_mul(0x85EB_CA6B);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7FEB_352D);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846C_A68B);
    x ^= x >> 16;
    (x >> 8) as f32 / (1u32 << 24) as f32
}
