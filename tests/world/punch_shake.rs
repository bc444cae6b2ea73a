//! Punch and shake (docs/semantics.md §5) for f32, Vec2 and Vec3 on every executor: hand-computed
//! punch values, shake noise equal on CPU and GPU for the same seed, distinct default seeds.

use crate::common;

use std::f32::consts::PI;
use std::sync::{Arc, Mutex};

use glam::{Vec2, Vec3};
use wgpu_tween::internals::shake_noise;
use wgpu_tween::{Animatable, BuildError, Ease, LoopType, Motion, MotionWorld};

fn bound<T: Animatable + Default>(world: &mut MotionWorld, m: Motion<T>) -> Arc<Mutex<T>> {
    let cell = Arc::new(Mutex::new(T::default()));
    let sink = cell.clone();
    m.immediate_bind(false)
        .bind(world, move |v| *sink.lock().unwrap() = v)
        .unwrap();
    cell
}

/// `vib(1, p)` for frequency `f` and damping ratio `z`.
fn vib(p: f32, f: f32, z: f32) -> f32 {
    let k = z * f / (2.0 * PI);
    (-k * p).exp() * (PI * f * p).sin()
}

#[test]
fn punch_values_on_every_executor() {
    for exec in common::executors() {
        let mut world = exec.world();
        let name = exec.name();
        let from = Vec3::new(1.0, -2.0, 3.0);
        let strength = Vec3::new(0.5, 2.0, -4.0);
        let v3 = bound(&mut world, Motion::punch(from, strength, 2.0));
        let v2 = bound(
            &mut world,
            Motion::punch(Vec2::ZERO, Vec2::ONE, 1.0)
                .frequency(4.0)
                .damping_ratio(0.0),
        );
        let v1 = bound(
            &mut world,
            Motion::punch(0.0f32, 3.0, 1.0)
                .frequency(6.0)
                .damping_ratio(2.5)
                .ease(Ease::OutQuad),
        );
        world.update(0.3).unwrap();
        let p3 = 0.15;
        let want3 = from + strength * vib(p3, 10.0, 1.0);
        assert!(
            (*v3.lock().unwrap() - want3).abs().max_element() < 1e-4,
            "{name}"
        );
        let want2 = Vec2::splat(vib(0.3, 4.0, 0.0));
        assert!(
            (*v2.lock().unwrap() - want2).abs().max_element() < 1e-4,
            "{name}"
        );
        let p1 = Ease::OutQuad.evaluate(0.3);
        assert!(
            (*v1.lock().unwrap() - 3.0 * vib(p1, 6.0, 2.5)).abs() < 1e-4,
            "{name}"
        );
        // At the end the value is back at the start.
        world.update(1.7).unwrap();
        assert_eq!(*v3.lock().unwrap(), from, "{name}");
    }
}

#[test]
fn shakes_stay_within_strength_and_redraw_every_update() {
    for exec in common::executors() {
        let mut world = exec.world();
        let from = Vec3::new(10.0, 20.0, 30.0);
        let strength = Vec3::new(1.0, 2.0, 3.0);
        let s = bound(
            &mut world,
            Motion::shake(from, strength, 5.0).damping_ratio(0.0),
        );
        let mut ratios = Vec::new();
        for _ in 0..20 {
            world.update(0.0371).unwrap();
            let offset = (*s.lock().unwrap() - from) / strength;
            assert!(
                offset.abs().max_element() <= 1.0,
                "{}: {offset}",
                exec.name()
            );
            ratios.push(offset);
        }
        // Noise differs per lane and per update.
        assert!(ratios.windows(2).all(|w| w[0] != w[1]));
        assert!(ratios.iter().any(|r| r.x != r.y && r.y != r.z));
    }
}

#[test]
fn default_seeds_differ_and_explicit_seeds_repeat() {
    for exec in common::executors() {
        let mut world = exec.world();
        let name = exec.name();
        let a = bound(&mut world, Motion::shake(0.0f32, 1.0, 1.0));
        let b = bound(&mut world, Motion::shake(0.0f32, 1.0, 1.0));
        let c = bound(&mut world, Motion::shake(0.0f32, 1.0, 1.0).seed(7));
        let d = bound(&mut world, Motion::shake(0.0f32, 1.0, 1.0).seed(7));
        let mut same_ab = 0;
        for _ in 0..10 {
            world.update(0.0437).unwrap();
            let (a, b) = (*a.lock().unwrap(), *b.lock().unwrap());
            same_ab += usize::from(a == b);
            assert_eq!(
                c.lock().unwrap().to_bits(),
                d.lock().unwrap().to_bits(),
                "{name}: one seed, one clock, one value"
            );
        }
        assert_eq!(
            same_ab, 0,
            "{name}: two default-seeded shakes moved in lockstep"
        );
    }
}

/// The same seeded shakes (and punches) in a CPU world and a GPU world. The noise is the
/// same bits on both (`n` from u32 operations only), so the values agree to the rounding of
/// `exp` and `sin` (a few ulps of the strength); a different `n` would differ by up to 2×
/// the strength.
#[test]
fn shake_noise_equal_on_cpu_and_gpu() {
    let Some((mut cpu, mut gpu)) = common::cpu_and_gpu_worlds() else {
        return;
    };
    let spawn = |world: &mut MotionWorld| {
        let mut cells = Vec::new();
        for n in 0..40u32 {
            let strength = Vec3::new(1.0 + n as f32, -2.0, 0.5);
            let m = Motion::shake(Vec3::splat(n as f32), strength, 0.7 + 0.01 * n as f32)
                .seed(n * 7919)
                .frequency(3.0 + n as f32 * 0.5)
                .damping_ratio(0.25 * (n % 5) as f32)
                .loops(-1, [LoopType::Restart, LoopType::Yoyo][n as usize % 2])
                .playback_speed([1.0, 0.5, -1.0, 2.5][n as usize % 4]);
            cells.push((strength, bound(world, m)));
            let m = Motion::shake(n as f32, 4.0, 0.9)
                .seed(n)
                .ease(Ease::InOutSine);
            cells.push((Vec3::splat(4.0), {
                let c = Arc::new(Mutex::new(Vec3::ZERO));
                let sink = c.clone();
                m.immediate_bind(false)
                    .bind(world, move |v: f32| *sink.lock().unwrap() = Vec3::splat(v))
                    .unwrap();
                c
            }));
            let m = Motion::punch(Vec2::splat(n as f32), Vec2::new(3.0, -1.0), 1.1)
                .loops(-1, LoopType::Flip);
            cells.push((Vec3::new(3.0, 1.0, 0.0), {
                let c = Arc::new(Mutex::new(Vec3::ZERO));
                let sink = c.clone();
                m.immediate_bind(false)
                    .bind(world, move |v: Vec2| *sink.lock().unwrap() = v.extend(0.0))
                    .unwrap();
                c
            }));
        }
        cells
    };
    let a = spawn(&mut cpu);
    let b = spawn(&mut gpu);
    let mut checked = 0;
    for dt in [0.013, 0.1, 0.27, 0.05, 0.5, 0.0333, 1.7, 0.2] {
        cpu.update(dt).unwrap();
        gpu.update(dt).unwrap();
        for ((strength, x), (_, y)) in a.iter().zip(&b) {
            let (x, y) = (*x.lock().unwrap(), *y.lock().unwrap());
            let tol = 2e-5 * strength.abs().max_element().max(1.0) + 4e-6 * x.abs().max_element();
            assert!(
                (x - y).abs().max_element() <= tol,
                "cpu {x} gpu {y} (strength {strength})"
            );
            checked += 1;
        }
    }
    assert!(checked > 0);
}

#[test]
fn noise_is_uniform_in_minus_one_to_one() {
    let mut sum = 0.0f64;
    let n = 100_000u32;
    for i in 0..n {
        let v = shake_noise(12345, i.wrapping_mul(2_654_435_761), i % 3);
        assert!((-1.0..1.0).contains(&v));
        sum += f64::from(v);
    }
    assert!(
        (sum / f64::from(n)).abs() < 0.01,
        "mean {}",
        sum / f64::from(n)
    );
}

#[test]
fn bad_vibration_settings_are_build_errors() {
    let mut world = MotionWorld::new();
    for (f, z) in [
        (-1.0, 1.0),
        (f32::NAN, 1.0),
        (10.0, -0.5),
        (10.0, f32::INFINITY),
    ] {
        let r = Motion::shake(0.0f32, 1.0, 1.0)
            .frequency(f)
            .damping_ratio(z)
            .run(&mut world);
        assert!(
            matches!(r, Err(BuildError::InvalidVibration { .. })),
            "{f} {z}: {r:?}"
        );
    }
    // A punch reads back as its plain type.
    let h = Motion::punch(1.0f32, 2.0, 1.0).run(&mut world).unwrap();
    assert_eq!(world.value::<f32>(h).unwrap(), 1.0);
}
