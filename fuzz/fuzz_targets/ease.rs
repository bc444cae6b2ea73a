//! Ease, animation-curve and progress evaluation on arbitrary numbers, keys and rows (see
//! `src/interp.rs`): never a panic; finite eases on `[0, 1]`; finite curves that build;
//! finite progress for rows the builder could make.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wgpu_tween_fuzz::interp::run_ease(data);
    if let Ok(name) = std::str::from_utf8(data) {
        let _ = name.parse::<wgpu_tween::Ease>();
    }
});
