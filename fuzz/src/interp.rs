//! Byte interpreters for fuzzing, shared by the cargo-fuzz targets (`fuzz_targets/`) and the
//! corpus replay test (`tests/model/fuzz_corpus.rs`, which includes this file by path).
//!
//! - [`run_ops`]: builder settings and world/handle operations driven by bytes. Errors are
//!   fine; a panic (other than the callbacks' own, deliberate ones, which the world must
//!   catch) or a broken invariant is a finding.
//! - [`run_ease`]: eases on arbitrary `f32` (NaN and infinities included), animation curves
//!   from arbitrary keys, and the progress of arbitrary motion rows. Never panics; for
//!   finite `x` in `[0, 1]` an ease is finite, a curve that builds is finite at any finite
//!   `x`, and a row the builder could have made gives finite progress at any finite clock.
//!
//! Encoding: every read past the end yields zeros, so any byte string is a program. Numbers
//! come through a tag byte that picks raw bits or an interesting value (NaN, ±∞, 0, -0,
//! denormals, `f32::MAX`, small sixteenths), so short inputs reach the edge cases.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use glam::{Vec2, Vec3, Vec4};
use wgpu_tween::internals::{progress, MotionRow};
use wgpu_tween::{
    Animatable, AnimationCurve, DelayType, Ease, Keyframe, LoopType, Motion, MotionCommands,
    MotionHandle, MotionStatus, MotionWorld, Sequence, TimeDeltas, TimeKind, WeightedMode,
    WrapMode,
};

/// Deliberate callback panics carry this text (a fuzz target's panic hook lets them unwind
/// into the world's `catch_unwind` instead of aborting).
pub const INTENTIONAL: &str = "intentional fuzz panic";

/// Most operations one input runs (keeps every input fast).
const MAX_OPS: usize = 2048;
/// Most motions spawned from callbacks per input.
const MAX_SPAWNS: usize = 256;

/// A cursor over the input; reads past the end give 0.
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    pub fn done(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos = self.pos.saturating_add(1);
        b
    }

    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    pub fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | u64::from(self.u32()) << 32
    }

    /// An `f32`: raw bits, or an interesting value.
    pub fn f32(&mut self) -> f32 {
        match self.u8() % 12 {
            0 => f32::from_bits(self.u32()),
            1 => 0.0,
            2 => -0.0,
            3 => f32::NAN,
            4 => f32::INFINITY,
            5 => f32::NEG_INFINITY,
            6 => f32::MAX,
            7 => f32::from_bits(1), // smallest denormal
            8 => -f32::from(self.u8()) / 16.0,
            9 => f32::from(self.u8()) * 64.0,
            _ => f32::from(self.u8()) / 16.0,
        }
    }

    /// An `f64`: raw bits, or an interesting value.
    pub fn f64(&mut self) -> f64 {
        match self.u8() % 12 {
            0 => f64::from_bits(self.u64()),
            1 => 0.0,
            2 => -0.0,
            3 => f64::NAN,
            4 => f64::INFINITY,
            5 => f64::NEG_INFINITY,
            6 => f64::MAX,
            7 => 1e300,
            8 => -f64::from(self.u8()) / 16.0,
            9 => f64::from(self.u32()),
            _ => f64::from(self.u8()) / 16.0,
        }
    }

    pub fn ease(&mut self) -> Ease {
        Ease::ALL[usize::from(self.u8()) % Ease::ALL.len()]
    }

    pub fn loop_type(&mut self) -> LoopType {
        LoopType::ALL[usize::from(self.u8() % 4)]
    }

    pub fn time_kind(&mut self) -> TimeKind {
        TimeKind::ALL[usize::from(self.u8() % 3)]
    }

    /// A loop count: mostly small, sometimes raw (0 and below -1 included).
    pub fn loops(&mut self) -> i32 {
        match self.u8() % 4 {
            0 => -1,
            1 => self.u32() as i32,
            _ => i32::from(self.u8() % 6),
        }
    }
}

/// What one input did (for the replay test's summary).
#[derive(Clone, Copy, Debug, Default)]
pub struct Report {
    pub ops: usize,
    pub created: usize,
    pub build_errors: usize,
    pub op_errors: usize,
    pub caught_panics: usize,
}

/// Something a callback does once, chosen from the input when the motion is built.
#[derive(Clone, Copy, Debug)]
struct Reaction {
    kind: u8,
    target: u32,
    time: f64,
    speed: f32,
}

/// What every callback of one input shares.
struct Shared {
    handles: Mutex<Vec<MotionHandle>>,
    commands: MotionCommands,
    spawns: AtomicUsize,
}

impl Shared {
    fn handles(&self) -> std::sync::MutexGuard<'_, Vec<MotionHandle>> {
        self.handles.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn pick(&self, k: u32) -> MotionHandle {
        let handles = self.handles();
        if handles.is_empty() {
            MotionHandle::NONE
        } else {
            handles[k as usize % handles.len()]
        }
    }

    /// Queues `reaction` (from a callback, or from the test body).
    fn react(self: &Arc<Self>, r: Reaction) {
        let h = self.pick(r.target);
        let c = &self.commands;
        match r.kind % 8 {
            0 => c.cancel(h),
            1 => c.complete(h),
            2 => c.set_time(h, r.time),
            3 => c.set_playback_speed(h, r.speed),
            4 => c.preserve(h),
            5 => c.clear(),
            _ => {
                if self.spawns.fetch_add(1, Ordering::Relaxed) < MAX_SPAWNS {
                    let child = Motion::new(0.0f32, r.speed, r.time as f32)
                        .loops(1 + (r.target % 3) as i32, LoopType::Yoyo);
                    let child = if r.kind & 8 != 0 {
                        // The child reacts in turn (a bounded chain: spawns are budgeted).
                        let shared = Arc::clone(self);
                        let next = Reaction {
                            kind: r.kind.rotate_left(3),
                            target: r.target.wrapping_mul(31).wrapping_add(7),
                            ..r
                        };
                        child.on_complete(move || shared.react(next))
                    } else {
                        child
                    };
                    if let Ok(h) = child.bind_deferred(c, |_| {}) {
                        self.handles().push(h);
                    }
                }
            }
        }
    }
}

/// Callback settings read from the input.
struct CallbackPlan {
    bind: bool,
    /// Bit 0: bind panics on odd calls; 1: complete panics; 2: cancel panics; 3: loop panics.
    panics: u8,
    complete: bool,
    cancel: bool,
    looped: bool,
    reaction: Option<(u8, Reaction)>,
}

impl CallbackPlan {
    fn read(b: &mut Bytes<'_>) -> Self {
        let flags = b.u8();
        let reaction = (flags & 0x80 != 0).then(|| {
            let trigger = b.u8() % 4;
            let r = Reaction {
                kind: b.u8(),
                target: b.u32(),
                time: b.f64(),
                speed: b.f32(),
            };
            (trigger, r)
        });
        Self {
            bind: flags & 1 != 0,
            panics: if flags & 2 != 0 { b.u8() } else { 0 },
            complete: flags & 4 != 0,
            cancel: flags & 8 != 0,
            looped: flags & 16 != 0,
            reaction,
        }
    }
}

/// Adds the planned callbacks to `m`; returns the motion and its bind.
fn with_callbacks<T: Animatable>(
    mut m: Motion<T>,
    plan: &CallbackPlan,
    shared: &Arc<Shared>,
) -> (Motion<T>, Option<impl FnMut(T) + Send + 'static>) {
    let fired = Arc::new(AtomicBool::new(false));
    let fire = {
        let (shared, fired, reaction) = (Arc::clone(shared), fired, plan.reaction);
        move |trigger: u8| {
            if let Some((t, r)) = reaction {
                if t == trigger && !fired.swap(true, Ordering::Relaxed) {
                    shared.react(r);
                }
            }
        }
    };
    let fire = Arc::new(fire);
    if plan.complete {
        let (fire, panics) = (Arc::clone(&fire), plan.panics & 2 != 0);
        m = m.on_complete(move || {
            fire(1);
            if panics {
                panic!("{INTENTIONAL}: complete");
            }
        });
    }
    if plan.cancel {
        let (fire, panics) = (Arc::clone(&fire), plan.panics & 4 != 0);
        m = m.on_cancel(move || {
            fire(2);
            if panics {
                panic!("{INTENTIONAL}: cancel");
            }
        });
    }
    if plan.looped {
        let (fire, panics) = (Arc::clone(&fire), plan.panics & 8 != 0);
        m = m.on_loop_complete(move |_| {
            fire(3);
            if panics {
                panic!("{INTENTIONAL}: loop");
            }
        });
    }
    let bind = plan.bind.then(|| {
        let (fire, panics) = (Arc::clone(&fire), plan.panics & 1 != 0);
        let mut calls = 0u32;
        move |_: T| {
            calls = calls.wrapping_add(1);
            fire(0);
            if panics && calls.is_multiple_of(2) {
                panic!("{INTENTIONAL}: bind");
            }
        }
    });
    (m, bind)
}

/// Reads builder settings for a motion of `T` from the input.
fn builder<T: Animatable>(b: &mut Bytes<'_>, from: T, to: T) -> Motion<T> {
    let mut m = Motion::new(from, to, b.f32());
    let settings = b.u8();
    if settings & 1 != 0 {
        m = m.ease(b.ease());
    }
    if settings & 2 != 0 {
        m = m.delay(b.f32());
    }
    if settings & 4 != 0 {
        let delay = b.f32();
        let delay_type = if b.bool() {
            DelayType::EveryLoop
        } else {
            DelayType::FirstLoop
        };
        m = m.delay_with(delay, delay_type, b.bool());
    }
    if settings & 8 != 0 {
        m = m.loops(b.loops(), b.loop_type());
    }
    if settings & 16 != 0 {
        m = m.playback_speed(b.f32());
    }
    if settings & 32 != 0 {
        m = m.time_kind(b.time_kind());
    }
    if settings & 64 != 0 {
        m = m.preserve();
    }
    if settings & 128 != 0 {
        m = m
            .immediate_bind(b.bool())
            .cancel_on_error(b.bool())
            .debug_name("fuzz");
    }
    m
}

fn lanes4(b: &mut Bytes<'_>) -> Vec4 {
    Vec4::new(b.f32(), b.f32(), b.f32(), b.f32())
}

/// Builds a motion of `T` and adds it to the world (or queues it through commands).
fn create<T: Animatable>(
    b: &mut Bytes<'_>,
    world: &mut MotionWorld,
    shared: &Arc<Shared>,
    from: T,
    to: T,
    report: &mut Report,
) {
    let m = builder(b, from, to);
    let plan = CallbackPlan::read(b);
    let deferred = b.u8().is_multiple_of(4);
    let (m, bind) = with_callbacks(m, &plan, shared);
    let result = match (bind, deferred) {
        (Some(bind), false) => m.bind(world, bind),
        (None, false) => m.run(world),
        (Some(bind), true) => m.bind_deferred(&shared.commands, bind),
        (None, true) => m.run_deferred(&shared.commands),
    };
    match result {
        Ok(h) => {
            report.created += 1;
            shared.handles().push(h);
        }
        Err(_) => report.build_errors += 1,
    }
}

/// Checks what must hold between operations. A failure is a finding (panics).
fn check(world: &MotionWorld, shared: &Shared) {
    let handles = shared.handles().clone();
    let mut active = 0;
    for &h in &handles {
        if world.is_active(h) {
            active += 1;
            assert!(world.status(h).is_ok(), "active {h:?} has no status");
            assert!(world.time(h).is_ok(), "active {h:?} has no clock");
        } else {
            assert!(world.status(h).is_err(), "inactive {h:?} has a status");
        }
    }
    // Every motion of the world was issued to us, so the live ones are exactly the active
    // handles.
    assert_eq!(active, world.len(), "active handles vs len");
}

/// A step in `(0, 4)` s from the input, nonzero: bits of a fraction, so not dyadic-tidy.
fn positive_step(b: &mut Bytes<'_>) -> f64 {
    (f64::from(b.u32()) + 1.0) / f64::from(u32::MAX) * 4.0
}

/// Issue 16 item 1: a zero-duration motion created now, at whatever world time, completes
/// (once) at the next update that moves time forward (on the anchor grid: after about 2^72 s
/// of world time a step of seconds is below its resolution). No reaction can reach it (its handle
/// is not shared), but a queued `clear` can remove it first.
fn zero_duration_completes(b: &mut Bytes<'_>, world: &mut MotionWorld) {
    let count = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&count);
    let Ok(h) = Motion::new(0.0f32, 1.0, 0.0)
        .on_complete(move || {
            c.fetch_add(1, Ordering::SeqCst);
        })
        .run(world)
    else {
        return;
    };
    // Gone already if a queued `clear` was applied when it was made.
    let Ok(time) = world.time(h) else { return };
    assert_eq!(time, 0.0, "clock at creation");
    let dt = positive_step(b);
    let before = world.world_time(TimeKind::Scaled);
    if world.update(dt).is_ok() && world.world_time(TimeKind::Scaled) > before {
        assert!(
            !world.is_active(h),
            "zero-duration motion still live after {dt}"
        );
        assert!(count.load(Ordering::SeqCst) <= 1, "completed twice");
    } else {
        let _ = world.cancel(h);
    }
}

/// Issue 16 item 2: pausing (speed 0) and resuming keeps a fresh motion's clock, within the
/// anchor grid's resolution, however long the pause and whatever the world time.
fn pause_resume_keeps_clock(b: &mut Bytes<'_>, world: &mut MotionWorld) {
    let Ok(h) = Motion::new(0.0f32, 1.0, 1e6).run(world) else {
        return;
    };
    let _ = world.update(positive_step(b));
    let Ok(paused) = world.time(h) else { return };
    if world.set_playback_speed(h, 0.0).is_err() {
        return;
    }
    let _ = world.update(positive_step(b) * f64::from(b.u8()));
    let speed = f32::from(b.u8() % 8 + 1) / 4.0;
    if world.set_playback_speed(h, speed).is_ok() {
        if let Ok(resumed) = world.time(h) {
            let w = world.world_time(TimeKind::Scaled);
            let grid = 2f64.powi(-45) * w.max(paused.abs()).max(1.0);
            assert!(
                (resumed - paused).abs() <= grid,
                "paused at {paused}, resumed at {resumed} (W = {w})"
            );
        }
    }
    let _ = world.cancel(h);
}

/// Issue 16 item 4: `set_time` near and past the time limit either refuses or leaves a
/// finite clock and value.
fn set_time_near_limits(b: &mut Bytes<'_>, world: &mut MotionWorld, h: MotionHandle) {
    let limit = wgpu_tween::MAX_TIME;
    let scale = [0.5, 1.0, 1.000_001, 2.0, 1.8e19][usize::from(b.u8() % 5)];
    let t = if b.bool() {
        -limit * scale
    } else {
        limit * scale
    };
    if world.set_time(h, t).is_ok() {
        if let Ok(time) = world.time(h) {
            assert!(
                time.is_finite() && time.abs() <= limit * 1.01,
                "clock {time}"
            );
        }
        if let Ok(v) = world.value::<f32>(h) {
            assert!(v.is_finite(), "value {v} after set_time {t}");
        }
    }
}

/// Runs the operations encoded in `data` on a fresh world.
pub fn run_ops(data: &[u8]) -> Report {
    let mut b = Bytes::new(data);
    let mut world = MotionWorld::new();
    world.set_cpu_threads(1);
    let shared = Arc::new(Shared {
        handles: Mutex::new(Vec::new()),
        commands: world.commands(),
        spawns: AtomicUsize::new(0),
    });
    let mut other = MotionWorld::new();
    let foreign = Motion::new(0.0f32, 1.0, 1.0).run(&mut other).ok();
    let mut report = Report::default();

    while !b.done() && report.ops < MAX_OPS {
        report.ops += 1;
        let op = b.u8();
        let pick = |b: &mut Bytes<'_>, shared: &Shared| -> MotionHandle {
            match b.u8() {
                255 => MotionHandle::NONE,
                254 => foreign.unwrap_or(MotionHandle::NONE),
                _ => shared.pick(b.u32()),
            }
        };
        let ok = |r: Result<(), wgpu_tween::MotionError>, report: &mut Report| {
            if r.is_err() {
                report.op_errors += 1;
            }
        };
        match op % 21 {
            0..=2 => {
                let (from, to) = (b.f32(), b.f32());
                create(&mut b, &mut world, &shared, from, to, &mut report);
            }
            3 => {
                let (from, to) = (lanes4(&mut b), lanes4(&mut b));
                match b.u8() % 3 {
                    0 => create(
                        &mut b,
                        &mut world,
                        &shared,
                        from.truncate().truncate(),
                        to.truncate().truncate(),
                        &mut report,
                    ),
                    1 => create(
                        &mut b,
                        &mut world,
                        &shared,
                        from.truncate(),
                        to.truncate(),
                        &mut report,
                    ),
                    _ => create(&mut b, &mut world, &shared, from, to, &mut report),
                }
            }
            4..=6 => {
                let dt = b.f64();
                let before = TimeKind::ALL.map(|k| world.world_time(k));
                if world.update(dt).is_err() {
                    report.op_errors += 1;
                    let after = TimeKind::ALL.map(|k| world.world_time(k));
                    assert_eq!(
                        before.map(f64::to_bits),
                        after.map(f64::to_bits),
                        "a refused update moved time"
                    );
                }
            }
            7 => {
                let deltas = TimeDeltas {
                    scaled: b.f64(),
                    unscaled: b.f64(),
                    realtime: b.f64(),
                };
                if world.update_with(deltas).is_err() {
                    report.op_errors += 1;
                }
            }
            8 => {
                let h = pick(&mut b, &shared);
                if b.bool() {
                    ok(world.cancel(h), &mut report);
                } else {
                    world.try_cancel(h);
                }
            }
            9 => {
                let h = pick(&mut b, &shared);
                if b.bool() {
                    ok(world.complete(h), &mut report);
                } else {
                    world.try_complete(h);
                }
            }
            10 => {
                let h = pick(&mut b, &shared);
                let t = b.f64();
                ok(world.set_time(h, t), &mut report);
            }
            11 => {
                let h = pick(&mut b, &shared);
                let s = b.f32();
                ok(world.set_playback_speed(h, s), &mut report);
            }
            12 => {
                let h = pick(&mut b, &shared);
                ok(world.preserve(h), &mut report);
            }
            13 => match b.u8() % 4 {
                0 => {
                    world.clear();
                    assert_eq!(world.len(), 0, "clear left motions");
                }
                1 => zero_duration_completes(&mut b, &mut world),
                2 => pause_resume_keeps_clock(&mut b, &mut world),
                _ => {
                    let h = pick(&mut b, &shared);
                    set_time_near_limits(&mut b, &mut world, h);
                }
            },
            14 => world.reserve(usize::from(b.u8()) * 16),
            15 => {
                // Queries: none may panic, whatever the handle or the type asked for.
                let h = pick(&mut b, &shared);
                let _ = world.status(h);
                let _ = world.time(h);
                let _ = world.completed_loops(h);
                let _ = world.progress(h);
                let _ = world.duration(h);
                let _ = world.total_duration(h);
                let _ = world.playback_speed(h);
                let _ = world.is_playing(h);
                let _ = world.is_valid(h);
                let _ = world.value::<f32>(h);
                let _ = world.value::<Vec2>(h);
                let _ = world.value::<Vec3>(h);
                let _ = world.value::<Vec4>(h);
            }
            16 | 17 => {
                // A command queued from outside any callback.
                let r = Reaction {
                    kind: b.u8(),
                    target: b.u32(),
                    time: b.f64(),
                    speed: b.f32(),
                };
                shared.react(r);
            }
            18 => {
                report.caught_panics += world.take_callback_errors().len();
                let _ = world.dropped_callback_errors();
            }
            20 => {
                // A sequence of up to four picked motions (most refused: stale, started,
                // infinite, already in one), placed every way, maybe looping.
                let mut sequence = Sequence::new();
                for _ in 0..(b.u8() % 5) {
                    let h = pick(&mut b, &shared);
                    sequence = match b.u8() % 4 {
                        0 => sequence.append(h),
                        1 => sequence.join(h),
                        2 => sequence.insert(b.f32(), h),
                        _ => sequence.append_interval(b.f32()),
                    };
                }
                let (loops, loop_type, ease) = (i32::from(b.u8() % 4) - 1, b.loop_type(), b.ease());
                let built = sequence.run_with(&mut world, |m| m.loops(loops, loop_type).ease(ease));
                match built {
                    Ok(h) => shared.handles().push(h),
                    Err(_) => report.build_errors += 1,
                }
            }
            _ => {
                // A burst of small updates.
                for _ in 0..(b.u8() % 16) {
                    let _ = world.update(f64::from(b.u8()) / 64.0);
                }
            }
        }
        check(&world, &shared);
    }
    // Run everything out: the world must still update.
    for _ in 0..4 {
        let _ = world.update(1.0);
    }
    check(&world, &shared);
    world.clear();
    assert_eq!(world.len(), 0);
    for h in shared.handles().iter() {
        assert!(!world.is_active(*h), "{h:?} survived clear");
    }
    report.caught_panics += world.take_callback_errors().len();
    report
}

/// A row as the builder could have made it.
fn plausible(row: &MotionRow) -> bool {
    row.duration.is_finite()
        && row.duration >= 0.0
        && row.delay.is_finite()
        && row.delay >= 0.0
        && row.speed.is_finite()
        && (row.loops == -1 || row.loops >= 1)
        && row.base_hi.is_finite()
        && row.base_lo.is_finite()
}

/// An animation curve from arbitrary keys and wrap modes: building it is an error or a
/// curve that is finite at every finite `x` (and never panics).
fn curve_checks(b: &mut Bytes<'_>) {
    let n = usize::from(b.u8() % 6);
    let modes = [
        WeightedMode::None,
        WeightedMode::In,
        WeightedMode::Out,
        WeightedMode::Both,
    ];
    let keys: Vec<Keyframe> = (0..n)
        .map(|_| {
            Keyframe::with_tangents(b.f32(), b.f32(), b.f32(), b.f32())
                .weights(b.f32(), b.f32())
                .weighted_mode(modes[usize::from(b.u8() % 4)])
        })
        .collect();
    let wraps = [WrapMode::Clamp, WrapMode::Loop, WrapMode::PingPong];
    let (pre, post) = (
        wraps[usize::from(b.u8() % 3)],
        wraps[usize::from(b.u8() % 3)],
    );
    let Ok(curve) = AnimationCurve::new(keys) else {
        return;
    };
    let curve = curve.pre_wrap(pre).post_wrap(post);
    for _ in 0..4 {
        let x = b.f32();
        let y = curve.evaluate(x);
        if x.is_finite() {
            assert!(y.is_finite(), "{curve:?} at {x}: {y}");
        }
    }
}

/// Eases, curves and progress on arbitrary input.
pub fn run_ease(data: &[u8]) -> usize {
    let mut b = Bytes::new(data);
    let mut checks = 0;
    while !b.done() && checks < 4096 {
        checks += 1;
        let op = b.u8();
        if op % 4 == 3 {
            curve_checks(&mut b);
        } else if op.is_multiple_of(2) {
            let ease = b.ease();
            let x = b.f32();
            let y = ease.evaluate(x);
            if x.is_finite() && (0.0..=1.0).contains(&x) {
                assert!(y.is_finite(), "{ease:?}({x}) = {y}");
            }
            let _ = ease.name().parse::<Ease>();
        } else {
            let row = MotionRow {
                base_hi: b.f32(),
                base_lo: b.f32(),
                speed: b.f32(),
                duration: b.f32(),
                delay: b.f32(),
                loops: b.loops(),
                flags: if b.bool() {
                    b.u32()
                } else {
                    // Valid settings: ease, loop type, delay type, time kind, one lane.
                    u32::from(b.u8() % 31)
                        | u32::from(b.u8() % 4) << 8
                        | u32::from(b.u8() % 2) << 10
                        | u32::from(b.u8() % 3) << 11
                },
                params: 0,
            };
            let time = b.f64();
            let p = progress(&row, time);
            let _ = row.total_duration();
            let w = b.f64();
            let _ = row.clock(w);
            let mut anchored = row;
            anchored.anchor(w, time);
            if plausible(&row) && time.is_finite() {
                assert!(
                    p.eased.is_finite() && (0.0..=1.0).contains(&p.linear),
                    "{row:?} at {time}: {p:?}"
                );
                assert!(
                    matches!(
                        p.status,
                        MotionStatus::Delayed | MotionStatus::Playing | MotionStatus::Completed
                    ),
                    "{p:?}"
                );
                if row.loops >= 1 {
                    assert!(
                        p.completed_loops <= row.loops as u32,
                        "{row:?} at {time}: {p:?}"
                    );
                }
            }
        }
    }
    checks
}
