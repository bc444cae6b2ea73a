//! The world's curve key table: ranges of keys allocated best-fit from a free list.

use std::collections::{BTreeMap, BTreeSet};

use bytemuck::Zeroable;

use super::{encode_params, key_range, AnimationCurve, GpuKey};

/// Smallest capacity (keys) the pool keeps once it has grown, unless it empties.
const MIN_KEYS: usize = 64;
/// Dirty ranges closer than this (keys) are uploaded as one.
#[cfg_attr(not(feature = "gpu"), allow(dead_code))] // the GPU executor's
const DIRTY_GAP: usize = 64;
/// At most this many ranges are uploaded separately per frame; more become one span.
#[cfg_attr(not(feature = "gpu"), allow(dead_code))] // the GPU executor's
const MAX_DIRTY_RANGES: usize = 64;

/// The world's key table: the keys of every live curve motion, in ranges allocated best-fit
/// from a free list whose neighbours merge; a free tail is cut off, and the memory shrinks
/// with hysteresis (when at most a quarter is in use, to twice the table's length).
///
/// The GPU executor copies [`keys`](Self::keys) into a storage buffer of [`GpuKey`]s (keep
/// in sync with `shaders/curve.wgsl`), uploading only the ranges
/// [`drain_dirty`](Self::drain_dirty) reports.
#[derive(Default)]
pub(crate) struct CurvePool {
    /// The table; its length is the end of the last live range.
    keys: Vec<GpuKey>,
    /// Free ranges below `keys.len()`: start → length, never adjacent.
    by_start: BTreeMap<usize, usize>,
    /// The same ranges as (length, start), for best fit.
    by_size: BTreeSet<(usize, usize)>,
    /// Keys in live ranges.
    in_use: usize,
    /// Whether a GPU copy is kept (and so dirty ranges recorded).
    journaled: bool,
    /// Ranges written since the GPU copy was last synchronised (start, length).
    dirty: Vec<(usize, usize)>,
}

impl CurvePool {
    /// Copies `curve`'s keys into the table; returns the row's parameter lanes.
    pub fn insert(&mut self, curve: &AnimationCurve) -> [f32; 4] {
        let keys = curve.gpu_keys();
        let n = keys.len();
        let start = match self.by_size.range((n, 0)..).next().copied() {
            Some((len, start)) => {
                self.remove_free(start, len);
                if len > n {
                    self.add_free(start + n, len - n);
                }
                start
            }
            None => {
                let start = self.keys.len();
                self.keys.resize(start + n, GpuKey::zeroed());
                start
            }
        };
        self.keys[start..start + n].copy_from_slice(keys);
        self.in_use += n;
        if self.journaled {
            self.dirty.push((start, n));
        }
        let (pre, post) = curve.wrap_bits();
        encode_params(start, n, pre, post)
    }

    /// Frees the keys of a curve row with parameter lanes `params`.
    pub fn free(&mut self, params: [f32; 4]) {
        let (mut start, mut len) = key_range(params);
        if len == 0 || start + len > self.keys.len() {
            debug_assert!(false, "freeing keys {start}+{len} outside the table");
            return;
        }
        self.in_use -= len;
        // Merge with the free neighbours.
        if let Some((&prev, &prev_len)) = self.by_start.range(..start).next_back() {
            if prev + prev_len == start {
                self.remove_free(prev, prev_len);
                start = prev;
                len += prev_len;
            }
        }
        if let Some(&next_len) = self.by_start.get(&(start + len)) {
            self.remove_free(start + len, next_len);
            len += next_len;
        }
        if start + len == self.keys.len() {
            self.keys.truncate(start); // a free tail is no table
        } else {
            self.add_free(start, len);
        }
    }

    fn add_free(&mut self, start: usize, len: usize) {
        self.by_start.insert(start, len);
        self.by_size.insert((len, start));
    }

    fn remove_free(&mut self, start: usize, len: usize) {
        self.by_start.remove(&start);
        self.by_size.remove(&(len, start));
    }

    /// Every key slot (free ones hold stale keys no row names).
    pub fn keys(&self) -> &[GpuKey] {
        &self.keys
    }

    /// Keys in live ranges.
    pub fn in_use(&self) -> usize {
        self.in_use
    }

    /// Keys the table's memory holds.
    pub fn capacity(&self) -> usize {
        self.keys.capacity()
    }

    /// Forgets every curve (the world was cleared).
    pub fn clear(&mut self) {
        self.keys.clear();
        self.by_start.clear();
        self.by_size.clear();
        self.in_use = 0;
        self.dirty.clear();
        self.shrink_if_sparse();
    }

    /// Shrinks with hysteresis: when a quarter or less of the memory is used, to twice the
    /// table's length (at least [`MIN_KEYS`], or nothing once the table is empty).
    pub fn shrink_if_sparse(&mut self) {
        let (len, cap) = (self.keys.len(), self.keys.capacity());
        if cap > 0 && len * 4 <= cap {
            if len == 0 {
                self.keys = Vec::new();
            } else {
                self.keys.shrink_to((len * 2).max(MIN_KEYS));
            }
        }
        if len == 0 && self.dirty.is_empty() && self.dirty.capacity() > 0 {
            self.dirty = Vec::new(); // no curves left: no upload list either
        }
    }

    /// Starts (or stops) recording dirty ranges for a GPU copy. Starting marks the whole
    /// table dirty.
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))] // the GPU executor's
    pub fn keep_gpu_journal(&mut self, on: bool) {
        self.journaled = on;
        self.dirty.clear();
        if on && !self.keys.is_empty() {
            self.dirty.push((0, self.keys.len()));
        }
    }

    /// Moves the ranges to upload into `out` as `[start, len]` key ranges, sorted, merged
    /// (across gaps under [`DIRTY_GAP`] keys), at most [`MAX_DIRTY_RANGES`] of them, all
    /// inside the table. Afterwards nothing is dirty.
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))] // the GPU executor's
    pub fn drain_dirty(&mut self, out: &mut Vec<[u32; 2]>) {
        out.clear();
        let len = self.keys.len();
        self.dirty.sort_unstable();
        for &(start, n) in &self.dirty {
            let end = (start + n).min(len);
            if start >= end {
                continue;
            }
            match out.last_mut() {
                Some(last) if start <= (last[0] + last[1]) as usize + DIRTY_GAP => {
                    let last_end = (last[0] + last[1]) as usize;
                    last[1] = (end.max(last_end) - last[0] as usize) as u32;
                }
                _ => out.push([start as u32, (end - start) as u32]),
            }
        }
        self.dirty.clear();
        if out.len() > MAX_DIRTY_RANGES {
            let first = out[0][0];
            let end = out.iter().map(|r| r[0] + r[1]).max().unwrap_or(first);
            out.clear();
            out.push([first, end - first]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::curve::Keyframe;

    #[test]
    fn pool_allocates_best_fit_merges_and_truncates() {
        let mut pool = CurvePool::default();
        let two = AnimationCurve::ease_in_out();
        let three = AnimationCurve::new([
            Keyframe::new(0.0, 0.0),
            Keyframe::new(0.5, 1.0),
            Keyframe::new(1.0, 0.0),
        ])
        .unwrap();
        let a = pool.insert(&two);
        let b = pool.insert(&three);
        let c = pool.insert(&two);
        assert_eq!(
            (key_range(a), key_range(b), key_range(c)),
            ((0, 2), (2, 3), (5, 2))
        );
        pool.free(b);
        // A two-key curve fits the three-key hole.
        let d = pool.insert(&two);
        assert_eq!(key_range(d).0, 2);
        pool.free(a);
        pool.free(d); // merges 0..2 and 2..4 (and the free key 4)
        assert_eq!(pool.by_start.get(&0), Some(&5));
        pool.free(c); // everything free: the table is cut to nothing
        assert_eq!((pool.keys().len(), pool.in_use()), (0, 0));
        assert!(pool.by_start.is_empty() && pool.by_size.is_empty());
    }
}
