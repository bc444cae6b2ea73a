//! Inserting motions: one at a time (the builder's terminals, deferred spawns) or a batch.

use super::batch_bind::{BoundBatch, IndexedBind};
use super::built::BuiltMotion;
use super::callbacks::{guarded, Bind, BindFn};
use super::meta::{BoundEntry, BoundMotion, SlotMeta};
use super::MotionWorld;
use crate::core::handle::MotionHandle;
use crate::eval::adapters::row_value;
use crate::table::motions::NewMotion;

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
        // An insert only adds, so `maintain` (which shrinks) has nothing to do after it:
        // settle only where the immediate bind queued a command or cancelled its motion.
        if !self.removals.is_empty() || self.commands_queued() {
            self.settle();
        }
        handle
    }

    /// Checks what a built motion names in the world (its target, its group) before it is
    /// inserted.
    pub(crate) fn check_built(
        &self,
        built: &BuiltMotion,
        lanes: usize,
    ) -> Result<(), crate::error::BuildError> {
        if let Some(target) = &built.target {
            self.check_target(target, lanes)?;
        }
        if let Some(g) = built.group {
            self.group_clock(g)?;
        }
        Ok(())
    }

    /// Whether commands may be waiting in the queue (no lock: an insert asks every time).
    #[inline]
    fn commands_queued(&self) -> bool {
        self.shared.maybe_queued()
    }

    /// [`insert`](Self::insert) without applying queued commands afterwards (which could
    /// remove what was just made before the caller is done with it).
    #[inline]
    pub(crate) fn insert_unsettled(
        &mut self,
        built: BuiltMotion,
        reserved: Option<MotionHandle>,
    ) -> MotionHandle {
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
        if built.auto_seed {
            // Unique per motion for the world's first 2^32 motions (pcg is a bijection).
            row.params = crate::eval::adapters::pcg(self.next_seq as u32 ^ 0x5eed_5eed);
        }
        // An animation curve's keys go into the world's key table (freed with the row).
        let params = match &built.curve {
            Some(curve) => self.table.rows.curves.insert(curve),
            None => built.params,
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        let has_bind = built.bind.is_some();
        let has_loop_callback = built
            .callbacks
            .as_ref()
            .is_some_and(|c| c.loop_complete.is_some());
        let awaits_start = built.callbacks.as_ref().is_some_and(|c| c.start.is_some());
        let meta = SlotMeta {
            seq,
            stamp: 0,
            options: built.options,
            debug_name: built.debug_name,
            has_bind,
            has_loop_callback,
            awaits_start,
            birth_update: self.updates,
            touched: false,
            pending_removal: false,
            target: None,
            is_sequence: false,
            in_sequence: false,
            ended: false,
            bound: match built.bind {
                Some(Bind::Own(_)) => Some(self.bound.len() as u32),
                // Its batch is the last entry.
                Some(Bind::Batch) => Some(self.bound.len() as u32 - 1),
                None => None,
            },
            nudged: false,
        };
        let value_type = self.value_type_index(built.value_type);
        let new = NewMotion {
            row,
            pairs: built.pairs,
            params,
            meta,
            value_type,
            changed: self.updates as u32,
        };
        let inserted = self
            .table
            .insert(new, reserved.map(|h| (h.slot, h.version)));
        let (slot, version, row_index) = (inserted.slot, inserted.version, inserted.row);
        self.relink(inserted.swaps.rows());
        if self.callbacks.len() <= slot as usize {
            self.callbacks.resize_with(slot as usize + 1, || None);
        }
        if let Some(target) = &built.target {
            // Checked by the builder's terminal; a deferred spawn's is checked here.
            self.link_target(slot, row_index, target, row.lane_count());
        }
        self.callbacks[slot as usize] = built.callbacks;
        match built.bind {
            Some(Bind::Own(bind)) => self.bound.push(BoundEntry::One(BoundMotion {
                seq,
                slot,
                version,
                lanes: row.lane_count() as u8,
                exact: built.options.skip_values_during_delay,
                bind: Some(bind),
            })),
            Some(Bind::Batch) => {
                if let Some(BoundEntry::Batch(batch)) = self.bound.last_mut() {
                    batch.push(slot, version, row_index);
                }
            }
            None => {}
        }
        self.schedule(slot, row_index, 0.0);
        let handle = MotionHandle {
            world: self.id,
            slot,
            version,
        };
        if let Some(g) = group {
            self.join_group(g, handle);
        }
        if has_bind && built.options.immediate_bind {
            let p = crate::eval::clock::ease_at(&row, params, self.table.rows.curves.keys(), 0.0);
            let value = row_value(&row, built.pairs, p, self.clocks.now[row.clock_index()]);
            self.call_bind(slot, &value);
        }
        handle
    }
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

/// One motion of a batch: its lane pairs, the row's `params` word, its bind and its target.
pub(crate) type BatchMotion = (
    [[f32; 2]; 4],
    u32,
    Option<BindFn>,
    Option<crate::table::targets::Target>,
);

impl MotionWorld {
    /// Inserts a batch in order: motions made from `base` with each `(pairs, params word,
    /// bind, target)` (targets checked by the caller), their handles appended to `handles`;
    /// queued commands are applied once, after the last. With `shared`, motion `i` of the
    /// batch is bound to it as index `i` (the world holds fewer than 2³² motions).
    pub(crate) fn insert_batch(
        &mut self,
        base: &BuiltMotion,
        mut motions: Vec<BatchMotion>,
        shared: Option<IndexedBind>,
        handles: &mut Vec<MotionHandle>,
    ) {
        self.reserve(motions.len());
        handles.reserve(motions.len());
        let shared = match shared {
            Some(bind) if !motions.is_empty() => {
                // One entry for the batch, its motions added as they are inserted.
                let batch = BoundBatch::new(
                    bind,
                    self.next_seq,
                    motions.len() as u32,
                    base.row.lane_count() as u8,
                    base.options.skip_values_during_delay,
                );
                self.bound.push(BoundEntry::Batch(Box::new(batch)));
                true
            }
            // No motion to bind: dropped here (a panic in its `Drop` has no motion to name).
            other => {
                let _ = guarded(move || drop(other));
                false
            }
        };
        for (pairs, word, bind, target) in motions.drain(..) {
            let bind = match bind {
                Some(bind) => Some(Bind::Own(bind)),
                None => shared.then_some(Bind::Batch),
            };
            let built = BuiltMotion {
                row: crate::core::row::MotionRow {
                    params: word,
                    ..base.row
                },
                pairs,
                params: base.params,
                curve: base.curve.clone(),
                group: base.group,
                auto_seed: base.auto_seed,
                options: base.options,
                debug_name: base.debug_name,
                value_type: base.value_type,
                bind,
                callbacks: None,
                target,
            };
            handles.push(self.insert_unsettled(built, None));
        }
        // Kept for the next batch (an emitter's every frame): a fresh list of this size
        // would be fresh pages, faulted in per batch. Sized by the world, like the lists
        // `maintain` shrinks.
        if motions.capacity() > 1024 && motions.capacity() > 4 * self.table.len() {
            motions.shrink_to(2 * self.table.len());
        }
        self.batch_scratch = motions;
        self.settle();
    }

    /// An empty list for a batch's motions, with the room the last batch left.
    pub(crate) fn batch_list(&mut self) -> Vec<BatchMotion> {
        std::mem::take(&mut self.batch_scratch)
    }
}
