//! Inserting motions: one at a time (the builder's terminals, deferred spawns) or a batch.

use super::bound_run::{attach, BindFn, BoundRun, IndexedBind};
use super::built::{BuiltMotion, MotionOptions};
use super::callbacks::{guarded, Callbacks};
use super::meta::{BoundEntry, BoundVisit, SlotMeta};
use super::MotionWorld;
use crate::core::curve::AnimationCurve;
use crate::core::handle::{GroupId, MotionHandle};
use crate::core::row::MotionRow;
use crate::core::value::{Animatable, RoundingMode};
use crate::eval::adapters::row_value;
use crate::table::motions::{Appended, NewMotions};
use crate::table::targets::Target;

impl MotionWorld {
    /// Inserts a built motion at clock 0 (anchored at the current world time), into
    /// `reserved` if a command reserved its handle. Runs the immediate bind.
    #[inline]
    pub(crate) fn insert(
        &mut self,
        built: BuiltMotion,
        reserved: Option<MotionHandle>,
    ) -> MotionHandle {
        let handle = self.insert_unsettled(built, reserved);
        self.settle_inserted();
        handle
    }

    /// After an insert: settles where the immediate bind queued a command or cancelled its
    /// motion. (An insert only adds, so `maintain`, which shrinks, has nothing to do.)
    #[inline]
    fn settle_inserted(&mut self) {
        if !self.removals.is_empty() || self.commands_queued() {
            self.settle();
        }
    }

    /// Checks what a motion of `lanes` lanes names in the world (its target, its group)
    /// before it is inserted.
    #[inline]
    pub(crate) fn check_built(
        &self,
        target: Option<&Target>,
        group: Option<GroupId>,
        lanes: usize,
    ) -> Result<(), crate::error::BuildError> {
        if let Some(target) = target {
            self.check_target(target, lanes)?;
        }
        if let Some(g) = group {
            self.group_clock(g)?;
        }
        Ok(())
    }

    /// Whether commands may be waiting in the queue (no lock: an insert asks every time).
    #[inline]
    fn commands_queued(&self) -> bool {
        self.shared.maybe_queued()
    }

    /// [`insert`](Self::insert) of a motion with its own bind, `bind` (`built` has none),
    /// its values rounded as `rounding` says. Where `bind` joins a run of binds of its type
    /// (`world/bound_run.rs`) it is moved there without a box.
    #[inline]
    pub(crate) fn insert_with_bind<T: Animatable, F: FnMut(T) + Send + 'static>(
        &mut self,
        built: BuiltMotion,
        bind: F,
        rounding: RoundingMode,
    ) -> MotionHandle {
        let handle = self.insert_linked(built, None, |world, slot| {
            world.attach_bind(slot, bind, rounding);
        });
        self.settle_inserted();
        handle
    }

    /// Gives the motion just placed in `slot` its own bind, `bind`, its values rounded as
    /// `rounding` says.
    #[inline]
    fn attach_bind<T: Animatable, F: FnMut(T) + Send + 'static>(
        &mut self,
        slot: u32,
        bind: F,
        rounding: RoundingMode,
    ) {
        let row = self.table.slots[slot as usize].row;
        let meta = &mut self.table.meta[slot as usize];
        let visit = BoundVisit::new(meta.options.skip_values_during_delay);
        meta.has_bind = true;
        meta.bound = Some(attach(
            &mut self.bound,
            meta.seq,
            row,
            bind,
            rounding,
            visit,
        ));
    }

    /// [`insert`](Self::insert) without applying queued commands afterwards (which could
    /// remove what was just made before the caller is done with it).
    #[inline]
    pub(crate) fn insert_unsettled(
        &mut self,
        built: BuiltMotion,
        reserved: Option<MotionHandle>,
    ) -> MotionHandle {
        self.insert_linked(built, reserved, |_, _| {})
    }

    /// [`insert_unsettled`](Self::insert_unsettled), with `link(world, slot)` run once the
    /// motion is placed (before its immediate bind).
    #[inline]
    fn insert_linked(
        &mut self,
        built: BuiltMotion,
        reserved: Option<MotionHandle>,
        link: impl FnOnce(&mut Self, u32),
    ) -> MotionHandle {
        let config = self.configure(&built);
        let own = OwnPart {
            pairs: built.pairs,
            word: built.row.params,
            curve: built.curve.as_ref(),
            bind: built.bind,
            callbacks: built.callbacks,
            target: built.target,
        };
        let handle = self.place(&config, own, reserved);
        link(self, handle.slot);
        // Once its bind is attached: scheduling also says how its bind is visited.
        self.schedule(handle.slot, self.table.slots[handle.slot as usize].row, 0.0);
        self.place_appended();
        if config.options.immediate_bind && self.table.meta[handle.slot as usize].has_bind {
            self.bind_at_start(handle.slot);
        }
        handle
    }

    /// What the motions of `built`'s configuration share when inserted now.
    #[inline]
    fn configure(&mut self, built: &BuiltMotion) -> Config {
        let mut row = built.row;
        // A motion of a group runs on its group's clock (a group removed before a deferred
        // spawn was applied leaves it on its own time kind).
        let group = built.group.filter(|&g| {
            self.group_clock(g).is_ok_and(|(clock, kind)| {
                row.set_clock(clock, kind);
                true
            })
        });
        row.anchor(self.clocks.now[row.clock_index()], 0.0);
        Config {
            row,
            params: built.params,
            group,
            auto_seed: built.auto_seed,
            options: built.options,
            debug_name: built.debug_name,
            value_type: self.value_type_index(built.value_type),
        }
    }

    /// Inserts one motion of `config` at clock 0, past the table's runs: linked (its bind,
    /// target and group) at that row, which [`place_appended`](Self::place_appended) moves
    /// into its run (its immediate bind is the caller's).
    #[inline]
    fn place(
        &mut self,
        config: &Config,
        own: OwnPart<'_>,
        reserved: Option<MotionHandle>,
    ) -> MotionHandle {
        if self.table.holes_in_the_way(&config.row) {
            self.compact_rows();
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let word = if config.auto_seed {
            seed(seq)
        } else {
            own.word
        };
        // An animation curve's keys go into the world's key table (freed with the row).
        let params = match own.curve {
            Some(curve) => self.table.rows.curves.insert(curve),
            None => config.params,
        };
        let callbacks = own.callbacks.as_deref();
        let mut meta = Some(config.meta(seq, self.updates, own.bind.is_some(), callbacks));
        let new = NewMotions {
            row: config.row,
            words: std::slice::from_ref(&word),
            pairs: std::slice::from_ref(&own.pairs),
            params: std::slice::from_ref(&params),
            value_type: config.value_type,
            changed: self.updates as u32,
        };
        let mut placed = Appended::default();
        let reserved = reserved.map(|h| (h.slot, h.version));
        self.table.append(new, reserved, |_, appended| {
            placed = appended;
            meta.take().unwrap_or_default()
        });
        let Appended { slot, version, row } = placed;
        self.make_room_for_callbacks(slot);
        self.callbacks[slot as usize] = own.callbacks;
        if let Some(target) = &own.target {
            // Checked by the builder's terminal; a deferred spawn's is checked here.
            self.link_target(slot, row, target, config.row.lane_count());
        }
        if let Some(bind) = own.bind {
            let visit = BoundVisit::new(config.options.skip_values_during_delay);
            let entry = bind.attach(&mut self.bound, seq, row, visit);
            self.table.meta[slot as usize].bound = Some(entry);
        }
        let handle = MotionHandle {
            world: self.id,
            slot,
            version,
        };
        if let Some(g) = config.group {
            self.join_group(g, handle);
        }
        handle
    }

    /// Grows the callback column to hold `slot` (a vacant slot's entry is `None`).
    #[inline]
    fn make_room_for_callbacks(&mut self, slot: u32) {
        if self.callbacks.len() <= slot as usize {
            self.callbacks.resize_with(slot as usize + 1, || None);
        }
    }

    /// Moves the motions `place` appended into their runs (a block of them at once), and
    /// re-points what names the rows that moved.
    fn place_appended(&mut self) {
        if !self.table.rows.has_pending() {
            return; // (every motion took a hole)
        }
        let moved = self.table.place_appended();
        self.relink(moved.iter().copied());
        self.table.recycle_moved(moved);
    }

    /// The immediate bind: calls a new motion's bind with its value at clock 0.
    fn bind_at_start(&mut self, slot: u32) {
        let rows = &self.table.rows;
        let index = self.table.slots[slot as usize].row;
        let row = rows.rows[index as usize];
        let p = crate::eval::clock::ease_at(&row, rows.params(index), rows.curves.keys(), 0.0);
        let value = row_value(
            &row,
            rows.pairs(index),
            p,
            self.clocks.now[row.clock_index()],
        );
        self.call_bind(slot, &value);
    }
}

/// What the motions of one configuration share when inserted (`MotionWorld::configure`):
/// worked out once per motion, or once per batch.
struct Config {
    /// The row on its clock, anchored at clock 0 now (its `params` word is each motion's).
    row: MotionRow,
    params: [f32; 4],
    group: Option<GroupId>,
    auto_seed: bool,
    options: MotionOptions,
    debug_name: &'static str,
    value_type: u16,
}

impl Config {
    /// The metadata of a motion of this configuration, number `seq`, made in update
    /// `update` (its bound entry and target linked later).
    #[inline]
    fn meta(
        &self,
        seq: u64,
        update: u64,
        has_bind: bool,
        callbacks: Option<&Callbacks>,
    ) -> SlotMeta {
        SlotMeta {
            seq,
            stamp: 0,
            options: self.options,
            debug_name: self.debug_name,
            has_bind,
            has_loop_callback: callbacks.is_some_and(|c| c.loop_complete.is_some()),
            awaits_start: callbacks.is_some_and(|c| c.start.is_some()),
            birth_update: update,
            touched: false,
            pending_removal: false,
            target: None,
            is_sequence: false,
            in_sequence: false,
            ended: false,
            bound: None,
            nudged: false,
        }
    }
}

/// The `params` word of a shake without an explicit seed: unique per motion for the world's
/// first 2^32 motions (pcg is a bijection).
#[inline]
pub(super) fn seed(seq: u64) -> u32 {
    crate::eval::adapters::pcg(seq as u32 ^ 0x5eed_5eed)
}

/// What a motion has of its own beside its configuration.
struct OwnPart<'a> {
    pairs: [[f32; 2]; 4],
    /// The row's `params` word.
    word: u32,
    curve: Option<&'a AnimationCurve>,
    bind: Option<BindFn>,
    callbacks: Option<Box<Callbacks>>,
    target: Option<Target>,
}

impl MotionWorld {
    /// `value_type`'s index in the world's list of types (added if new; the last type is
    /// checked first, as motions of one type come in runs). Past `u16::MAX` types (far more
    /// than a program has) the index names none, and `value` refuses every type.
    #[inline]
    fn value_type_index(&mut self, value_type: std::any::TypeId) -> u16 {
        if let Some(i) = self.value_types.iter().rposition(|&t| t == value_type) {
            return i as u16;
        }
        if self.value_types.len() >= usize::from(u16::MAX) {
            return u16::MAX;
        }
        self.value_types.push(value_type);
        (self.value_types.len() - 1) as u16
    }
}

impl MotionWorld {
    /// An empty vector for the handles of a batch that nobody keeps, with the capacity of
    /// the last one (give it back with [`restore_detached_handles`](Self::restore_detached_handles)).
    pub(crate) fn take_detached_handles(&mut self) -> Vec<MotionHandle> {
        std::mem::take(&mut self.staged.detached)
    }

    /// Keeps `handles`' memory for the next detached batch.
    pub(crate) fn restore_detached_handles(&mut self, mut handles: Vec<MotionHandle>) {
        handles.clear();
        self.staged.detached = handles;
    }

    /// Starts inserting a batch of about `count` motions made from `base` (checked by the
    /// caller, its group too), their handles appended to `handles`; the motions' own binds
    /// are of type `B`. With `shared`, motion `i` of the batch is bound to it as index `i`
    /// (the world holds fewer than 2³² motions).
    pub(crate) fn insert_batch<'a, T: Animatable, B: FnMut(T) + Send + 'static>(
        &'a mut self,
        base: &'a BuiltMotion,
        count: usize,
        shared: Option<IndexedBind>,
        handles: &'a mut Vec<MotionHandle>,
    ) -> BatchInsert<'a, T, B> {
        // A hint: a count beyond memory fails as the motions come, like a growing `Vec`.
        let hint = count.min(1 << 20);
        self.reserve(hint);
        handles.reserve(hint);
        let staged = std::mem::take(&mut self.staged);
        BatchInsert {
            config: self.configure(base),
            world: self,
            base,
            first: handles.len(),
            handles,
            staged,
            binds: Vec::new(),
            bound: shared.is_some(),
            shared,
            has_binds: false,
            hint,
            finished: false,
            _values: std::marker::PhantomData,
        }
    }
}

/// Motions a batch stages before it places them together, a column at a time: about as
/// many as fit in the first-level cache.
const BLOCK: usize = 256;

/// The columns of a batch's motions not yet placed (kept by the world between batches, so
/// that a batch allocates nothing once the world has made one).
#[derive(Default)]
pub(crate) struct Staged {
    /// The rows' `params` words.
    words: Vec<u32>,
    pairs: Vec<[[f32; 2]; 4]>,
    params: Vec<[f32; 4]>,
    /// `(index in the block, target)` of the motions that have one.
    targets: Vec<(u32, Target)>,
    /// The handles of a batch whose caller keeps none (`run_batch_detached`).
    detached: Vec<MotionHandle>,
}

impl Staged {
    fn len(&self) -> usize {
        self.words.len()
    }

    fn clear(&mut self) {
        self.words.clear();
        self.pairs.clear();
        self.params.clear();
        self.targets.clear();
    }
}

/// A batch being inserted. Its motions are staged as they are checked
/// ([`push`](Self::push)) and placed [`BLOCK`] at a time: a block's columns are appended
/// one after another and placed in their run (in a world of one shape, the run just grows
/// over them). A batch adds all of its motions or none: dropped before
/// [`finish`](Self::finish) (a later motion was invalid, or the caller panicked) it takes
/// out the ones it placed, before anything saw them (their immediate binds wait for
/// `finish`, and queued commands for the next `settle`).
pub(crate) struct BatchInsert<'a, T: Animatable, B: FnMut(T) + Send + 'static> {
    world: &'a mut MotionWorld,
    base: &'a BuiltMotion,
    config: Config,
    handles: &'a mut Vec<MotionHandle>,
    /// Where this batch's handles start in `handles`.
    first: usize,
    staged: Staged,
    /// The staged motions' own binds (all of them have one, or none does).
    binds: Vec<(B, RoundingMode)>,
    /// The batch's shared bind, until its first block puts it in the bound list.
    shared: Option<IndexedBind>,
    /// The batch has a shared bind (in `shared` or in the bound list).
    bound: bool,
    /// A motion of the batch has a bind (its own or the shared one).
    has_binds: bool,
    hint: usize,
    finished: bool,
    _values: std::marker::PhantomData<fn(T)>,
}

impl<T: Animatable, B: FnMut(T) + Send + 'static> BatchInsert<'_, T, B> {
    /// The world the batch goes into (to check a motion's target).
    pub(crate) fn world(&self) -> &MotionWorld {
        self.world
    }

    /// Adds the next motion: `base` with these lane pairs and `params` word, its own bind
    /// (its values rounded as `rounding` says) or the batch's shared one, and its target
    /// (checked by the caller).
    pub(crate) fn push(
        &mut self,
        pairs: [[f32; 2]; 4],
        word: u32,
        bind: Option<(B, RoundingMode)>,
        target: Option<Target>,
    ) {
        let staged = &mut self.staged;
        let index = staged.len();
        staged.words.push(word);
        staged.pairs.push(pairs);
        staged.params.push(self.config.params);
        if let Some(target) = target {
            staged.targets.push((index as u32, target));
        }
        // A batch's motions have their own binds or its shared one, never both.
        debug_assert!(!(self.bound && bind.is_some()));
        debug_assert_eq!(self.binds.len(), if bind.is_some() { index } else { 0 });
        self.binds.extend(bind);
        if staged.len() == BLOCK {
            self.place_staged();
        }
    }

    /// Places the staged motions in the table, column by column, and links each to what it
    /// names (bind, target, group, predicted event).
    fn place_staged(&mut self) {
        let n = self.staged.len();
        if n == 0 {
            return;
        }
        let world = &mut *self.world;
        let config = &self.config;
        if world.table.holes_in_the_way(&config.row) {
            world.compact_rows();
        }
        let first_seq = world.next_seq;
        world.next_seq += n as u64;
        let staged = &mut self.staged;
        if config.auto_seed {
            for (k, word) in staged.words.iter_mut().enumerate() {
                *word = seed(first_seq + k as u64);
            }
        }
        // An animation curve's keys: each motion's own copy (freed with its row).
        if let Some(curve) = &self.base.curve {
            for params in &mut staged.params {
                *params = world.table.rows.curves.insert(curve);
            }
        }
        if let Some(shared) = self.shared.take() {
            // One entry for the batch, its motions added as they are placed.
            let run = BoundRun::shared(shared, self.hint);
            world.bound.push(first_seq, BoundEntry::Run(Box::new(run)));
        }
        // The shared bind's entry: the bound list's last (it is made with the batch's
        // first block, and the batch adds no other).
        let entry = self.bound.then(|| world.bound.len() as u32 - 1);
        let mut shared_run = match world.bound.last_mut() {
            Some(BoundEntry::Run(run)) if self.bound => Some(run),
            _ => None,
        };
        let bound = self.bound || !self.binds.is_empty();
        let visit = BoundVisit::new(config.options.skip_values_during_delay);
        self.has_binds |= bound;
        let new = NewMotions {
            row: config.row,
            words: &staged.words,
            pairs: &staged.pairs,
            params: &staged.params,
            value_type: config.value_type,
            changed: world.updates as u32,
        };
        let (handles, id, update) = (&mut *self.handles, world.id, world.updates);
        world.table.append(new, None, |k, placed| {
            handles.push(MotionHandle {
                world: id,
                slot: placed.slot,
                version: placed.version,
            });
            if let Some(run) = &mut shared_run {
                run.push(placed.row, visit);
            }
            let mut meta = config.meta(first_seq + k as u64, update, bound, None);
            meta.bound = entry;
            meta
        });
        let placed = self.handles.len() - n..;
        if let Some(last) = self.handles[placed.clone()].iter().map(|h| h.slot).max() {
            world.make_room_for_callbacks(last);
        }
        for (k, target) in staged.targets.drain(..) {
            let slot = self.handles[placed.start + k as usize].slot;
            let row = world.table.slots[slot as usize].row;
            world.link_target(slot, row, &target, config.row.lane_count());
        }
        for (k, (bind, rounding)) in self.binds.drain(..).enumerate() {
            world.attach_bind(self.handles[placed.start + k].slot, bind, rounding);
        }
        let slots = self.handles[placed.clone()].iter().map(|h| h.slot);
        let bound_skipping = bound && config.options.skip_values_during_delay;
        world.schedule_alike(&config.row, first_seq, slots, bound_skipping);
        if let Some(g) = config.group {
            for &h in &self.handles[placed] {
                world.join_group(g, h);
            }
        }
        staged.clear();
        world.place_appended();
    }

    /// Ends the batch: runs the immediate binds in creation order, then applies the
    /// commands they (or anything else) queued.
    pub(crate) fn finish(mut self) {
        self.place_staged();
        self.finished = true;
        let world = &mut *self.world;
        if self.has_binds && self.config.options.immediate_bind {
            for h in &self.handles[self.first..] {
                if world.table.meta[h.slot as usize].has_bind {
                    world.bind_at_start(h.slot);
                }
            }
        }
        world.settle();
    }
}

impl<T: Animatable, B: FnMut(T) + Send + 'static> Drop for BatchInsert<'_, T, B> {
    fn drop(&mut self) {
        let world = &mut *self.world;
        if !self.finished {
            for h in self.handles.drain(self.first..) {
                world.mark_removal(h.slot);
            }
            world.apply_removals();
            // Binds staged but never placed, dropped as a removed motion's are (a panic in
            // their `Drop` has no motion to name).
            for bind in self.binds.drain(..) {
                let _ = guarded(move || drop(bind));
            }
        }
        // A shared bind with no motion to bind: dropped here.
        if let Some(shared) = self.shared.take() {
            let _ = guarded(move || drop(shared));
        }
        // The scratch goes back empty (a refused batch leaves motions staged).
        self.staged.clear();
        world.staged = std::mem::take(&mut self.staged);
    }
}
