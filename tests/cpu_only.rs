//! What a build without the `gpu` feature (`default-features = false`) gives: the whole
//! motion API on the CPU executor. Runs in every build; CI runs it without the feature too.

use wgpu_tween::error::GpuError;
use wgpu_tween::{Ease, Executor, Motion, MotionWorld};

#[test]
fn a_world_without_a_context_runs_on_the_cpu_and_refuses_the_gpu() {
    let mut world = MotionWorld::new();
    assert_eq!(world.set_executor(Executor::Gpu), Err(GpuError::NoContext));
    world.set_executor(Executor::Auto).expect("Auto");
    assert_eq!(world.active_executor(), Executor::Cpu);

    let positions = world.add_host_target(2 * 3).expect("host array");
    Motion::new(glam::Vec3::ZERO, glam::Vec3::new(2.0, 4.0, 8.0), 2.0)
        .ease(Ease::Linear)
        .target(positions.at(1, 3, 0))
        .run(&mut world)
        .expect("motion");
    world.update(0.5f32).expect("update");
    // A quarter of the way: (0.5, 1, 2) in element 1; element 0 untouched.
    assert_eq!(
        world.host_target(positions),
        Some(&[0.0, 0.0, 0.0, 0.5, 1.0, 2.0][..])
    );
    assert_eq!(world.active_executor(), Executor::Cpu);
}
