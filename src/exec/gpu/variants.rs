//! The evaluate pass's pipeline variants, as data: one WGSL kernel (`shaders/evaluate.wgsl`)
//! whose override constants leave out the code a run of rows does not need. The table keeps
//! rows in runs of one shape class (`table/runs.rs`); each run is one dispatch, with the
//! variant of its class, or the general variant while the run holds a row only that one
//! evaluates. So every warp of a dispatch takes one path through the kernel, and software
//! adapters, which run every branch of a kernel for every row, run only the run's own.
//!
//! Every variant is built with the other pipelines when a context's executor is made, so
//! nothing compiles mid-run. What decides a run's variant is counted, not scanned:
//! [`RunShapes`] keeps one byte per GPU row, updated from the rows the frame's changes
//! touch.

use crate::core::row::MotionRow;
use crate::table::rows::{class_of, CLASSES};
use crate::table::shapes::{has_plain_timing, needs_general};

/// One evaluate pipeline: the values of the kernel's override constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Variant {
    /// Lanes of every row (lerps of that many lanes), or 0: each row's own count.
    pub lanes: u32,
    /// Slerp, nlerp, punch and shake rows.
    pub adapters: bool,
    /// Parametric eases, curves and sequence children.
    pub general: bool,
    /// Only rows of speed 1 with no delay and a positive duration.
    pub plain_timing: bool,
}

impl Variant {
    /// The kernel's override constants for this variant.
    pub fn constants(self) -> [(&'static str, f64); 4] {
        [
            ("LANES", f64::from(self.lanes)),
            ("ADAPTERS", f64::from(u8::from(self.adapters))),
            ("GENERAL", f64::from(u8::from(self.general))),
            ("PLAIN_TIMING", f64::from(u8::from(self.plain_timing))),
        ]
    }
}

/// The variant that evaluates any row (the kernel's defaults), last in [`VARIANTS`].
pub(crate) const GENERAL: usize = 2 * CLASSES;

/// Every variant: per shape class (lerps of 1 to 4 lanes, then the other adapters) one for
/// any timing and one for plain timing, then the general one.
pub(crate) const VARIANTS: [Variant; 2 * CLASSES + 1] = {
    let mut all = [Variant {
        lanes: 0,
        adapters: true,
        general: true,
        plain_timing: false,
    }; 2 * CLASSES + 1];
    let mut class = 0;
    while class < CLASSES {
        let lerp = class < CLASSES - 1;
        let mut plain = 0;
        while plain < 2 {
            all[2 * class + plain] = Variant {
                lanes: if lerp { class as u32 + 1 } else { 0 },
                adapters: !lerp,
                general: false,
                plain_timing: plain == 1,
            };
            plain += 1;
        }
        class += 1;
    }
    all
};

/// What the rows of one shape class need, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ClassNeeds {
    /// Rows only the general variant evaluates.
    pub general: u32,
    /// Rows whose timing is not plain.
    pub timed: u32,
}

impl ClassNeeds {
    /// The index in [`VARIANTS`] of the variant that evaluates class `class`'s run.
    #[must_use]
    pub fn variant(self, class: usize) -> usize {
        if self.general > 0 {
            GENERAL
        } else {
            2 * class + usize::from(self.timed == 0)
        }
    }
}

/// Marks an entry of [`RunShapes::shapes`] that holds a row.
const HELD: u8 = 0x80;
const GENERAL_BIT: u8 = 0x08;
const TIMED_BIT: u8 = 0x10;

/// Per GPU row its class and needs (one byte), and per class the counts of needs: the GPU
/// table's knowledge of what its runs need, exact because every row the GPU copy changes
/// passes through [`RunShapes::set`].
#[derive(Default)]
pub(crate) struct RunShapes {
    shapes: Vec<u8>,
    needs: [ClassNeeds; CLASSES],
}

impl RunShapes {
    /// The counts of class `class`.
    #[must_use]
    pub fn needs(&self, class: usize) -> ClassNeeds {
        self.needs[class]
    }

    /// Keeps rows `0..len` (entries past the old length hold no row until set).
    pub fn resize(&mut self, len: u32) {
        let len = len as usize;
        for i in len..self.shapes.len() {
            self.count(self.shapes[i], false);
        }
        self.shapes.resize(len, 0);
        // Memory follows load: at a quarter full, down to half.
        if self.shapes.capacity() > 4096 && len < self.shapes.capacity() / 4 {
            self.shapes.shrink_to(2 * len);
        }
    }

    /// Row `index` (below the length) now holds `row`.
    pub fn set(&mut self, index: u32, row: &MotionRow) {
        let class = class_of(row);
        let mut shape = HELD | class as u8;
        if needs_general(row) {
            shape |= GENERAL_BIT;
        }
        if !has_plain_timing(row) {
            shape |= TIMED_BIT;
        }
        let Some(entry) = self.shapes.get_mut(index as usize) else {
            debug_assert!(
                false,
                "row {index} past the table's {} rows",
                self.shapes.len()
            );
            return;
        };
        let old = std::mem::replace(entry, shape);
        self.count(old, false);
        self.count(shape, true);
    }

    /// Forgets every row.
    pub fn clear(&mut self) {
        *self = Self::default();
    }

    fn count(&mut self, shape: u8, add: bool) {
        if shape & HELD == 0 {
            return;
        }
        let needs = &mut self.needs[usize::from(shape & 7)];
        for (bit, count) in [
            (GENERAL_BIT, &mut needs.general),
            (TIMED_BIT, &mut needs.timed),
        ] {
            if shape & bit != 0 {
                *count = if add { *count + 1 } else { *count - 1 };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::row::{FLAG_ADAPTER_SHIFT, FLAG_CHILD, FLAG_LANES_SHIFT};

    /// A row of `lanes` lanes (`quat`: a slerp), a parametric ease or not, a delay or not.
    fn row(lanes: u32, quat: bool, parametric: bool, delay: f32) -> MotionRow {
        let ease = if parametric { 32 } else { 2 };
        MotionRow {
            duration: 1.0,
            speed: 1.0,
            delay,
            loops: 1,
            flags: ease | (lanes - 1) << FLAG_LANES_SHIFT | u32::from(quat) << FLAG_ADAPTER_SHIFT,
            ..bytemuck::Zeroable::zeroed()
        }
    }

    /// The counts of `rows`, by a scan.
    fn scanned(rows: &[MotionRow]) -> [ClassNeeds; CLASSES] {
        let mut needs = [ClassNeeds::default(); CLASSES];
        for r in rows {
            let n = &mut needs[class_of(r)];
            n.general += u32::from(needs_general(r));
            n.timed += u32::from(!has_plain_timing(r));
        }
        needs
    }

    #[test]
    fn run_shapes_count_what_the_rows_hold_through_overwrites_and_truncation() {
        let kinds = [
            row(1, false, false, 0.0),
            row(1, false, true, 0.0),
            row(3, false, false, 0.5),
            row(4, true, false, 0.0),
            row(2, false, true, 0.25),
            MotionRow {
                flags: row(1, false, false, 0.0).flags | FLAG_CHILD,
                ..row(1, false, false, 0.0)
            },
        ];
        let mut shapes = RunShapes::default();
        let mut rows: Vec<MotionRow> = Vec::new();
        // A deterministic churn: grow, overwrite, shrink.
        let mut state = 12345u32;
        for step in 0..2000 {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let old = rows.len();
            let len = if step % 5 == 0 {
                old.saturating_sub((state >> 28) as usize)
            } else {
                old + (state >> 30) as usize
            };
            rows.resize(len, kinds[0]);
            shapes.resize(len as u32);
            // New rows are set (uploads, as on the GPU); a few old ones are overwritten.
            let overwritten = (0..3).map(|k| (state as usize >> (4 * k)) % len.max(1));
            for i in (old.min(len)..len).chain(overwritten.filter(|_| len > 0)) {
                rows[i] = kinds[(state as usize >> 8).wrapping_add(i) % kinds.len()];
                shapes.set(i as u32, &rows[i]);
            }
            let needs: Vec<ClassNeeds> = (0..CLASSES).map(|c| shapes.needs(c)).collect();
            assert_eq!(needs, scanned(&rows), "step {step}");
        }
    }

    #[test]
    fn every_class_has_a_variant_for_each_timing_and_the_general_one_is_last() {
        assert_eq!(VARIANTS[GENERAL].constants()[0], ("LANES", 0.0));
        assert!(VARIANTS[GENERAL].general && VARIANTS[GENERAL].adapters);
        for class in 0..CLASSES {
            let plain = ClassNeeds::default().variant(class);
            let timed = ClassNeeds {
                timed: 3,
                general: 0,
            }
            .variant(class);
            assert!(VARIANTS[plain].plain_timing && !VARIANTS[timed].plain_timing);
            assert!(!VARIANTS[plain].general && !VARIANTS[timed].general);
            let general = ClassNeeds {
                timed: 0,
                general: 1,
            }
            .variant(class);
            assert_eq!(general, GENERAL);
        }
        assert_eq!(VARIANTS[ClassNeeds::default().variant(2)].lanes, 3);
        assert!(VARIANTS[ClassNeeds::default().variant(CLASSES - 1)].adapters);
        assert!(!VARIANTS[ClassNeeds::default().variant(0)].adapters);
    }
}
