//! What the evaluate pass's pipeline variants need to know of a row (see
//! `exec/gpu/variants.rs`): whether only the general variant can evaluate it, whether its
//! timing is plain, the branch it takes in the kernel and the bytes it moves. Pure functions
//! of the row, shared by the GPU executor (which picks a variant per run of rows) and the
//! CPU-side [`EvaluateProfile`](crate::EvaluateProfile), which needs no GPU.

use crate::core::row::{MotionRow, FLAG_EVERY_LOOP_DELAY};
use crate::core::value::Interpolation;

/// Bytes of a row of the timing table: every evaluated row reads its 32-byte row (a GPU
/// fetches memory in 32-byte sectors, so reading fewer of its fields moves the same bytes).
pub(crate) const ROW_BYTES: u64 = 32;

/// Whether only the general variant evaluates `row`: a parametric ease or an animation
/// curve (parameter lanes, loops of their own), or a sequence child (its clock comes from
/// its parents).
#[must_use]
#[inline]
pub(crate) fn needs_general(row: &MotionRow) -> bool {
    row.reads_params() || row.is_child()
}

/// Whether `row`'s timing is plain: speed 1, no delay, no every-loop delay and a positive
/// duration (any loop count and loop type). Variants for plain rows read neither the speed
/// nor the delay and leave out the delay and zero-duration cases.
#[cfg_attr(not(feature = "gpu"), allow(dead_code))] // the GPU executor's
#[must_use]
#[inline]
pub(crate) fn has_plain_timing(row: &MotionRow) -> bool {
    row.speed == 1.0
        && row.delay == 0.0
        && row.flags & FLAG_EVERY_LOOP_DELAY == 0
        && row.duration > 0.0
}

/// Lane pairs the evaluate pass reads and output lanes it writes for `row`: a lerp its own
/// lanes; a quaternion reads and writes all four; punch and shake read four (lane 3 holds
/// their settings) and write their own.
#[must_use]
#[inline]
pub(crate) fn lane_traffic(row: &MotionRow) -> (u32, u32) {
    let lanes = row.lane_count() as u32;
    match row.adapter_bits() {
        a if a == Interpolation::Slerp as u32 || a == Interpolation::Nlerp as u32 => (4, 4),
        a if a == Interpolation::Lerp as u32 => (lanes, lanes),
        _ => (4, lanes),
    }
}

/// Bytes the evaluate pass reads and writes for `row`: its row, its lane pairs (8 bytes
/// each), a parametric row's 16-byte parameter lanes; its output lanes (4 bytes each). A
/// sequence child also reads its ancestors' rows, which are not counted.
#[must_use]
#[inline]
pub(crate) fn row_traffic(row: &MotionRow) -> (u64, u64) {
    let (reads, writes) = lane_traffic(row);
    let params = if row.reads_params() { 16 } else { 0 };
    (
        ROW_BYTES + 8 * u64::from(reads) + params,
        4 * u64::from(writes),
    )
}

/// The path `row` takes through the evaluate kernel, as a key: rows of one key run the same
/// instructions. Named eases, loop types and delays are computed branch-free (selects), so
/// they do not split paths; the adapter, the lane count, a parametric ease's kind and being
/// a sequence child do.
#[must_use]
#[inline]
pub(crate) fn path_key(row: &MotionRow) -> u32 {
    let parametric = if row.reads_params() {
        row.ease_bits()
    } else {
        0
    };
    row.adapter_bits()
        | (row.lane_count() as u32) << 4
        | parametric << 8
        | u32::from(row.is_child()) << 16
}
