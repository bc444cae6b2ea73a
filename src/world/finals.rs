//! Final values: what a motion that completed (and was removed) since the last update began
//! ended on, for [`MotionWorld::last_value`] (docs/semantics.md §7).
//!
//! The slot is freed at once (handles expect `Destroyed` and LIFO reuse), so the values are
//! kept beside the slots: a list of this window's finals, and per slot the newest of them,
//! each linked to the slot's previous one (a slot can finish, be reused and finish again
//! within one window). The window closes when the next update begins.

use super::MotionWorld;
use crate::core::handle::MotionHandle;
use crate::core::value::{Animatable, Lanes, RoundingMode};
use crate::error::MotionError;
use crate::table::slots::{Slot, BITS_ROUNDING};

/// No final (a slot's `head`, the last link of a chain).
const NONE: u32 = u32::MAX;

/// One completed motion's end value.
#[derive(Clone, Copy, Debug)]
struct Final {
    slot: u32,
    version: u32,
    /// The slot's previous final in this window, or [`NONE`].
    prev: u32,
    /// Its slot's `value_type` and `bits` (type and rounding).
    value_type: u16,
    bits: u8,
    lanes: Lanes,
}

/// The finals of the current window.
#[derive(Debug, Default)]
pub(super) struct Finals {
    list: Vec<Final>,
    /// Per slot, its newest final's index in `list`, or [`NONE`]; sized by the highest slot
    /// that completed.
    head: Vec<u32>,
}

impl Finals {
    fn record(&mut self, slot: u32, entry: &Slot, lanes: Lanes) {
        // Past 2^32 − 1 completions in one window the later ones are not kept.
        let Ok(index) = u32::try_from(self.list.len()) else {
            return;
        };
        if self.head.len() <= slot as usize {
            self.head.resize(slot as usize + 1, NONE);
        }
        self.list.push(Final {
            slot,
            version: entry.version,
            prev: self.head[slot as usize],
            value_type: entry.value_type,
            bits: entry.bits,
            lanes,
        });
        self.head[slot as usize] = index;
    }

    fn get(&self, slot: u32, version: u32) -> Option<&Final> {
        let mut i = *self.head.get(slot as usize)?;
        while i != NONE {
            let f = &self.list[i as usize];
            if f.version == version {
                return Some(f);
            }
            i = f.prev;
        }
        None
    }

    /// Closes the window. Memory follows load: both lists shrink when their capacity is
    /// far over what `slots` slots (the world's now) need.
    pub(super) fn clear(&mut self, slots: usize) {
        for f in &self.list {
            self.head[f.slot as usize] = NONE;
        }
        self.list.clear();
        self.head.truncate(slots);
        if self.list.capacity() > 1024 && self.list.capacity() > 4 * slots {
            self.list.shrink_to(2 * slots);
        }
        if self.head.capacity() > 1024 && self.head.capacity() > 4 * slots {
            self.head.shrink_to(2 * slots);
        }
    }
}

impl MotionWorld {
    /// Keeps the end value of the motion in `slot`, which has just completed and will be
    /// removed.
    pub(super) fn record_final(&mut self, slot: u32) {
        let entry = self.table.slots[slot as usize];
        // Only the lanes its type has: the others' output columns are not read (a
        // one-lane run's pass writes only the first, so the rest would be cache misses).
        let count = self.table.rows.rows[entry.row as usize].lane_count() as u8;
        let lanes = self.lanes_now(entry, entry.row, count);
        self.finals.record(slot, &entry, lanes);
    }

    /// The motion's value now, like [`value`](Self::value); and for a motion that completed
    /// and was removed since the last update began (in that update, or by
    /// [`complete`](Self::complete) or [`set_time`](Self::set_time) after it), the value it
    /// ended on, until the next update begins. So a renderer that reads values each frame
    /// also gets the last one. A cancelled motion has no final value: [`MotionError::Destroyed`].
    ///
    /// ```
    /// use wgpu_tween::{Ease, Motion, MotionError, MotionWorld};
    ///
    /// let mut world = MotionWorld::new();
    /// let h = Motion::new(0.0f32, 10.0, 1.0).ease(Ease::Linear).run(&mut world)?;
    /// world.update(0.5)?;
    /// assert_eq!(world.last_value::<f32>(h), Ok(5.0));
    /// world.update(0.75)?; // completes: removed, its slot free for reuse
    /// assert_eq!(world.value::<f32>(h), Err(MotionError::Destroyed(h)));
    /// assert_eq!(world.last_value::<f32>(h), Ok(10.0));
    /// world.update(0.1)?; // the next update ends the window
    /// assert_eq!(world.last_value::<f32>(h), Err(MotionError::Destroyed(h)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn last_value<T: Animatable>(&self, h: MotionHandle) -> Result<T, MotionError> {
        let gone = match self.value(h) {
            Err(MotionError::Destroyed(gone)) => gone,
            other => return other,
        };
        let Some(f) = (h.world == self.id)
            .then(|| self.finals.get(h.slot, h.version))
            .flatten()
        else {
            return Err(MotionError::Destroyed(gone));
        };
        let value_type = self.value_types.get(usize::from(f.value_type));
        if value_type != Some(&std::any::TypeId::of::<T>()) {
            return Err(MotionError::TypeMismatch(h));
        }
        let rounding = RoundingMode::from_bits(u32::from(f.bits & BITS_ROUNDING));
        Ok(T::from_lanes_rounded(f.lanes, rounding))
    }
}
