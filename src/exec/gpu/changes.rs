//! One frame's row changes on the GPU: moves left by swap-removes and uploads of new and
//! re-anchored rows, applied page by page (see `table.rs`) by the apply pass.
//!
//! A page's changes go up in one `write_buffer` into that page's staging buffer: two
//! dispatch params slots (moves, uploads), the ops, then the staged rows, lane pairs and
//! parameter lanes. A move between pages cannot be a copy within one binding, so it becomes
//! an upload of the moved row, which the CPU holds (its rows are the whole truth).

use bytemuck::Zeroable;

use super::executor::{align, put, range, whole, GpuExecutor, SMALL_GROUP};
use super::layout::{fold_dispatch, ApplyParams, RowOp};
use super::table::CHANGE_HEADER_BYTES;
use crate::error::GpuError;
use crate::table::rows::Rows;

/// Offsets of the two dispatch params in a page's staging (uniform offsets: 256-aligned).
const MOVES_PARAMS: u64 = 0;
const UPLOADS_PARAMS: u64 = 256;

impl GpuExecutor {
    /// Takes the frame's changes from the rows' change log into `moves` and `uploads`.
    pub(super) fn collect_changes(&mut self, rows: &mut Rows) {
        self.moves.clear();
        self.uploads.clear();
        if let Some(log) = &mut rows.mirror {
            log.drain(rows.rows.len(), &mut self.moves, &mut self.uploads);
        }
        let page_rows = self.page_rows;
        let uploads = &mut self.uploads;
        self.moves.retain(|&[dst, src]| {
            let same_page = dst / page_rows == src / page_rows;
            if !same_page {
                uploads.push(dst);
            }
            same_page
        });
        self.stats.uploaded_rows += self.uploads.len() as u32;
        self.stats.moved_rows += self.moves.len() as u32;
    }

    /// Whether the frame has changes to apply.
    pub(super) fn has_changes(&self) -> bool {
        !(self.moves.is_empty() && self.uploads.is_empty())
    }

    /// Uploads the frame's changes and records the apply pass, page by page (moves, then
    /// uploads: an upload may land on a row that a move reads).
    pub(super) fn record_changes(
        &mut self,
        rows: &Rows,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), GpuError> {
        let page_count = self.table.as_ref().map_or(0, |t| t.pages.len());
        for page in 0..page_count {
            self.record_page_changes(rows, encoder, page as u32)?;
        }
        Ok(())
    }

    fn record_page_changes(
        &mut self,
        rows: &Rows,
        encoder: &mut wgpu::CommandEncoder,
        page: u32,
    ) -> Result<(), GpuError> {
        let page_rows = self.page_rows;
        let base = page * page_rows;
        let in_page = |row: u32| row / page_rows == page;
        let move_count = self.moves.iter().filter(|m| in_page(m[0])).count() as u32;
        let upload_count = self.uploads.iter().filter(|&&r| in_page(r)).count() as u32;
        if move_count + upload_count == 0 {
            return Ok(());
        }
        let Some(table_page) = self.table.as_ref().and_then(|t| t.pages.get(page as usize)) else {
            return Err(GpuError::Validation("no table page".into()));
        };
        let lane_stride = table_page.capacity;

        let ops_offset = 2 * UPLOADS_PARAMS;
        let ops_bytes = align(u64::from(move_count + upload_count) * 16);
        let rows_offset = ops_offset + ops_bytes;
        let rows_bytes = align(u64::from(upload_count.max(1)) * 32);
        let lanes_offset = rows_offset + rows_bytes;
        let lanes_bytes = align(u64::from(upload_count.max(1)) * 32);
        let params_offset = lanes_offset + lanes_bytes;
        let params_bytes = align(u64::from(upload_count.max(1)) * 16);
        let total = params_offset + params_bytes;
        debug_assert!(ops_offset <= CHANGE_HEADER_BYTES);

        // The staging: the two dispatches' params, the ops, the staged rows.
        self.bytes.clear();
        self.bytes.resize(total as usize, 0);
        let apply = |offset: u32, count: u32| ApplyParams {
            op_offset: offset,
            op_count: count,
            lane_stride,
            staged_stride: upload_count,
            groups_x: fold_dispatch(count, SMALL_GROUP, self.max_per_axis).0,
            ..ApplyParams::zeroed()
        };
        put(&mut self.bytes, MOVES_PARAMS, &apply(0, move_count));
        put(
            &mut self.bytes,
            UPLOADS_PARAMS,
            &apply(move_count, upload_count),
        );
        let mut at = ops_offset;
        let mut op = |bytes: &mut Vec<u8>, dst: u32, src: u32, kind: u32| {
            let op = RowOp {
                dst: dst - base,
                src,
                kind,
                _pad: 0,
            };
            put(bytes, at, &op);
            at += 16;
        };
        for &[dst, src] in self.moves.iter().filter(|m| in_page(m[0])) {
            op(&mut self.bytes, dst, src - base, 0);
        }
        let staged_rows = self.uploads.iter().filter(|&&r| in_page(r));
        for (staged, &dst) in staged_rows.enumerate() {
            let row = rows.rows[dst as usize];
            op(&mut self.bytes, dst, staged as u32, 1);
            let staged = staged as u64;
            put(&mut self.bytes, rows_offset + staged * 32, &row);
            put(
                &mut self.bytes,
                params_offset + staged * 16,
                &rows.params(dst),
            );
            for lane in 0..4u64 {
                let offset = lanes_offset + (lane * u64::from(upload_count) + staged) * 8;
                put(
                    &mut self.bytes,
                    offset,
                    &rows.lanes[lane as usize][dst as usize],
                );
            }
        }

        let device = self.ctx.device().clone();
        let slot = page as usize;
        if self.changes.len() <= slot {
            self.changes.resize(slot + 1, None);
        }
        if self.changes[slot].as_ref().is_none_or(|b| b.size() < total) {
            let size = total.next_power_of_two().max(4096);
            self.check_buffer_size("row changes", size)?;
            self.changes[slot] = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-tween row changes"),
                size,
                usage: wgpu::BufferUsages::UNIFORM
                    | wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        let (Some(changes), Some(table_page)) = (
            self.changes[slot].as_ref(),
            self.table.as_ref().and_then(|t| t.pages.get(slot)),
        ) else {
            return Err(GpuError::Validation("no row changes buffer".into()));
        };
        self.ctx.queue().write_buffer(changes, 0, &self.bytes);
        self.stats.wrote(self.bytes.len());

        let entries = [
            range(0, changes, 0, size_of::<ApplyParams>() as u64),
            range(1, changes, ops_offset, ops_bytes),
            range(2, changes, rows_offset, rows_bytes),
            range(3, changes, lanes_offset, lanes_bytes),
            whole(4, &table_page.rows),
            whole(5, &table_page.lanes),
            range(6, changes, params_offset, params_bytes),
            whole(7, &table_page.params),
        ];
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: super::transient_label("wgpu-tween apply"),
            layout: &self.pipelines.apply_layout,
            entries: &entries,
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: super::transient_label("wgpu-tween apply"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipelines.apply);
        for (offset, count) in [(MOVES_PARAMS, move_count), (UPLOADS_PARAMS, upload_count)] {
            if count > 0 {
                pass.set_bind_group(0, &group, &[offset as u32]);
                let (x, y) = fold_dispatch(count, SMALL_GROUP, self.max_per_axis);
                pass.dispatch_workgroups(x, y, 1);
                self.stats.dispatches += 1;
            }
        }
        Ok(())
    }
}
