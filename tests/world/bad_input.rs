//! Bad input is a typed error that leaves the world unchanged (docs/design.md invariant 6,
//! docs/semantics.md §2 "loops(0) is rejected"): builder settings, update deltas, handle
//! arguments.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use wgpu_tween::{
    BuildError, DelayType, EaseMode, LoopType, Motion, MotionError, MotionHandle, MotionStatus,
    MotionWorld, ParametricEase, TimeDeltas, TimeKind, UpdateError,
};

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

/// `a` and `b` are the same number (NaN equals NaN).
fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// A world with one reference motion R (0 → 100 over 1 s, with a counting bind) advanced to
/// T = 0.25, so R's value is 25.
struct Fixture {
    world: MotionWorld,
    r: MotionHandle,
    r_binds: Arc<AtomicUsize>,
}

impl Fixture {
    fn new() -> Self {
        let mut world = MotionWorld::new();
        let r_binds = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&r_binds);
        let r = Motion::new(0.0f32, 100.0, 1.0)
            .bind(&mut world, move |_| {
                counter.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap();
        world.update(0.25).unwrap();
        Fixture { world, r, r_binds }
    }

    /// The observable state: len, R's value, time, status, speed, bind count, world times.
    fn snapshot(&self) -> (usize, f32, f64, MotionStatus, f32, usize, [f64; 3]) {
        let w = &self.world;
        (
            w.len(),
            w.value::<f32>(self.r).unwrap(),
            w.time(self.r).unwrap(),
            w.status(self.r).unwrap(),
            w.playback_speed(self.r).unwrap(),
            self.r_binds.load(Ordering::SeqCst),
            TimeKind::ALL.map(|k| w.world_time(k)),
        )
    }
}

/// One bad builder case: a name, the motion, the error it must give.
type Case = (&'static str, fn() -> Motion<f32>, fn(&BuildError) -> bool);

fn cases() -> Vec<Case> {
    use BuildError::*;
    vec![
        (
            "NaN from",
            || Motion::new(NAN, 1.0, 1.0),
            |e| matches!(e, NonFiniteValue { which: "start", lane: 0, value } if value.is_nan()),
        ),
        (
            "+inf from",
            || Motion::new(INF, 1.0, 1.0),
            |e| matches!(e, NonFiniteValue { which: "start", lane: 0, value } if *value == INF),
        ),
        (
            "NaN to",
            || Motion::new(0.0, NAN, 1.0),
            |e| matches!(e, NonFiniteValue { which: "end", lane: 0, value } if value.is_nan()),
        ),
        (
            "-inf to",
            || Motion::new(0.0, -INF, 1.0),
            |e| matches!(e, NonFiniteValue { which: "end", lane: 0, value } if *value == -INF),
        ),
        (
            "negative duration",
            || Motion::new(0.0, 1.0, -1.0),
            |e| *e == InvalidDuration(-1.0),
        ),
        (
            "NaN duration",
            || Motion::new(0.0, 1.0, NAN),
            |e| matches!(e, InvalidDuration(d) if d.is_nan()),
        ),
        (
            "infinite duration",
            || Motion::new(0.0, 1.0, INF),
            |e| *e == InvalidDuration(INF),
        ),
        (
            "negative delay",
            || Motion::new(0.0, 1.0, 1.0).delay(-0.5),
            |e| *e == InvalidDelay(-0.5),
        ),
        (
            "NaN delay",
            || Motion::new(0.0, 1.0, 1.0).delay(NAN),
            |e| matches!(e, InvalidDelay(d) if d.is_nan()),
        ),
        (
            "infinite delay",
            || Motion::new(0.0, 1.0, 1.0).delay_with(INF, DelayType::EveryLoop, false),
            |e| *e == InvalidDelay(INF),
        ),
        (
            "loops 0",
            || Motion::new(0.0, 1.0, 1.0).loops(0, Default::default()),
            |e| *e == InvalidLoops(0),
        ),
        (
            "loops -2",
            || Motion::new(0.0, 1.0, 1.0).loops(-2, Default::default()),
            |e| *e == InvalidLoops(-2),
        ),
        (
            "loops i32::MIN",
            || Motion::new(0.0, 1.0, 1.0).loops(i32::MIN, Default::default()),
            |e| *e == InvalidLoops(i32::MIN),
        ),
        (
            "NaN playback speed",
            || Motion::new(0.0, 1.0, 1.0).playback_speed(NAN),
            |e| matches!(e, InvalidPlaybackSpeed(s) if s.is_nan()),
        ),
        (
            "+inf playback speed",
            || Motion::new(0.0, 1.0, 1.0).playback_speed(INF),
            |e| *e == InvalidPlaybackSpeed(INF),
        ),
        (
            "-inf playback speed",
            || Motion::new(0.0, 1.0, 1.0).playback_speed(-INF),
            |e| *e == InvalidPlaybackSpeed(-INF),
        ),
        // Issue 16 item 4: values that would overflow the f32 range (to − from is infinite).
        (
            "-f32::MAX to f32::MAX",
            || Motion::new(-f32::MAX, f32::MAX, 1.0),
            |e| matches!(e, ValueOverflow { lane: 0, .. }),
        ),
        (
            "Incremental 0 to 3e38",
            || Motion::new(0.0, 3e38, 1.0).loops(3, LoopType::Incremental),
            |e| matches!(e, ValueOverflow { lane: 0, .. }),
        ),
        (
            "Incremental forever 0 to 1e29",
            || Motion::new(0.0, 1e29, 1.0).loops(-1, LoopType::Incremental),
            |e| matches!(e, ValueOverflow { lane: 0, .. }),
        ),
        (
            "Back InOut overshoot f32::MAX",
            || Motion::new(0.0, 1.0, 1.0).ease_with(back(f32::MAX)),
            |e| *e == InvalidEase(back(f32::MAX)),
        ),
        (
            "Elastic period 1e-38",
            || Motion::new(0.0, 1.0, 1.0).ease_with(elastic(1e-38)),
            |e| *e == InvalidEase(elastic(1e-38)),
        ),
        (
            "Back overshoot 1e6 with values near the limit",
            || Motion::new(0.0, 1e34, 1.0).ease_with(back(1e6)),
            |e| matches!(e, ValueOverflow { lane: 0, .. }),
        ),
        (
            "punch frequency 2e38",
            || Motion::punch(0.0, 1.0, 1.0).frequency(2e38),
            |e| matches!(e, InvalidVibration { .. }),
        ),
        (
            "shake frequency 2e38",
            || Motion::shake(0.0, 1.0, 1.0).frequency(2e38),
            |e| matches!(e, InvalidVibration { .. }),
        ),
    ]
}

fn back(overshoot: f32) -> ParametricEase {
    ParametricEase::Back {
        mode: EaseMode::InOut,
        overshoot,
    }
}

fn elastic(period: f32) -> ParametricEase {
    ParametricEase::Elastic {
        mode: EaseMode::Out,
        amplitude: 1.0,
        period,
    }
}

/// Issue 16 item 4: every lane is checked (Vec3 ±3e38), and motions just inside the range
/// build and stay finite.
#[test]
fn values_that_cannot_overflow_build_and_stay_finite() {
    use glam::Vec3;
    let err = Motion::new(Vec3::new(0.0, -3e38, 0.0), Vec3::new(0.0, 3e38, 0.0), 1.0)
        .run(&mut MotionWorld::new())
        .unwrap_err();
    assert!(
        matches!(err, BuildError::ValueOverflow { lane: 1, .. }),
        "{err:?}"
    );
    let mut world = MotionWorld::new();
    let ok = [
        Motion::new(-5e37f32, 5e37, 1.0).ease(wgpu_tween::Ease::OutElastic),
        Motion::new(0.0f32, 2e38, 1.0)
            .ease(wgpu_tween::Ease::OutBack)
            .loops(-1, LoopType::Yoyo),
        Motion::new(0.0f32, 1e28, 1.0).loops(-1, LoopType::Incremental),
        Motion::new(0.0f32, 3e38, 1.0),
        Motion::new(0.0f32, 1.0, 1.0).ease_with(back(1e6)),
        Motion::new(0.0f32, 1.0, 1.0).ease_with(elastic(1e-6)),
    ]
    .map(|m| m.run(&mut world).unwrap());
    for _ in 0..26 {
        world.update(0.037).unwrap();
        for h in ok {
            let v = world.value::<f32>(h).unwrap();
            assert!(v.is_finite(), "{v}");
        }
    }
}

#[test]
fn bad_builder_settings_are_typed_errors_and_change_nothing() {
    let mut fx = Fixture::new();
    let commands = fx.world.commands();
    let before = fx.snapshot();
    assert_eq!((before.0, before.1), (1, 25.0));
    for (name, make, expected) in cases() {
        // bind: the error, and the bind never called (no immediate bind).
        let called = Arc::new(AtomicUsize::new(0));
        let c = Arc::clone(&called);
        let err = make()
            .bind(&mut fx.world, move |_| {
                c.fetch_add(1, Ordering::SeqCst);
            })
            .expect_err(name);
        assert!(expected(&err), "{name}: unexpected error {err:?}");
        assert_eq!(called.load(Ordering::SeqCst), 0, "{name}: bind was called");
        // run and run_deferred: the same error.
        let err = make().run(&mut fx.world).expect_err(name);
        assert!(expected(&err), "{name}: run gave {err:?}");
        let err = make().run_deferred(&commands).expect_err(name);
        assert!(expected(&err), "{name}: run_deferred gave {err:?}");
        let err = make().bind_deferred(&commands, |_| {}).expect_err(name);
        assert!(expected(&err), "{name}: bind_deferred gave {err:?}");

        let now = fx.snapshot();
        assert_eq!(now.0, before.0, "{name}: len changed");
        assert!(same(now.1, before.1), "{name}: value changed");
        assert_eq!(now, before, "{name}: world changed");
    }
    // Nothing was queued by the deferred forms either.
    fx.world.update(0.25).unwrap();
    assert_eq!(fx.world.len(), 1);
    assert_eq!(fx.world.value::<f32>(fx.r), Ok(50.0));
}

#[test]
fn non_finite_lane_of_a_vector_reports_its_lane() {
    let mut fx = Fixture::new();
    let before = fx.snapshot();
    let err = Motion::new([0.0f32, 1.0, 2.0], [3.0, 4.0, NAN], 1.0)
        .run(&mut fx.world)
        .unwrap_err();
    assert!(
        matches!(err, BuildError::NonFiniteValue { which: "end", lane: 2, value } if value.is_nan()),
        "{err:?}"
    );
    let err = Motion::new([0.0f32, -INF, 2.0, 3.0], [0.0; 4], 1.0)
        .run(&mut fx.world)
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::NonFiniteValue {
            which: "start",
            lane: 1,
            value: -INF
        }
    );
    assert_eq!(fx.snapshot(), before);
}

#[test]
fn bad_update_deltas_are_refused_and_change_nothing() {
    let mut fx = Fixture::new();
    let commands = fx.world.commands();
    // A queued command must not be applied by a refused update either.
    commands.set_time(fx.r, 0.75);
    let before = fx.snapshot();
    assert_eq!(before.6, [0.25; 3]);

    let bad: [(f64, f64); 4] = [
        (f64::NAN, f64::NAN),
        (-0.1, -0.1),
        (f64::INFINITY, f64::INFINITY),
        (f64::NEG_INFINITY, f64::NEG_INFINITY),
    ];
    for (dt, value) in bad {
        let err = fx.world.update(dt).unwrap_err();
        let UpdateError::InvalidDelta { kind, value: got } = err else {
            panic!("update({dt}): unexpected error {err:?}");
        };
        assert_eq!(kind, "scaled", "update({dt})");
        assert!(
            got.to_bits() == value.to_bits() || (got.is_nan() && value.is_nan()),
            "update({dt}) reported {got}"
        );
        assert_eq!(fx.snapshot(), before, "update({dt}) changed the world");
    }
    // Per-kind deltas: the first bad kind is named, nothing advances (not even good kinds).
    for (deltas, which) in [
        (
            TimeDeltas {
                scaled: 0.1,
                unscaled: -1.0,
                realtime: 0.1,
            },
            "unscaled",
        ),
        (
            TimeDeltas {
                scaled: 0.1,
                unscaled: 0.1,
                realtime: f64::NAN,
            },
            "realtime",
        ),
        (
            TimeDeltas {
                scaled: f64::INFINITY,
                unscaled: 0.1,
                realtime: 0.1,
            },
            "scaled",
        ),
    ] {
        let err = fx.world.update_with(deltas).unwrap_err();
        assert!(
            matches!(err, UpdateError::InvalidDelta { kind, .. } if kind == which),
            "{deltas:?}: {err:?}"
        );
        assert_eq!(fx.snapshot(), before, "{deltas:?} changed the world");
    }
    // A zero delta (and -0.0) is fine; then the queued set_time applies.
    fx.world.update(-0.0).unwrap();
    assert_eq!(fx.world.time(fx.r), Ok(0.75));
    assert_eq!(fx.world.value::<f32>(fx.r), Ok(75.0));
    assert_eq!(fx.world.world_time(TimeKind::Scaled), 0.25);
}

#[test]
fn bad_handle_arguments_are_invalid_argument_and_change_nothing() {
    let mut fx = Fixture::new();
    let r = fx.r;
    let before = fx.snapshot();
    for time in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let err = fx.world.set_time(r, time).unwrap_err();
        assert!(
            matches!(err, MotionError::InvalidArgument { handle, what: "time", value }
                if handle == r && (value.to_bits() == time.to_bits() || value.is_nan() && time.is_nan())),
            "set_time({time}): {err:?}"
        );
        assert_eq!(fx.snapshot(), before, "set_time({time}) changed the world");
    }
    for speed in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
        let err = fx.world.set_playback_speed(r, speed).unwrap_err();
        assert!(
            matches!(err, MotionError::InvalidArgument { handle, what: "playback speed", value }
                if handle == r && (value == f64::from(speed) || value.is_nan() && speed.is_nan())),
            "set_playback_speed({speed}): {err:?}"
        );
        assert_eq!(
            fx.snapshot(),
            before,
            "set_playback_speed({speed}) changed the world"
        );
    }
    // The same through commands: silently dropped, the motion plays on at speed 1.
    let commands = fx.world.commands();
    commands.set_time(r, f64::NAN);
    commands.set_playback_speed(r, f32::INFINITY);
    fx.world.update(0.25).unwrap();
    assert_eq!(fx.world.time(r), Ok(0.5));
    assert_eq!(fx.world.value::<f32>(r), Ok(50.0));
    assert_eq!(fx.world.playback_speed(r), Ok(1.0));
    assert_eq!(fx.r_binds.load(Ordering::SeqCst), before.5 + 1);
    // And a value type of the wrong shape is a type mismatch, not garbage.
    assert_eq!(
        fx.world.value::<[f32; 2]>(r),
        Err(MotionError::TypeMismatch(r))
    );
}
