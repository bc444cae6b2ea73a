//! Groups (docs/semantics.md §9) and `on_start` (§6) on every executor, against hand-worked
//! values. Every delta and duration is a multiple of 1/8 s, so the clocks are exact: a
//! group's clock is `anchor + (W − anchor_world) · speed`, worked out by hand below.

use std::sync::{Arc, Mutex};

use wgpu_tween::{
    BuildError, DelayType, GroupError, LoopType, Motion, MotionStatus, MotionWorld, TimeDeltas,
    TimeKind, UpdateError, MAX_GROUPS,
};

use crate::common;

type Log = Arc<Mutex<Vec<String>>>;

fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

/// Pushes `"{name} {x}"` for each value (what the executor produced: the GPU's readback on
/// the GPU executor).
fn bind_log(name: &'static str, log: &Log) -> impl FnMut(f32) + Send + 'static {
    let log = Arc::clone(log);
    move |x| log.lock().unwrap().push(format!("{name} {x}"))
}

fn event_log(what: &'static str, log: &Log) -> impl FnMut() + Send + 'static {
    let log = Arc::clone(log);
    move || log.lock().unwrap().push(what.to_owned())
}

fn loop_log(name: &'static str, log: &Log) -> impl FnMut(u32) + Send + 'static {
    let log = Arc::clone(log);
    move |k| log.lock().unwrap().push(format!("{name} loop {k}"))
}

#[test]
fn pausing_a_group_mid_loop_holds_its_motions_and_their_events() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let g = world.add_group(TimeKind::Scaled).unwrap();
        let seen = log();
        // A: 0 → 8 over 1 s, three Restart loops, in the group; B: the same, outside it.
        Motion::new(0.0f32, 8.0, 1.0)
            .loops(3, LoopType::Restart)
            .group(g)
            .on_loop_complete(loop_log("A", &seen))
            .bind(&mut world, bind_log("A", &seen))
            .unwrap();
        Motion::new(0.0f32, 8.0, 1.0)
            .loops(3, LoopType::Restart)
            .on_loop_complete(loop_log("B", &seen))
            .bind(&mut world, bind_log("B", &seen))
            .unwrap();
        // C: no bind, in the group: its completion is a predicted event in the group's clock.
        let c = Motion::new(0.0f32, 1.0, 1.25)
            .group(g)
            .on_complete(event_log("C complete", &seen))
            .run(&mut world)
            .unwrap();
        assert_eq!(take(&seen), ["A 0", "B 0"], "{name}: immediate binds");
        world.update(0.25).unwrap();
        world.update(0.25).unwrap();
        assert_eq!(take(&seen), ["A 2", "B 2", "A 4", "B 4"], "{name}");

        world.pause_group(g).unwrap();
        assert!(world.is_group_paused(g).unwrap());
        // W 0.75, 1.0, 1.25: B runs on (its loop 1 starts at T = 1), A holds 4 at clock 0.5.
        world.update(0.25).unwrap();
        world.update(0.25).unwrap();
        world.update(0.25).unwrap();
        assert_eq!(
            take(&seen),
            ["A 4", "B 6", "A 4", "B 0", "B loop 1", "A 4", "B 2"],
            "{name}: paused"
        );
        assert_eq!(world.group_time(g).unwrap(), 0.5, "{name}");
        assert_eq!(world.time(c).unwrap(), 0.5, "{name}");
        assert_eq!(world.status(c).unwrap(), MotionStatus::Playing, "{name}");

        world.resume_group(g).unwrap();
        // W 1.5 → group 0.75; W 1.75 → group 1.0: A's loop 1 starts there.
        world.update(0.25).unwrap();
        world.update(0.25).unwrap();
        assert_eq!(
            take(&seen),
            ["A 6", "B 4", "A 0", "A loop 1", "B 6"],
            "{name}: resumed"
        );
        assert_eq!(world.group_time(g).unwrap(), 1.0, "{name}");
        assert!(
            world.is_active(c),
            "{name}: C is at group clock 1.0 of 1.25"
        );
        // W 2.0 → group 1.25: C completes (it would have at W 1.25 outside the group).
        world.update(0.25).unwrap();
        assert_eq!(
            take(&seen),
            ["A 2", "B 0", "B loop 2", "C complete"],
            "{name}: C in order"
        );
        assert!(!world.is_active(c), "{name}");
    }
}

#[test]
fn a_group_speed_change_applies_from_the_next_update() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let g = world.add_group(TimeKind::Scaled).unwrap();
        let seen = log();
        Motion::new(0.0f32, 16.0, 2.0)
            .group(g)
            .immediate_bind(false)
            .bind(&mut world, bind_log("A", &seen))
            .unwrap();
        // Its own playback speed multiplies the group's.
        Motion::new(0.0f32, 16.0, 2.0)
            .group(g)
            .playback_speed(2.0)
            .immediate_bind(false)
            .bind(&mut world, bind_log("B", &seen))
            .unwrap();
        // Two loops of 0.5 s: completes at group clock 1.0.
        Motion::new(0.0f32, 1.0, 0.5)
            .loops(2, LoopType::Yoyo)
            .group(g)
            .on_complete(event_log("C complete", &seen))
            .run(&mut world)
            .unwrap();
        world.update(0.25).unwrap(); // group 0.25
        world.set_group_speed(g, 2.0).unwrap();
        assert_eq!(world.group_time(g).unwrap(), 0.25, "{name}: continuous");
        world.update(0.25).unwrap(); // group 0.75
        world.set_group_speed(g, 0.5).unwrap();
        world.update(0.25).unwrap(); // group 0.875
        assert_eq!(
            take(&seen),
            ["A 2", "B 4", "A 6", "B 12", "A 7", "B 14"],
            "{name}"
        );
        assert_eq!(world.group_speed(g).unwrap(), 0.5);
        world.update(0.25).unwrap(); // group 1.0: B and C complete
        assert_eq!(take(&seen), ["A 8", "B 16", "C complete"], "{name}");
        // A speed of 0 stops the clock like a pause.
        world.set_group_speed(g, 0.0).unwrap();
        world.update(0.25).unwrap();
        assert_eq!(take(&seen), ["A 8"], "{name}");
        assert_eq!(world.group_time(g).unwrap(), 1.0);

        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            assert!(
                matches!(
                    world.set_group_speed(g, bad),
                    Err(GroupError::InvalidSpeed(_))
                ),
                "{name}: speed {bad}"
            );
        }
        assert_eq!(world.group_speed(g).unwrap(), 0.0, "{name}: unchanged");
    }
}

#[test]
fn a_group_nests_in_its_time_kind() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let ui = world.add_group(TimeKind::Unscaled).unwrap();
        let real = world.add_group(TimeKind::Realtime).unwrap();
        world.set_group_speed(ui, 0.5).unwrap();
        let seen = log();
        // The group's kind wins over the motion's own.
        Motion::new(0.0f32, 4.0, 1.0)
            .time_kind(TimeKind::Scaled)
            .group(ui)
            .immediate_bind(false)
            .bind(&mut world, bind_log("ui", &seen))
            .unwrap();
        Motion::new(0.0f32, 4.0, 4.0)
            .group(real)
            .immediate_bind(false)
            .bind(&mut world, bind_log("real", &seen))
            .unwrap();
        Motion::new(0.0f32, 4.0, 1.0)
            .immediate_bind(false)
            .bind(&mut world, bind_log("game", &seen))
            .unwrap();
        // The game is paused (scaled time stands still).
        world
            .update_with(TimeDeltas {
                scaled: 0.0,
                unscaled: 0.5,
                realtime: 0.5,
            })
            .unwrap();
        world
            .update_with(TimeDeltas {
                scaled: 0.25,
                unscaled: 0.25,
                realtime: 1.0,
            })
            .unwrap();
        assert_eq!(
            take(&seen),
            ["ui 1", "real 0.5", "game 0", "ui 1.5", "real 1.5", "game 1"],
            "{name}"
        );
        assert_eq!(world.group_time(ui).unwrap(), 0.375);
        assert_eq!(world.group_time(real).unwrap(), 1.5);

        // A group made later starts at its kind's world time; its motions at clock 0.
        let late = world.add_group(TimeKind::Unscaled).unwrap();
        assert_eq!(world.group_time(late).unwrap(), 0.75);
        let h = Motion::new(0.0f32, 4.0, 1.0)
            .group(late)
            .run(&mut world)
            .unwrap();
        assert_eq!(world.time(h).unwrap(), 0.0);
        world.update(0.5).unwrap();
        assert_eq!(world.time(h).unwrap(), 0.5, "{name}");
        assert_eq!(world.value::<f32>(h).unwrap(), 2.0, "{name}");
    }
}

#[test]
fn completing_and_cancelling_a_group_go_in_creation_order() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let g = world.add_group(TimeKind::Scaled).unwrap();
        let other = world.add_group(TimeKind::Scaled).unwrap();
        let seen = log();
        let a = Motion::new(0.0f32, 4.0, 1.0)
            .group(g)
            .immediate_bind(false)
            .on_complete(event_log("A complete", &seen))
            .bind(&mut world, bind_log("A", &seen))
            .unwrap();
        let b = Motion::new(0.0f32, 4.0, 1.0)
            .loops(-1, LoopType::Yoyo)
            .group(g)
            .on_cancel(event_log("B cancel", &seen))
            .run(&mut world)
            .unwrap();
        let d = Motion::new(0.0f32, 4.0, 1.0)
            .group(other)
            .on_complete(event_log("D complete", &seen))
            .run(&mut world)
            .unwrap();
        let c = Motion::new(0.0f32, 4.0, 2.0)
            .loops(2, LoopType::Restart)
            .group(g)
            .on_loop_complete(loop_log("C", &seen))
            .on_complete(event_log("C complete", &seen))
            .run(&mut world)
            .unwrap();
        world.update(0.25).unwrap();
        assert_eq!(take(&seen), ["A 1"], "{name}");
        // B loops forever: left as it is.
        assert_eq!(world.complete_group(g).unwrap(), 2, "{name}");
        assert_eq!(
            take(&seen),
            ["A 4", "A complete", "C loop 2", "C complete"],
            "{name}"
        );
        assert!(!world.is_active(a) && !world.is_active(c) && world.is_active(b));
        assert!(world.is_active(d), "{name}: another group's motion");
        assert_eq!(world.group_motions(g).unwrap().collect::<Vec<_>>(), [b]);

        assert_eq!(world.cancel_group(g).unwrap(), 1, "{name}");
        assert_eq!(take(&seen), ["B cancel"], "{name}");
        assert!(!world.is_active(b));
        // The group stays, empty, and takes new motions.
        assert_eq!(world.group_motions(g).unwrap().count(), 0);
        let e = Motion::new(0.0f32, 1.0, 1.0)
            .group(g)
            .run(&mut world)
            .unwrap();
        assert_eq!(world.group_motions(g).unwrap().collect::<Vec<_>>(), [e]);

        // Removing cancels what is left; the id names nothing from then on.
        world.remove_group(g).unwrap();
        assert!(!world.is_active(e));
        assert_eq!(world.pause_group(g), Err(GroupError::Unknown(g)));
        assert_eq!(
            Motion::new(0.0f32, 1.0, 1.0).group(g).run(&mut world).err(),
            Some(BuildError::Group(GroupError::Unknown(g)))
        );
        // Its slot's next group is another id.
        let reused = world.add_group(TimeKind::Scaled).unwrap();
        assert_ne!(reused, g);
        assert_eq!(world.group_motions(g).err(), Some(GroupError::Unknown(g)));
        world.update(1.0).unwrap();
        assert_eq!(take(&seen), ["D complete"], "{name}");
    }
}

#[test]
fn group_ids_belong_to_their_world_and_are_limited() {
    let mut world = MotionWorld::new();
    let mut other = MotionWorld::new();
    let g = other.add_group(TimeKind::Scaled).unwrap();
    assert_eq!(world.group_speed(g), Err(GroupError::Unknown(g)));
    assert!(matches!(
        Motion::new(0.0f32, 1.0, 1.0).group(g).run(&mut world),
        Err(BuildError::Group(GroupError::Unknown(_)))
    ));
    let ids: Vec<_> = (0..MAX_GROUPS)
        .map(|_| world.add_group(TimeKind::Realtime).unwrap())
        .collect();
    assert_eq!(world.add_group(TimeKind::Scaled), Err(GroupError::TooMany));
    world.remove_group(ids[7]).unwrap();
    let reused = world.add_group(TimeKind::Scaled).unwrap();
    // Every group's clock is its own, the last clock of the table's too.
    let h = Motion::new(0.0f32, 8.0, 1.0)
        .group(reused)
        .run(&mut world)
        .unwrap();
    let last = ids[MAX_GROUPS - 1];
    let h_last = Motion::new(0.0f32, 8.0, 1.0)
        .group(last)
        .run(&mut world)
        .unwrap();
    world.set_group_speed(last, 2.0).unwrap();
    world.pause_group(ids[0]).unwrap();
    world.update(0.25).unwrap();
    assert_eq!(world.value::<f32>(h).unwrap(), 2.0);
    assert_eq!(world.value::<f32>(h_last).unwrap(), 4.0);
    // A group clock past MAX_TIME refuses the update and leaves the world as it was.
    world.set_group_speed(last, 1e30).unwrap();
    assert!(matches!(
        world.update(1.0),
        Err(UpdateError::WorldTimeOverflow { kind: "group", .. })
    ));
    assert_eq!(world.world_time(TimeKind::Scaled), 0.25);
    assert_eq!(world.group_time(last).unwrap(), 0.5);
}

#[test]
fn on_start_fires_once_after_the_delay_and_the_first_value() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let g = world.add_group(TimeKind::Scaled).unwrap();
        world.set_group_speed(g, 2.0).unwrap();
        let seen = log();
        // Created in this order; all three start in the first update (at W = 0.25): the
        // group's motion at group clock 0.5.
        Motion::new(0.0f32, 1.0, 1.0)
            .delay(0.25)
            .on_start(event_log("A start", &seen))
            .bind(&mut world, bind_log("A", &seen))
            .unwrap();
        Motion::new(0.0f32, 1.0, 1.0)
            .delay(0.5)
            .group(g)
            .on_start(event_log("B start", &seen))
            .bind(&mut world, bind_log("B", &seen))
            .unwrap();
        // No bind: its start is a predicted event. Every-loop delay: it starts once.
        Motion::new(0.0f32, 1.0, 0.125)
            .delay_with(0.125, DelayType::EveryLoop, true)
            .loops(3, LoopType::Restart)
            .on_start(event_log("C start", &seen))
            .on_loop_complete(loop_log("C", &seen))
            .run(&mut world)
            .unwrap();
        // Start, loop and complete in one update, after its bind.
        Motion::new(0.0f32, 1.0, 0.0625)
            .delay(0.375)
            .loops(2, LoopType::Restart)
            .on_start(event_log("D start", &seen))
            .on_loop_complete(loop_log("D", &seen))
            .on_complete(event_log("D complete", &seen))
            .immediate_bind(false)
            .bind(&mut world, bind_log("D", &seen))
            .unwrap();
        assert_eq!(
            take(&seen),
            ["A 0", "B 0"],
            "{name}: immediate binds, no start"
        );
        world.update(0.125).unwrap();
        // A and B in their delays (values skipped); C reaches its delay's end: started.
        assert_eq!(take(&seen), ["C start"], "{name}");
        world.update(0.125).unwrap();
        assert_eq!(
            take(&seen),
            ["A 0", "A start", "B 0", "B start", "C loop 1"],
            "{name}"
        );
        world.update(0.25).unwrap();
        assert_eq!(
            take(&seen),
            [
                "A 0.25",
                "B 0.5",
                "C loop 2",
                "D 1",
                "D start",
                "D loop 2",
                "D complete"
            ],
            "{name}"
        );
        world.update(0.5).unwrap();
        assert_eq!(
            take(&seen),
            ["A 0.75", "B 1", "C loop 3"],
            "{name}: no second start"
        );
    }
}

#[test]
fn on_start_waits_for_a_paused_group_and_comes_with_set_time() {
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let g = world.add_group(TimeKind::Scaled).unwrap();
        let seen = log();
        let a = Motion::new(0.0f32, 1.0, 1.0)
            .delay(0.5)
            .group(g)
            .on_start(event_log("A start", &seen))
            .run(&mut world)
            .unwrap();
        let b = Motion::new(0.0f32, 1.0, 1.0)
            .delay(0.5)
            .on_start(event_log("B start", &seen))
            .run(&mut world)
            .unwrap();
        world.update(0.25).unwrap();
        world.pause_group(g).unwrap();
        world.update(0.5).unwrap();
        assert_eq!(take(&seen), ["B start"], "{name}");
        assert_eq!(world.status(a).unwrap(), MotionStatus::Delayed);
        world.resume_group(g).unwrap();
        world.update(0.125).unwrap();
        assert_eq!(
            take(&seen),
            Vec::<String>::new(),
            "{name}: group clock 0.375"
        );
        world.update(0.125).unwrap();
        assert_eq!(take(&seen), ["A start"], "{name}: group clock 0.5");

        // set_time past the delay starts it at once; back and forth does not start it again.
        let c = Motion::new(0.0f32, 1.0, 1.0)
            .delay(0.5)
            .on_start(event_log("C start", &seen))
            .run(&mut world)
            .unwrap();
        world.set_time(c, 0.25).unwrap();
        assert_eq!(take(&seen), Vec::<String>::new());
        world.set_time(c, 0.75).unwrap();
        world.set_time(c, 0.0).unwrap();
        world.update(1.0).unwrap();
        assert_eq!(take(&seen), ["C start"], "{name}");
        let _ = b;
    }
}
