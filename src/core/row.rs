//! The dense motion row: the `#[repr(C)]` Pod data every executor evaluates.
//!
//! The GPU executor copies these rows as-is, so the layout is part of the WGSL interface:
//! keep in sync with `MotionRow` in `shaders/types.wgsl` (a test reads the WGSL layout back
//! from naga and compares it with `offset_of!`).

use bytemuck::{Pod, Zeroable};

use crate::core::ease::Ease;
use crate::core::settings::{DelayType, LoopType, TimeKind};

/// One motion's timing, 32 bytes. The clock is stored as a single *base* (see
/// [`MotionRow::clock`]) so that evaluating a motion is a pure function of the world clock.
///
/// The first 16 bytes hold the fields every row's evaluation reads (base, duration, flags),
/// the last 16 those that only some rows need (speed, delay, loop count, parameters). The
/// GPU pass reads the same struct (`MotionRow` in `shaders/types.wgsl`, loaded by
/// `shaders/rows32.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
pub struct MotionRow {
    /// High part of the base, as an f32 pair `hi + lo` (about 48 significant bits), so the
    /// GPU can form `W − base` precisely after hours of world time.
    pub base_hi: f32,
    /// Low part of the base.
    pub base_lo: f32,
    /// Duration of one loop, seconds (≥ 0).
    pub duration: f32,
    /// Packed settings, see the `FLAG_*` shifts.
    pub flags: u32,
    /// Playback speed (may be 0 or negative).
    pub speed: f32,
    /// Delay, seconds (≥ 0).
    pub delay: f32,
    /// Loop count; -1 is infinite, never 0.
    pub loops: i32,
    /// Index of this motion's entry in a parameter table (curve keys, parametric eases,
    /// punch and shake settings). 0 and unused for plain eases with the lerp adapter.
    pub params: u32,
}

/// `flags` bits 0..8: the [`Ease`] discriminant.
pub(crate) const FLAG_EASE_SHIFT: u32 = 0;
/// `flags` bits 8..10: the [`LoopType`].
pub(crate) const FLAG_LOOP_TYPE_SHIFT: u32 = 8;
/// `flags` bit 10: the [`DelayType`] (1 = every loop).
pub(crate) const FLAG_EVERY_LOOP_DELAY: u32 = 1 << 10;
/// `flags` bits 11..13: the [`TimeKind`].
pub(crate) const FLAG_TIME_KIND_SHIFT: u32 = 11;
/// `flags` bits 13..16: lane count − 1.
pub(crate) const FLAG_LANES_SHIFT: u32 = 13;
/// `flags` bits 16..20: the [`Interpolation`](crate::value::Interpolation).
pub(crate) const FLAG_ADAPTER_SHIFT: u32 = 16;
/// `flags` bits 20..23: the [`RoundingMode`](crate::value::RoundingMode) of an integer
/// motion (read when converting lanes back to the integer; the executors ignore it).
pub(crate) const FLAG_ROUNDING_SHIFT: u32 = 20;
/// `flags` bit 23: the row is a child of a sequence. Its clock comes from its parent's value
/// (`T = v_parent − position`), so the fields that hold a clock base hold the link instead:
/// `base_hi` is the position in the parent and `base_lo` the parent's row index (as bits).
pub(crate) const FLAG_CHILD: u32 = 1 << 23;
/// `flags` bits 24..32: the row's clock, an index into the frame's clock table
/// ([`CLOCKS`] entries): its time kind (0..3) for a motion in no group, a group's clock
/// (3..) otherwise. The executors read only this to find a row's world time, so pausing or
/// re-timing a group changes one table entry, not its rows.
pub(crate) const FLAG_CLOCK_SHIFT: u32 = 24;
/// Entries of a frame's clock table: the three time kinds, then one per group slot.
pub const CLOCKS: usize = 256;
/// One frame's clocks, indexed by a row's [`clock_index`](MotionRow::clock_index): world
/// time of each time kind, then each group's clock (docs/design.md, groups).
pub type ClockTable = [f64; CLOCKS];

impl MotionRow {
    /// The motion clock at world time `w` (of the motion's time kind):
    /// `T = (w − base) · speed`, or `T = base` when the speed is 0 (a frozen clock keeps its
    /// value in the base). This is docs/design.md's `anchor_clock + (W − anchor_world) · speed`
    /// with the anchor folded into one number: `base = anchor_world − anchor_clock / speed`.
    #[inline]
    #[must_use]
    pub fn clock(&self, w: f64) -> f64 {
        let base = self.base();
        if self.speed == 0.0 {
            base
        } else {
            (w - base) * f64::from(self.speed)
        }
    }

    /// The base as an f64 (exactly `hi + lo`).
    #[inline]
    #[must_use]
    pub fn base(&self) -> f64 {
        f64::from(self.base_hi) + f64::from(self.base_lo)
    }

    /// Re-anchors the motion so that its clock reads `clock` at world time `w`. Returns
    /// nothing: the new base is rounded to the f32 pair, and [`clock`](Self::clock) computes
    /// from the pair, so the CPU's f64 view and the GPU's view are the same number.
    pub fn anchor(&mut self, w: f64, clock: f64) {
        let base = if self.speed == 0.0 {
            clock
        } else {
            w - clock / f64::from(self.speed)
        };
        let hi = base as f32;
        self.base_hi = hi;
        self.base_lo = (base - f64::from(hi)) as f32;
    }

    /// The easing function.
    #[inline]
    #[must_use]
    pub fn ease(&self) -> Ease {
        // Rows are only written by the builder, which stores a valid discriminant.
        Ease::from_bits((self.flags >> FLAG_EASE_SHIFT) & 0xff).unwrap_or(Ease::Linear)
    }

    /// The loop type.
    #[inline]
    #[must_use]
    pub fn loop_type(&self) -> LoopType {
        LoopType::from_bits(self.flags >> FLAG_LOOP_TYPE_SHIFT)
    }

    /// The delay type.
    #[inline]
    #[must_use]
    pub fn delay_type(&self) -> DelayType {
        if self.flags & FLAG_EVERY_LOOP_DELAY != 0 {
            DelayType::EveryLoop
        } else {
            DelayType::FirstLoop
        }
    }

    /// The time kind whose world clock drives the motion.
    #[inline]
    #[must_use]
    pub fn time_kind(&self) -> TimeKind {
        TimeKind::from_bits((self.flags >> FLAG_TIME_KIND_SHIFT) & 3)
    }

    /// The index of the clock that drives the motion in a frame's [`ClockTable`]: its time
    /// kind, or its group's clock.
    #[inline(always)]
    #[must_use]
    pub fn clock_index(&self) -> usize {
        (self.flags >> FLAG_CLOCK_SHIFT) as usize
    }

    /// Puts the row on clock `clock` (a group's), which runs in time kind `kind`.
    #[inline]
    pub(crate) fn set_clock(&mut self, clock: u8, kind: TimeKind) {
        let mask = 0xff << FLAG_CLOCK_SHIFT | 3 << FLAG_TIME_KIND_SHIFT;
        self.flags = self.flags & !mask
            | u32::from(clock) << FLAG_CLOCK_SHIFT
            | (kind as u32) << FLAG_TIME_KIND_SHIFT;
    }

    /// The ease id bits (standard eases 0..31, parametric ones from 32).
    #[inline]
    #[must_use]
    pub(crate) fn ease_bits(&self) -> u32 {
        (self.flags >> FLAG_EASE_SHIFT) & 0xff
    }

    /// The interpolation bits (an [`Interpolation`](crate::Interpolation)).
    #[inline]
    #[must_use]
    pub(crate) fn adapter_bits(&self) -> u32 {
        (self.flags >> FLAG_ADAPTER_SHIFT) & 0xf
    }

    /// The rounding mode of an integer motion.
    #[inline]
    #[must_use]
    pub(crate) fn rounding(&self) -> crate::core::value::RoundingMode {
        crate::core::value::RoundingMode::from_bits((self.flags >> FLAG_ROUNDING_SHIFT) & 7)
    }

    /// Whether the row is a child of a sequence (see [`FLAG_CHILD`]).
    #[inline]
    #[must_use]
    pub(crate) fn is_child(&self) -> bool {
        self.flags & FLAG_CHILD != 0
    }

    /// A child row's parent row index.
    #[inline]
    #[must_use]
    pub(crate) fn parent_row(&self) -> u32 {
        self.base_lo.to_bits()
    }

    /// Whether its ease reads the parameter lanes (a parametric ease or an animation curve).
    #[inline]
    #[must_use]
    pub(crate) fn reads_params(&self) -> bool {
        self.ease_bits() >= crate::core::ease::PARAMETRIC_BASE
    }

    /// Lanes in use, 1..=4.
    #[inline]
    #[must_use]
    pub fn lane_count(&self) -> usize {
        (((self.flags >> FLAG_LANES_SHIFT) & 3) + 1) as usize
    }

    /// The motion's total duration (delay included), `d·(EveryLoop ? L : 1) + D·L`;
    /// infinite for infinite loops.
    #[must_use]
    pub fn total_duration(&self) -> f64 {
        if self.loops < 0 {
            return f64::INFINITY;
        }
        let loops = f64::from(self.loops);
        let delay = f64::from(self.delay);
        let delays = match self.delay_type() {
            DelayType::EveryLoop => delay * loops,
            DelayType::FirstLoop => delay,
        };
        delays + f64::from(self.duration) * loops
    }
}

/// Packs the settings of a row's `flags` field.
pub(crate) fn pack_flags(
    ease: Ease,
    loop_type: LoopType,
    delay_type: DelayType,
    time_kind: TimeKind,
    lanes: usize,
    adapter: u32,
) -> u32 {
    debug_assert!((1..=4).contains(&lanes));
    let mut flags = ease.to_bits() << FLAG_EASE_SHIFT
        | (loop_type as u32) << FLAG_LOOP_TYPE_SHIFT
        | (time_kind as u32) << FLAG_TIME_KIND_SHIFT
        | (time_kind as u32) << FLAG_CLOCK_SHIFT
        | ((lanes as u32 - 1) & 3) << FLAG_LANES_SHIFT
        | (adapter & 0xf) << FLAG_ADAPTER_SHIFT;
    if delay_type == DelayType::EveryLoop {
        flags |= FLAG_EVERY_LOOP_DELAY;
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_is_32_bytes_and_packs_settings() {
        assert_eq!(std::mem::size_of::<MotionRow>(), 32);
        let flags = pack_flags(
            Ease::InOutBounce,
            LoopType::Yoyo,
            DelayType::EveryLoop,
            TimeKind::Realtime,
            3,
            0,
        );
        let row = MotionRow {
            flags,
            ..MotionRow::zeroed()
        };
        assert_eq!(row.ease(), Ease::InOutBounce);
        assert_eq!(row.loop_type(), LoopType::Yoyo);
        assert_eq!(row.delay_type(), DelayType::EveryLoop);
        assert_eq!(row.time_kind(), TimeKind::Realtime);
        assert_eq!(row.lane_count(), 3);
        assert_eq!(row.clock_index(), 2);
        let mut grouped = row;
        grouped.set_clock(200, TimeKind::Unscaled);
        assert_eq!(
            (grouped.clock_index(), grouped.time_kind()),
            (200, TimeKind::Unscaled)
        );
        let others = !(0xff << FLAG_CLOCK_SHIFT | 3 << FLAG_TIME_KIND_SHIFT);
        assert_eq!(grouped.flags & others, row.flags & others);
    }

    #[test]
    fn anchor_round_trips_after_hours() {
        // Ten hours of world time at speed 1.5: the pair keeps ~48 bits, far below 1 µs.
        let mut row = MotionRow {
            speed: 1.5,
            ..MotionRow::zeroed()
        };
        let w = 36_000.123_456_789;
        row.anchor(w, 2.25);
        assert!((row.clock(w) - 2.25).abs() < 1e-9);
        assert!((row.clock(w + 2.0) - 5.25).abs() < 1e-9);
        // A frozen clock keeps its value exactly.
        row.speed = 0.0;
        row.anchor(w, 12_345.678);
        assert!((row.clock(w + 99.0) - 12_345.678).abs() < 1e-9);
    }
}
