//! Targets: arrays of f32s that motions write their values into, registered with a world
//! once ([`TargetId`]) and addressed per motion by element index, stride and field offset
//! ([`Target`]). A target is a host array owned by the world (here: executor-independent
//! output storage, filled from the table's output columns) or a GPU storage buffer (filled
//! by the GPU's scatter pass, `exec/gpu/targets`). Both keep their motions in a
//! [`TargetList`] of the same entries.
//!
//! The host arrays and their fill are in `host_targets.rs`.

use bytemuck::{Pod, Zeroable};

use crate::error::TargetError;

/// A target registered with a world: a host array
/// ([`MotionWorld::add_host_target`](crate::MotionWorld::add_host_target)) or a GPU storage
/// buffer ([`MotionWorld::add_gpu_target`](crate::MotionWorld::add_gpu_target)). A small
/// copyable id: each motion refers to it with a [`Target`] (see [`TargetId::at`]), so a
/// million targeted motions hold no buffer clones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TargetId {
    pub(crate) world: u32,
    /// The index in its kind's list, with [`GPU_BIT`] for a GPU buffer.
    pub(crate) index: u32,
}

/// [`TargetId::index`] bit of a GPU target.
pub(crate) const GPU_BIT: u32 = 1 << 31;

impl TargetId {
    /// Where a motion writes into this target: lanes `0..n` of its value go to f32 indices
    /// `index · stride + offset + lane` (all in f32 units, not bytes; in the
    /// [`TargetFormat`]'s units for a GPU target registered with one). The stride must hold
    /// the value's lanes (`stride ≥ n`, so elements never overlap) and the last lane must
    /// fit in the target: building the motion checks both
    /// ([`TargetError::StrideTooSmall`], [`TargetError::OutOfBounds`]).
    ///
    /// ```
    /// use wgpu_tween::{Motion, MotionWorld};
    /// use glam::Vec3;
    ///
    /// let mut world = MotionWorld::new();
    /// // 100 instances of 4 f32s: a position at 0..3, a scale at 3.
    /// let instances = world.add_host_target(100 * 4)?;
    /// Motion::new(Vec3::ZERO, Vec3::ONE, 1.0).target(instances.at(7, 4, 0)).run(&mut world)?;
    /// Motion::new(1.0f32, 2.0, 1.0).target(instances.at(7, 4, 3)).run(&mut world)?;
    /// world.update(0.5)?;
    /// let floats = world.host_target(instances).expect("registered");
    /// assert_eq!(&floats[28..32], &[0.5, 0.5, 0.5, 1.5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub const fn at(self, index: u32, stride: u32, offset: u32) -> Target {
        Target {
            id: self,
            index,
            stride,
            offset,
        }
    }

    /// Whether this is a GPU buffer (else a host array).
    #[must_use]
    pub const fn is_gpu(self) -> bool {
        self.index & GPU_BIT != 0
    }

    /// The index in its kind's list.
    pub(crate) const fn slot(self) -> u32 {
        self.index & !GPU_BIT
    }
}

/// How a GPU target stores each lane ([`MotionWorld::add_gpu_target_with`]). A target's
/// indices, strides and offsets ([`TargetId::at`]) count its format's units: f32s, bytes
/// or halves. Lane `k` of a motion goes to unit `index · stride + offset + k`.
///
/// [`MotionWorld::add_gpu_target_with`]: crate::MotionWorld::add_gpu_target_with
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TargetFormat {
    /// One f32 per lane (the default).
    #[default]
    F32,
    /// One byte per lane, `round(255 · clamp(x, 0, 1))` (WGSL `pack4x8unorm`): a color
    /// (`Vec4`, [`Color`](crate::Color)) at a byte offset that is a multiple of 4 fills one
    /// u32 as wgpu's `VertexFormat::Unorm8x4` reads it (r in the lowest byte). Fewer lanes
    /// write only their own bytes (a `Vec3` leaves the alpha byte alone).
    Unorm8,
    /// One IEEE half per lane (WGSL `pack2x16float`; wgpu's `Float16x2`, `Float16x4`),
    /// values clamped to ±65504 (the largest finite half). A lane writes only its own 16
    /// bits.
    Float16,
}

impl TargetFormat {
    /// Bytes per unit (per lane).
    #[must_use]
    pub const fn unit_bytes(self) -> u64 {
        match self {
            Self::F32 => 4,
            Self::Unorm8 => 1,
            Self::Float16 => 2,
        }
    }
}

/// Where one motion writes its value: lanes `0..n` go to f32 indices
/// `index · stride + offset + lane` of the registered target `id`. Made by
/// [`TargetId::at`]; passed to [`Motion::target`](crate::Motion::target).
///
/// The world fills a target in every update, whatever the executor, and a motion that
/// finishes leaves its final value there (see [`MotionWorld::add_host_target`] and
/// [`MotionWorld::add_gpu_target`](crate::MotionWorld::add_gpu_target) for when each kind is
/// written). Two motions writing the same f32 leave an unspecified one of their values.
///
/// [`MotionWorld::add_host_target`]: crate::MotionWorld::add_host_target
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The registered target.
    pub id: TargetId,
    /// Element index.
    pub index: u32,
    /// Element stride, in f32s (or the target format's units).
    pub stride: u32,
    /// Offset of the field within an element, in f32s (or the target format's units).
    pub offset: u32,
}

impl Target {
    /// The f32 index lane 0 is written at: `index · stride + offset`.
    #[must_use]
    pub const fn first_float(&self) -> u64 {
        self.index as u64 * self.stride as u64 + self.offset as u64
    }

    /// Checks that `lanes` values fit in `len` f32s without overlapping the next element;
    /// returns the first f32's index.
    pub(crate) fn check(&self, lanes: usize, len: u64) -> Result<u32, TargetError> {
        if (self.stride as usize) < lanes {
            return Err(TargetError::StrideTooSmall {
                stride: self.stride,
                lanes,
            });
        }
        let first = self.first_float();
        let end = first + lanes as u64;
        if end > len || first > TargetEntry::MAX_FIRST {
            return Err(TargetError::OutOfBounds { end, len });
        }
        Ok(first as u32)
    }
}

/// One motion's place in a target (`TargetEntry` in `shaders/scatter.wgsl`, which reads the
/// GPU lists).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct TargetEntry {
    /// The motion's row.
    pub row: u32,
    /// f32 index of lane 0 in bits 0..30, lane count − 1 in bits 30..32.
    pub dst: u32,
}

impl TargetEntry {
    /// Largest f32 index a target may start at (a 4 GiB buffer holds 2^30 f32s).
    pub const MAX_FIRST: u64 = (1 << 30) - 1;

    /// An entry for `row` writing `lanes` (1..=4) values from f32 index `first`.
    #[must_use]
    pub fn new(row: u32, first: u32, lanes: usize) -> Self {
        debug_assert!(u64::from(first) <= Self::MAX_FIRST && (1..=4).contains(&lanes));
        Self {
            row,
            dst: first | ((lanes as u32 - 1) << 30),
        }
    }

    /// The f32 index of lane 0.
    #[must_use]
    pub fn first(self) -> usize {
        (self.dst & Self::MAX_FIRST as u32) as usize
    }

    /// The lane count (1..=4).
    #[must_use]
    pub fn lanes(self) -> usize {
        (self.dst >> 30) as usize + 1
    }
}

/// A targeting motion's place: its target's list (host or GPU) and its entry there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TargetRef {
    /// The [`TargetId::index`] of its target ([`GPU_BIT`] set for a GPU buffer).
    pub target: u32,
    pub entry: u32,
}

impl TargetRef {
    pub fn is_gpu(self) -> bool {
        self.target & GPU_BIT != 0
    }

    /// The index in its kind's list.
    pub fn list(self) -> u32 {
        self.target & !GPU_BIT
    }
}

/// The motions writing into one target: dense entries and their slots, swap-removed.
#[derive(Default)]
pub(crate) struct TargetList {
    pub entries: Vec<TargetEntry>,
    /// The slot of each entry's motion.
    pub owners: Vec<u32>,
    /// Most lanes of any entry so far.
    pub max_lanes: u32,
    /// Entries `lo..hi` changed since the GPU copy of the list was written.
    pub dirty: Option<(u32, u32)>,
}

impl TargetList {
    fn touch(&mut self, entry: u32) {
        self.dirty = Some(match self.dirty {
            Some((lo, hi)) => (lo.min(entry), hi.max(entry + 1)),
            None => (entry, entry + 1),
        });
    }

    /// Adds the entry of the motion in `slot`; returns its index.
    pub fn push(&mut self, slot: u32, entry: TargetEntry) -> u32 {
        let at = self.entries.len() as u32;
        self.entries.push(entry);
        self.owners.push(slot);
        self.max_lanes = self.max_lanes.max(entry.lanes() as u32);
        self.touch(at);
        at
    }

    /// Removes entry `i` (`None`: no such entry). Returns the slot whose entry moved into
    /// `i`, if one did.
    pub fn swap_remove(&mut self, i: u32) -> Option<Option<u32>> {
        let at = i as usize;
        if at >= self.entries.len() {
            return None;
        }
        self.entries.swap_remove(at);
        self.owners.swap_remove(at);
        if self.entries.capacity() > 64 && self.entries.len() * 4 <= self.entries.capacity() {
            let keep = self.entries.len() * 2;
            self.entries.shrink_to(keep);
            self.owners.shrink_to(keep);
        }
        // Touched even when nothing moved in: the list changed (its length).
        self.touch(i);
        Some(self.owners.get(at).copied())
    }

    /// Points entry `i` at its motion's new row.
    pub fn set_row(&mut self, i: u32, row: u32) {
        if let Some(e) = self.entries.get_mut(i as usize) {
            e.row = row;
            self.touch(i);
        }
    }

    /// Forgets every entry (keeping the GPU copy, which the next sync overwrites).
    pub fn clear(&mut self) {
        self.entries = Vec::new();
        self.owners = Vec::new();
        self.dirty = None;
    }
}

/// What the host arrays and the GPU groups share: lists of entries by index, and a count
/// of their motions.
pub(crate) trait TargetLists {
    /// List `list`, if registered.
    fn list_mut(&mut self, list: u32) -> Option<&mut TargetList>;
    /// Targeting motions.
    fn count_mut(&mut self) -> &mut usize;

    /// Adds the motion in `slot` to list `list`; returns its entry (`None`: no such list).
    fn add(&mut self, list: u32, slot: u32, entry: TargetEntry) -> Option<u32> {
        let at = self.list_mut(list)?.push(slot, entry);
        *self.count_mut() += 1;
        Some(at)
    }

    /// Removes a motion's entry. Returns the slot whose entry moved into `r.entry` (its
    /// [`TargetRef`] is now `r`), if one did.
    fn remove(&mut self, r: TargetRef) -> Option<u32> {
        let moved = self.list_mut(r.list())?.swap_remove(r.entry)?;
        *self.count_mut() -= 1;
        moved
    }

    /// Points a motion's entry at its new row (after a swap-remove moved it).
    fn set_row(&mut self, r: TargetRef, row: u32) {
        if let Some(list) = self.list_mut(r.list()) {
            list.set_row(r.entry, row);
        }
    }
}
