//! GPU buffers as targets (feature `gpu`): buffers the world's context makes, or a
//! renderer's own, registered once.

use super::MotionWorld;
use crate::error::TargetError;
#[cfg(doc)]
use crate::exec::gpu::GpuContext;
use crate::table::targets::{TargetFormat, TargetId, GPU_BIT};

impl MotionWorld {
    /// Creates a GPU buffer of `size` bytes on the world's context and registers it as a
    /// target in `format` (see [`add_gpu_target_with`](Self::add_gpu_target_with)); returns
    /// its id and the buffer (with `usage` plus `STORAGE`: add `VERTEX` to draw from it).
    /// The one-step form of [`GpuContext::create_target_buffer`] and `add_gpu_target`,
    /// which cannot be handed another device's buffer. A world without a context is
    /// [`TargetError::NoGpu`]; a buffer the device cannot make, [`TargetError::Create`].
    ///
    /// ```no_run
    /// use wgpu_tween::gpu::GpuContext;
    /// use wgpu_tween::{Motion, MotionWorld, TargetFormat};
    ///
    /// let mut world = MotionWorld::with_gpu(GpuContext::new()?)?;
    /// // 1000 instances of 4 f32s (position x, y, z, scale), drawn as a vertex buffer.
    /// let (positions, buffer) =
    ///     world.create_gpu_target(1000 * 16, wgpu::BufferUsages::VERTEX, TargetFormat::F32)?;
    /// Motion::new(glam::Vec3::ZERO, glam::Vec3::ONE, 1.0)
    ///     .bind_to_buffer(&mut world, positions.at(0, 4, 0))?;
    /// world.update(0.5)?; // `buffer` holds instance 0's position
    /// # drop(buffer);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_gpu_target(
        &mut self,
        size: u64,
        usage: wgpu::BufferUsages,
        format: TargetFormat,
    ) -> Result<(TargetId, wgpu::Buffer), TargetError> {
        let gpu = self.gpu.as_deref().ok_or(TargetError::NoGpu)?;
        let buffer = gpu
            .context()
            .create_target_buffer(size, usage)
            .map_err(TargetError::Create)?;
        let id = self.add_gpu_target_with(&buffer, format)?;
        Ok((id, buffer))
    }

    /// Registers a GPU storage buffer that motions write their values into, on the GPU
    /// (with either executor; no readback), and returns its id. The buffer is checked once
    /// here and the world keeps one clone of it.
    ///
    /// The buffer must have [`wgpu::BufferUsages::STORAGE`] and come from the device of the
    /// world's [`GpuContext`]: make it with [`GpuContext::create_target_buffer`] (or use
    /// [`create_gpu_target`](Self::create_gpu_target), which does both steps), or share a
    /// renderer's device with [`GpuContext::from_device`] and make it there. A world
    /// without a context ([`TargetError::NoGpu`]), a buffer without the usage
    /// ([`TargetError::NotStorage`]) or one the device refuses to bind (another device's,
    /// destroyed: [`TargetError::Rejected`]) is an error. A buffer of another
    /// `wgpu::Instance` (say a second `GpuContext::new()`) cannot always be told apart:
    /// wgpu 30 names buffers by ids unique only within an instance, so it may be refused
    /// ([`TargetError::Rejected`], where wgpu panics on it) or taken for a buffer of this
    /// device. Never pass one. Keep it alive (not destroyed) while motions
    /// write into it: a buffer the device no longer accepts costs only the motions that
    /// target it their targets, and its registration
    /// ([`GpuError::TargetsLost`](crate::gpu::GpuError::TargetsLost)).
    ///
    /// Values are written in every update, before the update returns (so a render pass
    /// submitted after `update` sees them). Nothing is written between updates: a motion
    /// created, re-timed (`set_time`) or completed (`complete`, or `set_time` past its end)
    /// gets its value, or its end value, from the next update. A motion's last value stays
    /// in the buffer after it ends. Attaching another context
    /// ([`attach_gpu`](Self::attach_gpu)) or losing the device drops every GPU target.
    ///
    /// ```no_run
    /// use wgpu_tween::gpu::GpuContext;
    /// use wgpu_tween::{Motion, MotionWorld};
    ///
    /// let ctx = GpuContext::new()?;
    /// // Instances of 8 f32s: position at 0..3, scale at 3, color at 4..8.
    /// let instances = ctx.device().create_buffer(&wgpu::BufferDescriptor {
    ///     label: Some("instances"),
    ///     size: 1000 * 8 * 4,
    ///     usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::VERTEX,
    ///     mapped_at_creation: false,
    /// });
    /// let mut world = MotionWorld::with_gpu(ctx)?;
    /// let target = world.add_gpu_target(&instances)?;
    /// for i in 0..1000 {
    ///     Motion::new(0.0f32, 1.0, 0.5).bind_to_buffer(&mut world, target.at(i, 8, 3))?;
    /// }
    /// world.update(1.0 / 60.0)?; // every instance's scale is written
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_gpu_target(&mut self, buffer: &wgpu::Buffer) -> Result<TargetId, TargetError> {
        self.add_gpu_target_with(buffer, TargetFormat::F32)
    }

    /// [`add_gpu_target`](Self::add_gpu_target) for a buffer that stores lanes in `format`:
    /// bytes ([`TargetFormat::Unorm8`], colors as wgpu's `Unorm8x4`) or halves
    /// ([`TargetFormat::Float16`]). The indices, strides and offsets of its
    /// [`Target`]s ([`TargetId::at`]) count those units; each lane writes only its own
    /// unit (the other bytes of a word keep what is there). Host arrays are f32s only.
    ///
    /// ```no_run
    /// use wgpu_tween::gpu::GpuContext;
    /// use wgpu_tween::{Color, Motion, MotionWorld, TargetFormat};
    ///
    /// let ctx = GpuContext::new()?;
    /// // Instances of 16 bytes: a color as Unorm8x4 at byte 12.
    /// let instances = ctx.device().create_buffer(&wgpu::BufferDescriptor {
    ///     label: Some("instances"),
    ///     size: 1000 * 16,
    ///     usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::VERTEX,
    ///     mapped_at_creation: false,
    /// });
    /// let mut world = MotionWorld::with_gpu(ctx)?;
    /// let colors = world.add_gpu_target_with(&instances, TargetFormat::Unorm8)?;
    /// let (from, to) = (Color::new(1.0, 0.0, 0.0, 1.0), Color::new(0.0, 0.0, 1.0, 1.0));
    /// Motion::new(from, to, 1.0).bind_to_buffer(&mut world, colors.at(7, 16, 12))?;
    /// world.update(0.5)?; // instance 7's color: bytes [128, 0, 128, 255]
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_gpu_target_with(
        &mut self,
        buffer: &wgpu::Buffer,
        format: TargetFormat,
    ) -> Result<TargetId, TargetError> {
        let gpu = self.gpu.as_deref().ok_or(TargetError::NoGpu)?;
        if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Err(TargetError::NotStorage);
        }
        gpu.probe_target(buffer)?;
        let size = gpu.target_binding_size(buffer);
        Ok(TargetId {
            world: self.id,
            index: self.targets.register(buffer, size, format) | GPU_BIT,
        })
    }
}
