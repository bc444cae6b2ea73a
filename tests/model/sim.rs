//! The reference model of a world (docs/semantics.md §1, §6, §7): a `Vec` of motions in creation
//! order, each with its own f64 clock advanced by `T += dt · speed`, callbacks fired by the
//! §6 rules, structural changes from callbacks queued and applied in order afterwards.

use std::collections::VecDeque;

use wgpu_tween::{CallbackKind, MotionStatus};

use super::ops::{Action, Spec, Target, Trigger};
use super::reference::{ease, Eval, Timing};

/// One callback call, as both the model and the real callbacks record it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Entry {
    Bind(u32, f32),
    Loop(u32, u32),
    Complete(u32),
    Cancel(u32),
}

/// Why a handle operation fails, in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fail {
    Destroyed,
    InfiniteLoops,
    AlreadyCompleted,
    InvalidArgument,
    /// Beyond `MAX_TIME` (issue 16 item 4).
    OutOfRange,
}

/// A queued structural change, motions named by model id.
#[derive(Clone, Debug)]
pub enum Cmd {
    Cancel(Option<u32>),
    Complete(Option<u32>),
    SetTime(Option<u32>, f64),
    SetSpeed(Option<u32>, f32),
    Preserve(Option<u32>),
    Spawn(u32, Box<Spec>),
    Clear,
}

/// A live motion of the model.
#[derive(Clone, Debug)]
pub struct MMotion {
    pub id: u32,
    pub spec: Spec,
    pub timing: Timing,
    kind: usize,
    skip: bool,
    pub speed: f64,
    /// The clock, and whether it sits infinitesimally above that value (after `complete`).
    pub t: f64,
    above: bool,
    prev_t: f64,
    prev_above: bool,
    /// How far the library's clock may have drifted from `t` through re-anchors that keep
    /// the clock (`set_playback_speed`): docs/semantics.md §1 allows each one a move of
    /// 2^-46 of the larger of the clock and the world time, times the speed, and they add up
    /// until `set_time` or `complete` sets the clock afresh.
    pub drift: f64,
    preserve: bool,
    birth: u64,
    touched: bool,
    bind_calls: u32,
    fired: bool,
    me_known: bool,
}

impl MMotion {
    pub fn eval(&self) -> Eval {
        self.timing.eval(self.t, self.above)
    }

    pub fn value_at(&self, p: f64) -> f64 {
        let (from, to) = (f64::from(self.spec.from), f64::from(self.spec.to));
        from + (to - from) * p
    }
}

/// The model world.
#[derive(Default)]
pub struct Model {
    /// Live motions in creation order.
    pub motions: Vec<MMotion>,
    queue: VecDeque<Cmd>,
    settling: bool,
    pub updates: u64,
    /// World time of each time kind (the exact sum of the deltas).
    world: [f64; 3],
    pub next_id: u32,
    /// Callback calls since last drained.
    pub log: Vec<Entry>,
    /// Caught panics since last drained (at most 64 kept) and the count not kept.
    pub errors: Vec<(u32, CallbackKind)>,
    pub dropped_errors: u64,
    /// Ids of children spawned from callbacks (or queued spawns) since last drained.
    pub spawned: Vec<u32>,
    /// Model ids of the handles issued before the current operation (`Target::Issued`).
    pub snapshot: Vec<u32>,
    /// `(from, to)` of every motion ever inserted, by id (for value tolerances).
    pub ends: std::collections::HashMap<u32, (f32, f32)>,
    /// Ids of motions that must not be preserved (`ops::AVOID_PRESERVED_ZERO_DURATION_ON_GPU`).
    pub no_preserve: std::collections::HashSet<u32>,
    /// Whether this run avoids the open bug of `ops::AVOID_PRESERVED_ZERO_DURATION_ON_GPU`.
    pub avoid: bool,
}

fn binds_at(status: MotionStatus, skip: bool) -> bool {
    match status {
        MotionStatus::Playing | MotionStatus::Completed => true,
        MotionStatus::Delayed => !skip,
        MotionStatus::Scheduled | MotionStatus::Canceled => false,
    }
}

impl Model {
    pub fn new(avoid: bool) -> Self {
        Self {
            avoid,
            ..Self::default()
        }
    }

    pub fn index(&self, id: u32) -> Option<usize> {
        self.motions.iter().position(|m| m.id == id)
    }

    pub fn is_active(&self, id: u32) -> bool {
        self.index(id).is_some()
    }

    pub fn status(&self, id: u32) -> Option<MotionStatus> {
        let m = &self.motions[self.index(id)?];
        if m.birth == self.updates && !m.touched {
            return Some(MotionStatus::Scheduled);
        }
        Some(m.eval().status)
    }

    fn resolve(&self, i: usize, target: Target) -> Option<u32> {
        match target {
            Target::Me => self.motions[i].me_known.then_some(self.motions[i].id),
            Target::Issued(k) => {
                (!self.snapshot.is_empty()).then(|| self.snapshot[k % self.snapshot.len()])
            }
        }
    }

    /// Resolves an action of motion `i` (or of the test body, `i = None`) into a command.
    pub fn command(&mut self, i: Option<usize>, action: &Action) -> Cmd {
        let resolve = |t: Target| match i {
            Some(i) => self.resolve(i, t),
            None => match t {
                Target::Me => None,
                Target::Issued(k) => {
                    (!self.snapshot.is_empty()).then(|| self.snapshot[k % self.snapshot.len()])
                }
            },
        };
        match action {
            Action::Cancel(t) => Cmd::Cancel(resolve(*t)),
            Action::Complete(t) => Cmd::Complete(resolve(*t)),
            Action::SetTime(t, x) => Cmd::SetTime(resolve(*t), *x),
            Action::SetSpeed(t, s) => Cmd::SetSpeed(resolve(*t), *s),
            Action::Preserve(t) => {
                Cmd::Preserve(resolve(*t).filter(|id| !self.no_preserve.contains(id)))
            }
            Action::Clear => Cmd::Clear,
            Action::Spawn(spec) => {
                let id = self.next_id;
                self.next_id += 1;
                self.spawned.push(id);
                if spec.avoid_preserve(self.avoid) {
                    self.no_preserve.insert(id);
                }
                Cmd::Spawn(id, spec.clone())
            }
        }
    }

    pub fn enqueue(&mut self, cmd: Cmd) {
        self.queue.push_back(cmd);
    }

    fn error(&mut self, id: u32, kind: CallbackKind) {
        if self.errors.len() < 64 {
            self.errors.push((id, kind));
        } else {
            self.dropped_errors += 1;
        }
    }

    /// Runs motion `i`'s reaction if `trigger` matches and it has not run yet.
    fn react(&mut self, i: usize, trigger: Trigger) {
        let m = &self.motions[i];
        let Some(reaction) = m.spec.reaction.clone() else {
            return;
        };
        if m.fired || reaction.trigger != trigger {
            return;
        }
        self.motions[i].fired = true;
        let cmd = self.command(Some(i), &reaction.action);
        self.enqueue(cmd);
    }

    // ------------------------------------------------------------------ callbacks

    /// The bind; returns whether the motion lives on.
    fn call_bind(&mut self, i: usize, p: f64) -> bool {
        let value = self.motions[i].value_at(p) as f32;
        let m = &mut self.motions[i];
        let call = m.bind_calls;
        m.bind_calls += 1;
        let id = m.id;
        self.log.push(Entry::Bind(id, value));
        self.react(i, Trigger::Bind(call));
        let m = &self.motions[i];
        if m.spec.bind_panic.panics(call) {
            let cancel = m.spec.cancel_on_error;
            self.error(id, CallbackKind::Bind);
            if cancel {
                self.cancel_at(i);
                return false;
            }
        }
        true
    }

    /// Cancels the live motion at `i`: cancel callback, removed. (Its reaction only queues
    /// commands, so that it runs before the removal changes nothing.)
    fn cancel_at(&mut self, i: usize) {
        let m = &self.motions[i];
        let id = m.id;
        if m.spec.on_cancel {
            self.log.push(Entry::Cancel(id));
            self.react(i, Trigger::Cancel);
            if self.motions[i].spec.cancel_panic {
                self.error(id, CallbackKind::Cancel);
            }
        }
        self.motions.remove(i);
    }

    /// One step of motion `i` from `prev` to `now` (§6). Returns whether it lives on.
    fn fire(&mut self, i: usize, prev: Eval, now: Eval, bind: bool) -> bool {
        if bind && self.motions[i].spec.bind && !self.call_bind(i, now.p) {
            return false;
        }
        let m = &self.motions[i];
        let id = m.id;
        if now.completed_loops > prev.completed_loops && m.spec.on_loop {
            self.log.push(Entry::Loop(id, now.completed_loops));
            self.react(i, Trigger::Loop);
            if self.motions[i].spec.loop_panic {
                self.error(id, CallbackKind::LoopComplete);
            }
        }
        if now.completed() && !prev.completed() {
            if self.motions[i].spec.on_complete {
                self.log.push(Entry::Complete(id));
                self.react(i, Trigger::Complete);
                if self.motions[i].spec.complete_panic {
                    self.error(id, CallbackKind::Complete);
                }
            }
            if !self.motions[i].preserve {
                self.motions.remove(i);
                return false;
            }
        }
        true
    }

    // ------------------------------------------------------------------ operations

    /// Adds a motion at clock 0 and runs its immediate bind (no settling).
    pub fn insert(&mut self, id: u32, spec: Spec, me_known: bool) {
        let (delay, delay_type, skip) = spec.delay.resolved();
        let timing = Timing {
            duration: f64::from(spec.duration),
            delay: f64::from(delay),
            delay_type,
            loops: spec.loops,
            loop_type: spec.loop_type,
            ease: spec.ease,
        };
        self.ends.insert(id, (spec.from, spec.to));
        self.motions.push(MMotion {
            id,
            timing,
            kind: spec.time_kind as usize,
            skip,
            speed: f64::from(spec.speed),
            t: 0.0,
            above: false,
            prev_t: 0.0,
            prev_above: false,
            drift: 0.0,
            preserve: spec.preserve,
            birth: self.updates,
            touched: false,
            bind_calls: 0,
            fired: false,
            me_known,
            spec,
        });
        let i = self.motions.len() - 1;
        let m = &self.motions[i];
        if m.spec.bind && m.spec.immediate_bind {
            let p = ease(m.timing.ease, 0.0);
            self.call_bind(i, p);
        }
    }

    /// A motion created by the test body: insert, then settle; its handle is known after.
    pub fn create(&mut self, spec: Spec) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        if spec.avoid_preserve(self.avoid) {
            self.no_preserve.insert(id);
        }
        self.insert(id, spec, false);
        self.settle();
        if let Some(i) = self.index(id) {
            self.motions[i].me_known = true;
        }
        id
    }

    pub fn update(&mut self, dt: [f64; 3]) {
        self.settle();
        self.updates += 1;
        for (w, dt) in self.world.iter_mut().zip(dt) {
            *w += dt;
        }
        if self.motions.is_empty() {
            return;
        }
        for m in &mut self.motions {
            m.prev_t = m.t;
            m.prev_above = m.above;
            let step = dt[m.kind] * m.speed;
            m.t += step;
            if step != 0.0 {
                m.above = false;
            }
        }
        self.settling = true;
        let order: Vec<u32> = self.motions.iter().map(|m| m.id).collect();
        for id in order {
            let Some(i) = self.index(id) else { continue };
            let m = &self.motions[i];
            let prev = m.timing.eval(m.prev_t, m.prev_above);
            let now = m.eval();
            let bind = binds_at(now.status, m.skip);
            self.fire(i, prev, now, bind);
        }
        self.settling = false;
        self.settle();
    }

    /// Applies queued commands, in order, until none are left.
    pub fn settle(&mut self) {
        if self.settling {
            return;
        }
        self.settling = true;
        while let Some(cmd) = self.queue.pop_front() {
            match cmd {
                Cmd::Cancel(id) => {
                    let _ = self.cancel(id);
                }
                Cmd::Complete(id) => {
                    let _ = self.complete(id);
                }
                Cmd::SetTime(id, t) => {
                    let _ = self.set_time(id, t);
                }
                Cmd::SetSpeed(id, s) => {
                    let _ = self.set_speed(id, s);
                }
                Cmd::Preserve(id) => {
                    let _ = self.preserve(id);
                }
                Cmd::Spawn(id, spec) => self.insert(id, *spec, true),
                Cmd::Clear => self.motions.clear(),
            }
        }
        self.settling = false;
    }

    /// `world.clear()`: queued commands dropped, every motion gone, no callbacks.
    pub fn clear(&mut self) {
        self.queue.clear();
        self.motions.clear();
    }

    fn live(&self, id: Option<u32>) -> Result<usize, Fail> {
        id.and_then(|id| self.index(id)).ok_or(Fail::Destroyed)
    }

    pub fn cancel(&mut self, id: Option<u32>) -> Result<(), Fail> {
        let i = self.live(id)?;
        self.cancel_at(i);
        Ok(())
    }

    pub fn complete(&mut self, id: Option<u32>) -> Result<(), Fail> {
        let i = self.live(id)?;
        let m = &self.motions[i];
        if m.timing.loops < 0 {
            return Err(Fail::InfiniteLoops);
        }
        let prev = m.eval();
        if prev.completed() {
            return Err(Fail::AlreadyCompleted);
        }
        let m = &mut self.motions[i];
        m.t = m.timing.total();
        m.above = true;
        m.drift = 0.0;
        m.touched = true;
        let now = m.eval();
        assert!(now.completed(), "model: complete did not complete {m:?}");
        self.fire(i, prev, now, true);
        Ok(())
    }

    pub fn set_time(&mut self, id: Option<u32>, t: f64) -> Result<(), Fail> {
        let i = self.live(id)?;
        if !t.is_finite() {
            return Err(Fail::InvalidArgument);
        }
        if t.abs() > wgpu_tween::MAX_TIME {
            return Err(Fail::OutOfRange);
        }
        let m = &mut self.motions[i];
        let prev = m.eval();
        m.t = t;
        m.above = false;
        m.drift = 0.0;
        m.touched = true;
        let now = m.eval();
        let bind = binds_at(now.status, m.skip);
        self.fire(i, prev, now, bind);
        Ok(())
    }

    pub fn set_speed(&mut self, id: Option<u32>, speed: f32) -> Result<(), Fail> {
        let i = self.live(id)?;
        if !speed.is_finite() {
            return Err(Fail::InvalidArgument);
        }
        let w = self.world[self.motions[i].kind];
        let m = &mut self.motions[i];
        let speeds = m.speed.abs().max(f64::from(speed).abs()).max(1.0);
        m.drift += m.t.abs().max(w) * speeds * 2f64.powi(-46);
        m.speed = f64::from(speed);
        Ok(())
    }

    pub fn preserve(&mut self, id: Option<u32>) -> Result<(), Fail> {
        let i = self.live(id)?;
        self.motions[i].preserve = true;
        Ok(())
    }
}
