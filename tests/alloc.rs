//! Zero heap allocations per update in steady state (docs/design.md invariant 4).
//!
//! A counting global allocator counts every allocation on any thread (the CPU executor's
//! helper threads included) while a flag is on. The file holds a single `#[test]` so that no
//! other test thread of this binary allocates while the flag is on.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use wgpu_tween::{Ease, LoopType, Motion, MotionWorld, Sequence};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static BYTES: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    fn note(size: usize) {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
            BYTES.fetch_add(size, Ordering::Relaxed);
        }
    }
}

// SAFETY: forwards every call to `System` unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Preallocated outputs the binds write into (f32 bits), and callback counters.
struct Sinks {
    values: Vec<AtomicU32>,
    loops: AtomicU64,
    completes: AtomicU64,
    /// Binds of sequence children.
    sequenced: AtomicU64,
}

/// Builds `n` motions of four kinds:
/// 0: infinite Restart loops with a bind and a loop callback (an event every loop);
/// 1: infinite Yoyo loops with a bind only (no events, visited for the bind);
/// 2: a motion that never ends within the test (duration 10⁶ s) with bind and on_complete;
/// 3: no bind, infinite loops with a loop callback (visited only through events), written
///    into a host target.
fn populate(world: &mut MotionWorld, n: usize) -> Arc<Sinks> {
    let sinks = Arc::new(Sinks {
        values: (0..n).map(|_| AtomicU32::new(0)).collect(),
        loops: AtomicU64::new(0),
        completes: AtomicU64::new(0),
        sequenced: AtomicU64::new(0),
    });
    world.reserve(n);
    let host = world.add_host_target(n).unwrap();
    for i in 0..n {
        let duration = 0.25 + (i % 7) as f32 * 0.1; // ≤ 0.85 s
        let bind = {
            let sinks = Arc::clone(&sinks);
            move |v: f32| sinks.values[i].store(v.to_bits(), Ordering::Relaxed)
        };
        let on_loop = {
            let sinks = Arc::clone(&sinks);
            move |_k: u32| {
                sinks.loops.fetch_add(1, Ordering::Relaxed);
            }
        };
        match i % 4 {
            0 => Motion::new(0.0f32, 1.0 + i as f32, duration)
                .ease(Ease::InOutQuad)
                .loops(-1, LoopType::Restart)
                .on_loop_complete(on_loop)
                .bind(world, bind),
            1 => Motion::new(-1.0f32, 1.0, duration)
                .loops(-1, LoopType::Yoyo)
                .bind(world, bind),
            2 => {
                let sinks = Arc::clone(&sinks);
                Motion::new(0.0f32, 1.0, 1.0e6)
                    .on_complete(move || {
                        sinks.completes.fetch_add(1, Ordering::Relaxed);
                    })
                    .bind(world, bind)
            }
            _ => Motion::new(0.0f32, 1.0, duration)
                .loops(-1, LoopType::Flip)
                .on_loop_complete(on_loop)
                .target(host.at(i as u32, 1, 0))
                .run(world),
        }
        .expect("valid motion");
    }
    // Plus one looping sequence of two bound children per 100 motions (driven every update).
    for _ in 0..n / 100 {
        let mut child = |from: f32| {
            let sinks = Arc::clone(&sinks);
            Motion::new(from, from + 1.0, 0.3)
                .bind(world, move |_: f32| {
                    sinks.sequenced.fetch_add(1, Ordering::Relaxed);
                })
                .expect("valid motion")
        };
        let (a, b) = (child(0.0), child(1.0));
        Sequence::new()
            .append(a)
            .append(b)
            .run_with(world, |m| m.loops(-1, LoopType::Yoyo))
            .expect("valid sequence");
    }
    sinks
}

/// Warms up (including an update in which every looping motion crosses a boundary, so every
/// per-update buffer reaches its largest size), then counts allocations over `updates`.
fn measure(world: &mut MotionWorld, sinks: &Sinks, updates: usize) -> (usize, usize) {
    for _ in 0..5 {
        world.update(1.0 / 60.0).unwrap();
    }
    world.update(1.0).unwrap(); // every loop duration is < 1 s: all loop events at once
    world.update(1.0).unwrap();
    for _ in 0..10 {
        world.update(1.0 / 60.0).unwrap();
    }
    let loops_before = sinks.loops.load(Ordering::Relaxed);
    let sequenced_before = sinks.sequenced.load(Ordering::Relaxed);
    let probe = sinks.values[1].load(Ordering::Relaxed);

    ALLOCATIONS.store(0, Ordering::SeqCst);
    BYTES.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    for _ in 0..updates {
        if world.update(1.0 / 60.0).is_err() {
            break; // reported below, outside the counted region
        }
    }
    COUNTING.store(false, Ordering::SeqCst);
    let counted = (
        ALLOCATIONS.load(Ordering::SeqCst),
        BYTES.load(Ordering::SeqCst),
    );

    // The updates did real work: loop callbacks fired, binds wrote new values.
    assert!(
        sinks.loops.load(Ordering::Relaxed) > loops_before,
        "no loop callback fired during the measured updates"
    );
    assert_ne!(
        sinks.values[1].load(Ordering::Relaxed),
        probe,
        "binds did not run"
    );
    assert!(sinks.sequenced.load(Ordering::Relaxed) > sequenced_before);
    assert_eq!(sinks.completes.load(Ordering::Relaxed), 0);
    counted
}

/// The instrument works: an allocation on this thread and one on another thread count.
fn check_counter() {
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    drop(std::hint::black_box(Vec::<u64>::with_capacity(4)));
    COUNTING.store(false, Ordering::SeqCst);
    assert_eq!(ALLOCATIONS.load(Ordering::SeqCst), 1);
    let go = Arc::new(AtomicBool::new(false));
    let helper = {
        let go = Arc::clone(&go);
        std::thread::spawn(move || {
            while !go.load(Ordering::SeqCst) {
                std::hint::spin_loop();
            }
            drop(std::hint::black_box(Box::new(7u64)));
        })
    };
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    go.store(true, Ordering::SeqCst);
    while !helper.is_finished() {
        std::hint::spin_loop();
    }
    COUNTING.store(false, Ordering::SeqCst);
    helper.join().unwrap();
    assert!(
        ALLOCATIONS.load(Ordering::SeqCst) >= 1,
        "another thread's allocation counts"
    );
}

#[test]
fn steady_state_updates_do_not_allocate() {
    check_counter();
    // 10k motions, 1,000 updates (single-threaded evaluation: below one part's size).
    {
        let n = 10_000;
        let mut world = MotionWorld::new();
        let sinks = populate(&mut world, n);
        let (allocations, bytes) = measure(&mut world, &sinks, 1_000);
        assert_eq!(world.len(), n + 3 * (n / 100));
        assert_eq!(
            allocations, 0,
            "{allocations} allocations ({bytes} bytes) in 1,000 updates of {n} motions"
        );
    }
    // 200k motions, 100 updates: the executor splits the rows across threads (at least two,
    // even on a one-core machine), and the helper threads' allocations count too.
    {
        let n = 200_000;
        let mut world = MotionWorld::new();
        let threads = world.cpu_threads().max(2);
        world.set_cpu_threads(threads);
        assert_eq!(world.cpu_threads(), threads);
        let sinks = populate(&mut world, n);
        let (allocations, bytes) = measure(&mut world, &sinks, 100);
        assert_eq!(world.len(), n + 3 * (n / 100));
        assert_eq!(
            allocations, 0,
            "{allocations} allocations ({bytes} bytes) in 100 updates of {n} motions \
             on {threads} threads"
        );
    }
}
