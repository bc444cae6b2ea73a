//! The `serde` feature (issue 19 item 3): settings, eases, curves and sequences round-trip
//! through JSON, hand-written data (and the example's data file) plays as worked out by
//! hand, and bad data is an error, never a panic.

use std::collections::BTreeMap;

use glam::Vec3;
use serde_json::{from_str, to_string};
use wgpu_tween::{
    AnimationCurve, BuildError, DelayType, Ease, EaseMode, Keyframe, LoopType, MotionData,
    MotionSettings, MotionWorld, ParametricEase, SequenceData, SequenceStep, TimeKind,
    WeightedMode, WrapMode,
};

fn round_trip<T>(value: &T) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    from_str(&to_string(value).unwrap()).unwrap()
}

#[test]
fn settings_eases_curves_and_sequences_round_trip() {
    for ease in Ease::ALL {
        assert_eq!(round_trip(&ease), ease);
        assert_eq!(to_string(&ease).unwrap(), format!("\"{}\"", ease.name()));
    }
    let parametric = [
        ParametricEase::Back {
            mode: EaseMode::InOut,
            overshoot: 2.5,
        },
        ParametricEase::Elastic {
            mode: EaseMode::Out,
            amplitude: 1.5,
            period: 0.4,
        },
        ParametricEase::Steps(7),
        ParametricEase::CubicBezier(0.25, 0.1, 0.25, 1.0),
    ];
    for ease in parametric {
        assert_eq!(round_trip(&ease), ease);
    }
    // A weighted key and a step (an infinite tangent, which JSON writes as null).
    let curve = AnimationCurve::new([
        Keyframe::new(0.0, 0.0),
        Keyframe::with_tangents(0.5, 0.8, 1.0, f32::INFINITY).weights(0.2, 0.7),
        Keyframe::new(1.0, 1.0).weighted_mode(WeightedMode::In),
    ])
    .unwrap()
    .pre_wrap(WrapMode::Loop)
    .post_wrap(WrapMode::PingPong);
    assert_eq!(round_trip(&curve), curve);

    let settings = MotionSettings {
        duration: 2.0,
        ease: Ease::InOutBounce,
        parametric_ease: Some(parametric[1]),
        curve: Some(curve),
        delay: 0.25,
        delay_type: DelayType::EveryLoop,
        skip_values_during_delay: false,
        loops: -1,
        loop_type: LoopType::Flip,
        time_kind: TimeKind::Realtime,
        playback_speed: -0.5,
        immediate_bind: false,
        cancel_on_error: true,
        preserve: true,
    };
    assert_eq!(round_trip(&settings), settings);

    let motion = |from, to| MotionData {
        from,
        to,
        settings: MotionSettings::default(),
    };
    let sequence = SequenceData {
        steps: vec![
            SequenceStep::Append(motion(Vec3::ZERO, Vec3::X)),
            SequenceStep::Join(MotionData {
                settings: settings.clone(),
                ..motion(Vec3::Y, Vec3::Z)
            }),
            SequenceStep::Insert {
                at: 0.75,
                motion: motion(Vec3::ONE, Vec3::NEG_ONE),
            },
            SequenceStep::Interval(0.5),
        ],
    };
    assert_eq!(round_trip(&sequence), sequence);
}

#[test]
fn hand_written_settings_play_as_worked_out() {
    // Missing fields take `Motion::new`'s defaults.
    let yoyo: MotionSettings =
        from_str(r#"{ "duration": 2.0, "ease": "OutQuad", "loops": 3, "loop_type": "Yoyo" }"#)
            .unwrap();
    assert_eq!(yoyo.delay, 0.0);
    assert_eq!(yoyo.playback_speed, 1.0);
    let mut world = MotionWorld::new();
    let data = MotionData {
        from: 0.0f32,
        to: 10.0,
        settings: yoyo,
    };
    let h = data.motion().run(&mut world).unwrap();
    assert_eq!(world.total_duration(h).unwrap(), 6.0);
    world.update(3.0).unwrap(); // half way back in loop 2: E(1 − 0.5) = 0.75
    assert_eq!(world.value::<f32>(h).unwrap(), 7.5);
}

#[test]
fn the_example_data_file_loads_and_plays() {
    let ui: serde_json::Value = from_str(include_str!("../../examples/data/ui.json")).unwrap();
    let presets: BTreeMap<String, MotionSettings> =
        serde_json::from_value(ui["presets"].clone()).unwrap();
    let blink: SequenceData<f32> = serde_json::from_value(ui["blink"].clone()).unwrap();
    assert_eq!(presets["pop"].loop_type, LoopType::Yoyo);
    assert_eq!(presets["fade"].delay, 0.25);

    let mut world = MotionWorld::new();
    let run = |world: &mut MotionWorld, name: &str| {
        wgpu_tween::Motion::new(0.0f32, 100.0, 1.0)
            .with_settings(&presets[name])
            .run(world)
            .unwrap()
    };
    let steps = run(&mut world, "steps");
    let settle = run(&mut world, "settle");
    let seq = blink.sequence(|_| {}).run(&mut world).unwrap();
    assert_eq!(world.total_duration(seq).unwrap(), 1.0); // 0.25 + 0.5 + 0.25
    world.update(0.6).unwrap();
    assert_eq!(world.value::<f32>(steps).unwrap(), 50.0); // floor(0.6·4)/4
                                                          // Flat keys (0.5, 1) and (1, 0.5): cubic Hermite at s = 0.2 falls by 3s² − 2s³ = 0.104
                                                          // of 0.5.
    assert!((world.value::<f32>(settle).unwrap() - 94.8).abs() < 1e-3);
    world.update(0.1).unwrap();
    assert_eq!(world.value::<f32>(steps).unwrap(), 50.0);
}

#[test]
fn bad_data_is_an_error() {
    let bad = [
        r#"{ "ease": "OutQuadd" }"#,                 // no such ease
        r#"{ "duratoin": 1.0 }"#,                    // no such field
        r#"{ "loops": "twice" }"#,                   // wrong type
        r#"{ "parametric_ease": { "Steps": -1 } }"#, // not a u32
        r#"{ "curve": { "keys": [] } }"#,            // a curve without keys
        r#"{ "curve": { "keys": [{ "time": 1e30, "value": 0 }] } }"#, // beyond the range
        r#"{ "duration": 1.0 "#,                     // truncated
    ];
    for text in bad {
        assert!(from_str::<MotionSettings>(text).is_err(), "{text}");
    }
    let err = from_str::<MotionSettings>(r#"{ "curve": { "keys": [] } }"#).unwrap_err();
    assert!(
        err.to_string()
            .contains(&BuildError::EmptyCurve.to_string()),
        "{err}"
    );
    assert!(from_str::<SequenceData<f32>>(r#"{ "steps": [{ "Jump": 1.0 }] }"#).is_err());

    // Numbers past f32::MAX (3.4028235e38) are refused as written, not read as infinite: an
    // overflowing tangent would otherwise be a step, a time or value "inf".
    for key in [
        r#"{ "time": 0, "value": 0, "out_tangent": 1e39 }"#,
        r#"{ "time": 0, "value": 0, "in_tangent": -1e39 }"#,
        r#"{ "time": 1e39, "value": 0 }"#,
        r#"{ "time": 0, "value": -4e38 }"#,
        r#"{ "time": 0, "value": 0, "in_weight": 1e40, "weighted": "In" }"#,
    ] {
        let err = from_str::<Keyframe>(key).unwrap_err().to_string();
        assert!(err.contains("does not fit in an f32"), "{key}: {err}");
    }
    // The largest f32 itself reads (and a curve then refuses it as huge), and null is a step.
    let max: Keyframe =
        from_str(r#"{ "time": 0, "value": 0, "out_tangent": 3.4028235e38 }"#).unwrap();
    assert_eq!(max.out_tangent, f32::MAX);
    let step: Keyframe = from_str(r#"{ "time": 0, "value": 0, "out_tangent": null }"#).unwrap();
    assert_eq!(step.out_tangent, f32::INFINITY);

    // Well-formed data with invalid settings reads, and is refused when run.
    let mut world = MotionWorld::new();
    for (text, want) in [
        (r#"{ "duration": -1.0 }"#, BuildError::InvalidDuration(-1.0)),
        (r#"{ "loops": 0 }"#, BuildError::InvalidLoops(0)),
        (
            r#"{ "parametric_ease": { "Steps": 0 } }"#,
            BuildError::InvalidEase(ParametricEase::Steps(0)),
        ),
    ] {
        let settings: MotionSettings = from_str(text).unwrap();
        let data = MotionData {
            from: 0.0f32,
            to: 1.0,
            settings,
        };
        assert_eq!(data.motion().run(&mut world), Err(want), "{text}");
    }
    assert_eq!(world.len(), 0);
}
