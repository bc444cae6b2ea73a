//! A field of particles (100,000 by default, `--particles N` up to a million) whose position
//! and color are motions written on Bevy's own GPU device into one instance buffer, which a
//! render pass in Bevy's 2D main pass draws instanced. The values never come back to the CPU.
//!
//! The particles and the draw are the repository's swarm (`examples/swarm/`), so Bevy, the
//! native example and the web page show the same field.
//!
//! `cargo run --release --features render --example particle_field -- --frames 60` writes
//! target/particle_field.png.

use bevy::core_pipeline::core_2d::main_transparent_pass_2d;
use bevy::core_pipeline::{Core2d, Core2dSystems};
use bevy::prelude::*;
use bevy::render::renderer::{RenderContext, RenderDevice, RenderQueue, ViewQuery};
use bevy::render::view::ViewTarget;
use bevy::render::RenderApp;
use bevy_wgpu_tween::wgpu_tween::wgpu;
use bevy_wgpu_tween::*;

mod headless;
// `project` serves the other renderers, which draw on the CPU too.
#[allow(dead_code)]
#[path = "../../examples/swarm/particles.rs"]
mod particles;
#[path = "../../examples/swarm/pipeline.rs"]
mod pipeline;

use particles::{COLOR, DEPTH_K, POSITION, STRIDE};

/// How many particles to spawn.
#[derive(Resource)]
struct Particles(usize);

/// Pixels per particle square at depth 0.
const POINT_PX: f32 = 3.0;

fn main() {
    let run = headless::Run::from_args("particle_field");
    let n = headless::flag("--particles")
        .unwrap_or(100_000usize)
        .min(1_000_000);
    let mut app = run.app();
    app.add_plugins((TweenPlugin, TweenRenderPlugin))
        .insert_resource(Particles(n))
        .add_systems(
            Startup,
            |mut commands: Commands, t: Option<Res<headless::HeadlessTarget>>| {
                commands.spawn((Camera2d, Msaa::Off, headless::camera_target(t)));
            },
        )
        // Once the world has Bevy's device (attached before the first tween update).
        .add_systems(
            PostUpdate,
            spawn_field
                .after(TweenSystems::Update)
                .run_if(not(any_with_component::<TweenBuffer>)),
        );
    // The draw runs in the render world, after the sprites of the 2D main pass.
    app.sub_app_mut(RenderApp).add_systems(
        Core2d,
        draw_field
            .after(main_transparent_pass_2d)
            .in_set(Core2dSystems::MainPass),
    );
    run.run(app);
}

/// Makes the instance buffer, fills it with the start values and adds the motions.
fn spawn_field(
    mut commands: Commands,
    mut tweens: ResMut<Tweens>,
    count: Res<Particles>,
    queue: Res<RenderQueue>,
) {
    let field = particles::particles(count.0, 7);
    let size = (field.len() * STRIDE as usize * 4) as u64;
    let usage = wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST;
    let buffer = match TweenBuffer::new(&mut tweens, size, usage) {
        Ok(b) => b,
        Err(e) => return error!("no GPU buffer for the field: {e}"),
    };
    let instances = particles::initial_instances(&field);
    queue.write_buffer(&buffer.buffer, 0, bytemuck::cast_slice(&instances));
    if let Err(e) = particles::bind_motions(tweens.world_mut(), buffer.target, &field) {
        return error!("the field's motions: {e}");
    }
    info!(
        "{} particles, {} motions",
        field.len(),
        tweens.world_mut().len()
    );
    commands.spawn(buffer);
}

/// The render pipeline, made for the view's format on first use.
struct FieldPipeline {
    format: wgpu::TextureFormat,
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    view: wgpu::Buffer,
}

fn draw_field(
    view: ViewQuery<&ViewTarget>,
    buffers: Query<&TweenBuffer>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
    mut cached: Local<Option<FieldPipeline>>,
    mut ctx: RenderContext,
) {
    let target = view.into_inner();
    let Some(buffer) = buffers.iter().next() else {
        return;
    };
    let format = target.main_texture_format();
    if cached.as_ref().is_none_or(|p| p.format != format) {
        let (pipeline, bind_group, view) = pipeline::pipeline(device.wgpu_device(), format);
        *cached = Some(FieldPipeline {
            format,
            pipeline,
            bind_group,
            view,
        });
    }
    let Some(p) = cached.as_ref() else {
        return;
    };
    let size = headless::SIZE.as_vec2();
    let uniform = [size.x, size.y, POINT_PX, DEPTH_K];
    queue.write_buffer(&p.view, 0, bytemuck::cast_slice(&uniform));
    let instances = (buffer.size / (u64::from(STRIDE) * 4)) as u32;
    let mut pass = ctx
        .command_encoder()
        .begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("particle field"),
            color_attachments: &[Some(target.get_color_attachment())],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
    pass.set_pipeline(&p.pipeline);
    pass.set_bind_group(0, &p.bind_group, &[]);
    let raw: &wgpu::Buffer = &buffer.buffer;
    pass.set_vertex_buffer(0, raw.slice(..));
    pass.draw(0..6, 0..instances);
}

// The layout constants the shared pipeline reads.
const _: (u32, u32) = (POSITION, COLOR);
