//! Predicted events: a queue per clock (each time kind's, each group's) of the time on that
//! clock at which a motion's next start, completion or loop boundary falls. Per update
//! only due entries are touched, so the bookkeeping is O(events), not O(motions); a group's
//! pause or speed change moves its clock, not its keys.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, VecDeque};

/// A queue entry. `seq` and `stamp` must match the slot's current motion (sequence numbers
/// are never reused) and its event stamp, which rises on every re-anchor and on removal;
/// other entries are stale and dropped when popped.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    /// Time on the motion's clock at or after which to look at the motion.
    pub key: f64,
    pub seq: u64,
    pub slot: u32,
    pub stamp: u32,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .total_cmp(&other.key)
            .then((self.seq & !BLOCK).cmp(&(other.seq & !BLOCK)))
    }
}

/// The bit of `Event::seq` that makes an entry a block's: the events of motions made
/// together, alike (a batch's), at one key, in one entry. Its `slot` is then the block's
/// index in `EventQueue::blocks`, which lists their slots (the `k`-th has sequence number
/// `seq & !BLOCK` + `k` and stamp 0, as made), and its `stamp` is 0. Sequence numbers never
/// reach 2^63.
const BLOCK: u64 = 1 << 63;

/// Free blocks that keep their lists' room however few blocks are in use.
const KEPT_BLOCKS: usize = 64;

/// A motion due for a visit this update.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Due {
    pub seq: u64,
    pub slot: u32,
}

/// What an update does with a due event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pop {
    /// Its motion is gone or re-anchored since: dropped.
    Stale,
    /// Its motion is visited, in creation order with the bound ones.
    Visit,
    /// Its motion is watched by nothing (no callback, future, bind or sequence): it
    /// finishes in the batch of quiet completions (`world/quiet.rs`), in any order.
    Quiet,
}

/// Entries a clock's queue keeps room for however sparse it is.
const MIN_KEPT: usize = 1024;

/// One queue per clock in use (indexed like the clock table).
#[derive(Default)]
pub(crate) struct EventQueue {
    clocks: Vec<ClockEvents>,
    /// The slots of each block entry (see [`BLOCK`]); empty for a free one.
    blocks: Vec<Vec<u32>>,
    /// Free entries of `blocks`.
    free_blocks: Vec<u32>,
    /// Free entries of `blocks` whose list keeps its room (for the next block, so a
    /// steady emitter allocates nothing).
    free_with_room: usize,
}

/// A clock's events: those pushed in order (each at or after the one before, the common
/// case: motions made alike finish in the order they were made) wait in a FIFO, O(1) both
/// ways; the rest in a min-heap, whose pop costs a cache miss per level once it outgrows
/// the cache (about 100 ns at 100k entries). Due events leave whichever holds the earlier.
#[derive(Default)]
struct ClockEvents {
    sorted: VecDeque<Event>,
    heap: BinaryHeap<Reverse<Event>>,
}

impl ClockEvents {
    fn push(&mut self, event: Event) {
        match self.sorted.back() {
            Some(last) if event < *last => self.heap.push(Reverse(event)),
            _ => self.sorted.push_back(event),
        }
    }

    /// Removes and returns the earliest event if it is due at `w`.
    fn pop_due(&mut self, w: f64) -> Option<Event> {
        let in_order = self.sorted.front().filter(|e| e.key <= w);
        let in_heap = self.heap.peek().map(|r| r.0).filter(|e| e.key <= w);
        match (in_order, in_heap) {
            (Some(a), Some(b)) if b < *a => self.heap.pop().map(|r| r.0),
            (Some(_), _) => self.sorted.pop_front(),
            (None, Some(_)) => self.heap.pop().map(|r| r.0),
            (None, None) => None,
        }
    }

    fn len(&self) -> usize {
        self.sorted.len() + self.heap.len()
    }

    /// The entries, in no order.
    fn iter(&self) -> impl Iterator<Item = &Event> {
        self.sorted.iter().chain(self.heap.iter().map(|r| &r.0))
    }

    fn retain(&mut self, keep: impl Fn(&Event) -> bool) {
        self.sorted.retain(&keep);
        self.heap.retain(|Reverse(e)| keep(e));
    }

    /// Shrinks each part to twice `need` (at least [`MIN_KEPT`]) when its capacity is over
    /// four times that.
    fn shrink_if_sparse(&mut self, need: usize) {
        let sparse = |capacity: usize| capacity > MIN_KEPT && capacity > 4 * need;
        let kept = (2 * need).max(MIN_KEPT);
        if sparse(self.sorted.capacity()) {
            self.sorted.shrink_to(kept);
        }
        if sparse(self.heap.capacity()) {
            self.heap.shrink_to(kept);
        }
    }
}

impl EventQueue {
    pub fn push(&mut self, clock: usize, event: Event) {
        debug_assert!(event.seq & BLOCK == 0);
        self.push_entry(clock, event);
    }

    fn push_entry(&mut self, clock: usize, event: Event) {
        if self.clocks.len() <= clock {
            self.clocks.resize_with(clock + 1, ClockEvents::default);
        }
        self.clocks[clock].push(event);
    }

    /// Pushes one entry for the events at `key` on clock `clock` of the motions in
    /// `slots`, made together as they are now (stamp 0): the `k`-th has sequence number
    /// `first_seq + k`. Popped, it is the events of those of them that are still current.
    pub fn push_block(
        &mut self,
        clock: usize,
        key: f64,
        first_seq: u64,
        slots: impl Iterator<Item = u32>,
    ) {
        let index = match self.free_blocks.pop() {
            Some(index) => {
                let has_room = self.blocks[index as usize].capacity() > 0;
                self.free_with_room -= usize::from(has_room);
                index
            }
            None => {
                self.blocks.push(Vec::new());
                (self.blocks.len() - 1) as u32
            }
        };
        let list = &mut self.blocks[index as usize];
        list.extend(slots);
        if list.is_empty() {
            self.free_block(index as usize);
            return;
        }
        debug_assert!(first_seq & BLOCK == 0);
        let event = Event {
            key,
            seq: first_seq | BLOCK,
            slot: index,
            stamp: 0,
        };
        self.push_entry(clock, event);
    }

    /// The motions' events of block entry `event`, and the entry's block freed.
    fn expand(&mut self, event: &Event, mut each: impl FnMut(Event)) {
        let index = event.slot as usize;
        let Some(list) = self.blocks.get_mut(index) else {
            return;
        };
        let first = event.seq & !BLOCK;
        for (k, &slot) in list.iter().enumerate() {
            each(Event {
                key: event.key,
                seq: first + k as u64,
                slot,
                stamp: 0,
            });
        }
        self.free_block(index);
    }

    fn free_block(&mut self, index: usize) {
        if let Some(list) = self.blocks.get_mut(index) {
            list.clear();
            self.free_with_room += usize::from(list.capacity() > 0);
            self.free_blocks.push(index as u32);
        }
    }

    /// Pops every entry due at `now[clock]`: those `classify` says to visit into `due`,
    /// the quiet ones into `quiet`, the stale ones nowhere.
    pub fn pop_due(
        &mut self,
        now: &[f64],
        classify: impl Fn(&Event) -> Pop,
        due: &mut Vec<Due>,
        quiet: &mut Vec<Event>,
    ) {
        let mut sort = |event: Event| match classify(&event) {
            Pop::Stale => {}
            Pop::Visit => due.push(Due {
                seq: event.seq,
                slot: event.slot,
            }),
            Pop::Quiet => quiet.push(event),
        };
        for (clock, &w) in now.iter().enumerate().take(self.clocks.len()) {
            while let Some(event) = self.clocks[clock].pop_due(w) {
                if event.seq & BLOCK == 0 {
                    sort(event);
                } else {
                    self.expand(&event, &mut sort);
                }
            }
        }
    }

    /// Total entries (a block's counts once), stale ones included.
    pub fn len(&self) -> usize {
        self.clocks.iter().map(ClockEvents::len).sum()
    }

    /// Drops stale entries (re-anchored motions leave their old entry behind; a block's
    /// goes when none of its motions is current) and releases memory; O(entries), so call
    /// it only when stale entries dominate.
    pub fn purge(&mut self, is_current: impl Fn(u32, u64, u32) -> bool) {
        let blocks = &self.blocks;
        let current = |e: &Event| {
            if e.seq & BLOCK == 0 {
                return is_current(e.slot, e.seq, e.stamp);
            }
            let first = e.seq & !BLOCK;
            let slots = blocks.get(e.slot as usize).map_or(&[][..], Vec::as_slice);
            (first..)
                .zip(slots)
                .any(|(seq, &slot)| is_current(slot, seq, 0))
        };
        for clock in &mut self.clocks {
            clock.retain(current);
            let len = clock.len();
            clock.shrink_if_sparse(len);
        }
        // The blocks of the entries dropped are free.
        let mut used = vec![false; self.blocks.len()];
        for clock in &self.clocks {
            for e in clock.iter().filter(|e| e.seq & BLOCK != 0) {
                if let Some(u) = used.get_mut(e.slot as usize) {
                    *u = true;
                }
            }
        }
        self.free_blocks.clear();
        self.free_with_room = 0;
        for (index, used) in used.into_iter().enumerate() {
            if !used {
                self.free_block(index);
            }
        }
        self.release_blocks();
    }

    /// Memory follows load: every block goes when none is in use; the free blocks' lists
    /// give back their room when those holding it are more than twice the blocks in use.
    /// O(1) unless it acts.
    fn release_blocks(&mut self) {
        let used = self.blocks.len() - self.free_blocks.len();
        if used == 0 && self.blocks.capacity() > KEPT_BLOCKS {
            self.blocks = Vec::new();
            self.free_blocks = Vec::new();
            self.free_with_room = 0;
        } else if self.free_with_room > KEPT_BLOCKS && self.free_with_room > 2 * used {
            for &index in &self.free_blocks {
                self.blocks[index as usize] = Vec::new();
            }
            self.free_with_room = 0;
        }
    }

    /// Shrinks a clock's queue whose capacity is over four times what `live` motions (or
    /// its own entries, if more) need, to twice that: memory follows load, and a world of
    /// a stable size never reallocates.
    pub fn shrink_if_sparse(&mut self, live: usize) {
        for clock in &mut self.clocks {
            let need = clock.len().max(live);
            clock.shrink_if_sparse(need);
        }
        self.release_blocks();
    }

    pub fn clear(&mut self) {
        self.clocks.clear();
        self.blocks = Vec::new();
        self.free_blocks = Vec::new();
        self.free_with_room = 0;
    }
}

/// The world time at which a motion with clock `time` now, anchored by `base` and `speed`,
/// next needs a visit: its completion, or with a loop callback its next loop boundary.
/// `None` when the clock never gets there (speed ≤ 0, or infinite loops without a loop
/// callback). The key is biased slightly early: a visit that comes too early finds no
/// transition and reschedules, while one that came late would miss the transition (a motion
/// without a bind is only looked at when its event is due).
pub(crate) fn next_event_key(
    row: &crate::core::row::MotionRow,
    time: f64,
    completed_loops: u32,
    completed: bool,
    wants_loops: bool,
) -> Option<f64> {
    if row.speed <= 0.0 || completed {
        return None;
    }
    let infinite = row.loops < 0;
    if infinite && !wants_loops {
        return None;
    }
    let duration = f64::from(row.duration);
    let delay = f64::from(row.delay);
    let every_loop = row.delay_type() == crate::core::settings::DelayType::EveryLoop;
    // Clock value of the boundary where `completed_loops` next rises (or the motion completes).
    let boundary = if duration <= 0.0 {
        if !every_loop || delay == 0.0 {
            delay // completes just after T = d
        } else {
            delay * (f64::from(completed_loops) + 1.0)
        }
    } else if every_loop {
        (duration + delay) * (f64::from(completed_loops) + 1.0)
    } else {
        delay + duration * (f64::from(completed_loops) + 1.0)
    };
    let boundary = if wants_loops || infinite {
        boundary
    } else {
        row.total_duration()
    };
    let speed = f64::from(row.speed);
    // The evaluation treats a phase within half an f32 ulp of a loop's end as the boundary
    // (see `progress`), so the transition can come up to `duration · 2^-25` of clock early.
    let snap = duration * f64::from(f32::EPSILON);
    // If the boundary is already (nearly) behind the clock, look next update.
    if boundary - snap <= time {
        return Some(f64::NEG_INFINITY);
    }
    let key = row.base() + (boundary - snap) / speed;
    Some(key - (key.abs() + (boundary / speed).abs()) * 4.0 * f64::EPSILON)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(key: f64, seq: u64) -> Event {
        Event {
            key,
            seq,
            slot: seq as u32,
            stamp: 0,
        }
    }

    fn due_at(queue: &mut EventQueue, now: f64) -> Vec<u64> {
        let mut due = Vec::new();
        queue.pop_due(&[now], |_| Pop::Visit, &mut due, &mut Vec::new());
        due.iter().map(|d| d.seq).collect()
    }

    #[test]
    fn events_leave_in_time_order_whichever_order_they_came_in() {
        let mut queue = EventQueue::default();
        // In order (the FIFO), then earlier ones (the heap), ties broken by sequence.
        for (key, seq) in [
            (1.0, 1),
            (2.0, 2),
            (2.0, 3),
            (5.0, 4),
            (0.5, 5),
            (2.0, 0),
            (3.0, 6),
        ] {
            queue.push(0, event(key, seq));
        }
        assert_eq!(due_at(&mut queue, 0.4), Vec::<u64>::new());
        assert_eq!(due_at(&mut queue, 2.0), vec![5, 1, 0, 2, 3]);
        assert_eq!(queue.len(), 2);
        queue.push(0, event(4.0, 7));
        assert_eq!(due_at(&mut queue, 10.0), vec![6, 7, 4]);
        assert_eq!(queue.len(), 0);
    }

    #[test]
    fn purge_keeps_only_current_events_in_both_parts() {
        let mut queue = EventQueue::default();
        for (key, seq) in [(1.0, 1), (3.0, 2), (2.0, 3), (4.0, 4)] {
            queue.push(0, event(key, seq));
        }
        queue.purge(|_, seq, _| seq % 2 == 1);
        assert_eq!(queue.len(), 2);
        assert_eq!(due_at(&mut queue, 10.0), vec![1, 3]);
    }

    /// A block's entry is the events of its motions still current, at its key and in its
    /// place among the others; its list is free once popped, and a purge keeps it while
    /// one of them is current.
    #[test]
    fn a_blocks_entry_pops_as_its_current_motions_events() {
        let mut queue = EventQueue::default();
        queue.push(0, event(1.0, 1));
        queue.push_block(0, 2.0, 10, [7, 8, 9].into_iter());
        queue.push(0, event(3.0, 2));
        queue.push_block(0, 4.0, 20, [3].into_iter());
        assert_eq!(queue.len(), 4);
        // Motion 8 (sequence number 11) was re-anchored since; 20's block stays.
        queue.purge(|_, seq, _| seq != 11 && seq != 20);
        assert_eq!(queue.len(), 3);
        let (mut due, mut quiet) = (Vec::new(), Vec::new());
        let classify = |e: &Event| match e.seq {
            11 => Pop::Stale,
            12 => Pop::Quiet,
            _ => Pop::Visit,
        };
        queue.pop_due(&[3.5], classify, &mut due, &mut quiet);
        let seen: Vec<(u64, u32)> = due.iter().map(|d| (d.seq, d.slot)).collect();
        assert_eq!(seen, [(1, 1), (10, 7), (2, 2)]);
        assert_eq!(quiet.len(), 1);
        assert_eq!((quiet[0].seq, quiet[0].slot, quiet[0].stamp), (12, 9, 0));
        assert_eq!(queue.len(), 0);
        assert_eq!(queue.free_blocks.len(), queue.blocks.len());
    }

    #[test]
    fn each_clock_pops_at_its_own_time() {
        let mut queue = EventQueue::default();
        queue.push(1, event(1.0, 1));
        queue.push(0, event(5.0, 2));
        let (mut due, mut quiet) = (Vec::new(), Vec::new());
        queue.pop_due(&[2.0, 2.0], |_| Pop::Visit, &mut due, &mut quiet);
        assert_eq!(due.iter().map(|d| d.seq).collect::<Vec<_>>(), vec![1]);
        assert!(quiet.is_empty());
    }
}
