//! The reference evaluation of one motion row, one file per shader it mirrors line for line:
//! the clock → loops, status and progress (`clock.rs`, f64 where it matters; `clock.wgsl`),
//! the eases (`easing.rs`; `easing.wgsl`), animation curves (`curve.rs`; `curve.wgsl`) and
//! the adapters that turn eased progress into values (`adapters.rs`; `evaluate.wgsl`). The
//! CPU executor and the world's O(1) queries call it, and the GPU tests compare against it.

pub(crate) mod adapters;
pub(crate) mod clock;
pub(crate) mod curve;
pub(crate) mod easing;

pub(crate) use clock::completed_at;
pub use clock::{progress, Progress};
