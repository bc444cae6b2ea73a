//! Cohorts: a detached batch kept as one entry, the way a particle emitter's motions live.
//!
//! The motions of `run_batch_detached` share one configuration and were spawned at one world
//! time, so they share one row: one clock, one progress and one ease per update, whatever
//! their number. Nothing can name them (no handle, callback, bind, group or future), so the
//! batch needs none of a motion's per-slot state either: a cohort keeps the row once and,
//! per motion, its lane pairs and the f32 its value goes to in one host array. An update
//! evaluates the row once and lerps each motion's lanes into the array, with the reference
//! functions the executors mirror (`eval::clock::progress`, `eval::adapters`), so a cohort's
//! values are the general path's, bit for bit on the CPU executor. The cohort ends whole in
//! the update its row completes (every motion has written its end value).
//!
//! What takes the general path instead: a base with a group (`group_motions` names its
//! motions) or `preserve` (its motions stay after completing), and motions with a GPU
//! target (the executors' scatter writes GPU buffers). Motions with no target are counted
//! and timed, and store nothing else.
//!
//! Per-frame protocol: a batch fills a [`CohortBuilder`] (one cohort per host array its
//! motions write, in the order they come) and commits it when every motion is checked, so a
//! refused batch leaves nothing. `update` evaluates the cohorts after the general motions'
//! visits, in creation order, and retires the completed ones, keeping their memory for the
//! next batches (at most [`SPARE`] cohorts, none larger than twice the live motions or
//! [`SPARE_MOTIONS`], so a burst's memory is released when it ends). The builder fills
//! vectors the world keeps, so a batch allocates nothing once warmed up.

use super::MotionWorld;
use crate::core::curve::{AnimationCurve, CurvePool};
use crate::core::row::{ClockTable, MotionRow};
use crate::core::value::Interpolation;
use crate::eval::adapters::{lerp, row_value};
use crate::eval::clock::{eased_with, progress};
use crate::table::host_targets::HostTargets;
use crate::world::built::BuiltMotion;

/// Retired cohorts whose memory is kept for new ones.
const SPARE: usize = 16;
/// The motions a retired cohort may hold and still be kept when few motions are live.
const SPARE_MOTIONS: usize = 1 << 16;

/// A world's cohorts.
#[derive(Default)]
pub(crate) struct Cohorts {
    /// In creation order.
    live: Vec<Cohort>,
    /// Retired cohorts, emptied, their capacity kept.
    spare: Vec<Cohort>,
    /// The vector a [`CohortBuilder`] fills, kept empty between batches (so that a batch
    /// allocates nothing once warmed up).
    building: Vec<Cohort>,
    /// Motions in `live`.
    motions: usize,
}

/// One detached batch's motions writing one host array (or none).
struct Cohort {
    /// The shared row, anchored at clock 0 when the batch was added (its `params` word is
    /// each motion's, in `words`).
    row: MotionRow,
    /// The ease's parameter lanes (an animation curve's key range in the world's table).
    params: [f32; 4],
    /// `params` name keys in the world's curve table, freed when the cohort ends.
    curve: bool,
    /// The host array written, if any.
    array: Option<u32>,
    /// Motions.
    count: usize,
    /// Each motion's `(from, to)` per lane, `lanes` per motion for the lerp, all four
    /// pairs for the other adapters (only with an array).
    ends: Vec<[f32; 2]>,
    /// Each motion's f32 index of lane 0 in the array (only with an array).
    firsts: Vec<u32>,
    /// Each motion's `params` word (only with an array, for adapters other than the lerp:
    /// a slerp's angle, a shake's seed).
    words: Vec<u32>,
}

impl Default for Cohort {
    fn default() -> Self {
        Self {
            row: bytemuck::Zeroable::zeroed(),
            params: [0.0; 4],
            curve: false,
            array: None,
            count: 0,
            ends: Vec::new(),
            firsts: Vec::new(),
            words: Vec::new(),
        }
    }
}

impl Cohort {
    /// Empties the cohort, keeping its capacity.
    fn reset(&mut self) {
        (self.count, self.curve) = (0, false);
        self.ends.clear();
        self.firsts.clear();
        self.words.clear();
    }

    /// Writes every motion's value at eased progress `p` (`w`: the world time of the row's
    /// clock, for the shake's noise) into `array`.
    fn write(&self, array: &mut [f32], p: f32, w: f64) {
        let lerps = self.row.adapter_bits() == Interpolation::Lerp as u32;
        match (lerps, self.row.lane_count()) {
            (true, 1) => self.lerp_into::<1>(array, p),
            (true, 2) => self.lerp_into::<2>(array, p),
            (true, 3) => self.lerp_into::<3>(array, p),
            (true, _) => self.lerp_into::<4>(array, p),
            (false, lanes) => self.adapt_into(array, lanes, p, w),
        }
    }

    /// The lerp adapter for `L` lanes: `from + (to − from) · p`, as the executors compute it.
    #[inline(always)]
    fn lerp_into<const L: usize>(&self, array: &mut [f32], p: f32) {
        for (ends, &first) in self.ends.chunks_exact(L).zip(&self.firsts) {
            let first = first as usize;
            // (In bounds: checked when added, and host arrays keep their length.)
            if let Some(dst) = array.get_mut(first..first + L) {
                for (d, &[from, to]) in dst.iter_mut().zip(ends) {
                    *d = lerp(from, to, p);
                }
            }
        }
    }

    /// Any other adapter, motion by motion, through the reference `row_value`.
    fn adapt_into(&self, array: &mut [f32], lanes: usize, p: f32, w: f64) {
        let mut row = self.row;
        let motions = self.ends.chunks_exact(4).zip(&self.firsts);
        for ((ends, &first), &word) in motions.zip(&self.words) {
            let mut pairs = [[0.0; 2]; 4];
            pairs.copy_from_slice(ends);
            row.params = word;
            let value = row_value(&row, pairs, p, w);
            let first = first as usize;
            if let Some(dst) = array.get_mut(first..first + lanes) {
                dst.copy_from_slice(&value[..lanes]);
            }
        }
    }
}

impl Cohorts {
    /// Motions in live cohorts.
    pub fn len(&self) -> usize {
        self.motions
    }

    /// Drops every cohort and the kept memory (the world's curve table is cleared with them).
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    /// Evaluates every cohort at the clocks `clocks`, writing the host arrays, and retires
    /// those whose row has completed (their end values written).
    pub fn update(
        &mut self,
        clocks: &ClockTable,
        arrays: &mut HostTargets,
        curves: &mut CurvePool,
    ) {
        let mut kept = 0;
        for i in 0..self.live.len() {
            let cohort = &self.live[i];
            let w = clocks[cohort.row.clock_index()];
            let now = progress(&cohort.row, cohort.row.clock(w));
            if let Some(array) = cohort.array.and_then(|a| arrays.get_mut(a)) {
                cohort.write(
                    array,
                    eased_with(&cohort.row, &now, cohort.params, curves.keys()),
                    w,
                );
            }
            if !now.is_completed() {
                // Kept in creation order (a newer cohort's value is left in a shared f32).
                self.live.swap(kept, i);
                kept += 1;
            }
        }
        let retired: usize = self.live[kept..].iter().map(|c| c.count).sum();
        self.motions -= retired;
        for mut cohort in self.live.drain(kept..) {
            if cohort.curve {
                curves.free(cohort.params);
            }
            // Memory for the next batches, as much as the live motions use (an emitter's
            // next frame), not a burst's.
            if self.spare.len() < SPARE && cohort.count <= 2 * self.motions + SPARE_MOTIONS {
                cohort.reset();
                self.spare.push(cohort);
            }
        }
    }
}

/// A detached batch's cohorts being filled: committed by
/// [`MotionWorld::commit_cohorts`] once every motion is checked, or dropped with nothing
/// added.
pub(crate) struct CohortBuilder {
    /// What each cohort of the batch starts as (row anchored now, no motions).
    row: MotionRow,
    params: [f32; 4],
    curve: Option<AnimationCurve>,
    auto_seed: bool,
    /// The cohorts filled, the one being filled last (the world's `building`).
    cohorts: Vec<Cohort>,
    /// Kept memory for the cohorts (the world's `spare`, given back on commit; a dropped
    /// builder releases it).
    spare: Vec<Cohort>,
}

impl CohortBuilder {
    /// Adds the next motion: its lane pairs, its `params` word, and the host array and f32
    /// index of lane 0 it writes (`None`: no target).
    #[inline]
    pub fn push(&mut self, pairs: &[[f32; 2]; 4], word: u32, target: Option<(u32, u32)>) {
        let array = target.map(|(array, _)| array);
        let cohort = match self.cohorts.last_mut() {
            Some(c) if c.array == array => c,
            _ => {
                let mut cohort = self.spare.pop().unwrap_or_default();
                (cohort.row, cohort.params, cohort.array) = (self.row, self.params, array);
                self.cohorts.push(cohort);
                let last = self.cohorts.len() - 1;
                &mut self.cohorts[last]
            }
        };
        cohort.count += 1;
        if let Some((_, first)) = target {
            cohort.firsts.push(first);
            if self.row.adapter_bits() == Interpolation::Lerp as u32 {
                cohort
                    .ends
                    .extend_from_slice(&pairs[..self.row.lane_count()]);
            } else {
                // (Punch and shake keep their frequency and damping in the last pair.)
                cohort.ends.extend_from_slice(pairs);
                cohort.words.push(word);
            }
        }
    }
}

impl MotionWorld {
    /// A builder for a detached batch of `base` (checked by the caller) if its motions can
    /// be a cohort: no group and no `preserve` (see the module docs).
    pub(crate) fn cohort_builder(&mut self, base: &BuiltMotion) -> Option<CohortBuilder> {
        if base.group.is_some()
            || base.options.preserve
            || base.bind.is_some()
            || base.callbacks.is_some()
        {
            return None;
        }
        let mut row = base.row;
        row.anchor(self.clocks.now[row.clock_index()], 0.0);
        Some(CohortBuilder {
            row,
            params: base.params,
            curve: base.curve.clone(),
            auto_seed: base.auto_seed,
            cohorts: std::mem::take(&mut self.cohorts.building),
            spare: std::mem::take(&mut self.cohorts.spare),
        })
    }

    /// Adds a filled builder's cohorts: their motions take sequence numbers as the general
    /// path's would (a shake's default seed comes from it), and an animation curve's keys
    /// go into the world's table once per cohort.
    pub(crate) fn commit_cohorts(&mut self, builder: CohortBuilder) {
        let CohortBuilder {
            curve,
            auto_seed,
            mut cohorts,
            spare,
            ..
        } = builder;
        let mut seq = self.next_seq;
        for mut cohort in cohorts.drain(..) {
            if auto_seed {
                for (k, word) in cohort.words.iter_mut().enumerate() {
                    *word = super::insert::seed(seq + k as u64);
                }
            }
            seq += cohort.count as u64;
            if let Some(curve) = &curve {
                cohort.params = self.table.rows.curves.insert(curve);
                cohort.curve = true;
            }
            self.cohorts.motions += cohort.count;
            self.cohorts.live.push(cohort);
        }
        self.next_seq = seq;
        (self.cohorts.building, self.cohorts.spare) = (cohorts, spare);
    }

    /// Evaluates the cohorts at this update's clocks.
    pub(super) fn update_cohorts(&mut self) {
        let clocks = &self.clocks.now;
        let curves = &mut self.table.rows.curves;
        self.cohorts.update(clocks, &mut self.host_targets, curves);
    }
}
