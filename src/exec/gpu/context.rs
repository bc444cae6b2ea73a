//! The GPU context: a device and queue, either our own or a renderer's.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::pipelines::Pipelines;
use crate::error::GpuError;

/// A wgpu device and queue the executor runs on, plus the adapter's description.
///
/// Cheap to clone (wgpu handles are reference counted). Create one with
/// [`GpuContext::new`], or share a renderer's device with [`GpuContext::from_device`].
#[derive(Clone)]
pub struct GpuContext {
    /// One pointer, so a context is as cheap to move and clone as a handle.
    inner: Arc<Shared>,
}

struct Shared {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    lost: Arc<AtomicBool>,
    /// Built once per context and shared by every world on it.
    pipelines: Mutex<Option<Arc<Pipelines>>>,
    /// On the web, the first error an error scope reported after its call returned (the
    /// browser answers scopes through promises): the next scoped call returns it.
    #[cfg(target_arch = "wasm32")]
    deferred: Arc<Mutex<Option<GpuError>>>,
}

impl GpuContext {
    /// Creates an own device, blocking. Respects `WGPU_BACKEND` (a comma list such as
    /// `vulkan,metal`) and `WGPU_ADAPTER_NAME` (a substring of the adapter name). Requests
    /// default limits, raising only the storage buffer sizes, clamped to the adapter, and
    /// the feature `TIMESTAMP_QUERY` where the adapter has it.
    ///
    /// Not on the web (wasm32), where nothing may block: use [`new_async`](Self::new_async).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new() -> Result<Self, GpuError> {
        pollster::block_on(Self::new_async())
    }

    /// Creates an own device, as a future: the way in on the web (wasm32 with WebGPU, run by
    /// `wasm_bindgen_futures::spawn_local`), and what `new` waits for elsewhere. The
    /// environment variables are read where the platform has them.
    pub async fn new_async() -> Result<Self, GpuError> {
        let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        });
        let adapter = match std::env::var("WGPU_ADAPTER_NAME") {
            Ok(wanted) => {
                let wanted = wanted.to_lowercase();
                instance
                    .enumerate_adapters(backends)
                    .await
                    .into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&wanted))
                    .ok_or_else(|| {
                        GpuError::NoAdapter(format!("none named like WGPU_ADAPTER_NAME={wanted:?}"))
                    })?
            }
            Err(_) => instance
                .request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::HighPerformance,
                    ..Default::default()
                })
                .await
                .map_err(|e| GpuError::NoAdapter(e.to_string()))?,
        };
        let supported = adapter.limits();
        let required_limits = wgpu::Limits {
            max_storage_buffer_binding_size: supported.max_storage_buffer_binding_size,
            max_buffer_size: supported.max_buffer_size,
            ..wgpu::Limits::default()
        }
        .or_worse_values_from(&supported);
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("wgpu-tween"),
                required_limits,
                // Where offered: timestamps of the evaluate pass (`WorldGpuMut::pass_time`).
                required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::RequestDevice(e.to_string()))?;
        Ok(Self::from_device(device, queue, adapter.get_info()))
    }

    /// Uses a device and queue made elsewhere (a renderer's), so targets can write into its
    /// buffers. `info` is the adapter's description (`adapter.get_info()`).
    ///
    /// The device's limits are used as they are: with the default 128 MiB storage bindings
    /// the motion table is split into pages of 2M rows (one dispatch each), so any number of
    /// motions fits; only the readback of CPU-bound values (16 bytes per bound motion) and,
    /// on a table of more than one page with sequences, the values their children read (4
    /// bytes per row) must fit one binding, else the update fails with
    /// [`GpuError::TooLarge`].
    ///
    /// wgpu keeps one device-lost callback per device, and this installs the context's (it
    /// is how the world learns to fall back to the CPU executor). A renderer that has a
    /// device-lost callback of its own passes it to
    /// [`from_device_with_lost_callback`](Self::from_device_with_lost_callback) instead,
    /// which calls it after the context's.
    #[must_use]
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue, info: wgpu::AdapterInfo) -> Self {
        Self::from_device_with_lost_callback(device, queue, info, |_, _| {})
    }

    /// [`from_device`](Self::from_device) for a renderer with its own device-lost callback:
    /// the context installs one callback that marks the context lost and then calls
    /// `on_lost` with wgpu's reason and message. (Installing a callback on the device later
    /// would replace the context's, and the world would learn of the loss only from failing
    /// updates.)
    ///
    /// ```no_run
    /// # fn renderer() -> (wgpu::Device, wgpu::Queue, wgpu::AdapterInfo) { unimplemented!() }
    /// use wgpu_tween::gpu::GpuContext;
    ///
    /// let (device, queue, info) = renderer();
    /// let ctx = GpuContext::from_device_with_lost_callback(device, queue, info, |reason, message| {
    ///     eprintln!("device lost ({reason:?}): {message}"); // the renderer's own handling
    /// });
    /// ```
    #[must_use]
    pub fn from_device_with_lost_callback(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        on_lost: impl Fn(wgpu::DeviceLostReason, String) + Send + 'static,
    ) -> Self {
        let lost = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&lost);
        device.set_device_lost_callback(move |reason, message| {
            flag.store(true, Ordering::Release);
            on_lost(reason, message);
        });
        // wgpu's handles are not `Send` on the web, which has one thread: the `Arc` there is
        // for the same type as elsewhere, not for sharing across threads.
        #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
        Self {
            inner: Arc::new(Shared {
                device,
                queue,
                info,
                lost,
                pipelines: Mutex::new(None),
                #[cfg(target_arch = "wasm32")]
                deferred: Arc::default(),
            }),
        }
    }

    /// A buffer on this context's device that a world on this context can take as a target
    /// ([`MotionWorld::add_gpu_target`](crate::MotionWorld::add_gpu_target)): `size` bytes,
    /// zeroed, with `usage` plus [`wgpu::BufferUsages::STORAGE`] (add `VERTEX` for an
    /// instance buffer, `COPY_SRC` to read it back). Made here, it is of the right device by
    /// construction: a buffer made on another context (another `wgpu::Instance`) is the one
    /// mistake `add_gpu_target` cannot detect. A `size` over the device's `max_buffer_size`
    /// is [`GpuError::TooLarge`]; other failures are caught by error scopes
    /// ([`GpuError::OutOfMemory`], [`GpuError::Validation`]).
    ///
    /// ```no_run
    /// use wgpu_tween::gpu::GpuContext;
    /// use wgpu_tween::{Motion, MotionWorld};
    ///
    /// let ctx = GpuContext::new()?;
    /// let instances = ctx.create_target_buffer(1000 * 16, wgpu::BufferUsages::VERTEX)?;
    /// let mut world = MotionWorld::with_gpu(ctx)?;
    /// let scales = world.add_gpu_target(&instances)?;
    /// Motion::new(0.0f32, 1.0, 0.5).bind_to_buffer(&mut world, scales.at(0, 4, 3))?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn create_target_buffer(
        &self,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer, GpuError> {
        let limit = self.inner.device.limits().max_buffer_size;
        if size > limit {
            return Err(GpuError::TooLarge {
                what: "a target buffer",
                needed: size,
                limit,
            });
        }
        self.scoped(|| {
            self.inner.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("wgpu-tween target"),
                size,
                usage: usage | wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            })
        })
    }

    /// The compute pipelines, built on first use.
    pub(crate) fn pipelines(&self) -> Result<Arc<Pipelines>, GpuError> {
        let mut cached = self
            .inner
            .pipelines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(p) = cached.as_ref() {
            return Ok(Arc::clone(p));
        }
        #[cfg_attr(target_arch = "wasm32", allow(clippy::arc_with_non_send_sync))]
        let built = Arc::new(self.scoped(|| Pipelines::new(&self.inner.device))?);
        *cached = Some(Arc::clone(&built));
        Ok(built)
    }

    /// The device.
    #[must_use]
    pub fn device(&self) -> &wgpu::Device {
        &self.inner.device
    }

    /// The queue.
    #[must_use]
    pub fn queue(&self) -> &wgpu::Queue {
        &self.inner.queue
    }

    /// The adapter's description.
    #[must_use]
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.inner.info
    }

    /// Whether the adapter is a software rasterizer (lavapipe, WARP, SwiftShader), where the
    /// CPU executor is faster.
    #[must_use]
    pub fn is_software(&self) -> bool {
        self.inner.info.device_type == wgpu::DeviceType::Cpu
    }

    /// Whether the device has been lost.
    #[must_use]
    pub fn is_lost(&self) -> bool {
        self.inner.lost.load(Ordering::Acquire)
    }

    /// The device's loss, or on the web an error an earlier call's scopes reported since.
    pub(crate) fn check_lost(&self) -> Result<(), GpuError> {
        #[cfg(target_arch = "wasm32")]
        if let Some(e) = self
            .inner
            .deferred
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            return Err(e);
        }
        if self.is_lost() {
            Err(GpuError::DeviceLost(format!(
                "{} is gone",
                self.inner.info.name
            )))
        } else {
            Ok(())
        }
    }

    /// Runs `f` inside validation and out-of-memory error scopes; returns the first error.
    ///
    /// On the web the scopes answer later, through promises: an error of this call is
    /// returned by the next scoped call on this context (the world's next update), so it is
    /// late by one call but never lost.
    pub(crate) fn scoped<T>(&self, f: impl FnOnce() -> T) -> Result<T, GpuError> {
        self.check_lost()?;
        let oom = self
            .inner
            .device
            .push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self
            .inner
            .device
            .push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let (validation, oom) = (validation.pop(), oom.pop());
        #[cfg(not(target_arch = "wasm32"))]
        if let Some(e) = ready_or_wait(oom).or(ready_or_wait(validation)) {
            return Err(e.into());
        }
        #[cfg(target_arch = "wasm32")]
        {
            let deferred = Arc::clone(&self.inner.deferred);
            wasm_bindgen_futures::spawn_local(async move {
                let (validation, oom) = (validation.await, oom.await);
                if let Some(e) = oom.or(validation) {
                    let mut slot = deferred.lock().unwrap_or_else(PoisonError::into_inner);
                    slot.get_or_insert(e.into());
                }
            });
        }
        self.check_lost()?;
        Ok(value)
    }
}

/// The output of `future`, polled once first: an error scope's pop on a native backend is
/// ready at once, and `pollster::block_on` would allocate a wake signal per call (two heap
/// allocations per update). Waits only for a future that is not ready.
#[cfg(not(target_arch = "wasm32"))]
fn ready_or_wait<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => pollster::block_on(future),
    }
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("adapter", &self.inner.info.name)
            .field("device_type", &self.inner.info.device_type)
            .field("backend", &self.inner.info.backend)
            .field("lost", &self.is_lost())
            .finish_non_exhaustive()
    }
}
