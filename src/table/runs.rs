//! Rows kept in runs of one shape ([`CLASSES`]): a new row is swapped down past the first
//! row of each later class, a removed one up past the last row of each, so either costs at
//! most `CLASSES − 1` swaps, and none in a world of one shape.
//!
//! Why: both executors evaluate rows side by side (64-row chunks of SIMD vectors on the CPU,
//! SIMD lanes of a workgroup on software GPUs), and a vector that mixes shapes pays for all
//! of them: four lanes read and written for a one-lane row, the quaternion code for a lerp.
//! Lerps are split by lane count, as a CPU chunk lerps the lanes of its widest row: a world
//! of `Vec2` motions costs 30% less than when its chunks lerped four lanes.

use super::rows::{class_of, Rows, CLASSES};

/// The row swaps a [`Rows::place_last`] or [`Rows::remove`] made, in order: at most one per
/// class, so it never allocates.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Swaps {
    pairs: [[u32; 2]; CLASSES],
    len: usize,
}

impl Swaps {
    fn push(&mut self, a: u32, b: u32) {
        self.pairs[self.len] = [a, b];
        self.len += 1;
    }

    /// Every row index a swap touched (some twice): the rows whose owners must be told
    /// where their row now is.
    pub fn rows(&self) -> impl Iterator<Item = u32> + '_ {
        self.pairs[..self.len].iter().flatten().copied()
    }
}

impl Rows {
    /// Moves the row just pushed (the last) into its class's run, past the first row of each
    /// later class.
    pub fn place_last(&mut self) -> Swaps {
        let index = self.len() as u32 - 1;
        let class = class_of(&self.rows[index as usize]);
        let mut at = index;
        let mut planned = Swaps::default();
        for later in (class + 1..CLASSES).rev() {
            let start = self.class_end[later - 1];
            if start < at {
                planned.push(start, at);
                at = start;
            }
        }
        for end in &mut self.class_end[class..] {
            *end += 1;
        }
        for [a, b] in planned.pairs[..planned.len].iter().copied() {
            self.swap(a, b);
        }
        planned
    }

    /// Removes row `index`: moves it to the end of the table past the later classes' runs
    /// (shrinking the runs) and drops it there, so no row but the swapped ones moves.
    pub fn remove(&mut self, index: u32) -> Swaps {
        let class = class_of(&self.rows[index as usize]);
        let mut at = index;
        let mut swaps = Swaps::default();
        for c in class..CLASSES {
            let last = self.class_end[c] - 1;
            if at != last {
                self.swap(at, last);
                swaps.push(at, last);
                at = last;
            }
            self.class_end[c] -= 1;
        }
        debug_assert_eq!(at as usize + 1, self.len());
        self.pop();
        swaps
    }
}
