//! GPU-vs-CPU parity: thousands of random motions (every ease, loop type, delay type, time
//! kind and lane count; loops -1 and 1..5; speeds including 0 and negative; preserve; zero
//! durations) run in a CPU world and a GPU world side by side with the same operations
//! (spawns, `set_time`, `set_playback_speed`, `complete`, `cancel` mid-run; small and large
//! steps). Every bind value must agree within 1e-4 × max(1, |to − from|) per lane, and the
//! sequence of callbacks must be the same.

use crate::common;
#[path = "../../bench/src/parity.rs"]
mod shared_parity;

use shared_parity::run_parity;

/// `WGPU_TWEEN_PARITY_SEED=n` shifts every seed (to explore more random worlds by hand).
fn seed(base: u64) -> u64 {
    let shift = std::env::var("WGPU_TWEEN_PARITY_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(0);
    base.wrapping_add(shift.wrapping_mul(0x1_0000))
}

#[test]
fn random_motions_agree_frame_by_frame() {
    let Some(ctx) = common::gpu() else { return };
    println!(
        "{}",
        pollster::block_on(run_parity(ctx, seed(0x5eed_0001), 3000, 240))
    );
}

#[test]
fn every_ease_and_loop_type_agree_with_many_operations() {
    let Some(ctx) = common::gpu() else { return };
    // Fewer motions, many more operations per motion.
    println!(
        "{}",
        pollster::block_on(run_parity(ctx, seed(0x5eed_0002), 31 * 4 * 2, 600))
    );
}
