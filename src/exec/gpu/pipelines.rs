//! Compute pipelines and their explicit bind group layouts, all built when a context's
//! executor is first made (none is compiled mid-run).

use crate::table::targets::TargetFormat;

use super::shaders::{
    ShaderModule, APPLY_MODULE, EVALUATE_MODULE, GATHER_MODULE, PROBE_MODULE, SCATTER_MODULE,
    SCATTER_PACKED_MODULE,
};
use super::variants::VARIANTS;

pub(crate) struct Pipelines {
    /// The evaluate pass: one pipeline per entry of [`VARIANTS`] (the kernel specialised
    /// by its override constants).
    pub evaluate: Vec<wgpu::ComputePipeline>,
    pub evaluate_layout: wgpu::BindGroupLayout,
    pub apply: wgpu::ComputePipeline,
    pub apply_layout: wgpu::BindGroupLayout,
    pub gather: wgpu::ComputePipeline,
    pub gather_layout: wgpu::BindGroupLayout,
    pub scatter: wgpu::ComputePipeline,
    /// The scatter into unorm8 and float16 targets (same layout).
    pub scatter_packed: wgpu::ComputePipeline,
    pub scatter_layout: wgpu::BindGroupLayout,
    /// One read-write storage binding: checks that a target buffer can be bound as the
    /// scatter pass binds it (usage, device, size) before any motion relies on it.
    pub target_probe_layout: wgpu::BindGroupLayout,
    /// A dispatch over that binding that writes nothing (`shaders/probe.wgsl`).
    pub target_probe: wgpu::ComputePipeline,
}

/// What a binding holds.
#[derive(Clone, Copy)]
enum Slot {
    Uniform,
    DynamicUniform,
    Read,
    ReadWrite,
}

fn layout(device: &wgpu::Device, label: &str, slots: &[Slot]) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = slots
        .iter()
        .enumerate()
        .map(|(i, slot)| wgpu::BindGroupLayoutEntry {
            binding: i as u32,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match slot {
                    Slot::Uniform | Slot::DynamicUniform => wgpu::BufferBindingType::Uniform,
                    Slot::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                    Slot::Read => wgpu::BufferBindingType::Storage { read_only: true },
                },
                has_dynamic_offset: matches!(slot, Slot::DynamicUniform),
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

fn pipeline(
    device: &wgpu::Device,
    module: &ShaderModule,
    layout: &wgpu::BindGroupLayout,
) -> wgpu::ComputePipeline {
    let shader = shader(device, module);
    pipeline_with(device, module, &shader, layout, &[])
}

fn shader(device: &wgpu::Device, module: &ShaderModule) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(module.label),
        source: wgpu::ShaderSource::Wgsl(module.source().into()),
    })
}

/// A pipeline of `module`'s entry point with its override `constants`.
fn pipeline_with(
    device: &wgpu::Device,
    module: &ShaderModule,
    shader: &wgpu::ShaderModule,
    layout: &wgpu::BindGroupLayout,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(module.label),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(module.label),
        layout: Some(&pipeline_layout),
        module: shader,
        entry_point: Some(module.entry_point),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            ..Default::default()
        },
        cache: None,
    })
}

impl Pipelines {
    pub fn new(device: &wgpu::Device) -> Self {
        use Slot::*;
        // 0: the `Frame` of a dispatch (one per run of rows); 5: the curve key table; 6: the
        // sequence values of a paged table; 7: the groups' clocks.
        let evaluate_layout = layout(
            device,
            "wgpu-tween evaluate",
            &[
                DynamicUniform,
                Read,
                Read,
                ReadWrite,
                Read,
                Read,
                Read,
                Read,
            ],
        );
        let evaluate_shader = shader(device, &EVALUATE_MODULE);
        let evaluate = VARIANTS
            .iter()
            .map(|variant| {
                let constants = variant.constants();
                pipeline_with(
                    device,
                    &EVALUATE_MODULE,
                    &evaluate_shader,
                    &evaluate_layout,
                    &constants,
                )
            })
            .collect();
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
        let probe_layout = layout(device, "wgpu-tween target probe", &[ReadWrite]);
        Self {
            evaluate,
            apply: pipeline(device, &APPLY_MODULE, &apply_layout),
            gather: pipeline(device, &GATHER_MODULE, &gather_layout),
            scatter: pipeline(device, &SCATTER_MODULE, &scatter_layout),
            scatter_packed: pipeline(device, &SCATTER_PACKED_MODULE, &scatter_layout),
            evaluate_layout,
            apply_layout,
            gather_layout,
            scatter_layout,
            target_probe: pipeline(device, &PROBE_MODULE, &probe_layout),
            target_probe_layout: probe_layout,
        }
    }

    /// The scatter entry point that writes a target of `format`.
    pub fn scatter_for(&self, format: TargetFormat) -> &wgpu::ComputePipeline {
        match format {
            TargetFormat::F32 => &self.scatter,
            _ => &self.scatter_packed,
        }
    }
}
