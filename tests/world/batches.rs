//! Issue 17 item 4: batch spawning keeps every guarantee of one-at-a-time creation (typed
//! validation errors, nothing added when one motion is invalid, generational handles,
//! creation order); item 5: `value(h)` after an update is the motion's value, as the
//! reference formulas give it, and stays exact where the executor's output is not current.

use std::sync::{Arc, Mutex};

use wgpu_tween::{BatchItem, BuildError, Ease, LoopType, Motion, MotionHandle, MotionWorld};

/// A log of `(motion id, value)` bind calls.
type Log = Arc<Mutex<Vec<(usize, f32)>>>;

fn logger(log: &Log, id: usize) -> impl FnMut(f32) + Send + 'static {
    let log = Arc::clone(log);
    move |x| log.lock().unwrap().push((id, x))
}

/// A world with one bound motion, `0 → 1` over 1 s, logged as motion 100.
fn world_with_a_bound_motion(log: &Log) -> (MotionWorld, MotionHandle) {
    let mut world = MotionWorld::new();
    let motion = Motion::new(0.0f32, 1.0, 1.0)
        .bind(&mut world, logger(log, 100))
        .unwrap();
    (world, motion)
}

#[test]
fn batch_motions_have_their_endpoints_and_the_base_settings() {
    let mut world = MotionWorld::new();
    let base = Motion::new(0.0f32, 0.0, 2.0).loops(2, LoopType::Yoyo);
    let mut handles = Vec::new();
    base.run_batch(
        &mut world,
        4,
        |i| BatchItem::new(i as f32, 10.0 + i as f32),
        &mut handles,
    )
    .unwrap();
    assert_eq!(handles.len(), 4);
    world.update(0.5).unwrap(); // linear, a quarter of the first loop
    for (i, &h) in handles.iter().enumerate() {
        assert_eq!(world.value::<f32>(h).unwrap(), i as f32 + 2.5, "motion {i}");
        assert_eq!(world.duration(h).unwrap(), 2.0);
    }
    world.update(2.0).unwrap(); // 2.5 s: the yoyo's way back, a quarter in
    for (i, &h) in handles.iter().enumerate() {
        assert_eq!(world.value::<f32>(h).unwrap(), i as f32 + 7.5, "motion {i}");
    }
}

#[test]
fn an_invalid_motion_adds_nothing() {
    let log: Log = Arc::default();
    let (mut world, before) = world_with_a_bound_motion(&log);
    let mut handles = vec![before];
    let base = Motion::new(0.0f32, 0.0, 1.0);
    let ends = [1.0, 2.0, f32::INFINITY, 4.0];
    let result = base.bind_batch(
        &mut world,
        ends.len(),
        |i| (BatchItem::new(0.0, ends[i]), logger(&log, i)),
        &mut handles,
    );
    match result {
        Err(BuildError::InBatch { index: 2, error }) => assert!(matches!(
            *error,
            BuildError::NonFiniteValue { which: "end", .. }
        )),
        other => panic!("expected motion 2's error, got {other:?}"),
    }
    // One that overflows the f32 range is an error too.
    let huge = base.run_batch(
        &mut world,
        2,
        |i| BatchItem::new(-[0.0, f32::MAX][i], [1.0, f32::MAX][i]),
        &mut handles,
    );
    assert!(matches!(huge, Err(BuildError::InBatch { index: 1, .. })));
    assert_eq!(world.len(), 1);
    assert_eq!(handles, [before]);
    assert_eq!(*log.lock().unwrap(), [(100, 0.0)], "no immediate bind ran");

    // Invalid settings, and what a batch cannot share.
    let never = |_| BatchItem::new(0.0f32, 1.0);
    let errors = [
        Motion::new(0.0f32, 1.0, -1.0).run_batch(&mut world, 3, never, &mut handles),
        Motion::new(0.0f32, 1.0, 1.0)
            .loops(0, LoopType::Restart)
            .run_batch(&mut world, 3, never, &mut handles),
        Motion::new(0.0f32, 1.0, 1.0).on_complete(|| {}).run_batch(
            &mut world,
            3,
            never,
            &mut handles,
        ),
    ];
    assert_eq!(
        errors,
        [
            Err(BuildError::InvalidDuration(-1.0)),
            Err(BuildError::InvalidLoops(0)),
            Err(BuildError::NotBatchable("callbacks")),
        ]
    );
    assert_eq!(world.len(), 1);
    world.update(0.5).unwrap();
    assert_eq!(*log.lock().unwrap(), [(100, 0.0), (100, 0.5)]);
}

#[test]
fn a_panic_in_item_adds_nothing() {
    let token = Arc::new(());
    let log: Log = Arc::default();
    let (mut world, before) = world_with_a_bound_motion(&log);
    let mut handles = vec![before];
    let base = Motion::new(0.0f32, 0.0, 1.0);
    for shared in [false, true] {
        let held = Arc::clone(&token);
        let item = |i: usize| {
            assert!(i < 3, "the caller's own bug, at motion 3");
            BatchItem::new(0.0, 10.0)
        };
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if shared {
                let bind = move |_: usize, _: f32| {
                    let _ = &held;
                };
                base.bind_batch_indexed(&mut world, 5, item, bind, &mut handles)
            } else {
                let each = |i| {
                    let held = Arc::clone(&held);
                    (item(i), move |_: f32| {
                        let _ = &held;
                    })
                };
                base.bind_batch(&mut world, 5, each, &mut handles)
            }
        }));
        assert!(panicked.is_err(), "the panic reaches the caller");
        assert_eq!(
            (world.len(), handles.len()),
            (1, 1),
            "shared bind: {shared}"
        );
        assert_eq!(
            Arc::strong_count(&token),
            1,
            "binds dropped (shared: {shared})"
        );
    }
    // The world goes on: the motion made before, and a batch after, are as they should be.
    base.run_batch(
        &mut world,
        2,
        |i| BatchItem::new(0.0, i as f32),
        &mut handles,
    )
    .unwrap();
    world.update(0.5).unwrap();
    assert_eq!(*log.lock().unwrap(), [(100, 0.0), (100, 0.5)]);
    let values: Vec<f32> = handles.iter().map(|&h| world.value(h).unwrap()).collect();
    assert_eq!(values, [0.5, 0.0, 0.5]);
}

#[test]
fn batch_binds_run_in_creation_order() {
    let log: Log = Arc::default();
    let (mut world, first) = world_with_a_bound_motion(&log);
    let mut handles = vec![first];
    Motion::new(0.0f32, 0.0, 1.0)
        .ease(Ease::Linear)
        .bind_batch(
            &mut world,
            3,
            |i| (BatchItem::new(0.0, 2.0 * (i + 1) as f32), logger(&log, i)),
            &mut handles,
        )
        .unwrap();
    let last = Motion::new(0.0f32, 1.0, 1.0)
        .bind(&mut world, logger(&log, 200))
        .unwrap();
    handles.push(last);
    log.lock().unwrap().clear();
    world.update(0.25).unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [(100, 0.25), (0, 0.5), (1, 1.0), (2, 1.5), (200, 0.25)]
    );
    let mut unique = handles.clone();
    unique.sort_by_key(|h| format!("{h:?}"));
    unique.dedup();
    assert_eq!(unique.len(), 5, "every handle is its own");
}

#[test]
fn batch_handles_are_generational() {
    let mut world = MotionWorld::new();
    let base = Motion::new(0.0f32, 0.0, 1.0);
    let mut old: Vec<MotionHandle> = Vec::new();
    base.run_batch(&mut world, 8, |_| BatchItem::new(0.0, 1.0), &mut old)
        .unwrap();
    for &h in &old {
        world.cancel(h).unwrap();
    }
    let mut new = Vec::new();
    base.run_batch(&mut world, 8, |_| BatchItem::new(5.0, 6.0), &mut new)
        .unwrap();
    for &h in &old {
        assert!(!world.is_active(h), "{h:?} was cancelled");
        assert!(world.value::<f32>(h).is_err());
    }
    for &h in &new {
        assert!(!old.contains(&h), "a slot reused with a new version");
        assert_eq!(world.value::<f32>(h).unwrap(), 5.0);
    }
}

/// OutQuad, `1 − (1 − t)²`, by hand.
fn out_quad(t: f64) -> f64 {
    1.0 - (1.0 - t) * (1.0 - t)
}

#[test]
fn value_after_updates_is_the_motions_value() {
    let mut world = MotionWorld::new();
    world.set_cpu_threads(1);
    // Looping motions on staggered clocks (the segment cache serves them after the first
    // updates), and their binds' values.
    let n = 200;
    let seen = Arc::new(Mutex::new(vec![f32::NAN; n]));
    let handles: Vec<MotionHandle> = (0..n)
        .map(|i| {
            let seen = Arc::clone(&seen);
            let h = Motion::new(0.0f32, i as f32, 2.0)
                .ease(Ease::OutQuad)
                .loops(-1, LoopType::Restart)
                .bind(&mut world, move |x| seen.lock().unwrap()[i] = x)
                .unwrap();
            world.set_time(h, 2.0 * i as f64 / n as f64).unwrap();
            h
        })
        .collect();
    for frame in 1..=90 {
        world.update(1.0 / 60.0).unwrap();
        let seen = seen.lock().unwrap();
        for (i, &h) in handles.iter().enumerate() {
            let clock = 2.0 * i as f64 / n as f64 + frame as f64 / 60.0;
            let expected = i as f64 * out_quad((clock % 2.0) / 2.0);
            let value = world.value::<f32>(h).unwrap();
            assert!(
                (f64::from(value) - expected).abs() <= 1e-5 * (1.0 + i as f64),
                "motion {i}, frame {frame}: {value} against {expected}"
            );
            assert_eq!(value, seen[i], "value(h) is what the bind got");
        }
    }
}

#[test]
fn value_is_exact_where_the_output_is_not_current() {
    let mut world = MotionWorld::new();
    let h = Motion::new(0.0f32, 8.0, 2.0)
        .ease(Ease::OutQuad)
        .preserve()
        .run(&mut world)
        .unwrap();
    // Made but not yet updated: the start value.
    assert_eq!(world.value::<f32>(h).unwrap(), 0.0);
    world.update(0.5).unwrap();
    assert_eq!(world.value::<f32>(h).unwrap(), 8.0 * 0.4375); // OutQuad(0.25)
                                                              // Re-timed between updates: the value at the new clock, at once.
    world.set_time(h, 1.0).unwrap();
    assert_eq!(world.value::<f32>(h).unwrap(), 6.0); // OutQuad(0.5) = 0.75
    world.complete(h).unwrap();
    assert_eq!(world.value::<f32>(h).unwrap(), 8.0);
    world.update(0.5).unwrap();
    assert_eq!(world.value::<f32>(h).unwrap(), 8.0);
    // A motion made after an update is at its start until the next.
    let late = Motion::new(3.0f32, 4.0, 1.0).run(&mut world).unwrap();
    assert_eq!(world.value::<f32>(late).unwrap(), 3.0);
    world.update(0.25).unwrap();
    assert_eq!(world.value::<f32>(late).unwrap(), 3.25);
}

#[test]
fn batch_motions_write_their_own_targets_and_a_bad_one_adds_nothing() {
    for exec in crate::common::executors() {
        let mut world = exec.world();
        // Four Vec2-sized slots (stride 2); motion i writes slot 3 − i, 0 → (i, 2i).
        let slots = world.add_host_target(8).unwrap();
        let mut handles = Vec::new();
        Motion::new(glam::Vec2::ZERO, glam::Vec2::ZERO, 1.0)
            .run_batch(
                &mut world,
                4,
                |i| {
                    let to = glam::Vec2::new(i as f32, 2.0 * i as f32);
                    BatchItem::new(glam::Vec2::ZERO, to).target(slots.at(3 - i as u32, 2, 0))
                },
                &mut handles,
            )
            .unwrap();
        world.update(0.5).unwrap();
        let want = [1.5, 3.0, 1.0, 2.0, 0.5, 1.0, 0.0, 0.0]; // halfway, slots reversed
        assert_eq!(world.host_target(slots).unwrap(), &want, "{}", exec.name());

        // Item 2 writes past the end (slot 4 of 4): nothing is added, the array is as it was.
        let bad = Motion::new(glam::Vec2::ZERO, glam::Vec2::ZERO, 1.0).run_batch(
            &mut world,
            3,
            |i| {
                BatchItem::new(glam::Vec2::ZERO, glam::Vec2::ONE).target(slots.at(
                    2 + i as u32,
                    2,
                    0,
                ))
            },
            &mut handles,
        );
        assert!(
            matches!(&bad, Err(BuildError::InBatch { index: 2, error }) if matches!(**error, BuildError::Target(_))),
            "{bad:?}"
        );
        assert_eq!((world.len(), handles.len()), (4, 4), "{}", exec.name());
        world.update(0.5).unwrap();
        let end = [3.0, 6.0, 2.0, 4.0, 1.0, 2.0, 0.0, 0.0]; // completed: the end values stay
        assert_eq!(world.host_target(slots).unwrap(), &end, "{}", exec.name());
    }
}

/// A batch of one shape in a world of another: the batch's rows go into their run ahead of
/// the other run (whose rows move), a block at a time, and every bind and target follows
/// its motion; a batch refused after some of its motions were placed adds nothing.
#[test]
fn a_batch_among_other_shapes_keeps_every_bind_and_target() {
    use glam::Vec3;
    const N: usize = 2500; // over two of a batch's placements
    for exec in crate::common::executors() {
        let mut world = exec.world();
        // Eight Vec3 motions 0 → (k, k, k) over 2 s, each bound and writing its own slot.
        let vecs = world.add_host_target(3 * 8).unwrap();
        let seen: Arc<Mutex<Vec<Vec3>>> = Arc::new(Mutex::new(vec![Vec3::NAN; 8]));
        for k in 0..8 {
            let seen = Arc::clone(&seen);
            Motion::new(Vec3::ZERO, Vec3::splat(k as f32), 2.0)
                .target(vecs.at(k, 3, 0))
                .bind(&mut world, move |v| seen.lock().unwrap()[k as usize] = v)
                .unwrap();
        }
        // N f32 motions 0 → i over 1 s, one shared bind, each writing slot N − 1 − i.
        let floats = world.add_host_target(N).unwrap();
        let got: Arc<Mutex<Vec<f32>>> = Arc::new(Mutex::new(vec![f32::NAN; N]));
        let sink = Arc::clone(&got);
        let mut handles = Vec::new();
        Motion::new(0.0f32, 0.0, 1.0)
            .bind_batch_indexed(
                &mut world,
                N,
                |i| BatchItem::new(0.0, i as f32).target(floats.at((N - 1 - i) as u32, 1, 0)),
                move |i, x| sink.lock().unwrap()[i] = x,
                &mut handles,
            )
            .unwrap();
        // Refused at motion 2000, after two placements: nothing is added.
        let refused = Motion::new(0.0f32, 0.0, 1.0).run_batch(
            &mut world,
            N,
            |i| BatchItem::new(0.0, if i == 2000 { f32::NAN } else { 1.0 }),
            &mut Vec::new(),
        );
        assert!(matches!(
            refused,
            Err(BuildError::InBatch { index: 2000, .. })
        ));
        assert_eq!(world.len(), 8 + N, "{}", exec.name());

        world.update(0.5).unwrap();
        let name = exec.name();
        let (got, floats) = (got.lock().unwrap(), world.host_target(floats).unwrap());
        for (i, &h) in handles.iter().enumerate() {
            let want = 0.5 * i as f32; // linear, halfway
            assert_eq!(world.value::<f32>(h).unwrap(), want, "{name}: motion {i}");
            assert_eq!(got[i], want, "{name}: bind {i}");
            assert_eq!(floats[N - 1 - i], want, "{name}: target {i}");
        }
        let (seen, vecs) = (seen.lock().unwrap(), world.host_target(vecs).unwrap());
        for k in 0..8 {
            let want = 0.25 * k as f32; // linear, a quarter
            assert_eq!(seen[k], Vec3::splat(want), "{name}: Vec3 bind {k}");
            assert_eq!(
                &vecs[3 * k..3 * k + 3],
                &[want; 3],
                "{name}: Vec3 target {k}"
            );
        }
    }
}

/// A batch of more motions than it places at once (curve eases, seeded shakes, finite yoyo
/// loops on a group's clock, a bind each) is the same as its motions made one at a time:
/// values, binds in creation order, completions, and the curve keys freed with them.
#[test]
fn a_batch_over_several_blocks_is_its_motions_made_one_at_a_time() {
    use wgpu_tween::{AnimationCurve, GroupId, Keyframe, TimeKind};
    const N: usize = 700;
    let curve = AnimationCurve::new([
        Keyframe::new(0.0, 0.0),
        Keyframe::new(0.5, 1.0),
        Keyframe::new(1.0, 0.5),
    ])
    .unwrap();
    // Motion kind k from 0 to `to`.
    let motion = |k: usize, to: f32, group: GroupId| match k {
        0 => Motion::new(0.0f32, to, 1.0)
            .ease_curve(&curve)
            .delay(0.25)
            .loops(2, LoopType::Yoyo)
            .group(group),
        _ => Motion::shake(0.0f32, to, 1.5),
    };
    let world = || {
        let mut world = MotionWorld::new();
        let group = world.add_group(TimeKind::Scaled).unwrap();
        world.set_group_speed(group, 0.5).unwrap();
        (world, group)
    };
    let (made_log, batched_log): (Log, Log) = (Arc::default(), Arc::default());

    let (mut made, group) = world();
    let mut one_at_a_time = Vec::new();
    for k in 0..2 {
        for i in 0..N {
            let bind = logger(&made_log, k * N + i);
            one_at_a_time.push(motion(k, i as f32, group).bind(&mut made, bind).unwrap());
        }
    }
    let (mut batched, group) = world();
    let mut handles = Vec::new();
    for k in 0..2 {
        let item = |i| {
            (
                BatchItem::new(0.0, i as f32),
                logger(&batched_log, k * N + i),
            )
        };
        let base = motion(k, 0.0, group);
        base.bind_batch(&mut batched, N, item, &mut handles)
            .unwrap();
    }
    assert_eq!(batched.curve_keys_in_use(), made.curve_keys_in_use());
    assert_eq!(batched.curve_keys_in_use(), N * 3);

    for frame in 0..=100 {
        let (made_calls, batched_calls) = (
            std::mem::take(&mut *made_log.lock().unwrap()),
            std::mem::take(&mut *batched_log.lock().unwrap()),
        );
        assert!(frame > 90 || !made_calls.is_empty(), "frame {frame}");
        assert_eq!(batched_calls, made_calls, "frame {frame}");
        assert_eq!(batched.len(), made.len(), "frame {frame}");
        for (&a, &b) in one_at_a_time.iter().zip(&handles) {
            assert_eq!(made.is_active(a), batched.is_active(b), "frame {frame}");
            if let Ok(x) = made.value::<f32>(a) {
                let y = batched.value::<f32>(b).unwrap();
                assert_eq!(x.to_bits(), y.to_bits(), "frame {frame}");
            }
        }
        made.update(1.0 / 20.0).unwrap();
        batched.update(1.0 / 20.0).unwrap();
    }
    assert_eq!(batched.len(), 0, "every motion completed");
    assert_eq!(batched.curve_keys_in_use(), 0, "their keys freed with them");
}
