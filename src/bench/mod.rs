//! The benchmark binary's parts: the mixed workload and its measurement, the GPU floor
//! kernel, the JSON report, and the plot (with its pixel font).

pub mod floor;
pub mod font;
pub mod plot;
pub mod report;
pub mod workload;
