//! The mirrored row table's size: growth by GPU copy, shrinking with hysteresis, release
//! when idle, and debug poisoning of new space.

use super::context::GpuError;
use super::curve_keys::MIN_CURVE_KEYS;
use super::executor::{GpuExecutor, Table};

/// Smallest row capacity of the table.
pub(super) const MIN_ROWS: u32 = 1024;

impl GpuExecutor {
    /// Grows the table (to the next power of two, by GPU copy) if `len` rows do not fit.
    pub(super) fn grow_table(
        &mut self,
        len: u32,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), GpuError> {
        let capacity = self.table.as_ref().map_or(0, |t| t.capacity);
        if len > capacity || self.table.is_none() {
            let keep = self.table.as_ref().map_or(0, |t| t.len);
            self.resize_table(len.next_power_of_two().max(MIN_ROWS), keep, encoder)?;
        }
        Ok(())
    }

    /// The capacity to shrink to, with hysteresis: only at a quarter full or less, to half
    /// (so at most half full afterwards, and a world oscillating around a size never
    /// reallocates).
    pub(super) fn shrink_target(&self, len: u32) -> Option<u32> {
        let capacity = self.table.as_ref()?.capacity;
        (capacity > MIN_ROWS && len.saturating_mul(4) <= capacity)
            .then(|| (capacity / 2).max(MIN_ROWS))
    }

    /// Drops an oversized table of an empty world (an empty world submits nothing, so its
    /// table would otherwise never shrink). The smallest table is kept.
    pub fn release_idle(&mut self) {
        if self.table.as_ref().is_some_and(|t| t.capacity > MIN_ROWS) {
            self.table = None;
            self.evaluate_group = None;
            self.gather_group = None;
        }
        // No rows, so no curve keys: the key buffers go back to nothing if they grew.
        if self.curve_capacity > MIN_CURVE_KEYS {
            self.curve_keys = None;
            self.curve_capacity = 0;
            self.evaluate_group = None;
        }
        if self.curve_staging.as_ref().is_some_and(|b| b.size() > 4096) {
            self.curve_staging = None;
        }
    }

    /// Replaces the table with one of `wanted` rows, copying rows `0..keep` over (recorded
    /// in `encoder`, so after whatever it already holds).
    pub(super) fn resize_table(
        &mut self,
        wanted: u32,
        keep: u32,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), GpuError> {
        let bytes_per_section = u64::from(wanted) * 32;
        self.check_size("motion rows", bytes_per_section)?;
        self.check_size("lane pairs", bytes_per_section)?;
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
        let new = Table {
            rows: create("wgpu-tween rows", bytes_per_section),
            lanes: create("wgpu-tween lanes", bytes_per_section),
            params: create("wgpu-tween params", u64::from(wanted) * 16),
            outputs: create("wgpu-tween outputs", u64::from(wanted) * 16),
            capacity: wanted,
            len: 0,
        };
        let keep = keep.min(wanted);
        if cfg!(debug_assertions) {
            // Poison the new space (NaN bits) so a read of a row never written shows at once.
            // (Queue writes run before the submission's commands, so the copy below still
            // lands on top; no clear either, which would run after and undo the poison.)
            let poison = vec![0xffu8; (bytes_per_section - u64::from(keep) * 32) as usize];
            self.ctx
                .queue()
                .write_buffer(&new.rows, u64::from(keep) * 32, &poison);
        }
        if let Some(old) = &self.table {
            if keep > 0 {
                encoder.copy_buffer_to_buffer(&old.rows, 0, &new.rows, 0, u64::from(keep) * 32);
                encoder.copy_buffer_to_buffer(&old.params, 0, &new.params, 0, u64::from(keep) * 16);
                for lane in 0..4u64 {
                    encoder.copy_buffer_to_buffer(
                        &old.lanes,
                        lane * u64::from(old.capacity) * 8,
                        &new.lanes,
                        lane * u64::from(wanted) * 8,
                        u64::from(keep) * 8,
                    );
                }
            }
        }
        self.table = Some(Table { len: keep, ..new });
        self.table_generation += 1;
        self.evaluate_group = None;
        self.gather_group = None;
        Ok(())
    }
}
