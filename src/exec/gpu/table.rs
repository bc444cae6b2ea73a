//! The GPU table: the motion rows copied into storage buffers, split into pages; growth by
//! GPU copy, shrinking with hysteresis, release when idle, and the frame's row changes (see
//! `changes.rs`).
//!
//! Every storage binding must fit the device's `max_storage_buffer_binding_size` (128 MiB by
//! default, what a renderer's shared device usually has). So the table is split into pages
//! of at most [`GpuTable::page_rows`] rows, each page its own set of buffers, and every
//! pass binds one page at a time. Row `i` lives in page `i / page_rows` at `i % page_rows`.
//! A table of up to `page_rows` rows is one page of exactly its capacity (the common case:
//! 4M rows with the default limits, the adapter's whole range on an own device); past that,
//! every page holds `page_rows` rows and the table grows by adding pages, without copying.
//!
//! Per-frame protocol: the executor calls [`GpuTable::sync`] first in the frame's encoder
//! (grow, apply the table's change journal, shrink); the passes after it read
//! [`pages`](GpuTable::pages) and [`spans`](GpuTable::spans), and bind groups naming the
//! pages are remade when [`generation`](GpuTable::generation) changes. Between frames,
//! [`release_idle`](GpuTable::release_idle) drops an oversized table of an empty world.

use super::buffers::{create, Gpu, Limits};
use super::changes::RowChanges;
use super::stats::GpuUpdateStats;
use super::variants::{ClassNeeds, RunShapes};
use crate::error::GpuError;
use crate::table::rows::{Rows, CLASSES};

/// Smallest row capacity of the table (less on a device whose pages are smaller).
const MIN_ROWS: u32 = 1024;

/// Bytes per row of the largest section (the timing rows and the four lane pairs each).
const ROW_BYTES: u64 = 32;
/// Bytes per row a page's change staging may need in one frame: a move and an upload op
/// (16 each), the staged row (32), lane pairs (32) and parameter lanes (16).
const CHANGE_BYTES_PER_ROW: u64 = 112;
/// The change staging's per-page header (two dispatch params slots and alignment).
pub(super) const CHANGE_HEADER_BYTES: u64 = 1024;

/// One page of the table: rows `index · page_rows ..` of it, each section `capacity` rows.
pub(crate) struct Page {
    /// Timing rows (`MotionRow`).
    pub(super) rows: wgpu::Buffer,
    /// Lane pairs, 4 sections of `capacity`.
    pub(super) lanes: wgpu::Buffer,
    /// Parameter lanes, one `vec4<f32>` per row.
    pub(super) params: wgpu::Buffer,
    /// Outputs, 4 sections of `capacity`.
    pub(super) outputs: wgpu::Buffer,
    /// Rows of this page (its lane section stride).
    pub(super) capacity: u32,
}

/// The rows on the GPU.
pub(super) struct GpuTable {
    /// Empty before the first frame and after `release_idle`.
    pages: Vec<Page>,
    /// Past one page and only while the world has sequences: one f32 per row of the table,
    /// the rows' values (lane 0 of the outputs) copied from every page, which sequence
    /// children read their parents' values from (see `evaluate.rs`).
    sequence_values: Option<wgpu::Buffer>,
    /// Rows of all pages together (a power of two; 0 without pages).
    capacity: u32,
    /// Rows the GPU holds valid content for.
    len: u32,
    /// Most rows of a page on this device.
    page_rows: u32,
    /// Rises whenever a page or the sequence values are replaced.
    generation: u64,
    changes: RowChanges,
    /// The end of each class's run of rows, as of the last sync (`Rows::class_end`).
    class_end: [u32; CLASSES],
    /// What each run needs (its pipeline variant).
    shapes: RunShapes,
}

/// The most rows a page may hold on a device: each section must fit one binding, and a
/// page's change staging one buffer. A power of two, so that a table of power-of-two
/// capacity is a whole number of pages.
fn page_rows(max_binding: u64, max_buffer: u64) -> u32 {
    let rows = (max_binding.min(max_buffer) / ROW_BYTES)
        .min(max_buffer.saturating_sub(CHANGE_HEADER_BYTES) / CHANGE_BYTES_PER_ROW)
        .clamp(1, 1 << 31);
    1 << rows.ilog2()
}

impl GpuTable {
    /// An empty table for a device of `limits`.
    pub fn new(limits: Limits) -> Self {
        Self {
            pages: Vec::new(),
            sequence_values: None,
            capacity: 0,
            len: 0,
            page_rows: page_rows(limits.max_binding, limits.max_buffer),
            generation: 0,
            changes: RowChanges::default(),
            class_end: [0; CLASSES],
            shapes: RunShapes::default(),
        }
    }

    pub fn pages(&self) -> &[Page] {
        &self.pages
    }

    pub fn page_rows(&self) -> u32 {
        self.page_rows
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn sequence_values(&self) -> Option<&wgpu::Buffer> {
        self.sequence_values.as_ref()
    }

    /// Whether the table spans more than one page.
    pub fn is_paged(&self) -> bool {
        self.pages.len() > 1
    }

    /// Whether the table after a frame of `len` rows may span more than one page.
    pub fn may_page(&self, len: u32) -> bool {
        self.capacity.max(len) > self.page_rows
    }

    /// Per page: its first row, the rows it holds, its lane stride.
    pub fn spans(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.pages.iter().enumerate().map(move |(p, page)| {
            let base = p as u32 * self.page_rows;
            let held = self.len.saturating_sub(base).min(page.capacity);
            (base, held, page.capacity)
        })
    }

    /// Per class, its run's rows within page `page` as (first, count), page-relative.
    pub fn runs_in_page(&self, page: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let base = page as u32 * self.page_rows;
        let end = self.len.min(base.saturating_add(self.page_rows));
        (0..CLASSES).map(move |class| {
            let start = if class == 0 {
                0
            } else {
                self.class_end[class - 1]
            };
            let (lo, hi) = (start.max(base), self.class_end[class].min(end));
            (lo.saturating_sub(base), hi.saturating_sub(lo))
        })
    }

    /// What class `class`'s run needs.
    pub fn run_needs(&self, class: usize) -> ClassNeeds {
        self.shapes.needs(class)
    }

    /// Smallest capacity of the table on this device.
    fn min_rows(&self) -> u32 {
        MIN_ROWS.min(self.page_rows)
    }

    /// Brings the table up to `rows` in `encoder`: grows it (to the next power of two, by
    /// GPU copy) before the changes, which may write rows past the old capacity; records the
    /// changes (moves, then uploads); shrinks it after them (at a quarter full or less, to
    /// half), since moves may read rows past the new capacity.
    pub fn sync(
        &mut self,
        gpu: Gpu<'_>,
        rows: &mut Rows,
        encoder: &mut wgpu::CommandEncoder,
        stats: &mut GpuUpdateStats,
    ) -> Result<(), GpuError> {
        let len = rows.len() as u32;
        if len > self.capacity || self.pages.is_empty() {
            let wanted = len.next_power_of_two().max(self.min_rows());
            self.resize(gpu, wanted, self.len, encoder)?;
        }
        let shrink = (self.capacity > self.min_rows() && len.saturating_mul(4) <= self.capacity)
            .then(|| (self.capacity / 2).max(self.min_rows()));
        self.changes.collect(rows, self.page_rows, stats);
        // Every row the GPU copy changes is a move's destination or an upload (counted
        // before a shrink drops the change scratch).
        self.shapes.resize(len);
        for index in self.changes.changed_rows() {
            self.shapes.set(index, &rows.rows[index as usize]);
        }
        self.class_end = rows.class_end;
        self.changes
            .record(gpu, &self.pages, self.page_rows, rows, encoder, stats)?;
        if let Some(wanted) = shrink {
            self.resize(gpu, wanted, len, encoder)?;
        }
        self.len = len;
        Ok(())
    }

    /// Makes the sequence values buffer if it has none (a paged table with sequences).
    pub fn ensure_sequence_values(&mut self, gpu: Gpu<'_>) -> Result<(), GpuError> {
        if self.sequence_values.is_some() {
            return Ok(());
        }
        let bytes = u64::from(self.capacity) * 4;
        gpu.limits.check_binding("sequence values", bytes)?;
        self.sequence_values = Some(create(
            gpu.ctx,
            "wgpu-tween sequence values",
            bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        ));
        self.generation += 1;
        Ok(())
    }

    /// Drops an oversized table of an empty world (an empty world submits nothing, so its
    /// table would otherwise never shrink), and the change scratch. The smallest table is
    /// kept.
    pub fn release_idle(&mut self) {
        if self.capacity > self.min_rows() {
            self.pages = Vec::new();
            self.sequence_values = None;
            self.capacity = 0;
            self.len = 0;
            self.shapes.clear();
            self.class_end = [0; CLASSES];
            self.generation += 1;
        }
        self.changes = RowChanges::default();
    }

    /// Replaces the table with one of `wanted` rows, rows `0..keep` kept (copies recorded in
    /// `encoder`, so after whatever it already holds). Past one page, whole pages are kept
    /// or dropped as they are; only a page that changes size is copied.
    fn resize(
        &mut self,
        gpu: Gpu<'_>,
        wanted: u32,
        keep: u32,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), GpuError> {
        let page_capacity = wanted.min(self.page_rows);
        let page_count = (wanted / page_capacity) as usize;
        let keep = keep.min(wanted);
        if wanted < self.capacity {
            // The change scratch is sized by the largest frame so far.
            self.changes = RowChanges::default();
        }
        let mut old = std::mem::take(&mut self.pages);
        old.truncate(page_count);
        let mut pages = Vec::with_capacity(page_count);
        for (index, old_page) in old.into_iter().enumerate() {
            if old_page.capacity == page_capacity {
                pages.push(old_page);
            } else {
                let base = index as u32 * self.page_rows;
                let rows_kept = keep.saturating_sub(base).min(page_capacity);
                let page = create_page(gpu, page_capacity, rows_kept)?;
                copy_rows(encoder, &old_page, &page, rows_kept);
                pages.push(page);
            }
        }
        while pages.len() < page_count {
            pages.push(create_page(gpu, page_capacity, 0)?);
        }
        self.pages = pages;
        self.sequence_values = None;
        self.capacity = wanted;
        self.len = keep;
        self.changes.truncate(page_count);
        self.generation += 1;
        Ok(())
    }
}

/// A new page of `capacity` rows whose first `kept` rows will be copied in.
fn create_page(gpu: Gpu<'_>, capacity: u32, kept: u32) -> Result<Page, GpuError> {
    let Gpu { ctx, limits, .. } = gpu;
    let section = u64::from(capacity) * ROW_BYTES;
    limits.check_binding("motion rows", section)?;
    limits.check_binding("lane pairs", section)?;
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let page = Page {
        rows: create(ctx, "wgpu-tween rows", section, usage),
        lanes: create(ctx, "wgpu-tween lanes", section, usage),
        params: create(ctx, "wgpu-tween params", u64::from(capacity) * 16, usage),
        outputs: create(ctx, "wgpu-tween outputs", u64::from(capacity) * 16, usage),
        capacity,
    };
    if cfg!(debug_assertions) {
        // Poison the new space (NaN bits) so a read of a row never written shows at once.
        // (Queue writes run before the submission's commands, so a copy into the page
        // still lands on top; no clear either, which would run after and undo the poison.)
        let kept_bytes = u64::from(kept) * ROW_BYTES;
        let poison = vec![0xffu8; (section - kept_bytes) as usize];
        ctx.queue().write_buffer(&page.rows, kept_bytes, &poison);
    }
    Ok(page)
}

/// Copies rows `0..count` (timing rows, parameter lanes, the four lane sections) from one
/// page into another of a different capacity.
fn copy_rows(encoder: &mut wgpu::CommandEncoder, from: &Page, to: &Page, count: u32) {
    if count == 0 {
        return;
    }
    let count = u64::from(count);
    encoder.copy_buffer_to_buffer(&from.rows, 0, &to.rows, 0, count * ROW_BYTES);
    encoder.copy_buffer_to_buffer(&from.params, 0, &to.params, 0, count * 16);
    for lane in 0..4u64 {
        encoder.copy_buffer_to_buffer(
            &from.lanes,
            lane * u64::from(from.capacity) * 8,
            &to.lanes,
            lane * u64::from(to.capacity) * 8,
            count * 8,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::page_rows;

    #[test]
    fn pages_fit_the_bindings_and_the_change_staging() {
        const MIB: u64 = 1 << 20;
        // Default limits: 128 MiB bindings, 256 MiB buffers (the change staging decides).
        assert_eq!(page_rows(128 * MIB, 256 * MIB), 1 << 21);
        // A large adapter (4 GiB − 1 bindings): the binding decides.
        assert_eq!(page_rows(u64::from(u32::MAX), 64 << 30), 1 << 26);
        // A tiny test device.
        assert_eq!(page_rows(64 * 1024, 256 * MIB), 2048);
        for (binding, buffer) in [
            (128 * MIB, 256 * MIB),
            (300_000, 1 << 30),
            (1 << 31, 1 << 31),
        ] {
            let rows = u64::from(page_rows(binding, buffer));
            assert!(rows.is_power_of_two());
            assert!(rows * 32 <= binding);
            assert!(rows * super::CHANGE_BYTES_PER_ROW + super::CHANGE_HEADER_BYTES <= buffer);
        }
    }
}
