//! Targets registered with the world (host arrays and GPU buffers), and where the world links
//! its motions to them: insertion, removal, row moves, final values.

use super::{MotionWorld, Progress};
use crate::error::TargetError;
use crate::table::targets::{Target, TargetEntry, TargetId, TargetLists, TargetRef};

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
        let owners = match id.is_gpu() {
            #[cfg(feature = "gpu")]
            true => self.targets.remove_group(id.slot()),
            _ => self.host_targets.unregister(id.slot()),
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
        let len = match id.is_gpu() {
            #[cfg(feature = "gpu")]
            true => self.targets.units(id.slot()),
            _ => self.host_targets.get(id.slot()).map(|a| a.len() as u64),
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
        let added = match target.id.is_gpu() {
            #[cfg(feature = "gpu")]
            true => self.targets.add(list, slot, entry),
            _ => self.host_targets.add(list, slot, entry),
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
        let moved = match r.is_gpu() {
            #[cfg(feature = "gpu")]
            true => self.targets.remove(r),
            _ => self.host_targets.remove(r),
        };
        if let Some(owner) = moved {
            self.table.meta[owner as usize].target = Some(r);
        }
    }

    /// Points a moved motion's target entry at its new row.
    pub(super) fn relink_target(&mut self, r: TargetRef, row: u32) {
        match r.is_gpu() {
            #[cfg(feature = "gpu")]
            true => self.targets.set_row(r, row),
            _ => self.host_targets.set_row(r, row),
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
        match r.is_gpu() {
            #[cfg(feature = "gpu")]
            true => self.targets.queue_final(r, &value),
            _ => self.host_targets.write(r, &value),
        }
    }

    /// Forgets every GPU target (their device is gone or replaced); host targets stay.
    #[cfg(feature = "gpu")]
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
