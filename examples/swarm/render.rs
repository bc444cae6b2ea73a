//! The swarm's particles and renderer, shared by `examples/swarm.rs` and `tests/swarm.rs`.
//!
//! Each particle has a position motion (`Vec3`) and a color motion (`Color`), both written
//! straight into one instance buffer of [`STRIDE`] f32s per particle, registered once as a
//! GPU target (`MotionWorld::add_gpu_target`)
//! (position at 0..3, an unused f32 at 3, color at 4..8): no readback, no copy. One instanced
//! draw (six vertices per particle, a screen-aligned square) renders that buffer as it is,
//! with a small perspective ([`project`]), into an `Rgba8Unorm` texture on a black
//! background; later particles cover earlier ones (no depth buffer).

use std::error::Error;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use image::RgbaImage;
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Executor, MotionWorld};

#[path = "particles.rs"]
mod particles;
pub use particles::*;
#[path = "pipeline.rs"]
mod pipeline;

/// The render target's format (linear values written as they are).
pub const FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// The background color (opaque black).
pub const BACKGROUND: [u8; 4] = [0, 0, 0, 255];

/// A world of particles targeting one instance buffer, and the pipeline that draws it.
pub struct Swarm {
    /// The GPU context (device shared by the world and the renderer).
    pub ctx: GpuContext,
    /// The motions: two per particle.
    pub world: MotionWorld,
    /// The instance buffer ([`STRIDE`] f32s per particle), written by the motions' targets.
    pub instances: wgpu::Buffer,
    /// Particles.
    pub count: u32,
    /// Image size in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    view: wgpu::Buffer,
    point_px: f32,
    format: wgpu::TextureFormat,
    target: wgpu::Texture,
    readback: wgpu::Buffer,
    padded_row: u32,
}

impl Swarm {
    /// Creates the world (on `executor`), the instance buffer (filled with every particle's
    /// start values, which delayed motions keep until their delay ends), the motions and
    /// the pipeline for `width` × `height` [`FORMAT`] images with `point_px`-pixel points.
    pub fn new(
        ctx: &GpuContext,
        particles: &[Particle],
        executor: Executor,
        size: (u32, u32),
        point_px: f32,
    ) -> Result<Self, Box<dyn Error>> {
        Self::with_format(ctx, particles, executor, size, point_px, FORMAT)
    }

    /// [`new`](Self::new) for render targets of `format` (a window surface's, say).
    /// [`read_frame`](Self::read_frame) needs [`FORMAT`].
    pub fn with_format(
        ctx: &GpuContext,
        particles: &[Particle],
        executor: Executor,
        (width, height): (u32, u32),
        point_px: f32,
        format: wgpu::TextureFormat,
    ) -> Result<Self, Box<dyn Error>> {
        let device = ctx.device();
        let count = u32::try_from(particles.len())?;
        let initial = initial_instances(particles);
        let instances = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("swarm instances"),
            size: (initial.len() as u64 * 4).max(16),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        ctx.queue()
            .write_buffer(&instances, 0, bytemuck::cast_slice(&initial));

        let mut world = MotionWorld::with_gpu(ctx.clone())?;
        world.set_executor(executor)?;
        let target = world.add_gpu_target(&instances)?;
        bind_motions(&mut world, target, particles)?;

        let (pipeline, bind_group, uniform) = pipeline::pipeline(device, format);
        let view = [width as f32, height as f32, point_px, DEPTH_K];
        ctx.queue()
            .write_buffer(&uniform, 0, bytemuck::cast_slice(&view));
        let target = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("swarm frame"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let padded_row = (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("swarm frame readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Ok(Self {
            ctx: ctx.clone(),
            world,
            instances,
            count,
            width,
            height,
            pipeline,
            bind_group,
            view: uniform,
            point_px,
            format,
            target,
            readback,
            padded_row,
        })
    }

    /// Advances the motions by `dt` seconds: their targets write the instance buffer.
    pub fn update(&mut self, dt: f64) -> Result<(), Box<dyn Error>> {
        self.world.update(dt)?;
        if let Some(e) = self.world.take_gpu_error() {
            return Err(format!("GPU error: {e}").into());
        }
        Ok(())
    }

    /// Sets the viewport size that point sizes are computed for (a resized window).
    pub fn set_viewport(&mut self, width: u32, height: u32) {
        let view = [width as f32, height as f32, self.point_px, DEPTH_K];
        self.ctx
            .queue()
            .write_buffer(&self.view, 0, bytemuck::cast_slice(&view));
    }

    /// Draws the instance buffer into the frame texture (one instanced draw), submitted.
    pub fn render(&self) {
        let view = self
            .target
            .create_view(&wgpu::TextureViewDescriptor::default());
        self.render_to(&view);
    }

    /// Draws the instance buffer into `view` (a texture of this swarm's format), submitted.
    pub fn render_to(&self, view: &wgpu::TextureView) {
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

    /// Waits for the GPU to finish everything submitted.
    pub fn wait(&self) -> Result<(), Box<dyn Error>> {
        self.ctx
            .device()
            .poll(wgpu::PollType::wait_indefinitely())?;
        Ok(())
    }

    /// Copies the last rendered frame back into an image.
    pub fn read_frame(&self) -> Result<RgbaImage, Box<dyn Error>> {
        if self.format != FORMAT {
            return Err(
                format!("read_frame needs {FORMAT:?} frames, not {:?}", self.format).into(),
            );
        }
        let mut encoder =
            self.ctx
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("swarm frame readback"),
                });
        encoder.copy_texture_to_buffer(
            self.target.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
        self.ctx.queue().submit([encoder.finish()]);
        let done = Arc::new(AtomicBool::new(false));
        let failed = Arc::new(AtomicBool::new(false));
        let (flag, fail) = (Arc::clone(&done), Arc::clone(&failed));
        self.readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| {
                fail.store(r.is_err(), Ordering::Release);
                flag.store(true, Ordering::Release);
            });
        while !done.load(Ordering::Acquire) {
            self.wait()?;
        }
        if failed.load(Ordering::Acquire) {
            return Err("mapping the frame readback failed".into());
        }
        let mut pixels = Vec::with_capacity((self.width * self.height * 4) as usize);
        {
            let data = self.readback.slice(..).get_mapped_range()?;
            for row in data.chunks_exact(self.padded_row as usize) {
                pixels.extend_from_slice(&row[..(self.width * 4) as usize]);
            }
        }
        self.readback.unmap();
        RgbaImage::from_raw(self.width, self.height, pixels).ok_or_else(|| "frame size".into())
    }
}
