//! GPU targets: motion values written straight into user storage buffers at
//! `index · stride + offset` (f32 units). Checked by reading the buffers back and comparing
//! with the CPU's f64 evaluation of every motion, on both executors (the CPU executor with a
//! context attached fills targets by upload), through swap-removes, spawns, `set_time`,
//! completion, a folded scatter dispatch, and build errors. Buffers are registered once
//! (`add_gpu_target`); motions name them by id.

use crate::common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use glam::{Vec2, Vec3, Vec4};
use wgpu_tween::error::TargetError;
use wgpu_tween::gpu::{GpuContext, GpuError};
use wgpu_tween::{
    Animatable, BuildError, Ease, Executor, LoopType, Motion, MotionHandle, MotionWorld, Target,
    TargetId,
};

/// What unwritten f32s hold.
const SENTINEL: f32 = -7777.0;

pub(crate) fn storage_buffer(ctx: &GpuContext, floats: usize) -> wgpu::Buffer {
    let buffer = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("user instances"),
        size: floats as u64 * 4,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue()
        .write_buffer(&buffer, 0, bytemuck::cast_slice(&vec![SENTINEL; floats]));
    buffer
}

/// A targeted motion: its handle, lanes, where it writes, and its span (for tolerances).
#[derive(Clone, Copy)]
struct Placed {
    handle: MotionHandle,
    lanes: usize,
    buffer: usize,
    first: usize,
    span: f32,
    /// The value it completes with (finite loops), written in its completion frame.
    end: Option<[f32; 4]>,
}

struct Rig {
    ctx: GpuContext,
    world: MotionWorld,
    buffers: Vec<wgpu::Buffer>,
    /// The buffers as registered targets.
    ids: Vec<TargetId>,
    /// Live targeted motions.
    placed: Vec<Placed>,
    /// What every written f32 must hold: (buffer, index) → value.
    expected: HashMap<(usize, usize), (f32, f32)>,
    /// Who wrote each f32 last (for failure messages).
    writers: HashMap<(usize, usize), MotionHandle>,
    spawned: u32,
}

impl Rig {
    fn new(ctx: &GpuContext, executor: Executor) -> Self {
        let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
        world.set_executor(executor).expect("executor");
        // Buffer 0: instances of 8 f32s (vec3 position at 0, f32 scale at 3, vec4 color at 4);
        // buffer 1: packed vec2s (stride 2); buffer 2: stride 5 with odd offsets.
        let buffers = vec![
            storage_buffer(ctx, 8 * 700),
            storage_buffer(ctx, 2 * 900),
            storage_buffer(ctx, 5 * 400 + 3),
        ];
        let ids = buffers
            .iter()
            .map(|b| world.add_gpu_target(b).expect("storage buffer"))
            .collect();
        Self {
            ctx: ctx.clone(),
            world,
            buffers,
            ids,
            placed: Vec::new(),
            expected: HashMap::new(),
            writers: HashMap::new(),
            spawned: 0,
        }
    }

    fn target(&self, buffer: usize, index: u32, stride: u32, offset: u32) -> Target {
        self.ids[buffer].at(index, stride, offset)
    }

    fn spawn_one<T: Animatable>(&mut self, from: T, to: T, target: (usize, u32, u32, u32)) {
        let n = self.spawned;
        self.spawned += 1;
        let (buffer, index, stride, offset) = target;
        let span = (0..T::LANES)
            .map(|k| (to.to_lanes()[k] - from.to_lanes()[k]).abs())
            .fold(1.0f32, f32::max);
        let loop_type = [LoopType::Yoyo, LoopType::Restart, LoopType::Flip][n as usize % 3];
        let finite = n.is_multiple_of(5);
        // Two loops end on `to` for Restart, back on `from` for Yoyo and Flip.
        let end = finite.then(|| {
            if loop_type == LoopType::Restart {
                to.to_lanes()
            } else {
                from.to_lanes()
            }
        });
        let target = self.target(buffer, index, stride, offset);
        let handle = Motion::new(from, to, 0.4 + (n % 9) as f32 * 0.15)
            .ease(Ease::ALL[n as usize % Ease::ALL.len()])
            .loops(if finite { 2 } else { -1 }, loop_type)
            .bind_to_buffer(&mut self.world, target)
            .expect("targeted motion");
        self.placed.push(Placed {
            handle,
            lanes: T::LANES,
            buffer,
            first: (index * stride + offset) as usize,
            span,
            end,
        });
    }

    /// Spawns motions into every buffer, at element indices in a scrambled order (distinct
    /// per field for up to 700 motions of one call).
    fn spawn_all(&mut self, count: u32, salt: u32) {
        for i in 0..count {
            let f = (i + salt) as f32;
            let element = (i * 37 + salt) % 700;
            match i % 5 {
                0 => self.spawn_one(
                    Vec3::splat(f),
                    Vec3::new(f + 5.0, -f, 2.0 * f),
                    (0, element, 8, 0),
                ),
                1 => self.spawn_one(f, f + 3.0, (0, element, 8, 3)),
                2 => self.spawn_one(
                    Vec4::splat(-f),
                    Vec4::new(f, f + 1.0, f + 2.0, f + 3.0),
                    (0, element, 8, 4),
                ),
                3 => self.spawn_one(
                    Vec2::new(f, 0.0),
                    Vec2::new(0.0, f),
                    (1, (i * 53 + salt) % 900, 2, 0),
                ),
                _ => self.spawn_one(f * 0.5, -f, (2, (i / 5 * 7 + salt) % 400, 5, 3)),
            }
        }
    }

    /// Updates, then records what every live motion must have written (its value now).
    fn update(&mut self, dt: f64) {
        self.world.update(dt).expect("update");
        assert_eq!(self.world.take_gpu_error(), None, "GPU error");
        // (Cancelled motions were dropped from `placed` when cancelled: their last value
        // stays in the buffer.) No two live motions here write the same f32.
        for p in &self.placed {
            let lanes = if self.world.is_active(p.handle) {
                common::value_lanes(&self.world, p.handle, p.lanes)
            } else {
                // Completed in this update: its end value was written, then it ended.
                p.end.expect("only finite motions complete")
            };
            for (k, v) in lanes.iter().enumerate().take(p.lanes) {
                self.expected.insert((p.buffer, p.first + k), (*v, p.span));
                self.writers.insert((p.buffer, p.first + k), p.handle);
            }
        }
        self.placed.retain(|p| self.world.is_active(p.handle));
    }

    /// Reads every buffer back and checks every f32: targeted ones against their value,
    /// the others still hold the sentinel.
    fn check(&self, what: &str) {
        for (b, buffer) in self.buffers.iter().enumerate() {
            let data = common::read_buffer(&self.ctx, buffer);
            for (i, &got) in data.iter().enumerate() {
                match self.expected.get(&(b, i)) {
                    Some(&(want, span)) => assert!(
                        (got - want).abs() <= 1e-4 * span + 4.0 * f32::EPSILON * want.abs(),
                        "{what}: buffer {b} f32 {i}: got {got}, want {want} (motion {:?}, clock {:?}, {:?})",
                        self.writers[&(b, i)],
                        self.world.time(self.writers[&(b, i)]),
                        self.world.debug_snapshot().entries.iter().find(|e| e.handle == self.writers[&(b, i)]),
                    ),
                    None => assert_eq!(got, SENTINEL, "{what}: buffer {b} f32 {i} was written"),
                }
            }
        }
    }
}

fn executors() -> Vec<Executor> {
    vec![Executor::Gpu, Executor::Cpu]
}

#[test]
fn values_land_at_index_stride_and_offset() {
    let Some(ctx) = common::gpu() else { return };
    for executor in executors() {
        let mut rig = Rig::new(&ctx, executor);
        // 5 × 140 motions: elements (i·37) mod 700 are distinct for i < 700, and so on.
        rig.spawn_all(700, 0);
        rig.update(0.0);
        rig.check(&format!("{executor:?}: first update (dt 0)"));
        for frame in 0..3 {
            rig.update(0.137);
            rig.check(&format!("{executor:?}: frame {frame}"));
        }
    }
}

#[test]
fn targets_stay_right_through_swap_removes_and_changes() {
    let Some(ctx) = common::gpu() else { return };
    for executor in executors() {
        let mut rig = Rig::new(&ctx, executor);
        rig.spawn_all(700, 0);
        rig.update(0.2);
        rig.check(&format!("{executor:?}: start"));

        // Cancel a block in the middle and every fourth motion: rows and target entries
        // are swap-removed; a cancelled motion's last value stays in the buffer.
        let handles: Vec<MotionHandle> = rig.placed.iter().map(|p| p.handle).collect();
        for (i, h) in handles.iter().enumerate() {
            if (200..450).contains(&i) || i % 4 == 1 {
                rig.world.cancel(*h).expect("cancel");
            }
        }
        rig.placed.retain(|p| rig.world.is_active(p.handle));
        rig.update(0.09);
        rig.check(&format!("{executor:?}: after cancellations"));

        // Re-time some (a re-timed value reaches the buffer at the next update; one timed
        // past its end completes at once, and its end value reaches the buffer then too).
        let handles: Vec<MotionHandle> = rig.placed.iter().map(|p| p.handle).collect();
        for (i, h) in handles.iter().enumerate() {
            if i % 3 == 0 {
                rig.world.set_time(*h, 0.05 * i as f64).expect("set_time");
            }
        }
        rig.update(0.0);
        rig.check(&format!("{executor:?}: after set_time"));

        // `complete` between updates writes nothing then: the next update's scatter writes
        // the end value of a motion that is gone.
        let finite: Vec<Placed> = rig
            .placed
            .iter()
            .filter(|p| p.end.is_some())
            .copied()
            .collect();
        assert!(!finite.is_empty());
        for p in &finite {
            rig.world.complete(p.handle).expect("complete");
        }
        rig.placed.retain(|p| rig.world.is_active(p.handle));
        rig.check(&format!("{executor:?}: after complete, before any update"));
        for p in &finite {
            for k in 0..p.lanes {
                rig.expected
                    .insert((p.buffer, p.first + k), (p.end.unwrap()[k], p.span));
            }
        }
        rig.update(0.0);
        rig.check(&format!("{executor:?}: after complete, the next update"));

        // Everything with finite loops runs out; the rest keep going.
        rig.update(10.0);
        rig.check(&format!("{executor:?}: after completions"));
        for frame in 0..3 {
            rig.update(1.0 / 60.0);
            rig.check(&format!("{executor:?}: frame {frame} after completions"));
        }
    }
}

#[test]
fn targets_work_with_binds_deferred_spawns_and_folded_dispatch() {
    let Some(ctx) = common::gpu() else { return };
    for executor in executors() {
        let mut rig = Rig::new(&ctx, executor);
        // A scatter of 700 entries per buffer with at most 2 workgroups (of 64) per axis:
        // folded into y.
        rig.world.gpu_mut().set_max_workgroups_per_axis(2);
        rig.spawn_all(700, 3);

        // A target and a bind on the same motion.
        let seen = Arc::new(AtomicU32::new(0));
        let sink = Arc::clone(&seen);
        let both = Motion::new(1.0f32, 2.0, 1.0)
            .target(rig.ids[2].at(400, 5, 0))
            .bind(&mut rig.world, move |v| {
                sink.store(v.to_bits(), Ordering::Relaxed)
            })
            .expect("bind and target");
        rig.placed.push(Placed {
            handle: both,
            lanes: 1,
            buffer: 2,
            first: 2000,
            span: 1.0,
            end: None,
        });

        // A targeted motion spawned from inside a callback.
        let commands = rig.world.commands();
        let spawned = Arc::new(std::sync::Mutex::new(None));
        let slot = Arc::clone(&spawned);
        let target = rig.ids[2].at(400, 5, 1);
        Motion::new(0.0f32, 1.0, 0.1)
            .on_complete(move || {
                let h = Motion::new(5.0f32, 6.0, 2.0)
                    .target(target)
                    .run_deferred(&commands)
                    .expect("deferred");
                *slot.lock().unwrap() = Some(h);
            })
            .run(&mut rig.world)
            .expect("spawner");
        rig.update(0.25);
        let deferred = spawned.lock().unwrap().expect("spawned in the callback");
        rig.placed.push(Placed {
            handle: deferred,
            lanes: 1,
            buffer: 2,
            first: 2001,
            span: 1.0,
            end: None,
        });
        rig.update(0.5);
        rig.check(&format!(
            "{executor:?}: binds, deferred spawn, folded scatter"
        ));
        let bound = f32::from_bits(seen.load(Ordering::Relaxed));
        assert!((bound - rig.world.value::<f32>(both).unwrap()).abs() < 1e-5);
    }
}

#[test]
fn bad_targets_are_build_errors() {
    let Some(ctx) = common::gpu() else { return };
    let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
    let buffer = storage_buffer(&ctx, 100);
    let target = world.add_gpu_target(&buffer).expect("storage buffer");
    // Past the end: a vec3 at f32 98 needs 101 f32s.
    let err = Motion::new(Vec3::ZERO, Vec3::ONE, 1.0)
        .bind_to_buffer(&mut world, target.at(0, 3, 98))
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::Target(TargetError::OutOfBounds { end: 101, len: 100 })
    );
    // The last f32 exactly fits.
    Motion::new(0.0f32, 1.0, 1.0)
        .bind_to_buffer(&mut world, target.at(33, 3, 0))
        .expect("f32 99 fits");
    // Huge index × stride does not wrap around.
    let err = Motion::new(0.0f32, 1.0, 1.0)
        .bind_to_buffer(&mut world, target.at(u32::MAX, u32::MAX, 0))
        .unwrap_err();
    assert!(
        matches!(err, BuildError::Target(TargetError::OutOfBounds { .. })),
        "{err:?}"
    );
    // No STORAGE usage.
    let plain = ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    assert_eq!(world.add_gpu_target(&plain), Err(TargetError::NotStorage));
    // A world without a GPU context.
    let mut cpu_only = MotionWorld::new();
    assert_eq!(cpu_only.add_gpu_target(&buffer), Err(TargetError::NoGpu));
    // Another world's target: unknown here, and nothing is added.
    let err = Motion::new(0.0f32, 1.0, 1.0)
        .bind_to_buffer(&mut cpu_only, target.at(0, 1, 0))
        .unwrap_err();
    assert_eq!(err, BuildError::Target(TargetError::Unknown));
    assert!(cpu_only.is_empty());
    // A destroyed buffer: the device refuses to bind it.
    let destroyed = storage_buffer(&ctx, 16);
    destroyed.destroy();
    let err = world.add_gpu_target(&destroyed).unwrap_err();
    assert!(matches!(err, TargetError::Rejected(_)), "{err:?}");
    // The world is unharmed.
    assert_eq!(world.len(), 1);
    world.update(0.1).expect("update");
    assert_eq!(world.take_gpu_error(), None);
}

#[test]
fn targets_run_on_the_noop_device() {
    // No driver needed: the scatter is recorded and submitted without errors.
    let (device, queue) = wgpu::Device::noop(&wgpu::DeviceDescriptor::default());
    let info = device.adapter_info();
    let ctx = GpuContext::from_device(device, queue, info);
    for executor in executors() {
        let mut rig = Rig::new(&ctx, executor);
        rig.world.gpu_mut().set_max_workgroups_per_axis(3);
        rig.spawn_all(700, 0);
        for frame in 0..6 {
            if frame == 3 {
                let handles: Vec<MotionHandle> =
                    rig.placed.iter().step_by(2).map(|p| p.handle).collect();
                for h in handles {
                    rig.world.cancel(h).expect("cancel");
                }
                rig.spawn_all(100, 5);
            }
            rig.world.update(0.1).expect("update");
            assert_eq!(rig.world.take_gpu_error(), None, "{executor:?}");
            assert_eq!(rig.world.active_executor(), executor);
        }
    }
}

#[test]
fn a_destroyed_target_buffer_is_an_error_not_a_panic() {
    let Some(ctx) = common::gpu() else { return };
    for executor in executors() {
        let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
        world.set_executor(executor).expect("executor");
        let buffer = storage_buffer(&ctx, 64);
        let target = world.add_gpu_target(&buffer).expect("storage buffer");
        let seen = Arc::new(AtomicU32::new(0));
        let sink = Arc::clone(&seen);
        let h = Motion::new(0.0f32, 8.0, 1.0)
            .target(target.at(3, 4, 1))
            .bind(&mut world, move |v| {
                sink.store(v.to_bits(), Ordering::Relaxed)
            })
            .expect("motion");
        world.update(0.25).expect("update");
        assert_eq!(world.take_gpu_error(), None);
        buffer.destroy();
        // The scatter fails: the world reports the motion whose target it drops, and goes
        // on with its executor and every motion.
        world.update(0.25).expect("update");
        assert_eq!(
            world.take_gpu_error(),
            Some(GpuError::TargetsLost { motions: vec![h] }),
            "{executor:?}"
        );
        assert_eq!(world.active_executor(), executor);
        assert!(world.is_active(h));
        world.update(0.25).expect("update");
        assert_eq!(f32::from_bits(seen.load(Ordering::Relaxed)), 6.0);
        // `complete` no longer touches the buffer.
        world.complete(h).expect("complete");
        assert_eq!(world.take_gpu_error(), None);
    }
}

#[test]
fn sequence_children_write_their_targets() {
    let Some(ctx) = common::gpu() else { return };
    for executor in executors() {
        let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
        world.set_executor(executor).expect("executor");
        let buffer = storage_buffer(&ctx, 8);
        let id = world.add_gpu_target(&buffer).expect("storage buffer");
        let target = |index| id.at(index, 2, 1);
        // Children at 0 and 1 s of a 2 s sequence; their values land at floats 1 and 3.
        let a = Motion::new(0.0f32, 10.0, 1.0)
            .bind_to_buffer(&mut world, target(0))
            .expect("target");
        let b = Motion::new(100.0f32, 200.0, 1.0)
            .bind_to_buffer(&mut world, target(1))
            .expect("target");
        let seq = wgpu_tween::Sequence::new()
            .append(a)
            .append(b)
            .run(&mut world)
            .expect("sequence");
        world.update(0.5).expect("update");
        let got = common::read_buffer(&ctx, &buffer);
        assert_eq!(got[0], SENTINEL);
        assert!((got[1] - 5.0).abs() < 1e-4, "{executor:?}: {got:?}");
        assert!((got[3] - 100.0).abs() < 1e-4, "{executor:?}: {got:?}");
        world.update(1.0).expect("update");
        let got = common::read_buffer(&ctx, &buffer);
        assert!((got[1] - 10.0).abs() < 1e-4, "{executor:?}: {got:?}");
        assert!((got[3] - 150.0).abs() < 1e-4, "{executor:?}: {got:?}");
        // Completing the sequence writes nothing at once; the next update (of a world now
        // empty) writes the children's end values.
        world.complete(seq).expect("complete");
        let got = common::read_buffer(&ctx, &buffer);
        assert!((got[3] - 150.0).abs() < 1e-4, "{executor:?}: {got:?}");
        assert!(world.is_empty());
        world.update(0.0).expect("update");
        let got = common::read_buffer(&ctx, &buffer);
        assert!((got[1] - 10.0).abs() < 1e-4, "{executor:?}: {got:?}");
        assert!((got[3] - 200.0).abs() < 1e-4, "{executor:?}: {got:?}");
    }
}

#[test]
fn the_newest_end_value_queued_between_updates_wins() {
    let Some(ctx) = common::gpu() else { return };
    for executor in executors() {
        let mut world = MotionWorld::with_gpu(ctx.clone()).expect("GPU world");
        world.set_executor(executor).expect("executor");
        let buffer = storage_buffer(&ctx, 4);
        let id = world.add_gpu_target(&buffer).expect("storage buffer");
        let a = Motion::new(0.0f32, 10.0, 1.0)
            .bind_to_buffer(&mut world, id.at(0, 1, 0))
            .expect("target");
        let b = Motion::new(100.0f32, 200.0, 1.0)
            .bind_to_buffer(&mut world, id.at(1, 1, 0))
            .expect("target");
        let seq = wgpu_tween::Sequence::new()
            .append(a)
            .append(b)
            .run(&mut world)
            .expect("sequence");
        world.update(0.25).expect("update");
        let got = common::read_buffer(&ctx, &buffer);
        assert!((got[0] - 2.5).abs() < 1e-4, "{executor:?}: {got:?}");
        // Scrubbed (children re-timed: a at 5), then completed (a at 10, b at 200), all
        // between two updates: the next update writes the last of each.
        world.set_time(seq, 0.5).expect("set_time");
        world.complete(seq).expect("complete");
        let got = common::read_buffer(&ctx, &buffer);
        assert!(
            (got[0] - 2.5).abs() < 1e-4,
            "{executor:?}: nothing written yet: {got:?}"
        );
        world.update(0.0).expect("update");
        assert_eq!(world.take_gpu_error(), None);
        let got = common::read_buffer(&ctx, &buffer);
        assert!((got[0] - 10.0).abs() < 1e-4, "{executor:?}: {got:?}");
        assert!((got[1] - 200.0).abs() < 1e-4, "{executor:?}: {got:?}");
        assert_eq!(got[2], SENTINEL);
        let stats = world.gpu().update_stats().expect("a device is attached");
        assert!(
            stats.dispatches >= 1,
            "{executor:?}: the end values were scattered"
        );
    }
}
