//! The GPU executor: mirrors the rows in storage buffers and evaluates them in one compute
//! dispatch per update.
//!
//! Per update, one command buffer: (1) grow the table by GPU copy if needed, (2) apply the
//! frame's row changes (moves from swap-removes, then uploads of new and re-anchored rows),
//! (3) shrink the table if it is a quarter full (after the moves, which may read rows past the
//! new capacity), (4) evaluate every row, (5) scatter the values of motions with a GPU target
//! into their buffers, (6) gather the values of motions with a CPU bind and copy them into a
//! readback staging buffer. `write_buffer` calls: the frame header (clocks, params, gather
//! list); in frames with changes, the changes; with targets, their params and changed entries.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use bytemuck::Zeroable;

use super::context::{GpuContext, GpuError};
use super::layout::{fold_dispatch, split3_f64, ApplyParams, GatherParams, GpuFrame, RowOp};
use super::pipelines::Pipelines;
use super::readback::{ReadbackMode, Staging, FAILED, MAPPED, PENDING, RING};
use super::targets::{self, Source, Targets};
use super::timing::PassTimer;
use super::variants::Features;
use crate::error::BuildError;
use crate::row::MotionRow;
use crate::world::rows::Rows;

/// Uniform and storage offsets must be multiples of this (the WebGPU maximum of the limits).
const ALIGN: u64 = 256;
/// Header layout: frame, apply params (moves, uploads), gather params; then the gather list.
const FRAME_OFFSET: u64 = 0;
const APPLY_MOVES_OFFSET: u64 = 256;
const APPLY_UPLOADS_OFFSET: u64 = 512;
const GATHER_OFFSET: u64 = 768;
const GATHER_LIST_OFFSET: u64 = 1024;

const EVALUATE_GROUP: u32 = 256;
const SMALL_GROUP: u32 = 64;

fn align(x: u64) -> u64 {
    x.div_ceil(ALIGN) * ALIGN
}

/// The mirrored rows: timing rows, lane pairs (4 sections of `capacity`), parameter lanes
/// (one `vec4<f32>` per row), outputs (4 sections).
pub(super) struct Table {
    pub(super) rows: wgpu::Buffer,
    pub(super) lanes: wgpu::Buffer,
    pub(super) params: wgpu::Buffer,
    pub(super) outputs: wgpu::Buffer,
    pub(super) capacity: u32,
    /// Rows the GPU holds valid content for.
    pub(super) len: u32,
}

pub(crate) struct GpuExecutor {
    pub(super) ctx: GpuContext,
    pub(super) pipelines: Arc<Pipelines>,
    /// Timestamps around the evaluate pass (`src/gpu/timing.rs`), with TIMESTAMP_QUERY only.
    pub(super) timer: Option<PassTimer>,
    pub(super) table: Option<Table>,
    pub(super) header: wgpu::Buffer,
    pub(super) gather_capacity: u32,
    pub(super) changes: Option<wgpu::Buffer>,
    pub(super) gathered: Option<wgpu::Buffer>,
    pub(super) ring: Vec<Staging>,
    pub(super) next_staging: usize,
    pub(super) evaluate_group: Option<wgpu::BindGroup>,
    pub(super) gather_group: Option<wgpu::BindGroup>,
    pub(super) mode: ReadbackMode,
    pub(super) max_per_axis: u32,
    pub(super) max_binding: u64,
    /// Rises whenever the table is replaced (target bind groups made for it are stale).
    pub(super) table_generation: u64,
    // Scratch reused every frame.
    pub(super) moves: Vec<[u32; 2]>,
    pub(super) uploads: Vec<u32>,
    pub(super) bytes: Vec<u8>,
    /// The curve key buffer (binding 5 of the evaluate pass) and its key capacity.
    pub(super) curve_keys: Option<wgpu::Buffer>,
    pub(super) curve_capacity: u32,
    /// Changed key ranges are written here (one `write_buffer` per frame), then copied.
    pub(super) curve_staging: Option<wgpu::Buffer>,
    pub(super) curve_ranges: Vec<[u32; 2]>,
    pub(super) curve_bytes: Vec<u8>,
    /// The kinds of row uploaded since the table last held no rows: a superset of the kinds
    /// its live rows have (rows reach the GPU only by upload; moves only permute them), so
    /// the evaluate pipeline compiled for them evaluates every row.
    pub(super) features: Features,
    /// Whether the evaluate pass is compiled per [`Features`] (see
    /// `MotionWorld::set_gpu_specialization`); otherwise the variant for every kind is used.
    specialize: bool,
}

/// What the world hands the executor for one update.
pub(crate) struct FrameInput<'a> {
    pub now: &'a [f64; 3],
    /// Rows with a CPU bind (to read back), and their `(slot, version)`.
    pub bound_rows: &'a [u32],
    pub bound_motions: &'a [[u32; 2]],
}

impl GpuExecutor {
    pub fn new(ctx: GpuContext) -> Result<Self, GpuError> {
        let pipelines = ctx.pipelines()?;
        let limits = ctx.device().limits();
        let header = ctx.scoped(|| create_header(&ctx, 0))??;
        Ok(Self {
            timer: None,
            max_per_axis: limits.max_compute_workgroups_per_dimension,
            max_binding: limits
                .max_storage_buffer_binding_size
                .min(limits.max_buffer_size),
            ctx,
            pipelines,
            table: None,
            header,
            gather_capacity: 0,
            changes: None,
            gathered: None,
            ring: Vec::new(),
            next_staging: 0,
            evaluate_group: None,
            gather_group: None,
            mode: ReadbackMode::Blocking,
            table_generation: 0,
            moves: Vec::new(),
            uploads: Vec::new(),
            bytes: Vec::new(),
            curve_keys: None,
            curve_capacity: 0,
            curve_staging: None,
            curve_ranges: Vec::new(),
            curve_bytes: Vec::new(),
            features: Features::default(),
            specialize: true,
        })
    }

    pub fn context(&self) -> &GpuContext {
        &self.ctx
    }

    /// Starts (or stops) timing the evaluate pass; returns whether passes are timed (the
    /// device may lack timestamp queries).
    pub fn set_pass_timing(&mut self, on: bool) -> bool {
        if !on {
            self.timer = None;
        } else if self.timer.is_none() {
            self.timer = PassTimer::new(&self.ctx);
        }
        self.timer.is_some()
    }

    /// GPU time of the last timed evaluate pass (see `src/gpu/timing.rs`).
    pub fn pass_time(&mut self) -> Option<std::time::Duration> {
        self.timer.as_mut().and_then(PassTimer::last)
    }

    pub fn set_readback_mode(&mut self, mode: ReadbackMode) {
        self.mode = mode;
    }

    pub fn readback_mode(&self) -> ReadbackMode {
        self.mode
    }

    /// Writes the targeted motions' values, evaluated by the CPU executor into
    /// `rows.outputs`, into their target buffers: one upload and one scatter submission.
    pub fn fill_targets(&mut self, targets: &mut Targets, rows: &Rows) -> Result<(), GpuError> {
        if targets.is_empty() {
            return Ok(());
        }
        let ctx = self.ctx.clone();
        ctx.scoped(|| {
            let mut encoder =
                ctx.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("wgpu-tween targets"),
                    });
            targets.record(
                &ctx,
                &self.pipelines,
                &mut encoder,
                Source::Upload(rows),
                self.max_per_axis,
            )?;
            ctx.queue().submit([encoder.finish()]);
            Ok(())
        })?
    }

    /// Bytes of `buffer` a target scatter can bind on this device.
    pub fn target_binding_size(&self, buffer: &wgpu::Buffer) -> u64 {
        targets::binding_size(buffer, self.max_binding)
    }

    /// Checks that `buffer` can be bound as a target on this device.
    pub fn probe_target(&self, buffer: &wgpu::Buffer) -> Result<(), BuildError> {
        targets::probe(
            &self.ctx,
            &self.pipelines,
            buffer,
            self.target_binding_size(buffer),
        )
    }

    /// Caps the workgroups per dispatch axis (at least 1, at most the device limit).
    /// Compiles the evaluate pass for the kinds of rows uploaded (`true`, the default) or
    /// always uses the variant for every kind (`false`).
    pub fn set_specialization(&mut self, on: bool) {
        self.specialize = on;
    }

    pub fn set_max_workgroups_per_axis(&mut self, groups: u32) {
        let limit = self
            .ctx
            .device()
            .limits()
            .max_compute_workgroups_per_dimension;
        self.max_per_axis = groups.clamp(1, limit);
    }

    /// Row capacity of the GPU table (0 before the first update).
    pub fn capacity(&self) -> u32 {
        self.table.as_ref().map_or(0, |t| t.capacity)
    }

    /// Evaluates every row on the GPU and brings the bound motions' values back into
    /// `rows.outputs` (this update's in blocking mode, the last available in pipelined mode;
    /// `row_of` maps a `(slot, version)` to its row now, for values read a frame late).
    pub fn evaluate(
        &mut self,
        rows: &mut Rows,
        input: &FrameInput<'_>,
        targets: &mut Targets,
        row_of: impl Fn(u32, u32) -> Option<u32>,
    ) -> Result<(), GpuError> {
        let ctx = self.ctx.clone();
        let submitted = ctx.scoped(|| self.record_and_submit(rows, input, targets))??;
        match self.mode {
            ReadbackMode::Blocking => {
                if let Some(k) = submitted {
                    self.wait_for_map(k)?;
                    self.read_back(k, rows, &row_of)?;
                }
            }
            ReadbackMode::Pipelined => {
                let _ = self.ctx.device().poll(wgpu::PollType::Poll);
                // The newest mapped entry other than the one just submitted. The ring is
                // filled in order, so walking back from the newest submission finds it.
                let newest = (self.next_staging + RING - 1) % RING;
                for back in 0..RING {
                    let k = (newest + RING - back) % RING;
                    if Some(k) == submitted {
                        continue;
                    }
                    if self
                        .ring
                        .get(k)
                        .is_some_and(|s| s.state.load(Ordering::Acquire) == MAPPED)
                    {
                        self.read_back(k, rows, &row_of)?;
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// Records and submits one update; returns the ring entry the bound values go to.
    fn record_and_submit(
        &mut self,
        rows: &mut Rows,
        input: &FrameInput<'_>,
        targets: &mut Targets,
    ) -> Result<Option<usize>, GpuError> {
        let device = self.ctx.device().clone();
        let queue = self.ctx.queue().clone();
        let len = rows.len() as u32;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("wgpu-tween update"),
        });

        // 1. Table size. Growth (keeping the old contents by GPU copy) comes before the
        // changes, which may write rows past the old capacity; a shrink comes after them,
        // since moves may read rows past the new capacity.
        self.grow_table(len, &mut encoder)?;
        let Some(table) = &self.table else {
            return Ok(None);
        };
        let apply_stride = table.capacity;
        let shrink = self.shrink_target(len);
        let stride = shrink.unwrap_or(apply_stride);

        // 2. Changes: moves first (an upload may land on a row a move reads), then uploads.
        self.moves.clear();
        self.uploads.clear();
        if let Some(log) = &mut rows.mirror {
            log.drain(rows.rows.len(), &mut self.moves, &mut self.uploads);
        }
        let move_count = self.moves.len() as u32;
        let upload_count = self.uploads.len() as u32;
        if len == 0 {
            self.features = Features::default();
        }
        for &row in &self.uploads {
            if let Some(row) = rows.rows.get(row as usize) {
                self.features = self.features.union(Features::of(row));
            }
        }

        // 3. The header: clocks, pass params and the gather list, in one write.
        let gather_count = input.bound_rows.len() as u32;
        self.ensure_gather(gather_count)?;
        let w = input.now.map(split3_f64);
        let frame = GpuFrame {
            world_hi: [w[0][0], w[1][0], w[2][0], 0.0],
            world_mid: [w[0][1], w[1][1], w[2][1], 0.0],
            world_lo: [w[0][2], w[1][2], w[2][2], 0.0],
            row_count: len,
            lane_stride: stride,
            groups_x: fold_dispatch(len, EVALUATE_GROUP, self.max_per_axis).0,
            opaque_zero: 0,
        };
        let apply = |offset: u32, count: u32, staged: u32| ApplyParams {
            op_offset: offset,
            op_count: count,
            lane_stride: apply_stride,
            staged_stride: staged,
            groups_x: fold_dispatch(count, SMALL_GROUP, self.max_per_axis).0,
            ..ApplyParams::zeroed()
        };
        let gather = GatherParams {
            count: gather_count,
            lane_stride: stride,
            groups_x: fold_dispatch(gather_count, SMALL_GROUP, self.max_per_axis).0,
            _pad: 0,
        };
        self.bytes.clear();
        self.bytes.resize(
            (GATHER_LIST_OFFSET as usize) + input.bound_rows.len() * 4,
            0,
        );
        put(&mut self.bytes, FRAME_OFFSET, &frame);
        put(
            &mut self.bytes,
            APPLY_MOVES_OFFSET,
            &apply(0, move_count, upload_count),
        );
        put(
            &mut self.bytes,
            APPLY_UPLOADS_OFFSET,
            &apply(move_count, upload_count, upload_count),
        );
        put(&mut self.bytes, GATHER_OFFSET, &gather);
        self.bytes[GATHER_LIST_OFFSET as usize..]
            .copy_from_slice(bytemuck::cast_slice(input.bound_rows));
        queue.write_buffer(&self.header, 0, &self.bytes);

        if move_count + upload_count > 0 {
            self.record_changes(rows, &mut encoder, move_count, upload_count)?;
        }
        if let Some(wanted) = shrink {
            self.resize_table(wanted, len, &mut encoder)?;
        }

        let staging_index = if gather_count > 0 {
            Some(self.pick_staging()?)
        } else {
            None
        };

        // Curve keys: the buffer sized to the key table, changed ranges uploaded.
        self.sync_curve_keys(rows, &mut encoder)?;
        let curve_keys = self
            .curve_keys
            .as_ref()
            .ok_or(GpuError::Validation("no curve key buffer".into()))?;

        // 4. Evaluate.
        let table = self
            .table
            .as_ref()
            .ok_or(GpuError::Validation("no table".into()))?;
        let evaluate_group = self.evaluate_group.get_or_insert_with(|| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wgpu-tween evaluate"),
                layout: &self.pipelines.evaluate_layout,
                entries: &[
                    uniform_entry(0, &self.header, FRAME_OFFSET, size_of::<GpuFrame>()),
                    whole(1, &table.rows),
                    whole(2, &table.lanes),
                    whole(3, &table.outputs),
                    whole(4, &table.params),
                    whole(5, curve_keys),
                ],
            })
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgpu-tween evaluate"),
                timestamp_writes: self.timer.as_mut().and_then(PassTimer::begin),
            });
            let features = if self.specialize {
                self.features
            } else {
                Features::ALL
            };
            pass.set_pipeline(self.pipelines.evaluate(&device, features));
            pass.set_bind_group(0, &*evaluate_group, &[]);
            let (x, y) = fold_dispatch(len, EVALUATE_GROUP, self.max_per_axis);
            pass.dispatch_workgroups(x, y, 1);
        }
        if let Some(timer) = &self.timer {
            timer.resolve(&mut encoder);
        }

        // 5. Write the values of motions with a GPU target into their buffers.
        targets.record(
            &self.ctx,
            &self.pipelines,
            &mut encoder,
            Source::Outputs {
                buffer: &table.outputs,
                stride,
                generation: self.table_generation,
            },
            self.max_per_axis,
        )?;

        // 6. Gather the bound motions' values and copy them to a staging buffer.
        if let Some(k) = staging_index {
            let gathered = self
                .gathered
                .as_ref()
                .ok_or(GpuError::Validation("no gather buffer".into()))?;
            let gather_group = self.gather_group.get_or_insert_with(|| {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("wgpu-tween gather"),
                    layout: &self.pipelines.gather_layout,
                    entries: &[
                        uniform_entry(0, &self.header, GATHER_OFFSET, size_of::<GatherParams>()),
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: &self.header,
                                offset: GATHER_LIST_OFFSET,
                                size: None,
                            }),
                        },
                        whole(2, &table.outputs),
                        whole(3, gathered),
                    ],
                })
            });
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("wgpu-tween gather"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&self.pipelines.gather);
                pass.set_bind_group(0, &*gather_group, &[]);
                let (x, y) = fold_dispatch(gather_count, SMALL_GROUP, self.max_per_axis);
                pass.dispatch_workgroups(x, y, 1);
            }
            let bytes = u64::from(gather_count) * 16;
            let staging = &mut self.ring[k];
            encoder.copy_buffer_to_buffer(gathered, 0, &staging.buffer, 0, bytes);
            staging.motions.clear();
            staging.motions.extend_from_slice(input.bound_motions);
            queue.submit([encoder.finish()]);
            staging.state.store(PENDING, Ordering::Release);
            let state = Arc::clone(&staging.state);
            staging
                .buffer
                .map_async(wgpu::MapMode::Read, ..bytes, move |result| {
                    state.store(
                        if result.is_ok() { MAPPED } else { FAILED },
                        Ordering::Release,
                    );
                });
            self.next_staging = (k + 1) % RING;
        } else {
            queue.submit([encoder.finish()]);
        }
        if let Some(timer) = &mut self.timer {
            timer.submitted();
        }
        if let Some(table) = &mut self.table {
            table.len = len;
        }
        Ok(staging_index)
    }

    /// Uploads the frame's changes and records the apply pass (moves, then uploads).
    fn record_changes(
        &mut self,
        rows: &Rows,
        encoder: &mut wgpu::CommandEncoder,
        move_count: u32,
        upload_count: u32,
    ) -> Result<(), GpuError> {
        let device = self.ctx.device().clone();
        let ops_bytes = align(u64::from(move_count + upload_count) * 16);
        let rows_offset = ops_bytes;
        let rows_bytes = align(u64::from(upload_count.max(1)) * 32);
        let lanes_offset = rows_offset + rows_bytes;
        let lanes_bytes = align(u64::from(upload_count.max(1)) * 32);
        let params_offset = lanes_offset + lanes_bytes;
        let params_bytes = align(u64::from(upload_count.max(1)) * 16);
        let total = params_offset + params_bytes;
        if self.changes.as_ref().is_none_or(|b| b.size() < total) {
            let size = total.next_power_of_two().max(4096);
            self.check_size("row changes", size)?;
            self.changes = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-tween row changes"),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        let changes = self
            .changes
            .as_ref()
            .ok_or(GpuError::Validation("no changes buffer".into()))?;

        self.bytes.clear();
        self.bytes.resize(total as usize, 0);
        let mut at = 0;
        for &[dst, src] in &self.moves {
            put(
                &mut self.bytes,
                at,
                &RowOp {
                    dst,
                    src,
                    kind: 0,
                    _pad: 0,
                },
            );
            at += 16;
        }
        for (staged, &dst) in self.uploads.iter().enumerate() {
            put(
                &mut self.bytes,
                at,
                &RowOp {
                    dst,
                    src: staged as u32,
                    kind: 1,
                    _pad: 0,
                },
            );
            at += 16;
            put(
                &mut self.bytes,
                rows_offset + staged as u64 * 32,
                &rows.rows[dst as usize],
            );
            put(
                &mut self.bytes,
                params_offset + staged as u64 * 16,
                &rows.params(dst),
            );
            for lane in 0..4u64 {
                let offset = lanes_offset + (lane * u64::from(upload_count) + staged as u64) * 8;
                put(
                    &mut self.bytes,
                    offset,
                    &rows.lanes[lane as usize][dst as usize],
                );
            }
        }
        self.ctx.queue().write_buffer(changes, 0, &self.bytes);

        let table = self
            .table
            .as_ref()
            .ok_or(GpuError::Validation("no table".into()))?;
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("wgpu-tween apply"),
            layout: &self.pipelines.apply_layout,
            entries: &[
                uniform_entry(0, &self.header, 0, size_of::<ApplyParams>()),
                range(1, changes, 0, ops_bytes),
                range(2, changes, rows_offset, rows_bytes),
                range(3, changes, lanes_offset, lanes_bytes),
                whole(4, &table.rows),
                whole(5, &table.lanes),
                range(6, changes, params_offset, params_bytes),
                whole(7, &table.params),
            ],
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("wgpu-tween apply"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipelines.apply);
        for (offset, count) in [
            (APPLY_MOVES_OFFSET, move_count),
            (APPLY_UPLOADS_OFFSET, upload_count),
        ] {
            if count > 0 {
                pass.set_bind_group(0, &group, &[offset as u32]);
                let (x, y) = fold_dispatch(count, SMALL_GROUP, self.max_per_axis);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        Ok(())
    }

    pub(super) fn check_size(&self, what: &'static str, needed: u64) -> Result<(), GpuError> {
        if needed > self.max_binding {
            Err(GpuError::TooLarge {
                what,
                needed,
                limit: self.max_binding,
            })
        } else {
            Ok(())
        }
    }
}

pub(super) fn create_header(
    ctx: &GpuContext,
    gather_capacity: u32,
) -> Result<wgpu::Buffer, GpuError> {
    Ok(ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("wgpu-tween frame header"),
        size: GATHER_LIST_OFFSET + u64::from(gather_capacity.max(64)) * 4,
        usage: wgpu::BufferUsages::UNIFORM
            | wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    }))
}

fn put<T: bytemuck::Pod>(bytes: &mut [u8], offset: u64, value: &T) {
    let offset = offset as usize;
    let data = bytemuck::bytes_of(value);
    bytes[offset..offset + data.len()].copy_from_slice(data);
}

fn whole(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: buffer.as_entire_binding(),
    }
}

fn range(binding: u32, buffer: &wgpu::Buffer, offset: u64, size: u64) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding,
        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer,
            offset,
            size: wgpu::BufferSize::new(size),
        }),
    }
}

fn uniform_entry(
    binding: u32,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: usize,
) -> wgpu::BindGroupEntry<'_> {
    range(binding, buffer, offset, size as u64)
}

// Only `MotionRow` crosses into the changes buffer; keep its size in one place.
const _: () = assert!(size_of::<MotionRow>() == 32);
