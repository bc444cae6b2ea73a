//! Issue 17 item 1: binds of one closure type, made one after another, are kept side by side
//! (a run) and called from one loop. Each is still its motion's own bind: called in creation
//! order among other binds and due motions, with its motion's value, its closure dropped when
//! its motion ends, a panic in it caught for its motion alone. Values are hand-worked
//! (linear eases, dyadic times), on every executor.

use std::sync::Arc;

use super::batch_binds::{check_a_panicking_second_bind, logger, take, Log};

use crate::common::{executors, quiet_intentional_panics, PanicOnDrop, INTENTIONAL};
use wgpu_tween::{BatchItem, CallbackKind, Motion, MotionHandle, MotionWorld};

/// The same as [`logger`] (every call of which returns a closure of one type), of another
/// type.
fn other_logger(log: &Log, id: usize) -> impl FnMut(f32) + Send + 'static {
    let log = Arc::clone(log);
    move |x| log.lock().unwrap().push((id, x))
}

/// Motion `id` of [`many`]: from 0 to `id + 1` over its duration, linearly.
struct Spec {
    id: usize,
    duration: f64,
    bound: bool,
    handle: MotionHandle,
}

impl Spec {
    /// Its value at time `t` since its start.
    fn value(&self, t: f64) -> f32 {
        ((self.id + 1) as f64 * (t / self.duration).min(1.0)) as f32
    }
}

/// Motions `first..first + count`, created now: most bound by [`logger`], every 7th
/// unbound, every 11th bound by [`other_logger`]; every 5th of duration 0.5, the others 1.
fn many(world: &mut MotionWorld, log: &Log, first: usize, count: usize) -> Vec<Spec> {
    (first..first + count)
        .map(|id| {
            let duration = if id % 5 == 0 { 0.5 } else { 1.0 };
            let motion =
                Motion::new(0.0f32, (id + 1) as f32, duration as f32).immediate_bind(false);
            let (bound, handle) = if id % 7 == 3 {
                (false, motion.run(world))
            } else if id % 11 == 5 {
                (true, motion.bind(world, other_logger(log, id)))
            } else {
                (true, motion.bind(world, logger(log, id)))
            };
            Spec {
                id,
                duration,
                bound,
                handle: handle.unwrap(),
            }
        })
        .collect()
}

/// What one update logs: the value of each live bound motion in `specs` at `t` since its
/// start, in creation order (`specs` is). Drops the ones that complete.
fn expect(specs: &mut Vec<Spec>, t: f64) -> Vec<(usize, f32)> {
    let want = specs
        .iter()
        .filter(|s| s.bound)
        .map(|s| (s.id, s.value(t)))
        .collect();
    specs.retain(|s| t < s.duration);
    want
}

#[test]
fn binds_of_one_type_keep_creation_order_and_values_through_churn() {
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let log: Log = Arc::default();
        // More than one run's worth, broken by unbound motions and binds of another type.
        let mut specs = many(&mut world, &log, 0, 2600);
        world.update(0.25).unwrap();
        assert_eq!(take(&log), expect(&mut specs, 0.25), "{name}: first update");
        // Cancel every 13th (their binds are not called again).
        for s in specs.iter().filter(|s| s.id % 13 == 0) {
            world.cancel(s.handle).unwrap();
        }
        specs.retain(|s| s.id % 13 != 0);
        // The short ones complete at 0.5 with their end values, and go.
        world.update(0.25).unwrap();
        assert_eq!(take(&log), expect(&mut specs, 0.5), "{name}: completions");
        for s in &specs {
            assert!(world.is_active(s.handle), "{name}: motion {} lives", s.id);
        }
        // New motions join the bound list behind the old ones.
        let mut young = many(&mut world, &log, 2600, 300);
        world.update(0.25).unwrap();
        let mut want = expect(&mut specs, 0.75);
        want.extend(expect(&mut young, 0.25));
        assert_eq!(take(&log), want, "{name}: after new motions");
        world.update(0.25).unwrap();
        let mut want = expect(&mut specs, 1.0);
        want.extend(expect(&mut young, 0.5));
        assert_eq!(take(&log), want, "{name}: the first ones complete");
        assert!(specs.is_empty());
        assert_eq!(world.len(), young.len(), "{name}: the rest live on");
    }
}

/// A run whose first motion is gone still takes the motions made after it, and reads each
/// one's own value.
#[test]
fn a_run_whose_first_motion_is_gone_takes_more_motions() {
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let log: Log = Arc::default();
        let make = |world: &mut MotionWorld, id: usize| {
            Motion::new(0.0f32, (id + 1) as f32, 1.0)
                .immediate_bind(false)
                .bind(world, logger(&log, id))
                .unwrap()
        };
        let first: Vec<MotionHandle> = (0..3).map(|id| make(&mut world, id)).collect();
        world.update(0.25).unwrap();
        take(&log);
        world.cancel(first[0]).unwrap();
        for id in 3..6 {
            make(&mut world, id);
        }
        world.update(0.25).unwrap();
        // Linear, 0 → id + 1 over 1 s: motions 1 and 2 at 0.5 s, 3 to 5 at 0.25 s.
        let want = vec![(1, 1.0), (2, 1.5), (3, 1.0), (4, 1.25), (5, 1.5)];
        assert_eq!(take(&log), want, "{name}");
    }
}

#[test]
fn a_motions_closure_is_dropped_when_the_motion_ends() {
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let tokens: Vec<Arc<()>> = (0..5).map(|_| Arc::new(())).collect();
        let handles: Vec<MotionHandle> = (0..5)
            .map(|i| {
                let token = Arc::clone(&tokens[i]);
                let duration = if i == 1 { 0.5 } else { 1.0 };
                Motion::new(0.0f32, 1.0, duration)
                    .bind(&mut world, move |_| {
                        let _ = &token;
                    })
                    .unwrap()
            })
            .collect();
        world.update(0.25).unwrap();
        world.cancel(handles[3]).unwrap();
        world.update(0.5).unwrap();
        let counts: Vec<usize> = tokens.iter().map(Arc::strong_count).collect();
        assert_eq!(
            counts,
            [2, 1, 2, 1, 2],
            "{name}: completed and cancelled let go"
        );
        world.clear();
        let counts: Vec<usize> = tokens.iter().map(Arc::strong_count).collect();
        assert_eq!(counts, [1; 5], "{name}: cleared");
    }
}

#[test]
fn a_panicking_bind_of_a_run_is_caught_for_its_motion() {
    quiet_intentional_panics();
    for cancel in [false, true] {
        let mut world = MotionWorld::new();
        let log: Log = Arc::default();
        let handles: Vec<MotionHandle> = (0..3)
            .map(|i| {
                let mut bind = logger(&log, i);
                Motion::new(0.0f32, 4.0 * (i + 1) as f32, 1.0)
                    .immediate_bind(false)
                    .cancel_on_error(cancel)
                    .bind(&mut world, move |x| {
                        if i == 1 {
                            panic!("{INTENTIONAL}: bind of a run");
                        }
                        bind(x);
                    })
                    .unwrap()
            })
            .collect();
        check_a_panicking_second_bind(&mut world, &handles, &log, cancel);
    }
}

#[test]
fn a_panicking_drop_in_a_run_is_reported_for_its_motion() {
    quiet_intentional_panics();
    for exec in executors() {
        let name = exec.name();
        let mut world = exec.world();
        let log: Log = Arc::default();
        let handles: Vec<MotionHandle> = (0..3)
            .map(|i| {
                let mut bind = logger(&log, i);
                // (`then_some` would make, and drop, one for every motion.)
                let bomb = if i == 1 { Some(PanicOnDrop) } else { None };
                Motion::new(0.0f32, 4.0, if i == 1 { 0.5 } else { 1.0 })
                    .immediate_bind(false)
                    .bind(&mut world, move |x| {
                        let _ = &bomb;
                        bind(x);
                    })
                    .unwrap()
            })
            .collect();
        world.update(0.5).unwrap();
        assert_eq!(take(&log), [(0, 2.0), (1, 4.0), (2, 2.0)], "{name}");
        let errors: Vec<_> = world
            .take_callback_errors()
            .into_iter()
            .map(|e| (e.kind, e.handle))
            .collect();
        assert_eq!(errors, [(CallbackKind::Drop, handles[1])], "{name}");
        assert!(!world.is_active(handles[1]));
        world.update(0.25).unwrap();
        assert_eq!(take(&log), [(0, 3.0), (2, 3.0)], "{name}: the others go on");
    }
}

/// §2 and §6: a clock run below 0 reports Delayed, so a motion that skips values during its
/// delay gets none there even with a delay of 0, and gets them again once the clock is back
/// above; one that does not skip gets its start value meanwhile. (A bound motion that may
/// skip values is visited exactly; a zero delay is no reason to stop.)
#[test]
fn a_clock_run_back_below_zero_skips_values_even_with_no_delay() {
    for exec in executors() {
        let (mut world, name) = (exec.world(), exec.name());
        let log: Log = Arc::default();
        let skipping = Motion::new(0.0f32, 4.0, 1.0)
            .delay(0.0)
            .immediate_bind(false)
            .bind(&mut world, logger(&log, 0))
            .unwrap();
        let plain = Motion::new(0.0f32, 4.0, 1.0)
            .immediate_bind(false)
            .bind(&mut world, logger(&log, 1))
            .unwrap();
        world.update(0.5).unwrap();
        assert_eq!(take(&log), [(0, 2.0), (1, 2.0)], "{name}: T = 0.5");
        for h in [skipping, plain] {
            world.set_playback_speed(h, -1.0).unwrap();
        }
        world.update(0.25).unwrap();
        assert_eq!(take(&log), [(0, 1.0), (1, 1.0)], "{name}: T = 0.25");
        world.update(0.5).unwrap();
        assert_eq!(take(&log), [(1, 0.0)], "{name}: T = -0.25, Delayed");
        for h in [skipping, plain] {
            world.set_playback_speed(h, 1.0).unwrap();
        }
        world.update(0.5).unwrap();
        assert_eq!(take(&log), [(0, 1.0), (1, 1.0)], "{name}: T = 0.25 again");
    }
}

#[test]
fn a_delayed_bind_skips_values_again_when_set_back_into_its_delay() {
    // Binds that skip values during a delay get only their values once the delay is over;
    // `set_time` or a negative speed that takes the clock back into the delay must make
    // them skip again. A: one motion's own bind, delay 0.5; B: the same closure type, no
    // delay (A and B make a run); C0, C1: a batch's shared bind, delay 0.5. Each goes from
    // 0 to 4 over 2 s, linearly: 2 (T − d) once started.
    for exec in executors() {
        let (mut world, name) = (exec.world(), exec.name());
        let log: Log = Arc::default();
        let motion = Motion::new(0.0f32, 4.0, 2.0).immediate_bind(false);
        let a = (motion.clone().delay(0.5))
            .bind(&mut world, logger(&log, 0))
            .unwrap();
        motion.clone().bind(&mut world, logger(&log, 1)).unwrap();
        let mut c = Vec::new();
        let batch_log = Arc::clone(&log);
        (motion.delay(0.5))
            .bind_batch_indexed(
                &mut world,
                2,
                |_| BatchItem::new(0.0, 4.0),
                move |i, x| batch_log.lock().unwrap().push((10 + i, x)),
                &mut c,
            )
            .unwrap();
        world.update(0.25).unwrap();
        assert_eq!(take(&log), [(1, 0.5)], "{name}: T = 0.25");
        world.update(0.5).unwrap();
        let all = [(0, 0.5), (1, 1.5), (10, 0.5), (11, 0.5)];
        assert_eq!(take(&log), all, "{name}: T = 0.75");
        world.update(0.25).unwrap();
        let all = [(0, 1.0), (1, 2.0), (10, 1.0), (11, 1.0)];
        assert_eq!(take(&log), all, "{name}: T = 1");
        world.set_time(a, 0.25).unwrap();
        world.set_time(c[0], 0.25).unwrap();
        assert_eq!(take(&log), [], "{name}: set into the delay");
        world.update(0.125).unwrap();
        assert_eq!(take(&log), [(1, 2.25), (11, 1.25)], "{name}: A, C0 delayed");
        world.set_playback_speed(c[1], -1.0).unwrap();
        world.update(0.75).unwrap();
        let all = [(0, 1.25), (1, 3.75), (10, 1.25)];
        assert_eq!(take(&log), all, "{name}: C1 back in its delay");
        world.set_playback_speed(c[1], 1.0).unwrap();
        world.update(0.25).unwrap();
        let all = [(0, 1.75), (1, 4.0), (10, 1.75), (11, 0.25)];
        assert_eq!(take(&log), all, "{name}: all started again");
    }
}

#[test]
fn a_run_of_binds_with_staggered_delays_binds_each_once_its_delay_is_over() {
    // Sixteen motions of one bind type (one run), from 0 to 4 over 2 s linearly, with
    // delays 0, 1/8, ..., 1/2 in turn (skipped, the default): each is bound with
    // 2 (T − d) at every update where T ≥ d. Motion 2 plays backwards from T = 1/2 for a
    // while (back into its delay) and motion 7 is set back to T = 0: a hand-run model of
    // the clocks gives the expected calls, in creation order.
    const N: usize = 16;
    let delay = |i: usize| 0.125 * (i % 5) as f64;
    for exec in executors() {
        let (mut world, name) = (exec.world(), exec.name());
        let log: Log = Arc::default();
        let handles: Vec<_> = (0..N)
            .map(|i| {
                Motion::new(0.0f32, 4.0, 2.0)
                    .delay(delay(i) as f32)
                    .immediate_bind(false)
                    .bind(&mut world, logger(&log, i))
                    .unwrap()
            })
            .collect();
        let (mut clock, mut speed) = ([0.0f64; N], [1.0f64; N]);
        for step in 1..=12 {
            match step {
                4 => {
                    world.set_playback_speed(handles[2], -1.0).unwrap();
                    speed[2] = -1.0;
                }
                6 => {
                    world.set_time(handles[7], 0.0).unwrap();
                    clock[7] = 0.0;
                }
                9 => {
                    world.set_playback_speed(handles[2], 1.0).unwrap();
                    speed[2] = 1.0;
                }
                _ => {}
            }
            world.update(0.125).unwrap();
            let mut expected = Vec::new();
            for i in 0..N {
                clock[i] += 0.125 * speed[i];
                if clock[i] >= delay(i) {
                    expected.push((i, (2.0 * (clock[i] - delay(i))) as f32));
                }
            }
            assert_eq!(take(&log), expected, "{name}: update {step}");
        }
    }
}
