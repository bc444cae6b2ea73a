//! The GPU executor on Bevy's own device (feature `render`): motions that write buffers a
//! Bevy render pipeline draws, with no readback.
//!
//! # Main world and render world
//!
//! The [`Tweens`] world lives in the main world and updates in `PostUpdate`
//! ([`TweenSystems::Update`](crate::TweenSystems)). With a GPU context attached, that update
//! records its compute pass and submits it to Bevy's `RenderQueue` right there. A
//! [`TweenBuffer`] is a main-world component holding a buffer the motions write; Bevy's
//! extraction copies it (a handle, not the data) to the render world each frame, where a
//! draw reads it. One queue runs submissions in order, so a draw sees the values of a whole
//! update, never part of one: without pipelined rendering, the frame's own update (the main
//! world's frame runs before its extraction); with pipelined rendering (Bevy's default on
//! native), the render world draws frame N−1 while frame N's update may already have been
//! submitted, so a draw sees frame N−1's or frame N's values.

use bevy::prelude::*;
use bevy::render::extract_component::{ExtractComponent, ExtractComponentPlugin};
use bevy::render::render_resource::Buffer;
use bevy::render::renderer::{RenderAdapterInfo, RenderDevice, RenderQueue};
use bevy::render::sync_component::SyncComponent;
use bevy::render::RenderApp;
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{wgpu, TargetFormat, TargetId};

use crate::error::TweenError;
use crate::plugin::TweenSystems;
use crate::tweens::Tweens;

/// Attaches Bevy's `RenderDevice` and `RenderQueue` to the [`Tweens`] world as its GPU
/// context (once the renderer is up, before the first tween update), and extracts
/// [`TweenBuffer`]s to the render world. Add it after `DefaultPlugins` (or `RenderPlugin`)
/// and [`TweenPlugin`](crate::TweenPlugin).
///
/// The world then evaluates by wgpu-tween's `Executor::Auto` rule (the GPU on a hardware
/// adapter, the CPU executor on a software one such as lavapipe); GPU targets are written on
/// the GPU either way.
#[derive(Clone, Copy, Debug, Default)]
pub struct TweenRenderPlugin;

impl Plugin for TweenRenderPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(ExtractComponentPlugin::<TweenBuffer>::default())
            .add_systems(
                PostUpdate,
                attach_render_device
                    .run_if(not(resource_exists::<GpuAttached>))
                    .before(TweenSystems::Update),
            );
        if app.get_sub_app(RenderApp).is_none() {
            tracing::warn!(
                "bevy_wgpu_tween: TweenRenderPlugin without a render app: tweens stay on the CPU"
            );
        }
    }
}

/// Present once the world has Bevy's device (or failed to take it, which was logged).
#[derive(Resource)]
struct GpuAttached;

fn attach_render_device(
    mut commands: Commands,
    mut tweens: ResMut<Tweens>,
    device: Option<Res<RenderDevice>>,
    queue: Option<Res<RenderQueue>>,
    info: Option<Res<RenderAdapterInfo>>,
) {
    let (Some(device), Some(queue), Some(info)) = (device, queue, info) else {
        return;
    };
    let queue: &wgpu::Queue = &queue;
    let info: &wgpu::AdapterInfo = &info;
    let context = GpuContext::from_device_with_lost_callback(
        device.wgpu_device().clone(),
        queue.clone(),
        info.clone(),
        |reason, message| tracing::error!("bevy_wgpu_tween: device lost ({reason:?}): {message}"),
    );
    match tweens.world_mut().attach_gpu(context) {
        Ok(()) => tracing::info!(
            "bevy_wgpu_tween: GPU context on {} ({:?}), executor {:?}",
            info.name,
            info.device_type,
            tweens.world_mut().active_executor()
        ),
        Err(e) => tracing::warn!("bevy_wgpu_tween: no GPU context ({e}); tweens stay on the CPU"),
    }
    commands.insert_resource(GpuAttached);
}

/// A GPU buffer that motions write (a GPU target of the [`Tweens`] world) and a render
/// pipeline reads: spawn it as a component, and the render world gets a copy each frame.
///
/// ```no_run
/// # use bevy::prelude::*;
/// # use bevy_wgpu_tween::{Motion, TweenBuffer, Tweens};
/// # use bevy_wgpu_tween::wgpu_tween::wgpu;
/// fn spawn_particles(mut commands: Commands, mut tweens: ResMut<Tweens>) {
///     // 1000 instances of 4 f32s, drawn as a vertex buffer.
///     let Ok(buffer) = TweenBuffer::new(&mut tweens, 1000 * 16, wgpu::BufferUsages::VERTEX) else {
///         return;
///     };
///     for i in 0..1000 {
///         let _ = Motion::new(Vec3::ZERO, Vec3::splat(i as f32), 1.0)
///             .target(buffer.target.at(i, 4, 0))
///             .run(tweens.world_mut());
///     }
///     commands.spawn(buffer);
/// }
/// ```
#[derive(Component, Clone, Debug)]
pub struct TweenBuffer {
    /// The buffer (also usable as `STORAGE`, and with the usages asked for).
    pub buffer: Buffer,
    /// The target motions address (`target.at(index, stride, offset)`).
    pub target: TargetId,
    /// Its size in bytes.
    pub size: u64,
}

impl TweenBuffer {
    /// A buffer of `size` bytes on the world's GPU context, as an `f32` target. Before the
    /// context is attached (the first frames) this is [`TweenError::Target`] with
    /// `TargetError::NoGpu`: make buffers in a system that runs after
    /// [`TweenSystems::Update`](crate::TweenSystems) or later frames.
    pub fn new(
        tweens: &mut Tweens,
        size: u64,
        usage: wgpu::BufferUsages,
    ) -> Result<Self, TweenError> {
        let (target, buffer) =
            tweens
                .world_mut()
                .create_gpu_target(size, usage, TargetFormat::F32)?;
        Ok(Self {
            buffer: Buffer::from(buffer),
            target,
            size,
        })
    }
}

impl SyncComponent<RenderApp> for TweenBuffer {
    type Target = Self;
}

impl ExtractComponent<RenderApp> for TweenBuffer {
    type QueryData = &'static TweenBuffer;
    type QueryFilter = ();
    type Out = TweenBuffer;

    fn extract_component(buffer: &TweenBuffer) -> Option<TweenBuffer> {
        Some(buffer.clone())
    }
}
