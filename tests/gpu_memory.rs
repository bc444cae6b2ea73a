//! Memory follows load on the GPU executor: after a world of many motions is cleared and
//! updated once, the GPU executor's host memory (upload scratch, change lists) is released.
//! Measured with a counting global allocator (live heap bytes), against the same steps on a
//! CPU-executor world, so that what both executors' worlds keep does not count.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use wgpu_tween::{Ease, LoopType, Motion, MotionWorld};

static LIVE: AtomicIsize = AtomicIsize::new(0);

struct Counting;

// SAFETY: forwards to the system allocator; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: as the caller's contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: as the caller's contract.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: as the caller's contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: as the caller's contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Live bytes a world keeps after it held `n` motions, was cleared and updated once,
/// beyond what it kept after its first (empty) update.
fn kept_after_clear(mut world: MotionWorld, n: usize) -> isize {
    world.update(1.0 / 60.0).expect("update");
    let start = LIVE.load(Ordering::Relaxed);
    for i in 0..n {
        Motion::new(0.0f32, i as f32, 1.0 + (i % 7) as f32)
            .ease(Ease::OutQuad)
            .loops(-1, LoopType::Yoyo)
            .run(&mut world)
            .expect("motion");
    }
    world.update(1.0 / 60.0).expect("update");
    world.update(1.0 / 60.0).expect("update");
    world.clear();
    world.update(1.0 / 60.0).expect("update");
    let kept = LIVE.load(Ordering::Relaxed) - start;
    drop(world);
    kept
}

#[test]
fn a_cleared_gpu_world_releases_its_upload_scratch() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    let n = 200_000;
    // The GPU world's upload of 200k rows needs about 22 MB of scratch (112 bytes a row).
    let cpu = kept_after_clear(MotionWorld::new(), n);
    let gpu = kept_after_clear(common::Exec::Gpu(Box::new(ctx)).world(), n);
    let extra = gpu - cpu;
    assert!(
        extra < 4 << 20,
        "the cleared GPU world keeps {extra} bytes more than the CPU world ({gpu} vs {cpu})"
    );
}
