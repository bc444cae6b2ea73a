//! Ease and progress evaluation on arbitrary numbers and rows (see `src/interp.rs`): never a
//! panic; finite eases on `[0, 1]`; finite progress for rows the builder could make.
//! (Animation curves do not exist yet; when they land, their evaluation joins this target.)

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    wgpu_tween_fuzz::interp::run_ease(data);
    if let Ok(name) = std::str::from_utf8(data) {
        let _ = name.parse::<wgpu_tween::Ease>();
    }
});
