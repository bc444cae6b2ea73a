//! Groups: sets of motions driven by a clock of their own (docs/semantics.md §9).
//!
//! A group's clock follows its time kind's world time through an anchor,
//! `W_group = anchor + (W_kind − anchor_world) · rate` (rate: its speed, or 0 while paused),
//! computed once per update into the clock table that the executors read by each row's
//! clock index. Pausing or re-timing a group re-anchors that one clock, so it costs O(1)
//! whatever its size, on either executor; its motions' predicted events are keyed in the
//! group's clock and stay valid. Cancel and complete are per-motion events: O(members).

use super::clock::{on_anchor_grid, TimeDeltas, WorldClocks, MAX_TIME};
use super::MotionWorld;
use crate::core::handle::{GroupId, MotionHandle};
use crate::core::row::CLOCKS;
use crate::core::settings::TimeKind;
use crate::error::{GroupError, UpdateError};

/// Groups a world holds at most at once: the clock table's entries after the three kinds.
pub const MAX_GROUPS: usize = CLOCKS - 3;

/// One group slot. Live when `version` is odd.
#[derive(Default)]
struct Group {
    version: u32,
    kind: usize,
    speed: f64,
    paused: bool,
    /// The group clock at world time `anchor_world` (of its kind).
    anchor: f64,
    anchor_world: f64,
    /// Its motions in creation order; handles of ended ones are dropped when the list
    /// would grow.
    members: Vec<MotionHandle>,
}

impl Group {
    fn rate(&self) -> f64 {
        if self.paused {
            0.0
        } else {
            self.speed
        }
    }
}

/// The world's group slots.
#[derive(Default)]
pub(crate) struct Groups {
    slots: Vec<Group>,
    free: Vec<u8>,
}

/// The clock table entry of group slot `index`.
fn clock_of(index: u8) -> usize {
    3 + usize::from(index)
}

impl Groups {
    /// Refuses deltas that would take a group's clock past [`MAX_TIME`].
    pub fn check(&self, clocks: &WorldClocks, deltas: TimeDeltas) -> Result<(), UpdateError> {
        for g in self.slots.iter().filter(|g| g.version & 1 == 1) {
            let next = g.anchor + (clocks.next_sum(g.kind, deltas) - g.anchor_world) * g.rate();
            if next > MAX_TIME {
                return Err(UpdateError::WorldTimeOverflow {
                    kind: "group",
                    delta: deltas.as_array()[g.kind],
                });
            }
        }
        Ok(())
    }

    /// Sets every live group's clock from its kind's world time (after `clocks.advance`).
    pub fn advance(&self, clocks: &mut WorldClocks) {
        for (i, g) in self.slots.iter().enumerate() {
            if g.version & 1 == 1 {
                let w = clocks.now[g.kind];
                clocks.now[3 + i] = on_anchor_grid(g.anchor + (w - g.anchor_world) * g.rate());
            }
        }
    }

    fn get(&self, world: u32, g: GroupId) -> Result<&Group, GroupError> {
        self.slots
            .get(usize::from(g.index))
            .filter(|s| g.world == world && s.version == g.version && g.version & 1 == 1)
            .ok_or(GroupError::Unknown(g))
    }

    fn get_mut(&mut self, world: u32, g: GroupId) -> Result<&mut Group, GroupError> {
        self.get(world, g)?;
        Ok(&mut self.slots[usize::from(g.index)])
    }

    /// Forgets every group's members (the world was cleared); the groups stay.
    pub fn clear_members(&mut self) {
        for g in &mut self.slots {
            g.members = Vec::new();
        }
    }
}

impl MotionWorld {
    /// The slot of a live group of this world.
    fn group(&self, g: GroupId) -> Result<&Group, GroupError> {
        self.groups.get(self.id, g)
    }

    fn group_mut(&mut self, g: GroupId) -> Result<&mut Group, GroupError> {
        self.groups.get_mut(self.id, g)
    }

    /// The clock table entry of a live group, for a motion joining it.
    pub(crate) fn group_clock(&self, g: GroupId) -> Result<(u8, TimeKind), GroupError> {
        let group = self.group(g)?;
        let kind = [TimeKind::Scaled, TimeKind::Unscaled, TimeKind::Realtime][group.kind];
        Ok((clock_of(g.index) as u8, kind))
    }

    /// Adds a motion to its group's member list. When the list is full, ended members are
    /// dropped and it keeps room for as many again, so it follows the group's live motions
    /// at amortised O(1) per motion.
    pub(crate) fn join_group(&mut self, g: GroupId, h: MotionHandle) {
        let slots = &self.table.slots;
        if let Ok(group) = self.groups.get_mut(self.id, g) {
            let members = &mut group.members;
            if members.len() == members.capacity() {
                members.retain(|m| slots.get(m.slot, m.version).is_some());
                members.reserve(members.len().max(4));
            }
            members.push(h);
        }
    }

    /// A new group whose clock runs with the world time of `kind`, at speed 1, from the
    /// world time of `kind` now. Motions join it when built
    /// ([`Motion::group`](crate::Motion::group)); [`GroupError::TooMany`] past
    /// [`MAX_GROUPS`] live groups ([`remove_group`](Self::remove_group) frees one).
    ///
    /// ```
    /// use wgpu_tween::{Motion, MotionWorld, TimeKind};
    ///
    /// let mut world = MotionWorld::new();
    /// let ui = world.add_group(TimeKind::Unscaled)?;
    /// let h = Motion::new(0.0f32, 10.0, 1.0).group(ui).run(&mut world)?;
    /// world.set_group_speed(ui, 2.0)?;
    /// world.update(0.25)?;
    /// assert_eq!(world.value::<f32>(h)?, 5.0);
    /// world.pause_group(ui)?;
    /// world.update(0.25)?;
    /// assert_eq!(world.value::<f32>(h)?, 5.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn add_group(&mut self, kind: TimeKind) -> Result<GroupId, GroupError> {
        let index = match self.groups.free.pop() {
            Some(i) => i,
            None if self.groups.slots.len() < MAX_GROUPS => {
                self.groups.slots.push(Group::default());
                (self.groups.slots.len() - 1) as u8
            }
            None => return Err(GroupError::TooMany),
        };
        let w = self.clocks.now[kind as usize];
        let clock = clock_of(index);
        self.clocks.used = self.clocks.used.max(clock + 1);
        // A new group's clock reads its kind's world time: exact, like a new motion's.
        (self.clocks.now[clock], self.clocks.prev[clock]) = (w, w);
        let group = &mut self.groups.slots[usize::from(index)];
        *group = Group {
            version: group.version + 1,
            kind: kind as usize,
            speed: 1.0,
            paused: false,
            anchor: w,
            anchor_world: w,
            members: Vec::new(),
        };
        Ok(GroupId {
            world: self.id,
            index,
            version: group.version,
        })
    }

    /// Cancels the group's motions (their cancel callbacks fire, in creation order) and
    /// removes the group: its id names nothing from then on.
    pub fn remove_group(&mut self, g: GroupId) -> Result<(), GroupError> {
        self.cancel_group(g)?;
        let group = self.group_mut(g)?;
        group.version += 1;
        group.members = Vec::new();
        self.groups.free.push(g.index);
        Ok(())
    }

    /// Re-anchors a group's clock at its value now, then applies `change`: the clock is
    /// continuous, and no motion of the group is touched.
    fn retime_group(
        &mut self,
        g: GroupId,
        change: impl FnOnce(&mut Group),
    ) -> Result<(), GroupError> {
        let clock = clock_of(g.index);
        let (now, kinds) = (self.clocks.now[clock], self.clocks.now);
        let group = self.group_mut(g)?;
        group.anchor = now;
        group.anchor_world = kinds[group.kind];
        change(group);
        Ok(())
    }

    /// Pauses the group's clock from the next update on: its motions hold their clocks
    /// (and values), their callbacks wait. O(1) whatever the group's size.
    pub fn pause_group(&mut self, g: GroupId) -> Result<(), GroupError> {
        self.retime_group(g, |group| group.paused = true)
    }

    /// Resumes a paused group's clock where it stopped. O(1).
    pub fn resume_group(&mut self, g: GroupId) -> Result<(), GroupError> {
        self.retime_group(g, |group| group.paused = false)
    }

    /// Whether the group is paused.
    pub fn is_group_paused(&self, g: GroupId) -> Result<bool, GroupError> {
        Ok(self.group(g)?.paused)
    }

    /// The group's speed (its time scale): its clock advances `speed` seconds per second of
    /// its kind's world time, from the next update on, on top of each motion's own playback
    /// speed. Finite and ≥ 0, else [`GroupError::InvalidSpeed`]; 0 stops the clock like
    /// a pause. O(1) whatever the group's size.
    pub fn set_group_speed(&mut self, g: GroupId, speed: impl Into<f64>) -> Result<(), GroupError> {
        let speed = speed.into();
        if !(speed.is_finite() && speed >= 0.0) {
            self.group(g)?;
            return Err(GroupError::InvalidSpeed(speed));
        }
        self.retime_group(g, |group| group.speed = speed)
    }

    /// The group's speed (1 for a new group; a pause leaves it as it was).
    pub fn group_speed(&self, g: GroupId) -> Result<f64, GroupError> {
        Ok(self.group(g)?.speed)
    }

    /// The group's clock now, seconds: the time its motions' clocks are anchored in (its
    /// kind's world time when the group was made).
    pub fn group_time(&self, g: GroupId) -> Result<f64, GroupError> {
        self.group(g)?;
        Ok(self.clocks.now[clock_of(g.index)])
    }

    /// The group's live motions, in creation order.
    pub fn group_motions(
        &self,
        g: GroupId,
    ) -> Result<impl Iterator<Item = MotionHandle> + '_, GroupError> {
        Ok(self
            .group(g)?
            .members
            .iter()
            .copied()
            .filter(|&h| self.live(h).is_ok()))
    }

    /// Applies `op` to each member in creation order, then applies the commands its
    /// callbacks queued; returns on how many it succeeded.
    fn for_each_member(
        &mut self,
        g: GroupId,
        op: impl Fn(&mut Self, MotionHandle) -> bool,
    ) -> Result<usize, GroupError> {
        let mut members = std::mem::take(&mut self.group_mut(g)?.members);
        let done = members.iter().filter(|&&h| op(self, h)).count();
        members.retain(|&h| self.live(h).is_ok());
        // (Callbacks cannot reach the world but through commands: the group is still there.)
        self.groups.slots[usize::from(g.index)].members = members;
        self.settle();
        Ok(done)
    }

    /// Cancels every motion of the group, in creation order (each as
    /// [`cancel`](Self::cancel): no bind, its cancel callback). Returns how many were
    /// cancelled. The group stays, empty. O(members).
    pub fn cancel_group(&mut self, g: GroupId) -> Result<usize, GroupError> {
        self.for_each_member(g, |world, h| world.cancel_inner(h).is_ok())
    }

    /// Completes every motion of the group that can be, in creation order (each as
    /// [`complete`](Self::complete): its end value, loop-complete, complete); infinitely
    /// looping and already completed (preserved) motions are left as they are. Returns how
    /// many completed. O(members).
    pub fn complete_group(&mut self, g: GroupId) -> Result<usize, GroupError> {
        self.for_each_member(g, |world, h| world.complete_inner(h).is_ok())
    }
}
