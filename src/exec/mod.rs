//! The executors: each takes the motion table and one frame's clocks and produces every row's
//! value. `cpu` evaluates on the host (SIMD chunks, threads); `gpu` records one WGSL compute
//! pass (feature `gpu`). Neither knows about the world.

pub(crate) mod cpu;
#[cfg(feature = "gpu")]
pub(crate) mod gpu;
