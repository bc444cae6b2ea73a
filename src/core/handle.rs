//! Generational motion handles (docs/design.md invariant 1).

use std::fmt;

/// A reference to a motion in a [`MotionWorld`](crate::MotionWorld): `(world, slot, version)`.
///
/// A slot's version rises every time the slot is occupied or freed and never goes back, not
/// even when the world is cleared, so a handle kept past its motion's end can never reach a
/// later motion that reuses the slot. Handles are plain `Copy` data: holding one keeps
/// nothing alive.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MotionHandle {
    pub(crate) world: u32,
    pub(crate) slot: u32,
    pub(crate) version: u32,
}

impl MotionHandle {
    /// A handle that refers to no motion in any world. Every operation on it fails with
    /// [`MotionError::Destroyed`](crate::MotionError::Destroyed).
    pub const NONE: MotionHandle = MotionHandle {
        world: 0,
        slot: u32::MAX,
        version: 0,
    };

    /// The slot index (stable for the motion's lifetime; reused by later motions).
    #[must_use]
    pub const fn slot(self) -> u32 {
        self.slot
    }

    /// The slot's version when this motion occupied it (always odd for an issued handle).
    #[must_use]
    pub const fn version(self) -> u32 {
        self.version
    }

    /// Whether this is [`MotionHandle::NONE`].
    #[must_use]
    pub const fn is_none(self) -> bool {
        self.world == 0
    }
}

impl Default for MotionHandle {
    fn default() -> Self {
        Self::NONE
    }
}

impl fmt::Debug for MotionHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            f.write_str("MotionHandle(NONE)")
        } else {
            write!(
                f,
                "MotionHandle(w{}:{}v{})",
                self.world, self.slot, self.version
            )
        }
    }
}

/// A group of motions with a clock of its own in a [`MotionWorld`](crate::MotionWorld)
/// ([`add_group`](crate::MotionWorld::add_group)): pause, resume, speed, cancel and complete
/// its motions together. Like a handle, plain `Copy` data; an id of a removed group names
/// nothing ([`GroupError::Unknown`](crate::GroupError::Unknown)), even when its slot is
/// reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupId {
    pub(crate) world: u32,
    /// The group's slot (its clock is entry `3 + index` of the clock table).
    pub(crate) index: u8,
    pub(crate) version: u32,
}
