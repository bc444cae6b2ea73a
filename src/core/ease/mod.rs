//! The ease types: the 31 standard eases (docs/semantics.md §3) and the parametric ones.
//! Their functions are the reference evaluation's (`eval/easing.rs`).

use std::fmt;
use std::str::FromStr;

mod parametric;

pub use parametric::{EaseMode, ParametricEase, MAX_EASE_PARAMETER, MIN_ELASTIC_PERIOD};
pub(crate) use parametric::{ID_BACK, ID_BEZIER, ID_ELASTIC, ID_STEPS, PARAMETRIC_BASE};

/// Calls `$callback!` with every standard ease variant, in discriminant order: the one list
/// that the enum, [`Ease::ALL`], the names and the CPU executor's easing loops come from.
macro_rules! with_every_ease {
    ($callback:ident) => {
        $callback! {
            Linear,
            InSine,
            OutSine,
            InOutSine,
            InQuad,
            OutQuad,
            InOutQuad,
            InCubic,
            OutCubic,
            InOutCubic,
            InQuart,
            OutQuart,
            InOutQuart,
            InQuint,
            OutQuint,
            InOutQuint,
            InExpo,
            OutExpo,
            InOutExpo,
            InCirc,
            OutCirc,
            InOutCirc,
            InElastic,
            OutElastic,
            InOutElastic,
            InBack,
            OutBack,
            InOutBack,
            InBounce,
            OutBounce,
            InOutBounce
        }
    };
}
pub(crate) use with_every_ease;

macro_rules! define_ease {
    ($first:ident, $($name:ident),*) => {
        /// An easing function: maps linear progress `x` (normally in `[0, 1]`) to eased
        /// progress.
        ///
        /// The discriminants are stable and stored in the motion rows (and so in GPU buffers):
        /// never reorder them. Keep in sync with `shaders/easing.wgsl`.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[repr(u8)]
        #[allow(missing_docs)] // the names are the documentation (easings.net)
        pub enum Ease {
            #[default]
            $first = 0,
            $($name),*
        }

        impl Ease {
            /// Every ease, in discriminant order.
            pub const ALL: [Ease; 31] = [Ease::$first, $(Ease::$name),*];
        }

        const NAMES: [&str; 31] = [stringify!($first), $(stringify!($name)),*];
    };
}
with_every_ease!(define_ease);

impl Ease {
    /// The variant's name, as written in LitMotion and in the conformance vectors.
    #[must_use]
    pub const fn name(self) -> &'static str {
        NAMES[self as usize]
    }

    /// The discriminant, as stored in a motion row.
    #[must_use]
    pub const fn to_bits(self) -> u32 {
        self as u32
    }

    /// The ease with discriminant `bits`, if there is one.
    #[must_use]
    pub const fn from_bits(bits: u32) -> Option<Ease> {
        if (bits as usize) < Self::ALL.len() {
            Some(Self::ALL[bits as usize])
        } else {
            None
        }
    }
}

impl fmt::Display for Ease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an unknown ease name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown ease name {0:?}")]
pub struct UnknownEase(pub String);

impl FromStr for Ease {
    type Err = UnknownEase;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NAMES
            .iter()
            .position(|name| *name == s)
            .map(|i| Self::ALL[i])
            .ok_or_else(|| UnknownEase(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_are_exact() {
        for ease in Ease::ALL {
            assert_eq!(ease.evaluate(0.0), 0.0, "{ease} at 0");
            assert!((ease.evaluate(1.0) - 1.0).abs() <= 1e-6, "{ease} at 1");
        }
    }

    #[test]
    fn names_round_trip() {
        for (i, ease) in Ease::ALL.into_iter().enumerate() {
            assert_eq!(ease as usize, i);
            assert_eq!(ease.name().parse::<Ease>(), Ok(ease));
            assert_eq!(Ease::from_bits(ease.to_bits()), Some(ease));
        }
        assert!("Wobble".parse::<Ease>().is_err());
        assert_eq!(Ease::from_bits(31), None);
    }

    #[test]
    fn worked_values_from_easings_net() {
        // Hand-computed midpoints: InQuad(0.5) = 0.25, OutCubic(0.5) = 0.875,
        // InBack(0.5) = c3/8 − c1/4, OutBounce(0.5) = 7.5625·(0.5 − 1.5/2.75)² + 0.75.
        assert_eq!(Ease::InQuad.evaluate(0.5), 0.25);
        assert_eq!(Ease::OutCubic.evaluate(0.5), 0.875);
        let in_back = 2.701_58 / 8.0 - 1.701_58 / 4.0;
        assert!((Ease::InBack.evaluate(0.5) - in_back).abs() < 1e-6);
        let d = 0.5 - 1.5 / 2.75;
        assert!((Ease::OutBounce.evaluate(0.5) - (7.5625 * d * d + 0.75)).abs() < 1e-6);
    }

    #[test]
    fn no_nan_outside_unit_range() {
        for ease in Ease::ALL {
            for x in [-1.0f32, -0.25, 1.25, 2.0, 7.5] {
                assert!(ease.evaluate(x).is_finite(), "{ease} at {x}");
            }
        }
    }
}
