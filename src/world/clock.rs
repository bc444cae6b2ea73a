//! World clocks: one f64 accumulator per time kind, read on the grid of the rows' anchors,
//! and the frame's clock table they head (the groups' clocks follow, `world/groups.rs`).

use crate::core::row::{ClockTable, CLOCKS};
use crate::error::UpdateError;

/// The deltas of one world update, per [`TimeKind`](crate::TimeKind).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeDeltas {
    /// Delta of scaled (game) time, seconds.
    pub scaled: f64,
    /// Delta of unscaled time, seconds.
    pub unscaled: f64,
    /// Delta of real time, seconds.
    pub realtime: f64,
}

impl TimeDeltas {
    /// The same delta for all three kinds, what [`MotionWorld::update`](crate::MotionWorld::update) uses.
    #[must_use]
    pub const fn uniform(dt: f64) -> Self {
        Self {
            scaled: dt,
            unscaled: dt,
            realtime: dt,
        }
    }

    pub(crate) fn validate(&self) -> Result<(), UpdateError> {
        for (kind, value) in [
            ("scaled", self.scaled),
            ("unscaled", self.unscaled),
            ("realtime", self.realtime),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(UpdateError::InvalidDelta { kind, value });
            }
        }
        Ok(())
    }

    pub(crate) const fn as_array(&self) -> [f64; 3] {
        [self.scaled, self.unscaled, self.realtime]
    }
}

/// The largest world time, and the largest motion clock `set_time` accepts, seconds (2^64,
/// about 5.8e11 years): far inside the f32 range that the rows' anchors (f32 pairs) and the
/// GPU's clocks need, so no accepted input can make a clock infinite or NaN.
pub const MAX_TIME: f64 = 18_446_744_073_709_551_616.0;

/// `x` rounded to the grid of the rows' anchors: the nearest sum `hi + lo` of two f32s as
/// [`MotionRow::anchor`](crate::MotionRow::anchor) stores it (about 48 significant bits).
/// Values already on the grid are kept exactly, so an anchor at such a time is exact.
#[must_use]
pub(crate) fn on_anchor_grid(x: f64) -> f64 {
    let hi = x as f32;
    f64::from(hi) + f64::from((x - f64::from(hi)) as f32)
}

/// The clock table now and at the previous update (for transitions): world time per kind
/// (entries 0..3), then each group's clock.
///
/// Deltas accumulate exactly in f64 (`sum`), and the world time the motions see (`now`) is
/// that sum rounded to the anchor grid ([`on_anchor_grid`]). So a motion anchored at the
/// world time `W` stores `W` exactly, and its clock at `W` is exactly the clock it was
/// anchored with: 0 for a new motion, whatever `W` is (docs/semantics.md §1). The rounding is
/// below 2^-48 of the world time (4e-12 s after an hour) and never accumulates.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WorldClocks {
    pub now: ClockTable,
    pub prev: ClockTable,
    sum: [f64; 3],
    /// Entries in use: the kinds and every group slot ever made.
    pub used: usize,
}

impl Default for WorldClocks {
    fn default() -> Self {
        Self {
            now: [0.0; CLOCKS],
            prev: [0.0; CLOCKS],
            sum: [0.0; 3],
            used: 3,
        }
    }
}

impl WorldClocks {
    /// The entries in use: what the executors read.
    #[inline]
    pub fn table(&self) -> &[f64] {
        &self.now[..self.used]
    }

    /// The next deltas' sum of kind `kind`, before rounding (to check groups against
    /// [`MAX_TIME`]).
    pub fn next_sum(&self, kind: usize, deltas: TimeDeltas) -> f64 {
        self.sum[kind] + deltas.as_array()[kind]
    }

    /// Refuses deltas that would take a world time past [`MAX_TIME`].
    pub fn check(&self, deltas: TimeDeltas) -> Result<(), UpdateError> {
        for ((kind, sum), delta) in ["scaled", "unscaled", "realtime"]
            .into_iter()
            .zip(self.sum)
            .zip(deltas.as_array())
        {
            if sum + delta > MAX_TIME {
                return Err(UpdateError::WorldTimeOverflow { kind, delta });
            }
        }
        Ok(())
    }

    /// Advances by checked deltas (see [`check`](Self::check)).
    /// The groups' clocks are the caller's to advance after.
    pub fn advance(&mut self, deltas: TimeDeltas) {
        let used = self.used;
        self.prev[..used].copy_from_slice(&self.now[..used]);
        for ((w, sum), d) in self
            .now
            .iter_mut()
            .zip(&mut self.sum)
            .zip(deltas.as_array())
        {
            *sum += d;
            *w = on_anchor_grid(*sum);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::cpu::test_rng::Rng;

    #[test]
    fn the_anchor_grid_is_kept_by_anchoring() {
        // Any value on the grid is stored exactly by an anchor, so a motion anchored there
        // reads clock 0 exactly (issue 16 item 1 for W = 0.1 and W = 12345.678).
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut row = crate::core::row::MotionRow {
            speed: 1.0,
            ..bytemuck::Zeroable::zeroed()
        };
        let mut check = |x: f64| {
            let w = on_anchor_grid(x);
            assert_eq!(on_anchor_grid(w), w, "grid value {w:e} of {x:e}");
            row.anchor(w, 0.0);
            assert_eq!(row.clock(w), 0.0, "clock at the anchor of {w:e}");
        };
        for x in [
            0.1,
            12_345.678,
            9.005_999_999_999_997,
            1.0 / 3.0,
            MAX_TIME,
            1e-30,
        ] {
            check(x);
        }
        for _ in 0..100_000 {
            let scale = 2f64.powi((rng.next() % 120) as i32 - 60);
            check(rng.unit() * scale);
        }
    }
}
