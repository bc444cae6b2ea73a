//! A tween's events as Bevy messages (read with `MessageReader`) and entity events (watch
//! with observers), delivered once per frame in [`TweenSystems::Events`](crate::TweenSystems).

use std::sync::PoisonError;

use bevy::prelude::*;
use wgpu_tween::MotionHandle;

use crate::error::TweenError;
use crate::tweens::{EventKind, RawEvent, Tweens};

macro_rules! tween_event {
    ($(#[$doc:meta])* $name:ident $({ $(#[$fdoc:meta])* $field:ident: $ty:ty })?) => {
        $(#[$doc])*
        ///
        /// A [`Message`] (read it with `MessageReader`) and an [`EntityEvent`] on the animated
        /// entity (observe it with `commands.entity(e).observe(...)` or a global observer).
        /// The entity may be despawned by the time it is read, for a cancel caused by the
        /// despawn.
        #[derive(Message, EntityEvent, Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name {
            /// The animated entity.
            pub entity: Entity,
            /// The tween's motion.
            pub motion: MotionHandle,
            $($(#[$fdoc])* pub $field: $ty,)?
        }
    };
}

tween_event!(
    /// A tween's delay is over and it starts moving (once, even when it loops).
    TweenStarted
);
tween_event!(
    /// A tween finished a loop. Sent only for entities that have [`LoopEvents`] when the
    /// tween starts.
    TweenLooped {
        /// Loops completed so far.
        completed_loops: u32
    }
);
tween_event!(
    /// A tween completed (by itself or by `complete`); its last value has been written.
    TweenCompleted
);
tween_event!(
    /// A tween was cancelled: replaced by another tween of the same lens, cancelled, its
    /// component or entity removed, or cancelled through the world.
    TweenCanceled
);

/// Asks for [`TweenLooped`] events: tweens started on an entity with this component send
/// one each time they finish a loop. Without it they do not, as bevy_tweening sends cycle
/// events only when asked (`with_cycle_completed_event`): 100k tweens looping every second
/// send 1,700 events a frame, which cost about as much as the tweens themselves.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct LoopEvents;

/// Whether tweens started on `entity` now send [`TweenLooped`] events.
pub(crate) fn wants_loop_events(world: &World, entity: Entity) -> bool {
    world
        .get_entity(entity)
        .is_ok_and(|e| e.contains::<LoopEvents>())
}

/// A tween command that could not be carried out, with why. Nothing was started and, where
/// the command would have replaced a tween, the old one runs on.
#[derive(Message, Clone, Debug, PartialEq)]
pub struct TweenFailed {
    /// The entity the command named.
    pub entity: Option<Entity>,
    /// Why.
    pub error: TweenError,
}

/// Reports a failed command: a [`TweenFailed`] message and a warning in the log.
pub(crate) fn fail(world: &mut World, entity: Option<Entity>, error: TweenError) {
    tracing::warn!("bevy_wgpu_tween: {error}");
    world.write_message(TweenFailed { entity, error });
}

/// Delivers the events the motions queued since the last frame, in the order they
/// happened: messages, then observers, then the removal of finished tweens' `Tweened<L>`.
pub(crate) fn deliver(world: &mut World) {
    let events: Vec<RawEvent> = {
        let Some(tweens) = world.get_resource::<Tweens>() else {
            return;
        };
        let mut queue = tweens.events.lock().unwrap_or_else(PoisonError::into_inner);
        std::mem::take(&mut *queue)
    };
    for e in events {
        let (entity, motion) = (e.entity, e.motion);
        match e.kind {
            EventKind::Started => send(world, TweenStarted { entity, motion }),
            EventKind::Looped(completed_loops) => send(
                world,
                TweenLooped {
                    entity,
                    motion,
                    completed_loops,
                },
            ),
            EventKind::Completed => {
                e.finish.run(world, entity, motion);
                send(world, TweenCompleted { entity, motion });
            }
            EventKind::Canceled => {
                e.finish.run(world, entity, motion);
                send(world, TweenCanceled { entity, motion });
            }
        }
    }
}

fn send<E>(world: &mut World, event: E)
where
    E: Message + EntityEvent + Copy,
    for<'a> E: Event<Trigger<'a>: Default>,
{
    world.write_message(event);
    // Observers of a despawned entity are gone with it; global observers still see it.
    world.trigger(event);
}
