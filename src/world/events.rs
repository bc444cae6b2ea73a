//! Predicted events: a min-heap per clock (each time kind's, each group's) of the time on
//! that clock at which a motion's next start, completion or loop boundary falls. Per update
//! only due entries are touched, so the bookkeeping is O(events), not O(motions); a group's
//! pause or speed change moves its clock, not its keys.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// A heap entry. `seq` and `stamp` must match the slot's current motion (sequence numbers
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

/// Entries a heap keeps room for however sparse it is.
const MIN_KEPT: usize = 1024;

/// One heap per clock in use (indexed like the clock table).
#[derive(Default)]
pub(crate) struct EventQueue {
    heaps: Vec<BinaryHeap<Reverse<Event>>>,
}

impl EventQueue {
    pub fn push(&mut self, clock: usize, event: Event) {
        if self.heaps.len() <= clock {
            self.heaps.resize_with(clock + 1, BinaryHeap::new);
        }
        self.heaps[clock].push(Reverse(event));
    }

    /// Pops every entry due at `now[clock]` whose stamp is current into `due`.
    pub fn pop_due(
        &mut self,
        now: &[f64],
        is_current: impl Fn(u32, u64, u32) -> bool,
        due: &mut Vec<Due>,
    ) {
        for (heap, &w) in self.heaps.iter_mut().zip(now) {
            while let Some(Reverse(top)) = heap.peek() {
                if top.key > w {
                    break;
                }
                let event = *top;
                heap.pop();
                if is_current(event.slot, event.seq, event.stamp) {
                    due.push(Due {
                        seq: event.seq,
                        slot: event.slot,
                    });
                }
            }
        }
    }

    /// Total entries, stale ones included.
    pub fn len(&self) -> usize {
        self.heaps.iter().map(BinaryHeap::len).sum()
    }

    /// Drops stale entries (re-anchored motions leave their old entry behind) and releases
    /// memory; O(entries), so call it only when stale entries dominate.
    pub fn purge(&mut self, is_current: impl Fn(u32, u64, u32) -> bool) {
        for heap in &mut self.heaps {
            heap.retain(|Reverse(e)| is_current(e.slot, e.seq, e.stamp));
            if heap.capacity() > 64 && heap.len() * 4 < heap.capacity() {
                heap.shrink_to(heap.len() * 2);
            }
        }
    }

    /// Shrinks a heap whose capacity is over four times what `live` motions (or its own
    /// entries, if more) need, to twice that: memory follows load, and a world of a stable
    /// size never reallocates.
    pub fn shrink_if_sparse(&mut self, live: usize) {
        for heap in &mut self.heaps {
            let need = heap.len().max(live);
            if heap.capacity() > MIN_KEPT && heap.capacity() > 4 * need {
                heap.shrink_to((2 * need).max(MIN_KEPT));
            }
        }
    }

    pub fn clear(&mut self) {
        for heap in &mut self.heaps {
            heap.clear();
            heap.shrink_to(0);
        }
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
