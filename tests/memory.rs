//! Memory follows load (issue 16, item 13): a world emptied by `clear` or by its motions
//! completing holds about what a fresh world holds, measured with a counting global
//! allocator (bytes live: allocated minus freed), not RSS. One `#[test]`, so that no other
//! test thread of this binary allocates while it measures. Detached batches (kept whole, as
//! cohorts) included: a burst of them leaves nothing behind once it ends.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicU32, Ordering};
use std::sync::Arc;

use wgpu_tween::{BatchItem, Motion, MotionWorld};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards every call to `System` unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const N: usize = 1_000_000;
const MIB: isize = 1 << 20;

fn live() -> isize {
    LIVE.load(Ordering::SeqCst)
}

/// `N` motions of at most `max_duration` seconds: every eighth with a bind, every
/// sixteenth with an `on_complete`, so the bound list, the event queue and the callbacks
/// all grow.
fn populate(world: &mut MotionWorld, max_duration: f32, sink: &Arc<AtomicU32>) {
    for i in 0..N {
        let duration = max_duration * (0.5 + (i % 5) as f32 * 0.1);
        let motion = Motion::new(0.0f32, 1.0, duration);
        let made = if i % 8 == 0 {
            let sink = Arc::clone(sink);
            motion.bind(world, move |v| sink.store(v.to_bits(), Ordering::Relaxed))
        } else if i % 16 == 1 {
            let sink = Arc::clone(sink);
            motion
                .on_complete(move || {
                    sink.fetch_add(1, Ordering::Relaxed);
                })
                .run(world)
        } else {
            motion.run(world)
        };
        made.expect("valid motion");
    }
}

#[test]
fn an_emptied_world_holds_about_what_a_fresh_one_holds() {
    let sink = Arc::new(AtomicU32::new(0));
    // A fresh world after one update (its thread pool, if any, is not started).
    let start = live();
    let mut fresh = MotionWorld::new();
    fresh.update(0.1).unwrap();
    let fresh_bytes = live() - start;
    drop(fresh);

    // 1M motions, evaluated (the executor's cache and thread pool grow), then cleared.
    let start = live();
    let mut world = MotionWorld::new();
    populate(&mut world, 10.0, &sink);
    world.update(0.1).unwrap();
    let peak = live() - start;
    world.clear();
    world.update(0.1).unwrap();
    assert!(world.is_empty());
    let cleared = live() - start;
    assert!(
        cleared <= fresh_bytes + MIB,
        "after clear: {} KiB live, a fresh world {} KiB (peak {} MiB)",
        cleared / 1024,
        fresh_bytes / 1024,
        peak / MIB
    );
    drop(world);

    // 1M motions that all complete, then one more update.
    let start = live();
    let mut world = MotionWorld::new();
    populate(&mut world, 1.0, &sink);
    world.update(0.1).unwrap();
    world.update(1.0).unwrap(); // every motion (≤ 0.9 s) completes
    assert!(world.is_empty());
    world.update(0.1).unwrap();
    let completed = live() - start;
    assert!(
        completed <= fresh_bytes + MIB,
        "after completing: {} KiB live, a fresh world {} KiB",
        completed / 1024,
        fresh_bytes / 1024
    );
    drop(world);

    // An emitter's steady state (a detached batch a frame, each living 5 frames), then a
    // burst of 1M detached motions writing a host array, all ending.
    let start = live();
    let mut world = MotionWorld::new();
    let array = world.add_host_target(N).unwrap();
    let array_bytes = live() - start;
    let particle = Motion::new(0.0f32, 0.0, 0.45);
    for frame in 0..40 {
        particle
            .run_batch_detached(&mut world, 1000, |i| {
                BatchItem::new(0.0, 1.0).target(array.at((frame % 5 * 1000 + i) as u32, 1, 0))
            })
            .unwrap();
        world.update(0.1).unwrap();
    }
    particle
        .run_batch_detached(&mut world, N, |i| {
            BatchItem::new(0.0, 1.0).target(array.at(i as u32, 1, 0))
        })
        .unwrap();
    world.update(0.1).unwrap();
    let burst = live() - start;
    world.update(1.0).unwrap();
    assert!(world.is_empty());
    world.update(0.1).unwrap();
    let ended = live() - start - array_bytes;
    assert!(
        ended <= fresh_bytes + MIB,
        "after a detached burst: {} KiB live besides the array, a fresh world {} KiB (peak {} MiB)",
        ended / 1024,
        fresh_bytes / 1024,
        burst / MIB
    );
}
