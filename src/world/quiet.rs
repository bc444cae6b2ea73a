//! Quiet completions: motions that nothing watches (no callback, completion future, bind or
//! sequence; `SlotMeta::is_quiet`) finish in one batch after the update's visits, not one
//! visit at a time in creation order.
//!
//! Nothing can tell the order they finish in: no user code runs for them, and what user
//! code can see of them afterwards (the handle is stale, `last_value` gives the end value,
//! a target holds it) is the same whichever order the batch takes. So each costs its
//! completion check (the clock, without the ease: `eval::completed_at`), its final value,
//! its target entry and its slot; the visit (two full evaluations, the callback checks,
//! the removal list) is the watched motions' path.

use super::MotionWorld;
use crate::eval::completed_at;

impl MotionWorld {
    /// Finishes this update's quiet due motions (`self.quiet`, popped with the others):
    /// each one that completed in this update is removed as a visit would have removed it
    /// (its final value kept, its target unlinked, its slot freed: the row stays, a
    /// hole), and one that is not there yet (an event comes slightly early) is scheduled
    /// again. Call in the update's visiting loop, after the executor's pass (which wrote
    /// each target's value).
    pub(super) fn finish_quiet(&mut self) {
        let quiet = std::mem::take(&mut self.quiet);
        for event in &quiet {
            let slot = event.slot;
            let meta = &mut self.table.meta[slot as usize];
            // A second event of the same course (`dedup` spares the visited ones that).
            if meta.seq != event.seq || meta.stamp != event.stamp {
                continue;
            }
            let row_index = self.table.slots[slot as usize].row;
            let row = &self.table.rows.rows[row_index as usize];
            let kind = row.clock_index();
            let time = row.clock(self.clocks.now[kind]);
            // The stamp rises either way: the course this event belonged to is over.
            meta.stamp = meta.stamp.wrapping_add(1);
            if !completed_at(row, time) {
                self.schedule(slot, row_index, time);
                continue;
            }
            // Completed before this update (as `fire`: no transition)? Not if the update
            // began before the event's key: nothing can complete before its key.
            let before = self.clocks.prev[kind];
            if before >= event.key && completed_at(row, row.clock(before)) {
                continue;
            }
            self.record_final(slot);
            self.unlink_target(slot);
            self.table.remove(slot);
        }
        self.quiet = quiet;
    }
}
