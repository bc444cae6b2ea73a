//! Bound updates under a profiler: `cargo run --release --example bind_profile --
//! MODE [secs] [n]` builds a world of `n` (100k) motions and updates it for `secs` (5),
//! printing ns per motion per update (the thread's CPU time, Linux `schedstat`).
//!
//! The peer benchmark's looping f32 motions: `none` has no binds, `bind` a bind on every
//! motion, `sparse` a bind on every 16th (made among the others), `delayed` a bind on every
//! motion with delays staggered over 1000 s (the run waits in them: values skipped),
//! `indexed` one bind shared by the batch, `host` a host target on every motion (one array). `mixed` and
//! `mixed-bound`: the benchmark binary's mixed world, without and with its binds (one in
//! 16). `boxed` and `typed` are floors, hand-written: a loop that hands `n` values to a
//! boxed closure each, or to closures of one type stored side by side. `columns` and
//! `columns-bound` are the mixed world's floor, hand-written: its value types' lanes lerped
//! into output columns laid out by shape (as the table's runs), then, for `columns-bound`,
//! every 16th motion's value read from its row and handed to a boxed closure, in creation
//! order.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wgpu_tween::{BatchItem, Ease, LoopType, Motion, MotionHandle, MotionWorld};
use wgpu_tween_bench::counters::thread_cpu_ns;
use wgpu_tween_bench::peers::{phase, target};

fn motion(i: usize) -> Motion<f32> {
    Motion::new(0.0f32, target(i), 2.0)
        .ease(Ease::OutQuad)
        .loops(-1, LoopType::Restart)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map_or("bind", String::as_str);
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let n: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let slots: Arc<[AtomicU32]> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let mut step: Box<dyn FnMut()> = match mode {
        "boxed" | "typed" => floor(mode, &slots),
        "columns" | "columns-bound" => columns(n, mode == "columns-bound"),
        _ => world(mode, n, &slots),
    };
    let (mut cpu, mut frames) = (0u64, 0usize);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    while Instant::now() < end {
        let start = thread_cpu_ns();
        step();
        cpu += thread_cpu_ns() - start;
        frames += 1;
    }
    let sum: u64 = slots
        .iter()
        .map(|s| u64::from(s.load(Ordering::Relaxed) & 1))
        .sum();
    println!(
        "{mode}: {:.2} ns CPU per motion per update ({frames} updates of {n}; {sum})",
        cpu as f64 / (frames * n) as f64
    );
}

/// Motion `i` with a bind that stores its value in slot `i`, made by `motion`.
fn bound(
    world: &mut MotionWorld,
    i: usize,
    slots: &Arc<[AtomicU32]>,
    motion: Motion<f32>,
) -> MotionHandle {
    let slots = Arc::clone(slots);
    motion
        .bind(world, move |v| {
            slots[i].store(v.to_bits(), Ordering::Relaxed)
        })
        .expect("valid")
}

fn world(mode: &str, n: usize, slots: &Arc<[AtomicU32]>) -> Box<dyn FnMut()> {
    let mut world = MotionWorld::new();
    world.set_cpu_threads(1);
    let mut handles = Vec::with_capacity(n);
    match mode {
        "none" => handles.extend((0..n).map(|i| motion(i).run(&mut world).expect("valid"))),
        "bind" => handles.extend((0..n).map(|i| bound(&mut world, i, slots, motion(i)))),
        "delayed" => handles.extend((0..n).map(|i| {
            let delay = 1000.0 * i as f32 / n as f32;
            bound(&mut world, i, slots, motion(i).delay(delay))
        })),
        // The benchmark binary's mixed world, without and with its binds (one in 16).
        "mixed" | "mixed-bound" => {
            wgpu_tween_bench::workload::populate(&mut world, n, mode == "mixed-bound")
                .expect("valid");
        }
        // A bind on every 16th motion, created among the others (the benchmark binary's
        // readback column): binds that make no run.
        "sparse" => handles.extend((0..n).map(|i| {
            if i % 16 == 0 {
                bound(&mut world, i, slots, motion(i))
            } else {
                motion(i).run(&mut world).expect("valid")
            }
        })),
        "indexed" => {
            let slots = Arc::clone(slots);
            motion(0)
                .bind_batch_indexed(
                    &mut world,
                    n,
                    |i| BatchItem::new(0.0, target(i)),
                    move |i, v| slots[i].store(v.to_bits(), Ordering::Relaxed),
                    &mut handles,
                )
                .expect("valid");
        }
        "host" => {
            let array = world.add_host_target(n).expect("host array");
            handles.extend((0..n).map(|i| {
                let index = u32::try_from(i).expect("fewer than 2^32 motions");
                motion(i)
                    .target(array.at(index, 1, 0))
                    .run(&mut world)
                    .expect("valid")
            }));
        }
        other => panic!("unknown mode {other}"),
    }
    for (i, &h) in handles.iter().enumerate() {
        world.set_time(h, f64::from(phase(i))).expect("live");
    }
    Box::new(move || world.update(1.0 / 60.0).expect("valid delta"))
}

/// A value per motion handed to a closure per motion: boxed, or of one type side by side.
fn floor(mode: &str, slots: &Arc<[AtomicU32]>) -> Box<dyn FnMut()> {
    let make = |i: usize| {
        let slots = Arc::clone(slots);
        move |v: f32| slots[i].store(v.to_bits(), Ordering::Relaxed)
    };
    let values: Vec<f32> = (0..slots.len()).map(|i| i as f32).collect();
    if mode == "boxed" {
        let mut binds: Vec<Box<dyn FnMut(f32) + Send>> = (0..slots.len())
            .map(|i| Box::new(make(i)) as Box<dyn FnMut(f32) + Send>)
            .collect();
        return Box::new(move || {
            for (bind, &v) in binds.iter_mut().zip(&values) {
                bind(std::hint::black_box(v));
            }
        });
    }
    let mut binds: Vec<Option<_>> = (0..slots.len()).map(|i| Some(make(i))).collect();
    Box::new(move || {
        for (bind, &v) in binds.iter_mut().zip(&values) {
            if let Some(bind) = bind {
                bind(std::hint::black_box(v));
            }
        }
    })
}

/// A bind of the hand-written floor: its own closure, boxed.
type BoxedBind = Box<dyn FnMut([f32; 4]) + Send>;

/// The mixed world's floor: motion `i` of the mix (`workload::add_nth`: two in five f32, then a
/// Vec3, a Quat and a Color) lerped a lane at a time into output columns, its row in the
/// run of its shape (creation order within it); with `bound`, every 16th motion (creation
/// order) gets its row's lanes in a boxed closure of its own after the pass.
fn columns(n: usize, bound: bool) -> Box<dyn FnMut()> {
    // The lanes of each shape (f32, Vec3, Quat, Color), and each motion's shape.
    const SHAPE_LANES: [u8; 4] = [1, 3, 4, 4];
    let shape_of = |i: usize| [0, 0, 1, 2, 3][i % 5];
    let mut run_len = [0usize; 4];
    for i in 0..n {
        run_len[shape_of(i)] += 1;
    }
    let run_start: Vec<usize> = run_len
        .iter()
        .scan(0, |at, &len| {
            let start = *at;
            *at += len;
            Some(start)
        })
        .collect();
    let mut next = run_start.clone();
    let mut visits: Vec<(usize, u8, BoxedBind)> = Vec::new();
    let sink = Arc::new(AtomicU32::new(0));
    for i in 0..n {
        let row = next[shape_of(i)];
        next[shape_of(i)] += 1;
        if bound && i % 16 == 0 {
            let sink = Arc::clone(&sink);
            let bind = move |v: [f32; 4]| sink.store(v[0].to_bits(), Ordering::Relaxed);
            visits.push((row, SHAPE_LANES[shape_of(i)], Box::new(bind)));
        }
    }
    let from: [Vec<f32>; 4] = std::array::from_fn(|k| (0..n).map(|r| (r + k) as f32).collect());
    let to: [Vec<f32>; 4] = std::array::from_fn(|k| (0..n).map(|r| (r * 2 + k) as f32).collect());
    let mut out: [Vec<f32>; 4] = std::array::from_fn(|_| vec![0.0; n]);
    let mut t = 0.0f32;
    Box::new(move || {
        t = (t + 1.0 / 120.0).fract();
        // A run at a time, a lane at a time (as the pass goes).
        for (shape, &lanes) in SHAPE_LANES.iter().enumerate() {
            let rows = run_start[shape]..run_start[shape] + run_len[shape];
            for k in 0..usize::from(lanes) {
                let (a, b) = (&from[k][rows.clone()], &to[k][rows.clone()]);
                for ((o, &a), &b) in out[k][rows.clone()].iter_mut().zip(a).zip(b) {
                    *o = a + (b - a) * t;
                }
            }
        }
        for (row, l, bind) in &mut visits {
            let mut v = [0.0; 4];
            for (k, v) in v.iter_mut().enumerate().take(usize::from(*l)) {
                *v = out[k][*row];
            }
            bind(std::hint::black_box(v));
        }
    })
}
