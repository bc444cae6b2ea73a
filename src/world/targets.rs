//! Targets registered with the world (host arrays and GPU buffers), and where the world links
//! its motions to them: insertion, removal, row moves, final values.

use super::{MotionWorld, Progress};
use crate::error::TargetError;
use crate::table::targets::{
    Target, TargetEntry, TargetFormat, TargetId, TargetLists, TargetRef, GPU_BIT,
};

impl MotionWorld {
    /// Registers a host array of `len` f32s (zeros) that motions write their values into
    /// ([`TargetId::at`], [`Motion::target`](crate::Motion::target)), and returns its id.
    ///
    /// After every [`update`](Self::update) the array holds each targeting motion's value of
    /// that update, whatever the executor (the GPU executor fills it from its readback:
    /// blocking mode this update's values, pipelined mode the newest that came back, as
    /// for binds). A motion that finishes, by itself or by `complete` or `set_time`, writes
    /// its final value there at once; a cancelled one leaves its last value. f32s no
    /// motion writes keep what was there ([`host_target_mut`](Self::host_target_mut)).
    /// Read it with [`host_target`](Self::host_target) as `&[f32]`, and cast it (bytemuck)
    /// to your element type, or upload it with one `write_buffer`. A `len` over
    /// [`MAX_HOST_TARGET_LEN`](crate::MAX_HOST_TARGET_LEN) (2^30 f32s, all a target can
    /// address) or more than the allocator gives is [`TargetError::TooLarge`].
    ///
    /// ```
    /// use wgpu_tween::{Ease, Motion, MotionWorld};
    ///
    /// let mut world = MotionWorld::new();
    /// let positions = world.add_host_target(3 * 1000)?;
    /// for i in 0..1000 {
    ///     Motion::new(glam::Vec3::ZERO, glam::Vec3::splat(i as f32), 2.0)
    ///         .ease(Ease::Linear)
    ///         .target(positions.at(i, 3, 0))
    ///         .run(&mut world)?;
    /// }
    /// world.update(1.0)?;
    /// let floats = world.host_target(positions).expect("registered");
    /// let points: &[glam::Vec3] = bytemuck::cast_slice(floats);
    /// assert_eq!(points[10], glam::Vec3::splat(5.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_host_target(&mut self, len: usize) -> Result<TargetId, TargetError> {
        Ok(TargetId {
            world: self.id,
            index: self.host_targets.register(len)?,
        })
    }

    /// Registers a GPU storage buffer that motions write their values into, on the GPU
    /// (with either executor; no readback), and returns its id. The buffer is checked once
    /// here and the world keeps one clone of it.
    ///
    /// The buffer must have [`wgpu::BufferUsages::STORAGE`] and come from the device of the
    /// world's [`GpuContext`](crate::gpu::GpuContext) (share a renderer's device with
    /// [`GpuContext::from_device`](crate::gpu::GpuContext::from_device)): a world without a
    /// context ([`TargetError::NoGpu`]), a buffer without the usage
    /// ([`TargetError::NotStorage`]) or one the device refuses to bind (another device's,
    /// destroyed: [`TargetError::Rejected`]) is an error. A buffer of another
    /// `wgpu::Instance` cannot be told apart (wgpu 30 names buffers by ids unique only
    /// within an instance), so never pass one. Keep it alive (not destroyed) while motions
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

    /// A registered host array: what the last update (and any final values since) wrote.
    /// `None` for an id that names no host array of this world.
    #[must_use]
    pub fn host_target(&self, id: TargetId) -> Option<&[f32]> {
        if id.world != self.id || id.is_gpu() {
            return None;
        }
        self.host_targets.get(id.slot())
    }

    /// A registered host array, to set what no motion writes (or to reuse the memory).
    /// Values written here are overwritten by the motions that target them at the next
    /// update.
    #[must_use]
    pub fn host_target_mut(&mut self, id: TargetId) -> Option<&mut [f32]> {
        if id.world != self.id || id.is_gpu() {
            return None;
        }
        self.host_targets.get_mut(id.slot())
    }

    /// Unregisters a target (a host array is dropped; the world's clone of a GPU buffer is
    /// released). Its motions keep running without a target. Final values queued for a
    /// GPU buffer are dropped. An id that names no target of this world is
    /// [`TargetError::Unknown`].
    pub fn remove_target(&mut self, id: TargetId) -> Result<(), TargetError> {
        if id.world != self.id {
            return Err(TargetError::Unknown);
        }
        let owners = if id.is_gpu() {
            self.targets.remove_group(id.slot())
        } else {
            self.host_targets.unregister(id.slot())
        };
        for slot in owners.ok_or(TargetError::Unknown)? {
            self.table.meta[slot as usize].target = None;
        }
        Ok(())
    }

    /// Checks that this world can fill `target` for a value of `lanes` lanes; returns the
    /// f32 index of lane 0. O(1): the target was registered (and a GPU buffer checked)
    /// once.
    pub(crate) fn check_target(&self, target: &Target, lanes: usize) -> Result<u32, TargetError> {
        let id = target.id;
        if id.world != self.id {
            return Err(TargetError::Unknown);
        }
        let len = if id.is_gpu() {
            self.targets.units(id.slot())
        } else {
            self.host_targets.get(id.slot()).map(|a| a.len() as u64)
        };
        target.check(lanes, len.ok_or(TargetError::Unknown)?)
    }

    /// The current value of a motion's `target` (`lanes` of it) for a start from the
    /// current value: what its host array holds; `None` for a GPU buffer (not read back).
    pub(crate) fn current_value(
        &self,
        target: &Target,
        lanes: usize,
    ) -> Result<Option<[f32; 4]>, TargetError> {
        let first = self.check_target(target, lanes)? as usize;
        if target.id.is_gpu() {
            return Ok(None);
        }
        let array = self.host_targets.get(target.id.slot()).unwrap_or_default();
        let mut value = [0.0; 4];
        for (v, &x) in value.iter_mut().zip(array.iter().skip(first).take(lanes)) {
            *v = x;
        }
        Ok(Some(value))
    }

    /// Links the new motion in `slot` (at `row`) to `target`. A target this world cannot
    /// fill (a deferred spawn's target, removed since) is dropped: the motion runs
    /// without it.
    pub(super) fn link_target(&mut self, slot: u32, row: u32, target: &Target, lanes: usize) {
        let Ok(first) = self.check_target(target, lanes) else {
            return;
        };
        let (list, entry) = (target.id.slot(), TargetEntry::new(row, first, lanes));
        let added = if target.id.is_gpu() {
            self.targets.add(list, slot, entry)
        } else {
            self.host_targets.add(list, slot, entry)
        };
        self.table.meta[slot as usize].target = added.map(|entry| TargetRef {
            target: target.id.index,
            entry,
        });
    }

    /// Unlinks a removed motion from its target.
    pub(super) fn unlink_target(&mut self, slot: u32) {
        let Some(r) = self.table.meta[slot as usize].target.take() else {
            return;
        };
        let moved = if r.is_gpu() {
            self.targets.remove(r)
        } else {
            self.host_targets.remove(r)
        };
        if let Some(owner) = moved {
            self.table.meta[owner as usize].target = Some(r);
        }
    }

    /// Points a moved motion's target entry at its new row.
    pub(super) fn relink_target(&mut self, r: TargetRef, row: u32) {
        if r.is_gpu() {
            self.targets.set_row(r, row);
        } else {
            self.host_targets.set_row(r, row);
        }
    }

    /// A finishing motion's value at `now` for its target, if it has one: a host array
    /// gets it at once; for a GPU buffer it is queued, and the next update's scatter writes
    /// it (nothing is written to the device between updates).
    pub(super) fn write_final_target(&mut self, slot: u32, now: &Progress) {
        let Some(r) = self.table.meta[slot as usize].target else {
            return;
        };
        let row = self.table.slots[slot as usize].row;
        let w = self.clocks.now[self.table.rows.rows[row as usize].clock_index()];
        let value = self.table.rows.value_at(row, now, w);
        if r.is_gpu() {
            self.targets.queue_final(r, &value);
        } else {
            self.host_targets.write(r, &value);
        }
    }

    /// Forgets every GPU target (their device is gone or replaced); host targets stay.
    pub(super) fn drop_gpu_targets(&mut self) {
        self.targets.clear();
        for (_, slot) in self.table.rows.owned() {
            let meta = &mut self.table.meta[slot as usize];
            if meta.target.is_some_and(TargetRef::is_gpu) {
                meta.target = None;
            }
        }
    }
}
