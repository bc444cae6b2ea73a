//! Events fire exactly once, in order, as messages and to observers.

use bevy::prelude::*;
use bevy_wgpu_tween::*;

use crate::common::*;

/// Every event seen, as (frame, what), from messages and from observers separately.
#[derive(Resource, Default)]
struct Log {
    frame: u32,
    messages: Vec<(u32, String)>,
    observed: Vec<(u32, String)>,
}

fn log_messages(
    mut log: ResMut<Log>,
    mut started: MessageReader<TweenStarted>,
    mut looped: MessageReader<TweenLooped>,
    mut completed: MessageReader<TweenCompleted>,
    mut canceled: MessageReader<TweenCanceled>,
) {
    log.frame += 1;
    let f = log.frame;
    // One frame's messages of each kind come in the order they were sent; kinds are read in
    // their lifecycle order here.
    let mut seen: Vec<(u32, String)> = Vec::new();
    seen.extend(started.read().map(|_| (f, "started".to_owned())));
    seen.extend(
        looped
            .read()
            .map(|l| (f, format!("looped {}", l.completed_loops))),
    );
    seen.extend(completed.read().map(|_| (f, "completed".to_owned())));
    seen.extend(canceled.read().map(|_| (f, "canceled".to_owned())));
    log.messages.extend(seen);
}

fn observe(app: &mut App, e: Entity) {
    let mut ec = app.world_mut().entity_mut(e);
    ec.observe(|_: On<TweenStarted>, mut log: ResMut<Log>| {
        let f = log.frame + 1;
        log.observed.push((f, "started".into()))
    });
    ec.observe(|l: On<TweenLooped>, mut log: ResMut<Log>| {
        let f = log.frame + 1;
        log.observed
            .push((f, format!("looped {}", l.completed_loops)))
    });
    ec.observe(|_: On<TweenCompleted>, mut log: ResMut<Log>| {
        let f = log.frame + 1;
        log.observed.push((f, "completed".into()))
    });
    ec.observe(|_: On<TweenCanceled>, mut log: ResMut<Log>| {
        let f = log.frame + 1;
        log.observed.push((f, "canceled".into()))
    });
}

fn logged_app() -> App {
    let mut app = app();
    app.init_resource::<Log>();
    app.add_systems(Last, log_messages);
    app
}

fn entries(v: &[(u32, &str)]) -> Vec<(u32, String)> {
    v.iter().map(|(f, s)| (*f, s.to_string())).collect()
}

#[test]
fn start_loops_and_completion_once_each_in_order() {
    let mut app = logged_app();
    let e = app
        .world_mut()
        .spawn((Transform::default(), LoopEvents))
        .id();
    observe(&mut app, e);
    // Two loops of 0.3 s after a 0.15 s delay: starts in frame 2 (t = 0.2), loops end at
    // t = 0.45 (frame 5) and 0.75 (frame 8), where it completes.
    let m = Motion::new(Vec3::ZERO, Vec3::X, 0.3)
        .delay(0.15)
        .loops(2, LoopType::Restart);
    tween(&mut app, e, Translation, m);
    frames(&mut app, 12);
    let want = entries(&[
        (2, "started"),
        (5, "looped 1"),
        (8, "looped 2"),
        (8, "completed"),
    ]);
    let log = app.world().resource::<Log>();
    assert_eq!(log.messages, want);
    assert_eq!(log.observed, want);
    assert!(app.world().get::<Tweened<Translation>>(e).is_none());
    assert_eq!(translation(&app, e), Vec3::X);
}

#[test]
fn replacing_a_tween_cancels_it_and_starts_from_where_it_was() {
    let mut app = logged_app();
    let e = app.world_mut().spawn(Transform::default()).id();
    observe(&mut app, e);
    tween(
        &mut app,
        e,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::X * 10.0, 1.0),
    );
    frames(&mut app, 3); // at x = 3
                         // Durations off the frame boundaries: 3 × 0.1 s sums to just under an f32 0.3.
    tween(&mut app, e, Translation, Motion::to(Vec3::ZERO, 0.25));
    frames(&mut app, 1); // 0.4 of the way back from 3
    assert_near(translation(&app, e), Vec3::X * 1.8);
    frames(&mut app, 3);
    assert_eq!(translation(&app, e), Vec3::ZERO);
    // The old tween is cancelled when the command runs, before the frame's update starts the
    // new one. No loop events: the entity has no `LoopEvents`.
    let want = [
        (1, "started"),
        (4, "canceled"),
        (4, "started"),
        (6, "completed"),
    ];
    let log = app.world().resource::<Log>();
    assert_eq!(log.observed, entries(&want));
    // Messages of different kinds are read kind by kind: the same, frame by frame.
    let mut messages = log.messages.clone();
    let mut want = entries(&want);
    messages.sort();
    want.sort();
    assert_eq!(messages, want);
}

#[test]
fn completion_future_resolves() {
    let mut app = app();
    let e = app.world_mut().spawn(Transform::default()).id();
    tween(
        &mut app,
        e,
        Translation,
        Motion::new(Vec3::ZERO, Vec3::X, 0.15),
    );
    frames(&mut app, 1);
    let motion = app.world().get::<Tweened<Translation>>(e).unwrap().motion();
    let done = app.world_mut().resource_mut::<Tweens>().completion(motion);
    assert_eq!(done.try_result(), None);
    frames(&mut app, 1);
    assert_eq!(done.try_result(), Some(Ok(())));
    assert_eq!(pollster::block_on(done), Ok(()));
}

#[test]
fn complete_and_cancel_commands() {
    let mut app = logged_app();
    let (a, b) = (
        app.world_mut().spawn(Transform::default()).id(),
        app.world_mut().spawn(Transform::default()).id(),
    );
    for e in [a, b] {
        tween(
            &mut app,
            e,
            Translation,
            Motion::new(Vec3::ZERO, Vec3::X * 10.0, 1.0),
        );
    }
    frames(&mut app, 2);
    app.world_mut()
        .commands()
        .entity(a)
        .complete_tween(Translation);
    app.world_mut()
        .commands()
        .entity(b)
        .cancel_tween(Translation);
    frames(&mut app, 1);
    assert_eq!(translation(&app, a), Vec3::X * 10.0); // final value applied
    assert_near(translation(&app, b), Vec3::X * 2.0); // left where it was
    let log = &app.world().resource::<Log>().messages;
    assert_eq!(log.iter().filter(|(_, s)| s == "completed").count(), 1);
    assert_eq!(log.iter().filter(|(_, s)| s == "canceled").count(), 1);
}
