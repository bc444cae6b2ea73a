//! The GPU executor: records one frame from its parts and submits it in one command buffer.
//!
//! The parts, each owning its buffers and documenting its per-frame protocol:
//! - [`GpuTable`] (`table.rs`, with `changes.rs`): the rows in paged storage buffers;
//!   growth by copy, the apply pass of the frame's moves and uploads, shrinking;
//! - [`FrameHeader`] (`header.rs`): clocks, per-page pass params and the gather list, one
//!   `write_buffer` per frame;
//! - [`CurveKeys`] (`curve_keys.rs`): the curve key buffer, synced by changed ranges;
//! - [`EvaluatePass`] (`evaluate.rs`): one dispatch per run of one shape per page, each
//!   with its pipeline variant (and a paged table's child rounds);
//! - [`Targets`] (`targets/`, owned by the world, which edits it as motions come and go):
//!   the scatter into user buffers, with the final values of motions that ended between
//!   frames;
//! - [`Readback`] (`readback.rs`): the gather pass and the ring of staging buffers;
//! - [`PassTimer`] (`timing.rs`): timestamps around the evaluate pass.
//!
//! [`GpuExecutor::record_frame`] reads top to bottom in the order the GPU runs them. Between
//! frames nothing is written to the GPU: a motion that ends there gets its final value from
//! the next frame's scatter.

use std::sync::Arc;

use super::buffers::{Gpu, Limits};
use super::context::GpuContext;
use super::curve_keys::CurveKeys;
use super::evaluate::EvaluatePass;
use super::header::FrameHeader;
use super::pipelines::Pipelines;
use super::readback::{MapWait, Readback, ReadbackMode};
use super::stats::GpuUpdateStats;
use super::table::GpuTable;
use super::targets::{self, Source, Targets};
use super::timing::PassTimer;
use crate::core::row::MotionRow;
use crate::error::GpuError;
use crate::error::TargetError;
use crate::table::rows::Rows;

/// The GPU executor: the context, its pipelines and the parts one frame is recorded from.
pub(crate) struct GpuExecutor {
    ctx: GpuContext,
    pipelines: Arc<Pipelines>,
    limits: Limits,
    table: GpuTable,
    header: FrameHeader,
    curve_keys: CurveKeys,
    evaluate: EvaluatePass,
    readback: Readback,
    /// With TIMESTAMP_QUERY only, while pass timing is on.
    timer: Option<PassTimer>,
    /// What this update recorded so far (reset by `begin_update`).
    stats: GpuUpdateStats,
}

/// What the world hands the executor for one update.
pub(crate) struct FrameInput<'a> {
    /// The clock table (the time kinds, then the groups in use).
    pub now: &'a [f64],
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
        let limits = Limits::of(&ctx);
        let (header, evaluate) =
            ctx.scoped(|| (FrameHeader::new(&ctx), EvaluatePass::new(&ctx)))?;
        Ok(Self {
            table: GpuTable::new(limits),
            header,
            curve_keys: CurveKeys::default(),
            evaluate,
            readback: Readback::default(),
            timer: None,
            stats: GpuUpdateStats::default(),
            limits,
            pipelines,
            ctx,
        })
    }

    /// Evaluates every row on the GPU, scatters the targeted motions' values (and the final
    /// values of motions that ended since the last frame) into their buffers, and brings
    /// the bound motions' values back into `rows.outputs` (this update's in blocking mode,
    /// the last available in pipelined mode; `row_of` maps a `(slot, version)` to its row
    /// now, for values read a frame late).
    ///
    /// With `awaited` (the world's `update_async`) in blocking mode, nothing is delivered
    /// here: the caller awaits [`this_update_mapped`](Self::this_update_mapped), then calls
    /// [`deliver_awaited`](Self::deliver_awaited).
    pub fn evaluate(
        &mut self,
        rows: &mut Rows,
        input: &FrameInput<'_>,
        targets: &mut Targets,
        row_of: impl Fn(u32, u32) -> Option<u32>,
        awaited: bool,
    ) -> Result<(), GpuError> {
        self.readback.set_awaited(awaited);
        let ctx = self.ctx.clone();
        ctx.scoped(|| self.record_frame(rows, input, targets))??;
        self.readback
            .deliver(&self.ctx, rows, &row_of, &mut self.stats)
    }

    /// The end of this update's readback mapping, when `evaluate` left it to be awaited.
    pub fn this_update_mapped(&self) -> Option<MapWait> {
        self.readback.this_update_mapped()
    }

    /// Brings this update's awaited values into `rows.outputs` (see `evaluate`).
    pub fn deliver_awaited(
        &mut self,
        rows: &mut Rows,
        row_of: impl Fn(u32, u32) -> Option<u32>,
    ) -> Result<(), GpuError> {
        self.ctx.check_lost()?;
        self.readback
            .deliver_awaited(rows, &row_of, &mut self.stats)
    }

    /// Whether the values this update delivers are an update late (see [`ReadbackMode`]).
    pub fn values_are_late(&self) -> bool {
        self.readback.values_are_late()
    }

    /// Records and submits one frame.
    fn record_frame(
        &mut self,
        rows: &mut Rows,
        input: &FrameInput<'_>,
        targets: &mut Targets,
    ) -> Result<(), GpuError> {
        let gpu = Gpu {
            ctx: &self.ctx,
            pipelines: &self.pipelines,
            limits: self.limits,
        };
        let stats = &mut self.stats;
        let mut encoder =
            gpu.ctx
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: super::transient_label("wgpu-tween update"),
                });

        // 1. The table: grow, apply the frame's moves and uploads, shrink.
        self.table.sync(gpu, rows, &mut encoder, stats)?;
        let pages = self.table.pages().len() as u32;
        if self.table.is_paged() && input.sequence_depth > 0 {
            self.table.ensure_sequence_values(gpu)?;
        }

        // 2. The header: clocks, per-page params and the gather list, in one write.
        let gather_count = input.bound_rows.len() as u32;
        self.readback.reserve(gpu, gather_count)?;
        let groups = input.now.len().saturating_sub(3) as u32;
        self.header
            .reserve(gpu.ctx, gpu.limits, pages, self.readback.capacity(), groups)?;
        let written = self.header.write(
            gpu.ctx,
            gpu.limits,
            &self.table,
            input.now,
            input.bound_rows,
        );
        stats.wrote(written);

        // 3. Curve keys: the buffer sized to the pool, changed ranges uploaded.
        self.curve_keys.sync(gpu, rows, &mut encoder, stats)?;

        // 4. Evaluate, page by page (and a paged table's sequence children in rounds).
        self.evaluate.record(
            gpu,
            &mut encoder,
            &self.table,
            &self.header,
            &self.curve_keys,
            self.timer.as_mut(),
            input.sequence_depth,
            stats,
        )?;

        // 5. Scatter the values of motions with a GPU target into their buffers.
        let source = Source::Outputs {
            pages: self.table.pages(),
            page_rows: self.table.page_rows(),
            generation: self.table.generation(),
        };
        targets.record(gpu.ctx, gpu.pipelines, &mut encoder, source, gpu.limits)?;

        // 6. Gather the bound motions' values into the next readback staging buffer.
        self.readback.record(
            gpu,
            &mut encoder,
            &self.table,
            &self.header,
            gather_count,
            stats,
        )?;

        // 7. Submit; the readback and the timestamps start mapping.
        gpu.ctx.queue().submit([encoder.finish()]);
        stats.submissions += 1;
        self.readback.submitted(input.bound_motions);
        if let Some(timer) = &mut self.timer {
            timer.submitted();
        }
        Ok(())
    }

    /// Writes the targeted motions' values, evaluated by the CPU executor into
    /// `rows.outputs`, and pending final values into their target buffers: one upload and
    /// one scatter submission.
    pub fn fill_targets(&mut self, targets: &mut Targets, rows: &Rows) -> Result<(), GpuError> {
        if targets.is_idle() {
            return Ok(());
        }
        let ctx = self.ctx.clone();
        ctx.scoped(|| {
            let mut encoder =
                ctx.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: super::transient_label("wgpu-tween targets"),
                    });
            let source = Source::Upload(rows);
            targets.record(&ctx, &self.pipelines, &mut encoder, source, self.limits)?;
            ctx.queue().submit([encoder.finish()]);
            self.stats.submissions += 1;
            Ok(())
        })?
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
        new.readback.mode = self.readback.mode;
        new.limits.max_per_axis = self.limits.max_per_axis;
        new.set_pass_timing(self.timer.is_some());
        Ok(new)
    }

    /// Drops what an empty world does not need (an empty world submits nothing, so nothing
    /// would shrink otherwise): an oversized table, grown curve key buffers, the scratch.
    pub fn release_idle(&mut self) {
        self.table.release_idle();
        self.curve_keys.release_idle();
        self.header.release_scratch();
    }

    /// Whether the table after an update of `len` rows may span more than one page (the
    /// world then supplies the depth of its sequences, `FrameInput::sequence_depth`).
    pub fn may_page(&self, len: u32) -> bool {
        self.table.may_page(len)
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

    /// GPU time of the last timed evaluate pass (see `timing.rs`).
    pub fn pass_time(&mut self) -> Option<std::time::Duration> {
        self.timer.as_mut().and_then(PassTimer::last)
    }

    pub fn set_readback_mode(&mut self, mode: ReadbackMode) {
        self.readback.mode = mode;
    }

    pub fn readback_mode(&self) -> ReadbackMode {
        self.readback.mode
    }

    /// Bytes of `buffer` a target scatter can bind on this device.
    pub fn target_binding_size(&self, buffer: &wgpu::Buffer) -> u64 {
        targets::binding_size(buffer, self.limits.max_binding)
    }

    /// Checks that `buffer` can be bound as a target on this device.
    pub fn probe_target(&self, buffer: &wgpu::Buffer) -> Result<(), TargetError> {
        targets::probe(
            &self.ctx,
            &self.pipelines,
            buffer,
            self.target_binding_size(buffer),
        )
    }

    /// Caps the workgroups per dispatch axis (at least 1, at most the device limit).
    pub fn set_max_workgroups_per_axis(&mut self, groups: u32) {
        let limit = Limits::of(&self.ctx).max_per_axis;
        self.limits.max_per_axis = groups.clamp(1, limit);
    }

    /// Row capacity of the GPU table (0 before the first update).
    pub fn capacity(&self) -> u32 {
        self.table.capacity()
    }

    /// Key capacity of the curve key buffer (0 before the first update).
    pub fn curve_key_capacity(&self) -> u32 {
        self.curve_keys.capacity()
    }
}

// Only `MotionRow` crosses into the changes buffer; keep its size in one place.
const _: () = assert!(size_of::<MotionRow>() == 32);
