//! Settling after callbacks: removals, queued commands, and keeping memory in line with load.

use super::callbacks::{guarded, CallbackError, CallbackKind};
use super::commands::{Command, Deferred};
use super::meta::BoundEntry;
use super::MotionWorld;

impl MotionWorld {
    /// Applies removals and queued commands until none are left, then keeps memory in
    /// line with load. Re-entrant calls (from inside a command) return at once: the outer
    /// loop picks up what they would have done.
    pub(super) fn settle(&mut self) {
        if self.settling {
            return;
        }
        self.settling = true;
        loop {
            self.apply_removals();
            self.shared.take(&mut self.batch);
            if self.batch.is_empty() {
                break;
            }
            let mut batch = std::mem::take(&mut self.batch);
            for command in batch.drain(..) {
                self.apply(command);
            }
            self.batch = batch;
        }
        self.settling = false;
        self.maintain();
    }

    pub(super) fn apply(&mut self, command: Command) {
        match command {
            Command::Spawn(handle, built) => {
                self.insert(*built, Some(handle));
            }
            Command::Cancel(h) => {
                let _ = self.cancel_inner(h);
            }
            Command::Complete(h) => {
                let _ = self.complete_inner(h);
            }
            Command::SetTime(h, t) => {
                let _ = self.set_time_inner(h, t);
            }
            Command::SetPlaybackSpeed(h, s) => {
                let _ = self.set_playback_speed_inner(h, s);
            }
            Command::Preserve(h) => {
                let _ = self.preserve(h);
            }
            Command::Clear => self.clear_motions(),
            Command::Deferred(handle, deferred) => {
                // Like a `try_*`: children that can no longer join leave the handle unused.
                // Its configure closure is user code, run (or dropped) here: a panic in it
                // leaves the world as it was and is reported.
                let made = guarded(|| {
                    let Deferred { spawn, completion } = *deferred;
                    let _ = spawn(self, handle, completion);
                });
                if let Err(message) = made {
                    self.report(CallbackError {
                        handle,
                        debug_name: "",
                        kind: CallbackKind::Drop,
                        message,
                    });
                }
            }
        }
        // Removals from this command before the next one looks at rows.
        self.apply_removals();
    }

    pub(super) fn apply_removals(&mut self) {
        // A removed sequence adds its children to the list as it goes.
        let mut i = 0;
        while i < self.removals.len() {
            let slot = self.removals[i];
            i += 1;
            let meta = &mut self.table.meta[slot as usize];
            if !meta.pending_removal {
                continue; // cleared in between
            }
            meta.pending_removal = false;
            // (A batch's entry counts once, when its last motion goes: `drop_callbacks`.)
            if let Some(BoundEntry::One(_)) = meta.bound.and_then(|b| self.bound.get(b as usize)) {
                self.bound_dead += 1;
            }
            let is_sequence = meta.is_sequence;
            self.unlink_target(slot);
            if is_sequence {
                self.remove_children(slot);
            }
            // Before the slot is freed: a report names the motion's handle.
            self.drop_callbacks(slot);
            self.table.remove(slot);
        }
        self.removals.clear();
    }

    /// Shrinks what grew: the bound list, stale event entries, rows, slots. Each check is
    /// O(1) unless it acts, and it acts only when at least half of a structure is waste.
    pub(super) fn maintain(&mut self) {
        if self.bound_dead > 32 && self.bound_dead * 2 > self.bound.len() {
            self.compact_bound();
        }
        if self.events.len() > 2 * self.table.len() + 1024 {
            let meta = &self.table.meta;
            self.events.purge(|slot, seq, stamp| {
                meta.get(slot as usize)
                    .is_some_and(|m| m.seq == seq && m.stamp == stamp)
            });
        }
        if self.table.len() == 0 {
            self.compact_rows(); // holes only: the rows just go
        }
        self.table.rows.shrink_if_sparse();
        if self.table.len() == 0 {
            // An empty world evaluates nothing, so the executors' per-row state (the CPU
            // segment cache and its log of touched rows, the GPU table) would never shrink
            // otherwise.
            self.executor.release_idle();
            self.table.rows.touched.drained(0);
            #[cfg(feature = "gpu")]
            if let Some(gpu) = self.gpu.as_deref_mut() {
                gpu.release_idle();
            }
        }
        if self.table.trim_due() {
            // Only with no queued command: a queued spawn may hold a reserved fresh slot,
            // and the lock keeps new reservations out while the table trims.
            let shared = std::sync::Arc::clone(&self.shared);
            let state = shared.lock();
            if state.commands.is_empty() {
                if let Some(len) = self.table.trim() {
                    if len < self.callbacks.len() {
                        self.callbacks.truncate(len);
                        self.callbacks.shrink_to(len * 2);
                    }
                }
            }
        }
        if self.sequences.capacity() > 64 && self.sequences.len() * 4 < self.sequences.capacity() {
            self.sequences.shrink_to(self.sequences.len() * 2);
        }
        // Per-update lists, sized by the motions: shrunk when the world has shrunk.
        let live = self.table.len();
        self.events.shrink_if_sparse(live);
        shrink_if_sparse(&mut self.due, live);
        shrink_if_sparse(&mut self.quiet, live);
        shrink_if_sparse(&mut self.removals, live);
        shrink_if_sparse(&mut self.batch, live);
    }
}

/// Shrinks `list` when its capacity is over four times what `live` motions need (and over
/// 1024 entries), to twice that: a world of a stable size never reallocates it.
fn shrink_if_sparse<T>(list: &mut Vec<T>, live: usize) {
    const MIN_KEPT: usize = 1024;
    if list.capacity() > MIN_KEPT && list.capacity() > 4 * live {
        list.shrink_to((2 * live).max(MIN_KEPT));
    }
}
