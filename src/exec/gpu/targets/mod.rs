//! GPU targets: motions that write their value straight into a user's storage buffer (a
//! renderer's instance buffer, say), with no readback.
//!
//! Each buffer is registered with the world once (a group, named by a
//! [`TargetId`](crate::TargetId)). Each group keeps a dense [`TargetList`] of entries
//! `(row, f32 index, lanes)` copied into a small GPU buffer; one scatter dispatch per group copies the
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
//! Per-frame protocol: the world registers buffers (`register`) and edits the groups as
//! motions come and go (`add`, `remove`, `set_row`, `queue_final`); the executor calls [`Targets::record`] once per frame, after
//! the evaluate pass (GPU executor) or with the CPU's values (`scatter.rs`).

mod scatter;

use super::context::GpuContext;
use super::pipelines::Pipelines;
use super::stats::GpuUpdateStats;
use super::table::Page;
use crate::table::rows::Rows;
use crate::table::targets::{TargetEntry, TargetFormat, TargetList, TargetLists, TargetRef};

pub(crate) use scatter::{binding_size, probe};

/// The motions targeting one buffer.
struct Group {
    buffer: wgpu::Buffer,
    /// Bytes of `buffer` bound (a multiple of 4, within the device's binding limit).
    binding_size: u64,
    /// How its lanes are stored (which scatter entry point writes it).
    format: TargetFormat,
    /// Its motions (`max_lanes`: the upload path's lane sections).
    list: TargetList,
    /// The GPU copy of the entries and its capacity in entries.
    gpu: Option<(wgpu::Buffer, u32)>,
    /// The bind groups (one per value source: page of outputs, or the upload) and the
    /// resources they were made for.
    bind_groups: Option<(BindKey, Vec<wgpu::BindGroup>)>,
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

/// Every GPU target of a world, one group per registered buffer.
#[derive(Default)]
pub(crate) struct Targets {
    /// By group index; `None` once dropped (indices are not reused while the executor
    /// lives, so a stale id names nothing).
    groups: Vec<Option<Group>>,
    /// Final values for the next frame's scatter, in the order they were queued.
    finals: Vec<Final>,
    /// Their entry lists and values on the GPU (`scatter.rs`).
    finals_buffer: Option<wgpu::Buffer>,
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

impl TargetLists for Targets {
    fn list_mut(&mut self, list: u32) -> Option<&mut TargetList> {
        Some(&mut self.groups.get_mut(list as usize)?.as_mut()?.list)
    }

    fn count_mut(&mut self) -> &mut usize {
        &mut self.len
    }
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

    /// Registers `buffer` (checked for this device, `binding_size` bytes bound) written in
    /// `format`; returns its group.
    pub fn register(
        &mut self,
        buffer: &wgpu::Buffer,
        binding_size: u64,
        format: TargetFormat,
    ) -> u32 {
        self.groups.push(Some(Group {
            buffer: buffer.clone(),
            binding_size,
            format,
            list: TargetList::default(),
            gpu: None,
            bind_groups: None,
        }));
        self.groups.len() as u32 - 1
    }

    /// Units of group `g`'s format its bound bytes hold, if `g` is registered.
    pub fn units(&self, g: u32) -> Option<u64> {
        let group = self.groups.get(g as usize)?.as_ref()?;
        Some(group.binding_size / group.format.unit_bytes())
    }

    /// Removes group `g` and its targets (its queued final values too); returns the slots
    /// of its motions (`None`: no such group).
    pub fn remove_group(&mut self, g: u32) -> Option<Vec<u32>> {
        let group = self.groups.get_mut(g as usize)?.take()?;
        self.len -= group.list.owners.len();
        self.finals.retain(|f| f.group != g);
        Some(group.list.owners)
    }

    /// Forgets every bind group (the executor whose outputs they bind was replaced).
    pub fn forget_bind_groups(&mut self) {
        for g in self.groups.iter_mut().flatten() {
            g.bind_groups = None;
        }
    }

    /// Queues the final value of a motion ending between frames, for the next frame's
    /// scatter (call before removing its target).
    pub fn queue_final(&mut self, r: TargetRef, value: &[f32; 4]) {
        let Some(&entry) = self
            .list_mut(r.list())
            .and_then(|l| l.entries.get(r.entry as usize))
        else {
            return;
        };
        self.finals.push(Final {
            group: r.list(),
            entry,
            value: *value,
        });
    }

    /// Forgets every motion's target and queued final value; the buffers stay registered.
    pub fn clear_entries(&mut self) {
        for g in self.groups.iter_mut().flatten() {
            g.list.clear();
        }
        self.len = 0;
        self.finals.clear();
    }

    /// Forgets every target and releases every buffer (they belong to a device the world
    /// no longer uses).
    pub fn clear(&mut self) {
        *self = Self {
            // Group indices are not reused, so the ids of dropped buffers name nothing.
            groups: self.groups.iter().map(|_| None).collect(),
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
