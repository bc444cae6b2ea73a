//! The reference evaluation of one motion row, in f64 where it matters: clock → loops, status
//! and eased progress. The CPU executor and the world's O(1) queries call it; the WGSL
//! shaders port it line for line, and the GPU tests compare against it.

pub(crate) mod clock;

pub use clock::{progress, Progress};
