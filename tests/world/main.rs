//! Behaviour tests of the world on every executor the machine has: handles, callbacks, sequences,
//! curves, value types, eases, examples. One binary of many modules (wgpu's tests/tests/root.rs
//! layout), so wgpu links once.

#[path = "../common/mod.rs"]
mod common;

mod async_debug;
mod bad_input;
mod batch_binds;
mod batches;
mod bind_runs;
mod callback_order;
mod clock_exactness;
mod cohorts;
mod completion_futures;
mod curves;
mod derive;
mod drop_panics;
mod emitter;
mod examples;
mod final_values;
mod groups;
mod handles;
mod host_targets;
#[cfg(feature = "log")]
mod logging;
mod parametric_eases;
mod presets;
mod punch_shake;
mod quiet_completions;
mod reentrancy;
mod regressions;
mod relative;
mod reused_rows;
mod sequence_templates;
mod sequences;
#[cfg(feature = "serde")]
mod serde_data;
mod swarm;
mod text_motions;
mod value_types;
mod world_limits;
