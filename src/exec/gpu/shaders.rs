//! WGSL sources, one concern per file under `shaders/`, composed into the modules the
//! pipelines use. Composition is plain concatenation in dependency order.

/// Shared structs and flag constants.
pub const TYPES: &str = include_str!("../../../shaders/types.wgsl");
/// The 31 eases.
pub const EASING: &str = include_str!("../../../shaders/easing.wgsl");
/// Pair arithmetic, the motion clock and progress.
pub const CLOCK: &str = include_str!("../../../shaders/clock.wgsl");
/// Animation curves (the key table binding and their evaluation).
pub const CURVE: &str = include_str!("../../../shaders/curve.wgsl");
/// Row and lane reads as 32-bit words.
pub const ROWS32: &str = include_str!("../../../shaders/rows32.wgsl");
/// The evaluate pass entry point.
pub const EVALUATE: &str = include_str!("../../../shaders/evaluate.wgsl");
/// The row-change (upload and move) pass.
pub const APPLY: &str = include_str!("../../../shaders/apply.wgsl");
/// The readback gather pass.
pub const GATHER: &str = include_str!("../../../shaders/gather.wgsl");
/// The probe of a target buffer.
pub const PROBE: &str = include_str!("../../../shaders/probe.wgsl");
/// The GPU-target scatter pass: its params, entries and values.
pub const SCATTER: &str = include_str!("../../../shaders/scatter.wgsl");
/// The scatter's entry point for f32 targets.
pub const SCATTER_F32: &str = include_str!("../../../shaders/scatter_f32.wgsl");
/// The scatter's entry point for packed targets (unorm8, float16).
pub const SCATTER_PACKED: &str = include_str!("../../../shaders/scatter_packed.wgsl");

/// A composed shader module: its label, entry point and source parts.
#[derive(Clone, Copy, Debug)]
pub struct ShaderModule {
    /// Debug label.
    pub label: &'static str,
    /// The compute entry point.
    pub entry_point: &'static str,
    /// Parts, concatenated in order.
    pub parts: &'static [&'static str],
}

impl ShaderModule {
    /// The full WGSL source.
    #[must_use]
    pub fn source(&self) -> String {
        self.parts.join("\n")
    }
}

/// The evaluate pass, reading rows and lanes as 32-bit words.
pub const EVALUATE_MODULE: ShaderModule = ShaderModule {
    label: "wgpu-tween evaluate",
    entry_point: "evaluate",
    parts: &[TYPES, ROWS32, EASING, CURVE, CLOCK, EVALUATE],
};

/// The apply (upload and move) pass.
pub const APPLY_MODULE: ShaderModule = ShaderModule {
    label: "wgpu-tween apply",
    entry_point: "apply",
    parts: &[TYPES, APPLY],
};

/// The gather pass.
pub const GATHER_MODULE: ShaderModule = ShaderModule {
    label: "wgpu-tween gather",
    entry_point: "gather",
    parts: &[GATHER],
};

/// The scatter pass (values into user buffers of f32s).
pub const SCATTER_MODULE: ShaderModule = ShaderModule {
    label: "wgpu-tween scatter",
    entry_point: "scatter",
    parts: &[SCATTER, SCATTER_F32],
};

/// The scatter pass into packed user buffers.
pub const SCATTER_PACKED_MODULE: ShaderModule = ShaderModule {
    label: "wgpu-tween scatter packed",
    entry_point: "scatter_packed",
    parts: &[SCATTER, SCATTER_PACKED],
};

/// The probe of a target buffer after a failed update (`Targets::unusable_groups`).
pub const PROBE_MODULE: ShaderModule = ShaderModule {
    label: "wgpu-tween target probe",
    entry_point: "probe",
    parts: &[PROBE],
};

/// Every module the executor builds.
#[cfg(test)]
pub const ALL_MODULES: [ShaderModule; 6] = [
    EVALUATE_MODULE,
    APPLY_MODULE,
    GATHER_MODULE,
    SCATTER_MODULE,
    SCATTER_PACKED_MODULE,
    PROBE_MODULE,
];

#[cfg(test)]
mod tests {
    use super::*;
    use naga::valid::{Capabilities, ValidationFlags, Validator};

    fn parse(module: &ShaderModule) -> naga::Module {
        let source = module.source();
        naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{}: {}", module.label, e.emit_to_string(&source)))
    }

    #[test]
    fn every_module_validates() {
        for module in ALL_MODULES {
            let parsed = parse(&module);
            Validator::new(ValidationFlags::all(), Capabilities::empty())
                .validate(&parsed)
                .unwrap_or_else(|e| panic!("{}: {e:?}", module.label));
            assert!(
                parsed
                    .entry_points
                    .iter()
                    .any(|e| e.name == module.entry_point),
                "{} lacks entry point {}",
                module.label,
                module.entry_point
            );
        }
    }

    #[test]
    fn the_evaluate_variants_set_exactly_the_kernels_override_constants() {
        let parsed = parse(&EVALUATE_MODULE);
        let mut declared: Vec<&str> = (parsed.overrides.iter())
            .filter_map(|(_, o)| o.name.as_deref())
            .collect();
        declared.sort_unstable();
        for variant in super::super::variants::VARIANTS {
            let mut set: Vec<&str> = variant.constants().iter().map(|c| c.0).collect();
            set.sort_unstable();
            assert_eq!(set, declared);
        }
    }

    /// Member offsets and total size of a WGSL struct, as naga lays it out.
    fn wgsl_layout(module: &naga::Module, name: &str) -> (Vec<(String, u32)>, u32) {
        for (_, ty) in module.types.iter() {
            if ty.name.as_deref() == Some(name) {
                if let naga::TypeInner::Struct { members, span } = &ty.inner {
                    let offsets = members
                        .iter()
                        .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                        .collect();
                    return (offsets, *span);
                }
            }
        }
        panic!("struct {name} not found");
    }

    macro_rules! assert_layout {
        ($module:expr, $wgsl:literal, $rust:ty, [$($field:ident),* $(,)?]) => {{
            let (members, span) = wgsl_layout($module, $wgsl);
            assert_eq!(span as usize, std::mem::size_of::<$rust>(), "size of {}", $wgsl);
            let rust: Vec<(String, u32)> = vec![
                $((stringify!($field).to_owned(), std::mem::offset_of!($rust, $field) as u32)),*
            ];
            assert_eq!(members, rust, "member offsets of {}", $wgsl);
        }};
    }

    #[test]
    fn wgsl_structs_match_rust_mirrors() {
        use crate::core::row::MotionRow;
        use crate::exec::gpu::layout::{
            ApplyParams, GatherParams, GpuFrame, RowOp, ScatterParams, TargetEntry,
        };
        let evaluate = parse(&EVALUATE_MODULE);
        assert_layout!(
            &evaluate,
            "MotionRow",
            MotionRow,
            [base_hi, base_lo, duration, flags, speed, delay, loops, params]
        );
        assert_layout!(
            &evaluate,
            "Frame",
            GpuFrame,
            [
                world_hi,
                world_mid,
                world_lo,
                row_count,
                lane_stride,
                groups_x,
                opaque_zero,
                child_mode,
                row_first,
                _pad1,
                _pad2
            ]
        );
        let apply = parse(&APPLY_MODULE);
        assert_layout!(&apply, "RowOp", RowOp, [dst, src, kind, _pad]);
        assert_layout!(
            &apply,
            "ApplyParams",
            ApplyParams,
            [
                op_offset,
                op_count,
                lane_stride,
                staged_stride,
                groups_x,
                _pad0,
                _pad1,
                _pad2
            ]
        );
        let gather = parse(&GATHER_MODULE);
        assert_layout!(
            &gather,
            "GatherParams",
            GatherParams,
            [
                count,
                lane_stride,
                groups_x,
                row_base,
                row_end,
                _pad0,
                _pad1,
                _pad2
            ]
        );
        let scatter = parse(&SCATTER_MODULE);
        assert_layout!(
            &scatter,
            "ScatterParams",
            ScatterParams,
            [count, src_stride, groups_x, by_entry, src_offset, row_base, row_end, format]
        );
        assert_layout!(&scatter, "TargetEntry", TargetEntry, [row, dst]);
        assert_layout!(
            &evaluate,
            "GpuKey",
            crate::core::curve::GpuKey,
            [
                time,
                value,
                in_tangent,
                out_tangent,
                in_weight,
                out_weight,
                flags,
                _pad
            ]
        );
    }

    /// `sine` of `easing.wgsl`, operation for operation (the test oracle of its WGSL).
    fn sine(x: f32) -> f32 {
        let ax = x.abs();
        let j = ((ax * 1.273_239_5) as u32 + 1) & !1;
        let y = j as f32;
        let z = ((ax - y * 0.785_156_25) - y * 2.418_756_5e-4) - y * 3.774_895e-8;
        let zz = z * z;
        let s = ((-1.951_529_6e-4 * zz + 8.332_161e-3) * zz - 1.666_665_5e-1) * zz * z + z;
        let c = ((2.443_315_7e-5 * zz - 1.388_731_6e-3) * zz + 4.166_664_6e-2) * zz * zz - 0.5 * zz
            + 1.0;
        let quadrant = (j >> 1) & 3;
        let mut r = if quadrant & 1 == 1 { c } else { s };
        if quadrant >= 2 {
            r = -r;
        }
        if x < 0.0 {
            r = -r;
        }
        if ax < 8192.0 {
            r
        } else {
            x.sin()
        }
    }

    /// The shader's sine is within 2.5e-7 of the true sine over every angle eases, punches
    /// and slerps reach (the built-in `sin` may be off by 2^-11: SwiftShader's is), and
    /// exact where eases end: sin 0 = 0, sin ±π/2 = ±1.
    #[test]
    fn the_shader_sine_is_accurate_and_exact_at_the_ends() {
        for constant in [
            "1.2732395447351628",
            "0.78515625",
            "2.4187564849853515625e-4",
        ] {
            assert!(EASING.contains(constant), "easing.wgsl lacks {constant}");
        }
        let half_pi = std::f32::consts::FRAC_PI_2;
        assert_eq!((sine(0.0), sine(half_pi), sine(-half_pi)), (0.0, 1.0, -1.0));
        for i in -400_000..=400_000 {
            let x = i as f32 * 1.0e-3;
            let want = f64::from(x).sin();
            let error = (f64::from(sine(x)) - want).abs();
            assert!(error <= 2.5e-7, "sine({x}) = {}, sin = {want}", sine(x));
        }
        for x in [1e-20f32, 1e-7, 3e-4] {
            assert!((sine(x) - x).abs() <= x * 1.2e-7, "{x}");
        }
    }
}
