//! One frame's row changes on the GPU: moves left by swap-removes and uploads of new and
//! re-anchored rows, applied page by page by the apply pass. Owned by the table
//! (`table.rs`), which calls [`RowChanges::collect`] and then [`RowChanges::record`] once per
//! frame, between its growth and its shrink.
//!
//! A page's changes go up in one `write_buffer` into that page's staging buffer: two
//! dispatch params slots (moves, uploads), the ops, then the staged rows, lane pairs and
//! parameter lanes. A move between pages cannot be a copy within one binding, so it becomes
//! an upload of the moved row, which the CPU holds (its rows are the whole truth).

use bytemuck::Zeroable;

use super::buffers::{align, create, put, range, whole, Gpu, SMALL_GROUP};
use super::layout::{fold_dispatch, ApplyParams, RowOp};
use super::stats::GpuUpdateStats;
use super::table::{Page, CHANGE_HEADER_BYTES};
use crate::error::GpuError;
use crate::table::rows::Rows;

/// Offsets of the two dispatch params in a page's staging (uniform offsets: 256-aligned).
const MOVES_PARAMS: u64 = 0;
const UPLOADS_PARAMS: u64 = 256;

/// The frame's changes and their staging, sized by the largest frame so far (the table
/// drops it when it shrinks or idles).
#[derive(Default)]
pub(super) struct RowChanges {
    /// Per page, the staging of its changes.
    staging: Vec<Option<wgpu::Buffer>>,
    /// `[dst, src]` row moves within a page.
    moves: Vec<[u32; 2]>,
    /// Rows to upload.
    uploads: Vec<u32>,
    bytes: Vec<u8>,
}

impl RowChanges {
    /// Takes the frame's changes from the rows' change journal; a move between pages becomes
    /// an upload.
    pub fn collect(&mut self, rows: &mut Rows, page_rows: u32, stats: &mut GpuUpdateStats) {
        self.moves.clear();
        self.uploads.clear();
        if let Some(log) = &mut rows.gpu_journal {
            log.drain(rows.rows.len(), &mut self.moves, &mut self.uploads);
        }
        let uploads = &mut self.uploads;
        self.moves.retain(|&[dst, src]| {
            let same_page = dst / page_rows == src / page_rows;
            if !same_page {
                uploads.push(dst);
            }
            same_page
        });
        stats.uploaded_rows += self.uploads.len() as u32;
        stats.moved_rows += self.moves.len() as u32;
    }

    /// The rows the collected changes write: every move's destination and every upload.
    pub fn changed_rows(&self) -> impl Iterator<Item = u32> + '_ {
        (self.moves.iter().map(|m| m[0])).chain(self.uploads.iter().copied())
    }

    /// Keeps the staging of the first `pages` pages.
    pub fn truncate(&mut self, pages: usize) {
        self.staging.truncate(pages);
    }

    /// Uploads the collected changes and records the apply pass, page by page (moves, then
    /// uploads: an upload may land on a row that a move reads).
    pub fn record(
        &mut self,
        gpu: Gpu<'_>,
        pages: &[Page],
        page_rows: u32,
        rows: &Rows,
        encoder: &mut wgpu::CommandEncoder,
        stats: &mut GpuUpdateStats,
    ) -> Result<(), GpuError> {
        if self.moves.is_empty() && self.uploads.is_empty() {
            return Ok(());
        }
        for (p, page) in pages.iter().enumerate() {
            let frame = PageFrame {
                index: p as u32,
                page,
                page_rows,
            };
            self.record_page(gpu, frame, rows, encoder, stats)?;
        }
        Ok(())
    }

    fn record_page(
        &mut self,
        gpu: Gpu<'_>,
        frame: PageFrame<'_>,
        rows: &Rows,
        encoder: &mut wgpu::CommandEncoder,
        stats: &mut GpuUpdateStats,
    ) -> Result<(), GpuError> {
        let PageFrame {
            index,
            page,
            page_rows,
        } = frame;
        let Gpu {
            ctx,
            pipelines,
            limits,
        } = gpu;
        let base = index * page_rows;
        let in_page = |row: u32| row / page_rows == index;
        let move_count = self.moves.iter().filter(|m| in_page(m[0])).count() as u32;
        let upload_count = self.uploads.iter().filter(|&&r| in_page(r)).count() as u32;
        if move_count + upload_count == 0 {
            return Ok(());
        }
        let lane_stride = page.capacity;

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
            groups_x: fold_dispatch(count, SMALL_GROUP, limits.max_per_axis).0,
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

        let slot = index as usize;
        if self.staging.len() <= slot {
            self.staging.resize(slot + 1, None);
        }
        if self.staging[slot].as_ref().is_none_or(|b| b.size() < total) {
            let size = total.next_power_of_two().max(4096);
            limits.check_buffer("row changes", size)?;
            self.staging[slot] = Some(create(
                ctx,
                "wgpu-tween row changes",
                size,
                wgpu::BufferUsages::UNIFORM
                    | wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST,
            ));
        }
        let Some(staging) = self.staging[slot].as_ref() else {
            return Err(GpuError::Validation("no row changes buffer".into()));
        };
        ctx.queue().write_buffer(staging, 0, &self.bytes);
        stats.wrote(self.bytes.len());

        let entries = [
            range(0, staging, 0, Some(size_of::<ApplyParams>() as u64)),
            range(1, staging, ops_offset, Some(ops_bytes)),
            range(2, staging, rows_offset, Some(rows_bytes)),
            range(3, staging, lanes_offset, Some(lanes_bytes)),
            whole(4, &page.rows),
            whole(5, &page.lanes),
            range(6, staging, params_offset, Some(params_bytes)),
            whole(7, &page.params),
        ];
        let group = ctx.device().create_bind_group(&wgpu::BindGroupDescriptor {
            label: super::transient_label("wgpu-tween apply"),
            layout: &pipelines.apply_layout,
            entries: &entries,
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: super::transient_label("wgpu-tween apply"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipelines.apply);
        for (offset, count) in [(MOVES_PARAMS, move_count), (UPLOADS_PARAMS, upload_count)] {
            if count > 0 {
                pass.set_bind_group(0, &group, &[offset as u32]);
                let (x, y) = fold_dispatch(count, SMALL_GROUP, limits.max_per_axis);
                pass.dispatch_workgroups(x, y, 1);
                stats.dispatches += 1;
            }
        }
        Ok(())
    }
}

/// The page a `record_page` call applies changes to.
#[derive(Clone, Copy)]
struct PageFrame<'a> {
    index: u32,
    page: &'a Page,
    page_rows: u32,
}
