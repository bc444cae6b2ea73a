//! Parametric eases (Back, Elastic, Steps, CubicBezier): hand-computed values on every
//! executor, CPU-vs-GPU parity under every loop type, and build errors for bad parameters.

use crate::common;

use std::sync::{Arc, Mutex};

use glam::Vec3;
use wgpu_tween::{
    BuildError, Ease, EaseMode, LoopType, Motion, MotionHandle, MotionWorld, ParametricEase,
};

fn all_parametric() -> Vec<ParametricEase> {
    let mut out = Vec::new();
    for mode in [EaseMode::In, EaseMode::Out, EaseMode::InOut] {
        out.push(ParametricEase::Back {
            mode,
            overshoot: 2.5,
        });
        out.push(ParametricEase::Elastic {
            mode,
            amplitude: 1.5,
            period: 0.4,
        });
        out.push(ParametricEase::Elastic {
            mode,
            amplitude: 0.5,
            period: 0.25,
        });
    }
    out.push(ParametricEase::Steps(1));
    out.push(ParametricEase::Steps(5));
    out.push(ParametricEase::CubicBezier(0.25, 0.1, 0.25, 1.0));
    out.push(ParametricEase::CubicBezier(0.68, -0.6, 0.32, 1.6));
    out.push(ParametricEase::CubicBezier(0.0, 0.0, 1.0, 1.0));
    out
}

#[test]
fn hand_computed_values_on_every_executor() {
    for exec in common::executors() {
        let mut world = exec.world();
        let steps = Motion::new(0.0f32, 8.0, 1.0)
            .ease_with(ParametricEase::Steps(4))
            .run(&mut world)
            .unwrap();
        let back = Motion::new(0.0f32, 1.0, 1.0)
            .ease_with(ParametricEase::Back {
                mode: EaseMode::Out,
                overshoot: 3.0,
            })
            .run(&mut world)
            .unwrap();
        let css = Arc::new(Mutex::new(0.0f32));
        let sink = css.clone();
        Motion::new(0.0f32, 1.0, 1.0)
            .ease_with(ParametricEase::CubicBezier(0.25, 0.1, 0.25, 1.0))
            .immediate_bind(false)
            .bind(&mut world, move |v| *sink.lock().unwrap() = v)
            .unwrap();
        let back_bound = Arc::new(Mutex::new(0.0f32));
        let sink = back_bound.clone();
        Motion::new(0.0f32, 1.0, 1.0)
            .ease_with(ParametricEase::Back {
                mode: EaseMode::Out,
                overshoot: 3.0,
            })
            .immediate_bind(false)
            .bind(&mut world, move |v| *sink.lock().unwrap() = v)
            .unwrap();
        world.update(0.5).unwrap();
        let name = exec.name();
        assert_eq!(world.value::<f32>(steps).unwrap(), 4.0, "{name}");
        assert!((world.value::<f32>(back).unwrap() - 1.25).abs() < 1e-6);
        assert!((world.progress(back).unwrap() - 1.25).abs() < 1e-6);
        assert!((*back_bound.lock().unwrap() - 1.25).abs() < 1e-5, "{name}");
        // CSS `ease` at 0.5.
        assert!((*css.lock().unwrap() - 0.802_403_4).abs() < 1e-4, "{name}");
        world.update(0.5).unwrap();
        assert!((*css.lock().unwrap() - 1.0).abs() < 1e-6, "{name}");
    }
}

#[test]
fn bad_parameters_are_build_errors() {
    let mut world = MotionWorld::new();
    for ease in [
        ParametricEase::Steps(0),
        ParametricEase::CubicBezier(-0.1, 0.0, 0.5, 1.0),
        ParametricEase::CubicBezier(0.1, f32::NAN, 0.5, 1.0),
        ParametricEase::Back {
            mode: EaseMode::In,
            overshoot: f32::INFINITY,
        },
        ParametricEase::Elastic {
            mode: EaseMode::Out,
            amplitude: 1.0,
            period: -1.0,
        },
    ] {
        let result = Motion::new(0.0f32, 1.0, 1.0)
            .ease_with(ease)
            .run(&mut world);
        assert!(
            matches!(result, Err(BuildError::InvalidEase(_))),
            "{ease:?}: {result:?}"
        );
    }
    // `ease` after `ease_with` replaces it.
    let h = Motion::new(0.0f32, 1.0, 1.0)
        .ease_with(ParametricEase::Steps(0))
        .ease(Ease::InQuad)
        .run(&mut world)
        .unwrap();
    world.update(0.5).unwrap();
    assert_eq!(world.value::<f32>(h).unwrap(), 0.25);
}

type Cells = Vec<(String, Arc<Mutex<Vec3>>)>;
type Plain = Vec<(String, Arc<Mutex<Vec3>>, MotionHandle)>;

fn spawn_all(world: &mut MotionWorld) -> (Cells, Plain) {
    let mut cells = Vec::new();
    // Plain rows first, in the same chunks, so the batch's mixed paths run too; cancelling
    // them later moves the parametric rows (and their parameter lanes) by swap-remove.
    let mut plain = Vec::new();
    for n in 0..50 {
        let cell = Arc::new(Mutex::new(Vec3::ZERO));
        let sink = cell.clone();
        let h = Motion::new(Vec3::splat(n as f32), Vec3::ZERO, 0.7)
            .ease(Ease::ALL[n % 31])
            .loops(-1, LoopType::Yoyo)
            .immediate_bind(false)
            .bind(world, move |v| *sink.lock().unwrap() = v)
            .unwrap();
        plain.push((format!("plain {n}"), cell, h));
    }
    for (n, ease) in all_parametric().into_iter().enumerate() {
        for (k, lt) in LoopType::ALL.into_iter().enumerate() {
            let cell = Arc::new(Mutex::new(Vec3::ZERO));
            let sink = cell.clone();
            let s = (n * 4 + k) as f32;
            // Durations keep the frames off step boundaries, where a discontinuous ease may
            // round either way on either executor.
            Motion::new(
                Vec3::new(s, -1.0, 0.5),
                Vec3::new(-s, 2.0, 3.0),
                0.3123 + 0.05 * k as f32,
            )
            .ease_with(ease)
            .loops(5, lt)
            .immediate_bind(false)
            .bind(world, move |v| *sink.lock().unwrap() = v)
            .unwrap();
            cells.push((format!("{ease:?} {lt:?}"), cell));
        }
    }
    (cells, plain)
}

#[test]
fn cpu_gpu_parity_for_parametric_eases() {
    let Some((mut cpu, mut gpu)) = common::cpu_and_gpu_worlds() else {
        return;
    };
    let (mut a, pa) = spawn_all(&mut cpu);
    let (mut b, pb) = spawn_all(&mut gpu);
    // (Cancelled plain motions keep their last values on both sides.)
    for ((name, x, _), (_, y, _)) in pa.iter().zip(&pb) {
        a.push((name.clone(), x.clone()));
        b.push((name.clone(), y.clone()));
    }
    for (step, dt) in [0.05, 0.11, 0.2, 0.013, 0.31, 0.07, 0.4]
        .into_iter()
        .enumerate()
    {
        if step == 3 {
            // Cancel the plain motions: the parametric rows move into their places.
            for ((_, _, x), (_, _, y)) in pa.iter().zip(&pb) {
                cpu.cancel(*x).unwrap();
                gpu.cancel(*y).unwrap();
            }
        }
        cpu.update(dt).unwrap();
        gpu.update(dt).unwrap();
        for ((name, x), (_, y)) in a.iter().zip(&b) {
            let (x, y) = (*x.lock().unwrap(), *y.lock().unwrap());
            let tol = 2e-4 * x.abs().max_element().max(1.0) * 7.0;
            assert!(
                (x - y).abs().max_element() <= tol,
                "{name}: cpu {x:?} gpu {y:?}"
            );
        }
    }
}
