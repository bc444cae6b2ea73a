//! What a builder hands the world: a validated motion, ready to be inserted.

use crate::core::curve::AnimationCurve;
use crate::core::row::MotionRow;
use crate::table::targets::Target;
use crate::world::bound_run::BindFn;
use crate::world::callbacks::Callbacks;

/// Boolean settings of a built motion that the world keeps per slot.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MotionOptions {
    pub preserve: bool,
    pub cancel_on_error: bool,
    pub skip_values_during_delay: bool,
    pub immediate_bind: bool,
}

/// A validated motion, ready to be inserted (anchor not yet set).
pub(crate) struct BuiltMotion {
    pub row: MotionRow,
    pub pairs: [[f32; 2]; 4],
    /// The parameter lanes (parametric ease settings).
    pub params: [f32; 4],
    /// An animation curve ease: the world copies its keys into its key table when the
    /// motion is inserted, and writes the key range into `params`.
    pub curve: Option<AnimationCurve>,
    /// A shake without an explicit seed: the world gives it one from its sequence number.
    pub auto_seed: bool,
    pub options: MotionOptions,
    pub debug_name: &'static str,
    /// The animated type (`value::<T>` checks it).
    pub value_type: std::any::TypeId,
    /// The bind (kept apart from the other callbacks: the world keeps it in its bound list).
    pub bind: Option<BindFn>,
    pub callbacks: Option<Box<Callbacks>>,
    /// Where the value is written besides its row, if anywhere (the world checks it).
    pub target: Option<Target>,
    /// The group whose clock drives it, if any (the world checks it).
    pub group: Option<crate::core::handle::GroupId>,
}
