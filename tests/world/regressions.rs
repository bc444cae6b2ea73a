//! Minimal operation sequences the model test (`tests/model.rs`) found, kept as plain tests
//! with hand-worked expectations.

use std::sync::{Arc, Mutex};

use wgpu_tween::{DelayType, Ease, LoopType, Motion, MotionError};

use crate::common::executors;

/// Three rows in one chunk of the CPU executor's segment cache: two that leave a first-loop
/// delay in the same update (one of them row 0) and a reversed one between them. The partial
/// refresh that split the rows' shared `r` once left the third row's own `r` stale, so it
/// bound its start value from then on (the model test found it at T = 0.703125). The queued
/// spawn, applied by `cancel`'s settle before the others, puts the rows in that order.
#[test]
fn a_cancelled_queued_spawn_leaves_the_next_motions_binds_right() {
    for exec in executors() {
        let (mut world, name) = (exec.world(), exec.name());
        let queued = Motion::new(0.0f32, 0.0, 1.0)
            .delay(0.375)
            .loops(-1, LoopType::Restart)
            .run_deferred(&world.commands())
            .expect("valid");
        // Not applied yet: the handle is not live (the spawn still happens at the next update).
        assert_eq!(world.cancel(queued), Err(MotionError::Destroyed(queued)));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        Motion::new(72.0f32, -71.75, 1.0)
            .loops(-1, LoopType::Restart)
            .playback_speed(-0.5)
            .bind(&mut world, |_| {})
            .expect("valid");
        Motion::new(-27.5f32, 88.0, 1.0)
            .ease(Ease::InOutQuint)
            .delay_with(0.375, DelayType::FirstLoop, true)
            .bind(&mut world, move |v| log.lock().unwrap().push(v))
            .expect("valid");
        for dt in [0.34375, 0.296875, 0.0625] {
            world.update(dt).expect("update");
        }
        // T = 0.703125, 0.328125 into the loop: InOutQuint(t) = 16 t^5.
        let t = 0.328125f64;
        let want = -27.5 + 115.5 * 16.0 * t.powi(5);
        let got = *seen.lock().unwrap().last().expect("bound");
        assert!(
            (f64::from(got) - want).abs() < 1e-3,
            "{name}: {got} != {want}"
        );
    }
}
