//! The scatter pass: per frame, the final values queued since the last frame (one dispatch
//! per target buffer that has some), then every live target (one dispatch per target buffer
//! and value source).

use super::super::buffers::{align, create, put, range, Limits, ALIGN};
use super::super::context::GpuContext;
use super::super::layout::{fold_dispatch, format_code, ScatterParams, TargetEntry};
use super::super::pipelines::Pipelines;
use super::super::stats::GpuUpdateStats;
use super::{BindKey, Group, Source, Targets};
use crate::error::GpuError;
use crate::error::TargetError;
use crate::table::targets::TargetFormat;

/// Uniform offsets must be multiples of this (WebGPU's maximum of the alignment limit).
const PARAMS_STRIDE: u64 = 256;
/// Smallest GPU entry list, in entries.
const MIN_ENTRIES: u32 = 64;
const GROUP_SIZE: u32 = 64;

impl Targets {
    /// Records the scatter of every group into `encoder`: sync the entry lists, write the
    /// params (and, from the CPU, the values), one dispatch per target buffer and value
    /// source (page of outputs, or the upload).
    pub fn record(
        &mut self,
        ctx: &GpuContext,
        pipelines: &Pipelines,
        encoder: &mut wgpu::CommandEncoder,
        source: Source<'_>,
        limits: Limits,
    ) -> Result<(), GpuError> {
        if self.is_idle() {
            return Ok(());
        }
        let max_per_axis = limits.max_per_axis;
        if !self.finals.is_empty() {
            self.record_finals(ctx, pipelines, encoder, limits)?;
        }
        if self.len == 0 {
            return Ok(());
        }
        let device = ctx.device();
        let queue = ctx.queue();

        // Values from the CPU: per group, lane k of entry n at offset + k · count + n.
        // (Bind keys: even for output tables, odd for upload buffers.)
        let source_key = match source {
            Source::Outputs { generation, .. } => generation * 2,
            Source::Upload(rows) => {
                self.values.clear();
                for g in self.groups.iter().flatten() {
                    for k in 0..g.list.max_lanes as usize {
                        let column = &rows.outputs[k];
                        self.values
                            .extend(g.list.entries.iter().map(|e| column[e.row as usize]));
                    }
                }
                let bytes = (self.values.len() as u64 * 4).max(4);
                if self.uploads.as_ref().is_none_or(|b| b.size() < bytes) {
                    let size = bytes.next_power_of_two().max(256);
                    self.uploads = Some(device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("wgpu-tween target values"),
                        size,
                        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    }));
                    self.uploads_generation += 1;
                }
                if let Some(uploads) = &self.uploads {
                    if !self.values.is_empty() {
                        queue.write_buffer(uploads, 0, bytemuck::cast_slice(&self.values));
                        self.stats.wrote(size_of_val(self.values.as_slice()));
                    }
                }
                self.uploads_generation * 2 + 1
            }
        };
        // The value sources: (buffer, first row, end row, lane stride; 0 = by entry).
        let uploads = self.uploads.clone();
        let source_count = match source {
            Source::Outputs { pages, .. } => pages.len(),
            Source::Upload(_) => usize::from(uploads.is_some()),
        };
        let source_at = |s: usize| -> Option<(&wgpu::Buffer, u32, u32, u32)> {
            match source {
                Source::Outputs {
                    pages, page_rows, ..
                } => pages.get(s).map(|page| {
                    let base = s as u32 * page_rows;
                    (&page.outputs, base, base + page.capacity, page.capacity)
                }),
                Source::Upload(_) => uploads.as_ref().map(|b| (b, 0, u32::MAX, 0)),
            }
        };

        // Shared params: one 256-byte slot per group and source.
        let slots = (self.groups.len() * source_count) as u32;
        if self.params.is_none() || self.params_slots < slots {
            let capacity = slots.next_power_of_two().max(4);
            self.params = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-tween scatter params"),
                size: u64::from(capacity) * PARAMS_STRIDE,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
            self.params_slots = capacity;
            self.params_generation += 1;
        }
        let key = BindKey {
            source: source_key,
            params: self.params_generation,
        };
        let Some(params) = self.params.as_ref() else {
            return Ok(());
        };

        // Per group: entry list, params, bind groups.
        self.bytes.clear();
        self.bytes
            .resize(slots as usize * PARAMS_STRIDE as usize, 0);
        let mut offset = 0u32;
        for (index, g) in self.groups.iter_mut().enumerate() {
            let Some(g) = g else { continue };
            let count = g.list.entries.len() as u32;
            sync_entries(device, queue, g, &mut self.stats);
            for (s, (_, row_base, row_end, stride)) in
                (0..source_count).filter_map(source_at).enumerate()
            {
                let params_bytes = ScatterParams {
                    count,
                    src_stride: if stride == 0 { count } else { stride },
                    groups_x: fold_dispatch(count, GROUP_SIZE, max_per_axis).0,
                    by_entry: u32::from(stride == 0),
                    src_offset: offset,
                    row_base,
                    row_end,
                    format: format_code(g.format),
                };
                let at = (index * source_count + s) * PARAMS_STRIDE as usize;
                self.bytes[at..at + size_of::<ScatterParams>()]
                    .copy_from_slice(bytemuck::bytes_of(&params_bytes));
            }
            if matches!(source, Source::Upload(_)) {
                offset += count * g.list.max_lanes;
            }
            // A buffer no motion writes now is not bound (it may be gone).
            if !g.list.entries.is_empty() && g.bind_groups.as_ref().is_none_or(|(k, _)| *k != key) {
                let Some((entries, _)) = &g.gpu else { continue };
                let groups = (0..source_count)
                    .filter_map(source_at)
                    .map(|(values, ..)| {
                        device.create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some("wgpu-tween scatter"),
                            layout: &pipelines.scatter_layout,
                            entries: &[
                                wgpu::BindGroupEntry {
                                    binding: 0,
                                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                        buffer: params,
                                        offset: 0,
                                        size: wgpu::BufferSize::new(
                                            size_of::<ScatterParams>() as u64
                                        ),
                                    }),
                                },
                                wgpu::BindGroupEntry {
                                    binding: 1,
                                    resource: entries.as_entire_binding(),
                                },
                                wgpu::BindGroupEntry {
                                    binding: 2,
                                    resource: values.as_entire_binding(),
                                },
                                wgpu::BindGroupEntry {
                                    binding: 3,
                                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                        buffer: &g.buffer,
                                        offset: 0,
                                        size: wgpu::BufferSize::new(g.binding_size),
                                    }),
                                },
                            ],
                        })
                    })
                    .collect();
                g.bind_groups = Some((key, groups));
            }
        }
        queue.write_buffer(params, 0, &self.bytes);
        self.stats.wrote(self.bytes.len());

        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: super::super::transient_label("wgpu-tween scatter"),
            timestamp_writes: None,
        });
        for (index, g) in self.groups.iter().enumerate() {
            let Some(Group {
                list,
                bind_groups: Some((_, groups)),
                format,
                ..
            }) = g
            else {
                continue;
            };
            if list.entries.is_empty() {
                continue; // a registered buffer no motion writes now
            }
            pass.set_pipeline(pipelines.scatter_for(*format));
            let (x, y) = fold_dispatch(list.entries.len() as u32, GROUP_SIZE, max_per_axis);
            for (s, group) in groups.iter().enumerate() {
                let slot = (index * groups.len() + s) as u64;
                pass.set_bind_group(0, group, &[(slot * PARAMS_STRIDE) as u32]);
                pass.dispatch_workgroups(x, y, 1);
                self.stats.dispatches += 1;
            }
        }
        Ok(())
    }

    /// Records the scatter of the queued final values, then forgets them. One `write_buffer` into the finals buffer: per target
    /// buffer a params slot, then the entry lists (256-byte aligned), then the values (lane
    /// `k` of a buffer's final `n` at its offset `+ k · count + n`).
    fn record_finals(
        &mut self,
        ctx: &GpuContext,
        pipelines: &Pipelines,
        encoder: &mut wgpu::CommandEncoder,
        limits: Limits,
    ) -> Result<(), GpuError> {
        // The newest value of each f32 (one dispatch must not write one twice), grouped.
        self.finals.reverse();
        let key = |f: &super::Final| (f.group, f.entry.dst & TargetEntry::MAX_FIRST as u32);
        self.finals.sort_by_key(key);
        self.finals.dedup_by_key(|f| key(f));
        let mut runs: Vec<(u32, usize, usize)> = Vec::new();
        for (i, f) in self.finals.iter().enumerate() {
            match runs.last_mut() {
                Some((g, _, end)) if *g == f.group => *end = i + 1,
                _ => runs.push((f.group, i, i + 1)),
            }
        }
        let entries_at = runs.len() as u64 * PARAMS_STRIDE;
        let entry_bytes: u64 = runs
            .iter()
            .map(|&(_, a, b)| align((b - a) as u64 * 8))
            .sum();
        let values_at = entries_at + entry_bytes;
        let total = values_at + self.finals.len() as u64 * 16;
        limits.check_binding("final target values", total)?;
        if self.finals_buffer.as_ref().is_none_or(|b| b.size() < total) {
            self.finals_buffer = Some(create(
                ctx,
                "wgpu-tween final target values",
                total.next_power_of_two().max(4096),
                wgpu::BufferUsages::UNIFORM
                    | wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_DST,
            ));
        }
        let Some(buffer) = self.finals_buffer.as_ref() else {
            return Ok(());
        };
        self.bytes.clear();
        self.bytes.resize(total as usize, 0);
        let (mut entry_at, mut value_at) = (entries_at, values_at);
        let mut placed = Vec::with_capacity(runs.len());
        for (r, &(g, a, b)) in runs.iter().enumerate() {
            let finals = &self.finals[a..b];
            let count = finals.len() as u32;
            let format = match self.groups.get(g as usize) {
                Some(Some(group)) => group.format,
                _ => TargetFormat::F32,
            };
            let params = ScatterParams {
                count,
                src_stride: count,
                groups_x: fold_dispatch(count, GROUP_SIZE, limits.max_per_axis).0,
                by_entry: 1,
                src_offset: (value_at / 4) as u32,
                format: format_code(format),
                ..ScatterParams::default()
            };
            put(&mut self.bytes, r as u64 * PARAMS_STRIDE, &params);
            for (n, f) in finals.iter().enumerate() {
                put(&mut self.bytes, entry_at + n as u64 * 8, &f.entry);
                for (k, v) in f.value.iter().enumerate() {
                    let at = value_at + (k as u64 * u64::from(count) + n as u64) * 4;
                    put(&mut self.bytes, at, v);
                }
            }
            placed.push((g, entry_at, u64::from(count) * 8));
            entry_at += align(u64::from(count) * 8);
            value_at += u64::from(count) * 16;
        }
        debug_assert_eq!(entry_at % ALIGN, 0);
        ctx.queue().write_buffer(buffer, 0, &self.bytes);
        self.stats.wrote(self.bytes.len());

        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: super::super::transient_label("wgpu-tween final values"),
            timestamp_writes: None,
        });
        for (r, &(g, entries, bytes)) in placed.iter().enumerate() {
            let Some(Some(group)) = self.groups.get(g as usize) else {
                continue;
            };
            pass.set_pipeline(pipelines.scatter_for(group.format));
            let bind_group = ctx.device().create_bind_group(&wgpu::BindGroupDescriptor {
                label: super::super::transient_label("wgpu-tween final values"),
                layout: &pipelines.scatter_layout,
                entries: &[
                    range(0, buffer, 0, Some(size_of::<ScatterParams>() as u64)),
                    range(1, buffer, entries, Some(bytes)),
                    range(2, buffer, 0, Some(total)),
                    range(3, &group.buffer, 0, Some(group.binding_size)),
                ],
            });
            let count = (bytes / 8) as u32;
            let (x, y) = fold_dispatch(count, GROUP_SIZE, limits.max_per_axis);
            pass.set_bind_group(0, &bind_group, &[(r as u64 * PARAMS_STRIDE) as u32]);
            pass.dispatch_workgroups(x, y, 1);
            self.stats.dispatches += 1;
        }
        drop(pass);
        self.finals.clear();
        if self.finals.capacity() > 4096 {
            // A burst of completions: its scratch goes with it.
            self.finals = Vec::new();
            self.finals_buffer = None;
        }
        Ok(())
    }
}

/// Brings a group's GPU entry list up to date: its dirty range, or all of it when the list
/// is (re)allocated (growing geometrically, shrinking at a quarter full).
fn sync_entries(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    g: &mut Group,
    stats: &mut GpuUpdateStats,
) {
    let len = g.list.entries.len() as u32;
    let capacity = g.gpu.as_ref().map_or(0, |(_, c)| *c);
    if len > capacity || (capacity > MIN_ENTRIES && len * 4 <= capacity) {
        let capacity = (len * 2).next_power_of_two().max(MIN_ENTRIES);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-tween target entries"),
            size: u64::from(capacity) * size_of::<TargetEntry>() as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        g.gpu = Some((buffer, capacity));
        g.bind_groups = None;
        g.list.dirty = Some((0, len));
    }
    if let (Some((lo, hi)), Some((buffer, _))) = (g.list.dirty.take(), &g.gpu) {
        let hi = hi.min(len);
        if lo < hi {
            let entries = &g.list.entries[lo as usize..hi as usize];
            queue.write_buffer(
                buffer,
                u64::from(lo) * size_of::<TargetEntry>() as u64,
                bytemuck::cast_slice(entries),
            );
            stats.wrote(size_of_val(entries));
        }
    }
}

/// Bytes of `buffer` a scatter binds: its size, within the binding limit, in whole f32s.
pub(crate) fn binding_size(buffer: &wgpu::Buffer, max_binding: u64) -> u64 {
    buffer.size().min(max_binding) & !3
}

/// Checks that `buffer` can be bound as the scatter binds it, on `ctx`'s device.
pub(crate) fn probe(
    ctx: &GpuContext,
    pipelines: &Pipelines,
    buffer: &wgpu::Buffer,
    binding_size: u64,
) -> Result<(), TargetError> {
    let size =
        wgpu::BufferSize::new(binding_size).ok_or(TargetError::OutOfBounds { end: 1, len: 0 })?;
    // A buffer of another `wgpu::Instance` can make wgpu-core panic (its id indexes
    // another hub): caught here, as a refusal.
    let bind = std::panic::AssertUnwindSafe(|| {
        ctx.device().create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wgpu-tween target probe"),
            layout: &pipelines.target_probe_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: 0,
                    size: Some(size),
                }),
            }],
        })
    });
    // (Caught inside the error scopes, so that they are popped either way.)
    match ctx.scoped(|| std::panic::catch_unwind(bind)) {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(_)) => Err(TargetError::Rejected(
            "wgpu panicked binding it (a buffer of another wgpu::Instance?)".into(),
        )),
        Err(e) => Err(TargetError::Rejected(e.to_string())),
    }
}
