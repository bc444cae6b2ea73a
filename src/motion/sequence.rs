//! Sequences: one motion whose clock drives other motions placed at positions on it
//! (docs/semantics.md §8).
//!
//! A sequence is an ordinary `f32` motion from 0 to its length `D` over `D` seconds. Its
//! children keep their own settings (ease, delay, loops, callbacks) but not their own clocks:
//! a child at position `s` reads `T_child = v − s`, where `v` is the sequence's value. So
//! easing, looping, delaying or speeding up the sequence plays every child accordingly
//! (Yoyo and Flip loops replay them backwards), and a child's state stays a pure function of
//! world time, which the GPU pass evaluates in the same dispatch as every other motion.

use crate::core::handle::MotionHandle;
use crate::core::row::MotionRow;
use crate::core::value::Animatable;
use crate::error::{BuildError, SequenceChildError};
use crate::eval::progress;
use crate::motion::builder::{Motion, SharedBind};
use crate::world::built::BuiltMotion;
use crate::world::commands::{Command, Deferred, DeferredSpawn};
use crate::world::completion::Resolver;
pub use crate::world::sequence::MAX_SEQUENCE_DEPTH;
use crate::world::sequence::{child_row_error, Placed};
use crate::world::{MotionCommands, MotionWorld};

/// One placement, resolved against the world when the sequence runs (a child's length is
/// its total duration, which the world knows).
#[derive(Clone, Debug)]
enum Item {
    Append(SequenceChild),
    Join(SequenceChild),
    Insert(f32, SequenceChild),
    Interval(f32),
}

/// A child of a [`Sequence`]: a motion already in the world (its [`MotionHandle`]), or a
/// [`Motion`] not in any world, which the sequence adds each time it runs (so a sequence of
/// such children is a template: clone it, run it any number of times).
///
/// A motion's clones share its callbacks, and the runs of a template share a child's bind
/// ([`bound`](Self::bound)): each run calls the same closures.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use wgpu_tween::{Motion, MotionWorld, Sequence, SequenceChild};
///
/// let x = Arc::new(Mutex::new(0.0f32));
/// let sink = Arc::clone(&x);
/// let wiggle = Sequence::new()
///     .append(SequenceChild::bound(Motion::new(0.0f32, 10.0, 1.0), move |v| {
///         *sink.lock().unwrap() = v;
///     }))
///     .append(Motion::new(0.0f32, 1.0, 1.0)); // unbound: read it by handle or target
/// let mut world = MotionWorld::new();
/// for _ in 0..2 {
///     wiggle.clone().run(&mut world)?; // 1 sequence + 2 children each time
/// }
/// assert_eq!(world.len(), 6);
/// world.update(0.5)?;
/// assert_eq!(*x.lock().unwrap(), 5.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SequenceChild(Child);

enum Child {
    Handle(MotionHandle),
    Template(Box<dyn Template>),
}

/// A motion the sequence builds anew each time it runs.
trait Template: Send {
    fn build(&self, world: &MotionWorld) -> Result<BuiltMotion, BuildError>;
    fn clone_box(&self) -> Box<dyn Template>;
}

struct MotionTemplate<T: Animatable> {
    motion: Motion<T>,
    bind: Option<SharedBind<T>>,
}

impl<T: Animatable> Template for MotionTemplate<T> {
    fn build(&self, world: &MotionWorld) -> Result<BuiltMotion, BuildError> {
        self.motion.build_template(world, self.bind.as_ref())
    }

    fn clone_box(&self) -> Box<dyn Template> {
        Box::new(MotionTemplate {
            motion: self.motion.clone(),
            bind: self.bind.clone(),
        })
    }
}

impl SequenceChild {
    /// `motion`, calling `bind` with its value in every update that produces one, in each
    /// run of the sequence.
    pub fn bound<T: Animatable>(motion: Motion<T>, bind: impl FnMut(T) + Send + 'static) -> Self {
        let bind: Box<dyn FnMut(T) + Send> = Box::new(bind);
        Self::shared(motion, std::sync::Arc::new(std::sync::Mutex::new(bind)))
    }

    /// `motion` calling a bind that other children may share.
    pub(crate) fn shared<T: Animatable>(motion: Motion<T>, bind: SharedBind<T>) -> Self {
        Self(Child::Template(Box::new(MotionTemplate {
            motion,
            bind: Some(bind),
        })))
    }
}

impl From<MotionHandle> for SequenceChild {
    fn from(handle: MotionHandle) -> Self {
        Self(Child::Handle(handle))
    }
}

impl<T: Animatable> From<Motion<T>> for SequenceChild {
    fn from(motion: Motion<T>) -> Self {
        Self(Child::Template(Box::new(MotionTemplate {
            motion,
            bind: None,
        })))
    }
}

impl Clone for SequenceChild {
    fn clone(&self) -> Self {
        Self(match &self.0 {
            Child::Handle(h) => Child::Handle(*h),
            Child::Template(t) => Child::Template(t.clone_box()),
        })
    }
}

impl std::fmt::Debug for SequenceChild {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Child::Handle(h) => h.fmt(f),
            Child::Template(_) => f.write_str("Template"),
        }
    }
}

/// Arranges motions on one timeline, then runs them as a single motion.
///
/// Children are [`Motion`]s ([`SequenceChild`]), which the sequence adds to the world each
/// time it runs (a template, run any number of times), or handles of motions already added,
/// which must be fresh (created in this frame, before any update). Either way they must be
/// finite, at playback speed 1 and in no other sequence. The motions a run adds are created
/// in placement order, so their callbacks fire in that order (docs/semantics.md §6); a run
/// that a child refuses adds nothing. Children's handles stay valid for queries (`status`,
/// `time`, `value`, …) and `completion`, but refuse `complete`, `cancel`, `set_time` and
/// `set_playback_speed` ([`MotionError::InSequence`](crate::MotionError::InSequence)):
/// control the sequence instead.
///
/// A child ends once, like any motion: its `on_complete` fires (and its
/// [`completion`](crate::MotionWorld::completion) resolves `Ok`) the first time it reaches
/// its end, or when the sequence completes before it has; cancelling the sequence fires
/// `on_cancel` only on the children that have not ended. When the sequence loops (or is
/// scrubbed with `set_time`), every pass replays the children: each pass runs their binds
/// and, as their own loop counts rise, their `on_loop_complete`, but not `on_complete` or
/// `on_cancel` again. The sequence's own callbacks fire as a plain motion's do.
///
/// Children see the sequence's value at each update: one that crosses a pass boundary does
/// not show them the pass's end, so a child that ends where a pass ends completes in the
/// first update that lands on its end, or else when the sequence completes. A completed
/// child reads its end value exactly. Positions are summed exactly and stored rounded to
/// f32 once, so a long chain of appends does not drift.
///
/// Before a child starts it binds its start value in every update (as in LitMotion),
/// overwriting any other motion of the same property: a fade-in on `alpha` never shows
/// while a later step of a sequence waits to drive `alpha`.
/// [`bind_before_start(false)`](Self::bind_before_start) holds such steps back.
///
/// ```
/// use wgpu_tween::{Motion, MotionWorld, Sequence};
/// use std::sync::{Arc, Mutex};
///
/// let mut world = MotionWorld::new();
/// let x = Arc::new(Mutex::new(0.0f32));
/// let sink = |x: &Arc<Mutex<f32>>| { let x = Arc::clone(x); move |v| *x.lock().unwrap() = v };
/// let right = Motion::new(0.0f32, 10.0, 1.0).bind(&mut world, sink(&x))?;
/// let back = Motion::new(10.0f32, 0.0, 1.0).bind(&mut world, sink(&x))?;
/// let seq = Sequence::new().append(right).append(back).run(&mut world)?;
/// assert_eq!(*x.lock().unwrap(), 0.0); // the first child's start value
/// world.update(1.5)?;
/// assert_eq!(*x.lock().unwrap(), 5.0); // half way back
/// assert_eq!(world.total_duration(seq)?, 2.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct Sequence {
    items: Vec<Item>,
    /// Whether children not yet started are held back from binding
    /// ([`bind_before_start(false)`](Self::bind_before_start)).
    hold_unstarted: bool,
}

impl Sequence {
    /// An empty sequence.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a child whose position the sequence has not reached yet calls its bind
    /// (default true, as in LitMotion): before it starts, a child binds its start value in
    /// every update (and in the sequence's immediate bind), like a motion waiting out a
    /// delay that does not skip values.
    ///
    /// That overwrites any other motion of the same property until the step starts. A
    /// fade-in on `alpha`, say, and a sequence whose later step fades `alpha` out: the
    /// step binds its start value over the fade-in in every update, so the fade-in never
    /// shows. With `bind_before_start(false)` the step's bind is not called while the
    /// sequence's value is before the step's position (before it starts, or when a Yoyo or
    /// Flip loop or `set_time` takes the sequence back before it: the step keeps the value
    /// it bound last), and the fade-in owns `alpha` until the step starts. Children at
    /// position 0 start with the sequence, so they still bind at its start. The child's
    /// other callbacks are unchanged, and so is a child's [target](crate::Target), which the
    /// executor writes in every update. A nested sequence that has not started holds its
    /// own children's binds too.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use wgpu_tween::{Motion, MotionWorld, Sequence, SequenceChild};
    ///
    /// let alpha = Arc::new(Mutex::new(0.0f32));
    /// let sink = |a: &Arc<Mutex<f32>>| { let a = Arc::clone(a); move |v| *a.lock().unwrap() = v };
    /// let mut world = MotionWorld::new();
    /// // A fade-in now, and a fade-out that starts after a second of something else.
    /// Motion::new(0.0f32, 1.0, 0.5).bind(&mut world, sink(&alpha))?;
    /// Sequence::new()
    ///     .append(Motion::new(0.0f32, 10.0, 1.0))
    ///     .append(SequenceChild::bound(Motion::new(1.0f32, 0.0, 1.0), sink(&alpha)))
    ///     .bind_before_start(false)
    ///     .run(&mut world)?;
    /// world.update(0.25)?;
    /// assert_eq!(*alpha.lock().unwrap(), 0.5); // the fade-in's, not the fade-out's 1.0
    /// world.update(1.25)?; // 1.5 s: half way through the fade-out
    /// assert_eq!(*alpha.lock().unwrap(), 0.5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bind_before_start(mut self, bind: bool) -> Self {
        self.hold_unstarted = !bind;
        self
    }

    /// Places `motion` at the end: it starts when everything appended before it has ended.
    ///
    /// Until then it binds its start value in every update, over any other motion of the
    /// same property (a fade-in on `alpha` does not show while a later step waits to fade
    /// `alpha`): see [`bind_before_start`](Self::bind_before_start) to hold it back.
    pub fn append(mut self, motion: impl Into<SequenceChild>) -> Self {
        self.items.push(Item::Append(motion.into()));
        self
    }

    /// Places `motion` at the start of the previous item (appended, joined or inserted), so
    /// they play together. With no previous item it starts at 0.
    pub fn join(mut self, motion: impl Into<SequenceChild>) -> Self {
        self.items.push(Item::Join(motion.into()));
        self
    }

    /// Places `motion` at `position` seconds, whatever the end is. It does not move the end
    /// (later appends come after the appended items only), but the sequence lasts until its
    /// last child ends.
    pub fn insert(mut self, position: f32, motion: impl Into<SequenceChild>) -> Self {
        self.items.push(Item::Insert(position, motion.into()));
        self
    }

    /// Moves the end `seconds` later: the next append starts after a pause.
    pub fn append_interval(mut self, seconds: f32) -> Self {
        self.items.push(Item::Interval(seconds));
        self
    }

    /// Runs the sequence as a plain motion (linear, one loop, no delay, speed 1). Returns
    /// the sequence's handle.
    pub fn run(self, world: &mut MotionWorld) -> Result<MotionHandle, BuildError> {
        self.run_with(world, |motion| motion)
    }

    /// Runs the sequence as a motion configured by `configure`, which receives
    /// `Motion::new(0.0, V, D)` and may set its ease, loops
    /// (every loop type), delay, playback speed, time kind, preserve, debug name and
    /// callbacks. The sequence's value is the time it gives its children, so it has no bind.
    /// `D` is the sequence's length, where its last child ends (the exact sum of the
    /// placements, rounded to f32 once). `V`, the value it ends on, is `D`, or the least f32
    /// above it where every child, at its position rounded to f32, has reached its end (a
    /// few f32 steps at most), so that completed children land on their end values exactly.
    ///
    /// ```
    /// use wgpu_tween::{LoopType, Motion, MotionWorld, Sequence};
    ///
    /// let mut world = MotionWorld::new();
    /// let a = Motion::new(0.0f32, 1.0, 0.5).run(&mut world)?;
    /// let b = Motion::new(1.0f32, 2.0, 0.5).run(&mut world)?;
    /// let seq = Sequence::new()
    ///     .append(a)
    ///     .append(b)
    ///     .run_with(&mut world, |m| m.loops(2, LoopType::Yoyo))?;
    /// world.update(1.75)?; // the second loop plays backwards: `b` is at its start
    /// assert_eq!(world.value::<f32>(b)?, 1.0);
    /// assert!((world.value::<f32>(a)? - 0.5).abs() < 1e-6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_with(
        self,
        world: &mut MotionWorld,
        configure: impl FnOnce(Motion<f32>) -> Motion<f32>,
    ) -> Result<MotionHandle, BuildError> {
        self.build(world, configure, None, None)
    }

    /// Like [`run`](Self::run), from inside a callback (or another thread): queued, and
    /// made when the commands are applied, where its children (which may themselves be
    /// deferred spawns queued before it) are checked. Positions and intervals are checked
    /// now. Like every command it behaves as a `try_*`: if a child can no longer join then,
    /// no sequence is made, the returned handle never becomes active, and the children run
    /// on their own.
    ///
    /// ```
    /// use wgpu_tween::{Motion, MotionWorld, Sequence};
    ///
    /// let mut world = MotionWorld::new();
    /// let commands = world.commands();
    /// Motion::new(0.0f32, 1.0, 0.5)
    ///     .on_complete(move || {
    ///         // Two more motions, one after the other, once the first is done.
    ///         let a = Motion::new(1.0f32, 2.0, 0.5).run_deferred(&commands).unwrap();
    ///         let b = Motion::new(2.0f32, 3.0, 0.5).run_deferred(&commands).unwrap();
    ///         Sequence::new().append(a).append(b).run_deferred(&commands).unwrap();
    ///     })
    ///     .run(&mut world)?;
    /// world.update(0.6)?;
    /// assert_eq!(world.len(), 3); // the sequence and its two children
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_deferred(self, commands: &MotionCommands) -> Result<MotionHandle, BuildError> {
        self.run_with_deferred(commands, |motion| motion)
    }

    /// [`run_with`](Self::run_with), deferred like [`run_deferred`](Self::run_deferred).
    pub fn run_with_deferred(
        self,
        commands: &MotionCommands,
        configure: impl FnOnce(Motion<f32>) -> Motion<f32> + Send + 'static,
    ) -> Result<MotionHandle, BuildError> {
        self.check_times()?;
        let spawn: DeferredSpawn = Box::new(move |world, handle, completion| {
            self.build(world, configure, Some(handle), completion)
        });
        let deferred = Box::new(Deferred {
            spawn,
            completion: None,
        });
        Ok(commands.reserve(|handle| Command::Deferred(handle, deferred)))
    }

    /// Places the children, builds the sequence motion and inserts it (into `reserved`, for
    /// a deferred one, with the futures awaiting it since it was queued).
    fn build(
        self,
        world: &mut MotionWorld,
        configure: impl FnOnce(Motion<f32>) -> Motion<f32>,
        reserved: Option<MotionHandle>,
        completion: Option<Resolver>,
    ) -> Result<MotionHandle, BuildError> {
        let (resolved, tail) = self.place(world)?;
        let length = resolved.iter().map(|c| c.end).fold(tail, f64::max) as f32;
        let end = end_value(length, &resolved);
        let mut built = configure(Motion::new(0.0, end, length)).build_sequence()?;
        if let Some(resolver) = completion {
            built.callbacks.get_or_insert_with(Box::default).completion = Some(resolver);
        }
        // Everything is checked: the template children are added now.
        let placed: Vec<Placed> = resolved
            .into_iter()
            .map(|r| Placed {
                handle: match r.source {
                    Source::Handle(handle) => handle,
                    // Unsettled: queued commands wait until the sequence links its children.
                    Source::Built(built) => world.insert_unsettled(*built, None),
                },
                position: r.position,
            })
            .collect();
        Ok(world.insert_sequence(built, &placed, self.hold_unstarted, reserved))
    }

    /// Resolves every child's position and end, checking it may join (a template child is
    /// built, not yet added). Also returns where the appends and intervals end.
    fn place(&self, world: &MotionWorld) -> Result<(Vec<Resolved>, f64), BuildError> {
        self.check_times()?;
        let mut resolved: Vec<Resolved> = Vec::with_capacity(self.items.len());
        let (mut tail, mut last_start) = (0.0f64, 0.0f64);
        for item in &self.items {
            let (child, position) = match item {
                Item::Interval(s) => {
                    tail += f64::from(*s);
                    continue;
                }
                Item::Append(c) => (c, tail),
                Item::Join(c) => (c, last_start),
                Item::Insert(at, c) => (c, f64::from(*at)),
            };
            let (source, row) = match &child.0 {
                Child::Handle(handle) => {
                    let handle = *handle;
                    let refuse = |reason| BuildError::InvalidSequenceChild { handle, reason };
                    let row = world.sequence_child_row(handle).map_err(refuse)?;
                    if resolved
                        .iter()
                        .any(|r| matches!(r.source, Source::Handle(h) if h == handle))
                    {
                        return Err(refuse(SequenceChildError::AlreadyInSequence));
                    }
                    (Source::Handle(handle), row)
                }
                Child::Template(template) => {
                    let built = template.build(world)?;
                    if let Some(reason) = child_row_error(&built.row) {
                        let handle = MotionHandle::NONE; // not added, so it has none yet
                        return Err(BuildError::InvalidSequenceChild { handle, reason });
                    }
                    let row = built.row;
                    (Source::Built(Box::new(built)), row)
                }
            };
            // The timeline stays exact (f64); only what a child stores, its position, is
            // rounded to f32 (as the GPU reads it), once, so a long chain does not drift.
            let end = position + row.total_duration();
            if let Item::Append(_) = item {
                tail = end;
            }
            last_start = position;
            resolved.push(Resolved {
                source,
                row,
                position: position as f32,
                end,
            });
        }
        Ok((resolved, tail))
    }
}

/// A child with its settings, its position (rounded to f32, as the GPU stores it) and its
/// exact end.
struct Resolved {
    source: Source,
    row: MotionRow,
    position: f32,
    end: f64,
}

/// The value a sequence of length `length` ends on: `length`, or the least f32 above it at
/// which every child, at its stored (rounded) position, has completed, so that the
/// children's clocks there (`V − position`, exactly as the world and the GPU form them) put
/// each on its end value (docs/semantics.md §8). Rounding the length and each position once
/// moves a child's end by an f32 step or so of the length; zero-duration children complete
/// strictly after their delay, one step more.
fn end_value(length: f32, children: &[Resolved]) -> f32 {
    let mut end = length;
    for child in children {
        let position = f64::from(child.position);
        for _ in 0..8 {
            if progress(&child.row, f64::from(end) - position).is_completed() {
                break;
            }
            // Never subnormal (GPUs may flush it to 0).
            let next = end.next_up().max(f32::MIN_POSITIVE);
            if !next.is_finite() {
                break;
            }
            end = next;
        }
    }
    end
}

/// A child: a motion in the world, or a template's, built and not yet added.
enum Source {
    Handle(MotionHandle),
    Built(Box<BuiltMotion>),
}

impl Sequence {
    /// Every interval and insert position is finite and ≥ 0.
    fn check_times(&self) -> Result<(), BuildError> {
        for item in &self.items {
            match *item {
                Item::Interval(s) => check_time("interval", s)?,
                Item::Insert(at, _) => check_time("position", at)?,
                Item::Append(_) | Item::Join(_) => {}
            }
        }
        Ok(())
    }
}

fn check_time(what: &'static str, value: f32) -> Result<(), BuildError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(BuildError::InvalidSequenceTime { what, value })
    }
}
