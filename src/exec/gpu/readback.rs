//! Readback of the values of motions with a CPU bind: a gather pass packs them into one
//! range, copied into a ring of staging buffers; blocking mode maps this update's entry,
//! pipelined mode reads the newest one that is ready and never waits.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::executor::{page_spans, range, whole, GpuExecutor, HeaderLayout, SMALL_GROUP};
use super::layout::{fold_dispatch, GatherParams};
use crate::error::GpuError;
use crate::table::rows::Rows;

/// When the values of motions with a CPU bind reach their binds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReadbackMode {
    /// This update's values, waiting for the GPU each update (default).
    #[default]
    Blocking,
    /// The previous update's values, never waiting: the CPU and GPU overlap.
    Pipelined,
}

/// Readback staging buffers in the ring.
pub(super) const RING: usize = 3;
/// Longest wait for a readback mapping before it counts as failed.
const MAP_TIMEOUT: Duration = Duration::from_secs(30);

/// A readback staging buffer and what it holds.
pub(super) struct Staging {
    pub buffer: wgpu::Buffer,
    /// 0 idle, 1 map pending, 2 mapped, 3 map failed.
    pub state: Arc<AtomicU8>,
    /// `(slot, version)` of each gathered motion, in order.
    pub motions: Vec<[u32; 2]>,
}

pub(super) const IDLE: u8 = 0;
pub(super) const PENDING: u8 = 1;
pub(super) const MAPPED: u8 = 2;
pub(super) const FAILED: u8 = 3;

impl GpuExecutor {
    /// Waits until ring entry `k` is mapped (or its mapping failed).
    ///
    /// `poll(wait)` alone is not enough when other threads share the device: their poll may
    /// have collected our map callback and be about to run it when ours returns. So after
    /// the wait, spin (polling) until the callback has run, with a timeout.
    pub(super) fn wait_for_map(&self, k: usize) -> Result<(), GpuError> {
        let Some(staging) = self.ring.get(k) else {
            return Ok(());
        };
        let device = self.ctx.device();
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::DeviceLost(e.to_string()))?;
        let start = Instant::now();
        while staging.state.load(Ordering::Acquire) == PENDING {
            self.ctx.check_lost()?;
            if start.elapsed() > MAP_TIMEOUT {
                return Err(GpuError::Map(
                    "timed out waiting for a readback buffer".into(),
                ));
            }
            std::thread::yield_now();
            let _ = device.poll(wgpu::PollType::Poll);
        }
        self.ctx.check_lost()
    }

    /// Records the gather pass (one dispatch per page of the table, each taking the listed
    /// rows that page holds) and the copy of `count` gathered values into ring entry `k`.
    pub(super) fn record_gather(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        k: usize,
        layout: HeaderLayout,
        count: u32,
        len: u32,
    ) -> Result<(), GpuError> {
        let (Some(table), Some(gathered), Some(staging)) =
            (&self.table, &self.gathered, self.ring.get(k))
        else {
            return Err(GpuError::Validation("no table or gather buffers".into()));
        };
        if self.gather_groups.len() != table.pages.len() {
            let device = self.ctx.device();
            self.gather_groups = table
                .pages
                .iter()
                .enumerate()
                .map(|(p, page)| {
                    device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("wgpu-tween gather"),
                        layout: &self.pipelines.gather_layout,
                        entries: &[
                            range(
                                0,
                                &self.header,
                                layout.gather(p),
                                size_of::<GatherParams>() as u64,
                            ),
                            wgpu::BindGroupEntry {
                                binding: 1,
                                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                    buffer: &self.header,
                                    offset: layout.list(),
                                    size: None,
                                }),
                            },
                            whole(2, &page.outputs),
                            whole(3, gathered),
                        ],
                    })
                })
                .collect();
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: super::transient_label("wgpu-tween gather"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipelines.gather);
            let spans = page_spans(Some(table), self.page_rows, len);
            for ((_, rows, _), group) in spans.zip(&self.gather_groups) {
                if rows > 0 {
                    pass.set_bind_group(0, group, &[]);
                    let (x, y) = fold_dispatch(count, SMALL_GROUP, self.max_per_axis);
                    pass.dispatch_workgroups(x, y, 1);
                    self.stats.dispatches += 1;
                }
            }
        }
        encoder.copy_buffer_to_buffer(gathered, 0, &staging.buffer, 0, u64::from(count) * 16);
        Ok(())
    }

    /// After the submission: ring entry `k` holds the values of `motions` (in order); its
    /// mapping starts.
    pub(super) fn map_staging(&mut self, k: usize, count: u32, motions: &[[u32; 2]]) {
        let Some(staging) = self.ring.get_mut(k) else {
            return;
        };
        staging.motions.clear();
        staging.motions.extend_from_slice(motions);
        staging.state.store(PENDING, Ordering::Release);
        let state = Arc::clone(&staging.state);
        staging.buffer.map_async(
            wgpu::MapMode::Read,
            ..u64::from(count) * 16,
            move |result| {
                state.store(
                    if result.is_ok() { MAPPED } else { FAILED },
                    Ordering::Release,
                );
            },
        );
        self.next_staging = (k + 1) % RING;
    }

    /// Makes room for `count` gathered motions (header list, gather buffer, staging ring).
    pub(super) fn ensure_gather(&mut self, count: u32) -> Result<(), GpuError> {
        if count <= self.gather_capacity && !self.ring.is_empty() {
            return Ok(());
        }
        let capacity = count.next_power_of_two().max(256);
        let device = self.ctx.device().clone();
        let bytes = u64::from(capacity) * 16;
        self.check_size("gathered values", bytes)?;
        self.gathered = Some(device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-tween gathered"),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        }));
        for staging in &self.ring {
            if staging.state.load(Ordering::Acquire) == MAPPED {
                staging.buffer.unmap();
            }
        }
        self.ring = (0..RING)
            .map(|_| Staging {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("wgpu-tween readback"),
                    size: bytes,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                state: Arc::new(AtomicU8::new(IDLE)),
                motions: Vec::with_capacity(capacity as usize),
            })
            .collect();
        self.next_staging = 0;
        self.gather_capacity = capacity;
        // The header holds the gather list.
        self.rebuild_header()
    }

    /// The next idle staging buffer. A mapped one that was never read (pipelined mode
    /// skipped it) is unmapped and reused; one still pending is waited for (its callback
    /// must have run before the buffer is used again, or it would be mapped under the copy).
    pub(super) fn pick_staging(&mut self) -> Result<usize, GpuError> {
        let k = self.next_staging;
        if self.ring[k].state.load(Ordering::Acquire) == PENDING {
            self.wait_for_map(k)?;
        }
        let staging = &self.ring[k];
        if staging.state.load(Ordering::Acquire) == MAPPED {
            staging.buffer.unmap();
        }
        staging.state.store(IDLE, Ordering::Release);
        Ok(k)
    }

    /// Copies the values of ring entry `k` into the output columns at their rows now.
    pub(super) fn read_back(
        &mut self,
        k: usize,
        rows: &mut Rows,
        row_of: &impl Fn(u32, u32) -> Option<u32>,
    ) -> Result<(), GpuError> {
        let Some(staging) = self.ring.get(k) else {
            return Ok(());
        };
        match staging.state.load(Ordering::Acquire) {
            MAPPED => {}
            FAILED => {
                staging.state.store(IDLE, Ordering::Release);
                return Err(GpuError::Map("readback buffer could not be mapped".into()));
            }
            _ => return Ok(()),
        }
        let count = staging.motions.len();
        self.stats.read_back_values += count as u32;
        {
            let view = staging
                .buffer
                .get_mapped_range(..(count as u64 * 16))
                .map_err(|e| GpuError::Map(e.to_string()))?;
            let values: &[[f32; 4]] = bytemuck::cast_slice(&view);
            for (&[slot, version], value) in staging.motions.iter().zip(values) {
                if let Some(row) = row_of(slot, version) {
                    for (column, v) in rows.outputs.iter_mut().zip(value) {
                        column[row as usize] = *v;
                    }
                }
            }
        }
        staging.buffer.unmap();
        staging.state.store(IDLE, Ordering::Release);
        Ok(())
    }
}
