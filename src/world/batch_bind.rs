//! Binds shared by the motions of one batch (`Motion::bind_batch_indexed`): one closure, called
//! with each motion's index in its batch and its value.
//!
//! A batch's motions have consecutive sequence numbers, so the bound list keeps the whole
//! batch as one entry ([`BoundBatch`]): the bind once, and per motion only its row (4 bytes,
//! where an entry of its own is 32). An update hands a stretch of the batch to the bind's own
//! loop, monomorphised for its type, so the closure is inlined there: no box and no indirect
//! call per motion. A per-motion bind costs at least a boxed call per motion
//! (and at a million motions a cache miss on each box), which is most of a bound world's
//! update.

use super::callbacks::guarded;
use super::meta::GONE;
use super::visit::output;
use crate::core::value::{Animatable, Lanes, RoundingMode};
use crate::table::rows::Rows;

/// A batch's shared bind, behind one box per batch.
trait BatchBind: Send {
    /// Calls the bind for motion `index` of its batch (the exact visit, the immediate bind).
    fn call(&mut self, index: u32, value: &Lanes);

    /// Calls the bind for each live motion of `motion_rows` (the rows of the batch's motions
    /// from index `first` on, [`GONE`] for those that are gone) with its row's output, in
    /// order. Returns how many motions it went through, and the message if the last of them
    /// panicked.
    fn visit(
        &mut self,
        first: u32,
        motion_rows: &[u32],
        lanes: u8,
        rows: &Rows,
    ) -> (usize, Option<String>);
}

/// A shared bind of values of type `T`.
struct Indexed<T, F> {
    bind: F,
    rounding: RoundingMode,
    _value: std::marker::PhantomData<fn(T)>,
}

impl<T: Animatable, F: FnMut(usize, T) + Send> BatchBind for Indexed<T, F> {
    fn call(&mut self, index: u32, value: &Lanes) {
        (self.bind)(index as usize, T::from_lanes_rounded(*value, self.rounding));
    }

    fn visit(
        &mut self,
        first: u32,
        motion_rows: &[u32],
        lanes: u8,
        rows: &Rows,
    ) -> (usize, Option<String>) {
        let mut visited = 0;
        // One guard for the stretch: `visited` says which motion's bind panicked.
        let result = guarded(|| {
            for &row in motion_rows {
                visited += 1;
                if row != GONE {
                    let value = output(rows, row, lanes);
                    let index = first as usize + visited - 1;
                    (self.bind)(index, T::from_lanes_rounded(value, self.rounding));
                }
            }
        });
        (visited, result.err())
    }
}

/// A batch's shared bind, ready for the world (`MotionWorld::insert_batch`).
pub(crate) struct IndexedBind(Box<dyn BatchBind>);

impl IndexedBind {
    /// `bind(index, value)`, values rounded as `rounding` says.
    pub(crate) fn new<T: Animatable, F: FnMut(usize, T) + Send + 'static>(
        bind: F,
        rounding: RoundingMode,
    ) -> Self {
        Self(Box::new(Indexed {
            bind,
            rounding,
            _value: std::marker::PhantomData,
        }))
    }
}

/// A batch with a shared bind, as one entry of the bound list: motion `i` has the sequence
/// number of the entry's first motion plus `i` (`BoundList::motion_mut`).
pub(super) struct BoundBatch {
    /// Each motion's row in creation order (the world re-points it when the row moves; the
    /// slot is the row's owner), or [`GONE`] once the motion is (it keeps its place, so that
    /// indices stay put): all an update's visit reads per motion besides its output.
    rows: Vec<u32>,
    /// Lanes of their values.
    lanes: u8,
    /// Every motion needs the exact visit (a bind that skips values during a delay).
    pub(super) exact: bool,
    /// Motions that need the exact visit since they joined a sequence (empty if none did).
    exact_motions: Vec<bool>,
    /// Motions not yet removed; the bind is dropped with the last.
    live: u32,
    bind: Option<Box<dyn BatchBind>>,
}

/// Where a stretch of a batch's binds stopped.
pub(super) enum Stop {
    /// At motion `at`: its sequence number reached the limit, or the batch ended (`at` is
    /// its length).
    At(u32),
    /// At motion `at`, which needs the exact visit.
    Exact(u32),
    /// Motion `at`'s bind panicked.
    Panicked(u32, String),
}

impl BoundBatch {
    /// An empty batch of about `count` motions to come.
    pub(super) fn new(bind: IndexedBind, count: usize, lanes: u8, exact: bool) -> Self {
        Self {
            rows: Vec::with_capacity(count),
            lanes,
            exact,
            exact_motions: Vec::new(),
            live: 0,
            bind: Some(bind.0),
        }
    }

    /// Adds the next motion, at row `row`.
    pub(super) fn push(&mut self, row: u32) {
        self.rows.push(row);
        self.live += 1;
    }

    /// Each motion's row, [`GONE`] for those that are gone.
    pub(super) fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// Motion `index`'s row moved to `row`.
    pub(super) fn set_row(&mut self, index: u32, row: u32) {
        if let Some(r) = self.rows.get_mut(index as usize) {
            *r = row;
        }
    }

    /// Number of motions.
    pub(super) fn len(&self) -> u32 {
        self.rows.len() as u32
    }

    /// Whether motion `index` needs the exact visit.
    pub(super) fn is_exact(&self, index: u32) -> bool {
        self.exact || self.exact_motions.get(index as usize) == Some(&true)
    }

    /// Gives motion `index` the exact visit from now on.
    pub(super) fn set_exact(&mut self, index: u32) {
        if self.exact_motions.is_empty() {
            self.exact_motions.resize(self.rows.len(), false);
        }
        if let Some(flag) = self.exact_motions.get_mut(index as usize) {
            *flag = true;
        }
    }

    /// Whether any motion is live.
    pub(super) fn is_live(&self) -> bool {
        self.live > 0
    }

    /// Calls the bind for motion `index` (`Ok` if the bind is gone already).
    pub(super) fn call(&mut self, index: u32, value: &Lanes) -> Result<(), String> {
        match self.bind.as_mut() {
            Some(bind) => guarded(|| bind.call(index, value)),
            None => Ok(()),
        }
    }

    /// Binds motions from `from` on, up to motion `until` (or the batch's end, `At`), or to
    /// the first that needs the exact visit (`Exact`); stops after a panic.
    pub(super) fn visit(&mut self, from: u32, until: u64, rows: &Rows) -> Stop {
        let len = self.len();
        let limit = until.min(u64::from(len)) as u32;
        if from >= limit {
            return Stop::At(from);
        }
        if self.is_exact(from) {
            return Stop::Exact(from);
        }
        // Up to the next motion that needs the exact visit.
        let end = match self.exact_motions.get(from as usize..limit as usize) {
            Some(flags) if !flags.is_empty() => {
                from + flags.iter().position(|&e| e).unwrap_or(flags.len()) as u32
            }
            _ => limit,
        };
        // Before `limit`, the stretch ends at a motion that needs the exact visit: that
        // visit comes next, before any later due motion.
        let next = if end < limit {
            Stop::Exact(end)
        } else {
            Stop::At(end)
        };
        let Some(bind) = self.bind.as_mut() else {
            return next;
        };
        let stretch = &self.rows[from as usize..end as usize];
        match bind.visit(from, stretch, self.lanes, rows) {
            (visited, Some(message)) => Stop::Panicked(from + visited as u32 - 1, message),
            (_, None) => next,
        }
    }

    /// Motion `index` is gone; returns the bind once the last one is (for the caller to
    /// drop, catching a panic in what it captured).
    pub(super) fn release(&mut self, index: u32) -> Option<impl Send> {
        self.set_row(index, GONE);
        self.live = self.live.saturating_sub(1);
        if self.live > 0 {
            return None;
        }
        self.bind.take()
    }
}
