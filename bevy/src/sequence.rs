//! [`TweenSequence`]: tweens of one entity placed on one timeline, played as one motion
//! (wgpu-tween's [`Sequence`]).

use std::any::TypeId;
use std::sync::Arc;

use bevy::prelude::*;
use wgpu_tween::{Animatable, Motion, MotionHandle, Sequence, SequenceChild};

use crate::commands::{claim, settle};
use crate::error::TweenError;
use crate::events::wants_loop_events;
use crate::lens::Lens;
use crate::tweens::{with_events, Finish, FinishFn, LaneCell, Source, Tweened, Tweens};

/// Tweens of one entity on one timeline: appended one after the other, joined to the
/// previous one, inserted at a time, with intervals; then played as one motion with its own
/// ease, loops and delay ([`configure`](Self::configure)). Started with
/// [`TweenCommandsExt::tween_sequence`](crate::TweenCommandsExt::tween_sequence).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_wgpu_tween::{LoopType, Motion, Scale, Translation, TweenCommandsExt, TweenSequence};
///
/// fn pop_and_slide(mut commands: Commands, button: Single<Entity, With<Transform>>) {
///     commands.entity(*button).tween_sequence(
///         TweenSequence::new()
///             .append(Scale, Motion::new(Vec3::ONE, Vec3::splat(1.2), 0.2))
///             .join(Translation, Motion::new(Vec3::ZERO, Vec3::X * 40.0, 0.2))
///             .append_interval(0.1)
///             .append(Scale, Motion::new(Vec3::splat(1.2), Vec3::ONE, 0.2))
///             .configure(|m| m.loops(2, LoopType::Restart)),
///     );
/// }
/// ```
///
/// Each lens the sequence animates gets one `Tweened<L>` on the entity, owned by the
/// sequence's motion: its events are the sequence's (one `TweenCompleted` for the whole),
/// and a tween started on one of its lenses meanwhile cancels the whole sequence. Steps of
/// one lens take turns: each writes it from its position on (and a Yoyo loop hands it back
/// to the step before). Steps need both ends (`Motion::new`): `Motion::to` and `Motion::by`
/// have no start to read in a sequence and are a [`TweenError::Build`].
#[derive(Default)]
pub struct TweenSequence {
    items: Vec<Item>,
    configure: Option<Configure>,
}

type Configure = Box<dyn FnOnce(Motion<f32>) -> Motion<f32> + Send>;

enum Place {
    Append,
    Join,
    Insert(f32),
}

enum Item {
    Step(Place, Box<dyn Step>),
    Interval(f32),
}

impl TweenSequence {
    /// An empty sequence.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tween after the end of everything before it.
    #[must_use]
    pub fn append<L: Lens>(self, lens: L, motion: Motion<L::Value>) -> Self {
        self.push(Place::Append, lens, motion)
    }

    /// Adds a tween at the start of the last appended one (they play together).
    #[must_use]
    pub fn join<L: Lens>(self, lens: L, motion: Motion<L::Value>) -> Self {
        self.push(Place::Join, lens, motion)
    }

    /// Adds a tween at `position` seconds.
    #[must_use]
    pub fn insert<L: Lens>(self, position: f32, lens: L, motion: Motion<L::Value>) -> Self {
        self.push(Place::Insert(position), lens, motion)
    }

    /// Adds `seconds` of nothing at the end.
    #[must_use]
    pub fn append_interval(mut self, seconds: f32) -> Self {
        self.items.push(Item::Interval(seconds));
        self
    }

    /// Sets the sequence's own motion: ease, loops (every loop type), delay, speed, time kind
    /// (no callbacks: observe its events). It receives `Motion::new(0.0, D, D)`, `D` the
    /// sequence's length.
    #[must_use]
    pub fn configure(
        mut self,
        configure: impl FnOnce(Motion<f32>) -> Motion<f32> + Send + 'static,
    ) -> Self {
        self.configure = Some(Box::new(configure));
        self
    }

    fn push<L: Lens>(mut self, place: Place, _lens: L, motion: Motion<L::Value>) -> Self {
        self.items
            .push(Item::Step(place, Box::new(LensStep::<L>(motion))));
        self
    }

    /// Runs the sequence, its steps bound to one cell per lens of the entity.
    pub(crate) fn start(self, world: &mut World, entity: Entity) -> Result<(), TweenError> {
        let mut lenses: Vec<LensClaim> = Vec::new();
        // Steps bind only once the sequence reaches them (and Yoyo loops hand a lens back
        // to the step before), so the steps of one lens take turns at its cell.
        let mut sequence = Sequence::new().bind_before_start(false);
        for item in self.items {
            let (place, step) = match item {
                Item::Interval(s) => {
                    sequence = sequence.append_interval(s);
                    continue;
                }
                Item::Step(place, step) => (place, step),
            };
            let child = step.child(world, entity, &mut lenses)?;
            sequence = match place {
                Place::Append => sequence.append(child),
                Place::Join => sequence.join(child),
                Place::Insert(at) => sequence.insert(at, child),
            };
        }
        let run = run_sequence(world, entity, sequence, self.configure, &lenses);
        let motion = run.as_ref().ok().copied();
        for c in lenses {
            (c.settle)(world, entity, c.held, Source::Cell(c.cell), motion);
        }
        run.map(|_| ())
    }
}

fn run_sequence(
    world: &mut World,
    entity: Entity,
    sequence: Sequence,
    configure: Option<Configure>,
    lenses: &[LensClaim],
) -> Result<MotionHandle, TweenError> {
    let finish = Finish::Many(lenses.iter().map(|c| c.finish).collect());
    let loops = wants_loop_events(world, entity);
    let mut tweens = world.resource_mut::<Tweens>();
    let queue = tweens.events.clone();
    let (mut cell, mut own_callbacks) = (None, false);
    let handle = sequence.run_with(tweens.world_mut(), |m| {
        let m = match configure {
            Some(f) => f(m),
            None => m,
        };
        own_callbacks = m.has_callbacks();
        if own_callbacks {
            return m;
        }
        let (m, c) = with_events(&queue, m, entity, finish, loops);
        cell = Some(c);
        m
    })?;
    if own_callbacks {
        tweens.world_mut().try_cancel(handle);
        return Err(TweenError::MotionCallbacks);
    }
    if let Some(c) = cell {
        c.set(handle);
    }
    Ok(handle)
}

/// [`settle`] for one lens.
type SettleFn =
    fn(&mut World, Entity, Option<(Source, MotionHandle)>, Source, Option<MotionHandle>);

/// A lens a sequence animates: its cell, and what it replaces once the sequence runs.
struct LensClaim {
    lens: TypeId,
    cell: Arc<LaneCell>,
    held: Option<(Source, MotionHandle)>,
    settle: SettleFn,
    finish: FinishFn,
}

/// One step, its lens erased.
trait Step: Send {
    /// The step as a child bound to its lens's cell (claimed by the lens's first step).
    fn child(
        self: Box<Self>,
        world: &mut World,
        entity: Entity,
        lenses: &mut Vec<LensClaim>,
    ) -> Result<SequenceChild, TweenError>;
}

struct LensStep<L: Lens>(Motion<L::Value>);

impl<L: Lens> Step for LensStep<L> {
    fn child(
        self: Box<Self>,
        world: &mut World,
        entity: Entity,
        lenses: &mut Vec<LensClaim>,
    ) -> Result<SequenceChild, TweenError> {
        let lens = TypeId::of::<L>();
        let cell = match lenses.iter().find(|c| c.lens == lens) {
            Some(c) => c.cell.clone(),
            None => {
                let claim = claim::<L>(world, entity)?;
                let cell = Arc::new(LaneCell::default());
                // Until a step binds, the lens shows the value it had.
                cell.store(claim.value.to_lanes());
                lenses.push(LensClaim {
                    lens,
                    cell: cell.clone(),
                    held: claim.held,
                    settle: settle::<L>,
                    finish: Tweened::<L>::finish,
                });
                cell
            }
        };
        let bind = move |v: L::Value| cell.store(v.to_lanes());
        Ok(SequenceChild::bound(self.0, bind))
    }
}
