//! Builder settings and world/handle operations from bytes (see `src/interp.rs`): never a
//! panic (errors are fine), and the world's invariants hold after every operation.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wgpu_tween_fuzz::allow_intentional_panics();
    wgpu_tween_fuzz::interp::run_ops(data);
});
