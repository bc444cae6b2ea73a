//! Worlds holding one kind of motion each, and worlds whose kinds change (a kind arriving
//! mid-run, a world emptied and refilled), agree on the GPU executor with the CPU executor
//! at every update, within 1e-4 × max(1, |to − from|) per lane. Between them they run every
//! evaluate pipeline variant: each shape class with plain timing and with any timing, and
//! the general variant (parametric eases, curves, sequences), and the switches between
//! them as kinds arrive and leave.

use crate::common;

use std::sync::{Arc, Mutex};

use glam::{Quat, Vec2, Vec3};
use wgpu_tween::{
    Animatable, AnimationCurve, Color, DelayType, Ease, EaseMode, Keyframe, LoopType, Motion,
    MotionWorld, ParametricEase, Sequence,
};

/// Every loop type.
const LOOP_TYPES: [LoopType; 4] = [
    LoopType::Restart,
    LoopType::Flip,
    LoopType::Yoyo,
    LoopType::Incremental,
];

type Probe = Arc<Mutex<[f32; 4]>>;

/// Binds `motion` to a probe holding its latest lanes.
fn probe<T: Animatable>(world: &mut MotionWorld, motion: Motion<T>) -> Probe {
    let seen: Probe = Arc::new(Mutex::new([f32::NAN; 4]));
    let sink = Arc::clone(&seen);
    motion
        .immediate_bind(false)
        .bind(world, move |v: T| *sink.lock().unwrap() = v.to_lanes())
        .expect("valid motion");
    seen
}

/// Motions of `ease` over every loop type, with and without every-loop delays.
fn eased(world: &mut MotionWorld, ease: Ease) -> Vec<Probe> {
    let mut out = Vec::new();
    for (i, loop_type) in LOOP_TYPES.into_iter().enumerate() {
        let delay_type = if i % 2 == 0 {
            DelayType::FirstLoop
        } else {
            DelayType::EveryLoop
        };
        let motion = Motion::new(-3.0f32, 7.0, 0.4 + 0.1 * i as f32)
            .ease(ease)
            .delay_with(0.05 * i as f32, delay_type, false)
            .loops(-1, loop_type);
        out.push(probe(world, motion));
    }
    out
}

/// OutQuad over every loop type, infinite loops and no delay (as `benches/gpu.rs`).
fn plain(world: &mut MotionWorld) -> Vec<Probe> {
    LOOP_TYPES
        .into_iter()
        .enumerate()
        .map(|(i, loop_type)| {
            let motion = Motion::new(1.0f32, -4.0, 0.3 + 0.1 * i as f32)
                .ease(Ease::OutQuad)
                .loops(-1, loop_type);
            probe(world, motion)
        })
        .collect()
}

/// Lerped rows of two, three and four lanes (no quaternion or punch/shake adapter).
fn multi_lane(world: &mut MotionWorld) -> Vec<Probe> {
    vec![
        probe(
            world,
            Motion::new(Vec2::new(1.0, -2.0), Vec2::new(-3.0, 5.0), 0.35).loops(-1, LoopType::Yoyo),
        ),
        probe(
            world,
            Motion::new(Vec3::ZERO, Vec3::new(2.0, 4.0, -8.0), 0.45).ease(Ease::OutQuad),
        ),
        probe(
            world,
            Motion::new(Color::BLACK, Color::new(0.25, 0.5, 0.75, 1.0), 0.55)
                .loops(-1, LoopType::Flip),
        ),
    ]
}

/// Finite loop counts without a delay; they complete within the frames compared.
fn finite(world: &mut MotionWorld) -> Vec<Probe> {
    [
        (1, LoopType::Restart),
        (3, LoopType::Yoyo),
        (2, LoopType::Incremental),
    ]
    .into_iter()
    .map(|(loops, loop_type)| {
        let motion = Motion::new(0.0f32, 6.0, 0.15)
            .loops(loops, loop_type)
            .preserve();
        probe(world, motion)
    })
    .collect()
}

/// Playback speeds other than 1 (frozen, backward, faster), no delay, infinite loops.
fn speeds(world: &mut MotionWorld) -> Vec<Probe> {
    [0.0, -1.0, 1.75]
        .into_iter()
        .map(|speed| {
            let motion = Motion::new(2.0f32, 9.0, 0.35)
                .ease(Ease::InQuad)
                .loops(-1, LoopType::Yoyo)
                .playback_speed(speed);
            probe(world, motion)
        })
        .collect()
}

/// Every shape class with timing that is not plain (a delay, an every-loop delay, a speed,
/// a zero duration), so each class's run takes its variant for any timing.
fn timed_shapes(world: &mut MotionWorld) -> Vec<Probe> {
    let q = Quat::from_axis_angle(Vec3::X, 1.2);
    vec![
        probe(
            world,
            Motion::new(Vec2::ZERO, Vec2::new(3.0, -1.0), 0.3)
                .delay(0.05)
                .loops(-1, LoopType::Yoyo),
        ),
        probe(
            world,
            Motion::new(Vec3::ONE, Vec3::new(-2.0, 0.5, 4.0), 0.25)
                .playback_speed(1.5)
                .loops(-1, LoopType::Incremental),
        ),
        probe(
            world,
            Motion::new(Color::WHITE, Color::new(0.1, 0.2, 0.3, 0.4), 0.2)
                .delay_with(0.04, DelayType::EveryLoop, false)
                .loops(-1, LoopType::Flip),
        ),
        probe(
            world,
            Motion::new(Quat::IDENTITY, q, 0.35)
                .delay(0.1)
                .loops(-1, LoopType::Restart),
        ),
        probe(world, Motion::new(0.0f32, 4.0, 0.0).delay(0.2).preserve()),
    ]
}

fn parametric(world: &mut MotionWorld) -> Vec<Probe> {
    [
        ParametricEase::Back {
            mode: EaseMode::InOut,
            overshoot: 2.5,
        },
        ParametricEase::Elastic {
            mode: EaseMode::Out,
            amplitude: 1.5,
            period: 0.4,
        },
        ParametricEase::Steps(5),
    ]
    .into_iter()
    .map(|ease| {
        let motion = Motion::new(0.0f32, 5.0, 0.7)
            .ease_with(ease)
            .loops(-1, LoopType::Yoyo);
        probe(world, motion)
    })
    .collect()
}

/// The CSS cubic Bézier, which has a variant bit of its own beside the other parametric eases.
fn bezier(world: &mut MotionWorld) -> Vec<Probe> {
    let motion = Motion::new(0.0f32, 5.0, 0.7)
        .ease_with(ParametricEase::CubicBezier(0.68, -0.6, 0.32, 1.6))
        .loops(-1, LoopType::Yoyo);
    vec![probe(world, motion)]
}

fn curve(world: &mut MotionWorld) -> Vec<Probe> {
    let curve = AnimationCurve::new([
        Keyframe::new(0.0, 0.0),
        Keyframe::new(0.3, 0.8),
        Keyframe::new(1.0, 1.0),
    ])
    .expect("curve");
    let motion = Motion::new(2.0f32, 4.0, 0.6)
        .ease_curve(&curve)
        .loops(-1, LoopType::Incremental);
    vec![probe(world, motion)]
}

fn quaternion(world: &mut MotionWorld) -> Vec<Probe> {
    let a = Quat::from_axis_angle(Vec3::Y, 0.3);
    let b = Quat::from_axis_angle(Vec3::new(1.0, 1.0, 0.0).normalize(), 2.0);
    let motion = Motion::new(a, b, 0.9).loops(-1, LoopType::Flip);
    vec![probe(world, motion)]
}

fn vibrate(world: &mut MotionWorld) -> Vec<Probe> {
    let punch =
        Motion::punch(Vec3::new(1.0, 2.0, 3.0), Vec3::ONE, 0.8).loops(-1, LoopType::Restart);
    let shake = Motion::shake(0.0f32, 2.0, 0.7)
        .seed(7)
        .loops(-1, LoopType::Restart);
    vec![probe(world, punch), probe(world, shake)]
}

fn sequence(world: &mut MotionWorld) -> Vec<Probe> {
    let a = Motion::new(0.0f32, 10.0, 0.5)
        .ease(Ease::OutQuad)
        .immediate_bind(false);
    let b = Motion::new(5.0f32, -5.0, 0.4).immediate_bind(false);
    let (pa, pb): (Probe, Probe) = (
        Arc::new(Mutex::new([f32::NAN; 4])),
        Arc::new(Mutex::new([f32::NAN; 4])),
    );
    let (sa, sb) = (Arc::clone(&pa), Arc::clone(&pb));
    let a = a
        .bind(world, move |v: f32| *sa.lock().unwrap() = v.to_lanes())
        .expect("child a");
    let b = b
        .bind(world, move |v: f32| *sb.lock().unwrap() = v.to_lanes())
        .expect("child b");
    Sequence::new()
        .append(a)
        .append(b)
        .run(world)
        .expect("sequence");
    vec![pa, pb]
}

/// Updates both worlds `frames` times and compares every probe after each update.
fn compare(
    cpu: &mut MotionWorld,
    gpu: &mut MotionWorld,
    probes: &[(Probe, Probe)],
    frames: usize,
    what: &str,
) {
    for frame in 0..frames {
        let dt = 0.013 + 0.011 * (frame % 7) as f64;
        cpu.update(dt).expect("cpu update");
        gpu.update(dt).expect("gpu update");
        assert_eq!(gpu.take_gpu_error(), None, "{what}");
        for (k, (c, g)) in probes.iter().enumerate() {
            let (c, g) = (*c.lock().unwrap(), *g.lock().unwrap());
            for lane in 0..4 {
                let tolerance = 1e-4 * c[lane].abs().max(10.0);
                let same = (c[lane].is_nan() && g[lane].is_nan())
                    || (c[lane] - g[lane]).abs() <= tolerance;
                assert!(
                    same,
                    "{what}: probe {k} lane {lane} frame {frame}: cpu {c:?} gpu {g:?}"
                );
            }
        }
    }
}

type Build = fn(&mut MotionWorld) -> Vec<Probe>;

fn paired(
    cpu: &mut MotionWorld,
    gpu: &mut MotionWorld,
    build: impl Fn(&mut MotionWorld) -> Vec<Probe>,
) -> Vec<(Probe, Probe)> {
    build(cpu).into_iter().zip(build(gpu)).collect()
}

/// Builds the worlds of `build` on both executors and compares them for 40 updates.
fn one_kind_matches_the_cpu(what: &str, build: impl Fn(&mut MotionWorld) -> Vec<Probe>) {
    let Some((mut cpu, mut gpu)) = common::cpu_and_gpu_worlds() else {
        return;
    };
    let probes = paired(&mut cpu, &mut gpu, &build);
    compare(&mut cpu, &mut gpu, &probes, 40, what);
}

#[test]
fn worlds_of_one_kind_match_the_cpu() {
    let cases: [(&str, Build); 11] = [
        ("plain, no delay", plain),
        ("every shape, timed", timed_shapes),
        ("two to four lanes", multi_lane),
        ("finite loops", finite),
        ("speeds", speeds),
        ("parametric", parametric),
        ("cubic Bézier", bezier),
        ("curve", curve),
        ("quaternion", quaternion),
        ("punch and shake", vibrate),
        ("sequence", sequence),
    ];
    for (what, build) in cases {
        one_kind_matches_the_cpu(what, build);
    }
    // One world per standard ease: the polynomial ones run without the code of the others.
    for ease in Ease::ALL {
        one_kind_matches_the_cpu(&format!("{ease:?}"), |w| eased(w, ease));
    }
}

#[test]
fn kinds_arriving_mid_run_and_after_an_empty_world_match_the_cpu() {
    let Some((mut cpu, mut gpu)) = common::cpu_and_gpu_worlds() else {
        return;
    };
    // Plain rows first, then every other kind joins them one by one.
    let mut probes = paired(&mut cpu, &mut gpu, plain);
    compare(&mut cpu, &mut gpu, &probes, 10, "plain");
    let builds: [(&str, Build); 12] = [
        ("+ two to four lanes", multi_lane),
        ("+ every shape, timed", timed_shapes),
        ("+ speeds", speeds),
        ("+ delays", |w| eased(w, Ease::OutQuad)),
        ("+ finite loops", finite),
        ("+ sequence", sequence),
        ("+ OutBounce", |w| eased(w, Ease::OutBounce)),
        ("+ parametric", parametric),
        ("+ cubic Bézier", bezier),
        ("+ curve", curve),
        ("+ quaternion", quaternion),
        ("+ punch and shake", vibrate),
    ];
    for (what, build) in builds {
        probes.extend(paired(&mut cpu, &mut gpu, build));
        compare(&mut cpu, &mut gpu, &probes, 10, what);
    }

    // A world emptied (its motions finish), refilled with plain rows, then a kind joins.
    let Some((mut cpu, mut gpu)) = common::cpu_and_gpu_worlds() else {
        return;
    };
    let finite: Build = |w| {
        vec![probe(
            w,
            Motion::new(0.0f32, 1.0, 0.1).ease(Ease::InOutElastic),
        )]
    };
    let probes = paired(&mut cpu, &mut gpu, finite);
    compare(&mut cpu, &mut gpu, &probes, 12, "finite elastic");
    assert_eq!(gpu.len(), 0, "the finite motion completed");
    let mut probes = paired(&mut cpu, &mut gpu, |w| eased(w, Ease::InOutQuart));
    compare(&mut cpu, &mut gpu, &probes, 10, "refilled with quart");
    probes.extend(paired(&mut cpu, &mut gpu, |w| eased(w, Ease::InOutSine)));
    compare(&mut cpu, &mut gpu, &probes, 20, "+ sine");
}

#[test]
fn a_run_that_leaves_the_general_variant_still_matches_the_cpu() {
    let Some((mut cpu, mut gpu)) = common::cpu_and_gpu_worlds() else {
        return;
    };
    // Plain rows, and a short parametric motion in their run: the run is general until it
    // completes (about frame 5), then plain again.
    let build: Build = |w| {
        let mut probes = plain(w);
        probes.push(probe(
            w,
            Motion::new(0.0f32, 3.0, 0.1).ease_with(ParametricEase::Steps(4)),
        ));
        probes
    };
    let probes = paired(&mut cpu, &mut gpu, build);
    compare(&mut cpu, &mut gpu, &probes, 12, "general, then plain");
    let stats = gpu.gpu().update_stats().expect("a device");
    assert_eq!(stats.general_rows, 0, "the parametric motion is gone");
    assert_eq!(gpu.len(), 4);
}
