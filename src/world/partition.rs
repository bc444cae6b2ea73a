//! Where the table's moves (`table/motions.rs`: runs of one shape, regrouping) meet the
//! world: the table fixes the slots of the rows it moved, the world points their bound
//! entries, targets and sequence children at their new places.

use super::meta::BoundEntry;
use super::MotionWorld;

impl MotionWorld {
    /// Removes the rows' holes (see `table/holes.rs`), re-pointing what names the rows that
    /// moved: before anything reads or moves the rows as a whole.
    #[inline]
    pub(super) fn compact_rows(&mut self) {
        if self.table.has_holes() {
            self.compact_holes();
        }
    }

    /// [`compact_rows`](Self::compact_rows)'s work, out of line: an insert that checks for
    /// holes in its way stays small.
    #[inline(never)]
    fn compact_holes(&mut self) {
        let moved = self.table.compact();
        self.relink(moved.iter().copied());
        self.table.recycle_moved(moved);
    }

    /// Puts the rows in groups of one configuration within their runs when enough are out
    /// of theirs (`Rows::regroup`).
    pub(super) fn regroup_rows(&mut self) {
        let moved = self.table.regroup();
        self.relink(moved.iter().copied());
        self.table.recycle_moved(moved);
    }

    /// Points the bound entries, targets and sequence children of moved rows at their new
    /// places (the removed row, past the end, has no owner left to tell). Children last:
    /// their own rows may be among the moved ones.
    pub(super) fn relink(&mut self, rows: impl Iterator<Item = u32> + Clone) {
        for index in rows.clone() {
            let Some(&slot) = self.table.rows.slot_of().get(index as usize) else {
                continue;
            };
            let meta = &self.table.meta[slot as usize];
            // (A motion is linked where it was appended, its entry already in the list.)
            match meta.bound.map(|b| self.bound.motion_mut(b, meta.seq)) {
                Some((BoundEntry::One(one), _)) => one.row = index,
                Some((BoundEntry::Run(run), motion)) => run.set_row(motion, index),
                None => {}
            }
            if let Some(target) = meta.target {
                self.relink_target(target, index);
            }
        }
        for index in rows {
            let Some(&slot) = self.table.rows.slot_of().get(index as usize) else {
                continue;
            };
            if self.table.meta[slot as usize].is_sequence {
                self.relink_children(slot, index);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec2, Vec3};

    use super::*;
    use crate::table::rows::class_of;
    use crate::{Color, LoopType, Motion, MotionHandle, Sequence};

    /// The table is in runs of one class each, every slot points at its row, and every
    /// sequence child at its sequence's row.
    fn check(world: &MotionWorld, what: &str) {
        let rows = &world.table.rows;
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
        for (i, slot) in rows.owned() {
            assert_eq!(
                world.table.slots[slot as usize].row, i,
                "{what}: slot {slot}"
            );
        }
        world.assert_children_linked();
    }

    /// Motions of four eases, two loop types and two delay types created interleaved are in
    /// groups of one configuration after the next update (each group one stretch of rows
    /// within its shape's run), every slot pointing at its row, and each motion keeps its
    /// own value.
    #[test]
    fn interleaved_configurations_are_grouped_by_the_next_update() {
        use crate::core::row::FLAG_CHILD;
        use crate::{DelayType, Ease};
        let mut world = MotionWorld::new();
        let eases = [
            Ease::Linear,
            Ease::OutQuad,
            Ease::InOutSine,
            Ease::OutBounce,
        ];
        let mut handles = Vec::new();
        for i in 0..3000 {
            let m = |m: Motion<f32>| {
                let m = m
                    .ease(eases[i % 4])
                    .loops(-1, [LoopType::Restart, LoopType::Yoyo][(i / 4) % 2]);
                if (i / 8) % 2 == 1 {
                    m.delay_with(0.1, DelayType::EveryLoop, false)
                } else {
                    m
                }
            };
            let h = if i % 3 == 0 {
                m(Motion::new(0.0f32, i as f32, 1.0)).run(&mut world)
            } else {
                Motion::new(Vec3::ZERO, Vec3::splat(i as f32), 1.0)
                    .ease(eases[i % 4])
                    .run(&mut world)
            };
            handles.push(h.expect("valid motion"));
        }
        world.update(0.25).expect("valid delta");
        check(&world, "after the update");
        let rows = &world.table.rows;
        let mut seen = std::collections::HashSet::new();
        for i in 0..rows.len() {
            let key = (class_of(&rows.rows[i]), rows.rows[i].flags & !FLAG_CHILD);
            if i > 0
                && (
                    class_of(&rows.rows[i - 1]),
                    rows.rows[i - 1].flags & !FLAG_CHILD,
                ) == key
            {
                continue;
            }
            assert!(seen.insert(key), "row {i} starts a second group of {key:?}");
        }
        // Values are each motion's own (its end value is its creation index, so a row that
        // moved without its lanes would show another's): 0.25 s into the first loop, or
        // 0.15 s after an every-loop delay of 0.1 s.
        for (i, &h) in handles.iter().enumerate().filter(|(i, _)| i % 3 == 0) {
            let x = if (i / 8) % 2 == 1 { 0.15 } else { 0.25 };
            let want = i as f32 * eases[i % 4].evaluate(x);
            let v = world.value::<f32>(h).expect("live motion");
            assert!(
                (v - want).abs() <= 1e-4 * want.abs().max(1.0),
                "motion {i}: {v} vs {want}"
            );
        }
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
