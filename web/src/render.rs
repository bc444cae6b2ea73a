//! The WebGPU path: the GPU executor writes the instance buffer (a GPU target) in a compute
//! pass, and one instanced draw renders it into the `<canvas>`: no readback, no copy.
//!
//! Everything here is asynchronous or fire-and-forget: the browser's main thread cannot
//! block, so there is no `GpuContext::new()` (it blocks on the adapter) and no
//! `device.poll(wait)`.

use std::sync::Arc;

use wasm_bindgen::JsValue;
use web_sys::HtmlCanvasElement;
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Executor, MotionWorld, TargetFormat};

use crate::status;
#[path = "../../examples/swarm/pipeline.rs"]
mod pipeline;
use crate::swarm::{self, Particle, COLOR, DEPTH_K, POSITION, STRIDE};

/// The swarm on WebGPU: the world, its target buffer and what draws it into the canvas.
pub struct GpuSwarm {
    /// The motions: two per particle, on the GPU executor.
    pub world: MotionWorld,
    ctx: GpuContext,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    instances: wgpu::Buffer,
    count: u32,
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    view: wgpu::Buffer,
    point_px: f32,
}

/// Whether the browser has WebGPU at all (`navigator.gpu`): without it wgpu has no backend
/// here (the build has no WebGL), so the page goes straight to the Canvas 2D fallback.
#[must_use]
pub fn has_webgpu() -> bool {
    web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w.navigator(), &JsValue::from_str("gpu")).ok())
        .is_some_and(|gpu| !gpu.is_undefined() && !gpu.is_null())
}

impl GpuSwarm {
    /// Sets up WebGPU on `canvas` (surface, adapter compatible with it, device), the world
    /// on the GPU executor, the instance buffer as its GPU target, the motions of
    /// `particles` and the pipeline; returns the adapter's name too. Any failure is an
    /// error message (the caller falls back to the CPU executor or shows it).
    pub async fn new(
        canvas: &HtmlCanvasElement,
        particles: &[Particle],
        point_px: f32,
    ) -> Result<(Self, String), String> {
        if !has_webgpu() {
            return Err("navigator.gpu is missing: this browser has no WebGPU".into());
        }
        let (width, height) = (canvas.width().max(1), canvas.height().max(1));
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends: wgpu::Backends::BROWSER_WEBGPU,
            ..wgpu::InstanceDescriptor::new_without_display_handle()
        });
        let surface = instance
            .create_surface(wgpu::SurfaceTarget::Canvas(canvas.clone()))
            .map_err(|e| format!("cannot make a WebGPU surface of the canvas: {e}"))?;
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                compatible_surface: Some(&surface),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("no WebGPU adapter: {e}"))?;
        let info = adapter.get_info();
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("swarm"),
                required_limits: wgpu::Limits::default().or_worse_values_from(&adapter.limits()),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("the WebGPU adapter gave no device: {e}"))?;
        // Errors outside the library's error scopes (the renderer's) would otherwise only
        // reach the console as warnings; the harness must see them.
        device.on_uncaptured_error(Arc::new(|e| {
            status::global_error(&format!("WebGPU error: {e}"));
        }));
        let config = surface
            .get_default_config(&adapter, width, height)
            .ok_or("the WebGPU adapter cannot present to this canvas")?;
        surface.configure(&device, &config);
        let ctx = GpuContext::from_device_with_lost_callback(
            device,
            queue,
            info.clone(),
            |reason, message| {
                // `Destroyed` is the drop of a device whose setup failed (the page falls
                // back to the CPU): that failure was reported already.
                if reason != wgpu::DeviceLostReason::Destroyed {
                    status::global_error(&format!("WebGPU device lost ({reason:?}): {message}"));
                }
            },
        );
        let mut world = MotionWorld::with_gpu(ctx.clone()).map_err(|e| e.to_string())?;
        // The GPU executor even on a fallback (software) adapter, which `Auto` would give
        // the CPU executor: this path is here to show the compute pass (`?executor=cpu`
        // runs the CPU one).
        world
            .set_executor(Executor::Gpu)
            .map_err(|e| e.to_string())?;
        let count = u32::try_from(particles.len()).map_err(|e| e.to_string())?;
        let initial = swarm::initial_instances(particles);
        let (target, instances) = world
            .create_gpu_target(
                (initial.len() as u64 * 4).max(16),
                wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                TargetFormat::F32,
            )
            .map_err(|e| format!("cannot make the instance buffer: {e}"))?;
        // Delayed motions write nothing until their delay ends: start from their `from`.
        ctx.queue()
            .write_buffer(&instances, 0, bytemuck::cast_slice(&initial));
        swarm::bind_motions(&mut world, target, particles).map_err(|e| e.to_string())?;
        let (pipeline, bind_group, view) = pipeline::pipeline(ctx.device(), config.format);
        let swarm = Self {
            world,
            ctx,
            surface,
            config,
            instances,
            count,
            pipeline,
            bind_group,
            view,
            point_px,
        };
        swarm.write_view();
        Ok((swarm, info.name))
    }

    /// The view uniform: the canvas size that point sizes are computed for.
    fn write_view(&self) {
        let view = [
            self.config.width as f32,
            self.config.height as f32,
            self.point_px,
            DEPTH_K,
        ];
        self.ctx
            .queue()
            .write_buffer(&self.view, 0, bytemuck::cast_slice(&view));
    }

    /// Follows the canvas's size (a resized window): reconfigures the surface.
    pub fn resize(&mut self, width: u32, height: u32) {
        if (width, height) != (self.config.width, self.config.height) && width * height > 0 {
            self.config.width = width;
            self.config.height = height;
            self.surface.configure(self.ctx.device(), &self.config);
            self.write_view();
        }
    }

    /// One frame: advances the motions by `dt` seconds (the compute pass writes the
    /// instance buffer), then draws it and presents. An error ends the animation.
    pub fn frame(&mut self, dt: f64) -> Result<(), String> {
        if self.ctx.is_lost() {
            return Err("the WebGPU device is lost".into());
        }
        self.world
            .update(dt)
            .map_err(|e| format!("update failed: {e}"))?;
        if let Some(e) = self.world.take_gpu_error() {
            return Err(format!("GPU error: {e}"));
        }
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(());
            }
            // Outdated or lost: configure again and skip this frame.
            _ => {
                self.surface.configure(self.ctx.device(), &self.config);
                return Ok(());
            }
        };
        let view = texture
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        self.draw(&view);
        self.ctx.queue().present(texture);
        Ok(())
    }

    /// Draws the instance buffer into `view` (one instanced draw), submitted.
    fn draw(&self, view: &wgpu::TextureView) {
        let mut encoder =
            self.ctx
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("swarm frame"),
                });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("swarm"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_vertex_buffer(0, self.instances.slice(..));
            pass.draw(0..6, 0..self.count);
        }
        self.ctx.queue().submit([encoder.finish()]);
    }
}
