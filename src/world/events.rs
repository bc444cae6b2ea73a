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
            .then(self.seq.cmp(&other.seq))
    }
}

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
        if self.clocks.len() <= clock {
            self.clocks.resize_with(clock + 1, ClockEvents::default);
        }
        self.clocks[clock].push(event);
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
        for (clock, &w) in self.clocks.iter_mut().zip(now) {
            while let Some(event) = clock.pop_due(w) {
                match classify(&event) {
                    Pop::Stale => {}
                    Pop::Visit => due.push(Due {
                        seq: event.seq,
                        slot: event.slot,
                    }),
                    Pop::Quiet => quiet.push(event),
                }
            }
        }
    }

    /// Total entries, stale ones included.
    pub fn len(&self) -> usize {
        self.clocks.iter().map(ClockEvents::len).sum()
    }

    /// Drops stale entries (re-anchored motions leave their old entry behind) and releases
    /// memory; O(entries), so call it only when stale entries dominate.
    pub fn purge(&mut self, is_current: impl Fn(u32, u64, u32) -> bool) {
        for clock in &mut self.clocks {
            clock.retain(|e| is_current(e.slot, e.seq, e.stamp));
            let len = clock.len();
            clock.shrink_if_sparse(len);
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
    }

    pub fn clear(&mut self) {
        self.clocks.clear();
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
