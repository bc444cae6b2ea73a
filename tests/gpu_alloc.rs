//! Which code allocates in a steady-state GPU update: none of wgpu-tween's own.
//!
//! wgpu 30 allocates for every command encoder, pass and submission (a bare dispatch
//! submission makes about fifty heap allocations; `benches/gpu.rs` prints both counts), so a
//! steady GPU update cannot be free of allocations as a CPU one is (`tests/alloc.rs`). What
//! this crate controls is that none of them is its own: a recording global allocator takes a
//! backtrace of every allocation in the measured updates and attributes it to the innermost
//! frame that is either wgpu's (the `wgpu`, `wgpu-core`, `wgpu-hal`, `wgpu-types` crates) or
//! this crate's `src/` (frames of the standard library and of other dependencies, such as
//! hash maps inside wgpu or `pollster` called from here, are walked through). Any allocation
//! attributed to this crate, or to nothing, fails the test with its backtrace.
//!
//! Runs on wgpu's `noop` device (always) and on a real adapter when there is one (each row
//! storage, CPU binds with blocking and pipelined readback, GPU targets). Needs the line
//! tables of the release profile (`debug = "line-tables-only"`) to name inlined frames.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use wgpu_tween::gpu::{GpuContext, ReadbackMode};
use wgpu_tween::{Color, Ease, Executor, LoopType, Motion, MotionWorld};

mod common;

static RECORDING: AtomicBool = AtomicBool::new(false);
static TRACES: Mutex<Vec<String>> = Mutex::new(Vec::new());

thread_local! {
    /// Set while this thread records a backtrace (which allocates itself).
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

struct Recording;

impl Recording {
    fn note() {
        if !RECORDING.load(Ordering::Relaxed) || INSIDE.with(|inside| inside.replace(true)) {
            return;
        }
        let trace = std::backtrace::Backtrace::force_capture().to_string();
        if let Ok(mut traces) = TRACES.lock() {
            traces.push(trace);
        }
        INSIDE.with(|inside| inside.set(false));
    }
}

// SAFETY: forwards to the system allocator; recording only reads and writes statics.
unsafe impl GlobalAlloc for Recording {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::note();
        // SAFETY: as the caller's contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::note();
        // SAFETY: as the caller's contract.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::note();
        // SAFETY: as the caller's contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as the caller's contract.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Recording = Recording;

/// Whose code made an allocation.
#[derive(Debug, PartialEq, Eq)]
enum Owner {
    Wgpu,
    ThisCrate,
    Unknown,
}

/// One frame of a printed backtrace: its symbol and, where known, its source file.
struct Frame<'a> {
    symbol: &'a str,
    file: Option<&'a str>,
}

/// The frames of a `std::backtrace::Backtrace` as printed (`N: symbol`, then optionally
/// `at file:line:column`), innermost first.
fn frames(trace: &str) -> Vec<Frame<'_>> {
    let mut frames: Vec<Frame<'_>> = Vec::new();
    for line in trace.lines().map(str::trim) {
        if let Some(at) = line.strip_prefix("at ") {
            if let Some(last) = frames.last_mut() {
                last.file = Some(at);
            }
        } else if let Some((index, symbol)) = line.split_once(": ") {
            if index.chars().all(|c| c.is_ascii_digit()) {
                frames.push(Frame { symbol, file: None });
            }
        }
    }
    frames
}

/// Whether a source path lies in one of wgpu's crates (`…/wgpu-core-30.0.1/src/…`).
fn in_wgpu_crate(file: &str) -> bool {
    file.split('/').any(|dir| {
        ["wgpu-", "wgpu_"].iter().any(|prefix| {
            dir.strip_prefix(prefix).is_some_and(|rest| {
                // `wgpu-30.0.1` or `wgpu-core-30.0.1` (not this crate's own directory).
                rest.starts_with(|c: char| c.is_ascii_digit())
                    || ["core-", "hal-", "types-"].iter().any(|name| {
                        rest.strip_prefix(name)
                            .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
                    })
            })
        })
    })
}

/// Whether a source path lies in this crate's `src/` (backtraces print the paths under the
/// working directory, the manifest's for tests, as `./…`).
fn in_this_crate(file: &str) -> bool {
    let relative = file
        .strip_prefix(concat!(env!("CARGO_MANIFEST_DIR"), "/"))
        .or_else(|| file.strip_prefix("./"));
    relative.is_some_and(|path| path.starts_with("src/"))
}

/// The owner of the allocation whose backtrace is `trace` (see the module docs).
fn owner(trace: &str) -> Owner {
    for frame in frames(trace) {
        match frame.file {
            Some(file) if in_this_crate(file) => return Owner::ThisCrate,
            Some(file) if in_wgpu_crate(file) => return Owner::Wgpu,
            Some(_) => {}
            // Without a file (no line tables for it): by the symbol's path.
            None => {
                let symbol = frame.symbol.trim_start_matches('<');
                if symbol.starts_with("wgpu_tween::") {
                    return Owner::ThisCrate;
                }
                if ["wgpu::", "wgpu_core::", "wgpu_hal::", "wgpu_types::"]
                    .iter()
                    .any(|p| symbol.starts_with(p))
                {
                    return Owner::Wgpu;
                }
            }
        }
    }
    Owner::Unknown
}

/// Records the allocations of `updates` updates of `world` (after a warm-up that reaches the
/// steady state) and fails on any that is not wgpu's; returns how many wgpu made.
fn check(name: &str, ctx: &GpuContext, world: &mut MotionWorld, updates: usize) -> usize {
    let wait = || {
        let _ = ctx.device().poll(wgpu::PollType::wait_indefinitely());
    };
    for _ in 0..8 {
        common::update_on_gpu(world, 1.0 / 60.0, name);
        wait();
    }
    if let Ok(mut traces) = TRACES.lock() {
        traces.clear();
        traces.reserve(4096);
    }
    for _ in 0..updates {
        RECORDING.store(true, Ordering::SeqCst);
        let result = world.update(1.0 / 60.0);
        RECORDING.store(false, Ordering::SeqCst);
        result.expect("update");
        // (The wait for the device is not part of the update.)
        wait();
    }
    assert_eq!(world.take_gpu_error(), None, "{name}: GPU error");
    assert_eq!(
        world.active_executor(),
        Executor::Gpu,
        "{name}: left the GPU"
    );
    let traces = std::mem::take(&mut *TRACES.lock().expect("traces"));
    let mut wgpu = 0;
    for trace in &traces {
        match owner(trace) {
            Owner::Wgpu => wgpu += 1,
            owner => panic!("{name}: an allocation by {owner:?} in a steady update:\n{trace}"),
        }
    }
    println!("{name}: {wgpu} allocations by wgpu in {updates} updates, none by wgpu-tween");
    wgpu
}

/// A GPU world with `n` looping motions of several types; `binds` of them bound on the CPU,
/// and (with `target`) one written into a storage buffer and the unbound ones into a host
/// target (filled from the readback).
fn world(ctx: &GpuContext, n: usize, binds: usize, target: bool) -> MotionWorld {
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    world.set_executor(Executor::Gpu).expect("GPU executor");
    let sink = Arc::new(AtomicU32::new(0));
    let host = world.add_host_target(n).unwrap();
    for i in 0..n {
        let motion = Motion::new(0.0f32, 1.0, 0.5 + (i % 7) as f32 * 0.1)
            .ease(Ease::OutQuad)
            .loops(-1, LoopType::Yoyo);
        if i < binds {
            let sink = Arc::clone(&sink);
            motion
                .bind(&mut world, move |v: f32| {
                    sink.store(v.to_bits(), Ordering::Relaxed)
                })
                .expect("valid motion");
        } else if target {
            motion
                .target(host.at(i as u32, 1, 0))
                .run(&mut world)
                .expect("valid motion");
        } else {
            motion.run(&mut world).expect("valid motion");
        }
    }
    Motion::new(Color::BLACK, Color::WHITE, 0.7)
        .loops(-1, LoopType::Restart)
        .run(&mut world)
        .expect("valid motion");
    if target {
        let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
            label: Some("instances"),
            size: 64 * 4,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let target = world.add_gpu_target(&buffer).expect("storage buffer");
        Motion::new(0.0f32, 1.0, 0.4)
            .loops(-1, LoopType::Flip)
            .bind_to_buffer(&mut world, target.at(3, 4, 1))
            .expect("target in bounds");
    }
    world
}

/// The attribution itself, on made-up backtraces.
fn check_attribution() {
    let ours = concat!(env!("CARGO_MANIFEST_DIR"), "/src/gpu/executor.rs:12:5");
    let theirs = "/root/.cargo/registry/src/index.crates.io-0/wgpu-core-30.0.1/src/x.rs:1:1";
    let hashbrown = "/root/.cargo/registry/src/index.crates.io-0/hashbrown-0.15.0/src/x.rs:1:1";
    let std = "/rustc/0/library/alloc/src/alloc.rs:1:1";
    let trace = |files: &[&str]| {
        files
            .iter()
            .enumerate()
            .map(|(i, f)| format!("  {i}: f\n             at {f}\n"))
            .collect::<String>()
    };
    assert_eq!(owner(&trace(&[std, hashbrown, theirs, ours])), Owner::Wgpu);
    assert_eq!(
        owner(&trace(&[std, hashbrown, ours, theirs])),
        Owner::ThisCrate
    );
    let relative = "./src/gpu/context.rs:1:1";
    assert_eq!(owner(&trace(&[std, relative, theirs])), Owner::ThisCrate);
    assert_eq!(
        owner(&trace(&[std, "./tests/gpu_alloc.rs:1:1"])),
        Owner::Unknown
    );
    assert_eq!(owner(&trace(&[std, hashbrown])), Owner::Unknown);
    assert_eq!(
        owner("  0: wgpu_hal::vulkan::x\n  1: wgpu_tween::y\n"),
        Owner::Wgpu
    );
    assert_eq!(owner("  0: <wgpu_tween::x as y>::z\n"), Owner::ThisCrate);
}

#[test]
fn steady_gpu_updates_allocate_only_inside_wgpu() {
    // One test for everything: the allocator records every thread, so nothing else of this
    // binary may run during a measured update.
    check_attribution();
    let (device, queue) = wgpu::Device::noop(&wgpu::DeviceDescriptor::default());
    let info = device.adapter_info();
    let noop = GpuContext::from_device(device, queue, info);
    check("noop", &noop, &mut world(&noop, 200, 0, false), 3);
    check(
        "noop, binds, target",
        &noop,
        &mut world(&noop, 200, 20, true),
        3,
    );

    let Some(ctx) = common::gpu() else { return };
    check("gpu", &ctx, &mut world(&ctx, 5000, 0, false), 3);
    let mut bound = world(&ctx, 5000, 300, true);
    check("gpu, binds, target", &ctx, &mut bound, 3);
    bound.gpu_mut().set_readback_mode(ReadbackMode::Pipelined);
    check("gpu, pipelined", &ctx, &mut bound, 3);
}
