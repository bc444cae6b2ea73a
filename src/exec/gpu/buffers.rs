//! Small helpers every part of the GPU executor shares: the device limits a buffer or binding
//! must fit, byte layout of uniform slots, and bind group entries.

use super::context::GpuContext;
use crate::error::GpuError;

/// Uniform and storage offsets must be multiples of this (the WebGPU maximum of the limits).
pub(super) const ALIGN: u64 = 256;
/// Workgroup size of the evaluate pass.
pub(super) const EVALUATE_GROUP: u32 = 256;
/// Workgroup size of the apply, gather and scatter passes.
pub(super) const SMALL_GROUP: u32 = 64;

/// `x` rounded up to a multiple of [`ALIGN`].
pub(super) fn align(x: u64) -> u64 {
    x.div_ceil(ALIGN) * ALIGN
}

/// The limits of a device that the executor's buffers, bindings and dispatches must fit.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Workgroups per dispatch axis (the device limit, or a test's lower cap).
    pub max_per_axis: u32,
    /// Bytes of one storage binding.
    pub max_binding: u64,
    /// Bytes of one buffer.
    pub max_buffer: u64,
}

impl Limits {
    /// The limits of `ctx`'s device.
    pub fn of(ctx: &GpuContext) -> Self {
        let limits = ctx.device().limits();
        Self {
            max_per_axis: limits.max_compute_workgroups_per_dimension,
            max_binding: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            max_buffer: limits.max_buffer_size,
        }
    }

    /// Errors unless a binding of `needed` bytes of `what` fits the device.
    pub fn check_binding(self, what: &'static str, needed: u64) -> Result<(), GpuError> {
        fits(what, needed, self.max_binding)
    }

    /// Errors unless a buffer of `needed` bytes of `what` fits the device.
    pub fn check_buffer(self, what: &'static str, needed: u64) -> Result<(), GpuError> {
        fits(what, needed, self.max_buffer)
    }
}

/// `needed` bytes of `what` within the device limit `limit`, or [`GpuError::TooLarge`].
fn fits(what: &'static str, needed: u64, limit: u64) -> Result<(), GpuError> {
    if needed > limit {
        Err(GpuError::TooLarge {
            what,
            needed,
            limit,
        })
    } else {
        Ok(())
    }
}

/// Writes `value`'s bytes into `bytes` at `offset`.
pub(super) fn put<T: bytemuck::Pod>(bytes: &mut [u8], offset: u64, value: &T) {
    let offset = offset as usize;
    let data = bytemuck::bytes_of(value);
    bytes[offset..offset + data.len()].copy_from_slice(data);
}

/// A bind group entry binding all of `buffer`.
pub(super) fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

/// A bind group entry binding `size` bytes of `buffer` from `offset` (`None`: to its end).
pub(super) fn range(
    binding: u32,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: Option<u64>,
) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset,
            size: size.and_then(wgpu::BufferSize::new),
        }),
    }
}

/// A buffer that only the executor's passes and copies use.
pub(super) fn create(
    ctx: &GpuContext,
    label: &'static str,
    size: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// What every part records with: the context, the pipelines and the device limits.
#[derive(Clone, Copy)]
pub(super) struct Gpu<'a> {
    pub ctx: &'a GpuContext,
    pub pipelines: &'a super::pipelines::Pipelines,
    pub limits: Limits,
}
