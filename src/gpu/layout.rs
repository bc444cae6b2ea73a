//! Rust `#[repr(C)]` Pod mirrors of the WGSL structs in `shaders/`. Keep in sync: a test
//! reads every struct's layout back from naga and compares it with these.

use bytemuck::{Pod, Zeroable};

/// `Frame` in `shaders/types.wgsl`: world clocks and sizes of one evaluate dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct GpuFrame {
    /// Scaled (x, y) and unscaled (z, w) world time as hi/lo pairs.
    pub world_01: [f32; 4],
    /// Realtime world time (x, y) as a hi/lo pair.
    pub world_2: [f32; 4],
    /// Rows to evaluate.
    pub row_count: u32,
    /// Capacity of each lane section in the lane and output buffers.
    pub lane_stride: u32,
    /// Workgroups along x of a 2D-folded dispatch.
    pub groups_x: u32,
    /// Padding.
    pub _pad: u32,
}

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
    /// Padding.
    pub _pad: u32,
}

/// Splits an f64 into an f32 pair `hi + lo`.
#[inline]
#[must_use]
pub fn split_f64(x: f64) -> [f32; 2] {
    let hi = x as f32;
    [hi, (x - f64::from(hi)) as f32]
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
        for items in [1u32, 255, 256, 257, 65_535 * 256, 65_535 * 256 + 1, 40_000_000] {
            let (x, y) = fold_dispatch(items, 256, 65_535);
            assert!(x <= 65_535 && y <= 65_535);
            assert!(u64::from(x) * u64::from(y) * 256 >= u64::from(items));
        }
        assert_eq!(fold_dispatch(65_535 * 256 + 1, 256, 65_535), (32_768, 2));
    }

    #[test]
    fn split_keeps_48_bits() {
        let x = 36_000.123_456_789_f64;
        let [hi, lo] = split_f64(x);
        assert!((f64::from(hi) + f64::from(lo) - x).abs() < 1e-9);
    }
}
