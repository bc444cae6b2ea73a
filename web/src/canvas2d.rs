//! The fallback without WebGPU: the CPU executor writes a host array, and each frame the
//! particles are drawn as squares into an RGBA image put on a Canvas 2D context.
//!
//! One `putImageData` per frame rather than a `fillRect` per particle: tens of thousands of
//! `fillStyle` strings per frame would cost more than the motions themselves.

use wasm_bindgen::{Clamped, JsCast};
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, ImageData};
use wgpu_tween::{MotionWorld, TargetId};

use crate::swarm::{self, Particle, COLOR, POSITION, STRIDE};

/// Opaque black, the background (as the WebGPU path's clear color), in RGBA bytes.
const BACKGROUND: u32 = u32::from_le_bytes([0, 0, 0, 255]);

/// The swarm on the CPU executor, drawn with Canvas 2D.
pub struct CpuSwarm {
    /// The motions: two per particle, on the CPU executor.
    pub world: MotionWorld,
    target: TargetId,
    context: CanvasRenderingContext2d,
    width: u32,
    height: u32,
    point_px: f32,
    /// The frame's pixels, RGBA bytes in little-endian `u32`s.
    pixels: Vec<u32>,
}

impl CpuSwarm {
    /// Takes the canvas's 2D context, makes the world (CPU executor) with a host array of
    /// every particle's instance and binds the motions of `particles` to it.
    pub fn new(
        canvas: &HtmlCanvasElement,
        particles: &[Particle],
        point_px: f32,
    ) -> Result<Self, String> {
        let context = canvas
            .get_context("2d")
            .map_err(|e| format!("getContext(\"2d\") failed: {e:?}"))?
            .ok_or("the canvas has no 2D context")?
            .dyn_into::<CanvasRenderingContext2d>()
            .map_err(|_| "getContext(\"2d\") gave something else")?;
        let mut world = MotionWorld::new();
        let initial = swarm::initial_instances(particles);
        let target = world
            .add_host_target(initial.len())
            .map_err(|e| format!("cannot make the instance array: {e}"))?;
        // Delayed motions write nothing until their delay ends: start from their `from`.
        if let Some(array) = world.host_target_mut(target) {
            array.copy_from_slice(&initial);
        }
        swarm::bind_motions(&mut world, target, particles).map_err(|e| e.to_string())?;
        let (width, height) = (canvas.width().max(1), canvas.height().max(1));
        Ok(Self {
            world,
            target,
            context,
            width,
            height,
            point_px,
            pixels: vec![BACKGROUND; (width * height) as usize],
        })
    }

    /// Follows the canvas's size (a resized window).
    pub fn resize(&mut self, width: u32, height: u32) {
        if (width, height) != (self.width, self.height) && width * height > 0 {
            self.width = width;
            self.height = height;
            self.pixels = vec![BACKGROUND; (width * height) as usize];
        }
    }

    /// One frame: advances the motions by `dt` seconds (they write the host array), then
    /// draws every particle and puts the image on the canvas. An error ends the animation.
    pub fn frame(&mut self, dt: f64) -> Result<(), String> {
        self.world
            .update(dt)
            .map_err(|e| format!("update failed: {e}"))?;
        let instances = self
            .world
            .host_target(self.target)
            .ok_or("the instance array is gone")?;
        self.pixels.fill(BACKGROUND);
        for instance in instances.chunks_exact(STRIDE as usize) {
            let p = POSITION as usize;
            let c = COLOR as usize;
            let (x, y, half) = swarm::project(
                [instance[p], instance[p + 1], instance[p + 2]],
                self.width,
                self.height,
                self.point_px,
            );
            let rgba = [instance[c], instance[c + 1], instance[c + 2], 1.0]
                .map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8);
            fill_square(
                &mut self.pixels,
                (self.width, self.height),
                (x, y, half),
                u32::from_le_bytes(rgba),
            );
        }
        let bytes: &[u8] = bytemuck::cast_slice(&self.pixels);
        let image =
            ImageData::new_with_u8_clamped_array_and_sh(Clamped(bytes), self.width, self.height)
                .map_err(|e| format!("ImageData failed: {e:?}"))?;
        self.context
            .put_image_data(&image, 0.0, 0.0)
            .map_err(|e| format!("putImageData failed: {e:?}"))?;
        Ok(())
    }
}

/// Fills the pixels whose centers lie in the square of half-size `half` around `(x, y)` (as
/// the rasterizer covers the WebGPU path's squares), clipped to the image.
fn fill_square(
    pixels: &mut [u32],
    (width, height): (u32, u32),
    (x, y, half): (f32, f32, f32),
    color: u32,
) {
    // Pixel i is covered when i + 0.5 lies in [x − half, x + half).
    let span = |center: f32, len: u32| {
        let start = (center - half - 0.5).ceil().clamp(0.0, len as f32);
        let end = (center + half - 0.5).ceil().min(len as f32);
        (start as usize, end.max(start) as usize)
    };
    let (x0, x1) = span(x, width);
    let (y0, y1) = span(y, height);
    for row in pixels.chunks_exact_mut(width as usize).take(y1).skip(y0) {
        row[x0..x1].fill(color);
    }
}
