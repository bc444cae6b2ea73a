//! The motion table: one type that owns which motions exist and where they live.
//!
//! Slots (versions, the free list, fresh reservations), the dense row columns with their
//! runs and change journals, and per-slot metadata `M` (the world's, opaque here). Its only
//! mutators that add, drop or move motions are [`MotionTable::append`] with
//! [`MotionTable::place_appended`] (appended motions wait past the runs until placed, or take
//! holes), [`MotionTable::remove`] (it leaves a hole), [`MotionTable::compact`] (it removes
//! them), [`MotionTable::regroup`] (the runs' swaps) and
//! [`MotionTable::clear`]; each fixes the slots of the rows it moved before returning, and
//! returns those rows so the owner can re-point what else refers to them (bound entries,
//! target entries, sequence children). Row content (re-anchoring, outputs) is edited
//! through `rows`, whose structural methods are private to this layer, as are the slots'
//! rows and versions.

use std::sync::Arc;

use super::rows::Rows;
use super::slots::{FreshSlots, Slots, BITS_ROUNDING};
use crate::core::row::MotionRow;

/// Per-slot metadata: indexable like a slice, but only the table adds or drops entries.
pub(crate) struct Metas<M>(Vec<M>);

impl<M> std::ops::Index<usize> for Metas<M> {
    type Output = M;

    #[inline]
    fn index(&self, index: usize) -> &M {
        &self.0[index]
    }
}

impl<M> std::ops::IndexMut<usize> for Metas<M> {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut M {
        &mut self.0[index]
    }
}

impl<M> Metas<M> {
    /// The metadata of slot `index`, if the table has room for it.
    #[inline]
    pub fn get(&self, index: usize) -> Option<&M> {
        self.0.get(index)
    }
}

/// Motions of one configuration to insert together: motion `i` has the row `row` (anchored)
/// with the `params` word `words[i]`, the lane pairs `pairs[i]` and the parameters
/// `params[i]`.
pub(crate) struct NewMotions<'a> {
    pub row: MotionRow,
    pub words: &'a [u32],
    pub pairs: &'a [[[f32; 2]; 4]],
    pub params: &'a [[f32; 4]],
    /// The animated type's index (see `Slot::value_type`).
    pub value_type: u16,
    /// The update count's low 32 bits (see `Slot::changed`).
    pub changed: u32,
}

/// Where [`MotionTable::append`] put a motion.
#[derive(Clone, Copy, Default)]
pub(crate) struct Appended {
    pub slot: u32,
    pub version: u32,
    /// Its row: a hole it took, in its run, or past the runs until
    /// [`MotionTable::place_appended`].
    pub row: u32,
}

/// Slots, rows, runs, journals and per-slot metadata, kept consistent in one place.
pub(crate) struct MotionTable<M> {
    /// The dense columns. Row content may be edited here; rows are added, removed and
    /// moved only by the table.
    pub rows: Rows,
    /// Slot → row (read; the table keeps it in step with the rows).
    pub slots: Slots,
    /// Per-slot metadata of the owner.
    pub meta: Metas<M>,
    /// Shared with the owner's command queue (see [`FreshSlots`]).
    fresh: Arc<FreshSlots>,
}

impl<M: Clone + Default> Default for MotionTable<M> {
    fn default() -> Self {
        Self {
            rows: Rows::default(),
            slots: Slots::default(),
            meta: Metas(Vec::new()),
            fresh: Arc::default(),
        }
    }
}

impl<M: Clone + Default> MotionTable<M> {
    /// The fresh-slot reservations, for a command queue to reserve handles from.
    pub fn fresh(&self) -> Arc<FreshSlots> {
        Arc::clone(&self.fresh)
    }

    /// Live motions: the rows that are not holes.
    #[inline]
    pub fn len(&self) -> usize {
        self.rows.len() - self.rows.holes.len()
    }

    /// Whether some row is a hole (see `table/holes.rs`): [`compact`](Self::compact) before
    /// reading or moving the rows as a whole.
    #[inline]
    pub fn has_holes(&self) -> bool {
        self.rows.holes.len() > 0
    }

    /// Whether appending a row like `row` would move a hole (a hole in a later shape run):
    /// [`compact`](Self::compact) first.
    #[inline]
    pub fn holes_in_the_way(&self, row: &MotionRow) -> bool {
        self.rows.holes.after(super::rows::class_of(row))
    }

    /// Adds motions into holes of their shape, the rest past the end of the runs, the first
    /// into `reserved` (a `(slot, version)` reserved from [`fresh`](Self::fresh)) where
    /// given, the others into free or fresh slots; motion `i`'s metadata is what `meta(i,
    /// where_it_went)` returns. Motions appended are in the table (their slots point at
    /// their rows) but in no run: call [`place_appended`](Self::place_appended) before
    /// anything else reads or moves rows. Call [`compact`](Self::compact) first where
    /// [`holes_in_the_way`](Self::holes_in_the_way).
    ///
    /// Always inlined: a single motion's insert (slices of one) then compiles to
    /// straight-line code, without the loops a block needs.
    #[inline(always)]
    pub fn append(
        &mut self,
        new: NewMotions<'_>,
        mut reserved: Option<(u32, u32)>,
        mut meta: impl FnMut(usize, Appended) -> M,
    ) {
        debug_assert!(!self.holes_in_the_way(&new.row), "compact first");
        let (slots, metas, fresh) = (&mut self.slots, &mut self.meta.0, &*self.fresh);
        let bits = new.row.rounding() as u8 & BITS_ROUNDING;
        self.rows
            .push_block(&new.row, new.words, new.pairs, new.params, |i, row| {
                let (slot, version) = slots.occupy(
                    reserved.take(),
                    fresh,
                    row,
                    new.value_type,
                    bits,
                    new.changed,
                );
                let own = meta(i, Appended { slot, version, row });
                super::put_at(metas, slot as usize, own, M::default());
                slot
            });
    }

    /// Moves the appended motions into their runs (in order, each at the end of its run);
    /// returns the rows that moved (slots already fixed), a list to hand back with
    /// [`recycle_moved`](Self::recycle_moved). Placing a block of motions at once moves
    /// nothing when no later run has rows.
    pub fn place_appended(&mut self) -> Vec<u32> {
        self.moving(Rows::place_pending)
    }

    /// Removes an occupied slot's motion: its row becomes a hole, which a new motion of its
    /// shape takes or [`compact`](Self::compact) removes, and the slot is freed (its version
    /// rises). No row moves.
    pub fn remove(&mut self, slot: u32) {
        self.rows.kill(self.slots[slot as usize].row);
        self.slots.free(slot);
    }

    /// Removes the holes (their runs' last rows move into them); returns the rows that
    /// moved (slots already fixed; the removed ones, past the end, too), a list to hand back
    /// with [`recycle_moved`](Self::recycle_moved). Call with every row placed.
    pub fn compact(&mut self) -> Vec<u32> {
        self.moving(Rows::compact)
    }

    /// Runs `moves`, which lists the rows it moves in the list it is given (the one kept
    /// for [`recycle_moved`](Self::recycle_moved)); fixes their slots and returns the list.
    fn moving(&mut self, moves: impl FnOnce(&mut Rows, &mut Vec<u32>)) -> Vec<u32> {
        let mut moved = std::mem::take(&mut self.rows.regroup.moved);
        moved.clear();
        moves(&mut self.rows, &mut moved);
        self.fix_slots(moved.iter().copied());
        moved
    }

    /// Puts rows in groups within their runs when enough are out of theirs
    /// (`Rows::regroup`); returns the rows that moved (slots already fixed), a list to hand
    /// back with [`recycle_moved`](Self::recycle_moved) so the next regroup reuses its room.
    pub fn regroup(&mut self) -> Vec<u32> {
        debug_assert!(!self.has_holes(), "compact first");
        self.rows.regroup();
        let moved = std::mem::take(&mut self.rows.regroup.moved);
        self.fix_slots(moved.iter().copied());
        moved
    }

    /// Returns the list of [`regroup`](Self::regroup) or
    /// [`place_appended`](Self::place_appended).
    pub fn recycle_moved(&mut self, moved: Vec<u32>) {
        self.rows.regroup.moved = moved;
    }

    /// Removes every motion (their slots freed, versions rising); metadata entries stay
    /// as the owner left them.
    pub fn clear(&mut self) {
        for (_, slot) in self.rows.owned() {
            self.slots.free(slot);
        }
        self.rows.clear();
    }

    /// Drops trailing vacant slots and their metadata when over half the slots are vacant;
    /// returns the new slot count when it did. Call only where no reserved handle is
    /// outstanding or being reserved (see [`FreshSlots`]).
    pub fn trim(&mut self) -> Option<usize> {
        if !self.slots.sparse() {
            return None;
        }
        self.slots.trim(&self.fresh);
        let len = self.slots.len();
        if len < self.meta.0.len() {
            self.meta.0.truncate(len);
            self.meta.0.shrink_to(len * 2);
        }
        Some(len)
    }

    /// Whether [`trim`](Self::trim) would act.
    pub fn trim_due(&self) -> bool {
        self.slots.sparse()
    }

    /// Reserves room for `additional` more motions; stops at the first allocation that
    /// fails.
    pub fn try_reserve(
        &mut self,
        additional: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        let slots = self.slots.len().saturating_add(additional);
        self.rows.try_reserve(additional)?;
        self.slots.try_reserve(additional)?;
        self.meta
            .0
            .try_reserve(slots.saturating_sub(self.meta.0.len()))
    }

    /// Points the slots of `rows` (indices may repeat or be past the end) at them.
    #[inline]
    fn fix_slots(&mut self, rows: impl Iterator<Item = u32>) {
        for index in rows {
            if let Some(&slot) = self.rows.slot_of().get(index as usize) {
                self.slots.set_row(slot, index);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ease::Ease;
    use crate::core::row::pack_flags;
    use crate::core::settings::{DelayType, LoopType, TimeKind};
    use bytemuck::Zeroable;

    /// A motion of `lanes` lerped lanes whose metadata is `tag` (its row and lane pairs).
    fn motion(lanes: usize, tag: u32) -> (MotionRow, [[f32; 2]; 4], u32) {
        let flags = pack_flags(
            Ease::Linear,
            LoopType::Restart,
            DelayType::FirstLoop,
            TimeKind::Scaled,
            lanes,
            0,
        );
        let row = MotionRow {
            duration: 1.0,
            loops: 1,
            speed: 1.0,
            flags,
            ..MotionRow::zeroed()
        };
        (row, [[tag as f32, 0.0]; 4], tag)
    }

    /// Appends motions and places them together (compacting first where a hole is in the
    /// way, as the world does); returns their `(slot, version)` and the rows that moved.
    fn insert(
        table: &mut MotionTable<u32>,
        motions: impl IntoIterator<Item = (MotionRow, [[f32; 2]; 4], u32)>,
        reserved: Option<(u32, u32)>,
    ) -> (Vec<(u32, u32)>, Vec<u32>) {
        let (rows, pairs, tags): (Vec<MotionRow>, Vec<_>, Vec<_>) = motions.into_iter().collect();
        let params = vec![[0.0; 4]; rows.len()];
        let words: Vec<u32> = rows.iter().map(|r| r.params).collect();
        let mut made = Vec::new();
        let mut moved = Vec::new();
        if table.holes_in_the_way(&rows[0]) {
            moved = table.compact();
        }
        let new = NewMotions {
            row: rows[0],
            words: &words,
            pairs: &pairs,
            params: &params,
            value_type: 0,
            changed: 0,
        };
        table.append(new, reserved, |i, a| {
            made.push((a.slot, a.version));
            tags[i]
        });
        moved.extend(table.place_appended());
        (made, moved)
    }

    /// Every slot in `live` points at a row that names it back and holds its own motion
    /// (`from` = its tag).
    fn check(table: &MotionTable<u32>, live: &[(u32, u32)]) {
        assert_eq!(table.len(), live.len());
        for &(slot, version) in live {
            let s = table.slots.get(slot, version).expect("live slot");
            assert_eq!(table.rows.slot_of()[s.row as usize], slot);
            assert_eq!(
                table.rows.pairs(s.row)[0][0],
                table.meta[slot as usize] as f32
            );
        }
    }

    #[test]
    fn insert_and_remove_keep_slots_rows_and_metadata_together() {
        let mut table = MotionTable::<u32>::default();
        // Shapes interleaved, so placing each in its run swaps rows.
        let mut live: Vec<(u32, u32)> = (0..12)
            .flat_map(|i| insert(&mut table, [motion(1 + i as usize % 3, 100 + i)], None).0)
            .collect();
        // Fresh slots count up from 0 at version 1.
        assert_eq!(live[0], (0, 1));
        assert_eq!(live[11], (11, 1));
        check(&table, &live);
        for k in [4, 0, 7] {
            let (slot, version) = live.remove(k);
            table.remove(slot);
            assert!(table.slots.get(slot, version).is_none());
            check(&table, &live);
        }
        // The last freed slot (9) comes back first, one version above its freed one (2).
        let (again, _) = insert(&mut table, [motion(2, 500)], None);
        assert_eq!(again, [(9, 3)]);
        live.extend(again);
        check(&table, &live);
    }

    /// Motions placed together go into their runs in order: a block of one-lane motions
    /// ahead of the two- and three-lane runs (whose first rows move to their runs' ends),
    /// then, with no later run left to pass, one that moves nothing.
    #[test]
    fn appended_motions_are_placed_in_their_runs_in_order() {
        let mut table = MotionTable::<u32>::default();
        let (mut live, _) = insert(&mut table, [motion(3, 1), motion(3, 2)], None);
        live.extend(insert(&mut table, [motion(2, 3)], None).0);
        let (block, moved) = insert(&mut table, (10..14).map(|t| motion(1, t)), None);
        assert!(!moved.is_empty());
        live.extend(&block);
        check(&table, &live);
        assert_eq!(table.rows.class_end, [4, 5, 7, 7, 7]);
        for (k, &(slot, _)) in block.iter().enumerate() {
            assert_eq!(table.slots[slot as usize].row, k as u32);
        }
        let (four, moved) = insert(&mut table, (20..24).map(|t| motion(4, t)), None);
        assert!(moved.is_empty());
        live.extend(&four);
        check(&table, &live);
        assert_eq!(table.rows.class_end, [4, 5, 7, 11, 11]);
    }

    #[test]
    fn trimmed_slots_come_back_at_higher_versions() {
        let mut table = MotionTable::<u32>::default();
        let (made, _) = insert(&mut table, (0..100).map(|i| motion(1, i)), None);
        for &(slot, _) in &made[10..] {
            table.remove(slot);
        }
        assert_eq!(table.trim(), Some(10));
        // Fresh slots restart at 10, at version 3: the first odd one above the dropped
        // slots' 2. A command queue's reservation takes 10, the table's own insert 11 (the
        // free list was trimmed with the slots).
        let reserved = table.fresh().reserve();
        assert_eq!(reserved, (10, 3));
        assert_eq!(insert(&mut table, [motion(1, 7)], None).0, [(11, 3)]);
        assert_eq!(
            insert(&mut table, [motion(1, 8)], Some(reserved)).0,
            [(10, 3)]
        );
        let mut live: Vec<(u32, u32)> = (0..10).map(|s| (s, 1)).collect();
        live.extend([(10, 3), (11, 3)]);
        check(&table, &live);
    }

    /// A removed motion's row stays, a hole, until a motion of its shape takes it (the last
    /// holes made first, in the order they were made) or the table is compacted (the last
    /// row of the run moves in).
    #[test]
    fn removed_rows_are_holes_that_new_motions_of_their_shape_take() {
        let mut table = MotionTable::<u32>::default();
        let (made, _) = insert(&mut table, (0..8).map(|i| motion(1, i)), None);
        for &(slot, _) in &made[2..5] {
            table.remove(slot);
        }
        // Rows 2, 3 and 4 are holes: the table holds 5 motions in 8 rows.
        assert_eq!((table.len(), table.rows.len()), (5, 8));
        let mut live: Vec<(u32, u32)> = [&made[..2], &made[5..]].concat();
        check(&table, &live);
        // Two new one-lane motions take rows 3 and 4; nothing moves.
        let (two, moved) = insert(&mut table, [motion(1, 20), motion(1, 21)], None);
        assert!(moved.is_empty());
        let rows: Vec<u32> = two
            .iter()
            .map(|&(s, _)| table.slots[s as usize].row)
            .collect();
        assert_eq!(rows, [3, 4]);
        live.extend(&two);
        check(&table, &live);
        assert_eq!((table.len(), table.rows.len()), (7, 8));
        // Compacting removes hole 2: row 7 moves in, and the table is dense again.
        let moved = table.compact();
        assert!(moved.contains(&2) && moved.contains(&7));
        assert_eq!(table.slots[made[7].0 as usize].row, 2);
        assert_eq!((table.len(), table.rows.len()), (7, 7));
        check(&table, &live);
    }

    /// One motion at a time (a `run`) takes the newest hole of its shape, and each holds
    /// its own motion there.
    #[test]
    fn one_motion_at_a_time_takes_the_newest_hole() {
        let mut table = MotionTable::<u32>::default();
        let (made, _) = insert(&mut table, (0..6).map(|i| motion(1, i)), None);
        table.remove(made[1].0);
        table.remove(made[4].0);
        let mut live = vec![made[0], made[2], made[3], made[5]];
        let (first, moved) = insert(&mut table, [motion(1, 30)], None);
        assert!(moved.is_empty());
        assert_eq!(table.slots[first[0].0 as usize].row, 4, "the newest hole");
        let (second, moved) = insert(&mut table, [motion(1, 31)], None);
        assert!(moved.is_empty());
        assert_eq!(table.slots[second[0].0 as usize].row, 1);
        live.extend(first.iter().chain(&second));
        check(&table, &live);
        // No hole left: the next one is appended.
        let (third, _) = insert(&mut table, [motion(1, 32)], None);
        assert_eq!(table.slots[third[0].0 as usize].row, 6);
        live.extend(&third);
        check(&table, &live);
        assert_eq!((table.len(), table.rows.len()), (7, 7));
    }

    /// A hole in a later shape's run is compacted before a motion of an earlier shape is
    /// placed past it (placing swaps the first row of every later run).
    #[test]
    fn a_hole_in_a_later_run_is_compacted_before_an_earlier_shape_is_placed() {
        let mut table = MotionTable::<u32>::default();
        let (mut live, _) = insert(&mut table, [motion(1, 1), motion(1, 2)], None);
        let (threes, _) = insert(&mut table, (3..6).map(|t| motion(3, t)), None);
        table.remove(threes[0].0);
        live.extend(&threes[1..]);
        assert!(table.holes_in_the_way(&motion(1, 0).0));
        assert!(!table.holes_in_the_way(&motion(4, 0).0));
        let (one, _) = insert(&mut table, [motion(1, 9)], None);
        live.extend(&one);
        check(&table, &live);
        assert_eq!(table.rows.class_end, [3, 3, 5, 5, 5]);
    }
}
