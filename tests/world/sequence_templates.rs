//! Sequences as templates (issue 19 item 9) on every executor: children given as motions
//! are added by each run, in placement order, and a refused template adds nothing. Expected
//! values are worked by hand from the placements (linear children, docs/semantics.md §8).

use crate::common;

use std::sync::{Arc, Mutex};

use common::executors;
use wgpu_tween::{
    BuildError, LoopType, Motion, MotionHandle, Sequence, SequenceChild, SequenceChildError,
};

type Log = Arc<Mutex<Vec<String>>>;

fn logged(log: &Log, name: &'static str, from: f32, to: f32, duration: f32) -> SequenceChild {
    let (b, c) = (Arc::clone(log), Arc::clone(log));
    let motion = Motion::new(from, to, duration)
        .on_complete(move || c.lock().unwrap().push(format!("{name}:complete")));
    SequenceChild::bound(motion, move |v| {
        b.lock().unwrap().push(format!("{name}={v}"))
    })
}

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

#[test]
fn a_template_runs_any_number_of_times() {
    for exec in executors() {
        let mut world = exec.world();
        let log = Log::default();
        // a 0→10 at 0 s, a pause, b 100→200 at 1.5 s: 2.5 s in all.
        let template = Sequence::new()
            .append(logged(&log, "a", 0.0, 10.0, 1.0))
            .append_interval(0.5)
            .append(logged(&log, "b", 100.0, 200.0, 1.0));
        let first = template.clone().run(&mut world).unwrap();
        assert_eq!(world.total_duration(first).unwrap(), 2.5);
        // The start binds (not-yet-started children last to first, then started ones).
        assert_eq!(take(&log), ["b=100", "a=0"], "{}", exec.name());
        world.update(0.5).unwrap();
        assert_eq!(take(&log), ["b=100", "a=5"], "{}", exec.name());
        let second = template.run(&mut world).unwrap();
        assert_eq!(take(&log), ["b=100", "a=0"], "{}", exec.name());
        assert_eq!(world.len(), 6);
        world.update(1.0).unwrap();
        // First run at 1.5 s: a ends, b starts (a first). Second at 1.0 s: b waits (first,
        // its start value), a ends there.
        assert_eq!(
            take(&log),
            ["a=10", "a:complete", "b=100", "b=100", "a=10", "a:complete"],
            "{}",
            exec.name()
        );
        world.update(1.0).unwrap();
        assert_eq!(
            take(&log),
            ["a=10", "b=200", "b:complete", "a=10", "b=150"],
            "{}",
            exec.name()
        );
        // The sequence's value is its time.
        assert!((world.value::<f32>(second).unwrap() - 2.0).abs() < 1e-6);
    }
}

#[test]
fn children_a_run_adds_fire_in_placement_order() {
    for exec in executors() {
        let mut world = exec.world();
        let log = Log::default();
        // Both end at 1 s: their complete callbacks fire in the order they were placed.
        let template = Sequence::new()
            .append(logged(&log, "x", 0.0, 1.0, 1.0))
            .join(logged(&log, "y", 0.0, 1.0, 1.0));
        template.clone().run(&mut world).unwrap();
        template.run(&mut world).unwrap();
        world.update(1.0).unwrap();
        let completes: Vec<String> = take(&log)
            .into_iter()
            .filter(|e| e.ends_with(":complete"))
            .collect();
        assert_eq!(
            completes,
            ["x:complete", "y:complete", "x:complete", "y:complete"],
            "{}",
            exec.name()
        );
    }
}

#[test]
fn a_template_runs_from_a_callback() {
    for exec in executors() {
        let mut world = exec.world();
        let log = Log::default();
        let template = Sequence::new().append(logged(&log, "a", 0.0, 10.0, 1.0));
        let commands = world.commands();
        Motion::new(0.0f32, 1.0, 0.5)
            .on_complete(move || {
                template.clone().run_deferred(&commands).unwrap();
            })
            .run(&mut world)
            .unwrap();
        world.update(0.5).unwrap(); // the run is made when the commands are applied
        assert_eq!(world.len(), 2, "{}", exec.name()); // the sequence and `a`
        assert_eq!(take(&log).last().map(String::as_str), Some("a=0"));
        world.update(0.5).unwrap();
        assert_eq!(take(&log), ["a=5"], "{}", exec.name());
    }
}

#[test]
fn handles_and_templates_mix() {
    for exec in executors() {
        let mut world = exec.world();
        let h = Motion::new(0.0f32, 4.0, 1.0).run(&mut world).unwrap();
        let seq = Sequence::new()
            .append(Motion::new(0.0f32, 1.0, 0.5).loops(2, LoopType::Yoyo))
            .append(h)
            .run(&mut world)
            .unwrap();
        assert_eq!(world.total_duration(seq).unwrap(), 2.0);
        world.update(1.5).unwrap(); // `h` placed at 1 s: half way
        assert_eq!(world.value::<f32>(h).unwrap(), 2.0, "{}", exec.name());
    }
}

#[test]
fn a_refused_template_adds_nothing() {
    let mut world = wgpu_tween::MotionWorld::new();
    let infinite = Sequence::new()
        .append(Motion::new(0.0f32, 1.0, 1.0))
        .append(Motion::new(0.0f32, 1.0, 1.0).loops(-1, LoopType::Restart));
    assert_eq!(
        infinite.run(&mut world),
        Err(BuildError::InvalidSequenceChild {
            handle: MotionHandle::NONE,
            reason: SequenceChildError::InfiniteLoops,
        })
    );
    assert_eq!(world.len(), 0);
    let fast = Sequence::new().append(Motion::new(0.0f32, 1.0, 1.0).playback_speed(2.0));
    assert!(matches!(
        fast.run(&mut world),
        Err(BuildError::InvalidSequenceChild {
            reason: SequenceChildError::PlaybackSpeed,
            ..
        })
    ));
    assert_eq!(
        Sequence::new()
            .append(Motion::new(0.0f32, 1.0, -1.0))
            .run(&mut world),
        Err(BuildError::InvalidDuration(-1.0))
    );
    // Settings of the sequence itself that are refused.
    let once = Sequence::new().append(Motion::new(0.0f32, 1.0, 1.0));
    assert_eq!(
        once.run_with(&mut world, |m| m.loops(0, LoopType::Restart)),
        Err(BuildError::InvalidLoops(0))
    );
    assert_eq!(world.len(), 0);
    // A stale handle after a template: the template's motion is not added either.
    let stale = Motion::new(0.0f32, 1.0, 1.0).run(&mut world).unwrap();
    world.update(0.1).unwrap();
    let mixed = Sequence::new()
        .append(Motion::new(0.0f32, 1.0, 1.0))
        .append(stale);
    assert!(mixed.run(&mut world).is_err());
    assert_eq!(world.len(), 1);
}
