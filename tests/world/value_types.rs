//! Value types beyond f32 vectors: integers with rounding modes, f64, quaternions (slerp and
//! nlerp) and colors, on every executor; and CPU-vs-GPU parity of a world mixing them all.

use crate::common;

use std::sync::{Arc, Mutex};

use glam::{Quat, Vec3};
use wgpu_tween::{
    Angle, Animatable, BuildError, Color, Ease, LoopType, Motion, MotionHandle, MotionWorld,
    RoundingMode,
};

/// Binds a motion and returns the cell its bind writes to.
fn bound<T: Animatable + Default>(world: &mut MotionWorld, motion: Motion<T>) -> Arc<Mutex<T>> {
    let cell = Arc::new(Mutex::new(T::default()));
    let sink = cell.clone();
    motion
        .immediate_bind(false)
        .bind(world, move |v| *sink.lock().unwrap() = v)
        .expect("valid motion");
    cell
}

const MODES: [RoundingMode; 5] = [
    RoundingMode::ToEven,
    RoundingMode::AwayFromZero,
    RoundingMode::ToZero,
    RoundingMode::ToPositiveInfinity,
    RoundingMode::ToNegativeInfinity,
];

/// `(x, [ToEven, AwayFromZero, ToZero, ToPositiveInfinity, ToNegativeInfinity])`.
const ROUNDING_TABLE: [(f64, [i64; 5]); 12] = [
    (0.5, [0, 1, 0, 1, 0]),
    (1.5, [2, 2, 1, 2, 1]),
    (2.5, [2, 3, 2, 3, 2]),
    (-0.5, [0, -1, 0, 0, -1]),
    (-1.5, [-2, -2, -1, -1, -2]),
    (-2.5, [-2, -3, -2, -2, -3]),
    (1.25, [1, 1, 1, 2, 1]),
    (-1.25, [-1, -1, -1, -1, -2]),
    (1.75, [2, 2, 1, 2, 1]),
    (-1.75, [-2, -2, -1, -1, -2]),
    (3.0, [3, 3, 3, 3, 3]),
    (-3.0, [-3, -3, -3, -3, -3]),
];

#[test]
fn rounding_modes_table() {
    for (x, want) in ROUNDING_TABLE {
        for (mode, want) in MODES.into_iter().zip(want) {
            assert_eq!(mode.round(x), want as f64, "{mode:?}({x})");
            let lanes = x.to_lanes_for_test();
            assert_eq!(i32::from_lanes_rounded(lanes, mode), want as i32);
            assert_eq!(i64::from_lanes_rounded(lanes, mode), want);
        }
    }
    // The default is round-half-to-even.
    assert_eq!(RoundingMode::default(), RoundingMode::ToEven);
    assert_eq!(i32::from_lanes(2.5f64.to_lanes_for_test()), 2);
}

trait TestLanes {
    fn to_lanes_for_test(self) -> [f32; 4];
}
impl TestLanes for f64 {
    fn to_lanes_for_test(self) -> [f32; 4] {
        self.to_lanes()
    }
}

#[test]
fn rounding_modes_through_motions_on_every_executor() {
    for exec in common::executors() {
        let mut world = exec.world();
        // 0 → 10x at progress 0.25: x · 2.5, so the table's halves come out of the lerp.
        let mut cells = Vec::new();
        for (x, want) in ROUNDING_TABLE {
            for (mode, want) in MODES.into_iter().zip(want) {
                let to = (x * 4.0) as i32;
                let h32 = bound(&mut world, Motion::new(0i32, to, 1.0).rounding(mode));
                let h64 = bound(
                    &mut world,
                    Motion::new(0i64, i64::from(to), 1.0).rounding(mode),
                );
                let handle = Motion::new(0i32, to, 1.0)
                    .rounding(mode)
                    .run(&mut world)
                    .unwrap();
                cells.push((x, mode, want, h32, h64, handle));
            }
        }
        world.update(0.25).unwrap();
        for (x, mode, want, h32, h64, handle) in cells {
            let at = format!("{} {mode:?}({x})", exec.name());
            assert_eq!(*h32.lock().unwrap(), want as i32, "i32 {at}");
            assert_eq!(*h64.lock().unwrap(), want, "i64 {at}");
            assert_eq!(
                world.value::<i32>(handle).unwrap(),
                want as i32,
                "value {at}"
            );
        }
    }
}

#[test]
fn angles_turn_the_short_way_on_every_executor() {
    for exec in common::executors() {
        let mut world = exec.world();
        // 350° → 10° linearly over 1 s: 20° in all, through 0° (360°), never 180°.
        let forward = bound(
            &mut world,
            Motion::new(Angle::from_degrees(350.0), Angle::from_degrees(10.0), 1.0),
        );
        // 10° → 350°: −20° in all, through 0°.
        let backward = bound(
            &mut world,
            Motion::new(Angle::from_degrees(10.0), Angle::from_degrees(350.0), 1.0).preserve(),
        );
        for (dt, fwd, back) in [(0.25, 355.0, 5.0), (0.25, 360.0, 0.0), (0.5, 370.0, -10.0)] {
            world.update(dt).unwrap();
            let at = exec.name();
            let got = forward.lock().unwrap().to_degrees();
            assert!((got - fwd).abs() < 1e-3, "{at}: forward {got}, want {fwd}");
            let got = backward.lock().unwrap().to_degrees();
            assert!(
                (got - back).abs() < 1e-3,
                "{at}: backward {got}, want {back}"
            );
        }
    }
}

#[test]
fn wide_integers_and_f64_keep_their_end_points() {
    for exec in common::executors() {
        let mut world = exec.world();
        let base = 1i64 << 40;
        let big = bound(&mut world, Motion::new(base, base + 10, 1.0));
        let neg = bound(&mut world, Motion::new(i32::MIN + 1, i32::MAX, 1.0));
        let wide = bound(
            &mut world,
            Motion::new(1.0e9f64 + 0.125, 1.0e9 + 10.125, 1.0),
        );
        world.update(0.25).unwrap();
        assert_eq!(*big.lock().unwrap(), base + 2, "{}", exec.name()); // 2.5 → 2
        assert!((*wide.lock().unwrap() - (1.0e9 + 2.625)).abs() < 1e-3);
        world.update(0.75).unwrap();
        assert_eq!(*big.lock().unwrap(), base + 10);
        assert_eq!(*neg.lock().unwrap(), i32::MAX);
        assert_eq!(*wide.lock().unwrap(), 1.0e9 + 10.125);
    }
}

/// The rotation angle from `a` to `b`, in f64: `2·atan2(|v|, |w|)` of `a⁻¹·b`.
fn angle(a: Quat, b: Quat) -> f64 {
    let a = a.to_array().map(f64::from);
    let b = b.to_array().map(f64::from);
    // a⁻¹ = conj(a) for unit a; r = conj(a) * b.
    let (ax, ay, az, aw) = (-a[0], -a[1], -a[2], a[3]);
    let (bx, by, bz, bw) = (b[0], b[1], b[2], b[3]);
    let w = aw * bw - ax * bx - ay * by - az * bz;
    let x = aw * bx + ax * bw + ay * bz - az * by;
    let y = aw * by - ax * bz + ay * bw + az * bx;
    let z = aw * bz + ax * by - ay * bx + az * bw;
    2.0 * (x * x + y * y + z * z).sqrt().atan2(w.abs())
}

fn length(q: Quat) -> f32 {
    q.to_array().iter().map(|x| x * x).sum::<f32>().sqrt()
}

#[test]
fn slerp_is_unit_shortest_and_constant_velocity() {
    let axis = Vec3::new(1.0, 2.0, -0.5).normalize();
    let start = Quat::from_axis_angle(Vec3::new(0.0, 1.0, 0.0), 0.3);
    for exec in common::executors() {
        let mut world = exec.world();
        // 2 rad the direct way; and 300° around z, whose shortest arc is 60° the other way
        // (stored with w < 0, so the shortest arc needs the sign flip).
        let direct_to = start * Quat::from_axis_angle(axis, 2.0);
        let long_to = Quat::from_rotation_z(300f32.to_radians());
        assert!(long_to.w < 0.0);
        let direct = bound(&mut world, Motion::new(start, direct_to, 1.0));
        let long = bound(&mut world, Motion::new(Quat::IDENTITY, long_to, 1.0));
        let nlerp = bound(&mut world, Motion::new(start, direct_to, 1.0).nlerp());
        let nlerp_long = bound(
            &mut world,
            Motion::new(Quat::IDENTITY, long_to, 1.0).nlerp(),
        );
        for step in 1..=3 {
            world.update(0.25).unwrap();
            let fraction = f64::from(step) * 0.25;
            let name = exec.name();
            let d = *direct.lock().unwrap();
            let l = *long.lock().unwrap();
            let n = *nlerp.lock().unwrap();
            let nl = *nlerp_long.lock().unwrap();
            for q in [d, l, n, nl] {
                assert!((length(q) - 1.0).abs() < 1e-5, "{name}: |{q:?}| ≠ 1");
            }
            let total = angle(start, direct_to);
            assert!((total - 2.0).abs() < 1e-5);
            let got = angle(start, d);
            assert!(
                (got - fraction * total).abs() < 1e-4,
                "{name}: slerp angle at {fraction}: {got} vs {}",
                fraction * total
            );
            // The remaining angle adds up (the path is the great arc, not a detour).
            assert!((angle(d, direct_to) - (1.0 - fraction) * total).abs() < 1e-4);
            let short = 60f64.to_radians();
            let got = angle(Quat::IDENTITY, l);
            assert!(
                (got - fraction * short).abs() < 1e-4,
                "{name}: shortest arc at {fraction}: {got} vs {}",
                fraction * short
            );
            // It turns the short way: about −z, the opposite sense of +300°.
            assert!(l.z < 0.0, "{name}: {l:?} went the long way");
            // Nlerp also takes the shortest arc and agrees with slerp at the midpoint only.
            assert!(angle(Quat::IDENTITY, nl) <= short + 1e-4);
            if step == 2 {
                assert!(angle(d, n) < 1e-4, "{name}: nlerp midpoint {n:?} vs {d:?}");
            } else {
                assert!(
                    angle(d, n) > 1e-3,
                    "{name}: nlerp equals slerp at {fraction}"
                );
            }
        }
    }
}

type Cell<T> = Arc<Mutex<T>>;

/// At loop time `t` of Linear motions: each live quaternion has turned `t·turn` and each
/// live scalar reads `t·to`.
fn check_interleaved(
    world: &MotionWorld,
    name: &str,
    t: f64,
    quats: &[(MotionHandle, f32, Cell<Quat>)],
    scalars: &[(MotionHandle, f32, Cell<f32>)],
) {
    for (h, turn, cell) in quats.iter().filter(|q| world.is_active(q.0)) {
        let q = *cell.lock().unwrap();
        let want = t * f64::from(*turn);
        let got = angle(Quat::IDENTITY, q);
        assert!((length(q) - 1.0).abs() < 1e-5, "{name}: {h:?} |{q:?}| ≠ 1");
        assert!(
            (got - want).abs() < 1e-4,
            "{name}: {h:?} at {t}: {got} vs {want}"
        );
    }
    for (h, to, cell) in scalars.iter().filter(|s| world.is_active(s.0)) {
        let v = f64::from(*cell.lock().unwrap());
        let want = t * f64::from(*to);
        let tolerance = 1e-4 * f64::from(to.max(1.0));
        assert!(
            (v - want).abs() < tolerance,
            "{name}: {h:?} at {t}: {v} vs {want}"
        );
    }
}

/// Rows of different value types interleaved in the same 64-row chunks keep their own values
/// after swap-removes have moved quaternion rows where f32 rows were and back (the CPU
/// executor remembers per chunk which rows are quaternions until its rows change).
#[test]
fn interleaved_types_keep_their_values_through_swap_removes() {
    const N: usize = 192;
    let axis = Vec3::new(0.3, -1.0, 0.4).normalize();
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        // Motion k: a quaternion turning 2 rad + k·1e-3 about `axis` every third, else an
        // f32 0 → k; all Linear, 1 s loops, so the chunks share their ease and loop type.
        let mut scalars = Vec::new();
        let mut quats = Vec::new();
        for k in 0..N {
            if k % 3 == 0 {
                let turn = 2.0 + k as f32 * 1e-3;
                let cell = Arc::new(Mutex::new(Quat::IDENTITY));
                let sink = cell.clone();
                let h = Motion::new(Quat::IDENTITY, Quat::from_axis_angle(axis, turn), 1.0)
                    .loops(-1, LoopType::Restart)
                    .immediate_bind(false)
                    .bind(&mut world, move |v| *sink.lock().unwrap() = v)
                    .expect("valid motion");
                quats.push((h, turn, cell));
            } else {
                let cell = Arc::new(Mutex::new(0.0f32));
                let sink = cell.clone();
                let h = Motion::new(0.0f32, k as f32, 1.0)
                    .loops(-1, LoopType::Restart)
                    .immediate_bind(false)
                    .bind(&mut world, move |v| *sink.lock().unwrap() = v)
                    .expect("valid motion");
                scalars.push((h, k as f32, cell));
            }
        }
        // 0.25 s steps: the bound values are at 0.25, 0.5, 0.75, then a new loop.
        for step in 1..=3 {
            world.update(0.25).unwrap();
            check_interleaved(&world, name, 0.25 * f64::from(step), &quats, &scalars);
        }
        // Cancel every other quaternion and a run of scalars: the last rows move into
        // the holes, mixing the chunks' types anew.
        for (h, ..) in quats.iter().step_by(2) {
            world.cancel(*h).unwrap();
        }
        for (h, ..) in scalars.iter().skip(10).take(20) {
            world.cancel(*h).unwrap();
        }
        for step in 4..=10 {
            world.update(0.25).unwrap();
            check_interleaved(
                &world,
                name,
                (0.25 * f64::from(step)).fract(),
                &quats,
                &scalars,
            );
        }
        assert_eq!(world.len(), N - quats.len().div_ceil(2) - 20, "{name}");
    }
}

#[test]
fn quaternions_are_normalized_and_zero_is_an_error() {
    let mut world = MotionWorld::new();
    let scaled = Quat::from_xyzw(0.0, 0.0, 0.0, 2.0);
    let h = Motion::new(scaled, scaled, 1.0).run(&mut world).unwrap();
    assert_eq!(world.value::<Quat>(h).unwrap(), Quat::IDENTITY);
    let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    assert_eq!(
        Motion::new(Quat::IDENTITY, zero, 1.0).run(&mut world),
        Err(BuildError::ZeroQuaternion { which: "end" })
    );
    // A motion built with nlerp still reads back as a Quat.
    let n = Motion::new(Quat::IDENTITY, Quat::from_rotation_x(1.0), 1.0)
        .nlerp()
        .run(&mut world)
        .unwrap();
    assert!(world.value::<Quat>(n).is_ok());
}

#[test]
fn colors_lerp_per_channel() {
    for exec in common::executors() {
        let mut world = exec.world();
        let c = bound(
            &mut world,
            Motion::new(
                Color::new(1.0, 0.0, 0.5, 1.0),
                Color::new(0.0, 1.0, 0.5, 0.0),
                2.0,
            ),
        );
        world.update(0.5).unwrap();
        let got = *c.lock().unwrap();
        let want = Color::new(0.75, 0.25, 0.5, 0.75);
        for (g, w) in got.to_lanes().iter().zip(want.to_lanes()) {
            assert!((g - w).abs() < 1e-6, "{}: {got:?}", exec.name());
        }
    }
}

/// One motion of a mixed world, recorded as lanes after each update.
type Cells = Vec<(&'static str, Arc<Mutex<[f32; 4]>>)>;

fn mixed_world(world: &mut MotionWorld) -> Cells {
    fn add<T: Animatable>(
        world: &mut MotionWorld,
        cells: &mut Cells,
        name: &'static str,
        m: Motion<T>,
    ) {
        let cell = Arc::new(Mutex::new([0.0; 4]));
        let sink = cell.clone();
        m.immediate_bind(false)
            .bind(world, move |v: T| *sink.lock().unwrap() = v.to_lanes())
            .unwrap();
        cells.push((name, cell));
    }
    let mut cells = Vec::new();
    for (n, ease) in Ease::ALL.into_iter().enumerate() {
        let s = n as f32;
        let lt = [
            LoopType::Restart,
            LoopType::Yoyo,
            LoopType::Flip,
            LoopType::Incremental,
        ][n % 4];
        let q0 = Quat::from_euler(glam::EulerRot::XYZ, 0.1 * s, -0.2, 0.3);
        let q1 = Quat::from_euler(glam::EulerRot::XYZ, -0.4, 0.05 * s, 2.0);
        add(
            world,
            &mut cells,
            "f32",
            Motion::new(s, -2.0 * s, 1.3).ease(ease).loops(3, lt),
        );
        add(
            world,
            &mut cells,
            "vec3",
            Motion::new(Vec3::splat(s), Vec3::new(1.0, -s, 3.0), 0.7)
                .ease(ease)
                .loops(-1, lt),
        );
        add(
            world,
            &mut cells,
            "slerp",
            Motion::new(q0, q1, 0.9).ease(ease).loops(2, lt),
        );
        add(
            world,
            &mut cells,
            "nlerp",
            Motion::new(q0, q1, 0.9).ease(ease).loops(2, lt).nlerp(),
        );
        add(
            world,
            &mut cells,
            "color",
            Motion::new(Color::new(s, 0.0, 1.0, 1.0), Color::BLACK, 1.1).ease(ease),
        );
        add(
            world,
            &mut cells,
            "f64",
            Motion::new(1.0e6 + f64::from(s), -3.0, 1.7).ease(ease),
        );
    }
    cells
}

#[test]
fn cpu_gpu_parity_for_every_value_type() {
    let Some((mut cpu, mut gpu)) = common::cpu_and_gpu_worlds() else {
        return;
    };
    let a = mixed_world(&mut cpu);
    let b = mixed_world(&mut gpu);
    for dt in [0.1, 0.37, 0.05, 0.5, 0.61, 1.3] {
        cpu.update(dt).unwrap();
        gpu.update(dt).unwrap();
        for ((name, x), (_, y)) in a.iter().zip(&b) {
            let (x, y) = (*x.lock().unwrap(), *y.lock().unwrap());
            for (u, v) in x.iter().zip(y) {
                let tol = 2e-4 * f32::max(1.0, u.abs());
                assert!((u - v).abs() <= tol, "{name}: cpu {x:?} gpu {y:?}");
            }
        }
    }
}
