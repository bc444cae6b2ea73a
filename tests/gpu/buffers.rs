//! Buffer management of the GPU executor: growth by copy, the move-list of swap-removes,
//! shrinking with hysteresis, batched uploads, and the readback ring in both modes.
//!
//! On a real adapter (lavapipe in CI) every bound value is checked against the CPU's f64
//! evaluation of the motion. The same scenarios also run on wgpu's `noop` device, which needs
//! no driver: it executes copies but no compute passes, so there only the absence of errors
//! is checked (no GPU error, the world stays on the GPU executor).

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use wgpu_tween::gpu::{GpuContext, ReadbackMode};
use wgpu_tween::{Ease, LoopType, Motion, MotionHandle, MotionWorld};

/// A motion under test: its handle, the cell its bind writes (f32 bits) and its span.
struct Probe {
    handle: MotionHandle,
    cell: Arc<AtomicU32>,
    span: f32,
}

/// A GPU world and its probes.
struct Rig {
    world: MotionWorld,
    probes: Vec<Probe>,
    /// Whether values can be checked (false on the noop device).
    check_values: bool,
    spawned: usize,
}

impl Rig {
    fn new(ctx: GpuContext, check_values: bool) -> Self {
        let world = common::Exec::Gpu(Box::new(ctx)).world();
        Self {
            world,
            probes: Vec::new(),
            check_values,
            spawned: 0,
        }
    }

    /// Spawns `count` distinct motions; `short` ones complete after about a second.
    fn spawn(&mut self, count: usize, short: bool) {
        for _ in 0..count {
            let n = self.spawned;
            self.spawned += 1;
            let cell = Arc::new(AtomicU32::new(f32::NAN.to_bits()));
            let sink = Arc::clone(&cell);
            let (from, span) = (n as f32 * 0.5, 10.0 + (n % 13) as f32);
            let motion = Motion::new(from, from + span, 0.5 + (n % 5) as f32 * 0.2)
                .ease(Ease::ALL[n % Ease::ALL.len()]);
            let motion = if short {
                motion.loops(1, LoopType::Restart)
            } else {
                motion.loops(
                    -1,
                    [LoopType::Yoyo, LoopType::Flip, LoopType::Restart][n % 3],
                )
            };
            let handle = motion
                .bind(&mut self.world, move |v: f32| {
                    sink.store(v.to_bits(), Ordering::Relaxed)
                })
                .expect("motion");
            self.probes.push(Probe { handle, cell, span });
        }
    }

    fn update(&mut self, dt: f64, what: &str) {
        common::update_on_gpu(&mut self.world, dt, what);
        self.probes.retain(|p| self.world.is_active(p.handle));
    }

    /// Every live probe's bound value equals the CPU's evaluation now.
    fn check(&self, what: &str) {
        if !self.check_values {
            return;
        }
        for (i, p) in self.probes.iter().enumerate() {
            let got = f32::from_bits(p.cell.load(Ordering::Relaxed));
            let want = self.world.value::<f32>(p.handle).expect("live");
            assert!(
                (got - want).abs() <= 1e-4 * p.span + 4.0 * f32::EPSILON * want.abs(),
                "{what}: probe {i} of {}: GPU {got}, CPU {want}",
                self.probes.len()
            );
        }
    }

    fn capacity(&self) -> u32 {
        self.world.gpu().capacity()
    }
}

/// The test context: a real adapter (values checked) or the noop device.
fn contexts() -> Vec<(GpuContext, bool)> {
    let mut out = vec![(noop_context(), false)];
    if let Some(ctx) = common::gpu() {
        out.push((ctx, true));
    }
    out
}

fn noop_context() -> GpuContext {
    let (device, queue) = wgpu::Device::noop(&wgpu::DeviceDescriptor::default());
    let info = device.adapter_info();
    GpuContext::from_device(device, queue, info)
}

#[test]
fn growth_by_copy_keeps_old_rows() {
    for (ctx, real) in contexts() {
        let mut rig = Rig::new(ctx, real);
        let mut capacities = Vec::new();
        for (batch, total) in [
            (700, 700),
            (600, 1300),
            (1500, 2800),
            (2000, 4800),
            (4000, 8800),
        ] {
            rig.spawn(batch, false);
            assert_eq!(rig.probes.len(), total);
            rig.update(0.173, &format!("growth to {total}"));
            rig.check(&format!("after growth to {total}"));
            // Old rows stay right in the frames after growth too.
            rig.update(0.05, "after growth");
            rig.check(&format!("a frame after growth to {total}"));
            capacities.push(rig.capacity());
        }
        assert_eq!(
            capacities,
            [1024, 2048, 4096, 8192, 16384],
            "real adapter: {real}"
        );
    }
}

#[test]
fn swap_removes_keep_the_other_rows_right() {
    for (ctx, real) in contexts() {
        let mut rig = Rig::new(ctx, real);
        rig.spawn(5000, false);
        rig.update(0.3, "start");
        rig.check("start");
        // Cancel a block in the middle and every seventh motion: each cancellation moves
        // the last row into the hole (chains of moves within one frame).
        let handles: Vec<MotionHandle> = rig.probes.iter().map(|p| p.handle).collect();
        for (i, h) in handles.iter().enumerate() {
            if (1500..3500).contains(&i) || i % 7 == 3 {
                rig.world.cancel(*h).expect("cancel");
            }
        }
        rig.update(0.11, "after cancellations");
        rig.check("after cancellations");
        // Cancel from the front: rows 0.. are refilled from the end.
        let handles: Vec<MotionHandle> = rig.probes.iter().map(|p| p.handle).collect();
        for h in handles.iter().take(500) {
            rig.world.cancel(*h).expect("cancel");
        }
        for frame in 0..5 {
            rig.update(1.0 / 60.0, "frames after");
            rig.check(&format!("frame {frame} after front cancellations"));
        }
    }
}

#[test]
fn shrinking_happens_with_hysteresis_and_keeps_rows() {
    for (ctx, real) in contexts() {
        let mut rig = Rig::new(ctx, real);
        // 4 000 rows (capacity 4 096); cancel the first 3 000: rows 0..1 000 are refilled
        // from rows 3 000..4 000, past the 2 048 rows of the halved table, in the same frame
        // as the shrink.
        rig.spawn(4000, false);
        rig.update(0.2, "start");
        assert_eq!(rig.capacity(), 4096);
        let handles: Vec<MotionHandle> = rig.probes.iter().map(|p| p.handle).collect();
        for h in handles.iter().take(3000) {
            rig.world.cancel(*h).expect("cancel");
        }
        rig.update(0.1, "after mass cancellation");
        assert_eq!(rig.capacity(), 2048, "shrinks at a quarter full, to half");
        rig.check("after the shrink with moves past the new capacity");

        // Most motions finish at once: the table halves once per frame down to the size
        // that fits, then stays.
        rig.spawn(7000, true);
        rig.update(0.01, "8 000 motions");
        assert_eq!(rig.capacity(), 8192);
        let mut capacities = vec![rig.capacity()];
        for frame in 0..12 {
            rig.update(if frame == 0 { 5.0 } else { 1.0 / 60.0 }, "completions");
            rig.check(&format!("frame {frame} after completions"));
            capacities.push(rig.capacity());
        }
        assert_eq!(rig.probes.len(), 1000);
        capacities.dedup();
        assert_eq!(
            capacities,
            [8192, 4096, 2048],
            "one halving per frame, then stable"
        );

        // Load oscillating around a level never reallocates.
        let before = rig.capacity();
        for frame in 0..40 {
            if frame % 2 == 0 {
                rig.spawn(900, false);
            } else {
                let handles: Vec<MotionHandle> = rig
                    .probes
                    .iter()
                    .rev()
                    .take(900)
                    .map(|p| p.handle)
                    .collect();
                for h in handles {
                    rig.world.cancel(h).expect("cancel");
                }
            }
            rig.update(1.0 / 60.0, "oscillating");
            assert_eq!(
                rig.capacity(),
                before,
                "frame {frame}: oscillating load reallocated"
            );
        }
        rig.check("after oscillation");

        // An empty world gives its table back (down to the smallest).
        let handles: Vec<MotionHandle> = rig.probes.iter().map(|p| p.handle).collect();
        for h in handles {
            rig.world.cancel(h).expect("cancel");
        }
        assert!(rig.world.is_empty());
        assert!(
            rig.capacity() <= 1024,
            "empty world keeps {} rows",
            rig.capacity()
        );
        rig.spawn(10, false);
        rig.update(0.1, "after emptying");
        rig.check("after emptying");
    }
}

#[test]
fn one_frame_of_many_changes_uploads_them_all() {
    for (ctx, real) in contexts() {
        let mut rig = Rig::new(ctx, real);
        rig.spawn(3000, false);
        rig.update(0.25, "start");
        // In one frame: re-anchor a third (set_time and speed changes), cancel a sixth
        // (moving rows, some of them just re-anchored), spawn more, and re-anchor rows that
        // moved in this frame. One batched upload and one move list must bring all of it.
        let handles: Vec<MotionHandle> = rig.probes.iter().map(|p| p.handle).collect();
        for (i, h) in handles.iter().enumerate() {
            match i % 6 {
                0 => rig
                    .world
                    .set_time(*h, 0.1 + (i % 17) as f64 * 0.37)
                    .expect("set_time"),
                1 => rig
                    .world
                    .set_playback_speed(*h, -0.5 + (i % 5) as f32)
                    .expect("speed"),
                2 if i % 12 == 2 => rig.world.cancel(*h).expect("cancel"),
                _ => {}
            }
        }
        rig.spawn(800, false);
        for (i, h) in handles.iter().enumerate().rev().take(600) {
            if rig.world.is_active(*h) {
                rig.world
                    .set_time(*h, 2.0 + (i % 11) as f64 * 0.21)
                    .expect("set_time");
            }
        }
        rig.update(0.0, "after a frame of changes");
        rig.check("after a frame of changes (dt 0)");
        for frame in 0..3 {
            rig.update(0.0713, "later");
            rig.check(&format!("frame {frame} after the changes"));
        }
    }
}

#[test]
fn readback_ring_cycles_in_both_modes() {
    for (ctx, real) in contexts() {
        let mut rig = Rig::new(ctx.clone(), real);
        rig.spawn(1000, false);

        // Blocking (the default): this frame's values.
        assert_eq!(rig.world.gpu().readback_mode(), ReadbackMode::Blocking);
        for frame in 0..8 {
            rig.update(0.031, "blocking");
            rig.check(&format!("blocking frame {frame}"));
        }

        // Pipelined: the previous frame's values, once the GPU has finished that frame
        // (the test waits for the device between frames so that "one frame late" is exact;
        // without the wait it is one frame or more).
        rig.world
            .gpu_mut()
            .set_readback_mode(ReadbackMode::Pipelined);
        let mut previous: Option<Vec<f32>> = None;
        for frame in 0..12 {
            rig.update(0.029, "pipelined");
            if let (true, Some(previous)) = (real, &previous) {
                for (i, (p, want)) in rig.probes.iter().zip(previous).enumerate() {
                    let got = f32::from_bits(p.cell.load(Ordering::Relaxed));
                    assert!(
                        (got - want).abs() <= 1e-4 * p.span + 4.0 * f32::EPSILON * want.abs(),
                        "pipelined frame {frame}: probe {i}: got {got}, the previous frame's value is {want}"
                    );
                }
            }
            previous = Some(
                rig.probes
                    .iter()
                    .map(|p| rig.world.value::<f32>(p.handle).expect("live"))
                    .collect(),
            );
            let _ = ctx.device().poll(wgpu::PollType::wait_indefinitely());
        }

        // Without waiting: never an error, values at most a few frames old.
        for _ in 0..20 {
            rig.update(1.0 / 60.0, "pipelined, no wait");
        }
        // Growing the readback set resizes the ring while entries may be in flight.
        rig.spawn(3000, false);
        for _ in 0..5 {
            rig.update(1.0 / 60.0, "pipelined, grown");
        }

        // And back to blocking: exact again at once.
        rig.world
            .gpu_mut()
            .set_readback_mode(ReadbackMode::Blocking);
        for frame in 0..4 {
            rig.update(0.02, "blocking again");
            rig.check(&format!("blocking again, frame {frame}"));
        }
    }
}

#[test]
fn a_world_without_binds_reads_nothing_back_and_stays_right() {
    // Motions without binds (values only on the GPU), mixed with a few bound ones.
    for (ctx, real) in contexts() {
        let mut rig = Rig::new(ctx, real);
        for i in 0..2000 {
            Motion::new(0.0f32, i as f32, 1.0)
                .loops(-1, LoopType::Yoyo)
                .run(&mut rig.world)
                .expect("motion");
        }
        rig.update(0.5, "unbound only");
        rig.spawn(10, false);
        for frame in 0..5 {
            rig.update(0.0937, "mixed");
            rig.check(&format!("mixed frame {frame}"));
        }
    }
}
