//! Presets (issue 19 item 3) and the state bind (item 4) on every executor: clones of a
//! configured motion run alike and share their callbacks, `MotionSettings` carries every
//! setting to other values, and `bind_with` writes through its state. Expected values are
//! worked by hand from the eases (OutQuad(x) = 1 − (1 − x)²).

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc};

use common::executors;
use glam::Vec2;
use wgpu_tween::{DelayType, Ease, LoopType, Motion, MotionSettings, ParametricEase, TimeKind};

#[test]
fn clones_of_a_preset_run_alike() {
    for exec in executors() {
        let mut world = exec.world();
        let preset = Motion::new(0.0f32, 10.0, 1.0)
            .ease(Ease::OutQuad)
            .loops(2, LoopType::Yoyo)
            .delay(0.5);
        let a = preset.clone().run(&mut world).unwrap();
        world.update(1.0).unwrap(); // `a` 0.5 s into its first loop
        let b = preset.clone().run(&mut world).unwrap();
        let c = preset.run(&mut world).unwrap(); // the preset itself, last
        world.update(1.0).unwrap();
        // a: 0.5 s into its second (Yoyo) loop: E(1 − 0.5) = 0.75; b, c: 0.5 s into the first.
        let value = |world: &wgpu_tween::MotionWorld, h| world.value::<f32>(h).unwrap();
        for (h, want) in [(a, 7.5), (b, 7.5), (c, 7.5)] {
            assert!((value(&world, h) - want).abs() < 1e-5, "{}", exec.name());
        }
        world.update(0.25).unwrap();
        // a: E(0.25) = 0.4375 on the way back; b, c: E(0.75) = 0.9375 on the way out.
        for (h, want) in [(a, 4.375), (b, 9.375), (c, 9.375)] {
            assert!((value(&world, h) - want).abs() < 1e-5, "{}", exec.name());
        }
    }
}

#[test]
fn clones_share_their_callbacks() {
    for exec in executors() {
        let mut world = exec.world();
        let (completes, loops) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
        let (c, l) = (Arc::clone(&completes), Arc::clone(&loops));
        let preset = Motion::new(0.0f32, 1.0, 0.5)
            .loops(2, LoopType::Restart)
            .on_complete(move || {
                c.fetch_add(1, Ordering::SeqCst);
            })
            .on_loop_complete(move |n| {
                l.fetch_add(n, Ordering::SeqCst);
            });
        for _ in 0..3 {
            preset.clone().run(&mut world).unwrap();
        }
        world.update(0.75).unwrap(); // each: loop 1 done (count 1)
        assert_eq!(loops.load(Ordering::SeqCst), 3, "{}", exec.name());
        assert_eq!(completes.load(Ordering::SeqCst), 0, "{}", exec.name());
        world.update(0.5).unwrap(); // each: loop 2 done (count 2), then complete
        assert_eq!(loops.load(Ordering::SeqCst), 3 + 3 * 2, "{}", exec.name());
        assert_eq!(completes.load(Ordering::SeqCst), 3, "{}", exec.name());
        drop(preset);
        // The world dropped the clones' callbacks when they ended: only ours is left.
        assert_eq!(Arc::strong_count(&completes), 1, "{}", exec.name());
    }
}

#[test]
fn settings_carry_every_field_to_other_values() {
    let settings = Motion::new(0.0f32, 1.0, 2.0)
        .ease_with(ParametricEase::Steps(4))
        .delay_with(0.25, DelayType::EveryLoop, false)
        .loops(3, LoopType::Incremental)
        .time_kind(TimeKind::Unscaled)
        .playback_speed(2.0)
        .immediate_bind(false)
        .cancel_on_error(true)
        .preserve()
        .settings();
    let want = MotionSettings {
        duration: 2.0,
        ease: Ease::Linear,
        parametric_ease: Some(ParametricEase::Steps(4)),
        curve: None,
        delay: 0.25,
        delay_type: DelayType::EveryLoop,
        skip_values_during_delay: false,
        loops: 3,
        loop_type: LoopType::Incremental,
        time_kind: TimeKind::Unscaled,
        playback_speed: 2.0,
        immediate_bind: false,
        cancel_on_error: true,
        preserve: true,
    };
    assert_eq!(settings, want);
    // The defaults are `Motion::new`'s.
    let plain = MotionSettings::default();
    assert_eq!(Motion::new(0.0f32, 1.0, 1.0).settings(), plain);
    assert_eq!((plain.loops, plain.playback_speed), (1, 1.0));

    for exec in executors() {
        let mut world = exec.world();
        let h = Motion::new(Vec2::ZERO, Vec2::new(8.0, -4.0), 9.0)
            .with_settings(&want)
            .run(&mut world)
            .unwrap();
        // Speed 2: 0.5 s of world time is 1 s of motion time, 0.75 s past the delay:
        // linear 0.375, Steps(4) → 0.25.
        world.update(0.5).unwrap();
        let v = world.value::<Vec2>(h).unwrap();
        assert!(
            v.abs_diff_eq(Vec2::new(2.0, -1.0), 1e-6),
            "{}: {v}",
            exec.name()
        );
        assert_eq!(world.total_duration(h).unwrap(), 3.0 * (0.25 + 2.0));
    }
}

#[test]
fn bind_with_writes_through_its_state() {
    for exec in executors() {
        let mut world = exec.world();
        let (tx, rx) = mpsc::channel();
        Motion::new(0.0f32, 10.0, 1.0)
            .ease(Ease::OutQuad)
            .bind_with(&mut world, tx, |tx, v| tx.send(v).unwrap())
            .unwrap();
        world.update(0.5).unwrap();
        world.update(0.5).unwrap();
        // Immediate bind E(0) = 0, then E(0.5) = 0.75, then the end.
        let got: Vec<f32> = rx.try_iter().collect();
        assert_eq!(got, [0.0, 7.5, 10.0], "{}", exec.name());
        // The motion ended and dropped its state (the sender): the channel is closed.
        assert!(rx.recv().is_err(), "{}", exec.name());
    }
}
