//! The benchmark binary's parts: the mixed workload and its measurement, the JSON report,
//! and the plot (with its pixel font). The floors are the library's
//! (`wgpu_tween::baseline`).

pub mod font;
pub mod plot;
pub mod report;
pub mod workload;
