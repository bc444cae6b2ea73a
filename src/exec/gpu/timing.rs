//! GPU time of the evaluate pass, from timestamp queries, when the device has
//! [`wgpu::Features::TIMESTAMP_QUERY`] ([`GpuContext::new`](super::GpuContext::new) requests
//! it where the adapter offers it).
//!
//! The pass writes a timestamp at its beginning and end; they are resolved and copied into a
//! small staging buffer in the same submission, which is mapped without waiting. The result
//! is collected by a later update or by
//! [`WorldGpuMut::pass_time`](crate::WorldGpuMut::pass_time); while a mapping is
//! pending, passes are not timed, so nothing here ever blocks an update.
//!
//! Per-frame protocol: the evaluate pass takes its timestamp writes from
//! [`PassTimer::begin`] and records [`PassTimer::resolve`] after itself; the executor calls
//! [`PassTimer::submitted`] once the frame is submitted; [`PassTimer::last`] any time.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::context::GpuContext;

const IDLE: u8 = 0;
const PENDING: u8 = 1;
const MAPPED: u8 = 2;
const FAILED: u8 = 3;
/// Two u64 timestamps.
const BYTES: u64 = 16;

/// Timestamps around one compute pass per update.
pub(crate) struct PassTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    staging: wgpu::Buffer,
    state: Arc<AtomicU8>,
    /// Nanoseconds per timestamp tick.
    period_ns: f64,
    /// Whether the pass being recorded writes timestamps.
    armed: bool,
    last: Option<Duration>,
}

impl PassTimer {
    /// A timer on `ctx`'s device, or `None` when the device lacks timestamp queries.
    pub fn new(ctx: &GpuContext) -> Option<Self> {
        let device = ctx.device();
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("wgpu-tween pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let resolve = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-tween timestamp resolve"),
            size: BYTES,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("wgpu-tween timestamp readback"),
            size: BYTES,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Some(Self {
            queries,
            resolve,
            staging,
            state: Arc::new(AtomicU8::new(IDLE)),
            period_ns: f64::from(ctx.queue().get_timestamp_period()),
            armed: false,
            last: None,
        })
    }

    /// Collects a finished measurement, if one is mapped.
    fn collect(&mut self) {
        match self.state.load(Ordering::Acquire) {
            MAPPED => {
                if let Ok(view) = self.staging.get_mapped_range(..) {
                    let ticks: &[u64] = bytemuck::cast_slice(&view);
                    if let [begin, end] = ticks {
                        let ns = end.saturating_sub(*begin) as f64 * self.period_ns;
                        self.last = Some(Duration::from_nanos(ns as u64));
                    }
                }
                self.staging.unmap();
                self.state.store(IDLE, Ordering::Release);
            }
            FAILED => self.state.store(IDLE, Ordering::Release),
            _ => {}
        }
    }

    /// The timestamp writes for this update's pass (`None` while the last measurement is
    /// still being mapped).
    pub fn begin(&mut self) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        self.collect();
        self.armed = self.state.load(Ordering::Acquire) == IDLE;
        self.armed.then_some(wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        })
    }

    /// Records the resolve and copy of this update's timestamps (after the timed pass).
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.armed {
            encoder.resolve_query_set(&self.queries, 0..2, &self.resolve, 0);
            encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.staging, 0, BYTES);
        }
    }

    /// Starts mapping the timestamps once the submission holding them was made.
    pub fn submitted(&mut self) {
        if !std::mem::take(&mut self.armed) {
            return;
        }
        self.state.store(PENDING, Ordering::Release);
        let state = Arc::clone(&self.state);
        self.staging.map_async(wgpu::MapMode::Read, .., move |r| {
            state.store(if r.is_ok() { MAPPED } else { FAILED }, Ordering::Release);
        });
    }

    /// The last measured pass time (collecting a finished measurement first).
    pub fn last(&mut self) -> Option<Duration> {
        self.collect();
        self.last
    }
}
