//! Generational slots: stable slot → dense row, versions that only grow, and the fresh-slot
//! reservations that let a command queue hand out handles before the table makes them.

use std::sync::atomic::{AtomicU64, Ordering};

/// A vacant slot's `row`: not in use.
pub(crate) const NO_ROW: u32 = u32::MAX;

/// `Slot::bits`: the value's rounding mode (`RoundingMode` bits, fixed at creation).
pub(crate) const BITS_ROUNDING: u8 = 7;
/// `Slot::bits`: the executor's output is never the value (a sequence's child).
pub(crate) const BITS_EXACT: u8 = 8;

/// One slot. Occupied when `version` is odd (slotmap's convention). Besides the row it holds
/// what `value(h)` checks, so that call reads 16 bytes and the output, not the slot's
/// metadata and row. Only the table hands out `&mut Slot` to itself: others read copies and
/// edit the descriptive fields through [`Slots`]' setters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    pub version: u32,
    /// The dense row of the occupant (`NO_ROW` when vacant).
    pub row: u32,
    /// The update count (low 32 bits) when the row was last written (made or re-anchored):
    /// its output holds its value only if an evaluation came after. Equal after a wrap only
    /// sends `value` to its exact path.
    pub changed: u32,
    /// The animated type, an index into the world's list of types.
    pub value_type: u16,
    /// [`BITS_ROUNDING`] | [`BITS_EXACT`].
    pub bits: u8,
}

impl Slot {
    #[inline]
    pub fn is_occupied(&self) -> bool {
        self.version & 1 == 1
    }

    const VACANT: Slot = Slot {
        version: 0,
        row: NO_ROW,
        changed: 0,
        value_type: 0,
        bits: 0,
    };
}

/// Never-used slot indices and the version they start at, shared between the table and a
/// command queue (which reserves handles for motions spawned from callbacks). One atomic
/// word: the index in the low 32 bits, the version in the high ones, so the table's own
/// fresh allocation takes no lock.
///
/// Protocol: whoever reserves for a queued command does so while holding its queue's lock;
/// [`Slots::trim`] (which resets the word) is called only with that lock held and the queue
/// empty, so no reservation is outstanding or in flight.
#[derive(Debug)]
pub(crate) struct FreshSlots(AtomicU64);

impl Default for FreshSlots {
    fn default() -> Self {
        Self(AtomicU64::new(1 << 32))
    }
}

impl FreshSlots {
    /// Takes a never-used slot index and its first version.
    #[inline]
    pub fn reserve(&self) -> (u32, u32) {
        let word = self.0.fetch_add(1, Ordering::Relaxed);
        debug_assert!(word as u32 != u32::MAX, "slot indices exhausted");
        (word as u32, (word >> 32) as u32)
    }

    /// After trailing slots were dropped: fresh indices restart at `len`. Every index from
    /// `len` up may already have been handed out, materialised (its versions are at most
    /// `max_dropped_version`) or not (a spawn dropped by `clear`, at most the current fresh
    /// version), so the fresh version rises above both.
    fn reset(&self, len: u32, max_dropped_version: u32) {
        let word = self.0.load(Ordering::Relaxed);
        let (next, mut version) = (word as u32, (word >> 32) as u32);
        if len < next {
            let floor = (max_dropped_version + 1) | 1;
            version = floor.max(version + 2);
        }
        self.0
            .store(u64::from(version) << 32 | u64::from(len), Ordering::Relaxed);
    }
}

/// The slot column: read by index or by `(slot, version)`; which slots are occupied and
/// where their rows are changes only through the table (`MotionTable`).
#[derive(Default)]
pub(crate) struct Slots {
    slots: Vec<Slot>,
    /// Vacant, reusable slots (LIFO).
    free: Vec<u32>,
}

impl std::ops::Index<usize> for Slots {
    type Output = Slot;

    #[inline]
    fn index(&self, index: usize) -> &Slot {
        &self.slots[index]
    }
}

impl Slots {
    /// Slots in use or vacant (the highest index ever kept, plus one).
    #[inline]
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Live slot for `(slot, version)`, if that motion still exists.
    #[inline]
    pub fn get(&self, slot: u32, version: u32) -> Option<Slot> {
        self.slots
            .get(slot as usize)
            .copied()
            .filter(|s| s.version == version && s.is_occupied())
    }

    /// Records that the slot's row was written in update `update` (see `Slot::changed`).
    #[inline]
    pub fn set_changed(&mut self, slot: u32, update: u32) {
        self.slots[slot as usize].changed = update;
    }

    /// Marks the slot's output as never its value (see [`BITS_EXACT`]).
    pub fn set_exact(&mut self, slot: u32) {
        self.slots[slot as usize].bits |= BITS_EXACT;
    }

    /// Occupies a slot for a new motion at `row` (a reserved one, or one from the free list
    /// or `fresh`); returns `(slot, version)`.
    #[inline]
    pub(super) fn occupy(
        &mut self,
        reserved: Option<(u32, u32)>,
        fresh: &FreshSlots,
        row: u32,
        value_type: u16,
        bits: u8,
        changed: u32,
    ) -> (u32, u32) {
        let (index, version) = match reserved {
            Some(r) => r,
            None => match self.free.pop() {
                Some(index) => (index, self.slots[index as usize].version + 1),
                None => fresh.reserve(),
            },
        };
        let slot = Slot {
            version,
            row,
            changed,
            value_type,
            bits,
        };
        // Reserved-but-unapplied indices in between stay vacant and off the free list.
        super::put_at(&mut self.slots, index as usize, slot, Slot::VACANT);
        (index, version)
    }

    /// Frees an occupied slot. A slot whose version would overflow is retired instead of
    /// reused, so a `(slot, version)` pair is never issued twice.
    pub(super) fn free(&mut self, index: u32) {
        let slot = &mut self.slots[index as usize];
        debug_assert!(slot.is_occupied());
        slot.version += 1;
        slot.row = NO_ROW;
        if slot.version < u32::MAX - 1 {
            self.free.push(index);
        }
    }

    /// Points an occupied slot at a new row (after a swap moved its motion).
    #[inline]
    pub(super) fn set_row(&mut self, index: u32, row: u32) {
        self.slots[index as usize].row = row;
    }

    /// Whether trailing vacant slots are worth dropping (over half the slots are vacant).
    pub(super) fn sparse(&self) -> bool {
        self.slots.len() > 64
            && self.free.len() * 2 > self.slots.len()
            && self.slots.last().is_some_and(|s| !s.is_occupied())
    }

    /// Drops trailing vacant slots so memory follows load (see [`FreshSlots`] for when it
    /// may be called). Later fresh slots start above every version the dropped ones
    /// reached, so no `(slot, version)` pair is ever issued twice.
    pub(super) fn trim(&mut self, fresh: &FreshSlots) {
        let mut max_version = 0;
        while let Some(last) = self.slots.last() {
            if last.is_occupied() {
                break;
            }
            max_version = max_version.max(last.version);
            self.slots.pop();
        }
        let len = self.slots.len() as u32;
        self.free.retain(|&i| i < len);
        if self.slots.capacity() > 64 && self.slots.len() * 4 < self.slots.capacity() {
            self.slots.shrink_to(self.slots.len() * 2);
            self.free.shrink_to(self.free.len() * 2);
        }
        fresh.reset(len, max_version);
    }

    pub(super) fn try_reserve(
        &mut self,
        additional: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        self.slots
            .try_reserve(additional.saturating_sub(self.free.len()))
    }
}
