//! bevy_tweening 0.17 against this plugin, side by side in one process: N entities each
//! animating `Transform::translation` (OutQuad, looping Yoyo / MirroredRepeat, staggered by
//! a delay), frame time per entity, after the delays are over. A third app is the floor:
//! wgpu-tween's own host-target update plus a hand-written copy into the components. An
//! empty app (MinimalPlugins alone) gives the frame's fixed cost, which the per-entity
//! columns leave out; the last column compares whole frames.
//!
//! `cargo bench --bench versus [-- N...]` (from `bevy/`); the apps alternate, each measured
//! `ROUNDS` times, and the table gives each one's median.

use std::time::{Duration, Instant};

use bevy::platform::cell::SyncCell;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_wgpu_tween::wgpu_tween::{self, TargetId};
use bevy_wgpu_tween::{Ease, LoopType, Motion, Translation, TweenCommandsExt, TweenPlugin};

const FRAME: Duration = Duration::from_micros(16_667);
/// Stagger: entity `i` starts `(i % STAGGER)` frames late.
const STAGGER: usize = 60;
const ROUNDS: usize = 5;

fn end(i: usize) -> Vec3 {
    Vec3::new((i % 1000) as f32, (i / 1000) as f32, 1.0)
}

fn delay(i: usize) -> Duration {
    FRAME * (i % STAGGER) as u32
}

fn base_app() -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(FRAME));
    app
}

fn bevy_tweening_app(n: usize) -> App {
    use bevy_tweening::lens::TransformPositionLens;
    use bevy_tweening::{Delay, RepeatCount, RepeatStrategy, Tween, TweenAnim, TweeningPlugin};
    let mut app = base_app();
    app.add_plugins(TweeningPlugin);
    for i in 0..n {
        let lens = TransformPositionLens {
            start: Vec3::ZERO,
            end: end(i),
        };
        let tween = Tween::new(EaseFunction::QuadraticOut, Duration::from_secs(1), lens)
            .with_repeat(RepeatCount::Infinite, RepeatStrategy::MirroredRepeat);
        let anim = if i % STAGGER == 0 {
            TweenAnim::new(tween)
        } else {
            TweenAnim::new(Delay::new(delay(i)).then(tween))
        };
        app.world_mut().spawn((Transform::default(), anim));
    }
    app
}

fn plugin_app(n: usize) -> App {
    let mut app = base_app();
    app.add_plugins(TweenPlugin);
    for i in 0..n {
        let motion = Motion::new(Vec3::ZERO, end(i), 1.0)
            .ease(Ease::OutQuad)
            .loops(-1, LoopType::Yoyo)
            .delay(delay(i).as_secs_f32());
        let mut commands = app.world_mut().commands();
        commands
            .spawn(Transform::default())
            .tween(Translation, motion);
    }
    app
}

/// The floor: the same motions writing one host target, and one system that updates the
/// world and copies each entity's value (its index in a component) into its `Transform`.
#[derive(Resource)]
struct Floor {
    world: SyncCell<wgpu_tween::MotionWorld>,
    target: TargetId,
}

#[derive(Component)]
struct Index(u32);

fn floor_app(n: usize) -> App {
    let mut app = base_app();
    let mut world = wgpu_tween::MotionWorld::new();
    let target = world.add_host_target(3 * n).expect("room for the target");
    for i in 0..n {
        Motion::new(Vec3::ZERO, end(i), 1.0)
            .ease(Ease::OutQuad)
            .loops(-1, LoopType::Yoyo)
            .delay(delay(i).as_secs_f32())
            .target(target.at(i as u32, 3, 0))
            .run(&mut world)
            .expect("a valid motion");
        app.world_mut()
            .spawn((Transform::default(), Index(i as u32)));
    }
    app.insert_resource(Floor {
        world: SyncCell::new(world),
        target,
    });
    app.add_systems(PostUpdate, floor_system);
    app
}

fn floor_system(
    mut floor: ResMut<Floor>,
    time: Res<Time<Virtual>>,
    mut q: Query<(&mut Transform, &Index)>,
) {
    let target = floor.target;
    let world = floor.world.get();
    world.update(time.delta_secs_f64()).expect("a valid delta");
    let values = world.host_target(target).expect("registered");
    let points: &[Vec3] = bytemuck::cast_slice(values);
    q.par_iter_mut()
        .for_each(|(mut t, i)| t.translation = points[i.0 as usize]);
}

/// Nanoseconds per frame: `frames` updates after the delays are over.
fn measure(app: &mut App, frames: usize) -> f64 {
    for _ in 0..STAGGER + 2 {
        app.update();
    }
    let start = Instant::now();
    for _ in 0..frames {
        app.update();
    }
    start.elapsed().as_nanos() as f64 / frames as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Prints one entity's value in each app: they animate the same motions.
fn check(apps: &mut [&mut App], n: usize) {
    let i = 12_345 % n;
    let values: Vec<Vec3> = apps
        .iter_mut()
        .map(|app| {
            let mut q = app.world_mut().query::<&Transform>();
            // Each app spawned its entities in index order.
            q.iter(app.world())
                .nth(i)
                .map_or(Vec3::NAN, |t| t.translation)
        })
        .collect();
    let spread = values
        .iter()
        .map(|v| (*v - values[0]).abs().max_element())
        .fold(0.0, f32::max);
    println!("  (entity {i}: {values:?}, spread {spread:.4})");
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let ns = if args.is_empty() {
        vec![1_000, 10_000, 100_000]
    } else {
        args
    };
    println!("bevy_tweening 0.17 vs bevy_wgpu_tween: ns per animated entity per frame, above");
    println!("an empty frame (median of {ROUNDS} alternating rounds; one app.update() a frame,");
    println!("MinimalPlugins)");
    println!();
    println!(
        "| N | empty frame | bevy_tweening | bevy_wgpu_tween | floor | speed-up | plugin / floor | speed-up, whole frame |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for n in ns {
        let frames = (2_000_000 / n).clamp(20, 400);
        let mut times: [Vec<f64>; 4] = Default::default();
        for round in 0..ROUNDS {
            let mut apps = [
                base_app(),
                bevy_tweening_app(n),
                plugin_app(n),
                floor_app(n),
            ];
            for (app, t) in apps.iter_mut().zip(&mut times) {
                t.push(measure(app, frames));
            }
            if round == 0 {
                let [_, a, b, c] = &mut apps;
                check(&mut [a, b, c], n);
            }
        }
        let [empty, t, o, f] = times.map(median);
        let per = |frame: f64| (frame - empty) / n as f64;
        let (pt, po, pf) = (per(t), per(o), per(f));
        println!(
            "| {n} | {:.0} µs | {pt:.1} | {po:.1} | {pf:.1} | {:.1}× | {:.2}× | {:.1}× |",
            empty / 1e3,
            pt / po,
            po / pf,
            t / o
        );
    }
}
