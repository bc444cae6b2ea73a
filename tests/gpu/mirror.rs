//! The texture mirror of the GPU row table (`src/gpu/tex_mirror.rs`; software adapters such
//! as lavapipe read rows through it): after every update it holds exactly the bytes of the
//! row and lane buffers, through uploads, moves of swap-removes, re-anchoring, growth by copy,
//! shrinking, new pages and moves between pages. The lane texture holds two lane pairs per
//! texel (`gpu_mirror_matches` compares each pair with its place in the buffer's lane
//! sections); swapping a texel's two pairs in the apply pass or in the fill of a new mirror
//! fails this suite (tried once each, 2026-11-30). The values read through the mirror are
//! checked by the other GPU suites (conformance, parity, pages), which run on it on lavapipe.
//!
//! Every context here asks for the mirror (`RowStorage::Textures`); skipped, with a note,
//! where the device cannot keep one.

use crate::common;

use glam::{Quat, Vec3};
use wgpu_tween::gpu::{GpuContext, RowStorage};
use wgpu_tween::{Ease, LoopType, Motion, MotionHandle, MotionWorld};

/// A small deterministic generator (xorshift), so failures replay.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Spawns `count` motions of mixed lane counts, delays, loop counts and speeds.
fn spawn(world: &mut MotionWorld, live: &mut Vec<MotionHandle>, count: usize, rng: &mut Rng) {
    for _ in 0..count {
        let n = rng.below(1000);
        let ease = Ease::ALL[n % Ease::ALL.len()];
        let loops = if n.is_multiple_of(3) { 3 } else { -1 };
        let h = match n % 3 {
            0 => Motion::new(n as f32, n as f32 + 7.5, 1.0 + (n % 7) as f32 * 0.25)
                .ease(ease)
                .delay(0.1 * (n % 4) as f32)
                .loops(loops, LoopType::Yoyo)
                .run(world),
            1 => Motion::new(Vec3::splat(n as f32), Vec3::new(1.0, -2.0, 3.5), 2.0)
                .ease(ease)
                .loops(loops, LoopType::Incremental)
                .run(world),
            _ => Motion::new(
                Quat::IDENTITY,
                Quat::from_rotation_z(1.0 + n as f32 * 1e-3),
                1.5,
            )
            .ease(ease)
            .loops(loops, LoopType::Restart)
            .run(world),
        }
        .expect("valid motion");
        if n.is_multiple_of(5) {
            world
                .set_playback_speed(h, 0.5 + (n % 4) as f32)
                .expect("live motion");
        }
        live.push(h);
    }
}

/// Cancels `count` random live motions (swap-removes: moves on the GPU).
fn cancel(world: &mut MotionWorld, live: &mut Vec<MotionHandle>, count: usize, rng: &mut Rng) {
    for _ in 0..count.min(live.len()) {
        let h = live.swap_remove(rng.below(live.len()));
        // Motions of finite loops may have completed (and gone) by now.
        if world.is_active(h) {
            world.cancel(h).expect("live motion");
        }
    }
}

/// One update on the GPU, then the mirror compared with the buffers; false when the world
/// has no mirror (after the first update, which makes the table).
fn update_and_check(world: &mut MotionWorld, what: &str) -> bool {
    common::update_on_gpu(world, 1.0 / 60.0, what);
    match world.gpu_mirror_matches().expect("mirror readback") {
        None => false,
        Some(same) => {
            assert!(
                same,
                "{what}: the texture mirror differs from the row buffers"
            );
            true
        }
    }
}

/// Churn on `ctx`: growth from one to many thousands of rows (`grow` more each step),
/// removals, re-anchors, a shrink, a release to empty and a regrowth.
fn churn(ctx: GpuContext, label: &str, grow: usize) {
    let ctx = ctx.with_row_storage(RowStorage::Textures);
    if ctx.row_storage() != RowStorage::Textures {
        println!("{label}: this device cannot keep a texture mirror; skipped");
        return;
    }
    let mut world = common::Exec::Gpu(Box::new(ctx)).world();
    let mut live = Vec::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    spawn(&mut world, &mut live, 300, &mut rng);
    assert!(
        update_and_check(&mut world, &format!("{label}: first upload")),
        "{label}: a context with texture row storage keeps a mirror"
    );
    // Growth past several capacities, with removals and re-anchors in the same frames.
    for step in 0..6 {
        spawn(&mut world, &mut live, grow * (step + 1), &mut rng);
        cancel(&mut world, &mut live, 200, &mut rng);
        for _ in 0..50 {
            let h = live[rng.below(live.len())];
            if world.is_active(h) {
                world
                    .set_time(h, rng.below(300) as f64 * 0.01)
                    .expect("live");
            }
        }
        update_and_check(&mut world, &format!("{label}: growth step {step}"));
        // A frame of removals alone (moves only).
        cancel(&mut world, &mut live, 300, &mut rng);
        update_and_check(&mut world, &format!("{label}: removals after step {step}"));
    }
    // Shrink: down to a few hundred rows, in two frames.
    let keep = live.len() / 8;
    let drop_count = live.len() - keep;
    cancel(&mut world, &mut live, drop_count, &mut rng);
    update_and_check(&mut world, &format!("{label}: shrink"));
    cancel(&mut world, &mut live, keep - 200, &mut rng);
    update_and_check(&mut world, &format!("{label}: shrink again"));
    // Empty, then a new table.
    let all = live.len();
    cancel(&mut world, &mut live, all, &mut rng);
    world.update(1.0 / 60.0).expect("update of an empty world");
    spawn(&mut world, &mut live, 3 * grow, &mut rng);
    update_and_check(&mut world, &format!("{label}: regrowth after empty"));
    // Steady frames: nothing changes, the mirror stays.
    for frame in 0..3 {
        update_and_check(&mut world, &format!("{label}: steady frame {frame}"));
    }
}

#[test]
fn mirror_follows_the_buffers_through_churn() {
    let Some(ctx) = common::gpu() else { return };
    churn(ctx, "one page", 1500);
}

/// Pages of 2 048 rows (64 KiB storage bindings): the mirror per page, new pages as the
/// table grows, and moves between pages (uploads of the moved rows).
#[test]
fn mirror_follows_the_buffers_across_pages() {
    let Some(ctx) = common::own_device(
        "mirror pages",
        |_| wgpu::Limits {
            max_storage_buffer_binding_size: 64 * 1024,
            ..wgpu::Limits::default()
        },
        |offered| offered & wgpu::Features::SHADER_INT64,
    ) else {
        return;
    };
    // Up to about 6 000 rows: 3 pages (the sequence values of a paged table must fit
    // one binding too, so at most 16 384 rows).
    churn(ctx, "pages of 2048 rows", 400);
}

/// Growing a paged table keeps its full pages and their mirrors: only the new pages' mirrors
/// are filled (one fill dispatch each, the difference between the same updates with texture
/// and with buffer row storage).
#[test]
fn growth_fills_only_the_new_pages_mirrors() {
    let Some(paged) = common::gpu_paged() else {
        return;
    };
    let textures = paged.with_row_storage(RowStorage::Textures);
    if textures.row_storage() != RowStorage::Textures {
        println!("this device cannot keep a texture mirror; skipped");
        return;
    }
    let dispatches = |ctx: &GpuContext| {
        let mut world = common::Exec::Gpu(Box::new(ctx.clone())).world();
        let mut counts = Vec::new();
        // 1000 rows: four pages of 256; then 1100: eight pages, the first four kept.
        for count in [1000, 100] {
            for i in 0..count {
                Motion::new(i as f32, 1.0, 2.0)
                    .loops(-1, LoopType::Restart)
                    .run(&mut world)
                    .expect("valid motion");
            }
            common::update_on_gpu(&mut world, 1.0 / 60.0, "paged growth");
            let stats = world.gpu_update_stats().expect("a device");
            counts.push(stats.dispatches);
        }
        counts
    };
    let with_mirror = dispatches(&textures);
    let without = dispatches(&paged.with_row_storage(RowStorage::Buffers));
    let fills: Vec<u32> = with_mirror
        .iter()
        .zip(&without)
        .map(|(a, b)| a - b)
        .collect();
    assert_eq!(
        fills,
        [4, 4],
        "mirror fills: first table, then growth to eight pages"
    );
}
