//! The motion table: one type that owns which motions exist and where they live.
//!
//! Slots (versions, the free list, fresh reservations), the dense row columns with their
//! runs and change journals, and per-slot metadata `M` (the world's, opaque here). Its only
//! mutators that add, drop or move motions are [`MotionTable::append`] with
//! [`MotionTable::place_appended`] (appended motions wait past the runs until placed),
//! [`MotionTable::remove`], [`MotionTable::regroup`] (the runs' swaps) and
//! [`MotionTable::clear`]; each fixes the slots of the rows it moved before returning, and
//! returns those rows so the owner can re-point what else refers to them (bound entries,
//! target entries, sequence children). Row content (re-anchoring, outputs) is edited
//! through `rows`, whose structural methods are private to this layer, as are the slots'
//! rows and versions.

use std::sync::Arc;

use super::rows::Rows;
use super::runs::Swaps;
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
    /// Its row, past the runs until [`MotionTable::place_appended`].
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

    /// Live motions.
    #[inline]
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Adds motions past the end of the runs, the first into `reserved` (a `(slot,
    /// version)` reserved from [`fresh`](Self::fresh)) where given, the others into free or
    /// fresh slots; motion `i`'s metadata is what `meta(i, where_it_went)` returns. Motions
    /// appended are in the table (their slots point at their rows) but in no run: call
    /// [`place_appended`](Self::place_appended) before anything else reads or moves rows.
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
        let mut moved = std::mem::take(&mut self.rows.regroup.moved);
        moved.clear();
        self.rows.place_pending(&mut moved);
        self.fix_slots(moved.iter().copied());
        moved
    }

    /// Removes an occupied slot's motion: its row goes (the rows swapped past it keep their
    /// slots pointed right) and the slot is freed (its version rises). Returns the swaps;
    /// the removed row, past the end, is among them.
    pub fn remove(&mut self, slot: u32) -> Swaps {
        let swaps = self.rows.remove(self.slots[slot as usize].row);
        self.fix_slots(swaps.rows());
        self.slots.free(slot);
        swaps
    }

    /// Puts rows in groups within their runs when enough are out of theirs
    /// (`Rows::regroup`); returns the rows that moved (slots already fixed), a list to hand
    /// back with [`recycle_moved`](Self::recycle_moved) so the next regroup reuses its room.
    pub fn regroup(&mut self) -> Vec<u32> {
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
        for i in 0..self.rows.len() {
            self.slots.free(self.rows.slot_of()[i]);
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

    /// Appends motions and places them together; returns their `(slot, version)` and the
    /// rows that moved.
    fn insert(
        table: &mut MotionTable<u32>,
        motions: impl IntoIterator<Item = (MotionRow, [[f32; 2]; 4], u32)>,
        reserved: Option<(u32, u32)>,
    ) -> (Vec<(u32, u32)>, Vec<u32>) {
        let (rows, pairs, tags): (Vec<MotionRow>, Vec<_>, Vec<_>) = motions.into_iter().collect();
        let params = vec![[0.0; 4]; rows.len()];
        let words: Vec<u32> = rows.iter().map(|r| r.params).collect();
        let new = NewMotions {
            row: rows[0],
            words: &words,
            pairs: &pairs,
            params: &params,
            value_type: 0,
            changed: 0,
        };
        let mut made = Vec::new();
        table.append(new, reserved, |i, a| {
            made.push((a.slot, a.version));
            tags[i]
        });
        let moved = table.place_appended();
        (made, moved.clone())
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
}
