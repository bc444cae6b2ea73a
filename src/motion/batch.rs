//! Batches: many motions of one configuration added in one call, as a particle emitter does
//! every frame. The base motion is validated once, each motion's endpoints on their own, and
//! nothing is added unless every motion is valid.

use super::builder::{Motion, MotionSettings};
use crate::core::handle::MotionHandle;
use crate::core::value::{Animatable, RoundingMode};
use crate::error::BuildError;
use crate::table::targets::Target;
use crate::world::bound_run::IndexedBind;
use crate::world::built::BuiltMotion;
use crate::world::MotionWorld;
use std::ops::Range;

/// One motion of a batch: what it changes in the batch's base motion (its start and end
/// values, and where it writes its value, if anywhere).
#[derive(Clone, Copy, Debug, PartialEq)]
#[must_use]
pub struct BatchItem<T: Animatable> {
    pub(crate) from: T,
    pub(crate) to: T,
    pub(crate) target: Option<Target>,
}

impl<T: Animatable> BatchItem<T> {
    /// A motion from `from` to `to`, with the base motion's other settings.
    pub fn new(from: T, to: T) -> Self {
        Self {
            from,
            to,
            target: None,
        }
    }

    /// Also writes this motion's value into a registered target, as
    /// [`Motion::target`] does (checked with the rest of the batch: an unknown id or a
    /// place past the end is [`BuildError::InBatch`] and nothing is added).
    ///
    /// ```
    /// use wgpu_tween::{BatchItem, Motion, MotionWorld};
    ///
    /// let mut world = MotionWorld::new();
    /// let xs = world.add_host_target(3)?;
    /// let mut handles = Vec::new();
    /// Motion::new(0.0f32, 0.0, 1.0).run_batch(
    ///     &mut world,
    ///     3,
    ///     |i| BatchItem::new(0.0, i as f32).target(xs.at(i as u32, 1, 0)),
    ///     &mut handles,
    /// )?;
    /// world.update(0.5)?;
    /// assert_eq!(world.host_target(xs).unwrap(), &[0.0, 0.5, 1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn target(mut self, target: Target) -> Self {
        self.target = Some(target);
        self
    }
}

impl<T: Animatable> Motion<T> {
    /// Adds `count` motions with this motion's settings, motion `i` with the endpoints of
    /// `item(i)` (this motion's own `from` and `to` are not used), and appends their
    /// handles to `handles` in creation order. The settings are checked once and each
    /// motion's endpoints as [`run`](Self::run) checks them; if any is invalid
    /// ([`BuildError::InBatch`] names the first) nothing is added, nor when `item` panics.
    /// A base motion with callbacks or a target is refused ([`BuildError::NotBatchable`]):
    /// its motions cannot share them (give each motion its own with [`BatchItem::target`]).
    /// Far cheaper per motion than `run` in a loop. Keeping no handles:
    /// [`run_batch_detached`](Self::run_batch_detached); a base of settings only, without
    /// placeholder values: [`MotionSettings::run_batch`].
    ///
    /// ```
    /// use wgpu_tween::{BatchItem, Motion, MotionWorld};
    ///
    /// let mut world = MotionWorld::new();
    /// let spark = Motion::new(0.0f32, 0.0, 2.0);
    /// let mut sparks = Vec::new();
    /// spark.run_batch(&mut world, 3, |i| BatchItem::new(0.0, 10.0 * i as f32), &mut sparks)?;
    /// world.update(1.0)?;
    /// assert_eq!(world.value::<f32>(sparks[2])?, 10.0); // halfway from 0 to 20
    ///
    /// // One invalid motion: none is added.
    /// let bad = spark.run_batch(&mut world, 3, |i| BatchItem::new(0.0, [1.0, f32::NAN, 2.0][i]), &mut sparks);
    /// assert!(matches!(bad, Err(wgpu_tween::BuildError::InBatch { index: 1, .. })));
    /// assert_eq!((world.len(), sparks.len()), (3, 3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_batch(
        &self,
        world: &mut MotionWorld,
        count: usize,
        mut item: impl FnMut(usize) -> BatchItem<T>,
        handles: &mut Vec<MotionHandle>,
    ) -> Result<(), BuildError> {
        self.add_batch(
            world,
            count,
            |i| (item(i), None::<(fn(T), _)>),
            None,
            handles,
        )
    }

    /// [`run_batch`](Self::run_batch) for a caller that keeps no handles (a particle
    /// emitter's fire-and-forget motions, that end by themselves): the same checks, all or
    /// nothing, and no handle vector to pass.
    ///
    /// Nothing can name these motions, so the world keeps the batch whole, as a particle
    /// system would: one clock and one ease evaluation per update for all of them, each
    /// motion's value written straight into its host array, and the batch retired at once
    /// when it ends. A frame's batch then costs about what pushing its motions onto a `Vec`
    /// costs, and allocates nothing once warmed up. The values are those of
    /// [`run_batch`](Self::run_batch)'s motions. Motions with a GPU target, and a base in a
    /// group or with [`preserve`](Self::preserve), take the general path (a group can list
    /// its motions; a preserved motion stays after it ends). [`MotionWorld::len`] counts the
    /// batch's motions; [`MotionWorld::debug_snapshot`] does not list them.
    ///
    /// ```
    /// use wgpu_tween::{BatchItem, Motion, MotionWorld};
    ///
    /// let mut world = MotionWorld::new();
    /// let xs = world.add_host_target(4)?;
    /// Motion::new(0.0f32, 0.0, 1.0).run_batch_detached(&mut world, 4, |i| {
    ///     BatchItem::new(0.0, i as f32).target(xs.at(i as u32, 1, 0))
    /// })?;
    /// world.update(0.5)?;
    /// assert_eq!(world.host_target(xs).unwrap(), &[0.0, 0.5, 1.0, 1.5]);
    /// assert_eq!(world.len(), 4);
    /// world.update(0.5)?;
    /// assert_eq!(world.host_target(xs).unwrap(), &[0.0, 1.0, 2.0, 3.0]);
    /// assert!(world.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_batch_detached(
        &self,
        world: &mut MotionWorld,
        count: usize,
        mut item: impl FnMut(usize) -> BatchItem<T>,
    ) -> Result<(), BuildError> {
        if let Some(what) = self.unshareable() {
            return Err(BuildError::NotBatchable(what));
        }
        let base = self.build_base()?;
        let Some(mut cohorts) = world.cohort_builder(&base) else {
            return self.add_detached_from(world, &base, None, 0..count, item);
        };
        for index in 0..count {
            let item_now = item(index);
            let checked = self.checked_item(world, index, &item_now)?;
            match item_now.target {
                Some(target) if target.id.is_gpu() => {
                    // The executors' scatter writes GPU buffers: this motion and the rest
                    // take the general path.
                    let first = Some((checked, item_now.target));
                    return self
                        .add_detached_from(world, &base, first, index + 1..count, item)
                        .map(|()| world.commit_cohorts(cohorts));
                }
                target => cohorts.push(
                    &checked.pairs,
                    checked.word,
                    target.map(|t| (t.id.slot(), checked.first)),
                ),
            }
        }
        world.commit_cohorts(cohorts);
        Ok(())
    }

    /// [`run_batch`](Self::run_batch) with a bind per motion: `item(i)` gives motion `i`'s
    /// endpoints and its bind (called as [`bind`](Self::bind)'s is, the immediate bind
    /// included, once every motion is added). Commands that binds queue are applied after the
    /// whole batch is added.
    ///
    /// ```
    /// use wgpu_tween::{BatchItem, Motion, MotionWorld};
    /// use std::sync::{Arc, Mutex};
    ///
    /// let mut world = MotionWorld::new();
    /// let positions = Arc::new(Mutex::new(vec![0.0f32; 4]));
    /// let mut handles = Vec::new();
    /// Motion::new(0.0f32, 0.0, 1.0).bind_batch(
    ///     &mut world,
    ///     4,
    ///     |i| {
    ///         let positions = Arc::clone(&positions);
    ///         (BatchItem::new(0.0, i as f32), move |x| positions.lock().unwrap()[i] = x)
    ///     },
    ///     &mut handles,
    /// )?;
    /// world.update(0.5)?;
    /// assert_eq!(*positions.lock().unwrap(), [0.0, 0.5, 1.0, 1.5]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bind_batch<B: FnMut(T) + Send + 'static>(
        &self,
        world: &mut MotionWorld,
        count: usize,
        mut item: impl FnMut(usize) -> (BatchItem<T>, B),
        handles: &mut Vec<MotionHandle>,
    ) -> Result<(), BuildError> {
        let rounding = self.rounding_mode();
        self.add_batch(
            world,
            count,
            |i| {
                let (item, bind) = item(i);
                (item, Some((bind, rounding)))
            },
            None,
            handles,
        )
    }

    /// [`run_batch`](Self::run_batch) with one bind shared by the whole batch: `bind(i, value)`
    /// gets motion `i`'s value (its index in this batch), called as [`bind`](Self::bind)'s
    /// is (the immediate bind included, in creation order). The cheapest way to deliver
    /// every value of a large batch through a callback: the batch's motions need no closure
    /// each, and an update calls `bind` from one loop over the batch's motions, with `bind`
    /// inlined there. `bind` is dropped with the batch's last motion. Commands that it
    /// queues are applied after the whole batch is added.
    ///
    /// ```
    /// use wgpu_tween::{BatchItem, Motion, MotionWorld};
    /// use std::sync::mpsc;
    ///
    /// let mut world = MotionWorld::new();
    /// let (tx, rx) = mpsc::channel();
    /// let mut handles = Vec::new();
    /// Motion::new(0.0f32, 0.0, 1.0).immediate_bind(false).bind_batch_indexed(
    ///     &mut world,
    ///     3,
    ///     |i| BatchItem::new(0.0, i as f32),
    ///     move |i, x| tx.send((i, x)).unwrap(),
    ///     &mut handles,
    /// )?;
    /// world.update(0.5)?;
    /// assert_eq!(rx.try_iter().collect::<Vec<_>>(), [(0, 0.0), (1, 0.5), (2, 1.0)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bind_batch_indexed(
        &self,
        world: &mut MotionWorld,
        count: usize,
        mut item: impl FnMut(usize) -> BatchItem<T>,
        bind: impl FnMut(usize, T) + Send + 'static,
        handles: &mut Vec<MotionHandle>,
    ) -> Result<(), BuildError> {
        let shared = IndexedBind::new(bind, self.rounding_mode());
        let no_own = |i| (item(i), None::<(fn(T), _)>);
        self.add_batch(world, count, no_own, Some(shared), handles)
    }

    /// Adds `count` motions made from this one: motion `i` as `item(i)` says, with its own
    /// bind (and its rounding) where `item` gives one, or `shared`.
    fn add_batch<B: FnMut(T) + Send + 'static>(
        &self,
        world: &mut MotionWorld,
        count: usize,
        item: impl FnMut(usize) -> (BatchItem<T>, Option<(B, RoundingMode)>),
        shared: Option<IndexedBind>,
        handles: &mut Vec<MotionHandle>,
    ) -> Result<(), BuildError> {
        if let Some(what) = self.unshareable() {
            return Err(BuildError::NotBatchable(what));
        }
        let base = self.build_base()?;
        self.add_batch_from(world, &base, None, 0..count, item, shared, handles)
    }

    /// Adds the motions of `base` (built from this one): `first` (checked, with no bind),
    /// then motion `i` for each `i` of `indices` as `item(i)` says.
    #[allow(clippy::too_many_arguments)]
    fn add_batch_from<B: FnMut(T) + Send + 'static>(
        &self,
        world: &mut MotionWorld,
        base: &BuiltMotion,
        first: Option<(CheckedItem, Option<Target>)>,
        indices: Range<usize>,
        mut item: impl FnMut(usize) -> (BatchItem<T>, Option<(B, RoundingMode)>),
        shared: Option<IndexedBind>,
        handles: &mut Vec<MotionHandle>,
    ) -> Result<(), BuildError> {
        if let Some(g) = base.group {
            world.group_clock(g)?;
        }
        // Each motion goes in once checked; an error (or a panic in `item`) drops the
        // batch, which takes out what it added.
        let count = indices.len() + usize::from(first.is_some());
        let mut batch = world.insert_batch(base, count, shared, handles);
        if let Some((c, target)) = first {
            batch.push(c.pairs, c.word, None, target);
        }
        for index in indices {
            let (item, bind) = item(index);
            let c = self.checked_item(batch.world(), index, &item)?;
            batch.push(c.pairs, c.word, bind, item.target);
        }
        batch.finish();
        Ok(())
    }

    /// [`add_batch_from`](Self::add_batch_from) for a detached batch on the general path:
    /// no binds, the handles in the world's reused vector.
    fn add_detached_from(
        &self,
        world: &mut MotionWorld,
        base: &BuiltMotion,
        first: Option<(CheckedItem, Option<Target>)>,
        indices: Range<usize>,
        mut item: impl FnMut(usize) -> BatchItem<T>,
    ) -> Result<(), BuildError> {
        let mut handles = world.take_detached_handles();
        let no_bind = |i| (item(i), None::<(fn(T), RoundingMode)>);
        let result = self.add_batch_from(world, base, first, indices, no_bind, None, &mut handles);
        world.restore_detached_handles(handles);
        result
    }

    /// Checks motion `index` of a batch going into `world`: its endpoints as
    /// [`run`](Self::run) checks them, and its target. (Always inlined: called out of line,
    /// its copies in and out cost a third of a batch motion.)
    #[inline(always)]
    fn checked_item(
        &self,
        world: &MotionWorld,
        index: usize,
        item: &BatchItem<T>,
    ) -> Result<CheckedItem, BuildError> {
        let in_batch = |error| BuildError::InBatch {
            index,
            error: Box::new(error),
        };
        let (pairs, word) = self.checked_pairs(item.from, item.to).map_err(in_batch)?;
        let first = match &item.target {
            Some(target) => world
                .check_target(target, T::LANES)
                .map_err(|e| in_batch(BuildError::Target(e)))?,
            None => 0,
        };
        Ok(CheckedItem { pairs, word, first })
    }
}

/// A batch's motion, checked: its lane pairs, its row's `params` word, and the f32 index of
/// lane 0 in its target (0 without one).
struct CheckedItem {
    pairs: [[f32; 2]; 4],
    word: u32,
    first: u32,
}

impl MotionSettings {
    /// [`Motion::run_batch`] with these settings as the base: the batch's motions differ
    /// only in what `item(i)` gives them (endpoints, target), so the base needs no values
    /// of its own. `T` is the items' value type.
    ///
    /// ```
    /// use glam::Vec3;
    /// use wgpu_tween::{BatchItem, Ease, MotionSettings, MotionWorld};
    ///
    /// let spark = MotionSettings { duration: 2.0, ease: Ease::Linear, ..MotionSettings::default() };
    /// let mut world = MotionWorld::new();
    /// let mut sparks = Vec::new();
    /// spark.run_batch(&mut world, 3, |i| BatchItem::new(Vec3::ZERO, Vec3::splat(i as f32)), &mut sparks)?;
    /// world.update(1.0)?;
    /// assert_eq!(world.value::<Vec3>(sparks[2])?, Vec3::ONE);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_batch<T: Animatable>(
        &self,
        world: &mut MotionWorld,
        count: usize,
        item: impl FnMut(usize) -> BatchItem<T>,
        handles: &mut Vec<MotionHandle>,
    ) -> Result<(), BuildError> {
        self.base::<T>().run_batch(world, count, item, handles)
    }

    /// [`Motion::run_batch_detached`] with these settings as the base (no handles kept).
    ///
    /// ```
    /// use wgpu_tween::{BatchItem, MotionSettings, MotionWorld};
    ///
    /// let fade = MotionSettings { duration: 0.5, ..MotionSettings::default() };
    /// let mut world = MotionWorld::new();
    /// let alpha = world.add_host_target(2)?;
    /// fade.run_batch_detached(&mut world, 2, |i| {
    ///     BatchItem::new(1.0f32, 0.0).target(alpha.at(i as u32, 1, 0))
    /// })?;
    /// world.update(0.5)?;
    /// assert_eq!(world.host_target(alpha).unwrap(), &[0.0, 0.0]); // ended exactly
    /// assert!(world.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_batch_detached<T: Animatable>(
        &self,
        world: &mut MotionWorld,
        count: usize,
        item: impl FnMut(usize) -> BatchItem<T>,
    ) -> Result<(), BuildError> {
        self.base::<T>().run_batch_detached(world, count, item)
    }

    /// A motion of these settings whose endpoints no batch uses (each item has its own).
    fn base<T: Animatable>(&self) -> Motion<T> {
        let unused = T::from_lanes([0.0; 4]);
        Motion::new(unused, unused, self.duration).with_settings(self)
    }
}
