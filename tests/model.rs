//! Model-based property tests (issue 7, items 1 and 6): random sequences of world operations
//! run against a small reference model written straight from docs/semantics.md (`model/sim.rs`,
//! `model/reference.rs`: a `Vec` of motions with f64 clocks advanced by `T += dt · speed`).
//!
//! Operations: create (every ease, loop type and delay type, skipped or bound delays, zero
//! durations, loops -1 and 1..4, speeds 0 and negative, every time kind, preserve, immediate
//! bind on or off, binds and callbacks that record into one log, some panicking, with and
//! without cancel-on-error), update (small and large steps, per-kind deltas), cancel, complete,
//! set_time, set_playback_speed, preserve, clear, reserve, commands queued from outside and
//! from inside callbacks (a callback may cancel, complete, retime, re-speed or preserve any
//! issued handle or itself, spawn a motion, or clear the world), and stale or foreign handles;
//! long runs (multiples of 4096 s, so later motions are created late) and `set_time` past
//! the time limit (issue 16). Non-dyadic and month-long world times, pause and resume at
//! any time and `set_time` near the limit are `model_clock.rs`'s, which compares within
//! the anchor grid's resolution.
//!
//! After every operation the world and the model must agree on: each operation's result, the
//! exact sequence of callback calls (bind values within `1e-4 · max(1, |to − from|)`, scaled by
//! `|p|` where Incremental loops take progress past 1), the caught panics (handle and kind,
//! the 64 kept and the count dropped), `len`, and for every handle ever issued `is_active`,
//! and for live ones status, completed loops, clock and value.
//!
//! Times are dyadic and loop periods powers of two (see `model/ops.rs`), so the model's
//! accumulated clock and the library's anchored one are the same number and no discrete
//! outcome can hang on rounding, while boundaries are still hit exactly and often.
//!
//! The executors of `WGPU_TWEEN_EXECUTOR` run (default: the CPU, and the GPU when an adapter
//! exists, with fewer cases). `MODEL_CASES` / `MODEL_GPU_CASES` override the case counts,
//! `MODEL_SHRINK` the shrink iterations (2000).
//! Failures shrink (and the message lists the operations up to the failing one); proptest
//! keeps failing seeds in `tests/model.proptest-regressions`, and the minimal sequences found
//! so far are kept as the explicit `regression_*` tests at the end. While a found bug is
//! open, the generator may steer around it (`ops::AVOID_PRESERVED_ZERO_DURATION_ON_GPU`) so
//! the run keeps looking for others.

mod common;
#[path = "model/ops.rs"]
mod ops;
#[path = "model/reference.rs"]
mod reference;
#[path = "model/sim.rs"]
mod sim;
// The same binary: clocks at non-dyadic and long world times, and the fuzz corpus replayed.
#[path = "model/clock.rs"]
mod clock;
#[path = "model/fuzz_corpus.rs"]
mod fuzz_corpus;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};
use wgpu_tween::{
    CallbackKind, Executor, Motion, MotionCommands, MotionError, MotionHandle, MotionWorld,
    TimeDeltas,
};

use common::Exec;
use ops::{Action, Foreign, Op, Spec, Target, Trigger};
use sim::{Entry, Fail, Model};

use common::{quiet_intentional_panics, INTENTIONAL};

// ---------------------------------------------------------------------- the real callbacks

/// What every real callback of one test case shares.
struct Shared {
    log: Mutex<Vec<Entry>>,
    /// `(model id, handle)` of motions spawned through commands, in the order queued.
    spawned: Mutex<Vec<(u32, MotionHandle)>>,
    /// Handles issued before the current operation (what `Target::Issued` indexes).
    snapshot: Mutex<Vec<MotionHandle>>,
    next_id: AtomicU32,
    commands: MotionCommands,
    /// Handles not to preserve (`ops::AVOID_PRESERVED_ZERO_DURATION_ON_GPU`).
    no_preserve: Mutex<HashSet<MotionHandle>>,
    avoid: bool,
}

/// A motion's reaction and whether it has run.
struct Reactor {
    reaction: Option<ops::Reaction>,
    fired: AtomicBool,
    shared: Arc<Shared>,
    me: Arc<OnceLock<MotionHandle>>,
}

impl Reactor {
    fn react(&self, trigger: Trigger) {
        if let Some(r) = &self.reaction {
            if r.trigger == trigger && !self.fired.swap(true, Ordering::SeqCst) {
                perform(&r.action, &self.shared, Some(&self.me));
            }
        }
    }
}

/// Queues `action` through the shared commands (`me`: the calling motion, if any).
fn perform(action: &Action, shared: &Arc<Shared>, me: Option<&OnceLock<MotionHandle>>) {
    let resolve = |t: Target| match t {
        Target::Me => me.and_then(|m| m.get().copied()),
        Target::Issued(k) => {
            let s = shared.snapshot.lock().unwrap();
            (!s.is_empty()).then(|| s[k % s.len()])
        }
    };
    let c = &shared.commands;
    match action {
        Action::Cancel(t) => resolve(*t).into_iter().for_each(|h| c.cancel(h)),
        Action::Complete(t) => resolve(*t).into_iter().for_each(|h| c.complete(h)),
        Action::SetTime(t, x) => resolve(*t).into_iter().for_each(|h| c.set_time(h, *x)),
        Action::SetSpeed(t, s) => resolve(*t)
            .into_iter()
            .for_each(|h| c.set_playback_speed(h, *s)),
        Action::Preserve(t) => resolve(*t)
            .filter(|h| !shared.no_preserve.lock().unwrap().contains(h))
            .into_iter()
            .for_each(|h| c.preserve(h)),
        Action::Clear => c.clear(),
        Action::Spawn(spec) => {
            let id = shared.next_id.fetch_add(1, Ordering::SeqCst);
            let me = Arc::new(OnceLock::new());
            let (motion, bind) = build(spec, id, shared, &me);
            let h = match bind {
                Some(bind) => motion.bind_deferred(c, bind),
                None => motion.run_deferred(c),
            }
            .expect("generated specs are valid");
            me.set(h).unwrap();
            if spec.avoid_preserve(shared.avoid) {
                shared.no_preserve.lock().unwrap().insert(h);
            }
            shared.spawned.lock().unwrap().push((id, h));
        }
    }
}

type BindBox = Box<dyn FnMut(f32) + Send>;

/// The builder for `spec`, with callbacks recording as model id `id`, and its bind.
fn build(
    spec: &Spec,
    id: u32,
    shared: &Arc<Shared>,
    me: &Arc<OnceLock<MotionHandle>>,
) -> (Motion<f32>, Option<BindBox>) {
    let reactor = Arc::new(Reactor {
        reaction: spec.reaction.clone(),
        fired: AtomicBool::new(false),
        shared: Arc::clone(shared),
        me: Arc::clone(me),
    });
    let mut m = Motion::new(spec.from, spec.to, spec.duration)
        .ease(spec.ease)
        .loops(spec.loops, spec.loop_type)
        .playback_speed(spec.speed)
        .time_kind(spec.time_kind)
        .immediate_bind(spec.immediate_bind)
        .cancel_on_error(spec.cancel_on_error);
    m = match spec.delay {
        ops::DelaySetting::None => m,
        ops::DelaySetting::Delay(d) => m.delay(d),
        ops::DelaySetting::With(d, t, s) => m.delay_with(d, t, s),
    };
    if spec.preserve {
        m = m.preserve();
    }
    if spec.on_complete {
        let (r, panics) = (Arc::clone(&reactor), spec.complete_panic);
        m = m.on_complete(move || {
            r.shared.log.lock().unwrap().push(Entry::Complete(id));
            r.react(Trigger::Complete);
            if panics {
                panic!("{INTENTIONAL}: complete of {id}");
            }
        });
    }
    if spec.on_cancel {
        let (r, panics) = (Arc::clone(&reactor), spec.cancel_panic);
        m = m.on_cancel(move || {
            r.shared.log.lock().unwrap().push(Entry::Cancel(id));
            r.react(Trigger::Cancel);
            if panics {
                panic!("{INTENTIONAL}: cancel of {id}");
            }
        });
    }
    if spec.on_loop {
        let (r, panics) = (Arc::clone(&reactor), spec.loop_panic);
        m = m.on_loop_complete(move |k| {
            r.shared.log.lock().unwrap().push(Entry::Loop(id, k));
            r.react(Trigger::Loop);
            if panics {
                panic!("{INTENTIONAL}: loop {k} of {id}");
            }
        });
    }
    let bind = spec.bind.then(|| {
        let (r, panic_mode) = (Arc::clone(&reactor), spec.bind_panic);
        let mut calls = 0u32;
        Box::new(move |v: f32| {
            let call = calls;
            calls += 1;
            r.shared.log.lock().unwrap().push(Entry::Bind(id, v));
            r.react(Trigger::Bind(call));
            if panic_mode.panics(call) {
                panic!("{INTENTIONAL}: bind call {call} of {id}");
            }
        }) as BindBox
    });
    (m, bind)
}

// ---------------------------------------------------------------------- the comparison

/// Tolerance for a value of motion `id` at progress `p` (from the model).
fn tolerance(ends: (f32, f32), want: f64) -> f64 {
    let (from, to) = (f64::from(ends.0), f64::from(ends.1));
    let span = (to - from).abs();
    let p = if span > 0.0 {
        ((want - from) / span).abs()
    } else {
        1.0
    };
    1e-4 * span.max(1.0) * p.max(1.0)
}

fn expected(fail: Fail, h: MotionHandle) -> impl Fn(&MotionError) -> bool {
    move |e: &MotionError| match (fail, e) {
        (Fail::Destroyed, MotionError::Destroyed(x)) => *x == h,
        (Fail::InfiniteLoops, MotionError::InfiniteLoops(x)) => *x == h,
        (Fail::AlreadyCompleted, MotionError::AlreadyCompleted(x)) => *x == h,
        (Fail::InvalidArgument, MotionError::InvalidArgument { handle, .. }) => *handle == h,
        (Fail::OutOfRange, MotionError::OutOfRange { handle, .. }) => *handle == h,
        _ => false,
    }
}

fn same_result(
    got: Result<(), MotionError>,
    want: Result<(), Fail>,
    h: MotionHandle,
) -> Result<(), TestCaseError> {
    match (&got, want) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(e), Err(f)) if expected(f, h)(e) => Ok(()),
        _ => Err(TestCaseError::fail(format!(
            "result: world {got:?}, model {want:?} (handle {h:?})"
        ))),
    }
}

/// One test case: a world, the model, and the handles issued so far.
struct Case {
    world: MotionWorld,
    model: Model,
    shared: Arc<Shared>,
    issued: Vec<(u32, MotionHandle)>,
    handle_of: HashMap<u32, MotionHandle>,
    other: MotionWorld,
    foreign: MotionHandle,
    stats: Arc<Stats>,
}

/// What one run exercised (per executor).
#[derive(Default)]
struct Stats {
    ops: AtomicUsize,
    updates: AtomicUsize,
    callbacks: AtomicUsize,
    completes: AtomicUsize,
    loops: AtomicUsize,
    cancels: AtomicUsize,
    panics: AtomicUsize,
    spawned: AtomicUsize,
    max_live: AtomicUsize,
}

impl Stats {
    fn add(counter: &AtomicUsize, n: usize) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}

impl Case {
    fn new(exec: &Exec, stats: Arc<Stats>) -> Case {
        let world = exec.world();
        let avoid = avoids(exec);
        let shared = Arc::new(Shared {
            log: Mutex::default(),
            spawned: Mutex::default(),
            snapshot: Mutex::default(),
            next_id: AtomicU32::new(0),
            commands: world.commands(),
            no_preserve: Mutex::default(),
            avoid,
        });
        let mut other = MotionWorld::new();
        let foreign = Motion::new(0.0f32, 1.0, 1.0).run(&mut other).unwrap();
        Case {
            world,
            model: Model::new(avoid),
            shared,
            issued: Vec::new(),
            handle_of: HashMap::new(),
            other,
            foreign,
            stats,
        }
    }

    /// `(model id, handle)` of issued entry `k` (NONE when nothing was issued yet).
    fn pick(&self, k: usize) -> (Option<u32>, MotionHandle) {
        if self.issued.is_empty() {
            (None, MotionHandle::NONE)
        } else {
            let (id, h) = self.issued[k % self.issued.len()];
            (Some(id), h)
        }
    }

    fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        let mut created = None;
        match op {
            Op::Create(spec) => {
                let id = self.shared.next_id.fetch_add(1, Ordering::SeqCst);
                let me = Arc::new(OnceLock::new());
                let (motion, bind) = build(spec, id, &self.shared, &me);
                let h = match bind {
                    Some(bind) => motion.bind(&mut self.world, bind),
                    None => motion.run(&mut self.world),
                }
                .expect("generated specs are valid");
                me.set(h).unwrap();
                if spec.avoid_preserve(self.shared.avoid) {
                    self.shared.no_preserve.lock().unwrap().insert(h);
                }
                let model_id = self.model.create(spec.clone());
                prop_assert_eq!(model_id, id);
                created = Some((id, h));
            }
            Op::Update(dt) => {
                self.world.update(*dt).unwrap();
                self.model.update([*dt; 3]);
            }
            Op::UpdateKinds([a, b, c]) => {
                self.world
                    .update_with(TimeDeltas {
                        scaled: *a,
                        unscaled: *b,
                        realtime: *c,
                    })
                    .unwrap();
                self.model.update([*a, *b, *c]);
            }
            Op::Cancel(k) | Op::TryCancel(k) => {
                let (id, h) = self.pick(*k);
                let got = if matches!(op, Op::Cancel(_)) {
                    self.world.cancel(h)
                } else {
                    self.world
                        .try_cancel(h)
                        .then_some(())
                        .ok_or(MotionError::Destroyed(h))
                };
                let want = self.model.cancel(id);
                self.model.settle();
                same_result(got, want.map_err(|_| Fail::Destroyed), h)?;
            }
            Op::Complete(k) | Op::TryComplete(k) => {
                let (id, h) = self.pick(*k);
                let want = self.model.complete(id);
                self.model.settle();
                if matches!(op, Op::Complete(_)) {
                    same_result(self.world.complete(h), want, h)?;
                } else {
                    prop_assert_eq!(self.world.try_complete(h), want.is_ok());
                }
            }
            Op::SetTime(k, t) => {
                let (id, h) = self.pick(*k);
                let want = self.model.set_time(id, *t);
                self.model.settle();
                same_result(self.world.set_time(h, *t), want, h)?;
            }
            Op::SetSpeed(k, s) => {
                let (id, h) = self.pick(*k);
                let want = self.model.set_speed(id, *s);
                self.model.settle();
                same_result(self.world.set_playback_speed(h, *s), want, h)?;
            }
            Op::Preserve(k) => {
                let (id, h) = self.pick(*k);
                if id.is_some_and(|id| self.model.no_preserve.contains(&id)) {
                    return self.after(None);
                }
                let want = self.model.preserve(id);
                same_result(self.world.preserve(h), want, h)?;
            }
            Op::Clear => {
                self.world.clear();
                self.model.clear();
            }
            Op::Reserve(n) => self.world.reserve(*n),
            Op::Queue(action) => {
                perform(action, &self.shared, None);
                let cmd = self.model.command(None, action);
                self.model.enqueue(cmd);
            }
            Op::Foreign(which) => {
                let h = match which {
                    Foreign::OtherWorld => self.foreign,
                    Foreign::None => MotionHandle::NONE,
                };
                let want = |e: Result<(), MotionError>| match which {
                    Foreign::OtherWorld => e == Err(MotionError::WrongWorld(h)),
                    Foreign::None => e == Err(MotionError::Destroyed(h)),
                };
                prop_assert!(!self.world.is_active(h));
                prop_assert!(want(self.world.cancel(h)));
                prop_assert!(want(self.world.complete(h)));
                prop_assert!(want(self.world.set_time(h, 0.5)));
                prop_assert!(want(self.world.set_playback_speed(h, 2.0)));
                prop_assert!(want(self.world.preserve(h)));
                prop_assert!(want(self.world.status(h).map(|_| ())));
                prop_assert!(want(self.world.value::<f32>(h).map(|_| ())));
                prop_assert!(self.other.is_active(self.foreign));
                self.model.settle(); // the failed operations settled the world's queue
            }
        }
        Stats::add(&self.stats.ops, 1);
        if matches!(op, Op::Update(_) | Op::UpdateKinds(_)) {
            Stats::add(&self.stats.updates, 1);
        }
        self.after(created)
    }

    /// Records what the operation issued, then compares everything.
    fn after(&mut self, created: Option<(u32, MotionHandle)>) -> Result<(), TestCaseError> {
        let spawned = std::mem::take(&mut *self.shared.spawned.lock().unwrap());
        let model_spawned = std::mem::take(&mut self.model.spawned);
        let ids: Vec<u32> = spawned.iter().map(|&(id, _)| id).collect();
        Stats::add(&self.stats.spawned, ids.len());
        prop_assert_eq!(&ids, &model_spawned, "spawned motions");
        for (id, h) in created.into_iter().chain(spawned) {
            self.issued.push((id, h));
            self.handle_of.insert(id, h);
        }
        *self.shared.snapshot.lock().unwrap() = self.issued.iter().map(|&(_, h)| h).collect();
        self.model.snapshot = self.issued.iter().map(|&(id, _)| id).collect();

        // The callback log.
        let got = std::mem::take(&mut *self.shared.log.lock().unwrap());
        let want = std::mem::take(&mut self.model.log);
        let log_matches = got.len() == want.len()
            && got.iter().zip(&want).all(|(g, w)| match (g, w) {
                (Entry::Bind(a, x), Entry::Bind(b, y)) => {
                    a == b
                        && (f64::from(*x) - f64::from(*y)).abs()
                            <= tolerance(self.model.ends[b], f64::from(*y))
                }
                _ => g == w,
            });
        prop_assert!(
            log_matches,
            "callbacks:\n world {:?}\n model {:?}",
            got,
            want
        );
        let stats = &self.stats;
        Stats::add(&stats.callbacks, got.len());
        for entry in &got {
            match entry {
                Entry::Complete(_) => Stats::add(&stats.completes, 1),
                Entry::Loop(..) => Stats::add(&stats.loops, 1),
                Entry::Cancel(_) => Stats::add(&stats.cancels, 1),
                Entry::Bind(..) => {}
            }
        }
        stats
            .max_live
            .fetch_max(self.model.motions.len(), Ordering::Relaxed);

        // Caught panics.
        let errors: Vec<(MotionHandle, CallbackKind)> = self
            .world
            .take_callback_errors()
            .into_iter()
            .map(|e| (e.handle, e.kind))
            .collect();
        let want_errors: Vec<(MotionHandle, CallbackKind)> = std::mem::take(&mut self.model.errors)
            .into_iter()
            .map(|(id, kind)| (self.handle_of[&id], kind))
            .collect();
        Stats::add(&self.stats.panics, errors.len());
        prop_assert_eq!(errors, want_errors, "caught panics");
        prop_assert_eq!(
            self.world.dropped_callback_errors(),
            self.model.dropped_errors
        );

        // Every handle, and the state of the live ones.
        prop_assert_eq!(self.world.len(), self.model.motions.len(), "len");
        for &(id, h) in &self.issued {
            prop_assert!(self.world.is_valid(h));
            prop_assert_eq!(
                self.world.is_active(h),
                self.model.is_active(id),
                "is_active {}",
                id
            );
        }
        for m in &self.model.motions {
            let h = self.handle_of[&m.id];
            let eval = m.eval();
            prop_assert_eq!(
                self.world.status(h).ok(),
                self.model.status(m.id),
                "status of {} at T = {}",
                m.id,
                m.t
            );
            prop_assert_eq!(
                self.world.completed_loops(h).ok(),
                Some(eval.completed_loops),
                "completed loops of {} at T = {}",
                m.id,
                m.t
            );
            let time = self.world.time(h).unwrap();
            // docs/semantics.md §1: re-anchoring moves a clock by at most two steps of the
            // anchor grid, 2^-46 of the larger of the clock and the world time, times the
            // playback speed (the base is stored on the grid; the clock is (W − base) · speed),
            // which long runs make visible; speed changes since the clock was last set add theirs
            // (`drift`).
            let w = self.world.world_time(m.spec.time_kind);
            let grid = m.t.abs().max(w) * m.speed.abs().max(1.0) * 2f64.powi(-46);
            prop_assert!(
                (time - m.t).abs() <= 1e-9 * m.t.abs().max(1.0) + grid + m.drift,
                "clock of {}: world {}, model {}",
                m.id,
                time,
                m.t
            );
            let want = m.value_at(eval.p);
            let got = f64::from(self.world.value::<f32>(h).unwrap());
            prop_assert!(
                (got - want).abs() <= tolerance((m.spec.from, m.spec.to), want),
                "value of {} at T = {}: world {}, model {}",
                m.id,
                m.t,
                got,
                want
            );
        }
        Ok(())
    }
}

/// Runs one sequence; a failure names the step.
/// Whether runs on `exec` avoid the open bug of `ops::AVOID_PRESERVED_ZERO_DURATION_ON_GPU`.
fn avoids(exec: &Exec) -> bool {
    matches!(exec, Exec::Gpu(_)) && ops::AVOID_PRESERVED_ZERO_DURATION_ON_GPU
}

fn run_case(exec: &Exec, ops: &[Op], stats: &Arc<Stats>) -> Result<(), TestCaseError> {
    quiet_intentional_panics();
    let mut ops = ops.to_vec();
    ops.iter_mut().for_each(|op| op.sanitize(avoids(exec)));
    let mut case = Case::new(exec, Arc::clone(stats));
    for (step, op) in ops.iter().enumerate() {
        case.apply(op).map_err(|e| {
            // The operations up to the failing one, one per line (shrinking keeps the tail).
            let prefix: Vec<String> = ops[..=step].iter().map(|op| format!("{op:?}")).collect();
            TestCaseError::fail(format!(
                "step {step} ({op:?}): {e}\nops up to it:\n{}",
                prefix.join("\n")
            ))
        })?;
    }
    // The executor under test is still the one evaluating (no silent GPU fallback).
    prop_assert_eq!(
        case.world.active_executor(),
        match exec {
            Exec::Cpu => Executor::Cpu,
            Exec::Gpu(_) => Executor::Gpu,
        }
    );
    prop_assert_eq!(case.world.take_gpu_error(), None);
    Ok(())
}

fn cases(var: &str, default: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `count` random sequences of `len` operations on `exec`.
fn run_model(exec: &Exec, count: u32, len: std::ops::Range<usize>) {
    let config = Config {
        cases: count,
        source_file: Some(file!()),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/model.proptest-regressions"
        )))),
        // Each shrink step reruns a case; the failure message lists the operations up to
        // the failing one anyway. `MODEL_SHRINK` raises it to look for a shorter case.
        max_shrink_iters: cases("MODEL_SHRINK", 2_000),
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let stats = Arc::new(Stats::default());
    let start = Instant::now();
    let strategy = prop::collection::vec(ops::op(), len);
    let result = runner.run(&strategy, |ops| run_case(exec, &ops, &stats));
    let n = |c: &AtomicUsize| c.load(Ordering::Relaxed);
    println!(
        "model test on {}: {count} cases, {} operations ({} updates), {:.1} s; callbacks {} \
         (complete {}, loop {}, cancel {}), caught panics {}, spawned from callbacks {}, \
         most live motions {}",
        exec.name(),
        n(&stats.ops),
        n(&stats.updates),
        start.elapsed().as_secs_f64(),
        n(&stats.callbacks),
        n(&stats.completes),
        n(&stats.loops),
        n(&stats.cancels),
        n(&stats.panics),
        n(&stats.spawned),
        n(&stats.max_live),
    );
    if let Err(e) = result {
        panic!("{}: {e}", exec.name());
    }
}

/// The executor of `WGPU_TWEEN_EXECUTOR` (default: all available) that `want` picks.
fn executor(want: fn(&Exec) -> bool) -> Option<Exec> {
    common::executors().into_iter().find(want)
}

#[test]
fn model_cpu() {
    let Some(exec) = executor(|e| matches!(e, Exec::Cpu)) else {
        return;
    };
    // 1000 cases × 200..300 operations ≈ 250 000 operations (about 2.5 s in release).
    run_model(&exec, cases("MODEL_CASES", 1000), 200..300);
}

#[test]
fn model_gpu() {
    let Some(exec) = executor(|e| matches!(e, Exec::Gpu(_))) else {
        return;
    };
    // 200 cases × 100..150 operations ≈ 25 000 operations (about 3 s on lavapipe).
    run_model(&exec, cases("MODEL_GPU_CASES", 200), 100..150);
}

// ---------------------------------------------------------------------- regressions
//
// Minimal sequences the property test found, by hand, with the expected behaviour worked out
// from docs/semantics.md.

/// Counts of a motion's callbacks.
#[derive(Default)]
struct Counts {
    completes: AtomicUsize,
}

fn counted(motion: Motion<f32>, counts: &Arc<Counts>) -> Motion<f32> {
    let c = Arc::clone(counts);
    motion.on_complete(move || {
        c.completes.fetch_add(1, Ordering::SeqCst);
    })
}

/// §7: `complete` puts a zero-duration motion at its total duration, Completed. Changing its
/// speed afterwards keeps the clock (§7 `set_playback_speed`), so it stays Completed and the
/// next update fires nothing. Found by the model test: after enough world time (here
/// 4.25 s) the re-anchor rounded the clock back onto `T = d`, where §2's strict `tss > 0`
/// says "not completed": status Playing, and the next update completed it again (fixed).
#[test]
fn regression_complete_zero_duration_then_set_speed_stays_completed() {
    let mut world = MotionWorld::new();
    world.update(4.25).unwrap();
    let counts = Arc::new(Counts::default());
    let h = counted(Motion::new(0.0f32, 10.0, 0.0).preserve(), &counts)
        .run(&mut world)
        .unwrap();
    world.complete(h).unwrap();
    assert_eq!(counts.completes.load(Ordering::SeqCst), 1);
    assert_eq!(world.status(h), Ok(wgpu_tween::MotionStatus::Completed));
    world.set_playback_speed(h, 2.0).unwrap();
    let status = world.status(h);
    world.update(0.25).unwrap();
    let completes = counts.completes.load(Ordering::SeqCst);
    assert_eq!(
        (status, completes),
        (Ok(wgpu_tween::MotionStatus::Completed), 1),
        "status after set_playback_speed, complete callbacks after the next update"
    );
    assert_eq!(world.value::<f32>(h), Ok(10.0));
}

/// §7: `complete` completes any finite motion, whatever the world time. A zero-duration motion
/// needs its clock strictly past `d` (§2); the nudge must survive the anchor's rounding even
/// after a long run (the anchor keeps ~48 bits, so at W = 4096 s its resolution is ~1e-11 s).
/// Found while analysing the first failure: at W = 4096 s `complete` returned `Ok` but the
/// motion neither completed nor fired its callback (fixed).
#[test]
fn regression_complete_zero_duration_late_in_a_long_run() {
    for w in [1.0, 64.0, 1024.0, 4096.0, 100_000.0] {
        let mut world = MotionWorld::new();
        world.update(w).unwrap();
        let counts = Arc::new(Counts::default());
        let h = counted(Motion::new(0.0f32, 10.0, 0.0).delay(0.5), &counts)
            .run(&mut world)
            .unwrap();
        let result = world.complete(h);
        assert_eq!(
            (
                result,
                counts.completes.load(Ordering::SeqCst),
                world.is_active(h)
            ),
            (Ok(()), 1, false),
            "complete at world time {w}"
        );
    }
}

/// §2 Deviation: completed loops are a u32, saturating at `u32::MAX` for an infinite motion
/// whose clock is far ahead. Scheduling its next loop boundary must not overflow
/// (`src/world/events.rs`, `next_event_key`: `completed_loops + 1`): in a debug build that
/// panicked with "attempt to add with overflow" (found by the `ops` fuzz target; seed
/// `fuzz/seeds/ops/21_loop_count_saturation.bin`); in release it wrapped to loop 0, putting
/// the motion's next event in the past, so it was visited every update. Run this test
/// without `--release` to see the panic.
#[test]
fn regression_saturated_loop_count_schedules_without_overflow() {
    let mut world = MotionWorld::new();
    let loops = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&loops);
    let h = Motion::new(0.0f32, 1.0, 1.0)
        .loops(-1, wgpu_tween::LoopType::Restart)
        .on_loop_complete(move |_| {
            seen.fetch_add(1, Ordering::SeqCst);
        })
        .run(&mut world)
        .unwrap();
    world.set_time(h, 5e9).unwrap(); // 5e9 loops: saturates at u32::MAX
    assert_eq!(world.completed_loops(h), Ok(u32::MAX));
    assert_eq!(loops.load(Ordering::SeqCst), 1);
    for _ in 0..3 {
        world.update(1.0).unwrap();
    }
    assert_eq!(world.completed_loops(h), Ok(u32::MAX));
    assert_eq!(
        loops.load(Ordering::SeqCst),
        1,
        "the count cannot rise past u32::MAX"
    );
    // The same through a huge speed, as the fuzzer found it.
    world.set_time(h, 0.0).unwrap();
    world.set_playback_speed(h, 3.7e19).unwrap();
    world.update(1.0).unwrap();
    assert_eq!(world.completed_loops(h), Ok(u32::MAX));
}

/// §7 + §6 on the GPU executor: a preserved zero-duration motion that `complete` finished is
/// Completed, so every later update binds its end value, also while its clock stands still
/// (a zero step, or speed 0). Found by the model test on the GPU executor: the world said
/// Completed and ran the bind, but with the value the GPU computed for a clock of exactly
/// `T = d` (not completed by §2's strict `tss > 0`): the start value.
#[test]
fn regression_gpu_binds_the_end_value_of_a_completed_zero_duration_motion() {
    for exec in common::executors() {
        let mut world = exec.world();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        let h = Motion::new(0.0f32, 0.25, 0.0)
            .delay(0.0625)
            .preserve()
            .immediate_bind(false)
            .bind(&mut world, move |v| sink.lock().unwrap().push(v))
            .unwrap();
        world.complete(h).unwrap();
        world.update(0.0).unwrap();
        world.set_playback_speed(h, 0.0).unwrap();
        world.update(0.5).unwrap();
        world.update(100.0).unwrap();
        world.update(0.0).unwrap();
        assert_eq!(world.status(h), Ok(wgpu_tween::MotionStatus::Completed));
        assert_eq!(
            *seen.lock().unwrap(),
            [0.25; 5],
            "{}: binds after complete",
            exec.name()
        );
    }
}
