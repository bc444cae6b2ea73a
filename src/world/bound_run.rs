//! Runs of bound motions: motions of consecutive sequence numbers whose binds are of one
//! type, kept as one entry of the bound list ([`BoundRun`]). A run is a batch's shared bind
//! (`Motion::bind_batch_indexed`: one closure, called with each motion's index in its batch),
//! or a closure per motion, all of one type (`bind` called again and again from one place,
//! `Motion::bind_batch`), stored side by side.
//!
//! An update hands a stretch of the run to the run's own loop, monomorphised for its closure
//! type, so the closure is inlined there: no box and no indirect call per motion. A bind of
//! its own per motion costs at least a boxed call per motion (and at a million motions a
//! cache miss on each box), which was most of a bound world's update.

use std::any::Any;

use super::callbacks::guarded;
use super::meta::{BoundEntry, BoundList, BoundVisit, GONE};
use super::visit::output;
use crate::core::value::{Animatable, Lanes, RoundingMode};
use crate::table::rows::Rows;

/// Most motions a run of closures of their own gathers: a run is dropped with its last
/// motion, so a long-lived motion keeps at most this many places of dead ones.
const MAX_RUN: u32 = 1024;

/// A run's binds, behind one box per run.
trait RunBinds: Send {
    /// Calls the bind of motion `index` of the run (the exact visit, the immediate bind).
    fn call(&mut self, index: u32, value: &Lanes);

    /// Calls the binds of the live motions of `stretch` (the run's motions from index
    /// `first` on) with their rows' outputs, in order. Returns how many motions it went
    /// through, and the message if the last of them panicked.
    fn visit(&mut self, first: u32, stretch: Stretch<'_>, rows: &Rows) -> (usize, Option<String>);

    /// Motion `index` is gone: drops what was its own (its closure), catching a panic in
    /// its `Drop`.
    fn release(&mut self, index: u32) -> Result<(), String>;

    /// For a bind of the same type to find its run.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// The rows of a stretch of a run's motions.
#[derive(Clone, Copy)]
enum Stretch<'a> {
    /// Motion by motion, [`GONE`] for those that are gone.
    Rows(&'a [u32]),
    /// `len` consecutive rows from `first`, none gone: a run made in one go and not moved
    /// since, so the visit reads the outputs as they lie, without a row per motion.
    Consecutive { first: u32, len: u32 },
}

/// Calls `each(k, output)` for the `k`-th motion of `stretch` that is live, in order, with
/// its row's output (`T`'s lanes).
#[inline(always)]
fn each_output<T: Animatable>(
    stretch: Stretch<'_>,
    rows: &Rows,
    mut each: impl FnMut(usize, Lanes),
) {
    match stretch {
        Stretch::Rows(motion_rows) => {
            for (k, &row) in motion_rows.iter().enumerate() {
                if row != GONE {
                    each(k, output(rows, row, T::LANES as u8));
                }
            }
        }
        // A scalar's outputs are one column: read as a slice.
        Stretch::Consecutive { first, len } if T::LANES == 1 => {
            let range = first as usize..first as usize + len as usize;
            let column = rows.outputs[0].get(range).unwrap_or_default();
            for (k, &x) in column.iter().enumerate() {
                each(k, [x, 0.0, 0.0, 0.0]);
            }
        }
        Stretch::Consecutive { first, len } => {
            for (k, row) in (first..first + len).enumerate() {
                each(k, output(rows, row, T::LANES as u8));
            }
        }
    }
}

/// A shared bind of values of type `T`: `bind(index, value)`.
struct Shared<T, F> {
    bind: F,
    rounding: RoundingMode,
    _value: std::marker::PhantomData<fn(T)>,
}

impl<T: Animatable, F: FnMut(usize, T) + Send + 'static> RunBinds for Shared<T, F> {
    fn call(&mut self, index: u32, value: &Lanes) {
        (self.bind)(index as usize, T::from_lanes_rounded(*value, self.rounding));
    }

    fn visit(&mut self, first: u32, stretch: Stretch<'_>, rows: &Rows) -> (usize, Option<String>) {
        let mut visited = 0;
        // One guard for the stretch: `visited` says which motion's bind panicked.
        let result = guarded(|| {
            each_output::<T>(stretch, rows, |k, value| {
                visited = k + 1;
                (self.bind)(
                    first as usize + k,
                    T::from_lanes_rounded(value, self.rounding),
                );
            });
        });
        (visited, result.err())
    }

    fn release(&mut self, _: u32) -> Result<(), String> {
        Ok(()) // the bind goes with the run's last motion
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// A closure of its own per motion, all of type `F`, side by side (`None` once the motion
/// is gone).
struct PerMotion<T, F> {
    binds: Vec<Option<F>>,
    rounding: RoundingMode,
    _value: std::marker::PhantomData<fn(T)>,
}

impl<T: Animatable, F: FnMut(T) + Send + 'static> RunBinds for PerMotion<T, F> {
    fn call(&mut self, index: u32, value: &Lanes) {
        if let Some(Some(bind)) = self.binds.get_mut(index as usize) {
            bind(T::from_lanes_rounded(*value, self.rounding));
        }
    }

    fn visit(&mut self, first: u32, stretch: Stretch<'_>, rows: &Rows) -> (usize, Option<String>) {
        // (As long as the rows: a motion's bind and row are pushed together.)
        let binds = self.binds.get_mut(first as usize..).unwrap_or_default();
        let rounding = self.rounding;
        let mut visited = 0;
        let result = guarded(|| {
            each_output::<T>(stretch, rows, |k, value| {
                visited = k + 1;
                if let Some(Some(bind)) = binds.get_mut(k) {
                    bind(T::from_lanes_rounded(value, rounding));
                }
            });
        });
        (visited, result.err())
    }

    fn release(&mut self, index: u32) -> Result<(), String> {
        let bind = self.binds.get_mut(index as usize).and_then(Option::take);
        guarded(move || drop(bind))
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// How many of `visits` from the first are `visit`. Whole blocks first, compared without
/// an early exit so that they vectorise: a stagger's waiting motions are passed at a few
/// per cycle.
fn leading(visits: &[BoundVisit], visit: BoundVisit) -> usize {
    const BLOCK: usize = 64;
    let blocks = visits.chunks_exact(BLOCK);
    let whole = BLOCK
        * blocks
            .take_while(|b| b.iter().fold(true, |all, &v| all & (v == visit)))
            .count();
    let rest = &visits[whole..];
    whole + rest.iter().position(|&v| v != visit).unwrap_or(rest.len())
}

/// A batch's shared bind, ready for the world (`MotionWorld::insert_batch`).
pub(crate) struct IndexedBind(Box<dyn RunBinds>);

impl IndexedBind {
    /// `bind(index, value)`, values rounded as `rounding` says.
    pub(crate) fn new<T: Animatable, F: FnMut(usize, T) + Send + 'static>(
        bind: F,
        rounding: RoundingMode,
    ) -> Self {
        Self(Box::new(Shared {
            bind,
            rounding,
            _value: std::marker::PhantomData,
        }))
    }
}

/// A motion's bind of its own, boxed: one made where the world is not at hand (a deferred
/// spawn, a sequence template's child), or one that found no run to join (the motion's own
/// entry of the bound list).
pub(crate) trait OwnBind: Send {
    /// Calls the bind with `value`.
    fn call(&mut self, value: &Lanes);

    /// Adds the bound entry of the motion of sequence number `seq` (the highest yet) at row
    /// `row` with this bind ([`attach`]). Returns the index of its entry.
    fn attach(self: Box<Self>, list: &mut BoundList, seq: u64, row: u32, visit: BoundVisit) -> u32;

    /// For a bind of the same type to take the closure out (when they make a run).
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// A motion's bind of its own.
pub(crate) type BindFn = Box<dyn OwnBind>;

/// `bind` for values of type `T`, rounded as `rounding` says (`None` once it joined a run).
struct Own<T, F> {
    bind: Option<F>,
    rounding: RoundingMode,
    _value: std::marker::PhantomData<fn(T)>,
}

/// `bind` as a motion's own bind, its values rounded as `rounding` says.
pub(crate) fn own_bind<T: Animatable, F: FnMut(T) + Send + 'static>(
    bind: F,
    rounding: RoundingMode,
) -> BindFn {
    Box::new(Own {
        bind: Some(bind),
        rounding,
        _value: std::marker::PhantomData::<fn(T)>,
    })
}

impl<T: Animatable, F: FnMut(T) + Send + 'static> OwnBind for Own<T, F> {
    fn call(&mut self, value: &Lanes) {
        if let Some(bind) = self.bind.as_mut() {
            bind(T::from_lanes_rounded(*value, self.rounding));
        }
    }

    fn attach(self: Box<Self>, list: &mut BoundList, seq: u64, row: u32, visit: BoundVisit) -> u32 {
        match self.bind {
            Some(bind) => attach(list, seq, row, bind, self.rounding, visit),
            None => list.push_one(seq, row, T::LANES as u8, visit, None),
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Adds the bound entry of a new motion with a bind of its own, `bind` (its values rounded
/// as `rounding` says): the motion of sequence number `seq` (the highest yet) at row `row`.
/// It joins the last entry when that is a run of binds of its type that ends just before it
/// (or one motion with such a bind: the two become a run); otherwise it is an entry of its
/// own. Returns the index of its entry.
pub(super) fn attach<T: Animatable, F: FnMut(T) + Send + 'static>(
    list: &mut BoundList,
    seq: u64,
    row: u32,
    bind: F,
    rounding: RoundingMode,
    visit: BoundVisit,
) -> u32 {
    let last = list.len().wrapping_sub(1);
    let next = (list.len() > 0).then(|| seq - list.first_seq(last));
    match list.last_mut() {
        Some(BoundEntry::Run(run)) if next == Some(u64::from(run.len())) && run.len() < MAX_RUN => {
            let binds = (run.binds.as_mut())
                .and_then(|b| b.as_any_mut().downcast_mut::<PerMotion<T, F>>())
                .filter(|b| b.rounding == rounding);
            if let Some(binds) = binds {
                binds.binds.push(Some(bind));
                run.push(row, visit);
                return last as u32;
            }
        }
        Some(BoundEntry::One(one)) if next == Some(1) => {
            let (first_row, first_visit) = (one.row, one.visit);
            let first = (one.bind.as_mut())
                .and_then(|b| b.as_any_mut().downcast_mut::<Own<T, F>>())
                .filter(|first| first.rounding == rounding)
                .and_then(|first| first.bind.take());
            if let Some(first) = first {
                let binds = PerMotion::<T, F> {
                    binds: vec![Some(first), Some(bind)],
                    rounding,
                    _value: std::marker::PhantomData,
                };
                let mut run = BoundRun::with(Box::new(binds), 2);
                run.push(first_row, first_visit);
                run.push(row, visit);
                list[last] = BoundEntry::Run(Box::new(run));
                return last as u32;
            }
        }
        _ => {}
    }
    let bind = own_bind(bind, rounding);
    list.push_one(seq, row, T::LANES as u8, visit, Some(bind))
}

/// Motions of consecutive sequence numbers whose binds are of one type, as one entry of the
/// bound list: motion `i` has the sequence number of the entry's first motion plus `i`
/// (`BoundList::motion_mut`).
pub(crate) struct BoundRun {
    /// Each motion's row in creation order (the world re-points it when the row moves; the
    /// slot is the row's owner), or [`GONE`] once the motion is (it keeps its place, so that
    /// indices stay put): all an update's visit reads per motion besides its output.
    rows: Vec<u32>,
    /// Whether motion `i` is at row `rows[0] + i` for every motion (none gone), once known:
    /// found on the first visit after a row changed.
    consecutive: Option<bool>,
    /// How an update visits motion `i` without a due event: as long as the rows while any
    /// motion's is not [`BoundVisit::Value`], empty while all are.
    visits: Vec<BoundVisit>,
    /// How many motions' visits are not [`BoundVisit::Value`].
    not_value: u32,
    /// Motions not yet removed; the binds are dropped with the last.
    live: u32,
    binds: Option<Box<dyn RunBinds>>,
}

/// Where a stretch of a run's binds stopped.
pub(super) enum Stop {
    /// At motion `at`: its sequence number reached the limit, or the run ended (`at` is
    /// its length).
    At(u32),
    /// At motion `at`, not visited by value: it takes the exact visit, or waits.
    Visit(u32),
    /// Motion `at`'s bind panicked.
    Panicked(u32, String),
}

impl BoundRun {
    /// An empty batch of about `count` motions to come, bound to `bind`.
    pub(super) fn shared(bind: IndexedBind, count: usize) -> Self {
        Self::with(bind.0, count)
    }

    fn with(binds: Box<dyn RunBinds>, count: usize) -> Self {
        Self {
            rows: Vec::with_capacity(count),
            consecutive: Some(true),
            visits: Vec::new(),
            not_value: 0,
            live: 0,
            binds: Some(binds),
        }
    }

    /// Adds the next motion, at row `row`, visited as `visit` says.
    pub(super) fn push(&mut self, row: u32, visit: BoundVisit) {
        // (A first motion that is gone is `GONE`, and the run is not consecutive.)
        let next = (self.rows.first()).map_or(Some(row), |&first| first.checked_add(self.len()));
        if next != Some(row) {
            self.consecutive = Some(false);
        }
        self.rows.push(row);
        self.live += 1;
        let value = visit == BoundVisit::Value;
        if !value || self.not_value > 0 {
            self.visits.resize(self.rows.len() - 1, BoundVisit::Value);
            self.visits.push(visit);
            self.not_value += u32::from(!value);
        }
    }

    /// Each motion's row, [`GONE`] for those that are gone.
    pub(super) fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// Motion `index`'s row moved to `row`.
    pub(super) fn set_row(&mut self, index: u32, row: u32) {
        if let Some(r) = self.rows.get_mut(index as usize).filter(|r| **r != row) {
            *r = row;
            self.consecutive = None;
        }
    }

    /// Number of motions.
    pub(super) fn len(&self) -> u32 {
        self.rows.len() as u32
    }

    /// How an update visits motion `index` without a due event.
    pub(super) fn visit_of(&self, index: u32) -> BoundVisit {
        self.visits
            .get(index as usize)
            .copied()
            .unwrap_or(BoundVisit::Value)
    }

    /// Sets how an update visits motion `index` without a due event.
    pub(super) fn set_visit(&mut self, index: u32, visit: BoundVisit) {
        let was = self.visit_of(index);
        if index >= self.len() || was == visit {
            return;
        }
        self.visits.resize(self.rows.len(), BoundVisit::Value);
        self.visits[index as usize] = visit;
        if was == BoundVisit::Value {
            self.not_value += 1;
        } else if visit == BoundVisit::Value {
            self.not_value -= 1;
            if self.not_value == 0 {
                self.visits = Vec::new();
            }
        }
    }

    /// Whether any motion is live.
    pub(super) fn is_live(&self) -> bool {
        self.live > 0
    }

    /// Calls the bind of motion `index` (`Ok` if the binds are gone already).
    pub(super) fn call(&mut self, index: u32, value: &Lanes) -> Result<(), String> {
        match self.binds.as_mut() {
            Some(binds) => guarded(|| binds.call(index, value)),
            None => Ok(()),
        }
    }

    /// Binds motions from `from` on (passing those that wait), up to motion `until` (or the
    /// run's end, `At`), or to the next not visited by value (`Visit`); stops after a panic.
    pub(super) fn visit(&mut self, from: u32, until: u64, rows: &Rows) -> Stop {
        let len = self.len();
        let limit = until.min(u64::from(len)) as u32;
        let (from, end) = match self.visits.get(from as usize..limit as usize) {
            Some(visits) if self.not_value > 0 => {
                let waiting = leading(visits, BoundVisit::Wait);
                let by_value = leading(&visits[waiting..], BoundVisit::Value);
                let from = from + waiting as u32;
                (from, from + by_value as u32)
            }
            _ => (from, limit),
        };
        if from >= limit {
            return Stop::At(from);
        }
        if end == from {
            return Stop::Visit(from); // exact
        }
        // Before `limit`, the stretch ends at a motion not visited by value: its visit comes
        // next (an exact one, or none), before any later due motion.
        let next = if end < limit {
            Stop::Visit(end)
        } else {
            Stop::At(end)
        };
        let Some(binds) = self.binds.as_mut() else {
            return next;
        };
        let motion_rows = &self.rows;
        let consecutive = *self.consecutive.get_or_insert_with(|| {
            let first = motion_rows.first().copied().unwrap_or(GONE);
            first != GONE && motion_rows.iter().zip(first..).all(|(&row, at)| row == at)
        });
        let stretch = match self.rows.first() {
            Some(&first) if consecutive => Stretch::Consecutive {
                first: first + from,
                len: end - from,
            },
            _ => Stretch::Rows(&self.rows[from as usize..end as usize]),
        };
        match binds.visit(from, stretch, rows) {
            (visited, Some(message)) => Stop::Panicked(from + visited as u32 - 1, message),
            (_, None) => next,
        }
    }

    /// Motion `index` is gone: drops its own closure (the `Err` of a panic in its `Drop`),
    /// and returns the binds once the last motion is (for the caller to drop, catching a
    /// panic in what they captured).
    pub(super) fn release(&mut self, index: u32) -> (Result<(), String>, Option<impl Send>) {
        self.set_row(index, GONE);
        self.set_visit(index, BoundVisit::Value);
        let dropped = match self.binds.as_mut() {
            Some(binds) => binds.release(index),
            None => Ok(()),
        };
        self.live = self.live.saturating_sub(1);
        if self.live > 0 {
            return (dropped, None);
        }
        (dropped, self.binds.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_counts_the_first_visits_alike_across_blocks() {
        use BoundVisit::{Exact, Value, Wait};
        for len in [0, 1, 63, 64, 65, 128, 200] {
            for first_other in 0..=len {
                for other in [Value, Exact] {
                    let mut visits = vec![Wait; len];
                    if let Some(v) = visits.get_mut(first_other) {
                        *v = other;
                    }
                    // Later ones do not count, whatever they are.
                    if let Some(v) = visits.get_mut(first_other + 70) {
                        *v = Exact;
                    }
                    assert_eq!(leading(&visits, Wait), first_other, "{len}, {other:?}");
                }
            }
        }
        assert_eq!(leading(&[Value; 130], Value), 130);
        assert_eq!(leading(&[Exact, Wait], Wait), 0);
    }
}
