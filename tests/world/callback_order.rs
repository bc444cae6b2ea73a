//! Callback order within an update (docs/semantics.md §6; seed 000 pitfall 1): motions are
//! visited in creation order whatever swap-remove did to the dense rows, and for each motion
//! bind → loop-complete → complete.
//!
//! Every update is `STEP = 1/8` s and every duration a multiple of it, so all clocks are exact
//! and the expected log is computed with integer arithmetic by an independent model.

use std::sync::{Arc, Mutex};

use wgpu_tween::{LoopType, Motion, MotionWorld};

const STEP: f64 = 0.125;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Bind(f32),
    Loop(u32),
    Complete,
}

impl Kind {
    fn rank(self) -> u8 {
        match self {
            Kind::Bind(_) => 0,
            Kind::Loop(_) => 1,
            Kind::Complete => 2,
        }
    }
}

type Log = Arc<Mutex<Vec<(usize, Kind)>>>;

/// The test's own description of a motion: linear `0 → TO`, duration `steps · STEP`,
/// `loops` (−1 = infinite) with Restart.
#[derive(Clone, Copy, Debug)]
struct Spec {
    index: usize,
    steps: u32,
    loops: i32,
    bind: bool,
    /// World updates done when it was created.
    born: u32,
}

const TO: f32 = 64.0;

impl Spec {
    fn for_index(index: usize, born: u32) -> Self {
        // Scrambled durations (1..=11 steps) and loop counts so that completions happen in an
        // order unrelated to creation order; every 10th loops forever; every 5th has no bind
        // (visited only through its predicted events).
        let steps = 1 + (index as u32 * 7) % 11;
        let loops = if index % 10 == 9 {
            -1
        } else {
            1 + (index % 3) as i32
        };
        Spec {
            index,
            steps,
            loops,
            bind: index % 5 != 2,
            born,
        }
    }

    /// What this motion logs in world update number `update` (1-based), by docs/semantics.md §2
    /// and §6 for `d = 0`, `T = (update − born) · STEP`.
    fn expected(&self, update: u32, out: &mut Vec<(usize, Kind)>) {
        let s = update - self.born; // steps of clock now
        let prev = s - 1;
        let total = if self.loops < 0 {
            u32::MAX
        } else {
            self.loops as u32 * self.steps
        };
        if prev >= total {
            return; // completed in an earlier update: removed
        }
        let completed = s >= total;
        let loops_now = if completed {
            self.loops as u32
        } else {
            s / self.steps
        };
        let loops_prev = prev / self.steps;
        if self.bind {
            let value = if completed {
                TO
            } else {
                TO * (s % self.steps) as f32 / self.steps as f32
            };
            out.push((self.index, Kind::Bind(value)));
        }
        if loops_now > loops_prev {
            out.push((self.index, Kind::Loop(loops_now)));
        }
        if completed {
            out.push((self.index, Kind::Complete));
        }
    }
}

fn create(world: &mut MotionWorld, spec: Spec, log: &Log) {
    let (lb, ll, lc) = (log.clone(), log.clone(), log.clone());
    let i = spec.index;
    let motion = Motion::new(0.0f32, TO, spec.steps as f32 * STEP as f32)
        .loops(spec.loops, LoopType::Restart)
        .on_loop_complete(move |k| ll.lock().unwrap().push((i, Kind::Loop(k))))
        .on_complete(move || lc.lock().unwrap().push((i, Kind::Complete)));
    if spec.bind {
        motion
            .bind(world, move |v| lb.lock().unwrap().push((i, Kind::Bind(v))))
            .unwrap();
    } else {
        motion.run(world).unwrap();
    }
}

/// Creation order within the update, and bind → loop → complete per motion.
fn assert_ordered(update: u32, got: &[(usize, Kind)]) {
    for pair in got.windows(2) {
        let ((a, ka), (b, kb)) = (pair[0], pair[1]);
        assert!(
            a < b || (a == b && ka.rank() < kb.rank()),
            "update {update}: ({a}, {ka:?}) came before ({b}, {kb:?}); log {got:?}"
        );
    }
}

fn assert_log(update: u32, got: &[(usize, Kind)], want: &[(usize, Kind)]) {
    let same = got.len() == want.len()
        && got.iter().zip(want).all(|(&(gi, gk), &(wi, wk))| {
            gi == wi
                && match (gk, wk) {
                    (Kind::Bind(g), Kind::Bind(w)) => (g - w).abs() <= 1e-4 * w.abs().max(1.0),
                    _ => gk == wk,
                }
        });
    assert!(same, "update {update}:\n got  {got:?}\n want {want:?}");
}

#[test]
fn callbacks_follow_creation_order_after_swap_removes() {
    let log: Log = Arc::default();
    let mut world = MotionWorld::new();
    let mut specs = Vec::new();
    for i in 0..50 {
        let spec = Spec::for_index(i, 0);
        create(&mut world, spec, &log);
        specs.push(spec);
    }
    // Immediate binds, in creation order, at E(0) = 0.
    {
        let got = std::mem::take(&mut *log.lock().unwrap());
        let want: Vec<_> = specs
            .iter()
            .filter(|s| s.bind)
            .map(|s| (s.index, Kind::Bind(0.0)))
            .collect();
        assert_log(0, &got, &want);
    }

    let mut completions = 0;
    for update in 1..=40u32 {
        // New motions between some updates: they reuse slots freed by completions (so slot
        // order differs from creation order too) and must be visited after the older ones.
        if update == 6 || update == 13 || update == 21 {
            for _ in 0..10 {
                let spec = Spec::for_index(specs.len(), update - 1);
                create(&mut world, spec, &log);
                specs.push(spec);
            }
            log.lock().unwrap().clear(); // their immediate binds
        }
        world.update(STEP).unwrap();
        let got = std::mem::take(&mut *log.lock().unwrap());
        let mut want = Vec::new();
        for spec in &specs {
            spec.expected(update, &mut want);
        }
        assert_ordered(update, &got);
        assert_log(update, &got, &want);
        completions += got.iter().filter(|(_, k)| *k == Kind::Complete).count();
        let live = specs
            .iter()
            .filter(|s| s.loops < 0 || (update - s.born) < s.loops as u32 * s.steps)
            .count();
        assert_eq!(world.len(), live, "update {update}");
    }
    // The premise: many swap-removes happened (every finite motion completed), interleaved
    // with creations.
    assert_eq!(
        completions,
        specs.iter().filter(|s| s.loops > 0).count(),
        "every finite motion completed"
    );
    assert!(completions >= 60);
    assert_eq!(world.len(), specs.iter().filter(|s| s.loops < 0).count());
}

#[test]
fn same_frame_completions_fire_in_creation_order() {
    // 50 motions, created longest first so that the dense order after removals is far from
    // creation order; then every survivor completes in one big update.
    let log: Log = Arc::default();
    let mut world = MotionWorld::new();
    let mut specs = Vec::new();
    for i in 0..50 {
        let steps = if i % 2 == 0 {
            1
        } else {
            8 + (i as u32 * 5) % 7
        };
        let spec = Spec {
            index: i,
            steps,
            loops: 1 + (i % 2) as i32,
            bind: true,
            born: 0,
        };
        create(&mut world, spec, &log);
        specs.push(spec);
    }
    world.update(STEP).unwrap(); // the even ones (1 step, 1 loop) complete: 25 swap-removes
    assert_eq!(world.len(), 25);
    log.lock().unwrap().clear();

    world.update(4.0).unwrap(); // 32 more steps: every odd one (≤ 2 · 14 steps) completes
    let got = std::mem::take(&mut *log.lock().unwrap());
    let want: Vec<_> = specs
        .iter()
        .filter(|s| s.index % 2 == 1)
        .flat_map(|s| {
            [
                (s.index, Kind::Bind(TO)),
                (s.index, Kind::Loop(2)),
                (s.index, Kind::Complete),
            ]
        })
        .collect();
    assert_ordered(2, &got);
    assert_log(2, &got, &want);
    assert_eq!(world.len(), 0);
}

/// A motion without a bind is only looked at when its predicted event is due. A clock a
/// hair before the end (where the evaluation already counts as the boundary) must still
/// complete it in that update, not leave it Completed with no callback and never removed.
#[test]
fn completion_a_hair_before_the_end_fires_in_that_update() {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;
    let fired = Arc::new(AtomicU32::new(0));
    let mut world = wgpu_tween::MotionWorld::new();
    let sink = Arc::clone(&fired);
    let h = wgpu_tween::Motion::new(0.0f32, 1.0, 0.5)
        .on_complete(move || {
            sink.fetch_add(1, Ordering::Relaxed);
        })
        .run(&mut world)
        .unwrap();
    world.update(0.5 - 1e-9).unwrap();
    assert_eq!(fired.load(Ordering::Relaxed), 1);
    assert!(!world.is_active(h));
    world.update(0.1).unwrap();
    assert_eq!(fired.load(Ordering::Relaxed), 1);
}
