//! The value pass of a chunk: eased progress `p` → output lanes, shared by the segment cache
//! and the batch path.
//!
//! Every lane in use is lerped for every row, branch-free (SIMD; a row's unused lanes have
//! pairs (0, 0), so their outputs stay 0). Rows with another adapter then overwrite theirs:
//! quaternion rows (slerp and nlerp, found by a bitmask of the rows' flags) are gathered
//! [`GROUP`] at a time and evaluated in one branch-free loop with the operations of
//! [`quat_interpolate`](crate::value::quat_interpolate), so their results equal it bit for
//! bit; punch and shake rows, and quaternion rows whose angles leave the range of the sine
//! polynomial (eases that overshoot far, Incremental loops), take the scalar [`row_value`].

use crate::row::MotionRow;
use crate::value::{lerp, row_value, sin_poly, AdapterKind, SIN_POLY_MAX};

/// Quaternion rows evaluated together: two SSE vectors (one AVX) per operation.
const GROUP: usize = 8;

/// The rows of a chunk (bit `i` for row `i`) whose adapter is not lerp: found once per
/// change of the chunk's rows where the caller keeps it (the segment cache's chunk head), as
/// reading every row's flags per update costs about 1 ns per motion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AdapterMasks {
    /// Slerp and nlerp rows.
    pub quat: u64,
    /// Punch, shake (and unknown kinds, which `row_value` reads as lerp).
    pub other: u64,
}

impl AdapterMasks {
    /// The masks of `rows` (at most 64): one branch-free pass over the flags.
    #[inline(always)]
    #[must_use]
    pub fn of(rows: &[MotionRow]) -> Self {
        // Eight rows at a time, so that every shift is a constant.
        let bits = |rows: &[MotionRow]| {
            let (mut quat, mut other) = (0u64, 0u64);
            for (j, row) in rows.iter().enumerate() {
                let kind = row.adapter_bits();
                // Slerp (1) and nlerp (2); punch, shake (and unknown kinds, read as lerp by
                // `row_value`) from 3.
                quat |= u64::from(kind.wrapping_sub(AdapterKind::Slerp as u32) < 2) << j;
                other |= u64::from(kind >= AdapterKind::Punch as u32) << j;
            }
            (quat, other)
        };
        let (mut quat, mut other) = (0u64, 0u64);
        let groups = rows.chunks_exact(8);
        let tail = bits(groups.remainder());
        let full = groups.len();
        for (k, group) in groups.enumerate() {
            let (q, o) = bits(group);
            quat |= q << (8 * k);
            other |= o << (8 * k);
        }
        // (A full chunk has no tail, and a shift by 64 would overflow.)
        let shift = |bits: u64| bits.checked_shl(8 * full as u32).unwrap_or(0);
        Self {
            quat: quat | shift(tail.0),
            other: other | shift(tail.1),
        }
    }
}

/// Writes the values of `rows` (at most 64) at eased progress `p` into `out`, from their lane
/// pairs `pairs` (every slice as long as `rows`). `multi_lane`: some row uses lanes 1–3 (may
/// be an over-approximation); `adapters`: the rows' [`AdapterMasks`] (exact). `now` gives the
/// shake noise its clock.
#[inline(always)]
pub(crate) fn values(
    rows: &[MotionRow],
    pairs: [&[[f32; 2]]; 4],
    out: [&mut [f32]; 4],
    p: &[f32],
    multi_lane: bool,
    adapters: AdapterMasks,
    now: &[f64; 3],
) {
    let n = rows.len();
    debug_assert!(n <= 64);
    let p = &p[..n];
    let [out0, out1, out2, out3] = out;
    let mut out = [
        &mut out0[..n],
        &mut out1[..n],
        &mut out2[..n],
        &mut out3[..n],
    ];
    let pairs = pairs.map(|column| &column[..n]);
    let lanes = if multi_lane { 4 } else { 1 };
    for (column, pairs) in out.iter_mut().zip(pairs).take(lanes) {
        for ((o, pair), &p) in column.iter_mut().zip(pairs).zip(p) {
            *o = lerp(pair[0], pair[1], p);
        }
    }
    let AdapterMasks { quat, mut other } = adapters;
    if quat == 0 && other == 0 {
        return;
    }
    other |= quaternions(rows, pairs, &mut out, p, quat);
    while other != 0 {
        let i = other.trailing_zeros() as usize;
        other &= other - 1;
        let row = &rows[i];
        let column = pairs.map(|column| column[i]);
        let value = row_value(row, column, p[i], now[row.time_kind() as usize]);
        // All four lanes: unused ones are 0, as for lerp rows.
        for (column, value) in out.iter_mut().zip(value) {
            column[i] = value;
        }
    }
}

/// Evaluates the quaternion rows of `mask`, [`GROUP`] at a time; returns those left to the
/// scalar path (an angle outside the polynomial's range), whose outputs it leaves garbage.
#[inline(always)]
fn quaternions(
    rows: &[MotionRow],
    pairs: [&[[f32; 2]]; 4],
    out: &mut [&mut [f32]; 4],
    p: &[f32],
    mut mask: u64,
) -> u64 {
    let mut scalar = 0u64;
    // Entries past a short group keep the previous group's (finite) values: computed,
    // never stored.
    let mut group = QuatGroup::default();
    while mask != 0 {
        let mut index = [0u8; GROUP];
        let mut n = 0;
        while mask != 0 && n < GROUP {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let row = &rows[i];
            // Nlerp is slerp at angle 0: `quat_interpolate` then takes the lerp weights.
            let slerp = row.adapter_bits() == AdapterKind::Slerp as u32;
            group.theta[n] = if slerp {
                f32::from_bits(row.params)
            } else {
                0.0
            };
            group.p[n] = p[i];
            for (lane, column) in group.pairs.iter_mut().zip(pairs) {
                lane[n] = column[i];
            }
            index[n] = i as u8;
            n += 1;
        }
        let outside = group.evaluate() & ((1 << n) - 1);
        for (j, &i) in index[..n].iter().enumerate() {
            let i = usize::from(i);
            for (column, lane) in out.iter_mut().zip(&group.pairs) {
                column[i] = lane[j][0];
            }
            scalar |= u64::from(outside >> j & 1) << i;
        }
    }
    scalar
}

/// Up to [`GROUP`] quaternion rows as columns.
#[derive(Default)]
struct QuatGroup {
    /// `(from, to)` per lane; the result in `from` after [`evaluate`](Self::evaluate).
    pairs: [[[f32; 2]; GROUP]; 4],
    /// Slerp angle (0 for nlerp).
    theta: [f32; GROUP],
    p: [f32; GROUP],
}

impl QuatGroup {
    /// `from ← quat_interpolate(from, to, p, θ)` for every entry: the same operations, the
    /// branches as selects. Returns the entries (bit `j`) with an angle outside the sine
    /// polynomial's range (or NaN), where `quat_interpolate` calls `f32::sin`: theirs are
    /// garbage.
    #[inline(always)]
    fn evaluate(&mut self) -> u32 {
        let mut outside = [false; GROUP];
        for j in 0..GROUP {
            let (theta, p) = (self.theta[j], self.p[j]);
            // The angles `quat_interpolate` passes to `sin_fast`, formed the same way.
            let (xa, xb) = ((1.0 - p) * theta, p * theta);
            outside[j] = !(theta.abs() <= SIN_POLY_MAX
                && xa.abs() <= SIN_POLY_MAX
                && xb.abs() <= SIN_POLY_MAX);
            let s = sin_poly(theta);
            let (sa, sb) = (sin_poly(xa), sin_poly(xb));
            let slerp = s > 1e-6;
            let wa = if slerp { sa / s } else { 1.0 - p };
            let wb = if slerp { sb / s } else { p };
            let r = [0, 1, 2, 3].map(|k| self.pairs[k][j][0] * wa + self.pairs[k][j][1] * wb);
            let len2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
            let inv = if len2 > 0.0 { 1.0 / len2.sqrt() } else { 0.0 };
            for (lane, r) in self.pairs.iter_mut().zip(r) {
                lane[j][0] = r * inv;
            }
        }
        outside
            .iter()
            .enumerate()
            .fold(0, |bits, (j, &o)| bits | u32::from(o) << j)
    }
}

#[cfg(test)]
#[path = "lanes_tests.rs"]
mod tests;
