//! The GPU copy of the table's curve key pool (`core/curve.rs`): one storage buffer of
//! `GpuKey`s at evaluate binding 5, sized to the pool and updated by changed ranges.
//!
//! Per-frame protocol: the executor calls [`CurveKeys::sync`] once per frame, after the
//! table's sync and before the evaluate pass, which binds [`CurveKeys::buffer`] (bind groups
//! are remade when [`generation`](CurveKeys::generation) changes). Between frames,
//! [`release_idle`](CurveKeys::release_idle) drops grown buffers of an empty world.

use super::buffers::{create, Gpu};
use super::stats::GpuUpdateStats;
use crate::error::GpuError;
use crate::table::rows::Rows;

/// Smallest key capacity of the curve key buffer (8 KiB).
const MIN_CURVE_KEYS: u32 = 256;
/// Bytes per curve key (`GpuKey`).
const KEY_BYTES: u64 = size_of::<crate::core::curve::GpuKey>() as u64;

/// The curve key buffer, the staging its changes go up through, and the scratch they are
/// gathered in.
#[derive(Default)]
pub(super) struct CurveKeys {
    /// The key buffer and its key capacity.
    keys: Option<(wgpu::Buffer, u32)>,
    /// Changed key ranges are written here (one `write_buffer` per frame), then copied.
    staging: Option<wgpu::Buffer>,
    ranges: Vec<[u32; 2]>,
    bytes: Vec<u8>,
    /// Rises whenever the key buffer is replaced.
    generation: u64,
}

impl CurveKeys {
    /// Key capacity of the curve key buffer (0 before the first frame).
    pub fn capacity(&self) -> u32 {
        self.keys.as_ref().map_or(0, |(_, c)| *c)
    }

    /// The key buffer (made by the first `sync`).
    pub fn buffer(&self) -> Option<&wgpu::Buffer> {
        self.keys.as_ref().map(|(b, _)| b)
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Sizes the key buffer to the pool (growth to a power of two and shrinking at a quarter
    /// full, both keeping the contents by GPU copy), then uploads the key ranges changed
    /// since the last frame: one `write_buffer` into the staging and one copy per range.
    pub fn sync(
        &mut self,
        gpu: Gpu<'_>,
        rows: &mut Rows,
        encoder: &mut wgpu::CommandEncoder,
        stats: &mut GpuUpdateStats,
    ) -> Result<(), GpuError> {
        let needed = rows.curves.keys().len() as u64;
        rows.curves.drain_dirty(&mut self.ranges);
        let capacity = u64::from(self.capacity());
        let min = u64::from(MIN_CURVE_KEYS);
        let grow = self.keys.is_none() || needed > capacity;
        let shrink = capacity > min && needed * 4 <= capacity;
        if grow || shrink {
            let wanted = if grow {
                needed.next_power_of_two().max(min)
            } else {
                (needed * 2).next_power_of_two().max(min)
            };
            gpu.limits.check_binding("curve keys", wanted * KEY_BYTES)?;
            let buffer = create(
                gpu.ctx,
                "wgpu-tween curve keys",
                wanted * KEY_BYTES,
                wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
            );
            if let Some((old, _)) = &self.keys {
                // Every live key lies below `needed` ≤ both capacities.
                let keep = needed.min(capacity).min(wanted) * KEY_BYTES;
                if keep > 0 {
                    encoder.copy_buffer_to_buffer(old, 0, &buffer, 0, keep);
                }
            }
            self.keys = Some((buffer, wanted as u32));
            self.generation += 1;
        }
        if self.ranges.is_empty() {
            return Ok(());
        }
        let keys = rows.curves.keys();
        self.bytes.clear();
        for &[start, len] in &self.ranges {
            let range = start as usize..(start + len) as usize;
            self.bytes
                .extend_from_slice(bytemuck::cast_slice(&keys[range]));
        }
        let total = self.bytes.len() as u64;
        if self.staging.as_ref().is_none_or(|b| b.size() < total) {
            let size = total.next_power_of_two().max(4096);
            gpu.limits.check_binding("curve key changes", size)?;
            self.staging = Some(create(
                gpu.ctx,
                "wgpu-tween curve key changes",
                size,
                wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            ));
        }
        let (Some(staging), Some((target, _))) = (&self.staging, &self.keys) else {
            return Err(GpuError::Validation("no curve key buffers".into()));
        };
        gpu.ctx.queue().write_buffer(staging, 0, &self.bytes);
        stats.wrote(self.bytes.len());
        let mut at = 0;
        for &[start, len] in &self.ranges {
            let bytes = u64::from(len) * KEY_BYTES;
            encoder.copy_buffer_to_buffer(staging, at, target, u64::from(start) * KEY_BYTES, bytes);
            at += bytes;
        }
        Ok(())
    }

    /// An empty world has no curve keys: the buffers go back to nothing if they grew.
    pub fn release_idle(&mut self) {
        if self.capacity() > MIN_CURVE_KEYS {
            self.keys = None;
            self.generation += 1;
        }
        if self.staging.as_ref().is_some_and(|b| b.size() > 4096) {
            self.staging = None;
        }
    }
}
