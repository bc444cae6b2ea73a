//! Compute pipelines and their explicit bind group layouts.

use std::sync::OnceLock;

use super::shaders::{
    ShaderModule, APPLY_MIRROR_MODULE, APPLY_MODULE, EVALUATE_INT64_MODULE, EVALUATE_MODULE,
    EVALUATE_TEX_MODULE, GATHER_MODULE, MIRROR_FILL_MODULE, SCATTER_MODULE,
};
use super::tex_mirror::RowReads;
use super::variants::{self, Features};

pub(crate) struct Pipelines {
    /// The evaluate pass, one pipeline per [`Features`] variant, each built on first use
    /// (the one for every kind of row eagerly, with the others).
    evaluate_variants: [OnceLock<wgpu::ComputePipeline>; variants::COUNT],
    /// The module for [`Self::row_reads`].
    evaluate_module: &'static ShaderModule,
    evaluate_shader: wgpu::ShaderModule,
    evaluate_pipeline_layout: wgpu::PipelineLayout,
    pub evaluate_layout: wgpu::BindGroupLayout,
    /// How the evaluate pass reads rows and lanes; with the texture mirror, the evaluate pass
    /// binds it at 7 and 8 and the apply pass writes it at 8 and 9 (`tex_mirror.rs`).
    pub row_reads: RowReads,
    pub apply: wgpu::ComputePipeline,
    pub apply_layout: wgpu::BindGroupLayout,
    /// The fill of a new mirror's lane texture and its layout (with the mirror only).
    pub mirror_fill: Option<(wgpu::ComputePipeline, wgpu::BindGroupLayout)>,
    pub gather: wgpu::ComputePipeline,
    pub gather_layout: wgpu::BindGroupLayout,
    pub scatter: wgpu::ComputePipeline,
    pub scatter_layout: wgpu::BindGroupLayout,
    /// One read-write storage binding: checks that a target buffer can be bound as the
    /// scatter pass binds it (usage, device, size) before any motion relies on it.
    pub target_probe_layout: wgpu::BindGroupLayout,
}

/// What a binding holds.
#[derive(Clone, Copy)]
enum Slot {
    Uniform,
    DynamicUniform,
    Read,
    ReadWrite,
    /// A `texture_2d<u32>`.
    Texture,
    /// A write-only `texture_storage_2d` of this format.
    StorageTexture(wgpu::TextureFormat),
}

fn layout(device: &wgpu::Device, label: &str, slots: &[Slot]) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = slots
        .iter()
        .enumerate()
        .map(|(i, slot)| wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: match *slot {
                Slot::Texture => wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Uint,
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                Slot::StorageTexture(format) => wgpu::BindingType::StorageTexture {
                    access: wgpu::StorageTextureAccess::WriteOnly,
                    format,
                    view_dimension: wgpu::TextureViewDimension::D2,
                },
                _ => wgpu::BindingType::Buffer {
                    ty: match slot {
                        Slot::Uniform | Slot::DynamicUniform => wgpu::BufferBindingType::Uniform,
                        Slot::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                        _ => wgpu::BufferBindingType::Storage { read_only: true },
                    },
                    has_dynamic_offset: matches!(slot, Slot::DynamicUniform),
                    min_binding_size: None,
                },
            },
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

fn shader(device: &wgpu::Device, module: &ShaderModule) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(module.label),
        source: wgpu::ShaderSource::Wgsl(module.source().into()),
    })
}

fn pipeline_layout(
    device: &wgpu::Device,
    module: &ShaderModule,
    layout: &wgpu::BindGroupLayout,
) -> wgpu::PipelineLayout {
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(module.label),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    })
}

fn compute_pipeline(
    device: &wgpu::Device,
    module: &ShaderModule,
    shader: &wgpu::ShaderModule,
    layout: &wgpu::PipelineLayout,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(module.label),
        layout: Some(layout),
        module: shader,
        entry_point: Some(module.entry_point),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            ..Default::default()
        },
        cache: None,
    })
}

fn pipeline(
    device: &wgpu::Device,
    module: &ShaderModule,
    layout: &wgpu::BindGroupLayout,
) -> wgpu::ComputePipeline {
    let shader = shader(device, module);
    let pipeline_layout = pipeline_layout(device, module, layout);
    compute_pipeline(device, module, &shader, &pipeline_layout, &[])
}

/// The evaluate module for `reads` (the same bytes and results each).
fn evaluate_module(reads: RowReads) -> &'static ShaderModule {
    match reads {
        RowReads::Buffers32 => &EVALUATE_MODULE,
        RowReads::Buffers64 => &EVALUATE_INT64_MODULE,
        RowReads::Textures => &EVALUATE_TEX_MODULE,
    }
}

impl Pipelines {
    pub fn new(device: &wgpu::Device, row_reads: RowReads) -> Self {
        use Slot::*;
        let mirrored = row_reads == RowReads::Textures;
        let evaluate_slots = [
            // 5: the curve key table; 6: the sequence values of a paged table; 7, 8: the
            // texture mirror of rows and lanes.
            Uniform, Read, Read, ReadWrite, Read, Read, Read, Texture, Texture,
        ];
        let evaluate_layout = layout(
            device,
            "wgpu-tween evaluate",
            &evaluate_slots[..if mirrored { 9 } else { 7 }],
        );
        let apply_slots = [
            DynamicUniform,
            Read,
            Read,
            Read,
            ReadWrite,
            ReadWrite,
            Read,
            ReadWrite,
            // The texture mirror of rows and lanes.
            StorageTexture(wgpu::TextureFormat::Rgba32Uint),
            StorageTexture(wgpu::TextureFormat::Rgba32Uint),
        ];
        let apply_layout = layout(
            device,
            "wgpu-tween apply",
            &apply_slots[..if mirrored { 10 } else { 8 }],
        );
        let apply_module = if mirrored {
            &APPLY_MIRROR_MODULE
        } else {
            &APPLY_MODULE
        };
        let mirror_fill = mirrored.then(|| {
            let layout = layout(
                device,
                "wgpu-tween mirror fill",
                &[Read, StorageTexture(wgpu::TextureFormat::Rgba32Uint)],
            );
            (pipeline(device, &MIRROR_FILL_MODULE, &layout), layout)
        });
        let gather_layout = layout(
            device,
            "wgpu-tween gather",
            &[Uniform, Read, Read, ReadWrite],
        );
        let scatter_layout = layout(
            device,
            "wgpu-tween scatter",
            &[DynamicUniform, Read, Read, ReadWrite],
        );
        let evaluate_module = evaluate_module(row_reads);
        let evaluate_shader = shader(device, evaluate_module);
        let evaluate_pipeline_layout = pipeline_layout(device, evaluate_module, &evaluate_layout);
        let evaluate_variants: [OnceLock<wgpu::ComputePipeline>; variants::COUNT] =
            std::array::from_fn(|_| OnceLock::new());
        let _ = evaluate_variants[Features::ALL.index()].set(compute_pipeline(
            device,
            evaluate_module,
            &evaluate_shader,
            &evaluate_pipeline_layout,
            &Features::ALL.constants(),
        ));
        Self {
            evaluate_variants,
            evaluate_module,
            evaluate_shader,
            evaluate_pipeline_layout,
            apply: pipeline(device, apply_module, &apply_layout),
            mirror_fill,
            gather: pipeline(device, &GATHER_MODULE, &gather_layout),
            scatter: pipeline(device, &SCATTER_MODULE, &scatter_layout),
            evaluate_layout,
            row_reads,
            apply_layout,
            gather_layout,
            scatter_layout,
            target_probe_layout: layout(device, "wgpu-tween target probe", &[ReadWrite]),
        }
    }
}

impl Pipelines {
    /// The evaluate pipeline compiled for rows of the kinds in `features` (built on first
    /// use; a validation error goes to the caller's error scope).
    pub fn evaluate(&self, device: &wgpu::Device, features: Features) -> &wgpu::ComputePipeline {
        self.evaluate_variants[features.index()].get_or_init(|| {
            compute_pipeline(
                device,
                self.evaluate_module,
                &self.evaluate_shader,
                &self.evaluate_pipeline_layout,
                &features.constants(),
            )
        })
    }
}
