//! Animation curves as eases (docs/semantics.md §4) on every executor: one key, bad curves, wrap
//! modes, steps, the key pool's memory, and CPU–GPU parity of random curves.

use crate::common;

use std::sync::{Arc, Mutex};

use wgpu_tween::{
    AnimationCurve, BuildError, Keyframe, LoopType, Motion, MotionHandle, MotionWorld,
    WeightedMode, WrapMode,
};

/// The last value a bind received: what the executor computed (`MotionWorld::value` is a
/// CPU query, so the GPU executor's output is seen only through binds).
type Seen = Arc<Mutex<f32>>;

/// Adds `motion` with a bind that records into a new [`Seen`] (no immediate bind).
fn bind_seen(motion: Motion<f32>, world: &mut MotionWorld) -> (MotionHandle, Seen) {
    let seen = Arc::new(Mutex::new(f32::NAN));
    let sink = Arc::clone(&seen);
    let h = motion
        .immediate_bind(false)
        .bind(world, move |v| *sink.lock().unwrap() = v)
        .expect("motion");
    (h, seen)
}

/// The curve's eased value at progress `x`, as each executor computes it: a frozen motion
/// 0 → 1 over 1 s (preserved) whose clock is set to `x`, bound after one update.
fn through_executors(curve: &AnimationCurve, xs: &[f64]) -> Vec<(&'static str, Vec<f32>)> {
    common::executors()
        .into_iter()
        .map(|exec| {
            let mut world = exec.world();
            let probes: Vec<_> = xs
                .iter()
                .map(|&x| {
                    let motion = Motion::new(0.0f32, 1.0, 1.0)
                        .ease_curve(curve)
                        .playback_speed(0.0)
                        .preserve(); // x = 1 completes it
                    let (h, seen) = bind_seen(motion, &mut world);
                    world.set_time(h, x).expect("set_time");
                    seen
                })
                .collect();
            world.update(0.0).expect("update");
            let values = probes.iter().map(|seen| *seen.lock().unwrap()).collect();
            (exec.name(), values)
        })
        .collect()
}

/// Checks `curve` at each `(x, y)` directly and on every executor.
fn assert_samples(curve: &AnimationCurve, samples: &[(f64, f32)], tolerance: f32) {
    let xs: Vec<f64> = samples.iter().map(|s| s.0).collect();
    for &(x, y) in samples {
        let got = curve.evaluate(x as f32);
        assert!(
            (got - y).abs() <= tolerance,
            "evaluate({x}) = {got}, expected {y}"
        );
    }
    for (name, values) in through_executors(curve, &xs) {
        for (&(x, y), got) in samples.iter().zip(values) {
            assert!(
                (got - y).abs() <= tolerance,
                "[{name}] at x = {x}: {got}, expected {y}"
            );
        }
    }
}

#[test]
fn one_key_is_constant_and_never_nan() {
    for wrap in [WrapMode::Clamp, WrapMode::Loop, WrapMode::PingPong] {
        let curve = AnimationCurve::new([Keyframe::with_tangents(0.3, 0.7, f32::INFINITY, 5.0)])
            .expect("one key")
            .wrap(wrap);
        for x in [-1e30f32, -2.0, 0.0, 0.3, 0.5, 1.0, 7.0, 1e30] {
            assert_eq!(curve.evaluate(x), 0.7, "{wrap:?} at {x}");
        }
        let samples: Vec<(f64, f32)> = [0.0, 0.25, 0.3, 0.9, 1.0]
            .iter()
            .map(|&x| (x, 0.7))
            .collect();
        assert_samples(&curve, &samples, 0.0);
    }
    // Through loops (Incremental adds E(1) per loop) and the immediate bind.
    let curve = AnimationCurve::new([Keyframe::new(0.0, 0.5)]).expect("curve");
    for exec in common::executors() {
        let mut world = exec.world();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let h = Motion::new(0.0f32, 10.0, 1.0)
            .ease_curve(&curve)
            .loops(3, LoopType::Incremental)
            .bind(&mut world, move |v| sink.lock().unwrap().push(v))
            .expect("motion");
        for _ in 0..5 {
            world.update(0.7).expect("update");
        }
        assert!(!world.is_active(h));
        let seen = seen.lock().unwrap();
        assert_eq!(seen[0], 5.0, "[{}] immediate bind", exec.name());
        assert!(
            seen.iter().all(|v| v.is_finite()),
            "[{}] {seen:?}",
            exec.name()
        );
        assert_eq!(*seen.last().unwrap(), 20.0, "[{}] 0.5·3 + 0.5", exec.name());
    }
}

#[test]
fn bad_curves_are_errors() {
    assert_eq!(AnimationCurve::new(Vec::new()), Err(BuildError::EmptyCurve));
    let nan_time = AnimationCurve::new([Keyframe::new(0.0, 0.0), Keyframe::new(f32::NAN, 1.0)]);
    assert!(matches!(
        nan_time,
        Err(BuildError::InvalidCurveKey {
            index: 1,
            what: "time",
            ..
        })
    ));
    let inf_value = AnimationCurve::new([Keyframe::new(0.0, f32::INFINITY)]);
    assert!(matches!(
        inf_value,
        Err(BuildError::InvalidCurveKey { what: "value", .. })
    ));
    let heavy = AnimationCurve::new([
        Keyframe::new(0.0, 0.0).weights(0.3, 1.5),
        Keyframe::new(1.0, 1.0),
    ]);
    assert!(matches!(
        heavy,
        Err(BuildError::InvalidCurveKey {
            what: "out_weight",
            ..
        })
    ));
    // Magnitudes that could overflow f32 arithmetic; an infinite tangent is a step, fine.
    let huge = AnimationCurve::new([Keyframe::with_tangents(0.0, 0.0, 0.0, 1e30)]);
    assert!(matches!(
        huge,
        Err(BuildError::InvalidCurveKey {
            what: "out_tangent",
            ..
        })
    ));
    assert!(AnimationCurve::new([Keyframe::new(1e19, 0.0)]).is_err());
    assert!(AnimationCurve::new([Keyframe::with_tangents(0.0, 0.0, f32::INFINITY, 0.0)]).is_ok());
    // An unused weight is not checked.
    let unused = Keyframe::new(0.0, 0.0)
        .weights(f32::NAN, 0.5)
        .weighted_mode(WeightedMode::Out);
    assert!(AnimationCurve::new([unused, Keyframe::new(1.0, 1.0)]).is_ok());
    // Unsorted keys are sorted.
    let curve =
        AnimationCurve::new([Keyframe::new(1.0, 1.0), Keyframe::new(0.0, 0.0)]).expect("sorted");
    assert_eq!(curve.keys()[0].time, 0.0);
    assert!((curve.evaluate(0.5) - 0.5).abs() < 1e-6);
}

#[test]
fn wrap_modes_worked_examples() {
    // The line y = 2t on [0, 0.5] (tangents 2 make the Hermite segment exactly linear).
    let keys = [
        Keyframe::with_tangents(0.0, 0.0, 2.0, 2.0),
        Keyframe::with_tangents(0.5, 1.0, 2.0, 2.0),
    ];
    let after = |wrap| AnimationCurve::new(keys).expect("curve").post_wrap(wrap);
    // x = 0.625 is 0.125 past the end: clamp holds 1; loop restarts at t = 0.125 (0.25);
    // ping-pong comes back to t = 0.375 (0.75). x = 0.75: loop t = 0.25, ping-pong t = 0.25.
    assert_samples(
        &after(WrapMode::Clamp),
        &[(0.25, 0.5), (0.625, 1.0), (1.0, 1.0)],
        1e-5,
    );
    assert_samples(
        &after(WrapMode::Loop),
        &[(0.25, 0.5), (0.625, 0.25), (0.75, 0.5), (0.875, 0.75)],
        1e-5,
    );
    assert_samples(
        &after(WrapMode::PingPong),
        &[
            (0.25, 0.5),
            (0.625, 0.75),
            (0.75, 0.5),
            (0.875, 0.25),
            (1.0, 0.0),
        ],
        1e-5,
    );
    // The line y = 2(t − 0.5) on [0.5, 1], wrapped before its first key: at x = 0.125
    // (u = −0.75) loop reads t = 0.625 (0.25), ping-pong t = 0.875 (0.75), clamp 0.
    let keys = [
        Keyframe::with_tangents(0.5, 0.0, 2.0, 2.0),
        Keyframe::with_tangents(1.0, 1.0, 2.0, 2.0),
    ];
    let before = |wrap| AnimationCurve::new(keys).expect("curve").pre_wrap(wrap);
    assert_samples(&before(WrapMode::Clamp), &[(0.125, 0.0), (0.75, 0.5)], 1e-5);
    assert_samples(
        &before(WrapMode::Loop),
        &[(0.125, 0.25), (0.375, 0.75)],
        1e-5,
    );
    assert_samples(
        &before(WrapMode::PingPong),
        &[(0.125, 0.75), (0.375, 0.25)],
        1e-5,
    );
}

#[test]
fn non_finite_tangent_is_a_step() {
    for (out_tangent, in_tangent) in [
        (f32::INFINITY, 0.0),
        (0.0, f32::NEG_INFINITY),
        (f32::NAN, 0.0),
    ] {
        let curve = AnimationCurve::new([
            Keyframe::with_tangents(0.0, 0.25, 0.0, out_tangent),
            Keyframe::with_tangents(0.5, 0.75, in_tangent, 0.0),
            Keyframe::with_tangents(1.0, 1.0, 0.0, 0.0),
        ])
        .expect("curve");
        // Holds 0.25 up to the second key, which starts a smooth segment to 1.
        assert_samples(
            &curve,
            &[
                (0.0, 0.25),
                (0.25, 0.25),
                (0.4999, 0.25),
                (0.5, 0.75),
                (0.75, 0.875),
                (1.0, 1.0),
            ],
            1e-5,
        );
    }
}

/// Creates `n` curve motions of two shapes (in bursts), runs them to completion, and checks
/// that the key pool (and the GPU key buffer) come back to their starting sizes.
fn pool_round_trip(mut world: MotionWorld, name: &str) {
    let a = AnimationCurve::ease_in_out();
    let b = AnimationCurve::new([
        Keyframe::new(0.0, 0.0),
        Keyframe::new(0.3, 1.2).weights(0.5, 0.2),
        Keyframe::new(0.6, 0.9),
        Keyframe::new(1.0, 1.0),
    ])
    .expect("curve");
    world.update(0.0).expect("update");
    let (cpu_start, gpu_start) = (world.curve_key_capacity(), world.gpu().curve_key_capacity());
    assert_eq!(world.curve_keys_in_use(), 0);
    let mut made = 0usize;
    let mut peak = 0usize;
    while made < 100_000 {
        for k in 0..2_000 {
            let curve = if (made + k).is_multiple_of(3) { &b } else { &a };
            Motion::new(0.0f32, 1.0, 0.05 + (k % 7) as f32 * 0.01)
                .ease_curve(curve)
                .run(&mut world)
                .expect("motion");
        }
        made += 2_000;
        peak = peak.max(world.curve_keys_in_use());
        world.update(0.04).expect("update");
    }
    assert!(peak > 0);
    for _ in 0..4 {
        world.update(0.1).expect("update");
    }
    assert!(world.is_empty(), "[{name}] {} motions left", world.len());
    assert_eq!(world.curve_keys_in_use(), 0, "[{name}]");
    assert_eq!(
        world.curve_key_capacity(),
        cpu_start,
        "[{name}] CPU key table"
    );
    assert!(
        world.gpu().curve_key_capacity() <= gpu_start.max(256),
        "[{name}] GPU key buffer {} > {gpu_start}",
        world.gpu().curve_key_capacity()
    );
    // Cancelled, cleared and preserved motions.
    let h = Motion::new(0.0f32, 1.0, 1.0)
        .ease_curve(&b)
        .run(&mut world)
        .expect("motion");
    let p = Motion::new(0.0f32, 1.0, 0.1)
        .ease_curve(&a)
        .preserve()
        .run(&mut world)
        .expect("motion");
    assert_eq!(world.curve_keys_in_use(), 6);
    world.cancel(h).expect("cancel");
    assert_eq!(world.curve_keys_in_use(), 2);
    world.update(0.5).expect("update");
    assert_eq!(
        world.curve_keys_in_use(),
        2,
        "[{name}] a preserved motion keeps its keys"
    );
    world.cancel(p).expect("cancel");
    assert_eq!(world.curve_keys_in_use(), 0);
    for _ in 0..10 {
        Motion::new(0.0f32, 1.0, 1.0)
            .ease_curve(&b)
            .run(&mut world)
            .expect("motion");
    }
    world.update(0.1).expect("update");
    world.clear();
    assert_eq!(world.curve_keys_in_use(), 0);
    assert_eq!(
        world.curve_key_capacity(),
        cpu_start,
        "[{name}] after clear"
    );
}

#[test]
fn pool_returns_to_its_starting_size() {
    for exec in common::executors() {
        pool_round_trip(exec.world(), exec.name());
    }
}

/// A random valid curve: 1–6 keys in [0, 1] (sometimes a narrower range, to exercise the
/// wrap modes), random tangents, some weighted sides, some steps.
fn random_curve(rng: &mut common::Rng) -> AnimationCurve {
    let n = 1 + rng.below(6);
    let (lo, hi) = if rng.chance(0.3) {
        (rng.range(0.0, 0.4), rng.range(0.6, 1.0))
    } else {
        (0.0, 1.0)
    };
    let keys: Vec<Keyframe> = (0..n)
        .map(|i| {
            let time = if n == 1 {
                lo
            } else {
                lo + (hi - lo) * (i as f64 / (n - 1) as f64 + rng.range(-0.1, 0.1)).clamp(0.0, 1.0)
            } as f32;
            let tangent = |rng: &mut common::Rng| {
                if rng.chance(0.05) {
                    f32::INFINITY
                } else {
                    rng.range(-3.0, 3.0) as f32
                }
            };
            let mut key = Keyframe::with_tangents(
                time,
                rng.range(-1.5, 1.5) as f32,
                tangent(rng),
                tangent(rng),
            );
            let mode = [
                WeightedMode::None,
                WeightedMode::None,
                WeightedMode::In,
                WeightedMode::Out,
                WeightedMode::Both,
            ][rng.below(5)];
            if mode != WeightedMode::None {
                key = key
                    .weights(rng.range(0.0, 1.0) as f32, rng.range(0.0, 1.0) as f32)
                    .weighted_mode(mode);
            }
            key
        })
        .collect();
    let wraps = [WrapMode::Clamp, WrapMode::Loop, WrapMode::PingPong];
    AnimationCurve::new(keys)
        .expect("valid curve")
        .pre_wrap(wraps[rng.below(3)])
        .post_wrap(wraps[rng.below(3)])
}

#[test]
fn cpu_and_gpu_agree_on_random_curves() {
    let Some((mut cpu, mut gpu)) = common::cpu_and_gpu_worlds() else {
        return;
    };
    let mut rng = common::Rng(0xc0ffee);
    let curves: Vec<AnimationCurve> = (0..64).map(|_| random_curve(&mut rng)).collect();
    let mut pairs = Vec::new();
    type Pair = (Seen, Seen, f32, f32);
    let add_pair = |pairs: &mut Vec<Pair>,
                    i: usize,
                    cpu: &mut MotionWorld,
                    gpu: &mut MotionWorld,
                    rng: &mut common::Rng| {
        let curve = &curves[i % curves.len()];
        let loops = [1, 2, 3, -1][rng.below(4)];
        let loop_type = LoopType::ALL[rng.below(4)];
        let duration = rng.range(0.2, 2.0) as f32;
        let delay = if rng.chance(0.3) {
            rng.range(0.0, 0.5) as f32
        } else {
            0.0
        };
        let (from, to) = (rng.range(-5.0, 5.0) as f32, rng.range(-5.0, 5.0) as f32);
        let make = |world: &mut MotionWorld| {
            let motion = Motion::new(from, to, duration)
                .ease_curve(curve)
                .loops(loops, loop_type)
                .delay_with(delay, wgpu_tween::DelayType::FirstLoop, false)
                .preserve();
            bind_seen(motion, world).1
        };
        pairs.push((make(cpu), make(gpu), from, to));
    };
    for i in 0..2_000 {
        add_pair(&mut pairs, i, &mut cpu, &mut gpu, &mut rng);
    }
    // Curve motions come and go between the samples (the key table fragments and is
    // re-filled; the GPU mirror must follow), and more long-lived ones arrive, so the GPU
    // key buffer grows (by GPU copy) under live keys.
    let mut extra = Vec::new();
    let mut capacities = Vec::new();
    for step in 0..12 {
        let dt = rng.range(0.01, 0.4);
        cpu.update(dt).expect("update");
        gpu.update(dt).expect("update");
        for (i, (c, g, from, to)) in pairs.iter().enumerate() {
            let (vc, vg) = (*c.lock().unwrap(), *g.lock().unwrap());
            let scale = (*to - *from).abs().max(1.0);
            assert!(
                vc.is_finite() && (vc - vg).abs() <= 1e-4 * scale,
                "step {step} motion {i}: CPU {vc}, GPU {vg}"
            );
        }
        for (c, g) in extra.drain(..) {
            cpu.cancel(c).expect("cancel");
            gpu.cancel(g).expect("cancel");
        }
        for k in 0..50 {
            let curve = &curves[(step * 7 + k) % curves.len()];
            let c = Motion::new(0.0f32, 1.0, 1.0)
                .ease_curve(curve)
                .run(&mut cpu);
            let g = Motion::new(0.0f32, 1.0, 1.0)
                .ease_curve(curve)
                .run(&mut gpu);
            extra.push((c.expect("motion"), g.expect("motion")));
        }
        for k in 0..400 {
            add_pair(
                &mut pairs,
                2_000 + step * 400 + k,
                &mut cpu,
                &mut gpu,
                &mut rng,
            );
        }
        assert_eq!(cpu.curve_keys_in_use(), gpu.curve_keys_in_use());
        capacities.push(gpu.gpu().curve_key_capacity());
    }
    assert!(gpu.take_gpu_error().is_none());
    assert!(
        capacities.windows(2).any(|w| w[1] > w[0] && w[0] > 0),
        "the GPU key buffer never grew under live keys: {capacities:?}"
    );
}
