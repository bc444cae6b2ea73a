//! The GPU mirror of the world's curve key table (src/curve/pool.rs): one storage buffer of
//! `GpuKey`s at evaluate binding 5, sized to the table and updated by changed ranges.

use super::executor::GpuExecutor;
use crate::error::GpuError;
use crate::table::rows::Rows;

/// Smallest key capacity of the curve key buffer (8 KiB).
pub(super) const MIN_CURVE_KEYS: u32 = 256;
/// Bytes per curve key (`GpuKey`).
const KEY_BYTES: u64 = size_of::<crate::core::curve::GpuKey>() as u64;

impl GpuExecutor {
    /// Key capacity of the curve key buffer (0 before the first update).
    pub fn curve_key_capacity(&self) -> u32 {
        if self.curve_keys.is_some() {
            self.curve_capacity
        } else {
            0
        }
    }

    /// Sizes the curve key buffer to the world's key table (growth to a power of two and
    /// shrinking at a quarter full, both keeping the contents by GPU copy), then uploads the
    /// key ranges changed since the last frame: one `write_buffer` into a staging buffer
    /// and one copy per range.
    pub(super) fn sync_curve_keys(
        &mut self,
        rows: &mut Rows,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), GpuError> {
        let needed = rows.curves.keys().len() as u64;
        rows.curves.drain_dirty(&mut self.curve_ranges);
        let capacity = u64::from(self.curve_capacity);
        let min = u64::from(MIN_CURVE_KEYS);
        let grow = self.curve_keys.is_none() || needed > capacity;
        let shrink = capacity > min && needed * 4 <= capacity;
        if grow || shrink {
            let wanted = if grow {
                needed.next_power_of_two().max(min)
            } else {
                (needed * 2).next_power_of_two().max(min)
            };
            self.check_size("curve keys", wanted * KEY_BYTES)?;
            let buffer = self.ctx.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-tween curve keys"),
                size: wanted * KEY_BYTES,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            if let Some(old) = &self.curve_keys {
                // Every live key lies below `needed` ≤ both capacities.
                let keep = needed.min(capacity).min(wanted) * KEY_BYTES;
                if keep > 0 {
                    encoder.copy_buffer_to_buffer(old, 0, &buffer, 0, keep);
                }
            }
            self.curve_keys = Some(buffer);
            self.curve_capacity = wanted as u32;
            self.evaluate_groups.clear();
        }
        if self.curve_ranges.is_empty() {
            return Ok(());
        }
        let keys = rows.curves.keys();
        self.curve_bytes.clear();
        for &[start, len] in &self.curve_ranges {
            let range = start as usize..(start + len) as usize;
            self.curve_bytes
                .extend_from_slice(bytemuck::cast_slice(&keys[range]));
        }
        let total = self.curve_bytes.len() as u64;
        if self.curve_staging.as_ref().is_none_or(|b| b.size() < total) {
            let size = total.next_power_of_two().max(4096);
            self.check_size("curve key changes", size)?;
            self.curve_staging = Some(self.ctx.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-tween curve key changes"),
                size,
                usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        let (Some(staging), Some(target)) = (&self.curve_staging, &self.curve_keys) else {
            return Err(GpuError::Validation("no curve key buffers".into()));
        };
        self.ctx.queue().write_buffer(staging, 0, &self.curve_bytes);
        self.stats.wrote(self.curve_bytes.len());
        let mut at = 0;
        for &[start, len] in &self.curve_ranges {
            let bytes = u64::from(len) * KEY_BYTES;
            encoder.copy_buffer_to_buffer(staging, at, target, u64::from(start) * KEY_BYTES, bytes);
            at += bytes;
        }
        Ok(())
    }
}
