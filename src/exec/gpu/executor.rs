//! The GPU executor: mirrors the rows in storage buffers and evaluates them in one compute
//! dispatch per update (one per page of the table past `page_rows`, see `table.rs`).
//!
//! Per update, one command buffer: (1) grow the table by GPU copy if needed, (2) apply the
//! frame's row changes (moves from swap-removes, then uploads of new and re-anchored rows),
//! (3) shrink the table if it is a quarter full (after the moves, which may read rows past the
//! new capacity), (4) evaluate every row, (5) scatter the values of motions with a GPU target
//! into their buffers, (6) gather the values of motions with a CPU bind and copy them into a
//! readback staging buffer. `write_buffer` calls: the frame header (clocks, params, gather
//! list); in frames with changes, the changes (one per page changed); with targets, their
//! params and changed entries.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::context::GpuContext;
use super::layout::{
    fold_dispatch, split3_f64, GatherParams, GpuFrame, CHILD_FROM_VALUES, CHILD_SKIP, CHILD_WALK,
};
use super::pipelines::Pipelines;
use super::readback::{ReadbackMode, Staging, MAPPED, RING};
use super::stats::GpuUpdateStats;
use super::table::{page_rows, Table};
use super::targets::{self, Source, Targets};
use super::timing::PassTimer;
use crate::core::row::MotionRow;
use crate::error::BuildError;
use crate::error::GpuError;
use crate::table::rows::Rows;

/// Uniform and storage offsets must be multiples of this (the WebGPU maximum of the limits).
const ALIGN: u64 = 256;

pub(super) const EVALUATE_GROUP: u32 = 256;
pub(super) const SMALL_GROUP: u32 = 64;

pub(super) fn align(x: u64) -> u64 {
    x.div_ceil(ALIGN) * ALIGN
}

/// The frame header's layout for `pages` page slots: each page's evaluate `Frame` for the
/// main pass, then for the child rounds of a paged table, then each page's `GatherParams`
/// (256 bytes apart, uniform offsets), then the gather list.
#[derive(Clone, Copy)]
pub(super) struct HeaderLayout {
    pages: u32,
}

impl HeaderLayout {
    pub(super) fn frame(self, page: usize) -> u64 {
        page as u64 * ALIGN
    }

    pub(super) fn child_frame(self, page: usize) -> u64 {
        (u64::from(self.pages) + page as u64) * ALIGN
    }

    pub(super) fn gather(self, page: usize) -> u64 {
        (2 * u64::from(self.pages) + page as u64) * ALIGN
    }

    pub(super) fn list(self) -> u64 {
        3 * u64::from(self.pages) * ALIGN
    }
}

pub(crate) struct GpuExecutor {
    pub(super) ctx: GpuContext,
    pub(super) pipelines: Arc<Pipelines>,
    /// Timestamps around the evaluate pass (`src/gpu/timing.rs`), with TIMESTAMP_QUERY only.
    pub(super) timer: Option<PassTimer>,
    pub(super) table: Option<Table>,
    pub(super) header: wgpu::Buffer,
    /// Page slots of the header (a power of two; see `HeaderLayout`).
    header_pages: u32,
    pub(super) gather_capacity: u32,
    /// Per page, the staging of its row changes (`changes.rs`).
    pub(super) changes: Vec<Option<wgpu::Buffer>>,
    pub(super) gathered: Option<wgpu::Buffer>,
    pub(super) ring: Vec<Staging>,
    pub(super) next_staging: usize,
    /// Per page, the bind groups of the evaluate and gather passes (empty when stale).
    pub(super) evaluate_groups: Vec<wgpu::BindGroup>,
    pub(super) gather_groups: Vec<wgpu::BindGroup>,
    pub(super) mode: ReadbackMode,
    pub(super) max_per_axis: u32,
    pub(super) max_binding: u64,
    max_buffer: u64,
    /// Most rows of a page of the table (`table::page_rows`).
    pub(super) page_rows: u32,
    /// Rises whenever the table is replaced (target bind groups made for it are stale).
    pub(super) table_generation: u64,
    // Scratch reused every frame.
    pub(super) moves: Vec<[u32; 2]>,
    pub(super) uploads: Vec<u32>,
    pub(super) bytes: Vec<u8>,
    /// The curve key buffer (binding 5 of the evaluate pass) and its key capacity.
    pub(super) curve_keys: Option<wgpu::Buffer>,
    pub(super) curve_capacity: u32,
    /// Changed key ranges are written here (one `write_buffer` per frame), then copied.
    pub(super) curve_staging: Option<wgpu::Buffer>,
    pub(super) curve_ranges: Vec<[u32; 2]>,
    pub(super) curve_bytes: Vec<u8>,
    /// Bound as the sequence values of a table without them (`Table::sequence_values`).
    pub(super) values_placeholder: wgpu::Buffer,
    /// What this update recorded so far (reset by `begin_update`).
    pub(super) stats: GpuUpdateStats,
}

/// What the world hands the executor for one update.
pub(crate) struct FrameInput<'a> {
    pub now: &'a [f64; 3],
    /// Rows with a CPU bind (to read back), and their `(slot, version)`.
    pub bound_rows: &'a [u32],
    pub bound_motions: &'a [[u32; 2]],
    /// The deepest nesting of the live sequences (1 for a sequence of plain motions, 0
    /// without sequences), when [`GpuExecutor::may_page`] says the table may span pages:
    /// a paged table evaluates children in one round per level.
    pub sequence_depth: u32,
}

impl GpuExecutor {
    pub fn new(ctx: GpuContext) -> Result<Self, GpuError> {
        let pipelines = ctx.pipelines()?;
        let limits = ctx.device().limits();
        let header = ctx.scoped(|| create_header(&ctx, 0, 1))??;
        let max_binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let page_rows = page_rows(max_binding, limits.max_buffer_size);
        let ctx_placeholder = ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-tween sequence values placeholder"),
            size: 256,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        Ok(Self {
            timer: None,
            max_per_axis: limits.max_compute_workgroups_per_dimension,
            max_binding,
            max_buffer: limits.max_buffer_size,
            page_rows,
            ctx,
            pipelines,
            table: None,
            header,
            header_pages: 1,
            gather_capacity: 0,
            changes: Vec::new(),
            gathered: None,
            ring: Vec::new(),
            next_staging: 0,
            evaluate_groups: Vec::new(),
            gather_groups: Vec::new(),
            mode: ReadbackMode::Blocking,
            table_generation: 0,
            moves: Vec::new(),
            uploads: Vec::new(),
            bytes: Vec::new(),
            curve_keys: None,
            curve_capacity: 0,
            curve_staging: None,
            curve_ranges: Vec::new(),
            curve_bytes: Vec::new(),
            stats: GpuUpdateStats::default(),
            values_placeholder: ctx_placeholder,
        })
    }

    /// Starts the counters of a new update.
    pub fn begin_update(&mut self) {
        self.stats = GpuUpdateStats::default();
    }

    /// What this update recorded so far (target writes are counted by `Targets`).
    pub fn stats(&self) -> GpuUpdateStats {
        self.stats
    }

    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    pub fn pipelines(&self) -> &Pipelines {
        &self.pipelines
    }

    /// A new executor on the same context with this one's settings (readback mode, pass
    /// timing, dispatch cap) and no table: after a failed submission, whose changes this
    /// one's table may lack.
    pub fn restarted(&self) -> Result<Self, GpuError> {
        let mut new = Self::new(self.ctx.clone())?;
        new.mode = self.mode;
        new.max_per_axis = self.max_per_axis;
        new.set_pass_timing(self.timer.is_some());
        Ok(new)
    }

    /// Starts (or stops) timing the evaluate pass; returns whether passes are timed (the
    /// device may lack timestamp queries).
    pub fn set_pass_timing(&mut self, on: bool) -> bool {
        if !on {
            self.timer = None;
        } else if self.timer.is_none() {
            self.timer = PassTimer::new(&self.ctx);
        }
        self.timer.is_some()
    }

    /// GPU time of the last timed evaluate pass (see `src/gpu/timing.rs`).
    pub fn pass_time(&mut self) -> Option<std::time::Duration> {
        self.timer.as_mut().and_then(PassTimer::last)
    }

    pub fn set_readback_mode(&mut self, mode: ReadbackMode) {
        self.mode = mode;
    }

    pub fn readback_mode(&self) -> ReadbackMode {
        self.mode
    }

    /// Writes the targeted motions' values, evaluated by the CPU executor into
    /// `rows.outputs`, into their target buffers: one upload and one scatter submission.
    pub fn fill_targets(&mut self, targets: &mut Targets, rows: &Rows) -> Result<(), GpuError> {
        if targets.is_empty() {
            return Ok(());
        }
        let ctx = self.ctx.clone();
        ctx.scoped(|| {
            let mut encoder =
                ctx.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: super::transient_label("wgpu-tween targets"),
                    });
            targets.record(
                &ctx,
                &self.pipelines,
                &mut encoder,
                Source::Upload(rows),
                self.max_per_axis,
            )?;
            ctx.queue().submit([encoder.finish()]);
            self.stats.submissions += 1;
            Ok(())
        })?
    }

    /// Bytes of `buffer` a target scatter can bind on this device.
    pub fn target_binding_size(&self, buffer: &wgpu::Buffer) -> u64 {
        targets::binding_size(buffer, self.max_binding)
    }

    /// Checks that `buffer` can be bound as a target on this device.
    pub fn probe_target(&self, buffer: &wgpu::Buffer) -> Result<(), BuildError> {
        targets::probe(
            &self.ctx,
            &self.pipelines,
            buffer,
            self.target_binding_size(buffer),
        )
    }

    /// Caps the workgroups per dispatch axis (at least 1, at most the device limit).
    pub fn set_max_workgroups_per_axis(&mut self, groups: u32) {
        let limit = self
            .ctx
            .device()
            .limits()
            .max_compute_workgroups_per_dimension;
        self.max_per_axis = groups.clamp(1, limit);
    }

    /// Row capacity of the GPU table (0 before the first update).
    pub fn capacity(&self) -> u32 {
        self.table.as_ref().map_or(0, |t| t.capacity)
    }

    /// Evaluates every row on the GPU and brings the bound motions' values back into
    /// `rows.outputs` (this update's in blocking mode, the last available in pipelined mode;
    /// `row_of` maps a `(slot, version)` to its row now, for values read a frame late).
    pub fn evaluate(
        &mut self,
        rows: &mut Rows,
        input: &FrameInput<'_>,
        targets: &mut Targets,
        row_of: impl Fn(u32, u32) -> Option<u32>,
    ) -> Result<(), GpuError> {
        let ctx = self.ctx.clone();
        let submitted = ctx.scoped(|| self.record_and_submit(rows, input, targets))??;
        match self.mode {
            ReadbackMode::Blocking => {
                if let Some(k) = submitted {
                    self.wait_for_map(k)?;
                    self.read_back(k, rows, &row_of)?;
                }
            }
            ReadbackMode::Pipelined => {
                let _ = self.ctx.device().poll(wgpu::PollType::Poll);
                // The newest mapped entry other than the one just submitted. The ring is
                // filled in order, so walking back from the newest submission finds it.
                let newest = (self.next_staging + RING - 1) % RING;
                for back in 0..RING {
                    let k = (newest + RING - back) % RING;
                    if Some(k) == submitted {
                        continue;
                    }
                    if self
                        .ring
                        .get(k)
                        .is_some_and(|s| s.state.load(Ordering::Acquire) == MAPPED)
                    {
                        self.read_back(k, rows, &row_of)?;
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// Records and submits one update; returns the ring entry the bound values go to.
    fn record_and_submit(
        &mut self,
        rows: &mut Rows,
        input: &FrameInput<'_>,
        targets: &mut Targets,
    ) -> Result<Option<usize>, GpuError> {
        let device = self.ctx.device().clone();
        let queue = self.ctx.queue().clone();
        let len = rows.len() as u32;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: super::transient_label("wgpu-tween update"),
        });

        // 1. Table size. Growth (keeping the old contents by GPU copy) comes before the
        // changes, which may write rows past the old capacity; a shrink comes after them,
        // since moves may read rows past the new capacity.
        self.grow_table(len, &mut encoder)?;
        let Some(table) = &self.table else {
            return Ok(None);
        };
        let shrink = self.shrink_target(len);
        let paged = shrink.unwrap_or(table.capacity) > self.page_rows;

        // 2. Changes: moves first (an upload may land on a row a move reads), then uploads.
        self.collect_changes(rows);
        if self.has_changes() {
            self.record_changes(rows, &mut encoder)?;
        }
        if let Some(wanted) = shrink {
            self.resize_table(wanted, len, &mut encoder)?;
        }

        // 3. The header: per page the clocks and pass params, then the gather list, in one
        // write.
        let page_count = self.table.as_ref().map_or(1, |t| t.pages.len());
        self.ensure_header_pages(page_count as u32)?;
        let gather_count = input.bound_rows.len() as u32;
        self.ensure_gather(gather_count)?;
        let layout = HeaderLayout {
            pages: self.header_pages,
        };
        let w = input.now.map(split3_f64);
        self.bytes.clear();
        self.bytes
            .resize(layout.list() as usize + input.bound_rows.len() * 4, 0);
        for (p, (base, count, stride)) in
            page_spans(self.table.as_ref(), self.page_rows, len).enumerate()
        {
            let frame = GpuFrame {
                world_hi: [w[0][0], w[1][0], w[2][0], 0.0],
                world_mid: [w[0][1], w[1][1], w[2][1], 0.0],
                world_lo: [w[0][2], w[1][2], w[2][2], 0.0],
                row_count: count,
                lane_stride: stride,
                groups_x: fold_dispatch(count, EVALUATE_GROUP, self.max_per_axis).0,
                opaque_zero: 0,
                child_mode: if paged { CHILD_SKIP } else { CHILD_WALK },
                ..GpuFrame::default()
            };
            let child_frame = GpuFrame {
                child_mode: CHILD_FROM_VALUES,
                ..frame
            };
            let gather = GatherParams {
                count: gather_count,
                lane_stride: stride,
                groups_x: fold_dispatch(gather_count, SMALL_GROUP, self.max_per_axis).0,
                row_base: base,
                row_end: base + count,
                ..GatherParams::default()
            };
            put(&mut self.bytes, layout.frame(p), &frame);
            put(&mut self.bytes, layout.child_frame(p), &child_frame);
            put(&mut self.bytes, layout.gather(p), &gather);
        }
        self.bytes[layout.list() as usize..]
            .copy_from_slice(bytemuck::cast_slice(input.bound_rows));
        queue.write_buffer(&self.header, 0, &self.bytes);
        self.stats.wrote(self.bytes.len());

        let staging_index = if gather_count > 0 {
            Some(self.pick_staging()?)
        } else {
            None
        };

        // Curve keys: the buffer sized to the key table, changed ranges uploaded.
        self.sync_curve_keys(rows, &mut encoder)?;

        // 4. Evaluate, page by page (and a paged table's sequence children in rounds).
        self.record_evaluate(&mut encoder, len, input.sequence_depth, layout)?;
        let table = self
            .table
            .as_ref()
            .ok_or_else(|| GpuError::Validation("no table".into()))?;

        // 5. Write the values of motions with a GPU target into their buffers.
        targets.record(
            &self.ctx,
            &self.pipelines,
            &mut encoder,
            Source::Outputs {
                pages: &table.pages,
                page_rows: self.page_rows,
                generation: self.table_generation,
            },
            self.max_per_axis,
        )?;

        // 6. Gather the bound motions' values (each page's dispatch takes the rows it holds)
        // and copy them to a staging buffer, mapped once the submission is done.
        if let Some(k) = staging_index {
            self.record_gather(&mut encoder, k, layout, gather_count, len)?;
        }
        queue.submit([encoder.finish()]);
        self.stats.submissions += 1;
        if let Some(k) = staging_index {
            self.map_staging(k, gather_count, input.bound_motions);
        }
        if let Some(timer) = &mut self.timer {
            timer.submitted();
        }
        if let Some(table) = &mut self.table {
            table.len = len;
        }
        Ok(staging_index)
    }

    /// Gives the header at least `pages` page slots.
    fn ensure_header_pages(&mut self, pages: u32) -> Result<(), GpuError> {
        if pages > self.header_pages {
            self.header_pages = pages.next_power_of_two();
            self.rebuild_header()?;
        }
        Ok(())
    }

    /// Replaces the header for the current page slots and gather capacity.
    pub(super) fn rebuild_header(&mut self) -> Result<(), GpuError> {
        self.check_size("gather list", gather_list_bytes(self.gather_capacity))?;
        self.header = create_header(&self.ctx, self.gather_capacity, self.header_pages)?;
        self.evaluate_groups.clear();
        self.gather_groups.clear();
        Ok(())
    }

    /// The table was replaced: every bind group that names its buffers is stale.
    pub(super) fn forget_bind_groups(&mut self) {
        self.evaluate_groups.clear();
        self.gather_groups.clear();
        self.table_generation += 1;
    }

    /// Errors unless a buffer of `needed` bytes fits the device.
    pub(super) fn check_buffer_size(
        &self,
        what: &'static str,
        needed: u64,
    ) -> Result<(), GpuError> {
        fits(what, needed, self.max_buffer)
    }

    /// Errors unless a binding of `needed` bytes fits the device.
    pub(super) fn check_size(&self, what: &'static str, needed: u64) -> Result<(), GpuError> {
        fits(what, needed, self.max_binding)
    }
}

/// `needed` bytes of `what` within the device limit `limit`, or [`GpuError::TooLarge`].
fn fits(what: &'static str, needed: u64, limit: u64) -> Result<(), GpuError> {
    if needed > limit {
        Err(GpuError::TooLarge {
            what,
            needed,
            limit,
        })
    } else {
        Ok(())
    }
}

fn create_header(
    ctx: &GpuContext,
    gather_capacity: u32,
    pages: u32,
) -> Result<wgpu::Buffer, GpuError> {
    Ok(ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("wgpu-tween frame header"),
        size: HeaderLayout { pages }.list() + gather_list_bytes(gather_capacity),
        usage: wgpu::BufferUsages::UNIFORM
            | wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    }))
}

/// Bytes of the header's gather list for `capacity` motions (room for 64 at least).
fn gather_list_bytes(capacity: u32) -> u64 {
    u64::from(capacity.max(64)) * 4
}

/// Per page of `table`: its first row, the rows of `len` it holds, its lane stride.
pub(super) fn page_spans(
    table: Option<&Table>,
    page_rows: u32,
    len: u32,
) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
    let pages = table.map_or(&[][..], |t| &t.pages[..]);
    pages.iter().enumerate().map(move |(p, page)| {
        let base = p as u32 * page_rows;
        (
            base,
            len.saturating_sub(base).min(page.capacity),
            page.capacity,
        )
    })
}

pub(super) fn put<T: bytemuck::Pod>(bytes: &mut [u8], offset: u64, value: &T) {
    let offset = offset as usize;
    let data = bytemuck::bytes_of(value);
    bytes[offset..offset + data.len()].copy_from_slice(data);
}

pub(super) fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

pub(super) fn range(
    binding: u32,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset,
            size: wgpu::BufferSize::new(size),
        }),
    }
}

// Only `MotionRow` crosses into the changes buffer; keep its size in one place.
const _: () = assert!(size_of::<MotionRow>() == 32);
