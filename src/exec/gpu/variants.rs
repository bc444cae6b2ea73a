//! Variants of the evaluate pipeline: one per set of row kinds that need code of their own
//! (sequence children, parametric eases, with the CSS cubic Bézier and animation curves apart,
//! the transcendental eases, quaternion and punch/shake adapters) or a field read (delays,
//! finite loop counts, speeds other than 1, lanes past the first).
//! The executor tracks which kinds its table may hold and binds the variant compiled without
//! the code and reads for the others.
//!
//! Why: software adapters such as lavapipe run every branch of divergent code for every
//! invocation, masked, so code for a kind of row that no row has still costs every row, and
//! there every storage read (4 bytes, or 8 where the device has 64-bit integers: see
//! `shaders/rows64.wgsl`) costs about as much as a third of the lerp kernel. On
//! lavapipe a world of plain rows (OutQuad, infinite loops, no delay, speed 1) evaluated about
//! 5× faster with that code and those reads compiled out.
//!
//! Keep in sync with the `override` constants at the top of `shaders/evaluate.wgsl` (a test
//! compares the names).

use crate::core::curve::ID_CURVE;
use crate::core::ease::{ID_BEZIER, PARAMETRIC_BASE};
use crate::core::row::MotionRow;
use crate::core::value::AdapterKind;

/// A set of row kinds, as bits (`1 << i` for the constant `NAMES[i]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Features(pub u32);

/// The pipeline-overridable constants, in bit order.
pub(crate) const NAMES: [&str; 11] = [
    "HAS_CHILD",
    "HAS_PARAMETRIC",
    "HAS_TRANSCENDENTAL",
    "HAS_QUAT",
    "HAS_VIBRATE",
    "HAS_DELAY",
    "HAS_FINITE_LOOPS",
    "HAS_SPEED",
    "HAS_MULTI_LANE",
    "HAS_BEZIER",
    "HAS_CURVE",
];

/// Number of variants (every subset of [`NAMES`]).
pub(crate) const COUNT: usize = 1 << NAMES.len();

const CHILD: u32 = 1;
const PARAMETRIC: u32 = 2;
const TRANSCENDENTAL: u32 = 4;
const QUAT: u32 = 8;
const VIBRATE: u32 = 16;
const DELAY: u32 = 32;
const FINITE_LOOPS: u32 = 64;
const SPEED: u32 = 128;
const MULTI_LANE: u32 = 256;
/// The CSS cubic Bézier (27 solver steps) and animation curves (a search of the key table):
/// as part of `PARAMETRIC`, a world of `Back` eases ran 2.3–2.8× slower on lavapipe.
const BEZIER: u32 = 512;
const CURVE: u32 = 1024;

impl Features {
    /// Every kind: the variant that can evaluate any row.
    pub const ALL: Self = Self(COUNT as u32 - 1);

    /// Whether the set includes sequence children.
    #[must_use]
    pub const fn has_children(self) -> bool {
        self.0 & CHILD != 0
    }

    /// The kinds `row` needs.
    #[must_use]
    pub fn of(row: &MotionRow) -> Self {
        let mut bits = 0;
        if row.is_child() {
            bits |= CHILD;
        }
        let ease = row.ease_bits();
        if ease >= PARAMETRIC_BASE {
            bits |= PARAMETRIC;
            if ease == ID_BEZIER {
                bits |= BEZIER;
            } else if ease == ID_CURVE {
                bits |= CURVE;
            }
        } else if (1..=30).contains(&ease) {
            // Families in easing.wgsl order: Sine, Quad, Cubic, Quart, Quint, Expo, Circ,
            // Elastic, Back, Bounce.
            let family = (ease - 1) / 3;
            if matches!(family, 0 | 5 | 6 | 7 | 9) {
                bits |= TRANSCENDENTAL;
            }
        }
        let adapter = row.adapter_bits();
        if adapter == AdapterKind::Slerp as u32 || adapter == AdapterKind::Nlerp as u32 {
            bits |= QUAT | MULTI_LANE;
        } else if adapter == AdapterKind::Punch as u32 || adapter == AdapterKind::Shake as u32 {
            // Punch and shake read their settings from lane 3.
            bits |= VIBRATE | MULTI_LANE;
        }
        if row.lane_count() > 1 {
            bits |= MULTI_LANE;
        }
        // Without these the pass uses the constants 0, -1 and 1 instead of reading the
        // fields, so a -0 delay counts as a delay.
        if row.delay.to_bits() != 0 {
            bits |= DELAY;
        }
        if row.loops != -1 {
            bits |= FINITE_LOOPS;
        }
        if row.speed.to_bits() != 1.0f32.to_bits() {
            bits |= SPEED;
        }
        Self(bits)
    }

    /// This set and `other`.
    #[must_use]
    pub fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// The index of the variant.
    #[must_use]
    pub fn index(self) -> usize {
        (self.0 & Self::ALL.0) as usize
    }

    /// The pipeline constants of the variant: 1 (true) for the kinds in the set, 0 for the
    /// others.
    #[must_use]
    pub fn constants(self) -> [(&'static str, f64); NAMES.len()] {
        let mut out = [("", 0.0); NAMES.len()];
        for (i, name) in NAMES.iter().enumerate() {
            out[i] = (name, f64::from((self.0 >> i) & 1));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ease::Ease;
    use crate::exec::gpu::shaders::EVALUATE_MODULE;

    #[test]
    fn names_match_the_wgsl_overrides() {
        let source = EVALUATE_MODULE.source();
        let module = naga::front::wgsl::parse_str(&source).expect("evaluate module parses");
        let mut overrides: Vec<String> = module
            .overrides
            .iter()
            .filter_map(|(_, o)| o.name.clone())
            .collect();
        overrides.sort();
        let mut names: Vec<String> = NAMES.iter().map(|n| (*n).to_owned()).collect();
        names.sort();
        assert_eq!(overrides, names);
    }

    /// A row of no delay, infinite loops and speed 1.
    fn row(ease: u32, adapter: AdapterKind, child: bool) -> MotionRow {
        let mut flags = ease | (adapter as u32) << crate::core::row::FLAG_ADAPTER_SHIFT;
        if child {
            flags |= crate::core::row::FLAG_CHILD;
        }
        MotionRow {
            flags,
            loops: -1,
            speed: 1.0,
            ..bytemuck::Zeroable::zeroed()
        }
    }

    #[test]
    fn features_of_rows() {
        // Which standard eases need sin, exp2 or sqrt (or the bounce parabolas), by name.
        for ease in Ease::ALL {
            let name = format!("{ease:?}");
            let transcendental = ["Sine", "Expo", "Circ", "Elastic", "Bounce"]
                .iter()
                .any(|f| name.contains(f));
            let want = if transcendental { TRANSCENDENTAL } else { 0 };
            assert_eq!(
                Features::of(&row(ease as u32, AdapterKind::Lerp, false)),
                Features(want),
                "{name}"
            );
        }
        for id in 32..=38 {
            assert_eq!(
                Features::of(&row(id, AdapterKind::Lerp, false)),
                Features(PARAMETRIC)
            );
        }
        for (id, own) in [(39, BEZIER), (40, CURVE)] {
            assert_eq!(
                Features::of(&row(id, AdapterKind::Lerp, false)),
                Features(PARAMETRIC | own)
            );
        }
        for (adapter, want) in [
            (AdapterKind::Slerp, QUAT | MULTI_LANE),
            (AdapterKind::Nlerp, QUAT | MULTI_LANE),
            (AdapterKind::Punch, VIBRATE | MULTI_LANE),
            (AdapterKind::Shake, VIBRATE | MULTI_LANE),
        ] {
            assert_eq!(
                Features::of(&row(0, adapter, false)),
                Features(want),
                "{adapter:?}"
            );
        }
        assert_eq!(
            Features::of(&row(Ease::OutBounce as u32, AdapterKind::Shake, true)),
            Features(CHILD | TRANSCENDENTAL | VIBRATE | MULTI_LANE)
        );
        let plain = row(0, AdapterKind::Lerp, false);
        for (delay, want) in [(0.0, 0), (-0.0, DELAY), (0.25, DELAY)] {
            let r = MotionRow { delay, ..plain };
            assert_eq!(Features::of(&r), Features(want), "delay {delay}");
        }
        for (loops, want) in [(-1, 0), (1, FINITE_LOOPS), (7, FINITE_LOOPS)] {
            let r = MotionRow { loops, ..plain };
            assert_eq!(Features::of(&r), Features(want), "loops {loops}");
        }
        for (speed, want) in [(1.0, 0), (0.0, SPEED), (-1.0, SPEED), (1.5, SPEED)] {
            let r = MotionRow { speed, ..plain };
            assert_eq!(Features::of(&r), Features(want), "speed {speed}");
        }
        for (lanes, want) in [(1, 0), (2, MULTI_LANE), (3, MULTI_LANE), (4, MULTI_LANE)] {
            let flags = plain.flags | (lanes - 1) << crate::core::row::FLAG_LANES_SHIFT;
            let r = MotionRow { flags, ..plain };
            assert_eq!(Features::of(&r), Features(want), "{lanes} lanes");
        }
    }

    #[test]
    fn constants_follow_the_bits() {
        let c = Features(PARAMETRIC | VIBRATE).constants();
        assert_eq!(
            c,
            [
                ("HAS_CHILD", 0.0),
                ("HAS_PARAMETRIC", 1.0),
                ("HAS_TRANSCENDENTAL", 0.0),
                ("HAS_QUAT", 0.0),
                ("HAS_VIBRATE", 1.0),
                ("HAS_DELAY", 0.0),
                ("HAS_FINITE_LOOPS", 0.0),
                ("HAS_SPEED", 0.0),
                ("HAS_MULTI_LANE", 0.0),
                ("HAS_BEZIER", 0.0),
                ("HAS_CURVE", 0.0),
            ]
        );
        assert_eq!(Features::ALL.index(), COUNT - 1);
    }
}
