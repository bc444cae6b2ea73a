//! The mirrored row table: its pages, growth by GPU copy, shrinking with hysteresis, release
//! when idle, and debug poisoning of new space.
//!
//! Every storage binding must fit the device's `max_storage_buffer_binding_size` (128 MiB by
//! default, what a renderer's shared device usually has). So the table is split into pages
//! of at most [`GpuExecutor::page_rows`] rows, each page its own set of buffers, and every
//! pass binds one page at a time. Row `i` lives in page `i / page_rows` at `i % page_rows`.
//! A table of up to `page_rows` rows is one page of exactly its capacity (the common case:
//! 4M rows with the default limits, the adapter's whole range on an own device); past that,
//! every page holds `page_rows` rows and the table grows by adding pages, without copying.

use super::curve_keys::MIN_CURVE_KEYS;
use super::executor::GpuExecutor;
use crate::error::GpuError;

/// Smallest row capacity of the table (less on a device whose pages are smaller).
pub(super) const MIN_ROWS: u32 = 1024;

/// Bytes per row of the largest section (the timing rows and the four lane pairs each).
const ROW_BYTES: u64 = 32;
/// Bytes per row a page's change staging may need in one frame: a move and an upload op
/// (16 each), the staged row (32), lane pairs (32) and parameter lanes (16).
pub(super) const CHANGE_BYTES_PER_ROW: u64 = 112;
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

/// The mirrored rows.
pub(super) struct Table {
    pub(super) pages: Vec<Page>,
    /// Past one page and only while the world has sequences: one f32 per row of the table,
    /// the rows' values (lane 0 of the outputs) copied from every page, which sequence
    /// children read their parents' values from (see `GpuExecutor::record_evaluate`). Made by
    /// `ensure_sequence_values`; the evaluate pass binds a placeholder without it.
    pub(super) sequence_values: Option<wgpu::Buffer>,
    /// Rows of all pages together (a power of two).
    pub(super) capacity: u32,
    /// Rows the GPU holds valid content for.
    pub(super) len: u32,
}

/// The most rows a page may hold on a device: each section must fit one binding, and a
/// page's change staging one buffer. A power of two, so that a table of power-of-two
/// capacity is a whole number of pages.
pub(super) fn page_rows(max_binding: u64, max_buffer: u64) -> u32 {
    let rows = (max_binding.min(max_buffer) / ROW_BYTES)
        .min(max_buffer.saturating_sub(CHANGE_HEADER_BYTES) / CHANGE_BYTES_PER_ROW)
        .clamp(1, 1 << 31);
    1 << rows.ilog2()
}

impl GpuExecutor {
    /// Smallest capacity of the table on this device.
    fn min_rows(&self) -> u32 {
        MIN_ROWS.min(self.page_rows)
    }

    /// Whether the table after an update of `len` rows may span more than one page (the
    /// world then supplies the depth of its sequences, `FrameInput::sequence_depth`).
    pub fn may_page(&self, len: u32) -> bool {
        self.capacity().max(len) > self.page_rows
    }

    /// Grows the table (to the next power of two, by GPU copy) if `len` rows do not fit.
    pub(super) fn grow_table(
        &mut self,
        len: u32,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), GpuError> {
        let capacity = self.table.as_ref().map_or(0, |t| t.capacity);
        if len > capacity || self.table.is_none() {
            let keep = self.table.as_ref().map_or(0, |t| t.len);
            self.resize_table(len.next_power_of_two().max(self.min_rows()), keep, encoder)?;
        }
        Ok(())
    }

    /// The capacity to shrink to, with hysteresis: only at a quarter full or less, to half
    /// (so at most half full afterwards, and a world oscillating around a size never
    /// reallocates).
    pub(super) fn shrink_target(&self, len: u32) -> Option<u32> {
        let capacity = self.table.as_ref()?.capacity;
        (capacity > self.min_rows() && len.saturating_mul(4) <= capacity)
            .then(|| (capacity / 2).max(self.min_rows()))
    }

    /// Drops an oversized table of an empty world (an empty world submits nothing, so its
    /// table would otherwise never shrink). The smallest table is kept.
    pub fn release_idle(&mut self) {
        if self
            .table
            .as_ref()
            .is_some_and(|t| t.capacity > self.min_rows())
        {
            self.table = None;
            self.forget_bind_groups();
        }
        self.release_scratch();
        // No rows, so no curve keys: the key buffers go back to nothing if they grew.
        if self.curve_capacity > MIN_CURVE_KEYS {
            self.curve_keys = None;
            self.curve_capacity = 0;
            self.forget_bind_groups();
        }
        if self.curve_staging.as_ref().is_some_and(|b| b.size() > 4096) {
            self.curve_staging = None;
        }
    }

    /// Drops the upload scratch (the change staging buffers and the host lists and bytes
    /// they are filled from), sized by the largest frame of changes so far: after the
    /// table shrinks (with its hysteresis) or empties, the next frame allocates what it needs.
    fn release_scratch(&mut self) {
        self.changes = Vec::new();
        self.bytes = Vec::new();
        self.moves = Vec::new();
        self.uploads = Vec::new();
    }

    /// Replaces the table with one of `wanted` rows, rows `0..keep` kept (copies recorded in
    /// `encoder`, so after whatever it already holds). Past one page, whole pages are kept
    /// or dropped as they are; only a page that changes size is copied.
    pub(super) fn resize_table(
        &mut self,
        wanted: u32,
        keep: u32,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), GpuError> {
        let page_rows = self.page_rows;
        let page_capacity = wanted.min(page_rows);
        let page_count = (wanted / page_capacity) as usize;
        let keep = keep.min(wanted);
        if wanted < self.capacity() {
            self.release_scratch();
        }
        let mut old = self.table.take().map_or_else(Vec::new, |t| t.pages);
        old.truncate(page_count);
        let mut pages = Vec::with_capacity(page_count);
        for (index, old_page) in old.into_iter().enumerate() {
            if old_page.capacity == page_capacity {
                pages.push(old_page);
            } else {
                let base = index as u32 * page_rows;
                let rows_kept = keep.saturating_sub(base).min(page_capacity);
                let page = self.create_page(page_capacity, rows_kept)?;
                copy_rows(encoder, &old_page, &page, rows_kept);
                pages.push(page);
            }
        }
        while pages.len() < page_count {
            pages.push(self.create_page(page_capacity, 0)?);
        }
        self.table = Some(Table {
            pages,
            sequence_values: None,
            capacity: wanted,
            len: keep,
        });
        self.changes.truncate(page_count);
        self.forget_bind_groups();
        Ok(())
    }

    /// Makes the table's sequence values buffer if it has none (a paged table with
    /// sequences; the evaluate bind groups are remade to bind it).
    pub(super) fn ensure_sequence_values(&mut self) -> Result<(), GpuError> {
        let Some(capacity) = self
            .table
            .as_ref()
            .filter(|t| t.sequence_values.is_none())
            .map(|t| t.capacity)
        else {
            return Ok(());
        };
        let bytes = u64::from(capacity) * 4;
        self.check_size("sequence values", bytes)?;
        let buffer = self.ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-tween sequence values"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if let Some(table) = &mut self.table {
            table.sequence_values = Some(buffer);
        }
        self.evaluate_groups.clear();
        Ok(())
    }

    /// A new page of `capacity` rows whose first `kept` rows will be copied in.
    fn create_page(&self, capacity: u32, kept: u32) -> Result<Page, GpuError> {
        let section = u64::from(capacity) * ROW_BYTES;
        self.check_size("motion rows", section)?;
        self.check_size("lane pairs", section)?;
        let device = self.ctx.device();
        let create = |label, size| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let page = Page {
            rows: create("wgpu-tween rows", section),
            lanes: create("wgpu-tween lanes", section),
            params: create("wgpu-tween params", u64::from(capacity) * 16),
            outputs: create("wgpu-tween outputs", u64::from(capacity) * 16),
            capacity,
        };
        if cfg!(debug_assertions) {
            // Poison the new space (NaN bits) so a read of a row never written shows at once.
            // (Queue writes run before the submission's commands, so a copy into the page
            // still lands on top; no clear either, which would run after and undo the poison.)
            let kept_bytes = u64::from(kept) * ROW_BYTES;
            let poison = vec![0xffu8; (section - kept_bytes) as usize];
            self.ctx
                .queue()
                .write_buffer(&page.rows, kept_bytes, &poison);
        }
        Ok(page)
    }
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
