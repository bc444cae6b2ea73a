//! What the world keeps per motion beside its row: per-slot metadata (the table's `M`) and
//! the bound list's entries.

use super::bound_run::{BindFn, BoundRun};
use super::built::MotionOptions;
use crate::table::targets::TargetRef;

/// Per-slot CPU-side state (never moves on swap-remove).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SlotMeta {
    /// Creation sequence number: unique for the world's lifetime, defines visiting order.
    pub(super) seq: u64,
    /// Rises on every re-anchor; event entries of older stamps (or other seqs) are stale.
    pub(super) stamp: u32,
    pub(super) options: MotionOptions,
    pub(super) debug_name: &'static str,
    pub(super) has_bind: bool,
    pub(super) has_loop_callback: bool,
    /// Has an `on_start` that has not fired yet (its start is an event to predict).
    pub(super) awaits_start: bool,
    /// Update count at creation; `status` is Scheduled until the next update.
    pub(super) birth_update: u64,
    /// Re-timed by `set_time` or `complete` since creation (then no longer Scheduled).
    pub(super) touched: bool,
    /// Finished during the current callback loop; removed right after it.
    pub(super) pending_removal: bool,
    /// The motion's target (host array or GPU buffer), if it has one.
    pub(super) target: Option<TargetRef>,
    /// A sequence: visited every update to drive its children.
    pub(super) is_sequence: bool,
    /// A child of a sequence: driven by its sequence, never visited on its own.
    pub(super) in_sequence: bool,
    /// A sequence's child that has fired its end (complete or cancel): it replays in later
    /// passes of a looping sequence, but ends only once.
    pub(super) ended: bool,
    /// Its entry in the bound list (a bind or a sequence).
    pub(super) bound: Option<u32>,
    /// `complete` put its clock just past its end, and it has not moved since (it is in
    /// the world's `nudged` list).
    pub(super) nudged: bool,
}

impl SlotMeta {
    /// Whether nothing watches the motion's end but its handle: no bind, sequence, loop or
    /// start callback, preserve or nudge, and (the world checks its callbacks apart) no
    /// other callback or completion future. Its completion is unobservable but through
    /// the handle and its target, so it can finish out of creation order
    /// (`world/quiet.rs`).
    #[inline]
    pub(super) fn is_quiet(&self) -> bool {
        !(self.has_bind
            || self.bound.is_some()
            || self.is_sequence
            || self.in_sequence
            || self.options.preserve
            || self.has_loop_callback
            || self.awaits_start
            || self.nudged
            || self.pending_removal)
    }
}

/// An entry of the bound list (creation order): one motion, or a run of motions whose binds
/// are of one type.
pub(crate) enum BoundEntry {
    One(BoundMotion),
    /// Boxed: an entry per motion stays as small as a motion's own.
    Run(Box<BoundRun>),
}

// The per-motion bind's visit reads entries one after another: keep them small.
const _: () = assert!(std::mem::size_of::<BoundEntry>() <= 24);

/// The row of a bound motion that is gone.
pub(super) const GONE: u32 = u32::MAX;

impl BoundEntry {
    /// The rows of its live motions.
    pub(super) fn live_rows(&self) -> impl Iterator<Item = u32> + '_ {
        let (one, run) = match self {
            BoundEntry::One(one) => (Some(one.row), &[][..]),
            BoundEntry::Run(run) => (None, run.rows()),
        };
        one.into_iter()
            .chain(run.iter().copied())
            .filter(|&row| row != GONE)
    }
}

/// A motion visited every update (one with a bind, or a sequence), with what its visit needs
/// side by side: the bind itself, its row, and whether its value is all it needs.
pub(crate) struct BoundMotion {
    /// Its row (the world re-points it when the row moves; the slot is the row's owner), or
    /// [`GONE`] once the motion is.
    pub(super) row: u32,
    /// Lanes of its value (the outputs a bind reads).
    pub(super) lanes: u8,
    /// How an update visits it when it has no due event.
    pub(super) visit: BoundVisit,
    pub(super) bind: Option<BindFn>,
}

/// How an update visits a bound motion that has no due event. Its transitions (loop
/// complete, complete, the end of a delay whose values it skips) come through the event
/// queue, as due visits, whatever this says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum BoundVisit {
    /// Its bind gets its row's output, and nothing else is read.
    Value,
    /// The exact visit (its status decides what runs): a sequence (drives its children), a
    /// sequence's child (driven by it), a bind that skips values during a delay and may
    /// enter one with no event to say so (a clock that falls or stands still, a delay every
    /// loop).
    Exact,
    /// None: a bind that skips values during a delay its clock is rising through; the
    /// delay's end is its due event.
    Wait,
}

impl BoundVisit {
    /// The visit of a new bound motion until its first scheduling says otherwise
    /// (`MotionWorld::schedule`).
    pub(super) fn new(skips_values_during_delay: bool) -> Self {
        if skips_values_during_delay {
            Self::Exact
        } else {
            Self::Value
        }
    }
}

/// The bound list: its entries in creation order, and each entry's first sequence number in
/// a column of its own. An update's bind visit reads only the entries; where it meets the
/// due motions it finds by a binary search of the sequence numbers.
#[derive(Default)]
pub(crate) struct BoundList {
    entries: Vec<BoundEntry>,
    /// `first_seq[i]`: the sequence number of entry `i`'s first motion (rising).
    first_seq: Vec<u64>,
}

impl std::ops::Index<usize> for BoundList {
    type Output = BoundEntry;

    #[inline]
    fn index(&self, index: usize) -> &BoundEntry {
        &self.entries[index]
    }
}

impl std::ops::IndexMut<usize> for BoundList {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut BoundEntry {
        &mut self.entries[index]
    }
}

impl BoundList {
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Appends an entry whose first motion has sequence number `seq`, the highest yet.
    #[inline]
    pub(super) fn push(&mut self, seq: u64, entry: BoundEntry) {
        debug_assert!(self.first_seq.last().is_none_or(|&last| last < seq));
        self.entries.push(entry);
        self.first_seq.push(seq);
    }

    /// Inserts an entry whose first motion has sequence number `seq` at its place in
    /// creation order; returns its index.
    pub(super) fn insert(&mut self, seq: u64, entry: BoundEntry) -> usize {
        let at = self.first_seq.partition_point(|&s| s < seq);
        self.entries.insert(at, entry);
        self.first_seq.insert(at, seq);
        at
    }

    /// Appends the entry of one motion (of sequence number `seq`, the highest yet) at row
    /// `row` with `bind`; returns its index.
    pub(super) fn push_one(
        &mut self,
        seq: u64,
        row: u32,
        lanes: u8,
        visit: BoundVisit,
        bind: Option<BindFn>,
    ) -> u32 {
        let entry = BoundMotion {
            row,
            lanes,
            visit,
            bind,
        };
        self.push(seq, BoundEntry::One(entry));
        self.entries.len() as u32 - 1
    }

    /// The sequence number of entry `index`'s first motion.
    #[inline]
    pub(super) fn first_seq(&self, index: usize) -> u64 {
        self.first_seq[index]
    }

    /// The first entry from `from` on (before `end`) whose first motion's sequence number is
    /// `until` or later (`end` if none is).
    #[inline]
    pub(super) fn stop(&self, from: usize, end: usize, until: u64) -> usize {
        from + self.first_seq[from..end].partition_point(|&s| s < until)
    }

    /// Entry `entry`, and the index in it of its motion of sequence number `seq` (0 for an
    /// entry of one motion).
    #[inline]
    pub(super) fn motion_mut(&mut self, entry: u32, seq: u64) -> (&mut BoundEntry, u32) {
        let i = entry as usize;
        (&mut self.entries[i], (seq - self.first_seq[i]) as u32)
    }

    #[inline]
    pub(super) fn get(&self, index: usize) -> Option<&BoundEntry> {
        self.entries.get(index)
    }

    #[inline]
    pub(super) fn last_mut(&mut self) -> Option<&mut BoundEntry> {
        self.entries.last_mut()
    }

    pub(super) fn iter(&self) -> std::slice::Iter<'_, BoundEntry> {
        self.entries.iter()
    }

    /// Keeps the entries `keep` says to, in order; shrinks when a quarter or less of the
    /// room is used.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&BoundEntry) -> bool) {
        // (`retain` visits each entry once, in order.)
        let (mut at, mut kept) = (0, 0);
        let first_seq = &mut self.first_seq;
        self.entries.retain(|entry| {
            let keeps = keep(entry);
            if keeps {
                first_seq[kept] = first_seq[at];
                kept += 1;
            }
            at += 1;
            keeps
        });
        first_seq.truncate(kept);
        if self.entries.capacity() > 64 && self.entries.len() * 4 < self.entries.capacity() {
            self.entries.shrink_to(self.entries.len() * 2);
            self.first_seq.shrink_to(self.entries.len() * 2);
        }
    }

    /// Drops every entry and the room they had.
    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }
}
