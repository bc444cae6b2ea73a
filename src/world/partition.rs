//! Rows kept in runs of one shape ([`CLASSES`]): a new row is swapped down past the first
//! row of each later class, a removed one up past the last row of each, so either costs at
//! most `CLASSES − 1` swaps, and none in a world of one shape.
//!
//! Why: both executors evaluate rows side by side (64-row chunks of SIMD vectors on the CPU,
//! SIMD lanes of a workgroup on software GPUs), and a vector that mixes shapes pays for all
//! of them: four lanes read and written for a one-lane row, the quaternion code for a lerp.
//! Lerps are split by lane count, as a CPU chunk lerps the lanes of its widest row: a world
//! of `Vec2` motions costs 30% less than when its chunks lerped four lanes.

use super::MotionWorld;
use crate::table::rows::{class_of, CLASSES};

impl MotionWorld {
    /// Moves the row just pushed at `index` (the last) into its class's run.
    pub(super) fn place_new_row(&mut self, index: u32) {
        let class = class_of(&self.rows.rows[index as usize]);
        let ends = &mut self.rows.class_end;
        let mut at = index;
        let mut swaps = [[0u32; 2]; CLASSES];
        let mut count = 0;
        for later in (class + 1..CLASSES).rev() {
            let start = ends[later - 1];
            if start < at {
                swaps[count] = [start, at];
                count += 1;
                at = start;
            }
        }
        for end in &mut ends[class..] {
            *end += 1;
        }
        for &[a, b] in &swaps[..count] {
            self.swap_rows(a, b);
        }
    }

    /// Removes row `index`: moves it to the end of the table, past the later classes' runs
    /// (shrinking the runs), and drops it from there, so no row but the swapped ones moves.
    pub(super) fn remove_row(&mut self, index: u32) {
        let class = class_of(&self.rows.rows[index as usize]);
        let mut at = index;
        for c in class..CLASSES {
            let last = self.rows.class_end[c] - 1;
            if at != last {
                self.swap_rows(at, last);
                at = last;
            }
            self.rows.class_end[c] -= 1;
        }
        debug_assert_eq!(at as usize + 1, self.rows.len());
        self.rows.pop();
    }

    /// Exchanges rows `a` and `b` and points their slots, targets and sequence children at
    /// their new places.
    fn swap_rows(&mut self, a: u32, b: u32) {
        self.rows.swap(a, b);
        for index in [a, b] {
            let slot = self.rows.slot_of[index as usize];
            self.slots.set_row(slot, index);
            let meta = &self.meta[slot as usize];
            if let Some(target) = meta.target {
                self.targets.set_row(target, index);
            }
            if meta.is_sequence {
                self.relink_children(slot, index);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec2, Vec3};

    use super::*;
    use crate::{Color, LoopType, Motion, MotionHandle, Sequence};

    /// The table is in runs of one class each, every slot points at its row, and every
    /// sequence child at its sequence's row.
    fn check(world: &MotionWorld, what: &str) {
        let rows = &world.rows;
        let mut start = 0;
        for (class, &end) in rows.class_end.iter().enumerate() {
            for i in start..end {
                assert_eq!(class_of(&rows.rows[i as usize]), class, "{what}: row {i}");
            }
            start = end;
        }
        assert_eq!(
            start as usize,
            rows.len(),
            "{what}: the runs cover the table"
        );
        for (i, &slot) in rows.slot_of.iter().enumerate() {
            assert_eq!(
                world.slots.slots[slot as usize].row, i as u32,
                "{what}: slot {slot}"
            );
        }
        world.assert_children_linked();
    }

    #[test]
    fn rows_stay_in_runs_of_one_shape_through_churn() {
        let mut world = MotionWorld::new();
        let mut live: Vec<MotionHandle> = Vec::new();
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for round in 0..40 {
            for _ in 0..40 {
                let h = match next(5) {
                    0 => Motion::new(0.0f32, 1.0, 0.5)
                        .loops(-1, LoopType::Yoyo)
                        .run(&mut world),
                    1 => Motion::new(Vec3::ZERO, Vec3::ONE, 0.7).run(&mut world),
                    2 => Motion::new(Quat::IDENTITY, Quat::from_rotation_x(1.0), 0.4)
                        .loops(3, LoopType::Restart)
                        .run(&mut world),
                    3 => Motion::shake(Vec2::ZERO, Vec2::ONE, 0.6).run(&mut world),
                    _ => Motion::new(Color::BLACK, Color::WHITE, 0.3).run(&mut world),
                }
                .expect("valid motion");
                live.push(h);
            }
            if round % 3 == 0 {
                // A sequence (a one-lane row) of a quaternion child and an f32 child: rows of
                // other classes than their parent's, moved by later spawns and removals.
                let a = Motion::new(Quat::IDENTITY, Quat::from_rotation_y(2.0), 0.5)
                    .run(&mut world)
                    .expect("valid motion");
                let b = Motion::new(5.0f32, 6.0, 0.5)
                    .run(&mut world)
                    .expect("valid motion");
                let s = Sequence::new()
                    .append(a)
                    .append(b)
                    .run_with(&mut world, |m| m.loops(-1, LoopType::Restart))
                    .expect("valid sequence");
                live.push(s);
            }
            for _ in 0..25 {
                let h = live.swap_remove(next(live.len()));
                if world.is_active(h) {
                    world.cancel(h).expect("live motion");
                }
            }
            world.update(0.05).expect("valid delta");
            check(&world, &format!("round {round}"));
        }
    }
}
