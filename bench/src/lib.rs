//! wgpu-tween's lab: the benchmark binary's parts (the mixed workload and its measurement,
//! the JSON report, the plot with its pixel font, the GPU pass's [`roofline`], the
//! [`emitter`] benchmark), the same-run floors it is measured against ([`baseline`]), the
//! conformance-vector runner shared by the library's `tests/conformance.rs` and the real-GPU
//! check (`gpu-check`), that check's parts, the peer benchmark (`peers`, feature `peers`:
//! the same workload in peer crates, same run), and the process counters they read
//! ([`counters`]).

#![warn(missing_docs)]

pub mod baseline;
pub mod conformance;
pub mod counters;
pub mod dispatch;
pub mod emitter;
pub mod font;
pub mod parity;
#[cfg(feature = "peers")]
pub mod peers;
pub mod plot;
pub mod report;
pub mod roofline;
pub mod workload;
