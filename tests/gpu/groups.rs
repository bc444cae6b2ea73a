//! Groups on the GPU executor: rows read their clock from the frame's clock table (one entry
//! per group), so a world of grouped motions whose groups are paused, resumed and re-timed
//! between updates agrees with the CPU executor at every update (within 1e-4 of the span),
//! on one page and on a paged table, shake noise (keyed by the clock) included.

use std::sync::{Arc, Mutex};

use glam::Vec2;
use wgpu_tween::{Ease, GroupId, LoopType, Motion, MotionWorld, TimeDeltas, TimeKind};

use crate::common::{self, Exec, Rng};

type Probe = Arc<Mutex<[f32; 4]>>;

/// A world of 240 motions (within the paged context's gather limit) in six groups (two per time kind) and none, with its probes.
fn populate(world: &mut MotionWorld) -> (Vec<GroupId>, Vec<Probe>) {
    let kinds = [TimeKind::Scaled, TimeKind::Unscaled, TimeKind::Realtime];
    let groups: Vec<GroupId> = (0..6)
        .map(|i| world.add_group(kinds[i % 3]).unwrap())
        .collect();
    let loop_types = [
        LoopType::Restart,
        LoopType::Yoyo,
        LoopType::Flip,
        LoopType::Incremental,
    ];
    let eases = [
        Ease::Linear,
        Ease::OutQuad,
        Ease::InOutSine,
        Ease::OutBounce,
    ];
    let mut probes = Vec::new();
    for i in 0..240usize {
        let seen: Probe = Arc::new(Mutex::new([f32::NAN; 4]));
        let sink = Arc::clone(&seen);
        let duration = 0.25 + 0.125 * (i % 7) as f32;
        let in_group = i % 7 != 0;
        if i % 11 == 0 {
            let mut motion = Motion::shake(Vec2::ZERO, Vec2::new(3.0, -2.0), duration)
                .seed(i as u32)
                .loops(-1, LoopType::Restart);
            if in_group {
                motion = motion.group(groups[i % 6]);
            }
            motion
                .bind(world, move |v: Vec2| {
                    *sink.lock().unwrap() = [v.x, v.y, 0.0, 0.0]
                })
                .unwrap();
        } else {
            let mut motion = Motion::new(-2.0f32, 6.0, duration)
                .ease(eases[i % 4])
                .delay(0.125 * (i % 3) as f32)
                .loops(if i % 5 == 0 { 3 } else { -1 }, loop_types[i % 4])
                .playback_speed(if i % 13 == 0 { 1.5 } else { 1.0 })
                .preserve();
            if in_group {
                motion = motion.group(groups[i % 6]);
            }
            motion
                .bind(world, move |v: f32| {
                    *sink.lock().unwrap() = [v, 0.0, 0.0, 0.0]
                })
                .unwrap();
        }
        probes.push(seen);
    }
    (groups, probes)
}

fn compare(gpu: &[Probe], cpu: &[Probe], what: &str) {
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        let (g, c) = (*g.lock().unwrap(), *c.lock().unwrap());
        for k in 0..4 {
            assert!(
                (g[k] - c[k]).abs() <= 1e-4 * 8.0,
                "{what}: motion {i} lane {k}: GPU {} CPU {}",
                g[k],
                c[k]
            );
        }
    }
}

#[test]
fn grouped_motions_agree_with_the_cpu_while_groups_change() {
    let gpus: Vec<Exec> = common::executors()
        .into_iter()
        .filter(|e| matches!(e, Exec::Gpu(_)))
        .collect();
    for exec in gpus {
        let name = exec.name();
        let mut cpu = MotionWorld::new();
        let mut gpu = exec.world();
        let (groups, cpu_probes) = populate(&mut cpu);
        let (gpu_groups, gpu_probes) = populate(&mut gpu);
        assert_eq!(groups.len(), gpu_groups.len());
        let mut rng = Rng(0x6a09_e667_f3bc_c908);
        for step in 0..40 {
            // A few group changes between updates, the same in both worlds.
            for _ in 0..2 {
                let i = rng.below(6);
                match rng.below(3) {
                    0 => {
                        cpu.pause_group(groups[i]).unwrap();
                        gpu.pause_group(gpu_groups[i]).unwrap();
                    }
                    1 => {
                        cpu.resume_group(groups[i]).unwrap();
                        gpu.resume_group(gpu_groups[i]).unwrap();
                    }
                    _ => {
                        let speed = [0.0, 0.5, 1.0, 2.0, 3.25][rng.below(5)];
                        cpu.set_group_speed(groups[i], speed).unwrap();
                        gpu.set_group_speed(gpu_groups[i], speed).unwrap();
                    }
                }
            }
            let deltas = TimeDeltas {
                scaled: rng.range(0.0, 0.05),
                unscaled: rng.range(0.0, 0.05),
                realtime: rng.range(0.0, 0.05),
            };
            cpu.update_with(deltas).unwrap();
            gpu.update_with(deltas).unwrap();
            assert_eq!(gpu.take_gpu_error(), None, "{name} step {step}");
            compare(&gpu_probes, &cpu_probes, &format!("{name} step {step}"));
        }
        for (c, g) in groups.iter().zip(&gpu_groups) {
            assert_eq!(cpu.group_time(*c).unwrap(), gpu.group_time(*g).unwrap());
        }
    }
}
