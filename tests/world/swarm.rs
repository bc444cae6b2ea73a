//! The swarm example's rendering code (`examples/swarm/render.rs`) on the available adapter:
//! one small frame of a few thousand particles, whose position and color motions write an
//! instance buffer through GPU targets. A handful of particles that nothing covers are
//! checked pixel by pixel: at the place their position motion says, the color their color
//! motion says, both computed here from each motion's from/to/ease/delay/loop settings
//! (docs/semantics.md §2), not read from the engine. Runs on both executors.

use crate::common;

#[allow(dead_code)] // parts only the example uses
#[path = "../../examples/swarm/render.rs"]
mod render;

// The eases by the easings.net formulas in f64 (the model test's reference, independent of
// the library).
#[allow(dead_code)] // the model's progress and timing, unused here
#[path = "../model/reference.rs"]
mod reference;

use reference::ease;
use render::{Particle, Track};
use wgpu_tween::{Executor, LoopType};

const WIDTH: u32 = 512;
const HEIGHT: u32 = 384;
const POINT_PX: f32 = 4.0;
const PARTICLES: usize = 3000;
/// Updates of `DT` before the frame (exact in binary, so the clock is exactly 1.5 s).
const UPDATES: u32 = 6;
const DT: f64 = 0.25;

/// A track's lanes at world time `now`, or `None` when `now` is within `margin` of a loop
/// or delay boundary (where f32 rounding could pick either side).
fn value_at(track: &Track, now: f64, margin: f64) -> Option<[f64; 4]> {
    let from = track.from.map(f64::from);
    let to = track.to.map(f64::from);
    let tss = now - f64::from(track.delay);
    if tss.abs() < margin {
        return None;
    }
    if tss < 0.0 {
        // Values are skipped during the delay: the buffer keeps its initial `from`.
        return Some(from);
    }
    let duration = f64::from(track.duration);
    let loops = (tss / duration).floor();
    let phase = tss / duration - loops;
    if phase < margin / duration || phase > 1.0 - margin / duration {
        return None;
    }
    let odd = loops as u64 % 2 == 1;
    let p = match track.loop_type {
        LoopType::Restart => ease(track.ease, phase),
        LoopType::Yoyo if odd => ease(track.ease, 1.0 - phase),
        LoopType::Flip if odd => 1.0 - ease(track.ease, phase),
        LoopType::Yoyo | LoopType::Flip => ease(track.ease, phase),
        other => panic!("the swarm does not use {other:?}"),
    };
    Some(std::array::from_fn(|k| from[k] + (to[k] - from[k]) * p))
}

/// Whether the square of particle `j` (at `center`, half-size `half`) comes within `margin`
/// pixels of pixel `(px, py)`'s center.
fn covers(center: (f32, f32), half: f32, (px, py): (u32, u32), margin: f32) -> bool {
    let (cx, cy) = (px as f32 + 0.5, py as f32 + 0.5);
    (center.0 - cx).abs() <= half + margin && (center.1 - cy).abs() <= half + margin
}

fn check(executor: Executor) {
    let Some(ctx) = common::gpu() else { return };
    let particles: Vec<Particle> = render::particles(PARTICLES, 42);
    let mut swarm =
        render::Swarm::new(&ctx, &particles, executor, (WIDTH, HEIGHT), POINT_PX).expect("swarm");
    assert_eq!(swarm.world.len(), 2 * PARTICLES);
    for _ in 0..UPDATES {
        swarm.update(DT).expect("update");
    }
    swarm.render();
    let image = swarm.read_frame().expect("frame");
    let now = f64::from(UPDATES) * DT;

    // Expected squares of every particle (None near a boundary: then it may be anywhere on
    // its path, so nothing near it is checked).
    let margin_s = 0.01;
    let expected: Vec<Option<([f64; 4], [f64; 4])>> = particles
        .iter()
        .map(|p| {
            Some((
                value_at(&p.position, now, margin_s)?,
                value_at(&p.color, now, margin_s)?,
            ))
        })
        .collect();
    let squares: Vec<Option<((f32, f32), f32)>> = expected
        .iter()
        .map(|e| {
            e.map(|(pos, _)| {
                let (x, y, half) = render::project(
                    [pos[0] as f32, pos[1] as f32, pos[2] as f32],
                    WIDTH,
                    HEIGHT,
                    POINT_PX,
                );
                ((x, y), half)
            })
        })
        .collect();

    let mut checked = 0;
    let mut failures = Vec::new();
    for (i, e) in expected.iter().enumerate() {
        if checked >= 16 {
            break;
        }
        let (Some((_, color)), Some((center, half))) = (e, squares[i]) else {
            continue;
        };
        if center.0 < 2.0
            || center.1 < 2.0
            || center.0 > WIDTH as f32 - 2.0
            || center.1 > HEIGHT as f32 - 2.0
        {
            continue;
        }
        let pixel = (center.0.floor() as u32, center.1.floor() as u32);
        assert!(half > 0.5 + 0.1, "squares cover their center pixel");
        // Skip particles that a later one (drawn over it) or an uncertain one may cover.
        let covered = (0..PARTICLES)
            .filter(|&j| j != i)
            .any(|j| match squares[j] {
                Some((c, h)) => j > i && covers(c, h, pixel, 1.5),
                None => {
                    // Uncertain position: anywhere between from and to would be too broad a
                    // test; a boundary particle sits at one end of its path, so check both.
                    let p = &particles[j].position;
                    [p.from, p.to].iter().any(|v| {
                        let (x, y, h) =
                            render::project([v[0], v[1], v[2]], WIDTH, HEIGHT, POINT_PX);
                        covers((x, y), h, pixel, 1.5)
                    })
                }
            });
        if covered {
            continue;
        }
        let want: [u8; 3] =
            std::array::from_fn(|k| (color[k].clamp(0.0, 1.0) * 255.0).round() as u8);
        let got = image.get_pixel(pixel.0, pixel.1).0;
        let off = (0..3)
            .map(|k| (i32::from(got[k]) - i32::from(want[k])).abs())
            .max()
            .unwrap_or(0);
        if off > 2 {
            failures.push(format!(
                "particle {i}: pixel {pixel:?} is {got:?}, expected {want:?} (position {:?})",
                e.map(|(p, _)| p)
            ));
        }
        checked += 1;
    }
    for f in &failures {
        println!("FAIL {f}");
    }
    assert!(checked >= 8, "only {checked} isolated particles to check");
    assert!(
        failures.is_empty(),
        "{executor:?}: {} of {checked} particles wrong",
        failures.len()
    );

    // And the background where no particle can be: far from every from, to and now.
    let corner = (1u32, 1u32);
    let empty = particles.iter().all(|p| {
        [p.position.from, p.position.to].iter().all(|v| {
            let (x, y, h) = render::project([v[0], v[1], v[2]], WIDTH, HEIGHT, POINT_PX);
            !covers((x, y), h, corner, 1.0)
        })
    });
    if empty {
        assert_eq!(image.get_pixel(corner.0, corner.1).0, render::BACKGROUND);
    }
    println!("{executor:?}: {checked} particles checked at t = {now} s");
}

/// `MotionWorld::gpu_pass_time`: timestamps around the evaluate pass, where the device has
/// `TIMESTAMP_QUERY`; never on the CPU executor.
#[test]
fn gpu_pass_time_comes_from_timestamps() {
    let Some(ctx) = common::gpu() else { return };
    let particles = render::particles(500, 3);
    for executor in [Executor::Gpu, Executor::Cpu] {
        let mut swarm =
            render::Swarm::new(&ctx, &particles, executor, (64, 64), 2.0).expect("swarm");
        let timing = swarm.world.gpu_mut().set_pass_timing(true);
        assert_eq!(
            timing,
            ctx.device()
                .features()
                .contains(wgpu::Features::TIMESTAMP_QUERY)
        );
        let mut times = Vec::new();
        for _ in 0..3 {
            swarm.update(DT).expect("update");
            swarm.wait().expect("wait");
            times.push(swarm.world.gpu_mut().pass_time());
        }
        let timed = ctx
            .device()
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY);
        match (executor, timed) {
            (Executor::Gpu, true) => {
                for t in &times {
                    let t = t.expect("a pass time after each update and wait");
                    assert!(t < std::time::Duration::from_secs(5), "{t:?}");
                }
            }
            _ => assert!(times.iter().all(Option::is_none), "{executor:?}: {times:?}"),
        }
    }
}

#[test]
fn swarm_frame_gpu_executor() {
    check(Executor::Gpu);
}

#[test]
fn swarm_frame_cpu_executor_fills_targets_by_upload() {
    check(Executor::Cpu);
}
