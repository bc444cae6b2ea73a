//! Readback of the values of motions with a CPU bind: a gather pass packs them into one
//! range, copied into a ring of staging buffers; blocking mode maps this frame's entry,
//! pipelined mode reads the newest one that is ready and never waits.
//!
//! Per-frame protocol: [`Readback::reserve`] for the frame's bound motions (before the
//! header is sized, since the header holds the gather list), [`Readback::record`] after the
//! scatter (the gather pass and the copy into the next ring entry), then, once the frame is
//! submitted, [`Readback::submitted`] (the entry's mapping starts) and [`Readback::deliver`]
//! (the values into the output columns: this frame's, or in pipelined mode the newest
//! ready).
//!
//! On the web nothing may wait: there the synchronous update reads as pipelined mode does
//! (whatever the mode), and the world's `update_async` awaits this frame's mapping
//! ([`Readback::this_update_mapped`], woken by the map callback) before
//! [`Readback::deliver_awaited`].

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
#[cfg(not(target_arch = "wasm32"))]
use std::time::{Duration, Instant};

use super::buffers::{create, range, whole, Gpu, SMALL_GROUP};
use super::context::GpuContext;
use super::header::FrameHeader;
use super::layout::{fold_dispatch, GatherParams};
use super::stats::GpuUpdateStats;
use super::table::GpuTable;
use crate::error::GpuError;
use crate::table::rows::Rows;

/// When the values of motions with a CPU bind reach their binds.
///
/// On the web (wasm32), where nothing may block, the default is `Pipelined`, and
/// `MotionWorld::update` reads as `Pipelined` does in either mode; in `Blocking` mode
/// [`MotionWorld::update_async`](crate::MotionWorld::update_async) awaits this update's
/// values instead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReadbackMode {
    /// This update's values, waiting for the GPU each update (the default, but on the web).
    #[cfg_attr(not(target_arch = "wasm32"), default)]
    Blocking,
    /// The previous update's values, never waiting: the CPU and GPU overlap (the default on
    /// the web).
    #[cfg_attr(target_arch = "wasm32", default)]
    Pipelined,
}

/// Readback staging buffers in the ring.
const RING: usize = 3;
/// Longest wait for a readback mapping before it counts as failed.
#[cfg(not(target_arch = "wasm32"))]
const MAP_TIMEOUT: Duration = Duration::from_secs(30);

const IDLE: u8 = 0;
const PENDING: u8 = 1;
const MAPPED: u8 = 2;
const FAILED: u8 = 3;

/// A staging buffer's mapping state, set by its map callback, which wakes the task awaiting
/// it (the web's `update_async`).
#[derive(Default)]
struct MapSignal {
    /// One of `IDLE`, `PENDING`, `MAPPED`, `FAILED`.
    state: AtomicU8,
    waker: Mutex<Option<Waker>>,
}

impl MapSignal {
    fn load(&self) -> u8 {
        self.state.load(Ordering::Acquire)
    }

    fn store(&self, state: u8) {
        self.state.store(state, Ordering::Release);
    }

    /// The map callback's end: the new state, then the waiting task (if any) woken.
    fn finish(&self, state: u8) {
        self.store(state);
        let waker = self
            .waker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// A future that is ready once a staging buffer's mapping has ended (mapped or failed).
pub(crate) struct MapWait(Arc<MapSignal>);

impl Future for MapWait {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0.load() != PENDING {
            return Poll::Ready(());
        }
        *self.0.waker.lock().unwrap_or_else(PoisonError::into_inner) = Some(cx.waker().clone());
        // The callback may have run between the check and the waker's store.
        if self.0.load() != PENDING {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// A readback staging buffer and what it holds.
struct Staging {
    buffer: wgpu::Buffer,
    state: Arc<MapSignal>,
    /// `(slot, version)` of each gathered motion, in order.
    motions: Vec<[u32; 2]>,
}

/// The gather buffer, the staging ring and the gather pass's bind groups.
#[derive(Default)]
pub(super) struct Readback {
    pub mode: ReadbackMode,
    /// Motions the gather buffer and ring entries have room for (0 before the first frame).
    capacity: u32,
    gathered: Option<wgpu::Buffer>,
    ring: Vec<Staging>,
    next: usize,
    /// The ring entry this frame's values go to (set by `record`).
    current: Option<usize>,
    /// This update's values are awaited (`update_async` in blocking mode on the web), not
    /// delivered by `deliver`.
    awaited: bool,
    /// Per page, the gather bind groups, and the table and header generations they name.
    groups: Vec<wgpu::BindGroup>,
    key: Option<(u64, u64)>,
}

impl Readback {
    /// Motions the gather list must have room for (the header's list capacity).
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Makes room for `count` gathered motions (gather buffer and staging ring).
    pub fn reserve(&mut self, gpu: Gpu<'_>, count: u32) -> Result<(), GpuError> {
        if count <= self.capacity && !self.ring.is_empty() {
            return Ok(());
        }
        let capacity = count.next_power_of_two().max(256);
        let bytes = u64::from(capacity) * 16;
        gpu.limits.check_binding("gathered values", bytes)?;
        self.gathered = Some(create(
            gpu.ctx,
            "wgpu-tween gathered",
            bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        ));
        for staging in &self.ring {
            if staging.state.load() == MAPPED {
                staging.buffer.unmap();
            }
        }
        self.ring = (0..RING)
            .map(|_| Staging {
                buffer: create(
                    gpu.ctx,
                    "wgpu-tween readback",
                    bytes,
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                ),
                state: Arc::default(),
                motions: Vec::with_capacity(capacity as usize),
            })
            .collect();
        self.next = 0;
        self.capacity = capacity;
        self.key = None;
        Ok(())
    }

    /// Records the gather pass of `count` listed rows (one dispatch per page of the table,
    /// each taking the rows that page holds) and the copy into the next idle ring entry.
    /// Nothing without bound motions.
    pub fn record(
        &mut self,
        gpu: Gpu<'_>,
        encoder: &mut wgpu::CommandEncoder,
        table: &GpuTable,
        header: &FrameHeader,
        count: u32,
        stats: &mut GpuUpdateStats,
    ) -> Result<(), GpuError> {
        self.current = None;
        if count == 0 {
            return Ok(());
        }
        let Some(k) = self.pick(gpu.ctx)? else {
            return Ok(()); // the web's ring is still mapping: no readback this frame
        };
        let key = (table.generation(), header.generation());
        let (Some(gathered), Some(staging)) = (&self.gathered, self.ring.get(k)) else {
            return Err(GpuError::Validation("no gather buffers".into()));
        };
        if self.key != Some(key) {
            self.groups = table
                .pages()
                .iter()
                .enumerate()
                .map(|(p, page)| {
                    let params = Some(size_of::<GatherParams>() as u64);
                    gpu.ctx
                        .device()
                        .create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some("wgpu-tween gather"),
                            layout: &gpu.pipelines.gather_layout,
                            entries: &[
                                range(0, header.buffer(), header.gather(p), params),
                                range(1, header.buffer(), header.list(), None),
                                whole(2, &page.outputs),
                                whole(3, gathered),
                            ],
                        })
                })
                .collect();
            self.key = Some(key);
        }
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: super::transient_label("wgpu-tween gather"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&gpu.pipelines.gather);
            for ((_, rows, _), group) in table.spans().zip(&self.groups) {
                if rows > 0 {
                    pass.set_bind_group(0, group, &[]);
                    let (x, y) = fold_dispatch(count, SMALL_GROUP, gpu.limits.max_per_axis);
                    pass.dispatch_workgroups(x, y, 1);
                    stats.dispatches += 1;
                }
            }
        }
        encoder.copy_buffer_to_buffer(gathered, 0, &staging.buffer, 0, u64::from(count) * 16);
        self.current = Some(k);
        Ok(())
    }

    /// After the submission: this frame's ring entry holds the values of `motions` (in
    /// order); its mapping starts.
    pub fn submitted(&mut self, motions: &[[u32; 2]]) {
        let Some(staging) = self.current.and_then(|k| self.ring.get_mut(k)) else {
            return;
        };
        staging.motions.clear();
        staging.motions.extend_from_slice(motions);
        staging.state.store(PENDING);
        let state = Arc::clone(&staging.state);
        let bytes = motions.len() as u64 * 16;
        staging
            .buffer
            .map_async(wgpu::MapMode::Read, ..bytes, move |result| {
                state.finish(if result.is_ok() { MAPPED } else { FAILED });
            });
        self.next = (self.next + 1) % RING;
    }

    /// Brings values back into `rows.outputs`: this frame's in blocking mode (waiting for
    /// them), the newest ready ones in pipelined mode (never waiting). `row_of` maps a
    /// `(slot, version)` to its row now, for values read a frame late.
    pub fn deliver(
        &mut self,
        ctx: &GpuContext,
        rows: &mut Rows,
        row_of: &impl Fn(u32, u32) -> Option<u32>,
        stats: &mut GpuUpdateStats,
    ) -> Result<(), GpuError> {
        match self.mode {
            #[cfg(not(target_arch = "wasm32"))]
            ReadbackMode::Blocking => {
                if let Some(k) = self.current {
                    self.wait_for_map(ctx, k)?;
                    self.read(k, rows, row_of, stats)?;
                }
            }
            // On the web the wait is the caller's (`update_async`), or there is none.
            #[cfg(target_arch = "wasm32")]
            ReadbackMode::Blocking if self.awaited => {}
            _ => {
                let _ = ctx.device().poll(wgpu::PollType::Poll);
                // The newest mapped entry other than the one just submitted. The ring is
                // filled in order, so walking back from the newest submission finds it.
                let newest = (self.next + RING - 1) % RING;
                for back in 0..RING {
                    let k = (newest + RING - back) % RING;
                    if Some(k) == self.current {
                        continue;
                    }
                    if self.ring.get(k).is_some_and(|s| s.state.load() == MAPPED) {
                        self.read(k, rows, row_of, stats)?;
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether the values delivered this update are an update late: pipelined mode, or on
    /// the web any synchronous update.
    pub fn values_are_late(&self) -> bool {
        self.mode == ReadbackMode::Pipelined || (cfg!(target_arch = "wasm32") && !self.awaited)
    }

    /// Marks this update's values as awaited (`update_async`), or delivered by `deliver`.
    /// Only on the web: elsewhere blocking mode waits in `deliver`.
    pub fn set_awaited(&mut self, awaited: bool) {
        self.awaited =
            cfg!(target_arch = "wasm32") && awaited && self.mode == ReadbackMode::Blocking;
    }

    /// The end of this update's mapping, when its values are awaited and there are any.
    pub fn this_update_mapped(&self) -> Option<MapWait> {
        let k = self.current.filter(|_| self.awaited)?;
        self.ring.get(k).map(|s| MapWait(Arc::clone(&s.state)))
    }

    /// Reads this update's values once [`this_update_mapped`](Self::this_update_mapped)
    /// is ready.
    pub fn deliver_awaited(
        &mut self,
        rows: &mut Rows,
        row_of: &impl Fn(u32, u32) -> Option<u32>,
        stats: &mut GpuUpdateStats,
    ) -> Result<(), GpuError> {
        match self.current.filter(|_| self.awaited) {
            Some(k) => self.read(k, rows, row_of, stats),
            None => Ok(()),
        }
    }

    /// Waits until ring entry `k` is mapped (or its mapping failed).
    ///
    /// `poll(wait)` alone is not enough when other threads share the device: their poll may
    /// have collected our map callback and be about to run it when ours returns. So after
    /// the wait, spin (polling) until the callback has run, with a timeout.
    #[cfg(not(target_arch = "wasm32"))]
    fn wait_for_map(&self, ctx: &GpuContext, k: usize) -> Result<(), GpuError> {
        let Some(staging) = self.ring.get(k) else {
            return Ok(());
        };
        let device = ctx.device();
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| GpuError::DeviceLost(e.to_string()))?;
        let start = Instant::now();
        while staging.state.load() == PENDING {
            ctx.check_lost()?;
            if start.elapsed() > MAP_TIMEOUT {
                return Err(GpuError::Map(
                    "timed out waiting for a readback buffer".into(),
                ));
            }
            std::thread::yield_now();
            let _ = device.poll(wgpu::PollType::Poll);
        }
        ctx.check_lost()
    }

    /// The next idle staging buffer. A mapped one that was never read (pipelined mode
    /// skipped it) is unmapped and reused; one still pending is waited for (its callback
    /// must have run before the buffer is used again, or it would be mapped under the copy).
    /// On the web, where nothing may wait, a pending entry means no readback this frame.
    fn pick(&mut self, ctx: &GpuContext) -> Result<Option<usize>, GpuError> {
        let k = self.next;
        if self.ring[k].state.load() == PENDING {
            #[cfg(not(target_arch = "wasm32"))]
            self.wait_for_map(ctx, k)?;
            #[cfg(target_arch = "wasm32")]
            return ctx.check_lost().map(|()| None);
        }
        let staging = &self.ring[k];
        if staging.state.load() == MAPPED {
            staging.buffer.unmap();
        }
        staging.state.store(IDLE);
        Ok(Some(k))
    }

    /// Copies the values of ring entry `k` into the output columns at their rows now.
    fn read(
        &mut self,
        k: usize,
        rows: &mut Rows,
        row_of: &impl Fn(u32, u32) -> Option<u32>,
        stats: &mut GpuUpdateStats,
    ) -> Result<(), GpuError> {
        let Some(staging) = self.ring.get(k) else {
            return Ok(());
        };
        match staging.state.load() {
            MAPPED => {}
            FAILED => {
                staging.state.store(IDLE);
                return Err(GpuError::Map("readback buffer could not be mapped".into()));
            }
            _ => return Ok(()),
        }
        let count = staging.motions.len();
        stats.read_back_values += count as u32;
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
        staging.state.store(IDLE);
        Ok(())
    }
}
