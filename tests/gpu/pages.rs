//! Tables past one storage binding: on a device whose `max_storage_buffer_binding_size` is
//! 64 KiB (pages of 2 048 rows; the default 128 MiB gives pages of 2M), worlds of up to 8
//! pages evaluate every row, move rows between pages on swap-removes, gather bound values
//! and scatter targets page by page, shrink back to one page, and keep sequence children
//! right when a child and its parent sit in different pages. Every value is checked against
//! the CPU's f64 evaluation of the motion (`MotionWorld::value`); a binding over the limit
//! would be a validation error, which moves the world off the GPU and fails the test.

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use glam::{Quat, Vec3, Vec4};
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Animatable, Ease, LoopType, Motion, MotionHandle, MotionWorld, Sequence};
use wgpu_tween::{Target, TargetId};

/// The small binding limit, and the page it gives (`table::page_rows`: 64 KiB / 32 bytes).
const BINDING: u64 = 64 * 1024;
const PAGE_ROWS: u32 = 2048;

/// A context on the test adapter with 64 KiB storage bindings, or `None` (skipped, or a
/// failure under `WGPU_TWEEN_REQUIRE_GPU=1`) without an adapter.
fn small_context() -> Option<GpuContext> {
    common::own_device(
        "small bindings",
        |_| wgpu::Limits {
            max_storage_buffer_binding_size: BINDING,
            ..wgpu::Limits::default()
        },
        |_| wgpu::Features::empty(),
    )
}

/// A user storage buffer of `floats` f32s, bound whole (so at most 64 KiB).
fn storage_buffer(ctx: &GpuContext, floats: usize) -> wgpu::Buffer {
    ctx.device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("user instances"),
        size: floats as u64 * 4,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

/// The value kinds under test: one target buffer each, 4 floats per motion.
#[derive(Clone, Copy, Debug)]
enum Kind {
    F32,
    Vec3,
    Quat,
    Color,
}

const KINDS: [Kind; 4] = [Kind::F32, Kind::Vec3, Kind::Quat, Kind::Color];
/// Motions per target buffer (4 floats each, 64 KiB).
const SLOTS: u32 = 4096;

/// A motion under test: its handle, kind, target slot, span, and the cell its bind writes
/// (lane 0, f32 bits) when it has a bind.
struct Probe {
    handle: MotionHandle,
    kind: Kind,
    slot: u32,
    span: f32,
    cell: Option<Arc<AtomicU32>>,
}

/// A world on the small-binding device, its target buffers and probes.
struct Rig {
    ctx: GpuContext,
    world: MotionWorld,
    buffers: Vec<wgpu::Buffer>,
    /// The buffers as registered targets.
    ids: Vec<TargetId>,
    next_slot: [u32; 4],
    probes: Vec<Probe>,
    spawned: usize,
}

impl Rig {
    fn new(ctx: GpuContext) -> Self {
        let mut world = common::Exec::Gpu(Box::new(ctx.clone())).world();
        let buffers: Vec<wgpu::Buffer> = KINDS
            .iter()
            .map(|_| storage_buffer(&ctx, SLOTS as usize * 4))
            .collect();
        let ids = buffers
            .iter()
            .map(|b| world.add_gpu_target(b).expect("storage buffer"))
            .collect();
        Self {
            ctx,
            world,
            buffers,
            ids,
            next_slot: [0; 4],
            probes: Vec::new(),
            spawned: 0,
        }
    }

    fn target(&mut self, kind: Kind) -> (u32, Target) {
        let k = kind as usize;
        let slot = self.next_slot[k];
        self.next_slot[k] += 1;
        assert!(slot < SLOTS, "out of target slots");
        (slot, self.ids[k].at(slot, 4, 0))
    }

    /// Spawns `count` motions of every kind in turn, with varied eases, loops, delays and
    /// speeds; every `bind_every`-th also has a bind (0: none; never one with a delay, whose
    /// bind is not called while the delay runs after a `set_time`).
    fn spawn(&mut self, count: usize, bind_every: usize) {
        for _ in 0..count {
            let n = self.spawned;
            self.spawned += 1;
            let kind = KINDS[n % 4];
            let (slot, target) = self.target(kind);
            let bound = bind_every != 0 && n.is_multiple_of(bind_every);
            let cell = bound.then(|| Arc::new(AtomicU32::new(f32::NAN.to_bits())));
            let handle = match kind {
                Kind::F32 => {
                    let from = n as f32 * 0.25;
                    self.build(n, Motion::new(from, from + 10.0, 1.0), target, &cell)
                }
                Kind::Vec3 => self.build(
                    n,
                    Motion::new(
                        Vec3::new(n as f32, 0.0, -1.0),
                        Vec3::new(0.0, 5.0, 3.0),
                        1.0,
                    ),
                    target,
                    &cell,
                ),
                Kind::Quat => self.build(
                    n,
                    Motion::new(
                        Quat::from_rotation_y(0.1),
                        Quat::from_rotation_z(1.0 + (n % 7) as f32 * 0.2),
                        1.0,
                    ),
                    target,
                    &cell,
                ),
                Kind::Color => self.build(
                    n,
                    Motion::new(Vec4::ZERO, Vec4::new(1.0, 0.5, 0.25, 1.0), 1.0),
                    target,
                    &cell,
                ),
            };
            let span = match kind {
                Kind::F32 | Kind::Vec3 => 10.0,
                Kind::Quat | Kind::Color => 1.0,
            };
            self.probes.push(Probe {
                handle,
                kind,
                slot,
                span,
                cell,
            });
        }
    }

    /// Settings from `n`, then a target and (with `cell`) a bind of lane 0.
    fn build<T: Animatable>(
        &mut self,
        n: usize,
        motion: Motion<T>,
        target: Target,
        cell: &Option<Arc<AtomicU32>>,
    ) -> MotionHandle {
        let motion = motion
            .ease(Ease::ALL[n % Ease::ALL.len()])
            .loops(-1, LoopType::ALL[n / 4 % 4])
            .delay(if n % 5 == 1 { 0.3 } else { 0.0 })
            .playback_speed(if n.is_multiple_of(3) { 1.5 } else { 1.0 })
            .target(target);
        match cell {
            Some(cell) => {
                let sink = Arc::clone(cell);
                motion
                    .bind(&mut self.world, move |v: T| {
                        sink.store(v.to_lanes()[0].to_bits(), Ordering::Relaxed)
                    })
                    .expect("motion")
            }
            None => motion.run(&mut self.world).expect("motion"),
        }
    }

    fn update(&mut self, dt: f64, what: &str) {
        common::update_on_gpu(&mut self.world, dt, what);
        self.probes.retain(|p| self.world.is_active(p.handle));
    }

    /// Every live probe's target (and bound lane 0) equals the CPU's evaluation now.
    fn check(&self, what: &str) {
        let buffers: Vec<Vec<f32>> = self
            .buffers
            .iter()
            .map(|b| common::read_buffer(&self.ctx, b))
            .collect();
        for (i, p) in self.probes.iter().enumerate() {
            let want = lanes_of(&self.world, p);
            let at = p.slot as usize * 4;
            let got = &buffers[p.kind as usize][at..at + want.len()];
            let close = |g: f32, w: f32| (g - w).abs() <= 1e-4 * p.span.max(w.abs());
            assert!(
                got.iter().zip(&want).all(|(&g, &w)| close(g, w)),
                "{what}: probe {i} ({:?}) of {}: target {got:?}, CPU {want:?}",
                p.kind,
                self.probes.len()
            );
            if let Some(cell) = &p.cell {
                let bound = f32::from_bits(cell.load(Ordering::Relaxed));
                assert!(
                    close(bound, want[0]),
                    "{what}: probe {i} ({:?}): bound {bound}, CPU {}",
                    p.kind,
                    want[0]
                );
            }
        }
    }

    /// Cancels the probes `pick` selects.
    fn cancel(&mut self, pick: impl Fn(usize) -> bool) {
        let doomed: Vec<MotionHandle> = (0..self.probes.len())
            .filter(|&i| pick(i))
            .map(|i| self.probes[i].handle)
            .collect();
        for h in doomed {
            self.world.cancel(h).expect("cancel");
        }
    }
}

/// A probe's value by the CPU's evaluation, as lanes.
fn lanes_of(world: &MotionWorld, p: &Probe) -> Vec<f32> {
    let h = p.handle;
    match p.kind {
        Kind::F32 => world.value::<f32>(h).map(|v| v.to_lanes()[..1].to_vec()),
        Kind::Vec3 => world.value::<Vec3>(h).map(|v| v.to_lanes()[..3].to_vec()),
        Kind::Quat => world.value::<Quat>(h).map(|v| v.to_lanes().to_vec()),
        Kind::Color => world.value::<Vec4>(h).map(|v| v.to_lanes().to_vec()),
    }
    .expect("live probe")
}

#[test]
fn a_table_of_many_pages_evaluates_moves_gathers_and_shrinks() {
    let Some(ctx) = small_context() else { return };
    let mut rig = Rig::new(ctx);
    // Growth from one page to eight: pages are added, the first one copied once.
    let mut capacities = Vec::new();
    for (batch, frame_dt) in [(1500, 0.11), (2000, 0.07), (4000, 0.13), (7000, 0.05)] {
        rig.spawn(batch, 5);
        rig.update(frame_dt, "growth");
        rig.check(&format!("after growth to {}", rig.probes.len()));
        capacities.push(rig.world.gpu().capacity());
    }
    assert_eq!(capacities, [2048, 4096, 8192, 16384]);
    assert!(
        rig.world.gpu().capacity() > PAGE_ROWS,
        "the table spans pages"
    );

    // Swap-removes: a block in the middle and every seventh motion; the last rows (in the
    // last pages) move into holes in the first ones.
    rig.cancel(|i| (3000..6000).contains(&i) || i % 7 == 3);
    rig.update(0.09, "cancellations");
    rig.check("after cancellations");
    // Re-anchors in the same frame as moves and new rows.
    let handles: Vec<MotionHandle> = rig.probes.iter().map(|p| p.handle).collect();
    for (i, h) in handles.iter().enumerate().step_by(11) {
        rig.world
            .set_time(*h, 0.2 + (i % 13) as f64 * 0.31)
            .expect("set_time");
    }
    rig.cancel(|i| i % 13 == 5);
    rig.spawn(500, 0);
    for frame in 0..3 {
        rig.update(1.0 / 60.0, "changes");
        rig.check(&format!("frame {frame} after a frame of changes"));
    }

    // Shrinking: halving once per frame, whole pages dropped, down to one page.
    rig.cancel(|i| i >= 400);
    let mut capacities = vec![rig.world.gpu().capacity()];
    for frame in 0..8 {
        rig.update(0.037, "shrinking");
        rig.check(&format!("frame {frame} while shrinking"));
        capacities.push(rig.world.gpu().capacity());
    }
    capacities.dedup();
    assert_eq!(capacities, [16384, 8192, 4096, 2048, 1024]);
}

#[test]
fn sequence_children_stay_right_when_their_parents_sit_in_other_pages() {
    let Some(ctx) = small_context() else { return };
    let mut rig = Rig::new(ctx);
    let mut world_children = Vec::new();
    // Children first (rows in page 0), then fillers, then the sequences (rows in later
    // pages); one sequence nested in another.
    let mut sequences = Vec::new();
    let mut children = Vec::new();
    for s in 0..40 {
        let mut group = Vec::new();
        for c in 0..3 {
            let cell = Arc::new(AtomicU32::new(f32::NAN.to_bits()));
            let sink = Arc::clone(&cell);
            let from = (s * 10 + c) as f32;
            let h = Motion::new(from, from + 4.0, 0.5 + c as f32 * 0.25)
                .ease(Ease::ALL[(s + c) % Ease::ALL.len()])
                .bind(&mut rig.world, move |v: f32| {
                    sink.store(v.to_bits(), Ordering::Relaxed)
                })
                .expect("child");
            group.push(h);
            children.push((h, cell));
        }
        world_children.push(group);
    }
    rig.spawn(5000, 0);
    for (s, group) in world_children.iter().enumerate() {
        let seq = Sequence::new()
            .append(group[0])
            .append_interval(0.125)
            .append(group[1])
            .join(group[2]);
        let handle = if s % 2 == 0 {
            seq.run_with(&mut rig.world, |m| m.loops(3, LoopType::Yoyo))
        } else {
            seq.run(&mut rig.world)
        }
        .expect("sequence");
        sequences.push(handle);
    }
    // Nest: the last two sequences inside an outer one (which loops).
    let inner = sequences.split_off(sequences.len() - 2);
    let outer = Sequence::new()
        .append(inner[0])
        .append(inner[1])
        .run_with(&mut rig.world, |m| {
            m.loops(-1, LoopType::Restart).playback_speed(1.25)
        })
        .expect("outer sequence");

    let check_children = |rig: &Rig, what: &str| {
        for (i, (h, cell)) in children.iter().enumerate() {
            if !rig.world.is_active(*h) {
                continue;
            }
            let want = rig.world.value::<f32>(*h).expect("live");
            let got = f32::from_bits(cell.load(Ordering::Relaxed));
            assert!(
                (got - want).abs() <= 1e-4 * 4.0,
                "{what}: child {i}: GPU {got}, CPU {want}"
            );
        }
    };
    assert!(rig.world.gpu().capacity() == 0 || rig.world.gpu().capacity() > PAGE_ROWS);
    for frame in 0..40 {
        rig.update(0.047, "paged sequences");
        check_children(&rig, &format!("paged, frame {frame}"));
        rig.check(&format!("paged, frame {frame}"));
    }
    assert!(
        rig.world.gpu().capacity() > PAGE_ROWS,
        "the table spans pages"
    );
    assert!(rig.world.is_active(outer));

    // The fillers go: the table shrinks to one page and the children's real rows (which
    // walk their parents on the GPU) come back.
    let fillers: Vec<MotionHandle> = rig.probes.iter().map(|p| p.handle).collect();
    for h in fillers {
        rig.world.cancel(h).expect("cancel");
    }
    for frame in 0..12 {
        rig.update(0.061, "one page again");
        check_children(&rig, &format!("one page, frame {frame}"));
    }
    assert!(rig.world.gpu().capacity() <= PAGE_ROWS, "back to one page");

    // And back past one page.
    rig.spawn(4000, 0);
    for frame in 0..6 {
        rig.update(0.029, "paged again");
        check_children(&rig, &format!("paged again, frame {frame}"));
        rig.check(&format!("paged again, frame {frame}"));
    }
}
