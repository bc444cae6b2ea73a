//! The evaluate pass: per page of the table (see `table.rs`), one dispatch per run of rows
//! of one shape class, each with the pipeline variant its rows need (`variants.rs`).
//!
//! On a table of one page a sequence child finds its clock by walking its ancestors' rows
//! (`child_clock` in `shaders/evaluate.wgsl`). Past one page an ancestor may sit in another
//! page than the one a dispatch binds, so the main pass skips children, and then, once per
//! level of nesting, every page's values (lane 0 of its outputs: a sequence's value is its
//! children's clock) are copied into one buffer indexed by row, and a round of dispatches
//! evaluates the children from their parents' values there. A level-`d` child is right after
//! round `d`; the extra cost is rounds × pages dispatches and copies, only for paged tables
//! that hold children.
//!
//! Per-frame protocol: once the table, the header and the curve keys are synced, the
//! executor calls [`EvaluatePass::record`], which remakes its bind groups if any of those
//! three replaced a buffer, and records the pass (timed by the pass timer, if any).

use super::buffers::{create, range, whole, Gpu, EVALUATE_GROUP};
use super::curve_keys::CurveKeys;
use super::header::FrameHeader;
use super::layout::{fold_dispatch, GpuFrame};
use super::stats::GpuUpdateStats;
use super::table::GpuTable;
use super::timing::PassTimer;
use super::variants::GENERAL;
use crate::error::GpuError;

/// The generations of the table, header and curve keys a set of bind groups was made for.
type Key = (u64, u64, u64);

/// The evaluate pass's bind groups: one per page, its `Frame` (per run, and for the child
/// rounds) chosen by dynamic offset.
pub(super) struct EvaluatePass {
    groups: Vec<wgpu::BindGroup>,
    key: Option<Key>,
    /// Bound as the sequence values of a table without them.
    values_placeholder: wgpu::Buffer,
}

impl EvaluatePass {
    pub fn new(ctx: &super::GpuContext) -> Self {
        Self {
            groups: Vec::new(),
            key: None,
            values_placeholder: create(
                ctx,
                "wgpu-tween sequence values placeholder",
                256,
                wgpu::BufferUsages::STORAGE,
            ),
        }
    }

    /// Records the evaluate pass over `table`, and a paged table's child rounds for
    /// sequences nested `sequence_depth` deep.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        gpu: Gpu<'_>,
        encoder: &mut wgpu::CommandEncoder,
        table: &GpuTable,
        header: &FrameHeader,
        curve_keys: &CurveKeys,
        timer: Option<&mut PassTimer>,
        sequence_depth: u32,
        stats: &mut GpuUpdateStats,
    ) -> Result<(), GpuError> {
        self.make_groups(gpu, table, header, curve_keys)?;
        let mut timer = timer;
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: super::transient_label("wgpu-tween evaluate"),
                timestamp_writes: timer.as_deref_mut().and_then(PassTimer::begin),
            });
            self.dispatch_runs(&mut pass, gpu, table, header, stats);
        }
        if let Some(timer) = timer {
            timer.resolve(encoder);
        }
        let Some(values) = table.sequence_values().filter(|_| table.is_paged()) else {
            return Ok(());
        };
        for _ in 0..sequence_depth {
            for ((base, count, _), page) in table.spans().zip(table.pages()) {
                if count > 0 {
                    encoder.copy_buffer_to_buffer(
                        &page.outputs,
                        0,
                        values,
                        u64::from(base) * 4,
                        u64::from(count) * 4,
                    );
                }
            }
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: super::transient_label("wgpu-tween evaluate children"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&gpu.pipelines.evaluate[GENERAL]);
            for (p, (_, count, _)) in table.spans().enumerate() {
                self.dispatch(&mut pass, gpu, (p, header.child_frame(p)), count, stats);
            }
        }
        Ok(())
    }

    /// Per page, one dispatch per class run holding rows, with the run's variant.
    fn dispatch_runs(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        gpu: Gpu<'_>,
        table: &GpuTable,
        header: &FrameHeader,
        stats: &mut GpuUpdateStats,
    ) {
        let mut bound = None;
        for p in 0..table.pages().len() {
            for (class, (_, count)) in table.runs_in_page(p).enumerate() {
                if count == 0 {
                    continue;
                }
                let variant = table.run_needs(class).variant(class);
                if bound != Some(variant) {
                    pass.set_pipeline(&gpu.pipelines.evaluate[variant]);
                    bound = Some(variant);
                }
                if variant == GENERAL {
                    stats.general_rows += count;
                }
                self.dispatch(pass, gpu, (p, header.frame(p, class)), count, stats);
            }
        }
    }

    /// One dispatch of `count` rows of page `page`, its `Frame` at `frame` in the header.
    fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        gpu: Gpu<'_>,
        (page, frame): (usize, u64),
        count: u32,
        stats: &mut GpuUpdateStats,
    ) {
        if count == 0 {
            return;
        }
        pass.set_bind_group(0, &self.groups[page], &[frame as u32]);
        let (x, y) = fold_dispatch(count, EVALUATE_GROUP, gpu.limits.max_per_axis);
        pass.dispatch_workgroups(x, y, 1);
        stats.evaluate_dispatches += 1;
        stats.dispatches += 1;
    }

    /// Makes the bind groups, if stale.
    fn make_groups(
        &mut self,
        gpu: Gpu<'_>,
        table: &GpuTable,
        header: &FrameHeader,
        curve_keys: &CurveKeys,
    ) -> Result<(), GpuError> {
        let key = (
            table.generation(),
            header.generation(),
            curve_keys.generation(),
        );
        if self.key == Some(key) {
            return Ok(());
        }
        let Some(keys) = curve_keys.buffer() else {
            return Err(GpuError::Validation("no curve key buffer".into()));
        };
        let values = table.sequence_values().unwrap_or(&self.values_placeholder);
        let clocks = header.group_clocks();
        self.groups = (table.pages().iter())
            .map(|page| {
                let entries = [
                    range(0, header.buffer(), 0, Some(size_of::<GpuFrame>() as u64)),
                    whole(1, &page.rows),
                    whole(2, &page.lanes),
                    whole(3, &page.outputs),
                    whole(4, &page.params),
                    whole(5, keys),
                    whole(6, values),
                    range(7, header.buffer(), clocks.0, Some(clocks.1)),
                ];
                gpu.ctx
                    .device()
                    .create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("wgpu-tween evaluate"),
                        layout: &gpu.pipelines.evaluate_layout,
                        entries: &entries,
                    })
            })
            .collect();
        self.key = Some(key);
        Ok(())
    }
}
