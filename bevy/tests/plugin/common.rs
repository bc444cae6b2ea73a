//! A headless app whose frames are exactly 0.1 s.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_wgpu_tween::*;

/// Seconds per frame.
pub const DT: f32 = 0.1;

/// `MinimalPlugins`, the plugin, frames of `DT`; its first (zero-delta) frame already run.
pub fn app() -> App {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, TweenPlugin));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        DT,
    )));
    app.update();
    app
}

/// Runs `n` frames.
pub fn frames(app: &mut App, n: usize) {
    for _ in 0..n {
        app.update();
    }
}

/// Queues a tween on `e` (applied at the next frame's start, as from a system).
pub fn tween<L: Lens>(app: &mut App, e: Entity, lens: L, motion: Motion<L::Value>) {
    app.world_mut().commands().entity(e).tween(lens, motion);
}

pub fn translation(app: &App, e: Entity) -> Vec3 {
    app.world()
        .get::<Transform>(e)
        .expect("a Transform")
        .translation
}

/// `a` and `b` within 1e-5 per component.
#[track_caller]
pub fn assert_near(a: Vec3, b: Vec3) {
    assert!((a - b).abs().max_element() < 1e-5, "{a} != {b}");
}
