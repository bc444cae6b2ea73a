//! Recording the evaluate pass: one dispatch per page of the table (see `table.rs`).
//!
//! On a table of one page a sequence child finds its clock by walking its ancestors' rows
//! (`child_clock` in `shaders/evaluate.wgsl`). Past one page an ancestor may sit in another
//! page than the one a dispatch binds, so the main pass skips children, and then, once per
//! level of nesting, every page's values (lane 0 of its outputs: a sequence's value is its
//! children's clock) are copied into one buffer indexed by row, and a round of dispatches
//! evaluates the children from their parents' values there. A level-`d` child is right after
//! round `d`; the extra cost is rounds × pages dispatches and copies, only for paged tables
//! that hold children.

use super::executor::{page_spans, range, whole, GpuExecutor, HeaderLayout, EVALUATE_GROUP};
use super::layout::{fold_dispatch, GpuFrame};
use super::timing::PassTimer;
use crate::error::GpuError;

impl GpuExecutor {
    /// Records the evaluate pass of `len` rows, and a paged table's child rounds for
    /// sequences nested `sequence_depth` deep.
    pub(super) fn record_evaluate(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        len: u32,
        sequence_depth: u32,
        layout: HeaderLayout,
    ) -> Result<(), GpuError> {
        let page_count = self.table.as_ref().map_or(0, |t| t.pages.len());
        if page_count > 1 && sequence_depth > 0 {
            self.ensure_sequence_values()?;
        }
        self.make_evaluate_groups(layout)?;
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: super::transient_label("wgpu-tween evaluate"),
                timestamp_writes: self.timer.as_mut().and_then(PassTimer::begin),
            });
            pass.set_pipeline(&self.pipelines.evaluate);
            let spans = page_spans(self.table.as_ref(), self.page_rows, len);
            for ((_, count, _), group) in spans.zip(&self.evaluate_groups) {
                if count > 0 {
                    pass.set_bind_group(0, group, &[]);
                    let (x, y) = fold_dispatch(count, EVALUATE_GROUP, self.max_per_axis);
                    pass.dispatch_workgroups(x, y, 1);
                    self.stats.evaluate_dispatches += 1;
                    self.stats.dispatches += 1;
                }
            }
        }
        if let Some(timer) = &self.timer {
            timer.resolve(encoder);
        }
        let Some(table) = &self.table else {
            return Ok(());
        };
        let Some(values) = table.sequence_values.as_ref().filter(|_| page_count > 1) else {
            return Ok(());
        };
        for _ in 0..sequence_depth {
            let spans = page_spans(Some(table), self.page_rows, len);
            for ((base, count, _), page) in spans.zip(&table.pages) {
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
            pass.set_pipeline(&self.pipelines.evaluate);
            let spans = page_spans(Some(table), self.page_rows, len);
            let child_groups = &self.evaluate_groups[page_count..];
            for ((_, count, _), group) in spans.zip(child_groups) {
                if count > 0 {
                    pass.set_bind_group(0, group, &[]);
                    let (x, y) = fold_dispatch(count, EVALUATE_GROUP, self.max_per_axis);
                    pass.dispatch_workgroups(x, y, 1);
                    self.stats.evaluate_dispatches += 1;
                    self.stats.dispatches += 1;
                }
            }
        }
        Ok(())
    }

    /// Makes the evaluate pass's bind groups, if stale: one per page for the main pass and,
    /// past one page, one per page for the child rounds (their own `Frame`s).
    fn make_evaluate_groups(&mut self, layout: HeaderLayout) -> Result<(), GpuError> {
        let (Some(table), Some(curve_keys)) = (&self.table, &self.curve_keys) else {
            return Err(GpuError::Validation("no table or curve key buffer".into()));
        };
        let pages = table.pages.len();
        let wanted = if pages > 1 { 2 * pages } else { pages };
        if self.evaluate_groups.len() == wanted {
            return Ok(());
        }
        let device = self.ctx.device();
        self.evaluate_groups = (0..wanted)
            .map(|slot| {
                let p = slot % pages;
                let page = &table.pages[p];
                let frame = if slot < pages {
                    layout.frame(p)
                } else {
                    layout.child_frame(p)
                };
                let entries = [
                    range(0, &self.header, frame, size_of::<GpuFrame>() as u64),
                    whole(1, &page.rows),
                    whole(2, &page.lanes),
                    whole(3, &page.outputs),
                    whole(4, &page.params),
                    whole(5, curve_keys),
                    whole(
                        6,
                        table
                            .sequence_values
                            .as_ref()
                            .unwrap_or(&self.values_placeholder),
                    ),
                ];
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("wgpu-tween evaluate"),
                    layout: &self.pipelines.evaluate_layout,
                    entries: &entries,
                })
            })
            .collect();
        Ok(())
    }
}
