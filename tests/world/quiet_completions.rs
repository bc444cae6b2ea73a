//! Motions that nothing watches finish in a batch after the update's visits
//! (`src/world/quiet.rs`), out of creation order; watched ones among them still get their
//! visit. Either way a finished motion's handle is stale at once, `last_value` gives its end
//! value until the next update, its target holds it, and a new motion in its slot or row
//! shows only its own value.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use wgpu_tween::{BatchItem, Ease, Motion, MotionError, MotionHandle};

#[test]
fn unwatched_and_watched_motions_finish_alike_among_each_other() {
    const N: usize = 64;
    for exec in common::executors() {
        let name = exec.name();
        let mut world = exec.world();
        let ring = world.add_host_target(2 * N).expect("host target");
        let completed = Arc::new(AtomicUsize::new(0));
        let mut old: Vec<MotionHandle> = Vec::new();
        for frame in 0..6usize {
            // Each frame's batch writes half of the ring; one motion in four waits on a
            // completion future, and a motion with a complete callback runs beside them.
            let base = (frame % 2) * N;
            let particle = Motion::new(0.0f32, 0.0, 1.5).ease(Ease::OutQuad);
            let mut handles = Vec::new();
            particle
                .run_batch(
                    &mut world,
                    N,
                    |i| {
                        BatchItem::new(0.0, (frame * N + i) as f32 + 1.0).target(ring.at(
                            (base + i) as u32,
                            1,
                            0,
                        ))
                    },
                    &mut handles,
                )
                .expect("valid batch");
            let mut futures = Vec::new();
            for &h in handles.iter().skip(1).step_by(4) {
                futures.push(world.completion(h));
            }
            let done = Arc::clone(&completed);
            let watched = Motion::new(0.0f32, -1.0, 1.5)
                .on_complete(move || {
                    done.fetch_add(1, Ordering::Relaxed);
                })
                .run(&mut world)
                .expect("valid");
            // 1.5 s at 1 s per update: live after one update, finished in the second.
            world.update(1.0).expect("update");
            for &h in &handles {
                assert!(world.is_active(h), "{name}: frame {frame}");
            }
            for h in old.drain(..) {
                assert_eq!(
                    world.value::<f32>(h),
                    Err(MotionError::Destroyed(h)),
                    "{name}"
                );
            }
            world.update(1.0).expect("update");
            let array = world.host_target(ring).expect("ring");
            for (i, &h) in handles.iter().enumerate() {
                let end = (frame * N + i) as f32 + 1.0;
                assert!(!world.is_active(h), "{name}: frame {frame}, motion {i}");
                assert_eq!(world.last_value::<f32>(h), Ok(end), "{name}: {i}");
                assert_eq!(array[base + i], end, "{name}: frame {frame}, element {i}");
            }
            assert!(!world.is_active(watched));
            assert_eq!(completed.load(Ordering::Relaxed), frame + 1, "{name}");
            for done in futures {
                assert_eq!(pollster::block_on(done), Ok(()), "{name}");
            }
            assert_eq!(world.len(), 0, "{name}: frame {frame}");
            old = handles;
        }
        // The next update closes the window of final values; new motions take the slots
        // and rows, and show their own values.
        let fresh = Motion::new(5.0f32, 5.0, 10.0)
            .run(&mut world)
            .expect("valid");
        world.update(0.5).expect("update");
        assert_eq!(world.value::<f32>(fresh), Ok(5.0), "{name}");
        for &h in &old {
            assert_eq!(world.last_value::<f32>(h), Err(MotionError::Destroyed(h)));
            assert_ne!(h, fresh);
        }
    }
}
