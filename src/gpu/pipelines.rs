//! Compute pipelines and their explicit bind group layouts.

use std::sync::OnceLock;

use super::shaders::{
    ShaderModule, APPLY_MODULE, EVALUATE_INT64_MODULE, EVALUATE_MODULE, EVALUATE_TEX_MODULE,
    GATHER_MODULE, SCATTER_MODULE,
};
use super::variants::{self, Features};

pub(crate) struct Pipelines {
    /// The evaluate pass, one pipeline per [`Features`] variant, each built on first use
    /// (the one for every kind of row eagerly, with the others).
    evaluate_variants: [OnceLock<wgpu::ComputePipeline>; variants::COUNT],
    /// [`EVALUATE_INT64_MODULE`] where the device has 64-bit integers, else
    /// [`EVALUATE_MODULE`].
    evaluate_module: &'static ShaderModule,
    evaluate_shader: wgpu::ShaderModule,
    evaluate_pipeline_layout: wgpu::PipelineLayout,
    pub evaluate_layout: wgpu::BindGroupLayout,
    /// Whether the evaluate pass reads rows and lanes from texture mirrors (bindings 7 and
    /// 8; a prototype, see `tex_mirror.rs`).
    pub textures: bool,
    pub apply: wgpu::ComputePipeline,
    pub apply_layout: wgpu::BindGroupLayout,
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
    TexUint,
    /// A `texture_2d<f32>` read with `textureLoad` (unfilterable).
    TexFloat,
}

fn layout(device: &wgpu::Device, label: &str, slots: &[Slot]) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = slots
        .iter()
        .enumerate()
        .map(|(i, slot)| wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: match slot {
                Slot::TexUint | Slot::TexFloat => wgpu::BindingType::Texture {
                    sample_type: if matches!(slot, Slot::TexUint) {
                        wgpu::TextureSampleType::Uint
                    } else {
                        wgpu::TextureSampleType::Float { filterable: false }
                    },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
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

/// The evaluate module for a device with `features`: 64-bit reads where it can (fewer loads,
/// the same bytes and results).
fn evaluate_module(features: wgpu::Features) -> &'static ShaderModule {
    if features.contains(wgpu::Features::SHADER_INT64) {
        &EVALUATE_INT64_MODULE
    } else {
        &EVALUATE_MODULE
    }
}

impl Pipelines {
    pub fn new(device: &wgpu::Device) -> Self {
        use Slot::*;
        let textures = std::env::var_os("WGPU_TWEEN_TEXTURE_ROWS").is_some();
        let evaluate_slots = [
            // 5: the curve key table; 6: the sequence values of a paged table; 7, 8: the
            // texture mirrors of rows and lanes.
            Uniform, Read, Read, ReadWrite, Read, Read, Read, TexUint, TexFloat,
        ];
        let evaluate_layout = layout(
            device,
            "wgpu-tween evaluate",
            &evaluate_slots[..if textures { 9 } else { 7 }],
        );
        let apply_layout = layout(
            device,
            "wgpu-tween apply",
            &[
                DynamicUniform,
                Read,
                Read,
                Read,
                ReadWrite,
                ReadWrite,
                Read,
                ReadWrite,
            ],
        );
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
        let evaluate_module = if textures {
            &EVALUATE_TEX_MODULE
        } else {
            evaluate_module(device.features())
        };
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
            apply: pipeline(device, &APPLY_MODULE, &apply_layout),
            gather: pipeline(device, &GATHER_MODULE, &gather_layout),
            scatter: pipeline(device, &SCATTER_MODULE, &scatter_layout),
            evaluate_layout,
            textures,
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
