//! The frame header: one uniform/storage buffer written once per frame with everything the
//! frame's passes read besides the table: per page the evaluate pass's `Frame` of each run
//! of rows (clocks, the run's rows, lane stride), the `Frame` of a paged table's child
//! rounds and the gather pass's params (each in its own 256-byte slot, bound at dynamic or
//! fixed offsets), then the gather list
//! (the rows whose values are read back), then the groups' clocks (the clock table after the
//! three time kinds, which the `Frame` holds; written only while there are groups).
//!
//! Per-frame protocol (the executor, after the table's sync): [`FrameHeader::reserve`] for the
//! table's pages and the readback's capacity (a larger header is a new buffer, and a new
//! [`generation`](FrameHeader::generation)), then [`FrameHeader::write`]: one `write_buffer`.

use super::buffers::{create, put, Limits, ALIGN, EVALUATE_GROUP, SMALL_GROUP};
use super::context::GpuContext;
use super::layout::{
    fold_dispatch, split3_f64, GatherParams, GpuFrame, CHILD_FROM_VALUES, CHILD_SKIP, CHILD_WALK,
};
use super::table::GpuTable;
use crate::error::GpuError;
use crate::table::rows::CLASSES;

/// The frame header buffer, its layout and the bytes it is written from.
pub(super) struct FrameHeader {
    buffer: wgpu::Buffer,
    /// Page slots (a power of two).
    pages: u32,
    /// Rows the gather list has room for.
    list_capacity: u32,
    /// Group clocks the header has room for (at least 1: a binding is never empty).
    clock_capacity: u32,
    /// Rises whenever `buffer` is replaced (bind groups naming it are stale).
    generation: u64,
    bytes: Vec<u8>,
}

impl FrameHeader {
    /// A header of one page slot and the smallest gather list.
    pub fn new(ctx: &GpuContext) -> Self {
        Self {
            buffer: create_buffer(ctx, 1, 0, 1),
            pages: 1,
            list_capacity: 0,
            clock_capacity: 1,
            generation: 0,
            bytes: Vec::new(),
        }
    }

    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Offset of the evaluate `Frame` of page `page`'s run of class `class` (main pass).
    pub fn frame(&self, page: usize, class: usize) -> u64 {
        (page * FRAMES_PER_PAGE + class) as u64 * ALIGN
    }

    /// Offset of page `page`'s evaluate `Frame` for a paged table's child rounds (the
    /// whole page).
    pub fn child_frame(&self, page: usize) -> u64 {
        self.frame(page, CLASSES)
    }

    /// Offset of page `page`'s `GatherParams`.
    pub fn gather(&self, page: usize) -> u64 {
        (u64::from(self.pages) * FRAMES_PER_PAGE as u64 + page as u64) * ALIGN
    }

    /// Offset of the gather list.
    pub fn list(&self) -> u64 {
        list_offset(self.pages)
    }

    /// Offset of the group clocks (`(hi, mid, lo, 0)` per group slot).
    pub fn group_clocks(&self) -> (u64, u64) {
        (
            clocks_offset(self.pages, self.list_capacity),
            u64::from(self.clock_capacity) * 16,
        )
    }

    /// Makes room for `pages` page slots, a gather list of `list_capacity` rows and the
    /// clocks of `groups` group slots.
    pub fn reserve(
        &mut self,
        ctx: &GpuContext,
        limits: Limits,
        pages: u32,
        list_capacity: u32,
        groups: u32,
    ) -> Result<(), GpuError> {
        if pages <= self.pages
            && list_capacity == self.list_capacity
            && groups <= self.clock_capacity
        {
            return Ok(());
        }
        self.pages = self.pages.max(pages.next_power_of_two());
        self.list_capacity = list_capacity;
        self.clock_capacity = self.clock_capacity.max(groups.next_power_of_two());
        limits.check_binding("gather list", list_bytes(list_capacity))?;
        self.buffer = create_buffer(ctx, self.pages, list_capacity, self.clock_capacity);
        self.generation += 1;
        Ok(())
    }

    /// Writes the frame: the clock table `now` (the time kinds' world times for every page
    /// of `table`, then the groups' clocks) and the gather list `bound_rows`. Returns the
    /// bytes written.
    pub fn write(
        &mut self,
        ctx: &GpuContext,
        limits: Limits,
        table: &GpuTable,
        now: &[f64],
        bound_rows: &[u32],
    ) -> usize {
        let w = [now[0], now[1], now[2]].map(split3_f64);
        let gather_count = bound_rows.len() as u32;
        let list = self.list() as usize;
        self.bytes.clear();
        self.bytes.resize(list + bound_rows.len() * 4, 0);
        let child_mode = if table.is_paged() {
            CHILD_SKIP
        } else {
            CHILD_WALK
        };
        for (p, (base, count, stride)) in table.spans().enumerate() {
            let frame = |(row_first, row_count): (u32, u32), child_mode: u32| GpuFrame {
                world_hi: [w[0][0], w[1][0], w[2][0], 0.0],
                world_mid: [w[0][1], w[1][1], w[2][1], 0.0],
                world_lo: [w[0][2], w[1][2], w[2][2], 0.0],
                row_count,
                lane_stride: stride,
                groups_x: fold_dispatch(row_count, EVALUATE_GROUP, limits.max_per_axis).0,
                opaque_zero: 0,
                child_mode,
                row_first,
                ..GpuFrame::default()
            };
            for (class, run) in table.runs_in_page(p).enumerate() {
                let offset = self.frame(p, class);
                put(&mut self.bytes, offset, &frame(run, child_mode));
            }
            let child_frame = frame((0, count), CHILD_FROM_VALUES);
            let gather = GatherParams {
                count: gather_count,
                lane_stride: stride,
                groups_x: fold_dispatch(gather_count, SMALL_GROUP, limits.max_per_axis).0,
                row_base: base,
                row_end: base + count,
                ..GatherParams::default()
            };
            let offsets = (self.child_frame(p), self.gather(p));
            put(&mut self.bytes, offsets.0, &child_frame);
            put(&mut self.bytes, offsets.1, &gather);
        }
        self.bytes[list..].copy_from_slice(bytemuck::cast_slice(bound_rows));
        ctx.queue().write_buffer(&self.buffer, 0, &self.bytes);
        let mut written = self.bytes.len();
        if now.len() > 3 {
            // The groups' clocks: their own write, so a world without groups writes what it
            // always did.
            self.bytes.clear();
            for &w in &now[3..] {
                let [hi, mid, lo] = split3_f64(w);
                self.bytes
                    .extend_from_slice(bytemuck::cast_slice(&[hi, mid, lo, 0.0]));
            }
            ctx.queue()
                .write_buffer(&self.buffer, self.group_clocks().0, &self.bytes);
            written += self.bytes.len();
        }
        written
    }
}

impl FrameHeader {
    /// Drops the bytes scratch (sized by the largest gather list so far).
    pub fn release_scratch(&mut self) {
        self.bytes = Vec::new();
    }
}

/// Header slots per page: a `Frame` per class run, one for the child rounds.
const FRAMES_PER_PAGE: usize = CLASSES + 1;

fn list_offset(pages: u32) -> u64 {
    (FRAMES_PER_PAGE as u64 + 1) * u64::from(pages) * ALIGN
}

/// Bytes of the header's gather list for `capacity` rows (room for 64 at least).
fn list_bytes(capacity: u32) -> u64 {
    u64::from(capacity.max(64)) * 4
}

/// Offset of the group clocks: after the gather list, storage-aligned.
fn clocks_offset(pages: u32, list_capacity: u32) -> u64 {
    super::buffers::align(list_offset(pages) + list_bytes(list_capacity))
}

fn create_buffer(
    ctx: &GpuContext,
    pages: u32,
    list_capacity: u32,
    clock_capacity: u32,
) -> wgpu::Buffer {
    create(
        ctx,
        "wgpu-tween frame header",
        clocks_offset(pages, list_capacity) + u64::from(clock_capacity) * 16,
        wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
    )
}
