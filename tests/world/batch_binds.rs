//! Issue 17 item 1: a bind shared by a batch (`bind_batch_indexed`) is called as each motion's
//! own bind would be: in creation order among the other binds and the due motions, with the
//! immediate bind, its end value on completion, not after cancellation, skipping values in a
//! skipped delay; a panic is caught per motion; the bind is dropped with the batch's last
//! motion. Values are hand-worked (linear eases, dyadic times), on every executor.

use std::sync::{Arc, Mutex};

use crate::common::{executors, quiet_intentional_panics, INTENTIONAL};
use wgpu_tween::{BatchItem, BuildError, CallbackKind, Motion, MotionHandle, MotionWorld};

/// A log of `(motion id, value)` bind calls: batch motions by their index, others by 100+.
pub(super) type Log = Arc<Mutex<Vec<(usize, f32)>>>;

pub(super) fn logger(log: &Log, id: usize) -> impl FnMut(f32) + Send + 'static {
    let log = Arc::clone(log);
    move |x| log.lock().unwrap().push((id, x))
}

fn shared_logger(log: &Log) -> impl FnMut(usize, f32) + Send + 'static {
    let log = Arc::clone(log);
    move |i, x| log.lock().unwrap().push((i, x))
}

pub(super) fn take(log: &Log) -> Vec<(usize, f32)> {
    std::mem::take(&mut *log.lock().unwrap())
}

#[test]
fn a_shared_bind_runs_in_creation_order_with_due_motions() {
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let log: Log = Arc::default();
        let token = Arc::new(());
        let first = Motion::new(0.0f32, 1.0, 1.0)
            .bind(&mut world, logger(&log, 100))
            .unwrap();
        let mut handles = Vec::new();
        let held = Arc::clone(&token);
        let mut bind = shared_logger(&log);
        // Motion i goes from 0 to 4(i + 1) in 1 s, linearly.
        Motion::new(0.0f32, 0.0, 1.0)
            .bind_batch_indexed(
                &mut world,
                4,
                |i| BatchItem::new(0.0, 4.0 * (i + 1) as f32),
                move |i, x| {
                    let _ = &held;
                    bind(i, x);
                },
                &mut handles,
            )
            .unwrap();
        let last = Motion::new(0.0f32, 1.0, 1.0)
            .bind(&mut world, logger(&log, 200))
            .unwrap();
        assert_eq!(
            take(&log),
            [
                (100, 0.0),
                (0, 0.0),
                (1, 0.0),
                (2, 0.0),
                (3, 0.0),
                (200, 0.0)
            ],
            "{name}: immediate binds in creation order"
        );

        // Motion 2 completes in the next update: a due event inside the batch's stretch.
        world.set_time(handles[2], 0.875).unwrap();
        assert_eq!(take(&log), [(2, 10.5)], "{name}: set_time binds at once");
        world.update(0.25).unwrap();
        assert_eq!(
            take(&log),
            [
                (100, 0.25),
                (0, 1.0),
                (1, 2.0),
                (2, 12.0),
                (3, 4.0),
                (200, 0.25)
            ],
            "{name}: the completing motion gets its end value in its place"
        );
        assert!(!world.is_active(handles[2]), "{name}");

        world.cancel(handles[1]).unwrap();
        world.update(0.25).unwrap();
        assert_eq!(
            take(&log),
            [(100, 0.5), (0, 2.0), (3, 8.0), (200, 0.5)],
            "{name}: completed and cancelled motions are not bound"
        );
        assert_eq!(
            Arc::strong_count(&token),
            2,
            "{name}: motions 0 and 3 hold it"
        );

        world.update(0.5).unwrap();
        assert_eq!(
            take(&log),
            [(100, 1.0), (0, 4.0), (3, 16.0), (200, 1.0)],
            "{name}: end values"
        );
        assert_eq!(world.len(), 0, "{name}");
        assert_eq!(
            Arc::strong_count(&token),
            1,
            "{name}: dropped with the batch's last motion"
        );
        let _ = (first, last);
    }
}

#[test]
fn a_shared_bind_skips_a_skipped_delay() {
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let log: Log = Arc::default();
        let mut handles = Vec::new();
        Motion::new(0.0f32, 0.0, 1.0)
            .delay(0.5)
            .bind_batch_indexed(
                &mut world,
                2,
                |i| BatchItem::new(0.0, [2.0, -2.0][i]),
                shared_logger(&log),
                &mut handles,
            )
            .unwrap();
        assert_eq!(
            take(&log),
            [(0, 0.0), (1, 0.0)],
            "{name}: the immediate binds"
        );
        world.update(0.25).unwrap();
        assert_eq!(take(&log), [], "{name}: in the delay");
        world.update(0.5).unwrap();
        assert_eq!(
            take(&log),
            [(0, 0.5), (1, -0.5)],
            "{name}: 0.25 s into the motion"
        );
    }
}

#[test]
fn a_panicking_shared_bind_is_caught_per_motion() {
    quiet_intentional_panics();
    for cancel in [false, true] {
        let mut world = MotionWorld::new();
        let log: Log = Arc::default();
        let mut handles = Vec::new();
        let mut bind = shared_logger(&log);
        Motion::new(0.0f32, 0.0, 1.0)
            .immediate_bind(false)
            .cancel_on_error(cancel)
            .bind_batch_indexed(
                &mut world,
                3,
                |i| BatchItem::new(0.0, 4.0 * (i + 1) as f32),
                move |i, x| {
                    if i == 1 {
                        panic!("{INTENTIONAL}: shared bind");
                    }
                    bind(i, x);
                },
                &mut handles,
            )
            .unwrap();
        check_a_panicking_second_bind(&mut world, &handles, &log, cancel);
    }
}

/// Three motions from 0 to 4, 8 and 12 in 1 s, linearly, logged by id (0, 1, 2), whose
/// second bind panics: it is reported for its motion alone, and with `cancel`
/// (cancel-on-error) cancels it; the others are bound in the same updates.
pub(super) fn check_a_panicking_second_bind(
    world: &mut MotionWorld,
    handles: &[MotionHandle],
    log: &Log,
    cancel: bool,
) {
    world.update(0.25).unwrap();
    assert_eq!(
        take(log),
        [(0, 1.0), (2, 3.0)],
        "cancel {cancel}: the motion after the panic is bound in the same update"
    );
    let errors = world.take_callback_errors();
    assert_eq!(errors.len(), 1, "cancel {cancel}");
    assert_eq!(
        (errors[0].handle, errors[0].kind),
        (handles[1], CallbackKind::Bind)
    );
    assert_eq!(world.is_active(handles[1]), !cancel);
    world.update(0.25).unwrap();
    assert_eq!(take(log), [(0, 2.0), (2, 6.0)], "cancel {cancel}");
    assert_eq!(world.take_callback_errors().len(), usize::from(!cancel));
}

#[test]
fn a_shared_bind_goes_with_its_batch() {
    let token = Arc::new(());
    let holder = |token: &Arc<()>| {
        let held = Arc::clone(token);
        move |_: usize, _: f32| {
            let _ = &held;
        }
    };
    let mut world = MotionWorld::new();
    let mut handles = Vec::new();
    let base = Motion::new(0.0f32, 0.0, 1.0);

    // Nothing added: an empty batch, and one with an invalid motion.
    base.bind_batch_indexed(
        &mut world,
        0,
        |_| BatchItem::new(0.0, 1.0),
        holder(&token),
        &mut handles,
    )
    .unwrap();
    let ends = [1.0, f32::NAN];
    let bad = base.bind_batch_indexed(
        &mut world,
        2,
        |i| BatchItem::new(0.0, ends[i]),
        holder(&token),
        &mut handles,
    );
    assert!(matches!(bad, Err(BuildError::InBatch { index: 1, .. })));
    assert_eq!((world.len(), handles.len()), (0, 0));
    assert_eq!(
        Arc::strong_count(&token),
        1,
        "dropped when nothing is added"
    );

    // Two batches, then `clear`.
    for _ in 0..2 {
        base.bind_batch_indexed(
            &mut world,
            3,
            |_| BatchItem::new(0.0, 1.0),
            holder(&token),
            &mut handles,
        )
        .unwrap();
    }
    world.update(0.25).unwrap();
    assert_eq!(Arc::strong_count(&token), 3);
    world.clear();
    assert_eq!(Arc::strong_count(&token), 1, "dropped by clear");
}

#[test]
fn a_shared_bind_follows_its_motions_rows_through_moves() {
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let log: Log = Arc::default();
        let mut batches = Vec::new();
        let mut others = Vec::new();
        // Batches of Linear motions between runs of OutQuad ones: the table regroups them
        // (moving rows), and removals swap rows into the gaps.
        for b in 0..3 {
            let mut handles = Vec::new();
            let log = Arc::clone(&log);
            Motion::new(0.0f32, 0.0, 1.0)
                .immediate_bind(false)
                .bind_batch_indexed(
                    &mut world,
                    40,
                    |i| BatchItem::new(0.0, (b * 1000 + 4 * i) as f32),
                    move |i, x| log.lock().unwrap().push((b * 1000 + i, x)),
                    &mut handles,
                )
                .unwrap();
            batches.push(handles);
            for _ in 0..40 {
                others.push(
                    Motion::new(0.0f32, 1.0, 1.0)
                        .ease(wgpu_tween::Ease::OutQuad)
                        .run(&mut world)
                        .unwrap(),
                );
            }
        }
        for h in others.iter().step_by(3) {
            world.cancel(*h).unwrap();
        }
        for (b, batch) in batches.iter().enumerate() {
            for h in batch.iter().skip(b).step_by(5) {
                world.cancel(*h).unwrap();
            }
        }
        world.update(0.25).unwrap();
        world.update(0.25).unwrap();
        // Motion b·1000 + i goes 0 → b·1000 + 4i linearly over 1 s: at 0.5 s, half of that.
        let mut expected = Vec::new();
        for b in 0..3 {
            for i in (0..40).filter(|i| i < &b || (i - b) % 5 != 0) {
                expected.push((b * 1000 + i, (b * 1000 + 4 * i) as f32 * 0.5));
            }
        }
        let seen = take(&log);
        let at_half: Vec<_> = seen[seen.len() - expected.len()..].to_vec();
        assert_eq!(at_half, expected, "{name}");
    }
}

#[test]
fn a_batch_motion_in_a_sequence_keeps_the_order_of_the_rest() {
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let log: Log = Arc::default();
        let mut handles = Vec::new();
        Motion::new(0.0f32, 0.0, 1.0)
            .immediate_bind(false)
            .bind_batch_indexed(
                &mut world,
                3,
                |i| BatchItem::new(0.0, 4.0 * (i + 1) as f32),
                shared_logger(&log),
                &mut handles,
            )
            .unwrap();
        // Created after the batch, due (completing) in the first update.
        Motion::new(0.0f32, 1.0, 0.25)
            .immediate_bind(false)
            .bind(&mut world, logger(&log, 100))
            .unwrap();
        // Motion 1 joins a sequence: its sequence binds it, in the sequence's place.
        wgpu_tween::Sequence::new()
            .append(handles[1])
            .run(&mut world)
            .unwrap();
        take(&log);
        world.update(0.25).unwrap();
        assert_eq!(
            take(&log),
            [(0, 1.0), (2, 3.0), (100, 1.0), (1, 2.0)],
            "{name}: creation order, each bind once"
        );
    }
}
