//! A UI card animated by a sequence: it slides in, widens while its color turns, waits, and
//! plays back (a Yoyo loop); a row of squares below pops in one after another (delays).
//!
//! `cargo run --release --example ui_sequence -- --frames 90` writes target/ui_sequence.png.

use bevy::prelude::*;
use bevy_wgpu_tween::*;
// By name: Bevy's prelude has an `Ease` trait.
use bevy_wgpu_tween::Ease;

mod headless;

fn main() {
    let run = headless::Run::from_args("ui_sequence");
    let mut app = run.app();
    app.add_plugins(TweenPlugin).add_systems(Startup, setup);
    run.run(app);
}

fn setup(mut commands: Commands, target: Option<Res<headless::HeadlessTarget>>) {
    // The UI draws through this camera, also when it renders into the headless image.
    commands.spawn((Camera2d, IsDefaultUiCamera, headless::camera_target(target)));
    let blue = Color::srgb(0.2, 0.4, 0.9);
    let card = commands
        .spawn((
            Node {
                position_type: PositionType::Absolute,
                left: Val::Px(-200.0),
                top: Val::Px(60.0),
                width: Val::Px(200.0),
                height: Val::Px(120.0),
                ..default()
            },
            BackgroundColor(blue),
        ))
        .id();
    // One timeline: slide in, then widen and change color together, then hold.
    commands.entity(card).tween_sequence(
        TweenSequence::new()
            .append(NodeLeft, Motion::new(-200.0, 40.0, 0.6).ease(Ease::OutBack))
            .append(
                NodeWidth,
                Motion::new(200.0, 560.0, 0.5).ease(Ease::InOutCubic),
            )
            .join(
                BackgroundColorLens,
                Motion::new(blue.into(), Color::srgb(0.95, 0.5, 0.1).into(), 0.5),
            )
            .append_interval(0.5)
            .configure(|m| m.loops(-1, LoopType::Yoyo)),
    );
    // Eight squares, each popping in 0.1 s after the one before.
    for i in 0..8 {
        let square = commands
            .spawn((
                Node {
                    position_type: PositionType::Absolute,
                    left: Val::Px(40.0 + 70.0 * i as f32),
                    top: Val::Px(240.0),
                    width: Val::Px(0.0),
                    height: Val::Px(50.0),
                    ..default()
                },
                BackgroundColor(Color::srgb(0.3, 0.8, 0.4)),
            ))
            .id();
        let pop = Motion::new(0.0, 50.0, 0.4)
            .ease(Ease::OutBack)
            .delay(0.1 * i as f32);
        commands.entity(square).tween(NodeWidth, pop);
    }
}
