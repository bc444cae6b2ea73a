//! Creation under a profiler: `cargo run --release --example create_profile --
//! run|batch|floor|floor-columns|emitter|emitter-batch|emitter-floor [secs] [fresh]`.
//!
//! - `run`, `batch`: spawn 100k motions into a world of 100k live ones (the values bench's
//!   `spawn` workload), cancel them, and repeat, printing ns per created motion: the
//!   thread's CPU time (Linux `schedstat`, so that other processes on a loaded machine do not
//!   count), wall time, and page faults; then a cancel's CPU time (one at a time). `fresh`
//!   spawns each round into a new, reserved world instead (the first touch of the memory
//!   included, which the peer benchmark's creation spares itself by keeping freed memory).
//! - `floor` fills, in a hand-written loop, the columns a table of motions writes per motion
//!   (what any insert costs on this machine's memory); `floor-columns` writes them a column
//!   at a time.
//! - `emitter`, `emitter-batch`: a particle emitter's steady state, one at a time or in a
//!   batch: each frame spawns 10k motions that finish ten frames later, so each update
//!   completes and removes as many as were spawned. `emitter-floor`: the same particles
//!   hand-written, in a `Vec`.

use std::time::{Duration, Instant};

use wgpu_tween::{BatchItem, Ease, LoopType, Motion, MotionHandle, MotionWorld};
use wgpu_tween_bench::counters::{minor_faults, thread_cpu_ns};

const N: usize = 100_000;

fn motion(i: usize) -> Motion<f32> {
    Motion::new(0.0f32, i as f32, 2.0)
        .ease(Ease::OutQuad)
        .loops(-1, LoopType::Restart)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let batch = args.get(1).is_some_and(|a| a == "batch");
    let secs: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5.0);
    if let Some(mode @ ("floor" | "floor-columns")) = args.get(1).map(String::as_str) {
        return floor(secs, mode == "floor-columns");
    }
    match args.get(1).map(String::as_str) {
        Some(mode @ ("emitter" | "emitter-batch")) => {
            return emitter(secs, mode == "emitter-batch")
        }
        Some("emitter-floor") => return emitter_floor(secs),
        _ => {}
    }
    // `fresh`: each round into a new, reserved world, its memory touched for the first time.
    let fresh = args.get(3).is_some_and(|a| a == "fresh");
    let mut world = MotionWorld::new();
    world.set_cpu_threads(1);
    for i in 0..N {
        motion(i).run(&mut world).expect("valid");
    }
    world.update(1.0 / 60.0).expect("valid delta");
    let mut handles: Vec<MotionHandle> = Vec::with_capacity(N);
    let base = motion(0);
    let (mut timed, mut cpu, mut made, mut faults) = (Duration::ZERO, 0u64, 0usize, 0u64);
    let mut cancel = 0u64;
    let end = Instant::now() + Duration::from_secs_f64(secs);
    while Instant::now() < end {
        if fresh {
            world = MotionWorld::new();
            world.set_cpu_threads(1);
            world.reserve(N);
        }
        let (start, start_cpu, start_faults) = (Instant::now(), thread_cpu_ns(), minor_faults());
        if batch {
            base.run_batch(
                &mut world,
                N,
                |i| BatchItem::new(0.0, i as f32),
                &mut handles,
            )
            .expect("valid motions");
        } else {
            handles.extend((0..N).map(|i| motion(i).run(&mut world).expect("valid")));
        }
        timed += start.elapsed();
        cpu += thread_cpu_ns() - start_cpu;
        faults += minor_faults() - start_faults;
        made += N;
        if fresh {
            handles.clear();
            continue;
        }
        let start_cpu = thread_cpu_ns();
        for h in handles.drain(..) {
            world.cancel(h).expect("live motion");
        }
        cancel += thread_cpu_ns() - start_cpu;
    }
    println!(
        "{}: {:.1} ns CPU, {:.1} ns wall, {:.3} page faults per motion; cancel {:.1} ns CPU",
        if batch { "run_batch" } else { "run" },
        cpu as f64 / made as f64,
        timed.as_nanos() as f64 / made as f64,
        faults as f64 / made as f64,
        cancel as f64 / made as f64
    );
}

/// What a table keeps per motion, hand-written: a 32-byte row, six sections of lane pairs,
/// four outputs, the row's slot; per slot a 16-byte entry, 64 bytes of metadata and a
/// callback pointer; and the caller's handle.
#[derive(Default)]
struct Columns {
    rows: Vec<[u32; 8]>,
    lanes: [Vec<[f32; 2]>; 6],
    outputs: [Vec<f32>; 4],
    slot_of: Vec<u32>,
    slots: Vec<[u32; 4]>,
    meta: Vec<[u64; 8]>,
    callbacks: Vec<Option<Box<u64>>>,
    free: Vec<u32>,
}

impl Columns {
    fn push(&mut self, slot: u32, to: f32) {
        self.rows.push([0, 0, 0, 0, 0, u32::MAX, slot, 0]);
        for (k, column) in self.lanes.iter_mut().enumerate() {
            column.push(if k == 0 { [0.0, to] } else { [0.0; 2] });
        }
        for column in &mut self.outputs {
            column.push(0.0);
        }
        self.slot_of.push(slot);
    }

    /// Columns of `N` live motions and `2N` slots.
    fn with_live_motions() -> Self {
        let mut c = Columns::default();
        for i in 0..2 * N {
            c.slots.push([0; 4]);
            c.meta.push([0; 8]);
            c.callbacks.push(None);
            if i < N {
                c.push(i as u32, i as f32);
            }
        }
        c
    }

    /// Takes a free slot for motion number `seq` at `row`; returns it.
    fn occupy(&mut self, row: u32, seq: u64) -> u32 {
        let slot = self.free.pop().expect("a free slot");
        let entry = &mut self.slots[slot as usize];
        *entry = [row, entry[1] + 2, 0, 1];
        self.meta[slot as usize] = [seq, 0, 0, 0, 0, 0, 0, 0];
        self.callbacks[slot as usize] = None;
        slot
    }

    /// `N` motions, one after another.
    fn spawn_by_rows(&mut self, seq: &mut u64, handles: &mut Vec<MotionHandle>) {
        for i in 0..N {
            let to = std::hint::black_box(i as f32);
            assert!(to.is_finite());
            *seq += 1;
            let slot = self.occupy(self.rows.len() as u32, *seq);
            self.push(slot, to);
            handles.push(MotionHandle::default());
        }
    }

    /// `N` motions, blocks of 512 a column at a time.
    fn spawn_by_columns(&mut self, seq: &mut u64, handles: &mut Vec<MotionHandle>) {
        const BLOCK: usize = 512;
        let (mut tos, mut slots) = (Vec::with_capacity(BLOCK), Vec::with_capacity(BLOCK));
        for b in (0..N).step_by(BLOCK) {
            tos.clear();
            for i in b..(b + BLOCK).min(N) {
                let to = std::hint::black_box(i as f32);
                assert!(to.is_finite());
                tos.push(to);
            }
            slots.clear();
            let first = self.rows.len() as u32;
            for k in 0..tos.len() {
                *seq += 1;
                slots.push(self.occupy(first + k as u32, *seq));
            }
            self.rows
                .extend(slots.iter().map(|&s| [0, 0, 0, 0, 0, u32::MAX, s, 0]));
            self.lanes[0].extend(tos.iter().map(|&t| [0.0, t]));
            for l in &mut self.lanes[1..] {
                l.extend(std::iter::repeat_n([0.0; 2], tos.len()));
            }
            for o in &mut self.outputs {
                o.extend(std::iter::repeat_n(0.0, tos.len()));
            }
            self.slot_of.extend_from_slice(&slots);
            handles.extend(std::iter::repeat_n(MotionHandle::default(), tos.len()));
        }
    }

    /// Back to the `N` live motions.
    fn truncate(&mut self) {
        self.rows.truncate(N);
        self.lanes.iter_mut().for_each(|l| l.truncate(N));
        self.outputs.iter_mut().for_each(|o| o.truncate(N));
        self.slot_of.truncate(N);
    }
}

/// The floor: 100k motions into columns of 100k, their slots reused, as `main` does, one
/// after another or (`by_columns`) a column at a time.
fn floor(secs: f64, by_columns: bool) {
    let mut c = Columns::with_live_motions();
    let mut handles: Vec<MotionHandle> = Vec::with_capacity(N);
    let (mut timed, mut cpu, mut made, mut seq) = (Duration::ZERO, 0u64, 0usize, 0u64);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    while Instant::now() < end {
        c.free.extend((N as u32..2 * N as u32).rev());
        let (start, start_cpu) = (Instant::now(), thread_cpu_ns());
        if by_columns {
            c.spawn_by_columns(&mut seq, &mut handles);
        } else {
            c.spawn_by_rows(&mut seq, &mut handles);
        }
        timed += start.elapsed();
        cpu += thread_cpu_ns() - start_cpu;
        made += N;
        handles.clear();
        c.truncate();
    }
    println!(
        "{}: {:.1} ns CPU, {:.1} ns wall per motion",
        if by_columns { "floor-columns" } else { "floor" },
        cpu as f64 / made as f64,
        timed.as_nanos() as f64 / made as f64
    );
}

/// Motions an emitter spawns per frame, and how many frames each lives.
const EMITTED: usize = 10_000;
const LIFE_FRAMES: usize = 10;
/// The emitter's frame, and each particle's duration: it finishes in its tenth update.
const FRAME: f64 = 1.0 / 60.0;
const PARTICLE_DURATION: f64 = (LIFE_FRAMES as f64 - 0.5) * FRAME;

/// Runs `frame` for `secs` and returns the mean of each of its `K` CPU times (ns) per
/// spawned motion, leaving out the frames before the emitter's steady state (the first
/// particles still live).
fn emitter_frames<const K: usize>(secs: f64, mut frame: impl FnMut() -> [u64; K]) -> [f64; K] {
    let (mut total, mut frames) = ([0u64; K], 0usize);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    while Instant::now() < end {
        let times = frame();
        frames += 1;
        if frames > 2 * LIFE_FRAMES {
            for (t, ns) in total.iter_mut().zip(times) {
                *t += ns;
            }
        }
    }
    let spawned = (frames.saturating_sub(2 * LIFE_FRAMES) * EMITTED).max(1) as f64;
    total.map(|ns| ns as f64 / spawned)
}

/// A particle emitter's steady state: every frame spawns `EMITTED` motions that finish
/// `LIFE_FRAMES` frames later, so each update completes (and removes) as many as were
/// spawned. Prints the CPU time per spawned motion of the spawn, of the update, and of an
/// update of the same number of looping motions that never finish (the pass alone).
fn emitter(secs: f64, batch: bool) {
    let particle =
        |i: usize| Motion::new(0.0f32, i as f32, PARTICLE_DURATION as f32).ease(Ease::OutQuad);
    let mut steady = MotionWorld::new();
    steady.set_cpu_threads(1);
    for i in 0..EMITTED * LIFE_FRAMES {
        motion(i).run(&mut steady).expect("valid");
    }
    let mut world = MotionWorld::new();
    world.set_cpu_threads(1);
    let base = particle(0);
    let mut handles = Vec::with_capacity(EMITTED);
    let [spawn, update, pass] = emitter_frames(secs, || {
        let start = thread_cpu_ns();
        handles.clear();
        if batch {
            base.run_batch(
                &mut world,
                EMITTED,
                |i| BatchItem::new(0.0, i as f32),
                &mut handles,
            )
            .expect("valid motions");
        } else {
            handles.extend((0..EMITTED).map(|i| particle(i).run(&mut world).expect("valid")));
        }
        let spawned = thread_cpu_ns();
        world.update(FRAME).expect("valid delta");
        let updated = thread_cpu_ns();
        steady.update(FRAME).expect("valid delta");
        [
            spawned - start,
            updated - spawned,
            thread_cpu_ns() - updated,
        ]
    });
    println!(
        "{}: {} live; per spawned motion: spawn {spawn:.1} ns, update {update:.1} ns \
         (of looping motions that never finish: {pass:.1} ns)",
        if batch { "emitter-batch" } else { "emitter" },
        world.len(),
    );
}

/// A hand-written particle, for the emitter's floor.
struct Particle {
    to: f32,
    start: f64,
}

/// The emitter's floor: the same particles in a `Vec`, hand-written: each update evaluates
/// every particle (OutQuad from 0) and swap-removes those that finished.
fn emitter_floor(secs: f64) {
    let mut particles: Vec<Particle> = Vec::new();
    let (mut now, mut sum) = (0.0f64, 0.0f32);
    let [spawn, update] = emitter_frames(secs, || {
        let start = thread_cpu_ns();
        for i in 0..EMITTED {
            let to = std::hint::black_box(i as f32);
            particles.push(Particle { to, start: now });
        }
        let spawned = thread_cpu_ns();
        now += FRAME;
        let mut i = 0;
        while i < particles.len() {
            let p = &particles[i];
            let t = ((now - p.start) / PARTICLE_DURATION).min(1.0) as f32;
            sum += p.to * (1.0 - (1.0 - t) * (1.0 - t));
            if t >= 1.0 {
                particles.swap_remove(i);
            } else {
                i += 1;
            }
        }
        std::hint::black_box(sum);
        [spawned - start, thread_cpu_ns() - spawned]
    });
    println!(
        "emitter-floor: {} live; per spawned motion: spawn {spawn:.1} ns, update {update:.1} ns",
        particles.len(),
    );
}
