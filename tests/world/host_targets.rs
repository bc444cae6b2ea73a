//! Host targets: world-owned f32 arrays that motions write their values into at
//! `index · stride + offset`. After every update the array equals what `value(h)` (the f64
//! reference) and each motion's bind see, on every executor (the GPU executor through its
//! readback, blocking and pipelined), through spawns, cancellations (swap-removes), re-timing
//! and completions; a finished motion leaves its final value; bad ids and places are typed
//! errors that add nothing.

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use glam::{Vec2, Vec3, Vec4};
use wgpu_tween::error::TargetError;
use wgpu_tween::gpu::ReadbackMode;
use wgpu_tween::{
    Animatable, BuildError, Ease, LoopType, Motion, MotionHandle, MotionWorld, TargetId,
};

/// What unwritten f32s hold.
const SENTINEL: f32 = -7777.0;
/// Elements of 12 f32s: a vec3 at 0, an f32 at 3, a vec4 at 4, a vec2 at 8, an f32 at 10.
const STRIDE: u32 = 12;
const ELEMENTS: u32 = 400;

/// A live targeted motion: where it writes, what its bind last saw, its span.
struct Placed {
    handle: MotionHandle,
    lanes: usize,
    first: usize,
    span: f32,
    /// Lanes its bind received last (a bound motion only).
    bound: Option<Arc<Mutex<[f32; 4]>>>,
    /// What it finishes with (finite loops).
    end: Option<[f32; 4]>,
}

struct Rig {
    world: MotionWorld,
    id: TargetId,
    placed: Vec<Placed>,
    /// What each written f32 must hold now, with its tolerance span.
    expected: HashMap<usize, (f32, f32)>,
    free: Vec<u32>,
    spawned: u32,
    late: bool,
}

impl Rig {
    fn new(mut world: MotionWorld) -> Self {
        let id = world.add_host_target((STRIDE * ELEMENTS) as usize).unwrap();
        world
            .host_target_mut(id)
            .expect("registered")
            .fill(SENTINEL);
        Self {
            world,
            id,
            placed: Vec::new(),
            expected: HashMap::new(),
            free: (0..ELEMENTS).rev().collect(),
            spawned: 0,
            late: false,
        }
    }

    fn spawn_one<T: Animatable>(&mut self, element: u32, offset: u32, from: T, to: T) {
        let n = self.spawned;
        self.spawned += 1;
        let (a, b) = (from.to_lanes(), to.to_lanes());
        let span = (0..T::LANES)
            .map(|k| (b[k] - a[k]).abs())
            .fold(1.0, f32::max);
        let loop_type = [LoopType::Restart, LoopType::Yoyo, LoopType::Flip][n as usize % 3];
        let finite = n.is_multiple_of(4);
        let end = finite.then(|| if loop_type == LoopType::Restart { b } else { a });
        let motion = Motion::new(from, to, 0.3 + (n % 7) as f32 * 0.2)
            .ease(Ease::ALL[n as usize % Ease::ALL.len()])
            .loops(if finite { 2 } else { -1 }, loop_type)
            .target(self.id.at(element, STRIDE, offset));
        let (handle, bound) = if n % 3 == 1 {
            let cell = Arc::new(Mutex::new([f32::NAN; 4]));
            let sink = Arc::clone(&cell);
            let h = motion
                .bind(&mut self.world, move |v: T| {
                    *sink.lock().unwrap() = v.to_lanes()
                })
                .expect("targeted motion");
            (h, Some(cell))
        } else {
            (motion.run(&mut self.world).expect("targeted motion"), None)
        };
        self.placed.push(Placed {
            handle,
            lanes: T::LANES,
            first: (element * STRIDE + offset) as usize,
            span,
            bound,
            end,
        });
    }

    /// Spawns `count` elements, each with five motions (one per field).
    fn spawn(&mut self, count: u32) {
        for _ in 0..count {
            let Some(e) = self.free.pop() else { return };
            let f = e as f32;
            self.spawn_one(e, 0, Vec3::splat(f), Vec3::new(f + 5.0, -f, 2.0 * f));
            self.spawn_one(e, 3, f, f + 3.0);
            self.spawn_one(e, 4, Vec4::splat(-f), Vec4::new(f, 1.0, 2.0, 3.0));
            self.spawn_one(e, 8, Vec2::new(f, 0.0), Vec2::new(0.0, f));
            self.spawn_one(e, 10, 0.5 * f, -f);
        }
    }

    /// Updates, then records what every motion must have left in the array: its value now
    /// (live), its end value (completed in this update).
    fn update(&mut self, dt: f64) {
        self.world.update(dt).expect("update");
        assert_eq!(self.world.take_gpu_error(), None);
        for p in &self.placed {
            let lanes = if self.world.is_active(p.handle) {
                common::value_lanes(&self.world, p.handle, p.lanes)
            } else {
                p.end.expect("only finite motions complete")
            };
            for (k, &v) in lanes.iter().enumerate().take(p.lanes) {
                self.expected.insert(p.first + k, (v, p.span));
            }
        }
        self.placed.retain(|p| self.world.is_active(p.handle));
    }

    /// Every f32 against its expectation (unwritten ones hold the sentinel), and every live
    /// bound motion's slice equal to what its bind saw last.
    fn check(&self, what: &str) {
        let data = self.world.host_target(self.id).expect("registered");
        for (i, &got) in data.iter().enumerate() {
            match self.expected.get(&i) {
                Some(&(want, span)) if !self.late => assert!(
                    (got - want).abs() <= 1e-4 * span + 4.0 * f32::EPSILON * want.abs(),
                    "{what}: f32 {i}: got {got}, want {want}"
                ),
                Some(_) => {}
                None => assert_eq!(got, SENTINEL, "{what}: f32 {i} was written"),
            }
        }
        for p in &self.placed {
            if let Some(cell) = &p.bound {
                let seen = *cell.lock().unwrap();
                assert_eq!(
                    &data[p.first..p.first + p.lanes],
                    &seen[..p.lanes],
                    "{what}: {:?}: the array and the bind differ",
                    p.handle
                );
            }
        }
    }

    /// Cancels every `k`-th live motion (its element stays taken: a cancelled motion's last
    /// value stays in the array).
    fn cancel_every(&mut self, k: usize, salt: usize) {
        for (i, p) in self.placed.iter().enumerate() {
            if (i + salt).is_multiple_of(k) {
                self.world.cancel(p.handle).expect("live");
            }
        }
        self.placed.retain(|p| self.world.is_active(p.handle));
    }
}

fn churn(mut rig: Rig, name: &str) {
    // At most 425 motions: the readback of the small-binding device holds 512 values.
    rig.spawn(40);
    rig.update(0.0);
    rig.check(&format!("{name}: first update"));
    for frame in 0..12 {
        if frame % 3 == 1 {
            rig.cancel_every(5, frame);
        }
        if frame % 4 == 2 {
            rig.spawn(15);
        }
        if frame == 6 {
            // Re-timed between updates: the array follows at the next update.
            let handles: Vec<MotionHandle> = rig.placed.iter().map(|p| p.handle).collect();
            for (i, h) in handles.iter().enumerate().filter(|(i, _)| i % 7 == 0) {
                rig.world.set_time(*h, 0.03 * i as f64).expect("set_time");
            }
        }
        rig.update(0.11);
        rig.check(&format!("{name}: frame {frame}"));
    }
    // `complete` between updates: a host array gets the end value at once.
    let finite: Vec<usize> = (0..rig.placed.len())
        .filter(|&i| rig.placed[i].end.is_some())
        .collect();
    assert!(!finite.is_empty());
    for &i in &finite {
        let p = &rig.placed[i];
        rig.world.complete(p.handle).expect("complete");
        for k in 0..p.lanes {
            rig.expected
                .insert(p.first + k, (p.end.expect("finite")[k], p.span));
        }
    }
    rig.placed.retain(|p| rig.world.is_active(p.handle));
    rig.check(&format!("{name}: after complete, before any update"));
    // The rest of the finite ones run out; the array keeps their final values.
    rig.update(30.0);
    rig.check(&format!("{name}: after completions"));
    rig.update(1.0 / 60.0);
    rig.check(&format!("{name}: a frame later"));
}

#[test]
fn the_array_equals_value_and_bind_through_churn() {
    for exec in common::executors() {
        churn(Rig::new(exec.world()), exec.name());
    }
}

#[test]
fn pipelined_readback_fills_the_array_with_what_binds_see() {
    let Some(ctx) = common::gpu() else { return };
    let mut world = common::Exec::Gpu(Box::new(ctx)).world();
    world.gpu_mut().set_readback_mode(ReadbackMode::Pipelined);
    let mut rig = Rig::new(world);
    // Values arrive an update late: the array matches the binds, not `value(h)`.
    rig.late = true;
    rig.spawn(60);
    for frame in 0..8 {
        if frame == 3 {
            rig.cancel_every(4, 0);
        }
        rig.update(0.1);
        rig.check(&format!("pipelined frame {frame}"));
    }
}

#[test]
fn bad_ids_and_places_are_typed_errors_that_add_nothing() {
    let mut world = MotionWorld::new();
    let mut other = MotionWorld::new();
    let id = world.add_host_target(10).unwrap();
    let theirs = other.add_host_target(10).unwrap();
    // Past the end: a vec3 at f32 8 needs 11.
    let err = Motion::new(Vec3::ZERO, Vec3::ONE, 1.0)
        .target(id.at(2, 4, 0))
        .run(&mut world);
    assert_eq!(
        err,
        Err(BuildError::Target(TargetError::OutOfBounds {
            end: 11,
            len: 10
        }))
    );
    // Index × stride does not wrap around.
    let err = Motion::new(0.0f32, 1.0, 1.0)
        .target(id.at(u32::MAX, u32::MAX, u32::MAX))
        .run(&mut world);
    assert!(
        matches!(
            err,
            Err(BuildError::Target(TargetError::OutOfBounds { .. }))
        ),
        "{err:?}"
    );
    // Another world's id.
    let err = Motion::new(0.0f32, 1.0, 1.0)
        .target(theirs.at(0, 1, 0))
        .bind(&mut world, |_| {});
    assert_eq!(err, Err(BuildError::Target(TargetError::Unknown)));
    assert!(world.is_empty());
    assert_eq!(world.host_target(theirs), None);
    // The last f32 fits exactly.
    let h = Motion::new(0.0f32, 4.0, 1.0)
        .ease(Ease::Linear)
        .target(id.at(3, 3, 0))
        .run(&mut world)
        .expect("f32 9 fits");
    world.update(0.5).expect("update");
    assert_eq!(world.host_target(id).expect("registered")[9], 2.0);
    // A removed target: unknown from then on; its motion keeps running without it.
    assert_eq!(world.remove_target(id), Ok(()));
    assert_eq!(world.remove_target(id), Err(TargetError::Unknown));
    assert_eq!(world.host_target(id), None);
    let err = Motion::new(0.0f32, 1.0, 1.0)
        .target(id.at(0, 1, 0))
        .run(&mut world);
    assert_eq!(err, Err(BuildError::Target(TargetError::Unknown)));
    assert_eq!(world.len(), 1);
    world.update(0.25).expect("update");
    assert_eq!(world.value::<f32>(h), Ok(3.0));
}

#[test]
fn strides_that_overlap_elements_are_refused_at_build() {
    let mut world = MotionWorld::new();
    let id = world.add_host_target(64).unwrap();
    // Stride 0: every element would write the same f32s.
    let err = Motion::new(0.0f32, 1.0, 1.0)
        .target(id.at(5, 0, 0))
        .run(&mut world);
    assert_eq!(
        err,
        Err(BuildError::Target(TargetError::StrideTooSmall {
            stride: 0,
            lanes: 1
        }))
    );
    // A Vec3 at stride 2: element 1's x would be element 0's z.
    let err = Motion::new(Vec3::ZERO, Vec3::ONE, 1.0)
        .target(id.at(0, 2, 0))
        .run(&mut world);
    assert_eq!(
        err,
        Err(BuildError::Target(TargetError::StrideTooSmall {
            stride: 2,
            lanes: 3
        }))
    );
    assert!(world.is_empty());
    // Exactly the lanes is fine (a packed array of Vec3s), as is a field of a wider element.
    Motion::new(Vec3::ZERO, Vec3::ONE, 1.0)
        .target(id.at(1, 3, 0))
        .run(&mut world)
        .expect("packed Vec3s");
    Motion::new(Vec3::ZERO, Vec3::ONE, 1.0)
        .target(id.at(1, 8, 5))
        .run(&mut world)
        .expect("a field of an 8-f32 element");
    assert_eq!(world.len(), 2);
}

#[test]
fn host_arrays_too_large_are_typed_errors_not_aborts() {
    let mut world = MotionWorld::new();
    for len in [
        1usize << 40,
        usize::MAX,
        wgpu_tween::MAX_HOST_TARGET_LEN + 1,
    ] {
        assert_eq!(
            world.add_host_target(len),
            Err(TargetError::TooLarge { len }),
            "{len}"
        );
    }
    // The world is unchanged and goes on.
    let id = world.add_host_target(4).unwrap();
    assert_eq!(world.host_target(id), Some(&[0.0; 4][..]));
}

#[test]
fn deferred_spawns_and_sequence_children_fill_host_targets() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let id = world.add_host_target(4).unwrap();
        // Children at 0 and 1 s of a 2 s sequence write f32s 0 and 1.
        let a = Motion::new(0.0f32, 10.0, 1.0)
            .target(id.at(0, 1, 0))
            .run(&mut world)
            .expect("child");
        let b = Motion::new(100.0f32, 200.0, 1.0)
            .target(id.at(1, 1, 0))
            .run(&mut world)
            .expect("child");
        wgpu_tween::Sequence::new()
            .append(a)
            .append(b)
            .run(&mut world)
            .expect("sequence");
        // A motion spawned from a callback, with a target into f32 2.
        let commands = world.commands();
        let target = id.at(2, 1, 0);
        Motion::new(0.0f32, 1.0, 0.1)
            .on_complete(move || {
                Motion::new(5.0f32, 7.0, 2.0)
                    .ease(Ease::Linear)
                    .target(target)
                    .run_deferred(&commands)
                    .expect("deferred");
            })
            .run(&mut world)
            .expect("spawner");
        world.update(0.5).expect("update");
        let got = world.host_target(id).expect("registered").to_vec();
        assert!((got[0] - 5.0).abs() < 1e-4, "{name}: {got:?}");
        assert!((got[1] - 100.0).abs() < 1e-4, "{name}: {got:?}");
        world.update(1.0).expect("update");
        let got = world.host_target(id).expect("registered").to_vec();
        assert!((got[0] - 10.0).abs() < 1e-4, "{name}: {got:?}");
        assert!((got[1] - 150.0).abs() < 1e-4, "{name}: {got:?}");
        // The deferred motion started at the first update's end (t = 0.5) and ran 1 s of 2.
        assert!((got[2] - 6.0).abs() < 1e-4, "{name}: {got:?}");
        assert_eq!(got[3], 0.0, "{name}: unwritten f32s stay zero");
        world.update(5.0).expect("update");
        let got = world.host_target(id).expect("registered").to_vec();
        assert_eq!(&got[..3], &[10.0, 200.0, 7.0], "{name}: final values");
        assert!(world.is_empty());
    }
}

#[test]
fn a_steady_array_follows_when_its_last_motion_goes() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let id = world.add_host_target(3).unwrap();
        let handles: Vec<MotionHandle> = (0..3u32)
            .map(|k| {
                Motion::new(0.0f32, 10.0 * (k + 1) as f32, 10.0)
                    .ease(Ease::Linear)
                    .target(id.at(k, 1, 0))
                    .run(&mut world)
                    .expect("targeted motion")
            })
            .collect();
        // Two updates without changes (the second fills from merged runs).
        let near =
            |got: &[f32], want: [f32; 3]| got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-4);
        world.update(1.0).expect("update");
        world.update(1.0).expect("update");
        let got = world.host_target(id).unwrap();
        assert!(near(got, [2.0, 4.0, 6.0]), "{name}: {got:?}");
        // The newest motion goes (nothing moves into its entry), then steady updates again.
        world.cancel(handles[2]).expect("live");
        let last = world.host_target(id).unwrap()[2];
        for t in [3.0, 4.0, 5.0] {
            world.update(1.0).expect("update");
            let got = world.host_target(id).unwrap();
            assert!(
                near(got, [t, 2.0 * t, 6.0]) && got[2] == last,
                "{name}: at {t} s: {got:?}; the cancelled motion's last value stays"
            );
        }
    }
}

/// A one-thread pass fills host arrays a tile of rows at a time, while the tile's outputs
/// are in cache: a world of many tiles (16k rows each), one array written in row order and
/// one in reverse, through cancellations, on one thread and on two, against hand-worked
/// linear values.
#[test]
fn large_worlds_fill_every_tile_of_rows() {
    const N: u32 = 70_000; // 140k rows: two parts on two threads
    for threads in [1, 2] {
        let mut world = MotionWorld::new();
        world.set_cpu_threads(threads);
        let scalars = world.add_host_target(N as usize).unwrap();
        let vectors = world.add_host_target(3 * N as usize).unwrap();
        let mut handles = Vec::new();
        for i in 0..N {
            let x = i as f32;
            let scalar = Motion::new(0.0f32, x, 1.0)
                .ease(Ease::Linear)
                .target(scalars.at(i, 1, 0))
                .run(&mut world)
                .expect("valid motion");
            Motion::new(Vec3::ZERO, Vec3::new(x, 2.0 * x, 1.0), 2.0)
                .ease(Ease::Linear)
                .target(vectors.at(N - 1 - i, 3, 0))
                .run(&mut world)
                .expect("valid motion");
            handles.push(scalar);
        }
        let check = |world: &MotionWorld, t: f32, cancelled: &dyn Fn(u32) -> bool| {
            let s = world.host_target(scalars).expect("registered");
            let v = world.host_target(vectors).expect("registered");
            for i in (0..N).filter(|&i| !cancelled(i)) {
                let x = i as f32;
                assert_eq!(s[i as usize], x * t, "{threads} threads, t {t}, scalar {i}");
                let at = 3 * (N - 1 - i) as usize;
                let want = [x * t / 2.0, x * t, t / 2.0];
                assert_eq!(&v[at..at + 3], &want, "{threads} threads, t {t}, vec3 {i}");
            }
        };
        // Updates after the first reuse the runs built from the entries.
        for t in [0.25, 0.5] {
            world.update(0.25).expect("valid delta");
            check(&world, t, &|_| false);
        }
        // Cancelling every third scalar motion moves rows (swap-removes) and entries.
        for (i, &h) in handles.iter().enumerate().step_by(3) {
            world.cancel(h).expect("live motion");
            assert!(!world.is_active(h), "motion {i} cancelled");
        }
        for t in [0.625, 0.75, 0.875] {
            world.update(0.125).expect("valid delta");
            check(&world, t, &|i| i % 3 == 0);
        }
    }
}
