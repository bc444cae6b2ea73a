//! The [`Tweens`] resource: the plugin's [`MotionWorld`], the host-target slots that carry
//! each lens's values, and the queue its motions' events arrive in.

use std::any::TypeId;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use bevy::ecs::component::{Component, Mutable, StorageType};
use bevy::ecs::lifecycle::{ComponentHook, HookContext};
use bevy::ecs::world::DeferredWorld;
use bevy::platform::cell::SyncCell;
use bevy::prelude::*;
use wgpu_tween::error::TargetError;
use wgpu_tween::{Animatable, Completion, Motion, MotionHandle, MotionWorld, Target, TargetId};

use crate::lens::Lens;

/// Slots per host target: a lens's slots grow by one target of this many values at a time,
/// so no motion is ever moved to another target.
const CHUNK_BITS: u32 = 16;
const CHUNK: u32 = 1 << CHUNK_BITS;

/// The slots of one lens: one per entity with a tween on it, each `lanes` f32s of a host
/// target that the tween's motion writes every update and the lens's copy system reads.
pub(crate) struct SlotTable {
    lanes: u32,
    chunks: Vec<TargetId>,
    free: Vec<u32>,
    next: u32,
}

impl SlotTable {
    fn new(lanes: usize) -> Self {
        Self {
            lanes: lanes as u32,
            chunks: Vec::new(),
            free: Vec::new(),
            next: 0,
        }
    }

    fn alloc(&mut self, world: &mut MotionWorld) -> Result<u32, TargetError> {
        if let Some(slot) = self.free.pop() {
            return Ok(slot);
        }
        if (self.next >> CHUNK_BITS) as usize == self.chunks.len() {
            let len = (CHUNK * self.lanes) as usize;
            self.chunks.push(world.add_host_target(len)?);
        }
        self.next += 1;
        Ok(self.next - 1)
    }

    fn target(&self, slot: u32) -> Target {
        self.chunks[(slot >> CHUNK_BITS) as usize].at(slot & (CHUNK - 1), self.lanes, 0)
    }

    /// Seeds a slot with a value, so that `Motion::to` and `Motion::by` start from it.
    fn seed(&self, world: &mut MotionWorld, slot: u32, lanes: [f32; 4]) {
        let first = ((slot & (CHUNK - 1)) * self.lanes) as usize;
        let n = self.lanes as usize;
        if let Some(values) = world.host_target_mut(self.chunks[(slot >> CHUNK_BITS) as usize]) {
            values[first..first + n].copy_from_slice(&lanes[..n]);
        }
    }

    /// The host arrays, in chunk order, for a copy system.
    pub(crate) fn arrays<'a>(&self, world: &'a MotionWorld) -> Vec<&'a [f32]> {
        let arrays = self.chunks.iter();
        arrays
            .map(|&id| world.host_target(id).unwrap_or(&[]))
            .collect()
    }

    /// The lanes of `slot` in `arrays` (zeros for a slot past them, which no live tween has).
    #[inline]
    pub(crate) fn read(arrays: &[&[f32]], lanes: usize, slot: u32) -> [f32; 4] {
        let first = (slot & (CHUNK - 1)) as usize * lanes;
        let values = arrays.get((slot >> CHUNK_BITS) as usize).copied();
        let values = values.unwrap_or_default().get(first..).unwrap_or_default();
        // A loop, not `copy_from_slice`: `lanes` is a lens's constant, so this unrolls
        // instead of calling `memcpy` for each entity.
        let mut out = [0.0; 4];
        for (lane, value) in out.iter_mut().zip(values).take(lanes) {
            *lane = *value;
        }
        out
    }
}

/// What happened to a tween's motion, as its callbacks report it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventKind {
    Started,
    Looped(u32),
    Completed,
    Canceled,
}

/// Removes an entity's `Tweened<L>` if it still belongs to the motion (a newer tween may
/// have taken the slot): one function per lens, so no closure per entity.
pub(crate) type FinishFn = fn(&mut World, Entity, MotionHandle);

/// The lenses a motion animates: one for a tween, any number for a sequence.
#[derive(Clone)]
pub(crate) enum Finish {
    One(FinishFn),
    Many(Arc<[FinishFn]>),
}

impl Finish {
    pub(crate) fn run(&self, world: &mut World, entity: Entity, motion: MotionHandle) {
        match self {
            Finish::One(f) => f(world, entity, motion),
            Finish::Many(fs) => fs.iter().for_each(|f| f(world, entity, motion)),
        }
    }
}

/// An event of a motion, queued by its callback during the world's update (or a cancel) and
/// delivered by [`crate::events::deliver`].
#[derive(Clone)]
pub(crate) struct RawEvent {
    pub entity: Entity,
    pub motion: MotionHandle,
    pub kind: EventKind,
    pub finish: Finish,
}

pub(crate) type EventQueue = Arc<Mutex<Vec<RawEvent>>>;

/// The plugin's motion world: every tween started through
/// [`TweenCommandsExt`](crate::TweenCommandsExt) is a motion here, and the plugin updates
/// it once per frame ([`TweenSystems`](crate::TweenSystems)).
///
/// Use [`world_mut`](Self::world_mut) for what the commands do not cover (groups, playback
/// speed, `set_time`, plain motions with binds) and [`completion`](Self::completion) to
/// await a tween.
#[derive(Resource)]
pub struct Tweens {
    // A motion world is `Send`, not `Sync` (its callbacks are `FnMut`): it is reached only
    // through `&mut Tweens`, as `SyncCell` requires.
    world: SyncCell<MotionWorld>,
    tables: HashMap<TypeId, SlotTable>,
    pub(crate) events: EventQueue,
}

impl Default for Tweens {
    fn default() -> Self {
        Self::new(MotionWorld::new())
    }
}

impl Tweens {
    /// The resource around a world made by the caller (a GPU executor attached, say).
    #[must_use]
    pub fn new(world: MotionWorld) -> Self {
        Self {
            world: SyncCell::new(world),
            tables: HashMap::new(),
            events: Arc::default(),
        }
    }

    /// The motion world, to read or change motions (`set_playback_speed`, groups, ...).
    /// Cancelling or completing a tween's motion here sends its events as the commands
    /// would. (A `MotionWorld` is not `Sync`, so even reading it takes `ResMut<Tweens>`.)
    pub fn world_mut(&mut self) -> &mut MotionWorld {
        self.world.get()
    }

    /// A future that resolves when the motion completes (`Ok`) or is cancelled, which
    /// includes its entity being despawned (`Err`). A tween's handle is
    /// [`Tweened::motion`].
    pub fn completion(&mut self, motion: MotionHandle) -> Completion {
        self.world.get().completion(motion)
    }

    pub(crate) fn table<L: Lens>(&self) -> Option<&SlotTable> {
        self.tables.get(&TypeId::of::<L>())
    }

    /// Lens `L`'s slot table and the world, for a copy system.
    pub(crate) fn table_and_world<L: Lens>(&mut self) -> Option<(&SlotTable, &MotionWorld)> {
        let table = self.tables.get(&TypeId::of::<L>())?;
        Some((table, self.world.get()))
    }

    pub(crate) fn register<L: Lens>(&mut self) {
        let lanes = <L::Value as Animatable>::LANES;
        self.tables
            .entry(TypeId::of::<L>())
            .or_insert_with(|| SlotTable::new(lanes));
    }

    /// A slot of lens `L` seeded with `value`, and the place its motion writes to. `None`
    /// when the lens is not registered.
    pub(crate) fn alloc_slot<L: Lens>(
        &mut self,
        value: L::Value,
    ) -> Option<Result<(u32, Target), TargetError>> {
        let table = self.tables.get_mut(&TypeId::of::<L>())?;
        let world = self.world.get();
        Some(table.alloc(world).map(|slot| {
            table.seed(world, slot, value.to_lanes());
            (slot, table.target(slot))
        }))
    }

    /// The place of a slot already held, seeded again with `value`.
    pub(crate) fn reuse_slot<L: Lens>(&mut self, slot: u32, value: L::Value) -> Option<Target> {
        let table = self.tables.get(&TypeId::of::<L>())?;
        table.seed(self.world.get(), slot, value.to_lanes());
        Some(table.target(slot))
    }

    pub(crate) fn free_slot<L: Lens>(&mut self, slot: u32) {
        if let Some(table) = self.tables.get_mut(&TypeId::of::<L>()) {
            table.free.push(slot);
        }
    }

    /// `motion` with the callbacks that queue its events for `entity`.
    pub(crate) fn with_events<T: Animatable>(
        &self,
        motion: Motion<T>,
        entity: Entity,
        finish: Finish,
        loops: bool,
    ) -> (Motion<T>, HandleCell) {
        with_events(&self.events, motion, entity, finish, loops)
    }
}

/// `motion` with the callbacks that queue its events for `entity` in `queue` (its loops'
/// only when `loops`), and the cell to give them its handle once it runs.
pub(crate) fn with_events<T: Animatable>(
    queue: &EventQueue,
    motion: Motion<T>,
    entity: Entity,
    finish: Finish,
    loops: bool,
) -> (Motion<T>, HandleCell) {
    // The handle is not known until the motion runs: the callbacks read it from a cell the
    // caller fills right after (no update runs in between).
    let cell = HandleCell(Arc::new(OnceLock::new()));
    let (c, q) = (cell.clone(), queue.clone());
    let push = move |kind| c.push(&q, entity, kind, &finish);
    let (start, looped, complete, cancel) = (push.clone(), push.clone(), push.clone(), push);
    let mut motion = motion
        .on_start(move || start(EventKind::Started))
        .on_complete(move || complete(EventKind::Completed))
        .on_cancel(move || cancel(EventKind::Canceled));
    if loops {
        motion = motion.on_loop_complete(move |n| looped(EventKind::Looped(n)));
    }
    (motion, cell)
}

/// The handle of a motion whose callbacks were made before it ran.
#[derive(Clone)]
pub(crate) struct HandleCell(Arc<OnceLock<MotionHandle>>);

impl HandleCell {
    pub(crate) fn set(&self, motion: MotionHandle) {
        let _ = self.0.set(motion);
    }

    fn push(&self, queue: &EventQueue, entity: Entity, kind: EventKind, finish: &Finish) {
        if let Some(&motion) = self.0.get() {
            let event = RawEvent {
                entity,
                motion,
                kind,
                finish: finish.clone(),
            };
            queue
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(event);
        }
    }
}

/// Where an entity's animated value arrives.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    /// A slot of the lens's host targets, written by the tween's motion in each update.
    Slot(u32),
    /// A cell the binds of a sequence's steps write (several steps of one lens take turns).
    Cell(Arc<LaneCell>),
}

/// Four lanes that binds store and a copy system loads, without a lock.
#[derive(Debug, Default)]
pub(crate) struct LaneCell([AtomicU32; 4]);

impl LaneCell {
    pub(crate) fn store(&self, lanes: [f32; 4]) {
        for (cell, lane) in self.0.iter().zip(lanes) {
            cell.store(lane.to_bits(), Ordering::Relaxed);
        }
    }

    pub(crate) fn load(&self) -> [f32; 4] {
        self.0
            .each_ref()
            .map(|c| f32::from_bits(c.load(Ordering::Relaxed)))
    }
}

/// Marks an entity whose lens `L` is animated, and holds where its values arrive and the
/// motion that writes them. Added by the tween commands; removed when the motion completes
/// or is cancelled. Removing it (or despawning the entity) cancels the motion.
pub struct Tweened<L: Lens> {
    pub(crate) source: Source,
    pub(crate) motion: MotionHandle,
    _lens: PhantomData<fn() -> L>,
}

impl<L: Lens> Tweened<L> {
    pub(crate) fn new(source: Source, motion: MotionHandle) -> Self {
        Self {
            source,
            motion,
            _lens: PhantomData,
        }
    }

    /// The motion animating this lens (for [`Tweens::completion`] and
    /// [`Tweens::world_mut`]); a sequence's motion for a lens a sequence animates.
    #[must_use]
    pub fn motion(&self) -> MotionHandle {
        self.motion
    }

    /// The lanes of this frame's value.
    #[inline]
    pub(crate) fn lanes(&self, arrays: &[&[f32]], lanes: usize) -> [f32; 4] {
        match &self.source {
            Source::Slot(slot) => SlotTable::read(arrays, lanes, *slot),
            Source::Cell(cell) => cell.load(),
        }
    }

    /// Removes the component if `motion` still owns it (a newer tween may have taken it).
    pub(crate) fn finish(world: &mut World, entity: Entity, motion: MotionHandle) {
        let Ok(mut e) = world.get_entity_mut(entity) else {
            return;
        };
        if e.get::<Self>().is_some_and(|t| t.motion == motion) {
            e.remove::<Self>();
        }
    }

    /// Cancels the motion (if it still runs) and frees the slot.
    fn on_remove(mut world: DeferredWorld, ctx: HookContext) {
        let Some((source, motion)) = world
            .get::<Self>(ctx.entity)
            .map(|t| (t.source.clone(), t.motion))
        else {
            return;
        };
        if let Some(mut tweens) = world.get_resource_mut::<Tweens>() {
            tweens.world_mut().try_cancel(motion);
            if let Source::Slot(slot) = source {
                tweens.free_slot::<L>(slot);
            }
        }
    }
}

impl<L: Lens> Component for Tweened<L> {
    const STORAGE_TYPE: StorageType = StorageType::Table;
    type Mutability = Mutable;

    fn on_remove() -> Option<ComponentHook> {
        Some(Self::on_remove)
    }
}

impl<L: Lens> std::fmt::Debug for Tweened<L> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tweened")
            .field("lens", &std::any::type_name::<L>())
            .field("source", &self.source)
            .field("motion", &self.motion)
            .finish()
    }
}
