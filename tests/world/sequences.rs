//! Sequences (docs/semantics.md §8) on every executor: placement, nesting, the first frame, loops,
//! completion and cancel propagation, and children refusing direct control. Expected values
//! are worked out by hand from the placements (linear children: `from + (to − from)·clamp((t −
//! position)/duration, 0, 1)`), never read from the engine.

use crate::common;

use std::sync::{Arc, Mutex};

use common::executors;
use wgpu_tween::{
    BuildError, Ease, LoopType, Motion, MotionError, MotionHandle, MotionStatus, MotionWorld,
    Sequence, SequenceChild, SequenceChildError,
};

/// A shared log of what callbacks saw.
type Log = Arc<Mutex<Vec<String>>>;

fn new_log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

/// A linear child `from → to` over `duration` that logs its binds as `name=value` and its
/// callbacks, with no immediate bind of its own (the sequence's start binds it).
fn child(
    world: &mut MotionWorld,
    log: &Log,
    name: &'static str,
    from: f32,
    to: f32,
    duration: f32,
) -> MotionHandle {
    let (b, c, x) = (Arc::clone(log), Arc::clone(log), Arc::clone(log));
    Motion::new(from, to, duration)
        .immediate_bind(false)
        .on_complete(move || c.lock().unwrap().push(format!("{name}:complete")))
        .on_cancel(move || x.lock().unwrap().push(format!("{name}:cancel")))
        .bind(world, move |v| {
            b.lock().unwrap().push(format!("{name}={v:.4}"))
        })
        .unwrap()
}

/// The linear value of a child at sequence time `t`.
fn linear_at(t: f64, position: f64, duration: f64, from: f64, to: f64) -> f64 {
    from + (to - from) * ((t - position) / duration).clamp(0.0, 1.0)
}

/// Parses the `name=value` entries of one frame's log.
fn bound(entries: &[String], name: &str) -> Vec<f64> {
    entries
        .iter()
        .filter_map(|e| e.strip_prefix(name)?.strip_prefix('='))
        .map(|v| v.parse().unwrap())
        .collect()
}

#[test]
fn append_join_insert_and_interval_place_children() {
    for exec in executors() {
        let mut world = exec.world();
        let log = new_log();
        let a = child(&mut world, &log, "a", 0.0, 10.0, 1.0);
        let b = child(&mut world, &log, "b", 100.0, 200.0, 1.0);
        let c = child(&mut world, &log, "c", 0.0, 1.0, 0.5);
        let d = child(&mut world, &log, "d", 5.0, 6.0, 0.5);
        let done = new_log();
        let done_in = Arc::clone(&done);
        // a at 0, a pause of 0.5, b at 1.5, c joined to b (1.5), d inserted at 0.25.
        let seq = Sequence::new()
            .append(a)
            .append_interval(0.5)
            .append(b)
            .join(c)
            .insert(0.25, d)
            .run_with(&mut world, |m| {
                m.on_complete(move || done_in.lock().unwrap().push("seq:complete".into()))
            })
            .unwrap();
        assert_eq!(world.total_duration(seq).unwrap(), 2.5);
        // (position, duration, from, to) by name.
        let placed = [
            ("a", 0.0, 1.0, 0.0, 10.0),
            ("b", 1.5, 1.0, 100.0, 200.0),
            ("c", 1.5, 0.5, 0.0, 1.0),
            ("d", 0.25, 0.5, 5.0, 6.0),
        ];
        let mut completes = Vec::new();
        // Times 0, 0.01, 0.26, 0.51, …: no update lands on a child's start or end, so the
        // frame of each completion is certain.
        for frame in 0..=12 {
            if frame > 0 {
                world.update(if frame == 1 { 0.01 } else { 0.25 }).unwrap();
            }
            let t = if frame == 0 {
                0.0
            } else {
                0.01 + 0.25 * f64::from(frame - 1)
            };
            let entries = take(&log);
            for (name, position, duration, from, to) in placed {
                // Every child binds once per update (before its start it shows its start
                // value, after its end its end value), until the sequence has ended.
                let values = bound(&entries, name);
                if t > 2.5 + 0.25 {
                    assert!(
                        values.is_empty(),
                        "{}: {name} bound after the end",
                        exec.name()
                    );
                    continue;
                }
                let want = linear_at(t, position, duration, from, to);
                assert_eq!(
                    values.len(),
                    1,
                    "{}: {name} at t={t}: {entries:?}",
                    exec.name()
                );
                let tolerance = 1e-4 * (to - from).abs().max(1.0);
                assert!(
                    (values[0] - want).abs() <= tolerance,
                    "{}: {name} at t={t}: {} != {want}",
                    exec.name(),
                    values[0]
                );
            }
            for e in entries.iter().filter(|e| e.ends_with(":complete")) {
                completes.push((e.clone(), frame));
            }
            completes.extend(take(&done).into_iter().map(|e| (e, frame)));
        }
        // Each child completes in the update that reaches its end, once; then the sequence.
        let expected = [
            ("d:complete", 4),  // ends at 0.75: t = 0.76
            ("a:complete", 5),  // 1.0: t = 1.01
            ("c:complete", 9),  // 2.0: t = 2.01
            ("b:complete", 11), // 2.5: t = 2.51
            ("seq:complete", 11),
        ];
        let mut got: Vec<(String, i32)> = completes;
        got.sort_by_key(|(e, f)| (*f, e.clone()));
        let mut want: Vec<(String, i32)> =
            expected.iter().map(|(e, f)| (e.to_string(), *f)).collect();
        want.sort_by_key(|(e, f)| (*f, e.clone()));
        assert_eq!(got, want, "{}", exec.name());
        for h in [a, b, c, d, seq] {
            assert!(!world.is_active(h), "{}", exec.name());
        }
        assert!(world.is_empty());
    }
}

#[test]
fn sequences_nest_two_levels_deep() {
    for exec in executors() {
        let mut world = exec.world();
        let log = new_log();
        let a = child(&mut world, &log, "a", 0.0, 1.0, 1.0);
        let b = child(&mut world, &log, "b", 10.0, 20.0, 1.0);
        let inner = Sequence::new().append(a).append(b).run(&mut world).unwrap();
        let x = child(&mut world, &log, "x", -1.0, 0.0, 1.0);
        let y = child(&mut world, &log, "y", 7.0, 8.0, 2.0);
        let middle = Sequence::new()
            .append(x)
            .append(inner)
            .run(&mut world)
            .unwrap();
        // The outer one starts `middle` at 0.5 and plays it at double speed.
        let z = child(&mut world, &log, "z", 0.0, 1.0, 0.5);
        let outer = Sequence::new()
            .append(z)
            .append(middle)
            .join(y)
            .run_with(&mut world, |m| m.playback_speed(2.0))
            .unwrap();
        assert_eq!(world.total_duration(middle).unwrap(), 3.0);
        assert_eq!(world.total_duration(outer).unwrap(), 3.5);
        take(&log);
        // Outer time 2·t: z on [0, 0.5], x on [0.5, 1.5], a on [1.5, 2.5], b on [2.5, 3.5],
        // y joined to middle: [0.5, 2.5].
        for frame in 1..=8 {
            world.update(0.25).unwrap();
            let s = 0.5 * f64::from(frame);
            let entries = take(&log);
            for (name, position, duration, from, to) in [
                ("z", 0.0, 0.5, 0.0, 1.0),
                ("x", 0.5, 1.0, -1.0, 0.0),
                ("a", 1.5, 1.0, 0.0, 1.0),
                ("b", 2.5, 1.0, 10.0, 20.0),
                ("y", 0.5, 2.0, 7.0, 8.0),
            ] {
                let values = bound(&entries, name);
                if s > 3.5 {
                    continue;
                }
                let want = linear_at(s, position, duration, from, to);
                assert_eq!(
                    values.len(),
                    1,
                    "{}: {name} at s={s}: {entries:?}",
                    exec.name()
                );
                assert!(
                    (values[0] - want).abs() <= 1e-4 * (to - from).abs().max(1.0),
                    "{}: {name} at s={s}: {} != {want}",
                    exec.name(),
                    values[0]
                );
            }
            // The CPU-side queries agree with the executor's values.
            if s <= 3.0 {
                let want = linear_at(s, 1.5, 1.0, 0.0, 1.0) as f32;
                assert!((world.value::<f32>(a).unwrap() - want).abs() < 1e-4);
                // Before `inner` starts its clock rests at 0, and so does a's.
                assert!((world.time(a).unwrap() - (s - 1.5).max(0.0)).abs() < 1e-5);
            }
        }
        assert!(world.is_empty(), "{}", exec.name());
    }
}

#[test]
fn first_frame_shows_the_first_childs_start_value() {
    // LitMotion #226: three children animating one value show the last child's start value
    // on the first frame. Here the first child's start value shows at once and after the
    // first update.
    for exec in executors() {
        let mut world = exec.world();
        let cell = Arc::new(Mutex::new(f32::NAN));
        let mut children = Vec::new();
        for (from, to) in [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)] {
            let cell = Arc::clone(&cell);
            let h = Motion::new(from, to, 1.0)
                .bind(&mut world, move |v: f32| *cell.lock().unwrap() = v)
                .unwrap();
            children.push(h);
        }
        let seq = children
            .iter()
            .fold(Sequence::new(), |s, &h| s.append(h))
            .run(&mut world)
            .unwrap();
        assert_eq!(
            *cell.lock().unwrap(),
            0.0,
            "{}: before the first update",
            exec.name()
        );
        world.update(0.0).unwrap();
        assert_eq!(
            *cell.lock().unwrap(),
            0.0,
            "{}: at the first update",
            exec.name()
        );
        world.update(0.5).unwrap();
        assert!(
            (*cell.lock().unwrap() - 0.5).abs() < 1e-5,
            "{}",
            exec.name()
        );
        world.update(1.0).unwrap();
        assert!(
            (*cell.lock().unwrap() - 1.5).abs() < 1e-5,
            "{}",
            exec.name()
        );
        assert_eq!(world.status(seq).unwrap(), MotionStatus::Playing);
    }
}

#[test]
fn yoyo_and_flip_sequence_loops_replay_children_backwards() {
    for loop_type in [LoopType::Yoyo, LoopType::Flip] {
        for exec in executors() {
            let mut world = exec.world();
            let cell = Arc::new(Mutex::new(f32::NAN));
            let bind = |world: &mut MotionWorld, from: f32, to: f32| {
                let cell = Arc::clone(&cell);
                Motion::new(from, to, 1.0)
                    .bind(world, move |v: f32| *cell.lock().unwrap() = v)
                    .unwrap()
            };
            let a = bind(&mut world, 0.0, 1.0);
            let b = bind(&mut world, 1.0, 2.0);
            let loops = Arc::new(Mutex::new(Vec::new()));
            let seen = Arc::clone(&loops);
            let seq = Sequence::new()
                .append(a)
                .append(b)
                .run_with(&mut world, |m| {
                    m.loops(3, loop_type)
                        .on_loop_complete(move |n| seen.lock().unwrap().push(n))
                })
                .unwrap();
            // Sequence time per half second: forwards 0..2, backwards 2..0, forwards again.
            let expected = [0.5, 1.0, 1.5, 2.0, 1.5, 1.0, 0.5, 0.0, 0.5, 1.0, 1.5];
            for (k, want) in expected.into_iter().enumerate() {
                world.update(0.5).unwrap();
                let got = *cell.lock().unwrap();
                // Linear children: the value is the sequence time, whichever child shows it.
                assert!(
                    (got - want).abs() < 1e-4,
                    "{} {loop_type:?}: step {k}: {got} != {want}",
                    exec.name()
                );
            }
            assert_eq!(
                *loops.lock().unwrap(),
                [1, 2],
                "{} {loop_type:?}",
                exec.name()
            );
            world.update(0.5).unwrap();
            assert_eq!(*loops.lock().unwrap(), [1, 2, 3]);
            assert!(!world.is_active(seq) && !world.is_active(a) && !world.is_active(b));
        }
    }
}

#[test]
fn completing_a_sequence_completes_its_children() {
    let mut world = MotionWorld::new();
    let log = new_log();
    let a = child(&mut world, &log, "a", 0.0, 1.0, 1.0);
    let b = child(&mut world, &log, "b", 0.0, 1.0, 1.0);
    let c = child(&mut world, &log, "c", 0.0, 1.0, 1.0);
    let inner = Sequence::new().append(b).append(c).run(&mut world).unwrap();
    let seq = Sequence::new()
        .append(a)
        .append(inner)
        .run(&mut world)
        .unwrap();
    let waiting = world.completion(c);
    world.update(0.5).unwrap();
    take(&log);
    world.complete(seq).unwrap();
    let entries = take(&log);
    let events: Vec<_> = entries.iter().filter(|e| e.contains(':')).collect();
    // Each child completes once, none is cancelled; each ends at its end value.
    assert_eq!(events, ["a:complete", "b:complete", "c:complete"]);
    for name in ["a", "b", "c"] {
        assert_eq!(bound(&entries, name), [1.0], "{name}");
    }
    assert_eq!(pollster::block_on(waiting), Ok(()));
    for h in [a, b, c, inner, seq] {
        assert!(!world.is_active(h));
    }
    assert!(world.is_empty());
}

#[test]
fn cancelling_a_sequence_cancels_its_children() {
    for exec in executors() {
        let mut world = exec.world();
        let log = new_log();
        let a = child(&mut world, &log, "a", 0.0, 1.0, 1.0);
        let b = child(&mut world, &log, "b", 0.0, 1.0, 1.0);
        let inner = Sequence::new().append(b).run(&mut world).unwrap();
        let seq = Sequence::new()
            .append(a)
            .append(inner)
            .run(&mut world)
            .unwrap();
        let waiting = world.completion(b);
        world.update(1.25).unwrap();
        let events: Vec<_> = take(&log).into_iter().filter(|e| e.contains(':')).collect();
        assert_eq!(events, ["a:complete"], "{}", exec.name()); // a spans 0..1
        world.cancel(seq).unwrap();
        // `a` has ended (completed): only `b`, still playing, is cancelled.
        let events: Vec<_> = take(&log).into_iter().filter(|e| e.contains(':')).collect();
        assert_eq!(events, ["b:cancel"], "{}", exec.name());
        assert_eq!(pollster::block_on(waiting), Err(wgpu_tween::Canceled));
        for h in [a, b, inner, seq] {
            assert!(!world.is_active(h));
        }
        world.update(1.0).unwrap();
        assert!(take(&log).is_empty());
        assert!(world.is_empty());
    }
}

#[test]
fn children_refuse_direct_control() {
    let mut world = MotionWorld::new();
    let a = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
    let seq = Sequence::new().append(a).run(&mut world).unwrap();
    assert_eq!(world.complete(a), Err(MotionError::InSequence(a)));
    assert_eq!(world.cancel(a), Err(MotionError::InSequence(a)));
    assert_eq!(world.set_time(a, 0.5), Err(MotionError::InSequence(a)));
    assert_eq!(
        world.set_playback_speed(a, 2.0),
        Err(MotionError::InSequence(a))
    );
    assert!(!world.try_complete(a) && !world.try_cancel(a));
    // Queries still work.
    world.update(0.25).unwrap();
    assert_eq!(world.status(a), Ok(MotionStatus::Playing));
    assert!((world.time(a).unwrap() - 0.25).abs() < 1e-9);
    assert!(world.is_active(a) && world.is_active(seq));
}

#[test]
fn only_fresh_finite_unsequenced_motions_join() {
    let mut world = MotionWorld::new();
    let refused = |result: Result<MotionHandle, BuildError>| match result {
        Err(BuildError::InvalidSequenceChild { reason, .. }) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    };
    let old = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
    world.update(0.1).unwrap();
    assert_eq!(
        refused(Sequence::new().append(old).run(&mut world)),
        SequenceChildError::AlreadyStarted
    );
    let forever = Motion::new(0.0f32, 1.0, 1.0)
        .loops(-1, LoopType::Restart)
        .run(&mut world)
        .unwrap();
    assert_eq!(
        refused(Sequence::new().append(forever).run(&mut world)),
        SequenceChildError::InfiniteLoops
    );
    let fast = Motion::new(0.0f32, 1.0, 1.0)
        .playback_speed(2.0)
        .run(&mut world)
        .unwrap();
    assert_eq!(
        refused(Sequence::new().append(fast).run(&mut world)),
        SequenceChildError::PlaybackSpeed
    );
    let a = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
    assert_eq!(
        refused(Sequence::new().append(a).join(a).run(&mut world)),
        SequenceChildError::AlreadyInSequence
    );
    Sequence::new().append(a).run(&mut world).unwrap();
    assert_eq!(
        refused(Sequence::new().append(a).run(&mut world)),
        SequenceChildError::AlreadyInSequence
    );
    assert_eq!(
        refused(Sequence::new().append(MotionHandle::NONE).run(&mut world)),
        SequenceChildError::NotLive
    );
    let b = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
    assert!(matches!(
        Sequence::new()
            .append_interval(-1.0)
            .append(b)
            .run(&mut world),
        Err(BuildError::InvalidSequenceTime {
            what: "interval",
            ..
        })
    ));
    assert!(matches!(
        Sequence::new().insert(f32::NAN, b).run(&mut world),
        Err(BuildError::InvalidSequenceTime {
            what: "position",
            ..
        })
    ));
    // Nesting stops at MAX_SEQUENCE_DEPTH.
    let mut top = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
    for _ in 0..wgpu_tween::MAX_SEQUENCE_DEPTH {
        top = Sequence::new().append(top).run(&mut world).unwrap();
    }
    assert_eq!(
        refused(Sequence::new().append(top).run(&mut world)),
        SequenceChildError::TooDeep
    );
}

#[test]
fn a_preserved_sequence_can_be_scrubbed() {
    for exec in executors() {
        let mut world = exec.world();
        let log = new_log();
        let a = child(&mut world, &log, "a", 0.0, 1.0, 1.0);
        let b = child(&mut world, &log, "b", 5.0, 6.0, 1.0);
        let seq = Sequence::new()
            .append(a)
            .append(b)
            .run_with(&mut world, |m| m.preserve())
            .unwrap();
        world.update(3.0).unwrap();
        assert_eq!(world.status(seq), Ok(MotionStatus::Completed));
        take(&log);
        world.set_time(seq, 0.5).unwrap();
        let entries = take(&log);
        assert_eq!(bound(&entries, "a"), [0.5], "{}: {entries:?}", exec.name());
        assert_eq!(bound(&entries, "b"), [5.0]);
        world.update(1.0).unwrap();
        let entries = take(&log);
        assert_eq!(bound(&entries, "b"), [5.5], "{}: {entries:?}", exec.name());
        assert!(world.is_active(a) && world.is_active(b));
        world.cancel(seq).unwrap();
        assert!(world.is_empty());
    }
}

#[test]
fn sequences_can_be_made_from_callbacks() {
    for exec in executors() {
        let mut world = exec.world();
        let commands = world.commands();
        let cell = Arc::new(Mutex::new(f32::NAN));
        let made = Arc::new(Mutex::new(None));
        let (sink, out) = (Arc::clone(&cell), Arc::clone(&made));
        Motion::new(0.0f32, 1.0, 0.5)
            .on_complete(move || {
                let spawn = |from: f32| {
                    let sink = Arc::clone(&sink);
                    Motion::new(from, from + 1.0, 1.0)
                        .bind_deferred(&commands, move |v: f32| *sink.lock().unwrap() = v)
                        .unwrap()
                };
                let (a, b) = (spawn(10.0), spawn(11.0));
                let seq = Sequence::new().append(a).append(b);
                *out.lock().unwrap() = Some((a, b, seq.run_deferred(&commands).unwrap()));
            })
            .run(&mut world)
            .unwrap();
        world.update(0.5).unwrap(); // completes the first motion; the sequence is made
        let (a, b, seq) = made.lock().unwrap().unwrap();
        assert!(world.is_active(seq), "{}", exec.name());
        assert_eq!(world.total_duration(seq).unwrap(), 2.0);
        // The children's start binds ran in §8's order: the first child's start shows.
        assert_eq!(*cell.lock().unwrap(), 10.0, "{}", exec.name());
        world.update(1.5).unwrap();
        assert!(
            (*cell.lock().unwrap() - 11.5).abs() < 1e-5,
            "{}",
            exec.name()
        );
        assert_eq!(world.cancel(b), Err(MotionError::InSequence(b)));
        world.update(1.0).unwrap();
        assert!(!world.is_active(seq) && !world.is_active(a) && world.is_empty());
    }
}

#[test]
fn a_deferred_sequence_whose_child_cannot_join_is_not_made() {
    let mut world = MotionWorld::new();
    let started = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
    world.update(0.25).unwrap();
    let commands = world.commands();
    let seq = Sequence::new()
        .append(started)
        .run_deferred(&commands)
        .unwrap();
    assert!(matches!(
        Sequence::new()
            .append_interval(f32::INFINITY)
            .run_deferred(&commands),
        Err(BuildError::InvalidSequenceTime { .. })
    ));
    world.update(0.25).unwrap();
    assert!(!world.is_active(seq));
    // The would-be child runs on its own, and can be controlled directly.
    assert!((world.time(started).unwrap() - 0.5).abs() < 1e-9);
    assert!(world.cancel(started).is_ok());
}

#[test]
fn a_sequence_eased_by_a_curve_or_parametric_ease_times_its_children() {
    use wgpu_tween::{AnimationCurve, Keyframe, ParametricEase};
    // Zero tangents: smoothstep, 3t² − 2t³. Steps(4): floor(4t)/4.
    let smooth = AnimationCurve::new([Keyframe::new(0.0, 0.0), Keyframe::new(1.0, 1.0)]).unwrap();
    let smoothstep = |t: f64| 3.0 * t * t - 2.0 * t * t * t;
    let steps = |t: f64| (4.0 * t).floor() / 4.0;
    for exec in executors() {
        for curve in [true, false] {
            let mut world = exec.world();
            let cell = Arc::new(Mutex::new(f32::NAN));
            let sink = Arc::clone(&cell);
            // One child 0 → 10 over the whole 2 s sequence: its value is 5·v.
            let a = Motion::new(0.0f32, 10.0, 2.0)
                .bind(&mut world, move |v: f32| *sink.lock().unwrap() = v)
                .unwrap();
            Sequence::new()
                .append(a)
                .run_with(&mut world, |m| {
                    if curve {
                        m.ease_curve(&smooth)
                    } else {
                        m.ease_with(ParametricEase::Steps(4))
                    }
                })
                .unwrap();
            for frame in 1..=7 {
                world.update(0.3).unwrap();
                let t = (0.3 * f64::from(frame) / 2.0).min(1.0);
                let shaped = if curve { smoothstep(t) } else { steps(t) };
                let want = 10.0 * shaped;
                let got = f64::from(*cell.lock().unwrap());
                assert!(
                    (got - want).abs() < 1e-3,
                    "{} curve={curve} t={t}: {got} != {want}",
                    exec.name()
                );
            }
        }
    }
}

#[test]
fn children_follow_their_sequences_through_swap_removes() {
    // Sequences interleaved with plain motions that end or are cancelled at random, so rows
    // (sequences' included) move by swap-remove every few updates; every child's bound value
    // must still be its linear value at its sequence's time.
    for exec in executors() {
        let mut world = exec.world();
        let mut rng = common::Rng(0x5e9_u64);
        let mut fillers = Vec::new();
        // (cell, sequence start time, position, duration, from, to)
        let mut children = Vec::new();
        for s in 0..24 {
            for _ in 0..rng.below(4) {
                let d = rng.range(0.05, 1.0) as f32;
                fillers.push(Motion::new(0.0f32, 1.0, d).run(&mut world).unwrap());
            }
            let mut sequence = Sequence::new();
            let mut tail = 0.0;
            for c in 0..1 + rng.below(3) {
                let (d, from) = (rng.range(0.2, 1.0) as f32, (s * 10 + c) as f32);
                let cell = Arc::new(Mutex::new(f32::NAN));
                let sink = Arc::clone(&cell);
                let h = Motion::new(from, from + 1.0, d)
                    .bind(&mut world, move |v: f32| *sink.lock().unwrap() = v)
                    .unwrap();
                sequence = sequence.append(h);
                children.push((cell, f64::from(tail), f64::from(d), f64::from(from)));
                tail += d;
            }
            sequence.run(&mut world).unwrap();
        }
        let mut t = 0.0;
        for frame in 0..40 {
            // Cancel a few fillers (most have ended by themselves already).
            for _ in 0..2 {
                if !fillers.is_empty() {
                    let h = fillers.swap_remove(rng.below(fillers.len()));
                    world.try_cancel(h);
                }
            }
            world.update(0.07).unwrap();
            t += 0.07;
            for (cell, position, duration, from) in &children {
                let want = linear_at(t, *position, *duration, *from, from + 1.0);
                let got = f64::from(*cell.lock().unwrap());
                // Values bind until their sequence ends; afterwards they keep the end value.
                assert!(
                    (got - want).abs() < 1e-4,
                    "{} frame {frame} t={t:.2}: child at {position} got {got}, want {want}",
                    exec.name()
                );
            }
        }
    }
}

/// A child ends once: over three passes of a looping sequence, each child's `on_complete`
/// fires in the first pass only, and cancelling the sequence in a later pass fires no
/// child's `on_cancel` (both completed in the first pass), only the sequence's own.
#[test]
fn children_of_a_looping_sequence_end_once() {
    for loop_type in [LoopType::Restart, LoopType::Yoyo] {
        for exec in executors() {
            let mut world = exec.world();
            let log = new_log();
            let a = child(&mut world, &log, "a", 0.0, 1.0, 1.0);
            let b = child(&mut world, &log, "b", 0.0, 1.0, 1.0);
            let seq_log = Arc::clone(&log);
            // A pause after `b`, so that each pass reaches `b`'s end before the loop's
            // (an update crossing a Restart boundary shows only the new pass).
            let seq = Sequence::new()
                .append(a)
                .append(b)
                .append_interval(0.5)
                .run_with(&mut world, |m| {
                    m.loops(3, loop_type)
                        .on_cancel(move || seq_log.lock().unwrap().push("seq:cancel".into()))
                })
                .unwrap();
            let mut events = Vec::new();
            // Sequence length 2.5 s; passes 0..2.5, 2.5..5, 5..7.5. Stop at 5.5: the third
            // pass, `a` playing (sequence time 0.5) and `b` waiting.
            for _ in 0..11 {
                world.update(0.5).unwrap();
                events.extend(take(&log).into_iter().filter(|e| e.contains(':')));
            }
            let what = format!("{} {loop_type:?}", exec.name());
            assert_eq!(events, ["a:complete", "b:complete"], "{what}");
            // A future made now, in a later pass, sees the children's end.
            assert_eq!(pollster::block_on(world.completion(a)), Ok(()), "{what}");
            world.cancel(seq).unwrap();
            let events: Vec<_> = take(&log).into_iter().filter(|e| e.contains(':')).collect();
            assert_eq!(events, ["seq:cancel"], "{what}");
            assert!(world.is_empty(), "{what}");
        }
    }
}

/// What binds wrote, in order: `(who, value)`.
type Binds = Arc<Mutex<Vec<(&'static str, f32)>>>;

/// A template child binding `(name, value)` into `binds`.
fn logged(motion: Motion<f32>, binds: &Binds, name: &'static str) -> SequenceChild {
    let binds = Arc::clone(binds);
    SequenceChild::bound(motion, move |v| binds.lock().unwrap().push((name, v)))
}

fn drain(binds: &Binds) -> Vec<(&'static str, f32)> {
    std::mem::take(&mut *binds.lock().unwrap())
}

/// The pitfall of docs/semantics.md §8: a fade-in on `alpha` (0 → 1 over 0.5 s, made
/// first) and a sequence whose second step (1 → 0 over 1 s, at 1 s) also drives `alpha`.
/// By default the step binds its start value in every update before it starts, after the
/// fade-in (creation order), so `alpha` reads 1 throughout; with `bind_before_start(false)`
/// it does not bind until the sequence reaches it. Lengths are powers of two, so the
/// sequence's value is its clock exactly and every value below is exact.
#[test]
fn bind_before_start_false_leaves_a_property_to_other_motions_until_the_step_starts() {
    for bind_before_start in [true, false] {
        for exec in executors() {
            let what = format!("{} bind_before_start({bind_before_start})", exec.name());
            let mut world = exec.world();
            let binds: Binds = Arc::default();
            let sink = Arc::clone(&binds);
            Motion::new(0.0f32, 1.0, 0.5)
                .bind(&mut world, move |v| sink.lock().unwrap().push(("fade", v)))
                .unwrap();
            let seq = Sequence::new()
                .append(logged(Motion::new(0.0, 1.0, 1.0), &binds, "wait"))
                .append(logged(Motion::new(1.0, 0.0, 1.0), &binds, "step"))
                .bind_before_start(bind_before_start)
                .run(&mut world)
                .unwrap();
            // The fade-in's and the sequence's immediate binds (the unstarted step first).
            let mut expected = vec![("fade", 0.0)];
            if bind_before_start {
                expected.push(("step", 1.0));
            }
            expected.push(("wait", 0.0));
            assert_eq!(drain(&binds), expected, "{what}: at creation");
            // 0.25 s and 0.5 s: the step has not started (its position is 1 s). In each
            // update the unstarted step runs first, then the started one (§8).
            for (fade, wait) in [(0.5, 0.25), (1.0, 0.5)] {
                world.update(0.25).unwrap();
                world.update(0.0).unwrap(); // a zero step changes nothing
                let mut expected = Vec::new();
                for _ in 0..2 {
                    if fade == 0.5 || expected.is_empty() {
                        expected.push(("fade", fade)); // the fade-in, until it completes
                    }
                    if bind_before_start {
                        expected.push(("step", 1.0));
                    }
                    expected.push(("wait", wait));
                }
                let got = drain(&binds);
                assert_eq!(got, expected, "{what}: before the step starts");
                // What `alpha` reads: the last fade or step bind.
                let alpha = got.iter().rev().find(|(who, _)| *who != "wait").unwrap().1;
                assert_eq!(alpha, if bind_before_start { 1.0 } else { fade }, "{what}");
            }
            world.update(0.75).unwrap(); // 1.25 s: the step started 0.25 s ago
            assert_eq!(
                drain(&binds),
                [("wait", 1.0), ("step", 0.75)],
                "{what}: the step plays"
            );
            world.update(1.0).unwrap(); // 2.25 s: done
            assert_eq!(
                drain(&binds),
                [("wait", 1.0), ("step", 0.0)],
                "{what}: the end"
            );
            assert!(!world.is_active(seq), "{what}");
        }
    }
}

/// A nested sequence that its parent has not reached, with binds held, holds its own
/// children's binds (even those at its position 0); a Yoyo loop taking the sequence back
/// before a step leaves the step's last value alone.
#[test]
fn held_binds_reach_nested_children_and_yoyo_rewinds() {
    for exec in executors() {
        let what = exec.name();
        let mut world = exec.world();
        let binds: Binds = Arc::default();
        let inner = Sequence::new()
            .append(logged(Motion::new(0.0, 1.0, 1.0), &binds, "inner"))
            .run_with(&mut world, |m| m.immediate_bind(false))
            .unwrap();
        Sequence::new()
            .append(logged(Motion::new(0.0, 1.0, 1.0), &binds, "wait"))
            .append(inner)
            .bind_before_start(false)
            .run_with(&mut world, |m| m.loops(2, LoopType::Yoyo))
            .unwrap();
        assert_eq!(drain(&binds), [("wait", 0.0)], "{what}: at creation");
        world.update(0.5).unwrap();
        assert_eq!(drain(&binds), [("wait", 0.5)], "{what}: inner not reached");
        world.update(1.0).unwrap(); // 1.5 s: the inner sequence half way
        assert_eq!(
            drain(&binds),
            [("wait", 1.0), ("inner", 0.5)],
            "{what}: inner plays"
        );
        world.update(1.0).unwrap(); // 2.5 s: back at 1.5 s of the timeline
        assert_eq!(
            drain(&binds),
            [("wait", 1.0), ("inner", 0.5)],
            "{what}: backwards"
        );
        world.update(1.0).unwrap(); // 3.5 s: back at 0.5 s, before the inner sequence
        assert_eq!(
            drain(&binds),
            [("wait", 0.5)],
            "{what}: rewound before the inner sequence"
        );
    }
}

/// docs/semantics.md §8: completed children land on their end values exactly, whether the
/// sequence runs past them or completes. Children of 0.3, 0.4 and 0.3 s (as f32) from 1 to
/// 0: their positions and the sequence's length are rounded to f32, and the last child's
/// rounded position plus its duration lies past the rounded length, where it used to end
/// at 1.79e-7 (a 3-ulp step short of its end).
#[test]
fn completed_children_land_exactly_on_their_end_values() {
    for ease in [Ease::Linear, Ease::InOutSine] {
        for how in ["updates", "one update", "complete", "set_time"] {
            for exec in executors() {
                let what = format!("{} {ease:?} {how}", exec.name());
                let mut world = exec.world();
                let binds: Binds = Arc::default();
                let step = |d: f32| Motion::new(1.0f32, 0.0, d).ease(ease);
                let seq = Sequence::new()
                    .append(logged(step(0.3), &binds, "a"))
                    .append(logged(step(0.4), &binds, "b"))
                    .append(logged(step(0.3), &binds, "c"))
                    .run_with(&mut world, |m| m.preserve())
                    .unwrap();
                let end = world.total_duration(seq).unwrap();
                assert_eq!(end, 1.0, "{what}: 0.3 + 0.4 + 0.3 as f32s, rounded once");
                drain(&binds);
                match how {
                    "updates" => {
                        world.update(0.5).unwrap();
                        // `a` ended while `b` runs.
                        let got = drain(&binds);
                        let a = got.iter().find(|(who, _)| *who == "a");
                        assert_eq!(a, Some(&("a", 0.0)), "{what}: {got:?}");
                        world.update(0.5).unwrap(); // lands on the end
                    }
                    "one update" => world.update(2.0).unwrap(),
                    "complete" => world.complete(seq).unwrap(),
                    _ => world.set_time(seq, end).unwrap(),
                }
                let mut got = drain(&binds);
                got.sort_by_key(|(who, _)| *who);
                assert_eq!(got, [("a", 0.0), ("b", 0.0), ("c", 0.0)], "{what}");
                assert_eq!(
                    world.status(seq).unwrap(),
                    MotionStatus::Completed,
                    "{what}"
                );
                world.update(0.25).unwrap(); // preserved: binds its end values again
                assert_eq!(
                    drain(&binds),
                    [("a", 0.0), ("b", 0.0), ("c", 0.0)],
                    "{what}: preserved"
                );
            }
        }
    }
}

/// docs/semantics.md §8: the timeline is exact; each child stores its position rounded to
/// f32 once. 5 000 appends of 0.01 s (as f32) last `5000 · 0.01f32` (exact in f64)
/// rounded to f32 once, where adding f32 positions up drifted to 49.99762 s; the
/// `k`-th child starts at `k · 0.01f32` rounded once, which its clock at the sequence's
/// start shows (`0 − position`).
#[test]
fn appended_positions_do_not_drift() {
    let mut world = MotionWorld::new();
    let step = f64::from(0.01f32);
    let children: Vec<MotionHandle> = (0..5000)
        .map(|_| Motion::new(0.0f32, 1.0, 0.01).run(&mut world).unwrap())
        .collect();
    let seq = children
        .iter()
        .fold(Sequence::new(), |s, &h| s.append(h))
        .run(&mut world)
        .unwrap();
    let total = (5000.0 * step) as f32;
    assert_eq!(world.total_duration(seq).unwrap(), f64::from(total));
    assert_eq!(total, 50.0);
    for k in [1usize, 3, 1000, 2500, 4999] {
        let position = (k as f64 * step) as f32;
        assert_eq!(
            world.time(children[k]).unwrap(),
            -f64::from(position),
            "child {k}"
        );
    }
    // Joins and inserts start where their f64 places round to.
    let mut world = MotionWorld::new();
    let make = |world: &mut MotionWorld| Motion::new(0.0f32, 1.0, 0.01).run(world).unwrap();
    let a: Vec<MotionHandle> = (0..3).map(|_| make(&mut world)).collect();
    let joined = make(&mut world);
    let after = make(&mut world);
    let seq = Sequence::new()
        .append(a[0])
        .append(a[1])
        .append(a[2])
        .join(joined)
        .append_interval(0.1)
        .append(after)
        .run(&mut world)
        .unwrap();
    let at = |x: f64| -f64::from(x as f32);
    assert_eq!(world.time(joined).unwrap(), at(2.0 * step));
    assert_eq!(
        world.time(after).unwrap(),
        at(3.0 * step + f64::from(0.1f32))
    );
    assert_eq!(
        world.total_duration(seq).unwrap(),
        f64::from((4.0 * step + f64::from(0.1f32)) as f32)
    );
}
