//! Minimal operation sequences the model test (`tests/model.rs`) found, kept as plain tests
//! with hand-worked expectations.

use std::sync::{Arc, Mutex};

use wgpu_tween::{DelayType, Ease, LoopType, Motion, MotionError, MotionStatus};

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

/// What `complete` leaves of a preserved zero-duration motion, once its clock moves.
#[derive(Debug, PartialEq)]
struct Seen {
    status: Result<MotionStatus, MotionError>,
    loops: Result<u32, MotionError>,
    time: Result<f64, MotionError>,
    calls: Vec<&'static str>,
}

/// §7 + §2: `complete` sets the clock to the total duration, here `T = 0` (no delay,
/// duration 0, one loop), and the motion is Completed while the clock stays there. Once
/// updates move it, the clock is `T = 0` plus the motion since (LitMotion: `Time = total`,
/// then `Time += dt · speed`), so a preserved motion played back to exactly `T = 0` is
/// Playing by §2's strict `tss > 0` (not completed, not delayed, 0 loops), and completes
/// again, with its loop, when the clock passes 0. The model test found both seeds of
/// `tests/model.proptest-regressions` here: the world kept `complete`'s nudge (the clock
/// just past 0 that makes it Completed) for good, so it said Completed at `T = 0` and fired
/// an extra loop-complete on the way back up.
#[test]
fn a_completed_zero_duration_motion_played_back_to_its_end_is_playing() {
    for (exec, speed_at_complete) in executors()
        .into_iter()
        .flat_map(|e| [(e.clone(), 1.0), (e, 0.0)])
    {
        let (mut world, name) = (exec.world(), exec.name());
        world.update(0.5).expect("update"); // the anchor at W = 0.5, not at 0
        let calls = Arc::new(Mutex::new(Vec::new()));
        let (on_loop, on_complete) = (Arc::clone(&calls), Arc::clone(&calls));
        let h = Motion::new(0.0f32, 10.0, 0.0)
            .preserve()
            .playback_speed(speed_at_complete)
            .on_loop_complete(move |_| on_loop.lock().unwrap().push("loop"))
            .on_complete(move || on_complete.lock().unwrap().push("complete"))
            .run(&mut world)
            .expect("valid");
        let seen = |world: &wgpu_tween::MotionWorld| Seen {
            status: world.status(h),
            loops: world.completed_loops(h),
            time: world.time(h),
            calls: std::mem::take(&mut *calls.lock().unwrap()),
        };
        world.complete(h).expect("complete");
        let done = seen(&world);
        assert_eq!(
            (done.status, done.loops, done.calls),
            (Ok(MotionStatus::Completed), Ok(1), vec!["loop", "complete"]),
            "{name}, speed {speed_at_complete}: complete"
        );
        let want_completed = |time| Seen {
            status: Ok(MotionStatus::Completed),
            loops: Ok(1),
            time: Ok(time),
            calls: vec![],
        };
        // A zero step, or a step at speed 0, leaves the clock where `complete` put it:
        // still Completed, nothing fires. (Its clock there is `T = 0` within §1's bound.)
        let mut holds = vec![0.0];
        if speed_at_complete == 0.0 {
            holds.push(0.25);
        }
        for dt in holds {
            world.update(dt).expect("update");
            let held = seen(&world);
            assert_eq!(
                (held.status, held.loops, held.calls),
                (Ok(MotionStatus::Completed), Ok(1), vec![]),
                "{name}, speed {speed_at_complete}: held by a step of {dt}"
            );
        }
        // Forward by 0.25 at speed 1: T = 0.25, Completed, nothing fires.
        world.set_playback_speed(h, 1.0).expect("speed");
        world.update(0.25).expect("update");
        assert_eq!(
            seen(&world),
            want_completed(0.25),
            "{name}, speed {speed_at_complete}: forward"
        );
        // Back by 0.5: T = -0.25 (§2: tss < 0, Delayed, c = -1 so 0 loops); no callbacks
        // (loops fell, nothing completed).
        world.set_playback_speed(h, -2.0).expect("speed");
        world.update(0.25).expect("update");
        assert_eq!(
            seen(&world),
            Seen {
                status: Ok(MotionStatus::Delayed),
                loops: Ok(0),
                time: Ok(-0.25),
                calls: vec![],
            },
            "{name}, speed {speed_at_complete}: back past the end"
        );
        // Up by 0.25: T = 0 exactly, tss = 0: Playing, 0 loops, nothing fires.
        world.set_playback_speed(h, 1.0).expect("speed");
        world.update(0.25).expect("update");
        assert_eq!(
            seen(&world),
            Seen {
                status: Ok(MotionStatus::Playing),
                loops: Ok(0),
                time: Ok(0.0),
                calls: vec![],
            },
            "{name}, speed {speed_at_complete}: back at the end"
        );
        // On to T = 0.125: completed again, its loop then complete (§6).
        world.update(0.125).expect("update");
        assert_eq!(
            seen(&world),
            Seen {
                calls: vec!["loop", "complete"],
                ..want_completed(0.125)
            },
            "{name}, speed {speed_at_complete}: past the end again"
        );
    }
}
