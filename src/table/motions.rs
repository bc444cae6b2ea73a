//! The motion table: one type that owns which motions exist and where they live.
//!
//! Slots (versions, the free list, fresh reservations), the dense row columns with their
//! runs and change journals, and per-slot metadata `M` (the world's, opaque here). Its only
//! mutators that add, drop or move motions are [`MotionTable::insert`],
//! [`MotionTable::remove`], [`MotionTable::regroup`] (the runs' swaps) and
//! [`MotionTable::clear`]; each fixes the slots of the rows it moved before returning, and
//! returns those rows so the owner can re-point what else refers to them (target entries,
//! sequence children). Row content (re-anchoring, outputs) is edited through `rows`, whose
//! structural methods are private to this layer, as are the slots' rows and versions.

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

/// A motion to insert: its row (anchored), lanes and parameters, the owner's metadata, and
/// what its slot records for `value(h)`.
pub(crate) struct NewMotion<M> {
    pub row: MotionRow,
    pub pairs: [[f32; 2]; 4],
    pub params: [f32; 4],
    pub meta: M,
    /// The animated type's index (see `Slot::value_type`).
    pub value_type: u16,
    /// The update count's low 32 bits (see `Slot::changed`).
    pub changed: u32,
}

/// Where [`MotionTable::insert`] put a motion.
pub(crate) struct Inserted {
    pub slot: u32,
    pub version: u32,
    /// Its row, after placing it in its run.
    pub row: u32,
    /// The rows the placement swapped (slots already fixed), the new one among them.
    pub swaps: Swaps,
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

    /// Adds a motion at the end of its run, into `reserved` (a `(slot, version)` reserved
    /// from [`fresh`](Self::fresh)) or a free or fresh slot.
    #[inline]
    pub fn insert(&mut self, new: NewMotion<M>, reserved: Option<(u32, u32)>) -> Inserted {
        let row_index = self.rows.len() as u32;
        let bits = new.row.rounding() as u8 & BITS_ROUNDING;
        let (slot, version) = self.slots.occupy(
            reserved,
            &self.fresh,
            row_index,
            new.value_type,
            bits,
            new.changed,
        );
        self.rows.push(new.row, new.pairs, new.params, slot);
        let needed = slot as usize + 1;
        if self.meta.0.len() < needed {
            self.meta.0.resize(needed, M::default());
        }
        self.meta.0[slot as usize] = new.meta;
        let swaps = self.rows.place_last();
        self.fix_slots(swaps.rows());
        Inserted {
            slot,
            version,
            row: self.slots[slot as usize].row,
            swaps,
        }
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

    /// Returns [`regroup`](Self::regroup)'s list.
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

    /// A motion of `lanes` lerped lanes whose metadata is `tag`.
    fn motion(lanes: usize, tag: u32) -> NewMotion<u32> {
        let flags = pack_flags(
            Ease::Linear,
            LoopType::Restart,
            DelayType::FirstLoop,
            TimeKind::Scaled,
            lanes,
            0,
        );
        NewMotion {
            row: MotionRow {
                duration: 1.0,
                loops: 1,
                speed: 1.0,
                flags,
                ..MotionRow::zeroed()
            },
            pairs: [[tag as f32, 0.0]; 4],
            params: [0.0; 4],
            meta: tag,
            value_type: 0,
            changed: 0,
        }
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
            .map(|i| {
                let m = table.insert(motion(1 + i as usize % 3, 100 + i), None);
                (m.slot, m.version)
            })
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
        let again = table.insert(motion(2, 500), None);
        assert_eq!((again.slot, again.version), (9, 3));
        live.push((again.slot, again.version));
        check(&table, &live);
    }

    #[test]
    fn trimmed_slots_come_back_at_higher_versions() {
        let mut table = MotionTable::<u32>::default();
        let made: Vec<_> = (0..100).map(|i| table.insert(motion(1, i), None)).collect();
        for m in &made[10..] {
            table.remove(m.slot);
        }
        assert_eq!(table.trim(), Some(10));
        // Fresh slots restart at 10, at version 3: the first odd one above the dropped
        // slots' 2. A command queue's reservation takes 10, the table's own insert 11 (the
        // free list was trimmed with the slots).
        let reserved = table.fresh().reserve();
        assert_eq!(reserved, (10, 3));
        let own = table.insert(motion(1, 7), None);
        assert_eq!((own.slot, own.version), (11, 3));
        let into = table.insert(motion(1, 8), Some(reserved));
        assert_eq!((into.slot, into.version), (10, 3));
        let mut live: Vec<(u32, u32)> = (0..10).map(|s| (s, 1)).collect();
        live.extend([(10, 3), (11, 3)]);
        check(&table, &live);
    }
}
