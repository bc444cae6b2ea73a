//! Starting tweens from `Commands`: [`TweenCommandsExt`] on `EntityCommands`.

use bevy::prelude::*;
use wgpu_tween::{Motion, MotionHandle, MotionSettings};

use crate::error::TweenError;
use crate::events::{fail, wants_loop_events};
use crate::lens::{Lens, Rotation, Scale, Translation};
use crate::sequence::TweenSequence;
use crate::tweens::{Finish, Source, Tweened, Tweens};

/// Tweens on an entity, from `Commands`:
///
/// ```
/// use bevy::prelude::*;
/// use bevy_wgpu_tween::{Ease, LoopType, Motion, TweenCommandsExt, Translation};
///
/// fn spawn(mut commands: Commands) {
///     commands
///         .spawn(Transform::default())
///         .tween(Translation, Motion::new(Vec3::ZERO, Vec3::X * 100.0, 1.0).ease(Ease::OutQuad))
///         .tween(Translation, Motion::to(Vec3::Y * 50.0, 0.5).loops(-1, LoopType::Yoyo));
/// }
/// ```
///
/// A tween replaces the entity's running tween of the same lens (which is cancelled). The
/// commands run when Bevy applies them; one that cannot run (the entity gone, the component
/// missing, the lens not registered, a bad motion) writes a
/// [`TweenFailed`](crate::TweenFailed) message and changes nothing.
pub trait TweenCommandsExt {
    /// Animates `lens` of this entity with `motion`. `Motion::to` and `Motion::by` start
    /// from the component's current value.
    fn tween<L: Lens>(&mut self, lens: L, motion: Motion<L::Value>) -> &mut Self;

    /// Animates the whole `Transform` to `end` (translation, rotation and scale, each its
    /// own motion with these settings; each sends its own events).
    fn tween_transform(&mut self, end: Transform, settings: MotionSettings) -> &mut Self;

    /// Plays a sequence of tweens on this entity as one motion.
    fn tween_sequence(&mut self, sequence: TweenSequence) -> &mut Self;

    /// Cancels this entity's tween of `lens`, leaving the value where it is.
    fn cancel_tween<L: Lens>(&mut self, lens: L) -> &mut Self;

    /// Completes this entity's tween of `lens`: its final value is applied this frame.
    fn complete_tween<L: Lens>(&mut self, lens: L) -> &mut Self;
}

impl TweenCommandsExt for EntityCommands<'_> {
    fn tween<L: Lens>(&mut self, _lens: L, motion: Motion<L::Value>) -> &mut Self {
        let entity = self.id();
        self.commands().queue(move |world: &mut World| {
            if let Err(error) = start::<L>(world, entity, motion) {
                fail(world, Some(entity), error);
            }
        });
        self
    }

    fn tween_transform(&mut self, end: Transform, settings: MotionSettings) -> &mut Self {
        let d = settings.duration;
        let motion = |to| Motion::to(to, d).with_settings(&settings);
        self.tween(Translation, motion(end.translation))
            .tween(
                Rotation,
                Motion::to(end.rotation, d).with_settings(&settings),
            )
            .tween(Scale, motion(end.scale))
    }

    fn tween_sequence(&mut self, sequence: TweenSequence) -> &mut Self {
        let entity = self.id();
        self.commands().queue(move |world: &mut World| {
            if let Err(error) = sequence.start(world, entity) {
                fail(world, Some(entity), error);
            }
        });
        self
    }

    fn cancel_tween<L: Lens>(&mut self, _lens: L) -> &mut Self {
        let entity = self.id();
        self.commands()
            .queue(move |world: &mut World| end_tween::<L>(world, entity, false));
        self
    }

    fn complete_tween<L: Lens>(&mut self, _lens: L) -> &mut Self {
        let entity = self.id();
        self.commands()
            .queue(move |world: &mut World| end_tween::<L>(world, entity, true));
        self
    }
}

fn end_tween<L: Lens>(world: &mut World, entity: Entity, complete: bool) {
    let Some(motion) = world.get::<Tweened<L>>(entity).map(Tweened::motion) else {
        return;
    };
    let mut tweens = world.resource_mut::<Tweens>();
    if complete {
        tweens.world_mut().try_complete(motion);
    } else {
        tweens.world_mut().try_cancel(motion);
    }
}

/// What a new tween of lens `L` on `entity` starts from: the component's value and the
/// tween running there now (its source and motion), which the new one replaces once it runs.
pub(crate) struct Claim<L: Lens> {
    pub value: L::Value,
    pub held: Option<(Source, MotionHandle)>,
}

/// Checks that `entity` exists, has `L`'s component and that `L` is registered.
pub(crate) fn claim<L: Lens>(world: &World, entity: Entity) -> Result<Claim<L>, TweenError> {
    let e = world
        .get_entity(entity)
        .map_err(|_| TweenError::NoEntity(entity))?;
    let value = L::get(
        e.get::<L::Component>()
            .ok_or(TweenError::MissingComponent {
                entity,
                component: std::any::type_name::<L::Component>(),
            })?,
    );
    let registered = world
        .get_resource::<Tweens>()
        .is_some_and(|t| t.table::<L>().is_some());
    if !registered {
        return Err(TweenError::UnregisteredLens(std::any::type_name::<L>()));
    }
    let held = e.get::<Tweened<L>>().map(|t| (t.source.clone(), t.motion));
    Ok(Claim { value, held })
}

/// A slot for a tween: the one the replaced tween held, or a new one; seeded with the
/// component's value (what `Motion::to` starts from).
fn slot_for<L: Lens>(
    tweens: &mut Tweens,
    claim: &Claim<L>,
) -> Result<(u32, wgpu_tween::Target), TweenError> {
    let unregistered = || TweenError::UnregisteredLens(std::any::type_name::<L>());
    if let Some((Source::Slot(slot), _)) = &claim.held {
        let target = tweens
            .reuse_slot::<L>(*slot, claim.value)
            .ok_or_else(unregistered)?;
        return Ok((*slot, target));
    }
    Ok(tweens
        .alloc_slot::<L>(claim.value)
        .ok_or_else(unregistered)??)
}

/// Hands `entity`'s lens `L` to `motion` (`None`: its build failed) with its values at
/// `source`: the tween it replaces is cancelled (its cancel event finds the newer motion and
/// leaves the component), a slot no longer used is freed.
pub(crate) fn settle<L: Lens>(
    world: &mut World,
    entity: Entity,
    held: Option<(Source, MotionHandle)>,
    source: Source,
    motion: Option<MotionHandle>,
) {
    let slot_of = |source: &Source| match source {
        Source::Slot(s) => Some(*s),
        Source::Cell(_) => None,
    };
    let held_slot = held.as_ref().and_then(|(source, _)| slot_of(source));
    let new_slot = slot_of(&source);
    // The slot no longer used: the new one after a failed build, the held one after a
    // successful build that took another (none when the tween kept its slot).
    let unused = match motion {
        None => new_slot,
        Some(_) => held_slot,
    }
    .filter(|_| new_slot != held_slot);
    let mut tweens = world.resource_mut::<Tweens>();
    if let Some(slot) = unused {
        tweens.free_slot::<L>(slot);
    }
    let Some(motion) = motion else {
        return;
    };
    if let Some((_, old)) = held {
        tweens.world_mut().try_cancel(old);
    }
    if let Ok(mut e) = world.get_entity_mut(entity) {
        match e.get_mut::<Tweened<L>>() {
            Some(mut t) => {
                t.source = source;
                t.motion = motion;
            }
            None => {
                e.insert(Tweened::<L>::new(source, motion));
            }
        }
    }
}

fn start<L: Lens>(
    world: &mut World,
    entity: Entity,
    motion: Motion<L::Value>,
) -> Result<MotionHandle, TweenError> {
    if motion.has_callbacks() {
        return Err(TweenError::MotionCallbacks);
    }
    let claim = claim::<L>(world, entity)?;
    let loops = wants_loop_events(world, entity);
    let mut tweens = world.resource_mut::<Tweens>();
    let (slot, target) = slot_for(&mut tweens, &claim)?;
    let finish = Finish::One(Tweened::<L>::finish);
    let (motion, cell) = tweens.with_events(motion.target(target), entity, finish, loops);
    let run = motion.run(tweens.world_mut());
    if let Ok(handle) = run {
        cell.set(handle);
    }
    settle::<L>(
        world,
        entity,
        claim.held,
        Source::Slot(slot),
        run.as_ref().ok().copied(),
    );
    Ok(run?)
}
