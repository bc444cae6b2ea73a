//! Why a tween command failed ([`TweenFailed`](crate::TweenFailed) carries it).

use bevy::prelude::Entity;
use wgpu_tween::error::TargetError;
use wgpu_tween::{BuildError, UpdateError};

/// Why a tween command or the frame's update failed. The plugin never panics on these: it
/// writes a [`TweenFailed`](crate::TweenFailed) message and a warning.
#[derive(thiserror::Error, Clone, Debug, PartialEq)]
pub enum TweenError {
    /// The entity was despawned before the command ran.
    #[error("entity {0} does not exist")]
    NoEntity(Entity),
    /// The entity lacks the component the lens animates.
    #[error("entity {entity} has no {component} component")]
    MissingComponent {
        /// The entity.
        entity: Entity,
        /// The component's type name.
        component: &'static str,
    },
    /// The lens was never registered with `App::register_lens`.
    #[error("lens {0} is not registered (App::register_lens)")]
    UnregisteredLens(&'static str),
    /// The motion carries its own callbacks, which the plugin's events would replace:
    /// observe `TweenCompleted` and the other events instead.
    #[error("the motion has callbacks of its own; observe the tween's events instead")]
    MotionCallbacks,
    /// The motion is invalid (a bad duration, ease or loop count, say).
    #[error("invalid motion: {0}")]
    Build(#[from] BuildError),
    /// No room for the lens's values.
    #[error("no room for the tween's values: {0}")]
    Target(#[from] TargetError),
    /// The world's update failed (a bad delta from a custom clock).
    #[error("update failed: {0}")]
    Update(#[from] UpdateError),
}
