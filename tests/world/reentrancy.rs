//! Structural changes from inside callbacks (docs/semantics.md §6–§7, docs/design.md invariant 3) and
//! the LitMotion defects of seed 003: a cancel lost when a callback grows the arrays, and
//! `Complete()` of a not-yet-visited motion firing `OnComplete` twice and leaving a mid value.
//!
//! Expected values are worked out by hand from docs/semantics.md: linear motions, binary-exact
//! times, so `value = from + (to − from) · T / D`.

use crate::common;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use std::sync::{Arc, Mutex, OnceLock};

use wgpu_tween::{CallbackKind, LoopType, Motion, MotionCommands, MotionHandle, MotionWorld};

use common::{quiet_intentional_panics, INTENTIONAL};

/// What one motion's callbacks saw.
#[derive(Default)]
struct Probe {
    binds: Mutex<Vec<f32>>,
    loops: Mutex<Vec<u32>>,
    completes: AtomicUsize,
    cancels: AtomicUsize,
}

impl Probe {
    fn binds(&self) -> Vec<f32> {
        self.binds.lock().unwrap().clone()
    }
    fn bind_count(&self) -> usize {
        self.binds.lock().unwrap().len()
    }
    fn last(&self) -> Option<f32> {
        self.binds.lock().unwrap().last().copied()
    }
    fn completes(&self) -> usize {
        self.completes.load(Ordering::SeqCst)
    }
    fn cancels(&self) -> usize {
        self.cancels.load(Ordering::SeqCst)
    }
}

/// Adds the probe's complete, cancel and loop callbacks to `motion`.
fn observed(motion: Motion<f32>, probe: &Arc<Probe>) -> Motion<f32> {
    let (c, x, l) = (probe.clone(), probe.clone(), probe.clone());
    motion
        .on_complete(move || {
            c.completes.fetch_add(1, Ordering::SeqCst);
        })
        .on_cancel(move || {
            x.cancels.fetch_add(1, Ordering::SeqCst);
        })
        .on_loop_complete(move |k| l.loops.lock().unwrap().push(k))
}

/// A bind that records into `probe`.
fn recorder(probe: &Arc<Probe>) -> impl FnMut(f32) + Send + 'static {
    let p = probe.clone();
    move |v| p.binds.lock().unwrap().push(v)
}

/// Adds a motion P (0 → 1 over 10 s) whose bind, in every update once Q's handle is in the
/// returned cell, runs `act(commands, Q)`: the "another motion's callback changes Q" setup.
fn commander(
    world: &mut MotionWorld,
    mut act: impl FnMut(&MotionCommands, MotionHandle) + Send + 'static,
) -> Arc<OnceLock<MotionHandle>> {
    let q_handle: Arc<OnceLock<MotionHandle>> = Arc::default();
    let (cell, commands) = (q_handle.clone(), world.commands());
    Motion::new(0.0f32, 1.0, 10.0)
        .bind(world, move |_| {
            if let Some(&q) = cell.get() {
                act(&commands, q);
            }
        })
        .unwrap();
    q_handle
}

fn assert_close(got: f32, want: f32) {
    assert!(
        (got - want).abs() <= 1e-5 * want.abs().max(1.0),
        "expected {want}, got {got}"
    );
}

fn assert_all_close(got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "got {got:?}, want {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-5 * w.abs().max(1.0),
            "got {got:?}, want {want:?}"
        );
    }
}

// ------------------------------------------------------------------ (a) growth + cancel

/// Seed 003, first table row: 31 motions; the first completes and its `on_complete` spawns
/// `spawn` motions (growing every array), while the last-created motion K
/// (`cancel_on_error`) panics in its bind in the same update.
fn growth_and_cancel_on_error(spawn: usize) {
    quiet_intentional_panics();
    let mut world = MotionWorld::new();
    let commands = world.commands();

    let spawned: Arc<Mutex<Vec<MotionHandle>>> = Arc::default();
    let spawned_values: Arc<Vec<Mutex<Vec<f32>>>> =
        Arc::new((0..spawn).map(|_| Mutex::new(Vec::new())).collect());
    let first_probe = Arc::new(Probe::default());
    let first = {
        let (spawned, values, commands) = (spawned.clone(), spawned_values.clone(), commands);
        let probe = first_probe.clone();
        Motion::new(0.0f32, 1.0, 0.5)
            .on_complete(move || {
                probe.completes.fetch_add(1, Ordering::SeqCst);
                for i in 0..spawn {
                    let values = values.clone();
                    let h = Motion::new(0.0f32, 100.0, 1.0)
                        .bind_deferred(&commands, move |v| values[i].lock().unwrap().push(v))
                        .expect("valid motion");
                    spawned.lock().unwrap().push(h);
                }
            })
            .run(&mut world)
            .unwrap()
    };

    let fillers: Vec<(MotionHandle, Arc<Probe>)> = (0..29)
        .map(|_| {
            let p = Arc::new(Probe::default());
            let h = observed(Motion::new(0.0f32, 10.0, 10.0), &p)
                .bind(&mut world, recorder(&p))
                .unwrap();
            (h, p)
        })
        .collect();

    let k_probe = Arc::new(Probe::default());
    let panic_now = Arc::new(AtomicBool::new(false));
    let k = {
        let (p, panic_now) = (k_probe.clone(), panic_now.clone());
        observed(
            Motion::new(0.0f32, 1.0, 10.0)
                .cancel_on_error(true)
                .debug_name("K"),
            &k_probe,
        )
        .bind(&mut world, move |v| {
            p.binds.lock().unwrap().push(v);
            if panic_now.load(Ordering::SeqCst) {
                panic!("{INTENTIONAL}: K's bind");
            }
        })
        .unwrap()
    };
    assert_eq!(world.len(), 31);
    assert_eq!(k_probe.binds(), [0.0], "immediate bind only");

    // Frame N: the first completes (spawning), K's bind throws.
    panic_now.store(true, Ordering::SeqCst);
    world.update(0.5).unwrap();
    assert_eq!(first_probe.completes(), 1);
    assert!(!world.is_active(first));
    assert_eq!(k_probe.cancels(), 1, "K's cancel callback fires once");
    assert_eq!(k_probe.completes(), 0);
    assert!(!world.is_active(k), "K is cancelled for real");
    assert_eq!(k_probe.bind_count(), 2, "immediate bind + the throwing one");
    let errors = world.take_callback_errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].handle, k);
    assert_eq!(errors[0].kind, CallbackKind::Bind);
    assert_eq!(errors[0].debug_name, "K");
    assert!(errors[0].message.contains(INTENTIONAL));

    let spawned = spawned.lock().unwrap().clone();
    assert_eq!(spawned.len(), spawn);
    assert_eq!(world.len(), 31 - 2 + spawn);
    for (i, &h) in spawned.iter().enumerate() {
        assert!(world.is_active(h), "spawned motion {i} is live");
        assert_ne!(h, k);
        assert_eq!(
            *spawned_values[i].lock().unwrap(),
            [0.0],
            "spawned {i}: immediate bind at E(0)"
        );
    }
    for (h, p) in &fillers {
        assert!(world.is_active(*h));
        assert_close(p.last().unwrap(), 0.5); // 10 · 0.5 / 10
    }

    // Frames N+1..: K stays dead, the spawned motions play from clock 0.
    for (frame, want) in [(1, 25.0), (2, 50.0), (3, 75.0), (4, 100.0)] {
        world.update(0.25).unwrap();
        assert!(!world.is_active(k), "frame N+{frame}: K came back");
        assert_eq!(
            k_probe.bind_count(),
            2,
            "frame N+{frame}: K's bind ran again"
        );
        assert_eq!(k_probe.cancels(), 1);
        for (i, values) in spawned_values.iter().enumerate() {
            assert_close(*values.lock().unwrap().last().unwrap(), want);
            assert_eq!(values.lock().unwrap().len(), 1 + frame, "spawned {i}");
        }
        for (_, p) in &fillers {
            assert_close(p.last().unwrap(), 0.5 + 0.25 * frame as f32);
        }
    }
    // The spawned motions completed at T = 1 and were removed; the fillers remain.
    assert_eq!(world.len(), 29);
    for &h in &spawned {
        assert!(!world.is_active(h));
    }
    assert!(world.take_callback_errors().is_empty());
    for (_, p) in &fillers {
        assert_eq!((p.completes(), p.cancels()), (0, 0));
    }
}

#[test]
fn growth_in_callback_does_not_lose_cancel_on_error() {
    growth_and_cancel_on_error(100);
}

#[test]
fn large_growth_in_callback_does_not_lose_cancel_on_error() {
    growth_and_cancel_on_error(5000);
}

#[test]
fn cancel_queued_by_a_growing_callback_is_not_lost() {
    // Same frame: the first motion's on_complete spawns 200 motions and queues cancel of K.
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let k_slot: Arc<OnceLock<MotionHandle>> = Arc::default();
    let first = {
        let (commands, k_slot) = (commands.clone(), k_slot.clone());
        Motion::new(0.0f32, 1.0, 0.5)
            .on_complete(move || {
                for _ in 0..200 {
                    Motion::new(0.0f32, 1.0, 3.0)
                        .run_deferred(&commands)
                        .unwrap();
                }
                commands.cancel(*k_slot.get().unwrap());
            })
            .run(&mut world)
            .unwrap()
    };
    for _ in 0..29 {
        Motion::new(0.0f32, 1.0, 10.0).run(&mut world).unwrap();
    }
    let kp = Arc::new(Probe::default());
    let k = observed(Motion::new(0.0f32, 4.0, 10.0), &kp)
        .bind(&mut world, recorder(&kp))
        .unwrap();
    k_slot.set(k).unwrap();

    world.update(0.5).unwrap();
    assert!(!world.is_active(first));
    assert!(!world.is_active(k));
    assert_eq!((kp.completes(), kp.cancels()), (0, 1));
    // K was visited in frame N before the queued cancel took effect: immediate + one bind.
    assert_all_close(&kp.binds(), &[0.0, 0.2]);
    for _ in 0..5 {
        world.update(0.5).unwrap();
    }
    assert_eq!(kp.bind_count(), 2);
    assert_eq!((kp.completes(), kp.cancels()), (0, 1));
}

// ------------------------------------------------------------------ (b) complete from a bind

/// P (created first) completes Q (created later, not yet visited this frame) from its bind.
#[test]
fn bind_completing_a_later_motion_fires_its_complete_once() {
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let q_handle: Arc<OnceLock<MotionHandle>> = Arc::default();
    let trigger = Arc::new(AtomicBool::new(false));
    let pp = Arc::new(Probe::default());
    let p = {
        let (q_handle, trigger, commands, rec) = (
            q_handle.clone(),
            trigger.clone(),
            commands.clone(),
            pp.clone(),
        );
        observed(Motion::new(0.0f32, 1.0, 10.0), &pp)
            .bind(&mut world, move |v| {
                rec.binds.lock().unwrap().push(v);
                if trigger.swap(false, Ordering::SeqCst) {
                    commands.complete(*q_handle.get().unwrap());
                }
            })
            .unwrap()
    };
    let qp = Arc::new(Probe::default());
    let q = observed(Motion::new(0.0f32, 10.0, 1.0), &qp)
        .bind(&mut world, recorder(&qp))
        .unwrap();
    q_handle.set(q).unwrap();

    world.update(0.25).unwrap();
    trigger.store(true, Ordering::SeqCst);
    world.update(0.25).unwrap(); // P's bind completes Q; Q was then visited at T = 0.5
    assert_eq!(qp.completes(), 1, "Q's complete fires once");
    assert_eq!(
        qp.last(),
        Some(10.0),
        "Q's last bound value is its end value"
    );
    assert_eq!(qp.loops.lock().unwrap().as_slice(), [1]);
    assert!(!world.is_active(q));
    // Immediate 0, frame 1 (T = 0.25), frame 2 (T = 0.5), then the completion's end value.
    assert_all_close(&qp.binds(), &[0.0, 2.5, 5.0, 10.0]);

    // Later frames, including past Q's natural end (T = 1): nothing more for Q.
    for _ in 0..4 {
        world.update(0.5).unwrap();
    }
    assert_eq!(qp.completes(), 1);
    assert_eq!(qp.cancels(), 0);
    assert_eq!(qp.bind_count(), 4);
    assert_eq!(qp.last(), Some(10.0));
    assert_eq!(qp.loops.lock().unwrap().as_slice(), [1]);
    // P went on undisturbed: T = 2.5 of 10.
    assert!(world.is_active(p));
    assert_close(pp.last().unwrap(), 0.25);
    assert_eq!((pp.completes(), pp.cancels()), (0, 0));
}

/// P's bind completes Q in the very frame in which Q completes on its own.
#[test]
fn complete_from_bind_on_the_frame_of_natural_completion() {
    let mut world = MotionWorld::new();
    let q_handle = commander(&mut world, |commands, q| commands.complete(q));
    let qp = Arc::new(Probe::default());
    let q = observed(Motion::new(0.0f32, 10.0, 1.0), &qp)
        .bind(&mut world, recorder(&qp))
        .unwrap();
    world.update(0.5).unwrap();
    q_handle.set(q).unwrap();
    world.update(0.75).unwrap(); // T = 1.25: Q completes naturally, and is asked to
    assert_eq!(qp.completes(), 1);
    assert_eq!(qp.loops.lock().unwrap().as_slice(), [1]);
    assert_all_close(&qp.binds(), &[0.0, 5.0, 10.0]);
    world.update(0.5).unwrap();
    assert_eq!(qp.completes(), 1);
    assert_eq!(qp.bind_count(), 3);
    assert!(!world.is_active(q));
}

/// A later motion's bind completes an earlier one that was already visited this frame.
#[test]
fn bind_completing_an_earlier_motion_fires_its_complete_once() {
    let mut world = MotionWorld::new();
    let ep = Arc::new(Probe::default());
    let early = observed(Motion::new(0.0f32, 8.0, 1.0), &ep)
        .bind(&mut world, recorder(&ep))
        .unwrap();
    let trigger = Arc::new(AtomicBool::new(false));
    let armed = trigger.clone();
    commander(&mut world, move |commands, q| {
        if armed.swap(false, Ordering::SeqCst) {
            commands.complete(q);
        }
    })
    .set(early)
    .unwrap();
    world.update(0.25).unwrap();
    trigger.store(true, Ordering::SeqCst);
    world.update(0.25).unwrap();
    assert_all_close(&ep.binds(), &[0.0, 2.0, 4.0, 8.0]);
    assert_eq!(ep.completes(), 1);
    for _ in 0..3 {
        world.update(0.5).unwrap();
    }
    assert_eq!(ep.completes(), 1);
    assert_eq!(ep.bind_count(), 4);
    assert!(!world.is_active(early));
}

#[test]
fn own_complete_callback_completing_itself_does_not_refire() {
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let me: Arc<OnceLock<MotionHandle>> = Arc::default();
    let count = Arc::new(AtomicUsize::new(0));
    let h = {
        let (me, count, commands) = (me.clone(), count.clone(), commands.clone());
        Motion::new(0.0f32, 1.0, 0.5)
            .on_complete(move || {
                count.fetch_add(1, Ordering::SeqCst);
                let h = *me.get().unwrap();
                commands.complete(h);
                commands.cancel(h);
                commands.set_time(h, 0.0);
            })
            .run(&mut world)
            .unwrap()
    };
    me.set(h).unwrap();
    world.update(1.0).unwrap();
    world.update(1.0).unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert!(!world.is_active(h));
}

#[test]
fn preserved_bind_completing_itself_every_frame_completes_once() {
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let me: Arc<OnceLock<MotionHandle>> = Arc::default();
    let probe = Arc::new(Probe::default());
    let h = {
        let (me, commands, rec) = (me.clone(), commands.clone(), probe.clone());
        observed(Motion::new(0.0f32, 4.0, 1.0).preserve(), &probe)
            .bind(&mut world, move |v| {
                rec.binds.lock().unwrap().push(v);
                if let Some(&h) = me.get() {
                    commands.complete(h);
                }
            })
            .unwrap()
    };
    me.set(h).unwrap();
    world.update(0.25).unwrap(); // bind 1.0, then the queued complete: bind 4.0, complete
    assert_eq!(probe.completes(), 1);
    assert_all_close(&probe.binds(), &[0.0, 1.0, 4.0]);
    world.update(0.25).unwrap(); // Completed: binds the end value; complete is refused
    world.update(0.25).unwrap();
    assert_eq!(probe.completes(), 1);
    assert_all_close(&probe.binds(), &[0.0, 1.0, 4.0, 4.0, 4.0]);
    assert!(world.is_active(h));
}

// ------------------------------------------------------------------ (c) set_time/cancel/clear

#[test]
fn cancel_from_own_complete_callback_does_not_fire_cancel() {
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let me: Arc<OnceLock<MotionHandle>> = Arc::default();
    let probe = Arc::new(Probe::default());
    let h = {
        let (me, commands, c) = (me.clone(), commands.clone(), probe.clone());
        let x = probe.clone();
        Motion::new(0.0f32, 1.0, 0.5)
            .on_complete(move || {
                c.completes.fetch_add(1, Ordering::SeqCst);
                commands.cancel(*me.get().unwrap());
            })
            .on_cancel(move || {
                x.cancels.fetch_add(1, Ordering::SeqCst);
            })
            .bind(&mut world, recorder(&probe))
            .unwrap()
    };
    me.set(h).unwrap();
    world.update(0.5).unwrap();
    world.update(0.5).unwrap();
    assert_eq!((probe.completes(), probe.cancels()), (1, 0));
    assert_all_close(&probe.binds(), &[0.0, 1.0]);
}

#[test]
fn cancel_and_complete_from_own_bind_fire_cancel_once() {
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let me: Arc<OnceLock<MotionHandle>> = Arc::default();
    let trigger = Arc::new(AtomicBool::new(false));
    let probe = Arc::new(Probe::default());
    let h = {
        let (me, commands, trigger, rec) =
            (me.clone(), commands.clone(), trigger.clone(), probe.clone());
        observed(Motion::new(0.0f32, 2.0, 1.0), &probe)
            .bind(&mut world, move |v| {
                rec.binds.lock().unwrap().push(v);
                if trigger.load(Ordering::SeqCst) {
                    let h = *me.get().unwrap();
                    commands.cancel(h);
                    commands.complete(h);
                    commands.cancel(h);
                }
            })
            .unwrap()
    };
    me.set(h).unwrap();
    world.update(0.25).unwrap();
    trigger.store(true, Ordering::SeqCst);
    world.update(0.25).unwrap();
    assert_eq!((probe.completes(), probe.cancels()), (0, 1));
    assert!(!world.is_active(h));
    world.update(1.0).unwrap();
    assert_eq!((probe.completes(), probe.cancels()), (0, 1));
    assert_all_close(&probe.binds(), &[0.0, 0.5, 1.0]);
}

#[test]
fn cancel_queued_for_a_motion_completing_naturally_in_the_same_frame() {
    // P's bind queues cancel(Q) in the frame Q completes: the queue runs after the visits,
    // so Q completes (complete fires) and the cancel finds nothing: exactly one callback.
    let mut world = MotionWorld::new();
    let q_handle = commander(&mut world, |commands, q| commands.cancel(q));
    let qp = Arc::new(Probe::default());
    let q = observed(Motion::new(0.0f32, 1.0, 1.0), &qp)
        .bind(&mut world, recorder(&qp))
        .unwrap();
    q_handle.set(q).unwrap();
    world.update(1.0).unwrap();
    world.update(1.0).unwrap();
    assert_eq!((qp.completes(), qp.cancels()), (1, 0));
    assert!(!world.is_active(q));
}

#[test]
fn set_time_from_complete_callback_rewinds_a_preserved_motion() {
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let me: Arc<OnceLock<MotionHandle>> = Arc::default();
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let once = Arc::new(AtomicBool::new(true));
    let h = {
        let (me, commands, once) = (me.clone(), commands.clone(), once.clone());
        let (lc, lb) = (log.clone(), log.clone());
        Motion::new(0.0f32, 10.0, 1.0)
            .preserve()
            .on_complete(move || {
                lc.lock().unwrap().push("complete".into());
                if once.swap(false, Ordering::SeqCst) {
                    commands.set_time(*me.get().unwrap(), 0.5);
                }
            })
            .bind(&mut world, move |v| lb.lock().unwrap().push(format!("{v}")))
            .unwrap()
    };
    me.set(h).unwrap();
    world.update(1.25).unwrap(); // completes: bind 10, complete; then set_time(0.5): bind 5
    assert_eq!(world.time(h), Ok(0.5));
    world.update(0.25).unwrap(); // T = 0.75
    world.update(0.5).unwrap(); // T = 1.25: completes again (a new transition)
    world.update(0.5).unwrap(); // stays completed
    assert_eq!(
        *log.lock().unwrap(),
        ["0", "10", "complete", "5", "7.5", "10", "complete", "10"]
    );
    assert!(world.is_active(h));
}

#[test]
fn set_time_from_loop_callback_rewinds_without_double_fire() {
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let me: Arc<OnceLock<MotionHandle>> = Arc::default();
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    let once = Arc::new(AtomicBool::new(true));
    let h = {
        let (me, commands, once) = (me.clone(), commands.clone(), once.clone());
        let (ll, lb) = (log.clone(), log.clone());
        Motion::new(0.0f32, 10.0, 1.0)
            .loops(-1, LoopType::Restart)
            .on_loop_complete(move |k| {
                ll.lock().unwrap().push(format!("loop {k}"));
                if once.swap(false, Ordering::SeqCst) {
                    commands.set_time(*me.get().unwrap(), 0.0);
                }
            })
            .bind(&mut world, move |v| lb.lock().unwrap().push(format!("{v}")))
            .unwrap()
    };
    me.set(h).unwrap();
    world.update(0.75).unwrap(); // 7.5
    world.update(0.5).unwrap(); // T = 1.25: 2.5, loop 1; set_time(0): 0 (loops fell: no event)
    world.update(0.75).unwrap(); // 7.5
    world.update(0.5).unwrap(); // T = 1.25: 2.5, loop 1 (rose again)
    world.update(1.0).unwrap(); // T = 2.25: 2.5, loop 2
    assert_eq!(
        *log.lock().unwrap(),
        ["0", "7.5", "2.5", "loop 1", "0", "7.5", "2.5", "loop 1", "2.5", "loop 2"]
    );
    assert_eq!(world.completed_loops(h), Ok(2));
}

#[test]
fn set_time_past_the_end_from_another_bind_completes_once() {
    let mut world = MotionWorld::new();
    let trigger = Arc::new(AtomicBool::new(false));
    let armed = trigger.clone();
    let q_handle = commander(&mut world, move |commands, q| {
        if armed.swap(false, Ordering::SeqCst) {
            commands.set_time(q, 5.0);
        }
    });
    let qp = Arc::new(Probe::default());
    let q = observed(Motion::new(0.0f32, 10.0, 2.0).loops(2, LoopType::Yoyo), &qp)
        .bind(&mut world, recorder(&qp))
        .unwrap();
    q_handle.set(q).unwrap();
    world.update(0.5).unwrap(); // 2.5
    trigger.store(true, Ordering::SeqCst);
    world.update(0.5).unwrap(); // 5, then set_time(5) > total 4: Yoyo ends at the start: 0
    assert_eq!(qp.completes(), 1);
    assert_eq!(qp.loops.lock().unwrap().as_slice(), [2]);
    assert_all_close(&qp.binds(), &[0.0, 2.5, 5.0, 0.0]);
    assert!(!world.is_active(q));
    // Its predicted natural completion (at T = 4) must not fire anything later.
    for _ in 0..4 {
        world.update(1.0).unwrap();
    }
    assert_eq!(qp.completes(), 1);
    assert_eq!(qp.bind_count(), 4);
    assert_eq!(qp.loops.lock().unwrap().as_slice(), [2]);
}

#[test]
fn clear_queued_from_complete_callback() {
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let d_probe = Arc::new(Probe::default());
    let e_probe = Arc::new(Probe::default());
    let handles: Arc<Mutex<Vec<MotionHandle>>> = Arc::default();
    let ap = Arc::new(Probe::default());
    let a = {
        let (commands, handles, dp, ep) = (
            commands.clone(),
            handles.clone(),
            d_probe.clone(),
            e_probe.clone(),
        );
        let c = ap.clone();
        Motion::new(0.0f32, 1.0, 0.5)
            .on_complete(move || {
                c.completes.fetch_add(1, Ordering::SeqCst);
                // E is queued before the clear (applied, then cleared), D after it.
                let e = observed(Motion::new(0.0f32, 1.0, 1.0), &ep)
                    .bind_deferred(&commands, recorder(&ep))
                    .unwrap();
                commands.clear();
                let d = observed(Motion::new(0.0f32, 4.0, 1.0), &dp)
                    .bind_deferred(&commands, recorder(&dp))
                    .unwrap();
                handles.lock().unwrap().extend([e, d]);
            })
            .run(&mut world)
            .unwrap()
    };
    let bp = Arc::new(Probe::default());
    let b = observed(Motion::new(0.0f32, 1.0, 0.5), &bp)
        .bind(&mut world, recorder(&bp))
        .unwrap();
    let cp = Arc::new(Probe::default());
    let c = observed(Motion::new(0.0f32, 1.0, 10.0), &cp)
        .bind(&mut world, recorder(&cp))
        .unwrap();

    world.update(0.5).unwrap();
    let [e, d] = <[MotionHandle; 2]>::try_from(handles.lock().unwrap().clone()).unwrap();
    assert_eq!(ap.completes(), 1);
    // B completed in the same frame, before the clear took effect: once, no cancel.
    assert_eq!((bp.completes(), bp.cancels()), (1, 0));
    // C was cleared: no callback at all.
    assert_eq!((cp.completes(), cp.cancels()), (0, 0));
    assert_all_close(&cp.binds(), &[0.0, 0.05]);
    for h in [a, b, c, e] {
        assert!(!world.is_active(h), "{h:?} survived the clear");
    }
    assert_eq!((e_probe.completes(), e_probe.cancels()), (0, 0));
    assert!(world.is_active(d));
    assert_eq!(world.len(), 1);
    assert_all_close(&d_probe.binds(), &[0.0]);

    let e_binds = e_probe.bind_count();
    for want in [1.0, 2.0, 3.0, 4.0] {
        world.update(0.25).unwrap();
        assert_close(d_probe.last().unwrap(), want);
    }
    assert_eq!((d_probe.completes(), d_probe.cancels()), (1, 0));
    assert_eq!(cp.bind_count(), 2, "a cleared motion binds no more");
    assert_eq!(e_probe.bind_count(), e_binds);
    assert_eq!((bp.completes(), bp.cancels()), (1, 0));
    assert_eq!((cp.completes(), cp.cancels()), (0, 0));
    assert_eq!(world.len(), 0);
}

#[test]
fn clear_queued_from_a_bind_mid_frame() {
    // Motions 0..10 bind; motion 3's bind queues a clear. Every motion is still visited
    // once this frame (the clear is applied after the visits), then none ever again.
    let mut world = MotionWorld::new();
    let commands = world.commands();
    let trigger = Arc::new(AtomicBool::new(false));
    let probes: Vec<Arc<Probe>> = (0..10).map(|_| Arc::new(Probe::default())).collect();
    let mut handles = Vec::new();
    for (i, p) in probes.iter().enumerate() {
        let (rec, commands, trigger) = (p.clone(), commands.clone(), trigger.clone());
        let h = observed(Motion::new(0.0f32, 1.0, 0.5 + i as f32 * 0.25), p)
            .bind(&mut world, move |v| {
                rec.binds.lock().unwrap().push(v);
                if i == 3 && trigger.swap(false, Ordering::SeqCst) {
                    commands.clear();
                }
            })
            .unwrap();
        handles.push(h);
    }
    world.update(0.25).unwrap();
    trigger.store(true, Ordering::SeqCst);
    world.update(0.25).unwrap(); // T = 0.5: motion 0 (D = 0.5) completes this frame
    assert_eq!(world.len(), 0);
    for (i, p) in probes.iter().enumerate() {
        assert_eq!(p.bind_count(), 3, "motion {i}");
        let want = if i == 0 { (1, 0) } else { (0, 0) };
        assert_eq!((p.completes(), p.cancels()), want, "motion {i}");
    }
    for _ in 0..5 {
        world.update(0.5).unwrap();
    }
    for (i, p) in probes.iter().enumerate() {
        assert_eq!(p.bind_count(), 3, "motion {i}");
        assert!(!world.is_active(handles[i]));
    }
    assert_eq!((probes[0].completes(), probes[0].cancels()), (1, 0));
}

// ------------------------------------------------------------------ (d) panics in binds

#[test]
fn panic_in_bind_without_cancel_on_error_is_reported_and_motion_goes_on() {
    quiet_intentional_panics();
    let mut world = MotionWorld::new();
    let panic_now = Arc::new(AtomicBool::new(false));
    let probe = Arc::new(Probe::default());
    let h = {
        let (rec, panic_now) = (probe.clone(), panic_now.clone());
        observed(Motion::new(0.0f32, 10.0, 1.0).debug_name("panicky"), &probe)
            .bind(&mut world, move |v| {
                rec.binds.lock().unwrap().push(v);
                if panic_now.swap(false, Ordering::SeqCst) {
                    panic!("{INTENTIONAL}: bind at {v}");
                }
            })
            .unwrap()
    };
    world.update(0.25).unwrap();
    panic_now.store(true, Ordering::SeqCst);
    world.update(0.25).unwrap();
    let errors = world.take_callback_errors();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].handle, h);
    assert_eq!(errors[0].kind, CallbackKind::Bind);
    assert_eq!(errors[0].debug_name, "panicky");
    assert!(
        errors[0].message.contains(INTENTIONAL),
        "{}",
        errors[0].message
    );
    assert!(
        errors[0].message.contains("bind at 5"),
        "{}",
        errors[0].message
    );
    assert!(world.take_callback_errors().is_empty(), "taken once");

    assert!(world.is_active(h));
    assert_eq!(probe.cancels(), 0);
    world.update(0.25).unwrap();
    world.update(0.25).unwrap();
    assert_all_close(&probe.binds(), &[0.0, 2.5, 5.0, 7.5, 10.0]);
    assert_eq!((probe.completes(), probe.cancels()), (1, 0));
    assert!(!world.is_active(h));
    assert!(world.take_callback_errors().is_empty());
}

#[test]
fn bind_panicking_every_frame_keeps_at_most_64_errors() {
    quiet_intentional_panics();
    let mut world = MotionWorld::new();
    let probe = Arc::new(Probe::default());
    let h = {
        let rec = probe.clone();
        observed(Motion::new(0.0f32, 1.0, 1000.0), &probe)
            .bind(&mut world, move |v| {
                rec.binds.lock().unwrap().push(v);
                panic!("{INTENTIONAL}");
            })
            .unwrap()
    };
    for _ in 0..100 {
        world.update(0.5).unwrap();
    }
    // 101 panics: the immediate bind and 100 frames.
    assert_eq!(probe.bind_count(), 101);
    let errors = world.take_callback_errors();
    assert_eq!(errors.len(), 64);
    assert_eq!(world.dropped_callback_errors(), 37);
    assert!(errors
        .iter()
        .all(|e| e.handle == h && e.kind == CallbackKind::Bind));
    assert!(world.is_active(h));
    assert_eq!((probe.completes(), probe.cancels()), (0, 0));
}

#[test]
fn cancel_on_error_panic_in_immediate_bind_cancels_once() {
    quiet_intentional_panics();
    let mut world = MotionWorld::new();
    let probe = Arc::new(Probe::default());
    let h = {
        let rec = probe.clone();
        observed(Motion::new(0.0f32, 1.0, 1.0).cancel_on_error(true), &probe)
            .bind(&mut world, move |v| {
                rec.binds.lock().unwrap().push(v);
                panic!("{INTENTIONAL}");
            })
            .unwrap()
    };
    assert_eq!(probe.cancels(), 1);
    assert!(!world.is_active(h));
    assert_eq!(world.len(), 0);
    for _ in 0..3 {
        world.update(0.5).unwrap();
    }
    assert_eq!(probe.bind_count(), 1);
    assert_eq!((probe.completes(), probe.cancels()), (0, 1));
    assert_eq!(world.take_callback_errors().len(), 1);
}

#[test]
fn panic_in_complete_callback_is_reported_once() {
    quiet_intentional_panics();
    let mut world = MotionWorld::new();
    let count = Arc::new(AtomicUsize::new(0));
    let h = {
        let count = count.clone();
        Motion::new(0.0f32, 1.0, 0.5)
            .on_complete(move || {
                count.fetch_add(1, Ordering::SeqCst);
                panic!("{INTENTIONAL}");
            })
            .run(&mut world)
            .unwrap()
    };
    world.update(1.0).unwrap();
    world.update(1.0).unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert!(!world.is_active(h));
    let errors = world.take_callback_errors();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].kind, CallbackKind::Complete);
    assert_eq!(errors[0].handle, h);
}
