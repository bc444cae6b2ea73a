//! Per-motion settings and the status a motion reports (docs/semantics.md §1–§2).

/// How a motion repeats. Discriminants are stored in motion rows: never reorder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum LoopType {
    /// Every loop plays from the start value to the end value.
    #[default]
    Restart = 0,
    /// Odd loops mirror the value: `1 − E(t)`.
    Flip = 1,
    /// Each loop continues from where the last ended: `E(1)·k + E(t)`.
    Incremental = 2,
    /// Odd loops play the eased curve backwards in time: `E(1 − t)`.
    Yoyo = 3,
}

impl LoopType {
    /// Every loop type, in discriminant order.
    pub const ALL: [LoopType; 4] = [
        LoopType::Restart,
        LoopType::Flip,
        LoopType::Incremental,
        LoopType::Yoyo,
    ];
}

/// Where the delay applies. Discriminants are stored in motion rows: never reorder.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum DelayType {
    /// The delay is waited once, before the first loop.
    #[default]
    FirstLoop = 0,
    /// The delay is waited before every loop.
    EveryLoop = 1,
}

/// Which world clock drives a motion. A plain [`MotionWorld::update`](crate::MotionWorld::update)
/// advances all three by the same delta; [`TimeDeltas`](crate::TimeDeltas) sets them apart
/// (game time under a time scale, unscaled UI time, wall-clock time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum TimeKind {
    /// Game time, subject to the application's time scale.
    #[default]
    Scaled = 0,
    /// Game time ignoring the time scale.
    Unscaled = 1,
    /// Real (wall-clock) time.
    Realtime = 2,
}

impl TimeKind {
    /// All kinds, in discriminant order.
    pub const ALL: [TimeKind; 3] = [TimeKind::Scaled, TimeKind::Unscaled, TimeKind::Realtime];

    pub(crate) const fn from_bits(bits: u32) -> TimeKind {
        match bits {
            1 => TimeKind::Unscaled,
            2 => TimeKind::Realtime,
            _ => TimeKind::Scaled,
        }
    }
}

impl LoopType {
    pub(crate) const fn from_bits(bits: u32) -> LoopType {
        match bits & 3 {
            0 => LoopType::Restart,
            1 => LoopType::Flip,
            2 => LoopType::Incremental,
            _ => LoopType::Yoyo,
        }
    }
}

/// The state of a motion at a point in world time (docs/semantics.md §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MotionStatus {
    /// Created but not yet advanced by an update.
    Scheduled,
    /// Waiting for its delay (or at a negative clock).
    Delayed,
    /// Between its start and its end.
    Playing,
    /// At its end. A non-preserved motion is removed in the update that completes it.
    Completed,
    /// Cancelled. Only reported through callbacks and futures: a cancelled motion is gone.
    Canceled,
}
