//! The plugin's behaviour in headless apps (no renderer): values against hand-computed ones,
//! events, despawns, clocks and errors. One binary of modules, as wgpu's tests are.

mod common;
mod errors;
mod events;
mod lifecycle;
#[cfg(feature = "render")]
mod render;
mod sequences;
mod values;
