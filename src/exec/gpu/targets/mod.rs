//! GPU targets: motions that write their value straight into a user's storage buffer (a
//! renderer's instance buffer, say), with no readback.
//!
//! Motions are grouped by target buffer. Each group keeps a dense list of entries `(row, f32
//! index, lanes)` copied into a small GPU buffer; one scatter dispatch per group copies the
//! values there (one per group and page of the table, see `table.rs`, past one page). The
//! list changes only when a targeted motion is added, removed or moved
//! (swap-remove of its row), and then only the changed range is uploaded, so a frame without
//! such changes costs O(target buffers) on the CPU, not O(targets).
//!
//! The scatter reads the GPU executor's dense outputs, or, under the CPU executor, values the
//! CPU uploads for the targeted motions (one upload per frame for all buffers): user code is
//! the same with either executor.
//!
//! A motion that ends between frames (by `complete` or `set_time`) leaves its final value
//! here ([`Targets::queue_final`]); the next frame's scatter writes it, before the live
//! values (which win where both write one f32). Nothing is written between frames.
//!
//! Per-frame protocol: the world edits the groups as motions come and go (`add`, `remove`,
//! `set_row`, `queue_final`); the executor calls [`Targets::record`] once per frame, after
//! the evaluate pass (GPU executor) or with the CPU's values (`scatter.rs`).

mod scatter;

use std::collections::HashMap;

use super::context::GpuContext;
use super::layout::TargetEntry;
use super::pipelines::Pipelines;
use super::stats::GpuUpdateStats;
use super::table::Page;
use crate::error::{BuildError, TargetError};
use crate::table::rows::Rows;

pub(crate) use scatter::{binding_size, probe};

/// Where a motion writes its value: lanes `0..n` of the value go to f32 indices
/// `index · stride + offset + lane` of `buffer` (all in f32 units, not bytes).
///
/// Pass it to [`Motion::bind_to_buffer`](crate::Motion::bind_to_buffer) (or
/// [`Motion::target`](crate::Motion::target)). The buffer must have
/// [`wgpu::BufferUsages::STORAGE`], come from the device of the world's
/// [`GpuContext`](super::GpuContext) (share a renderer's device with
/// [`GpuContext::from_device`](super::GpuContext::from_device)), and stay alive (not
/// destroyed) while motions target it: a buffer the device no longer accepts costs the
/// motions that target it their targets ([`GpuError::TargetsLost`](crate::gpu::GpuError::TargetsLost)). A buffer of another
/// device of the same `wgpu::Instance` is a build error; one of another `Instance` cannot be
/// told apart (wgpu 30 names buffers by ids that are unique only within an instance), so
/// never pass one. Values are written in every update, before the
/// update returns (so a render pass submitted after `update` sees them), whatever the
/// executor. Nothing is written between updates: a motion created, re-timed (`set_time`) or
/// completed (`complete`, or `set_time` past its end) then gets its value, or its end value,
/// from the next update. A motion's last value stays in the buffer after it ends. Two motions writing the same
/// f32 leave an unspecified one of their values.
///
/// ```no_run
/// use wgpu_tween::gpu::{GpuContext, GpuTarget};
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
/// for i in 0..1000 {
///     let target = GpuTarget { buffer: instances.clone(), index: i, stride: 8, offset: 3 };
///     Motion::new(0.0f32, 1.0, 0.5).bind_to_buffer(&mut world, target)?;
/// }
/// world.update(1.0 / 60.0)?; // every instance's scale is written
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct GpuTarget {
    /// The destination buffer.
    pub buffer: wgpu::Buffer,
    /// Element index.
    pub index: u32,
    /// Element stride, in f32s.
    pub stride: u32,
    /// Offset of the field within an element, in f32s.
    pub offset: u32,
}

impl GpuTarget {
    /// A target at element `index` of `buffer`, elements `stride` f32s apart, the field
    /// `offset` f32s into the element.
    #[must_use]
    pub fn new(buffer: wgpu::Buffer, index: u32, stride: u32, offset: u32) -> Self {
        Self {
            buffer,
            index,
            stride,
            offset,
        }
    }

    /// The f32 index lane 0 is written at: `index · stride + offset`.
    #[must_use]
    pub fn first_float(&self) -> u64 {
        u64::from(self.index) * u64::from(self.stride) + u64::from(self.offset)
    }

    /// What can be checked without a device: usage and bounds for `lanes` values in
    /// `bound_bytes` of the buffer.
    pub(crate) fn validate(&self, lanes: usize, bound_bytes: u64) -> Result<(), BuildError> {
        if !self.buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
            return Err(BuildError::Target(TargetError::NotStorage));
        }
        let end = self.first_float() + lanes as u64;
        let len = bound_bytes / 4;
        if end > len || self.first_float() > TargetEntry::MAX_FIRST {
            return Err(BuildError::Target(TargetError::OutOfBounds { end, len }));
        }
        Ok(())
    }
}

/// A targeting motion's place in [`Targets`]: its buffer's group and its entry there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TargetRef {
    pub group: u32,
    pub entry: u32,
}

/// The motions targeting one buffer.
struct Group {
    buffer: wgpu::Buffer,
    /// Bytes of `buffer` bound (a multiple of 4, within the device's binding limit).
    binding_size: u64,
    entries: Vec<TargetEntry>,
    /// The slot of each entry's motion.
    owners: Vec<u32>,
    /// Most lanes of any entry so far (the upload path's lane sections).
    max_lanes: u32,
    /// Entries `lo..hi` changed since the GPU list was written.
    dirty: Option<(u32, u32)>,
    /// The GPU copy of `entries` and its capacity in entries.
    gpu: Option<(wgpu::Buffer, u32)>,
    /// The bind groups (one per value source: page of outputs, or the upload) and the
    /// resources they were made for.
    bind_groups: Option<(BindKey, Vec<wgpu::BindGroup>)>,
    /// Final values queued for this buffer (it stays while they wait, even without
    /// entries).
    finals: u32,
}

impl Group {
    fn touch(&mut self, entry: u32) {
        self.dirty = Some(match self.dirty {
            Some((lo, hi)) => (lo.min(entry), hi.max(entry + 1)),
            None => (entry, entry + 1),
        });
    }
}

/// What a bind group binds besides its group's own buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BindKey {
    /// Generation of the value source (outputs table or upload buffer; odd = upload).
    source: u64,
    /// Generation of the shared params buffer.
    params: u64,
}

/// Where the scatter reads values from.
#[derive(Clone, Copy)]
pub(crate) enum Source<'a> {
    /// The GPU executor's outputs, page by page: row `i` in page `i / page_rows`, its lane
    /// `k` at `k · page.capacity + i % page_rows`. `generation` changes whenever a page is
    /// replaced.
    Outputs {
        pages: &'a [Page],
        page_rows: u32,
        generation: u64,
    },
    /// The CPU executor's outputs in `rows`, uploaded for the targeted motions.
    Upload(&'a Rows),
}

/// The final value of a motion that ended between frames: `lanes` go to its target.
#[derive(Clone, Copy)]
struct Final {
    group: u32,
    /// Its entry, whose `row` is unused.
    entry: TargetEntry,
    value: [f32; 4],
}

/// Every target of a world, grouped by buffer.
#[derive(Default)]
pub(crate) struct Targets {
    groups: Vec<Option<Group>>,
    /// Final values for the next frame's scatter, in the order they were queued.
    finals: Vec<Final>,
    /// Their entry lists and values on the GPU (`scatter.rs`).
    finals_buffer: Option<wgpu::Buffer>,
    free: Vec<u32>,
    by_buffer: HashMap<wgpu::Buffer, u32>,
    /// Targeting motions.
    len: usize,
    params: Option<wgpu::Buffer>,
    params_slots: u32,
    params_generation: u64,
    uploads: Option<wgpu::Buffer>,
    uploads_generation: u64,
    // Scratch reused every frame.
    values: Vec<f32>,
    bytes: Vec<u8>,
    /// Bytes written and dispatches recorded since the last `reset_stats`.
    stats: GpuUpdateStats,
}

impl Targets {
    /// Whether no motion has a target.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether a frame has nothing to scatter: no target and no final value queued.
    pub fn is_idle(&self) -> bool {
        self.len == 0 && self.finals.is_empty()
    }

    /// Targeting motions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The groups whose buffer the device no longer accepts in a submission (destroyed, or
    /// left mapped): one probe dispatch per buffer, each submitted in its own error scope.
    /// Only after a failed update, to tell which buffers failed it.
    pub fn unusable_groups(&self, ctx: &GpuContext, pipelines: &Pipelines) -> Vec<u32> {
        let mut bad = Vec::new();
        for (g, group) in self.groups.iter().enumerate() {
            let Some(group) = group else {
                continue;
            };
            let probed = ctx.scoped(|| {
                let device = ctx.device();
                let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("wgpu-tween target probe"),
                    layout: &pipelines.target_probe_layout,
                    entries: &[wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &group.buffer,
                            offset: 0,
                            size: wgpu::BufferSize::new(group.binding_size),
                        }),
                    }],
                });
                let mut encoder = device.create_command_encoder(&Default::default());
                {
                    let mut pass = encoder.begin_compute_pass(&Default::default());
                    pass.set_pipeline(&pipelines.target_probe);
                    pass.set_bind_group(0, &bind_group, &[]);
                    pass.dispatch_workgroups(1, 1, 1);
                }
                ctx.queue().submit([encoder.finish()]);
            });
            if probed.is_err() {
                bad.push(g as u32);
            }
        }
        bad
    }

    /// Removes group `g` and its targets; returns the slots of its motions.
    pub fn remove_group(&mut self, g: u32) -> Vec<u32> {
        let Some(group) = self.groups.get_mut(g as usize).and_then(Option::take) else {
            return Vec::new();
        };
        self.by_buffer.remove(&group.buffer);
        self.free.push(g);
        self.len -= group.owners.len();
        self.finals.retain(|f| f.group != g);
        group.owners
    }

    /// Forgets every bind group (the executor whose outputs they bind was replaced).
    pub fn forget_bind_groups(&mut self) {
        for g in self.groups.iter_mut().flatten() {
            g.bind_groups = None;
        }
    }

    /// Whether some live motion already targets `buffer` (then it was checked).
    pub fn knows(&self, buffer: &wgpu::Buffer) -> bool {
        self.by_buffer.contains_key(buffer)
    }

    /// Adds the target of the motion in `slot` (at `row`, with `lanes` lanes). The target
    /// must have been validated against `binding_size` bytes of its buffer.
    pub fn add(
        &mut self,
        slot: u32,
        row: u32,
        target: &GpuTarget,
        lanes: usize,
        binding_size: u64,
    ) -> TargetRef {
        let group = match self.by_buffer.get(&target.buffer) {
            Some(&g) => g,
            None => {
                let group = Group {
                    buffer: target.buffer.clone(),
                    binding_size,
                    entries: Vec::new(),
                    owners: Vec::new(),
                    max_lanes: 1,
                    dirty: None,
                    gpu: None,
                    bind_groups: None,
                    finals: 0,
                };
                let g = match self.free.pop() {
                    Some(g) => {
                        self.groups[g as usize] = Some(group);
                        g
                    }
                    None => {
                        self.groups.push(Some(group));
                        self.groups.len() as u32 - 1
                    }
                };
                self.by_buffer.insert(target.buffer.clone(), g);
                g
            }
        };
        let Some(Some(g)) = self.groups.get_mut(group as usize) else {
            unreachable!("a group in by_buffer exists");
        };
        let entry = g.entries.len() as u32;
        g.entries
            .push(TargetEntry::new(row, target.first_float() as u32, lanes));
        g.owners.push(slot);
        g.max_lanes = g.max_lanes.max(lanes as u32);
        g.touch(entry);
        self.len += 1;
        TargetRef { group, entry }
    }

    /// Removes a target. Returns the slot whose entry moved into `r.entry` (its
    /// [`TargetRef`] is now `r`), if one did.
    pub fn remove(&mut self, r: TargetRef) -> Option<u32> {
        let g = self.groups.get_mut(r.group as usize)?.as_mut()?;
        let i = r.entry as usize;
        g.entries.swap_remove(i);
        g.owners.swap_remove(i);
        self.len -= 1;
        if g.entries.is_empty() {
            if g.finals == 0 {
                self.release(r.group);
            }
            return None;
        }
        if g.entries.capacity() > 64 && g.entries.len() * 4 <= g.entries.capacity() {
            let keep = g.entries.len() * 2;
            g.entries.shrink_to(keep);
            g.owners.shrink_to(keep);
        }
        let moved = g.owners.get(i).copied();
        if moved.is_some() {
            g.touch(r.entry);
        }
        moved
    }

    /// Points a target at the motion's new row (after a swap-remove moved it).
    pub fn set_row(&mut self, r: TargetRef, row: u32) {
        if let Some(Some(g)) = self.groups.get_mut(r.group as usize) {
            if let Some(e) = g.entries.get_mut(r.entry as usize) {
                e.row = row;
                g.touch(r.entry);
            }
        }
    }

    /// Queues the final value of a motion ending between frames, for the next frame's
    /// scatter (call before removing its target).
    pub fn queue_final(&mut self, r: TargetRef, value: &[f32; 4]) {
        let Some(Some(g)) = self.groups.get_mut(r.group as usize) else {
            return;
        };
        let Some(&entry) = g.entries.get(r.entry as usize) else {
            return;
        };
        g.finals += 1;
        self.finals.push(Final {
            group: r.group,
            entry,
            value: *value,
        });
    }

    /// Releases group `g`'s buffer (the slot of the group is reused).
    fn release(&mut self, g: u32) {
        if let Some(group) = self.groups.get_mut(g as usize).and_then(Option::take) {
            self.by_buffer.remove(&group.buffer);
            self.free.push(g);
        }
    }

    /// Forgets every target and releases every buffer.
    pub fn clear(&mut self) {
        *self = Self {
            // Generations keep rising, so no stale key can match a new resource.
            params_generation: self.params_generation + 1,
            uploads_generation: self.uploads_generation + 1,
            stats: self.stats,
            ..Self::default()
        };
    }

    /// The bytes written and dispatches recorded since the last `reset_stats`.
    pub fn stats(&self) -> GpuUpdateStats {
        self.stats
    }

    /// Starts the counters of a new update.
    pub fn reset_stats(&mut self) {
        self.stats = GpuUpdateStats::default();
    }
}
