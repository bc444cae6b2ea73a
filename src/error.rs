//! Every error type, and which bad input gives which. The types are also re-exported at the
//! crate root.
//!
//! Bad input is a typed error that leaves the world unchanged, never a panic or
//! a NaN on screen (`docs/design.md`, invariant 6); `tests/world/bad_input.rs`, `tests/world/handles.rs`,
//! `tests/gpu/targets.rs` and the property and fuzz tests check it.
//!
//! | Input | Error |
//! | --- | --- |
//! | NaN or infinite start or end lane | [`BuildError::NonFiniteValue`] |
//! | negative, NaN or infinite duration | [`BuildError::InvalidDuration`] |
//! | negative, NaN or infinite delay | [`BuildError::InvalidDelay`] |
//! | `loops(0)` or below -1 | [`BuildError::InvalidLoops`] |
//! | NaN or infinite playback speed | [`BuildError::InvalidPlaybackSpeed`] |
//! | a zero quaternion | [`BuildError::ZeroQuaternion`] |
//! | bad parametric ease (`Steps(0)`, a Bézier x outside [0, 1], a parameter beyond ±[`MAX_EASE_PARAMETER`](crate::MAX_EASE_PARAMETER), an Elastic period under [`MIN_ELASTIC_PERIOD`](crate::MIN_ELASTIC_PERIOD)) | [`BuildError::InvalidEase`] |
//! | animation curve without keys | [`BuildError::EmptyCurve`] |
//! | curve key with a NaN, infinite or huge (> 1e18) time or value, a huge finite tangent, or a used weight outside [0, 1] | [`BuildError::InvalidCurveKey`] |
//! | punch or shake frequency or damping outside [0, 1e6] | [`BuildError::InvalidVibration`] |
//! | values whose interpolation could pass `f32::MAX` (from, to, the ease's overshoot, Incremental loops) | [`BuildError::ValueOverflow`] |
//! | target past the end of its array or buffer | [`BuildError::Target`]([`TargetError::OutOfBounds`]) |
//! | target stride smaller than the value's lanes (0 included) | [`BuildError::Target`]([`TargetError::StrideTooSmall`]) |
//! | host array over `MAX_HOST_TARGET_LEN` f32s, or more than memory allows | `add_host_target`: [`TargetError::TooLarge`] |
//! | target id of another world, or removed (or lost) | [`BuildError::Target`]([`TargetError::Unknown`]) |
//! | group id of another world, or removed (in `Motion::group` or a `*_group` method) | [`BuildError::Group`] / [`GroupError::Unknown`] |
//! | more than [`MAX_GROUPS`](crate::MAX_GROUPS) groups | [`GroupError::TooMany`] |
//! | negative, NaN or infinite group speed | [`GroupError::InvalidSpeed`] |
//! | GPU target buffer without `STORAGE` usage | `add_gpu_target`: [`TargetError::NotStorage`] |
//! | GPU target on a world without a GPU context | `add_gpu_target`: [`TargetError::NoGpu`] |
//! | GPU target buffer the device refuses to bind (another device's, destroyed) | `add_gpu_target`: [`TargetError::Rejected`] |
//! | GPU target buffer over the device's size limit, or out of memory | `GpuContext::create_target_buffer`: [`GpuError::TooLarge`] / [`GpuError::OutOfMemory`]; `create_gpu_target`: [`TargetError::Create`] |
//! | sequence child that is stale, already updated, infinite, in a sequence, at speed ≠ 1, or nested over 8 deep | [`BuildError::InvalidSequenceChild`] ([`SequenceChildError`]) |
//! | negative or non-finite sequence position or interval | [`BuildError::InvalidSequenceTime`] |
//! | `Motion::to` / `by` without a host target to read the current value from | [`BuildError::NoCurrentValue`] |
//! | `at_speed` with a speed that is not finite and positive | [`BuildError::InvalidSpeed`] |
//! | NaN, infinite or negative update delta | [`UpdateError::InvalidDelta`] |
//! | world time past [`MAX_TIME`](crate::MAX_TIME) (the running sum, not only one delta) | [`UpdateError::WorldTimeOverflow`] |
//! | NaN or infinite `set_time` / `set_playback_speed` | [`MotionError::InvalidArgument`] |
//! | `set_time` beyond ±`MAX_TIME`, a speed whose anchor would pass it, `complete` of a motion longer than it | [`MotionError::OutOfRange`] (the motion is unchanged) |
//! | finished, cancelled, cleared or never-issued handle | [`MotionError::Destroyed`] (`try_*`: `false`) |
//! | handle of another world | [`MotionError::WrongWorld`] |
//! | `complete` on infinite loops / twice on a preserved motion | [`MotionError::InfiniteLoops`] / [`MotionError::AlreadyCompleted`] |
//! | `value::<T>` with another type than the motion's | [`MotionError::TypeMismatch`] |
//! | `complete`, `cancel`, `set_time`, `set_playback_speed` on a sequence's child | [`MotionError::InSequence`] |
//! | `Executor::Gpu` on a world without a GPU context | [`GpuError::NoContext`] |
//! | `attach_gpu` while motions have GPU targets | [`GpuError::LiveTargets`] (the world is unchanged) |
//! | a target buffer destroyed or left mapped | [`GpuError::TargetsLost`] (`MotionWorld::take_gpu_error`): only its motions lose their targets |
//! | GPU validation, out of memory, device lost, too large | [`GpuError`] (`MotionWorld::take_gpu_error`); the world goes on on the CPU executor |

use crate::core::handle::MotionHandle;

/// Why a motion could not be built. Returned by the builder's terminals (`bind`, `run`);
/// the world is left unchanged.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A start or end value has a NaN or infinite lane.
    #[error("{which} value has a non-finite lane {lane}: {value}")]
    NonFiniteValue {
        /// `"start"` or `"end"`.
        which: &'static str,
        /// The lane index (0..4).
        lane: usize,
        /// The offending value.
        value: f32,
    },
    /// The duration is negative, NaN or infinite.
    #[error("duration must be finite and >= 0, got {0}")]
    InvalidDuration(f32),
    /// The delay is negative, NaN or infinite.
    #[error("delay must be finite and >= 0, got {0}")]
    InvalidDelay(f32),
    /// `loops(0, _)` or a loop count below -1. Use -1 for infinite loops.
    #[error("loops must be -1 (infinite) or >= 1, got {0}")]
    InvalidLoops(i32),
    /// A quaternion motion's start or end is (nearly) zero, so it has no rotation to
    /// interpolate.
    #[error("{which} quaternion has zero length")]
    ZeroQuaternion {
        /// `"start"` or `"end"`.
        which: &'static str,
    },
    /// A [`ParametricEase`](crate::ParametricEase) has invalid parameters (non-finite or
    /// beyond ±[`MAX_EASE_PARAMETER`](crate::MAX_EASE_PARAMETER), `Steps(0)`, an Elastic
    /// period below [`MIN_ELASTIC_PERIOD`](crate::MIN_ELASTIC_PERIOD), Bézier x outside
    /// `[0, 1]`).
    #[error("invalid parametric ease {0:?}")]
    InvalidEase(crate::ParametricEase),
    /// An [`AnimationCurve`](crate::AnimationCurve) with no keys.
    #[error("an animation curve needs at least one key")]
    EmptyCurve,
    /// An [`AnimationCurve`](crate::AnimationCurve) with more than
    /// [`MAX_CURVE_KEYS`](crate::MAX_CURVE_KEYS) keys.
    #[error("an animation curve has at most 2^24 keys, got {0}")]
    CurveTooLong(usize),
    /// A curve key with a NaN or infinite time or value, a time, value or finite tangent
    /// beyond ±[`MAX_CURVE_MAGNITUDE`](crate::MAX_CURVE_MAGNITUDE), or a used weight
    /// outside `[0, 1]`.
    #[error("curve key {index} has an invalid {what}: {value}")]
    InvalidCurveKey {
        /// The key's index (before sorting).
        index: usize,
        /// `"time"`, `"value"`, `"in_tangent"`, `"out_tangent"`, `"in_weight"` or
        /// `"out_weight"`.
        what: &'static str,
        /// The offending value.
        value: f32,
    },
    /// A punch or shake with a frequency or damping ratio that is negative, non-finite or
    /// above [`MAX_EASE_PARAMETER`](crate::MAX_EASE_PARAMETER).
    #[error("vibration needs a frequency and damping ratio in [0, 1e6], got {frequency} and {damping_ratio}")]
    InvalidVibration {
        /// The frequency.
        frequency: f32,
        /// The damping ratio.
        damping_ratio: f32,
    },
    /// The values can leave the f32 range: for some lane, `|from| + |to − from| · P`
    /// exceeds `f32::MAX`, where `P` bounds the progress the motion reaches (its ease's
    /// extremes, times the loop count plus one for Incremental loops, 2^32 for infinite
    /// ones). Such a motion would show infinities or NaN.
    #[error("lane {lane} can reach {reach:e}, beyond the f32 range")]
    ValueOverflow {
        /// The lane index (0..4).
        lane: usize,
        /// The magnitude the lane could reach.
        reach: f64,
    },
    /// The playback speed is NaN or infinite.
    #[error("playback speed must be finite, got {0}")]
    InvalidPlaybackSpeed(f32),
    /// A [`Target`](crate::Target) the world cannot fill: see [`TargetError`].
    #[error("target refused: {0}")]
    Target(#[from] TargetError),
    /// The [`GroupId`](crate::GroupId) given to [`Motion::group`](crate::Motion::group)
    /// names no group of this world.
    #[error("group refused: {0}")]
    Group(#[from] GroupError),
    /// A motion cannot join a [`Sequence`](crate::Sequence): see
    /// [`SequenceChildError`] for why.
    #[error("motion {handle:?} cannot be added to a sequence: {reason}")]
    InvalidSequenceChild {
        /// The motion that was offered.
        handle: MotionHandle,
        /// Why it was refused.
        reason: SequenceChildError,
    },
    /// A motion of a batch ([`Motion::run_batch`](crate::Motion::run_batch)) is invalid;
    /// none of the batch was added.
    #[error("motion {index} of the batch: {error}")]
    InBatch {
        /// The motion's index in the batch.
        index: usize,
        /// Why it is invalid.
        error: Box<BuildError>,
    },
    /// A batch's base motion has what its motions cannot share: `"callbacks"` (give each
    /// motion its bind with [`Motion::bind_batch`](crate::Motion::bind_batch)),
    /// `"a target"` (give each motion its own with
    /// [`BatchItem::target`](crate::BatchItem::target)), or a start from the current value
    /// or a speed ([`Motion::to`](crate::Motion::to), [`Motion::at_speed`](crate::Motion::at_speed)).
    #[error("a batch's base motion cannot have {0}")]
    NotBatchable(&'static str),
    /// A motion from the current value ([`Motion::to`](crate::Motion::to),
    /// [`Motion::by`](crate::Motion::by)) has none: no host target (a GPU buffer is not
    /// read back), or it was built from a callback (`run_deferred`, which cannot read the
    /// world).
    #[error("the motion starts from the current value, but has no host target to read it from")]
    NoCurrentValue,
    /// [`Motion::at_speed`](crate::Motion::at_speed) with a speed that is not finite and
    /// positive.
    #[error("speed must be finite and > 0, got {0}")]
    InvalidSpeed(f32),
    /// A sequence position or interval is negative, NaN or infinite.
    #[error("sequence {what} must be finite and >= 0, got {value}")]
    InvalidSequenceTime {
        /// `"position"` or `"interval"`.
        what: &'static str,
        /// The offending value.
        value: f32,
    },
}

/// Why a motion cannot join a [`Sequence`](crate::Sequence).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SequenceChildError {
    /// The handle names no live motion of this world (finished, cancelled, never issued,
    /// or issued by another world).
    #[error("it does not exist in this world")]
    NotLive,
    /// The motion has been updated (or re-timed) since it was created: a sequence takes
    /// only fresh motions, whose clocks it can own from the start.
    #[error("it has already been updated")]
    AlreadyStarted,
    /// The motion loops forever, so nothing could come after it.
    #[error("it loops forever")]
    InfiniteLoops,
    /// The motion is already in a sequence (this one or another).
    #[error("it is already in a sequence")]
    AlreadyInSequence,
    /// The motion's playback speed is not 1: a child's clock is its sequence's (set the
    /// speed on the sequence instead).
    #[error("its playback speed is not 1")]
    PlaybackSpeed,
    /// Nesting sequences more than [`MAX_SEQUENCE_DEPTH`](crate::MAX_SEQUENCE_DEPTH) deep.
    #[error("sequences nest too deep")]
    TooDeep,
}

/// Why an operation on a motion handle failed. The `try_*` variants of the operations return
/// `false` in every one of these cases instead.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MotionError {
    /// The motion has finished (completed without `preserve`, or cancelled), the world was
    /// cleared, or the handle was never issued (`MotionHandle::NONE`).
    #[error("motion {0:?} has been destroyed or no longer exists")]
    Destroyed(MotionHandle),
    /// The handle was issued by another `MotionWorld`.
    #[error("motion {0:?} belongs to another world")]
    WrongWorld(MotionHandle),
    /// `complete` on a motion with infinite loops: it has no end.
    #[error("motion {0:?} loops forever and cannot be completed")]
    InfiniteLoops(MotionHandle),
    /// `complete` on a preserved motion that has already completed.
    #[error("motion {0:?} has already completed")]
    AlreadyCompleted(MotionHandle),
    /// A time or speed argument was NaN or infinite.
    #[error("invalid argument for motion {handle:?}: {what} must be finite, got {value}")]
    InvalidArgument {
        /// The motion the operation was for.
        handle: MotionHandle,
        /// The name of the argument.
        what: &'static str,
        /// The offending value.
        value: f64,
    },
    /// `complete`, `cancel`, `set_time` or `set_playback_speed` on a motion in a sequence:
    /// its sequence owns its clock (control the sequence instead).
    #[error("motion {0:?} is in a sequence; control the sequence instead")]
    InSequence(MotionHandle),
    /// `value::<T>` asked for a type other than the one the motion animates.
    #[error("motion {0:?} does not animate the requested value type")]
    TypeMismatch(MotionHandle),
    /// The operation would put the motion's clock, or its anchor (`W − T / speed`), beyond
    /// ±[`MAX_TIME`](crate::MAX_TIME): `set_time` with such a time, `set_playback_speed`
    /// with a speed so small that the current clock needs such an anchor, or `complete` of
    /// a motion whose total duration is that long. The motion is unchanged.
    #[error("motion {handle:?}: {what} {value} puts its clock beyond the time limit of 2^64 s")]
    OutOfRange {
        /// The motion the operation was for.
        handle: MotionHandle,
        /// `"time"`, `"playback speed"` or `"total duration"`.
        what: &'static str,
        /// The offending value.
        value: f64,
    },
}

/// Why a world update was refused. The world is left unchanged.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum UpdateError {
    /// A time delta was NaN, infinite or negative. Play motions backwards with a negative
    /// playback speed instead: world time only moves forward.
    #[error("{kind} delta must be finite and >= 0, got {value}")]
    InvalidDelta {
        /// Which time kind's delta.
        kind: &'static str,
        /// The offending value.
        value: f64,
    },
    /// Another update would take a world time past [`MAX_TIME`](crate::MAX_TIME) (the sum
    /// of the deltas, not one delta, is what is bounded).
    #[error("{kind} world time would pass the limit of 2^64 s (delta {delta})")]
    WorldTimeOverflow {
        /// Which time kind (`"group"`: a group's clock would pass it).
        kind: &'static str,
        /// The refused delta.
        delta: f64,
    },
}

/// Why a target was refused: registering a GPU buffer
/// ([`MotionWorld::add_gpu_target`](crate::MotionWorld::add_gpu_target)), or building a
/// motion with a [`Target`](crate::Target) ([`BuildError::Target`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    /// The target would write past the end of its buffer (or of the part of it a storage
    /// binding can reach on this device).
    #[error("writes f32s up to index {end} (exclusive), but its buffer holds {len}")]
    OutOfBounds {
        /// One past the last f32 index the motion would write.
        end: u64,
        /// f32s in the buffer (within the device's storage binding limit; units of its
        /// [`TargetFormat`](crate::TargetFormat)).
        len: u64,
    },
    /// The target's element stride is smaller than the value's lanes (stride 0 included),
    /// so neighbouring elements would overwrite each other's lanes.
    #[error("element stride {stride} is smaller than the value's {lanes} lanes (elements would overlap)")]
    StrideTooSmall {
        /// The stride given to [`TargetId::at`](crate::TargetId::at).
        stride: u32,
        /// The lanes of the motion's value.
        lanes: usize,
    },
    /// A host array ([`MotionWorld::add_host_target`](crate::MotionWorld::add_host_target))
    /// longer than a target can address ([`MAX_HOST_TARGET_LEN`](crate::MAX_HOST_TARGET_LEN))
    /// or than memory allows.
    #[error(
        "cannot allocate a host array of {len} f32s (at most {} and what memory allows)",
        crate::MAX_HOST_TARGET_LEN
    )]
    TooLarge {
        /// The f32s asked for.
        len: usize,
    },
    /// The buffer lacks `BufferUsages::STORAGE`.
    #[error("its buffer lacks STORAGE usage")]
    NotStorage,
    /// The world has no GPU context.
    #[error("the world has no GPU context attached")]
    NoGpu,
    /// The device refused to bind the buffer (a buffer of another device, or a destroyed
    /// one), or wgpu panicked on it (a buffer of another `wgpu::Instance`).
    #[error("its buffer cannot be bound: {0}")]
    Rejected(String),
    /// [`MotionWorld::create_gpu_target`](crate::MotionWorld::create_gpu_target) could not
    /// create the buffer (over the device's size limit, out of memory, device lost).
    #[error("cannot create the target buffer: {0}")]
    Create(GpuError),
    /// The [`TargetId`](crate::TargetId) names no target of this world: another world's,
    /// removed ([`MotionWorld::remove_target`](crate::MotionWorld::remove_target)), or a GPU
    /// buffer dropped since ([`GpuError::TargetsLost`], a new GPU context, device loss).
    #[error("no such target in this world")]
    Unknown,
}

/// Why a group operation failed ([`MotionWorld::add_group`](crate::MotionWorld::add_group)
/// and the `*_group` methods).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GroupError {
    /// The id names no group of this world: another world's, or removed.
    #[error("no such group in this world: {0:?}")]
    Unknown(crate::GroupId),
    /// The world already has [`MAX_GROUPS`](crate::MAX_GROUPS) groups (each is an entry of
    /// the frame's clock table).
    #[error("a world holds at most {} groups", crate::MAX_GROUPS)]
    TooMany,
    /// A group speed that is negative, NaN or infinite (a group's clock never runs
    /// backwards: its motions' completions are predicted in it).
    #[error("group speed must be finite and >= 0, got {0}")]
    InvalidSpeed(f64),
}

/// Why a GPU operation failed. The world keeps running on the CPU executor after any of them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No adapter matched (`WGPU_BACKEND` / `WGPU_ADAPTER_NAME` respected).
    #[error("no GPU adapter found: {0}")]
    NoAdapter(String),
    /// [`Executor::Gpu`](crate::Executor::Gpu) was asked of a world with no GPU context
    /// attached ([`MotionWorld::attach_gpu`](crate::MotionWorld::attach_gpu)).
    #[error("no GPU context attached")]
    NoContext,
    /// The adapter refused to create a device.
    #[error("requesting a device failed: {0}")]
    RequestDevice(String),
    /// A validation error caught by an error scope (a bug in this crate, or a target buffer
    /// that does not fit its use).
    #[error("GPU validation error: {0}")]
    Validation(String),
    /// An allocation failed.
    #[error("GPU out of memory: {0}")]
    OutOfMemory(String),
    /// The device was lost; every later GPU call fails with this.
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
    /// Mapping a readback buffer failed.
    #[error("mapping a readback buffer failed: {0}")]
    Map(String),
    /// Target buffers the device no longer accepts (destroyed, or left mapped): these
    /// motions lost their [`Target`](crate::Target)s and keep running (the buffers are no
    /// longer registered); every other target and the executor carry on.
    #[error("{} motions lost their GPU targets (buffer destroyed or left mapped)", motions.len())]
    TargetsLost {
        /// The motions whose targets were dropped.
        motions: Vec<MotionHandle>,
    },
    /// [`attach_gpu`](crate::MotionWorld::attach_gpu) while motions have GPU targets (whose
    /// buffers belong to the attached device); the world is unchanged.
    #[error("cannot attach a GPU context while {targets} motions have GPU targets")]
    LiveTargets {
        /// Motions with a GPU target.
        targets: usize,
    },
    /// A buffer would exceed the device's limits.
    #[error("{what} needs {needed} bytes, over the device limit of {limit}")]
    TooLarge {
        /// The buffer.
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// The device limit.
        limit: u64,
    },
}

#[cfg(feature = "gpu")]
impl From<wgpu::Error> for GpuError {
    fn from(error: wgpu::Error) -> Self {
        match error {
            wgpu::Error::OutOfMemory { .. } => GpuError::OutOfMemory(error.to_string()),
            _ => GpuError::Validation(error.to_string()),
        }
    }
}
