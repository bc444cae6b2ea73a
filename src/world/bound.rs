//! The bound list: motions visited every update (binds, sequences), in creation order, and
//! how an update walks it beside the due motions.

use super::bound_run::{OwnBind, Stop};
use super::callbacks::guarded;
use super::meta::{BoundEntry, BoundMotion, BoundVisit, GONE};
use super::visit::output;
use super::MotionWorld;
use crate::core::value::Lanes;
use crate::table::rows::prefetch;

/// How many entries ahead of its visit a bound motion's outputs are asked for.
const PREFETCH_AHEAD: usize = 8;

/// A place in the bound list: entry `entry`, and motion `motion` of it when it is a batch.
#[derive(Clone, Copy, Default)]
struct Cursor {
    entry: usize,
    motion: u32,
}

impl MotionWorld {
    /// An update's visits: the bound motions and the due ones, merged in creation order
    /// (docs/semantics.md §6). A due motion gets the exact visit; a bound one without a due
    /// event is visited as its [`BoundVisit`] says (most just get their value).
    pub(super) fn visit_all(&mut self) {
        let mut at = Cursor::default();
        let end = self.bound.len();
        for d in 0.. {
            let Some(event) = self.due.get(d).copied() else {
                self.bind_values(at, end, u64::MAX);
                return;
            };
            at = self.bind_values(at, end, event.seq);
            if self.seq_at(at, end) == Some(event.seq) {
                at = self.step(at); // bound and due: one visit
            }
            self.visit(event.slot, true);
        }
    }

    /// The sequence number of the motion at `at`, if `at` is before `end`.
    fn seq_at(&self, at: Cursor, end: usize) -> Option<u64> {
        if at.entry >= end {
            return None;
        }
        Some(self.bound.first_seq(at.entry) + u64::from(at.motion))
    }

    /// The place after `at`.
    fn step(&self, at: Cursor) -> Cursor {
        match &self.bound[at.entry] {
            BoundEntry::Run(run) if at.motion + 1 < run.len() => Cursor {
                entry: at.entry,
                motion: at.motion + 1,
            },
            _ => Cursor {
                entry: at.entry + 1,
                motion: 0,
            },
        }
    }

    /// Visits bound motions from `at` on, up to entry `end` or the first of sequence number
    /// `until` or later; returns where it stopped. Reads nothing but the entry and its row's
    /// outputs: what the executor has just written is the value (the bind of a pipelined GPU
    /// readback gets the previous update's, as its exact visit would).
    fn bind_values(&mut self, mut at: Cursor, end: usize, until: u64) -> Cursor {
        // Entries before `stop` start before `until`; the one before it may be a run that
        // reaches past it (its visit stops there).
        let stop = self.bound.stop(at.entry, end, until);
        while at.entry < stop {
            let rows = &self.table.rows;
            // A motion with a bind of its own is rarely its neighbour's row: ask for the
            // outputs (and the closure) a few entries ahead, so their misses overlap.
            if let Some(BoundEntry::One(ahead)) = self.bound.get(at.entry + PREFETCH_AHEAD) {
                rows.prefetch_output(ahead.row, ahead.lanes);
                if let Some(bind) = &ahead.bind {
                    prefetch(std::ptr::from_ref::<dyn OwnBind>(&**bind).cast::<u8>());
                }
            }
            let first_seq = self.bound.first_seq(at.entry);
            let entry = match &mut self.bound[at.entry] {
                BoundEntry::Run(run) => {
                    let stop = run.visit(at.motion, until.saturating_sub(first_seq), rows);
                    let row = |i: u32| run.rows()[i as usize];
                    match stop {
                        Stop::At(i) if i < run.len() => {
                            at.motion = i;
                            return at; // reached `until`
                        }
                        Stop::At(_) => {}
                        Stop::Visit(i) => {
                            let (row, visit) = (row(i), run.visit_of(i));
                            at = self.step(Cursor { motion: i, ..at });
                            if row != GONE && visit == BoundVisit::Exact {
                                self.visit(self.table.rows.slot_of()[row as usize], false);
                            }
                            continue;
                        }
                        Stop::Panicked(i, message) => {
                            let slot = rows.slot_of()[row(i) as usize];
                            at = self.step(Cursor { motion: i, ..at });
                            self.bind_failed(slot, message);
                            continue;
                        }
                    }
                    at = Cursor {
                        entry: at.entry + 1,
                        motion: 0,
                    };
                    continue;
                }
                BoundEntry::One(entry) => entry,
            };
            at.entry += 1;
            if entry.row == GONE {
                continue;
            }
            let slot = || rows.slot_of()[entry.row as usize];
            match entry.visit {
                BoundVisit::Value => {}
                BoundVisit::Exact => {
                    let slot = slot();
                    self.visit(slot, false);
                    continue;
                }
                BoundVisit::Wait => continue,
            }
            let Some(bind) = entry.bind.as_mut() else {
                continue;
            };
            // Only a visit marks a motion for removal, and this is the motion's only visit.
            debug_assert!(!self.table.meta[slot() as usize].pending_removal);
            let value = output(rows, entry.row, entry.lanes);
            if let Err(message) = guarded(|| bind.call(&value)) {
                let slot = slot();
                self.bind_failed(slot, message);
            }
        }
        at
    }

    /// Sets how an update visits the bound motion in `slot` without a due event (nothing
    /// if it is not bound).
    pub(super) fn set_bound_visit(&mut self, slot: u32, visit: BoundVisit) {
        let meta = &self.table.meta[slot as usize];
        match meta.bound.map(|i| self.bound.motion_mut(i, meta.seq)) {
            Some((BoundEntry::One(entry), _)) => entry.visit = visit,
            Some((BoundEntry::Run(run), index)) => run.set_visit(index, visit),
            None => {}
        }
    }

    /// Calls the bind; a panic is reported and, with cancel-on-error, cancels the motion.
    /// Returns whether the motion lives on.
    pub(super) fn call_bind(&mut self, slot: u32, value: &Lanes) -> bool {
        let meta = &self.table.meta[slot as usize];
        let result = match meta.bound.map(|i| self.bound.motion_mut(i, meta.seq)) {
            Some((BoundEntry::One(entry), _)) => match entry.bind.as_mut() {
                Some(bind) => guarded(|| bind.call(value)),
                None => Ok(()),
            },
            Some((BoundEntry::Run(run), index)) => run.call(index, value),
            None => Ok(()),
        };
        match result {
            Ok(()) => true,
            Err(message) => self.bind_failed(slot, message),
        }
    }

    /// Adds the bound entry of the motion of sequence number `seq` (a sequence) at its place
    /// in creation order.
    pub(super) fn insert_bound(&mut self, seq: u64, entry: BoundMotion) {
        let at = self.bound.insert(seq, BoundEntry::One(entry));
        self.reindex_bound(at);
    }

    /// Points the live motions of bound entries from `from` on at their entries.
    pub(super) fn reindex_bound(&mut self, from: usize) {
        let (slot_of, meta) = (self.table.rows.slot_of(), &mut self.table.meta);
        for (i, entry) in self.bound.iter().enumerate().skip(from) {
            for row in entry.live_rows() {
                meta[slot_of[row as usize] as usize].bound = Some(i as u32);
            }
        }
    }

    /// Gives a motion that joined a sequence the exact visit (which leaves it to its
    /// sequence) and `value` its exact path (its row's output is not its value).
    pub(super) fn visit_exactly(&mut self, slot: u32) {
        self.table.slots.set_exact(slot);
        self.set_bound_visit(slot, BoundVisit::Exact);
    }

    /// Drops the entries of motions that are gone (once at least half of the list is).
    pub(super) fn compact_bound(&mut self) {
        self.bound.retain(|e| match e {
            BoundEntry::One(one) => one.row != GONE,
            BoundEntry::Run(run) => run.is_live(),
        });
        self.reindex_bound(0);
        self.bound_dead = 0;
    }
}
