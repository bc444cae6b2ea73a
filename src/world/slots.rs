//! The generational slot table: stable slot → dense row, versions that only grow.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::commands::QueueState;

/// A vacant slot's `row`: not in use.
pub(crate) const NO_ROW: u32 = u32::MAX;

/// `Slot::bits`: the value's rounding mode (`RoundingMode` bits, fixed at creation).
pub(crate) const BITS_ROUNDING: u8 = 7;
/// `Slot::bits`: the executor's output is never the value (a sequence's child).
pub(crate) const BITS_EXACT: u8 = 8;

/// One slot. Occupied when `version` is odd (slotmap's convention). Besides the row it holds
/// what `value(h)` checks, so that call reads 16 bytes and the output, not the slot's
/// metadata and row.
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

/// Slot table. Fresh slot indices and the version they start at live in the command queue's
/// shared state, so that [`MotionCommands`](super::MotionCommands) can hand out handles for
/// motions spawned from inside callbacks before the world materialises them.
pub(crate) struct SlotTable {
    pub slots: Vec<Slot>,
    /// Vacant, reusable slots (LIFO).
    free: Vec<u32>,
    shared: Arc<Mutex<QueueState>>,
}

impl SlotTable {
    pub fn new(shared: Arc<Mutex<QueueState>>) -> Self {
        Self {
            slots: Vec::new(),
            free: Vec::new(),
            shared,
        }
    }

    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Live slot for `(slot, version)`, if that motion still exists.
    #[inline]
    pub fn get(&self, slot: u32, version: u32) -> Option<Slot> {
        self.slots
            .get(slot as usize)
            .copied()
            .filter(|s| s.version == version && s.is_occupied())
    }

    /// Occupies a slot for a new motion at `row`; returns `(slot, version)`.
    pub fn alloc(&mut self, row: u32) -> (u32, u32) {
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.version += 1;
            slot.row = row;
            return (index, slot.version);
        }
        let (index, version) = self.lock().reserve_fresh();
        self.occupy_reserved(index, version, row);
        (index, version)
    }

    /// Occupies a slot reserved earlier by [`QueueState::reserve_fresh`].
    pub fn occupy_reserved(&mut self, index: u32, version: u32, row: u32) {
        let needed = index as usize + 1;
        if self.slots.len() < needed {
            // Reserved-but-unapplied indices in between stay vacant and off the free list.
            self.slots.resize(needed, Slot::VACANT);
        }
        self.slots[index as usize] = Slot {
            version,
            row,
            ..Slot::VACANT
        };
    }

    /// Frees an occupied slot. A slot whose version would overflow is retired instead of
    /// reused, so a `(slot, version)` pair is never issued twice.
    pub fn free(&mut self, index: u32) {
        let slot = &mut self.slots[index as usize];
        debug_assert!(slot.is_occupied());
        slot.version += 1;
        slot.row = NO_ROW;
        if slot.version < u32::MAX - 1 {
            self.free.push(index);
        }
    }

    /// Points an occupied slot at a new row (after a swap-remove moved its motion).
    #[inline]
    pub fn set_row(&mut self, index: u32, row: u32) {
        self.slots[index as usize].row = row;
    }

    /// Drops trailing vacant slots so memory follows load. Does nothing while a command is
    /// queued (its spawn may hold a reserved fresh index); the caller must also not be in the
    /// middle of applying a batch. Later fresh slots start above every version the dropped
    /// ones reached, so no `(slot, version)` pair is ever issued twice.
    pub fn trim(&mut self) {
        let shared = Arc::clone(&self.shared);
        let mut state = shared.lock().unwrap_or_else(PoisonError::into_inner);
        if !state.commands.is_empty() {
            return;
        }
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
        state.reset_fresh(len, max_version);
    }

    /// Number of vacant slots beyond what the live motions need (for the trim heuristic).
    pub fn vacant(&self) -> usize {
        self.free.len()
    }

    pub fn try_reserve(
        &mut self,
        additional: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        self.slots
            .try_reserve(additional.saturating_sub(self.free.len()))
    }
}
