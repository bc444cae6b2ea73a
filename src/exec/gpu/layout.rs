//! Rust `#[repr(C)]` Pod mirrors of the WGSL structs in `shaders/`. Keep in sync: a test
//! reads every struct's layout back from naga and compares it with these.

use bytemuck::{Pod, Zeroable};

/// `Frame` in `shaders/types.wgsl`: world clocks and sizes of one evaluate dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct GpuFrame {
    /// World time per time kind (x scaled, y unscaled, z realtime; w unused) as a sum of
    /// three f32s `hi + mid + lo` ([`split3_f64`]): exact, so the GPU forms the same elapsed
    /// time `W − base` as the f64 reference, down to the residual below the base's 48 bits.
    pub world_hi: [f32; 4],
    /// Middle parts of the world times.
    pub world_mid: [f32; 4],
    /// Low parts of the world times.
    pub world_lo: [f32; 4],
    /// Rows to evaluate (from `row_first`).
    pub row_count: u32,
    /// Capacity of each lane section in the lane and output buffers.
    pub lane_stride: u32,
    /// Workgroups along x of a 2D-folded dispatch.
    pub groups_x: u32,
    /// Always 0. The shader ORs it into intermediate results of its exact (two-sum)
    /// arithmetic, so that no shader compiler can prove `(a + b) − a == b` and fold the error
    /// terms away (Mesa does, without it).
    pub opaque_zero: u32,
    /// How sequence children get their clocks: [`CHILD_WALK`], [`CHILD_SKIP`] or
    /// [`CHILD_FROM_VALUES`].
    pub child_mode: u32,
    /// First row of the dispatch's run within the page (each run of rows is a dispatch of
    /// its own pipeline variant).
    pub row_first: u32,
    /// Padding.
    pub _pad1: u32,
    /// Padding.
    pub _pad2: u32,
}

/// [`GpuFrame::child_mode`] of a table of one page: a child walks its ancestors' rows.
pub const CHILD_WALK: u32 = 0;
/// [`GpuFrame::child_mode`] of a paged table's main pass: children are left for later rounds
/// (their ancestors may sit in other pages).
pub const CHILD_SKIP: u32 = 1;
/// [`GpuFrame::child_mode`] of a paged table's child rounds: only children, each clocked by
/// its parent's value from the sequence-values buffer.
pub const CHILD_FROM_VALUES: u32 = 2;

/// `RowOp` in `shaders/apply.wgsl`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct RowOp {
    /// Destination row.
    pub dst: u32,
    /// Source row (move) or staged row (upload).
    pub src: u32,
    /// 0 = move, 1 = upload.
    pub kind: u32,
    /// Padding.
    pub _pad: u32,
}

/// `ApplyParams` in `shaders/apply.wgsl`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct ApplyParams {
    /// First op of this dispatch.
    pub op_offset: u32,
    /// Ops in this dispatch.
    pub op_count: u32,
    /// Lane section stride of the table.
    pub lane_stride: u32,
    /// Lane section stride of the staged rows.
    pub staged_stride: u32,
    /// Workgroups along x.
    pub groups_x: u32,
    /// Padding.
    pub _pad0: u32,
    /// Padding.
    pub _pad1: u32,
    /// Padding.
    pub _pad2: u32,
}

/// `GatherParams` in `shaders/gather.wgsl`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct GatherParams {
    /// Motions to gather.
    pub count: u32,
    /// Lane section stride of the output buffer.
    pub lane_stride: u32,
    /// Workgroups along x.
    pub groups_x: u32,
    /// First row of the page this dispatch binds.
    pub row_base: u32,
    /// One past the page's last row: the dispatch gathers the listed rows in
    /// `row_base..row_end`.
    pub row_end: u32,
    /// Padding.
    pub _pad0: u32,
    /// Padding.
    pub _pad1: u32,
    /// Padding.
    pub _pad2: u32,
}

/// `ScatterParams` in `shaders/scatter.wgsl`: one target buffer's scatter dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct ScatterParams {
    /// Entries (motions targeting this buffer).
    pub count: u32,
    /// Lane section stride of the source values.
    pub src_stride: u32,
    /// Workgroups along x.
    pub groups_x: u32,
    /// 0: read each entry's row of the evaluate outputs; 1: read the entry's own uploaded
    /// values (at `src_offset + entry index`).
    pub by_entry: u32,
    /// First uploaded value of this buffer's entries.
    pub src_offset: u32,
    /// From the evaluate outputs: the first row of the page this dispatch binds.
    pub row_base: u32,
    /// From the evaluate outputs: one past the page's last row (entries of rows outside
    /// `row_base..row_end` are another dispatch's).
    pub row_end: u32,
    /// The packed entry point's format: 1 unorm8, 2 float16 (see [`format_code`]).
    pub format: u32,
}

/// [`ScatterParams::format`] of a target format (0 for f32, which the f32 entry point
/// writes).
#[must_use]
pub const fn format_code(format: crate::table::targets::TargetFormat) -> u32 {
    use crate::table::targets::TargetFormat;
    match format {
        TargetFormat::F32 => 0,
        TargetFormat::Unorm8 => 1,
        TargetFormat::Float16 => 2,
    }
}

/// `TargetEntry` in `shaders/scatter.wgsl` (shared with the host targets).
pub use crate::table::targets::TargetEntry;

/// Splits an f64 into an f32 pair `hi + lo`.
#[inline]
#[must_use]
#[cfg(test)]
pub fn split_f64(x: f64) -> [f32; 2] {
    let hi = x as f32;
    [hi, (x - f64::from(hi)) as f32]
}

/// Splits an f64 into three f32s `hi + mid + lo` that sum to it exactly (for finite values
/// in the normal f32 range; the world clocks are).
#[inline]
#[must_use]
pub fn split3_f64(x: f64) -> [f32; 3] {
    let hi = x as f32;
    let rest = x - f64::from(hi);
    let mid = rest as f32;
    [hi, mid, (rest - f64::from(mid)) as f32]
}

/// Workgroup counts `(x, y)` covering `items` invocations of `size`-wide groups, folded into
/// y past the 65 535-per-axis limit.
#[must_use]
pub fn fold_dispatch(items: u32, size: u32, max_per_axis: u32) -> (u32, u32) {
    let groups = items.div_ceil(size).max(1);
    if groups <= max_per_axis {
        (groups, 1)
    } else {
        let y = groups.div_ceil(max_per_axis);
        (groups.div_ceil(y), y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_covers_every_item() {
        for items in [
            1u32,
            255,
            256,
            257,
            65_535 * 256,
            65_535 * 256 + 1,
            40_000_000,
        ] {
            let (x, y) = fold_dispatch(items, 256, 65_535);
            assert!(x <= 65_535 && y <= 65_535);
            assert!(u64::from(x) * u64::from(y) * 256 >= u64::from(items));
        }
        assert_eq!(fold_dispatch(65_535 * 256 + 1, 256, 65_535), (32_768, 2));
    }

    #[test]
    fn split3_is_exact() {
        for x in [0.0, 1e-3, 1.0 / 3.0, 36_000.123_456_789, 1e6 + 1.0 / 7.0] {
            let [hi, mid, lo] = split3_f64(x);
            assert_eq!(f64::from(hi) + f64::from(mid) + f64::from(lo), x);
            // The first two parts are the pair a row's base is stored as.
            assert_eq!([hi, mid], split_f64(x));
        }
    }

    #[test]
    fn split_keeps_48_bits() {
        let x = 36_000.123_456_789_f64;
        let [hi, lo] = split_f64(x);
        assert!((f64::from(hi) + f64::from(lo) - x).abs() < 1e-9);
    }
}
