//! The value pass of a chunk: eased progress `p` → output lanes, shared by the segment cache
//! and the batch path.
//!
//! The chunk's lanes in use (its widest row's) are lerped for every row, branch-free (SIMD; a
//! narrower row's unused lanes have pairs (0, 0), so their outputs are 0; outputs past the
//! chunk's lanes are left alone, as no reader looks past a row's own lanes), unless every row
//! is a quaternion. Rows with another adapter then overwrite theirs: quaternion rows (slerp
//! and nlerp, found by a bitmask of the rows' flags) in place, by blocks of [`BLOCK`]
//! neighbouring rows straight from the lane columns where most of a block's rows are
//! quaternions, the others gathered eight at a time, with the operations of
//! [`quat_interpolate`](crate::value::quat_interpolate) and per-row constants found when the
//! rows change ([`QuatColumns`]), so their results equal it bit for bit (angles beyond π/2,
//! of eases that overshoot and Incremental loops, reduced into the sine polynomial's range as
//! the reference does, [`sin_reduced`]); punch and shake rows, and quaternion rows whose
//! angles leave [`SIN_REDUCED_MAX`], take the scalar [`row_value`].

use crate::core::row::MotionRow;
use crate::core::value::Interpolation;
use crate::eval::adapters::{
    lerp, quat_inv_sin, row_value, sin_reduced, QUAT_MIN_ANGLE, SIN_REDUCED_MAX,
};
// (The tests count the rows whose angles leave `sin_poly`'s own range.)
#[cfg(test)]
use crate::eval::adapters::SIN_POLY_MAX;

/// Neighbouring rows evaluated together as quaternions: one AVX vector (two SSE ones) per
/// operation.
const BLOCK: usize = 8;

/// Quaternion rows of a block from which it is evaluated in place ([`dense_blocks`]); the
/// others are gathered ([`gathered`]). A block costs about as much as gathering four rows.
const DENSE: u32 = 4;

/// The rows of a chunk (bit `i` for row `i`) whose adapter is not lerp: found once per
/// change of the chunk's rows where the caller keeps it (the segment cache's chunk head), as
/// reading every row's flags per update costs about 1 ns per motion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AdapterMasks {
    /// Slerp and nlerp rows.
    pub quat: u64,
    /// Nlerp rows (a subset of `quat`): their results need a full normalization.
    pub nlerp: u64,
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
            let (mut quat, mut nlerp, mut other) = (0u64, 0u64, 0u64);
            for (j, row) in rows.iter().enumerate() {
                let kind = row.adapter_bits();
                // Slerp (1) and nlerp (2); punch, shake (and unknown kinds, read as lerp by
                // `row_value`) from 3.
                quat |= u64::from(kind.wrapping_sub(Interpolation::Slerp as u32) < 2) << j;
                nlerp |= u64::from(kind == Interpolation::Nlerp as u32) << j;
                other |= u64::from(kind >= Interpolation::Punch as u32) << j;
            }
            (quat, nlerp, other)
        };
        let (mut quat, mut nlerp, mut other) = (0u64, 0u64, 0u64);
        let groups = rows.chunks_exact(8);
        let tail = bits(groups.remainder());
        let full = groups.len();
        for (k, group) in groups.enumerate() {
            let (q, l, o) = bits(group);
            quat |= q << (8 * k);
            nlerp |= l << (8 * k);
            other |= o << (8 * k);
        }
        // (A full chunk has no tail, and a shift by 64 would overflow.)
        let shift = |bits: u64| bits.checked_shl(8 * full as u32).unwrap_or(0);
        Self {
            quat: quat | shift(tail.0),
            nlerp: nlerp | shift(tail.1),
            other: other | shift(tail.2),
        }
    }
}

/// The per-row constants of a chunk's quaternion rows, one entry per row (other rows'
/// entries are not used): found when the rows change ([`QuatColumns::fill`]), where the
/// segment cache keeps them, so that its updates neither read the rows nor divide by
/// `sin θ`.
#[derive(Clone, Copy)]
pub(crate) struct QuatColumns<'a> {
    /// The slerp angle θ (the row's `params`), 0 for nlerp.
    pub theta: &'a [f32],
    /// [`quat_inv_sin`]`(θ)` where `θ > QUAT_MIN_ANGLE`, else 0.
    pub inv_sin: &'a [f32],
}

impl QuatColumns<'_> {
    /// Fills `theta` and `inv_sin` (each at least as long as `rows`, at most 64) for the
    /// quaternion rows `quat` of `rows`; other entries become 0.
    pub fn fill(rows: &[MotionRow], mut quat: u64, theta: &mut [f32], inv_sin: &mut [f32]) {
        theta.fill(0.0);
        inv_sin.fill(0.0);
        while quat != 0 {
            let i = quat.trailing_zeros() as usize;
            quat &= quat - 1;
            let row = &rows[i];
            if row.adapter_bits() == Interpolation::Slerp as u32 {
                let angle = f32::from_bits(row.params);
                theta[i] = angle;
                if angle > QUAT_MIN_ANGLE {
                    inv_sin[i] = quat_inv_sin(angle);
                }
            }
        }
    }
}

/// What the quaternion pass reads of a chunk: its lane pairs, eased progress and
/// [`QuatColumns`] (every slice as long as the chunk), and which rows to evaluate.
#[derive(Clone, Copy)]
pub(crate) struct QuatRows<'a> {
    pub pairs: [&'a [[f32; 2]]; 4],
    pub p: &'a [f32],
    pub constants: QuatColumns<'a>,
    /// The rows to evaluate (bit `i` for row `i`).
    pub rows: u64,
    /// The nlerp rows ([`AdapterMasks::nlerp`]): normalized in full.
    pub nlerp: u64,
}

/// Writes the values of `rows` (at most 64) at eased progress `p` into `out`, from their lane
/// pairs `pairs` (every slice as long as `rows`). `quat`: the constants of the quaternion
/// rows. `lanes`: the lanes (1 to 4) of the chunk's widest lerp row (may be an
/// over-approximation; 4 where there are quaternion rows); `adapters`: the rows'
/// [`AdapterMasks`] (exact). `now` gives the shake noise its clock.
#[allow(clippy::too_many_arguments)] // (one call each from the cache and the batch path)
#[inline(always)]
pub(crate) fn values(
    rows: &[MotionRow],
    pairs: [&[[f32; 2]]; 4],
    out: [&mut [f32]; 4],
    p: &[f32],
    quat_columns: QuatColumns<'_>,
    lanes: usize,
    adapters: AdapterMasks,
    now: &[f64],
) {
    let n = rows.len();
    debug_assert!(n <= 64);
    // (Quaternion rows use four lanes: the value pass writes all four of every row.)
    debug_assert!(adapters.quat == 0 || lanes == 4);
    let p = &p[..n];
    let theta = &quat_columns.theta[..n];
    let inv_sin = &quat_columns.inv_sin[..n];
    let [out0, out1, out2, out3] = out;
    let mut out = [
        &mut out0[..n],
        &mut out1[..n],
        &mut out2[..n],
        &mut out3[..n],
    ];
    let pairs = pairs.map(|column| &column[..n]);
    let AdapterMasks {
        quat,
        nlerp,
        mut other,
    } = adapters;
    // (A full chunk: a shift by 64 would overflow.)
    let every_row = u64::MAX.checked_shr(64 - n as u32).unwrap_or(0);
    if quat != every_row {
        for (column, pairs) in out.iter_mut().zip(pairs).take(lanes) {
            for ((o, pair), &p) in column.iter_mut().zip(pairs).zip(p) {
                *o = lerp(pair[0], pair[1], p);
            }
        }
    }
    if quat == 0 && other == 0 {
        return;
    }
    // Blocks of neighbouring rows that are mostly quaternions in place (out of line, AVX2
    // where the CPU has it); the other quaternion rows gathered eight at a time (inline: as
    // a call, its arguments and the gather cost more than the group saves).
    let dense = dense_blocks(quat, n);
    let quat_rows = |rows| QuatRows {
        pairs,
        p,
        constants: QuatColumns { theta, inv_sin },
        rows,
        nlerp,
    };
    if dense != 0 {
        other |= quaternions(quat_rows(dense), &mut out);
    }
    if quat & !dense != 0 {
        other |= gathered(quat_rows(quat & !dense), &mut out);
    }
    while other != 0 {
        let i = other.trailing_zeros() as usize;
        other &= other - 1;
        let row = &rows[i];
        let column = pairs.map(|column| column[i]);
        let value = row_value(row, column, p[i], now[row.clock_index()]);
        // All four lanes (a punch or shake keeps its settings in lane 3).
        for (column, value) in out.iter_mut().zip(value) {
            column[i] = value;
        }
    }
}

/// Quaternion rows (of `quat`, a chunk of `n` rows) in blocks of [`BLOCK`] neighbouring rows
/// at least [`DENSE`] of which are quaternions (a short last block never).
#[inline(always)]
fn dense_blocks(quat: u64, n: usize) -> u64 {
    let mut dense = 0;
    for base in (0..n / BLOCK * BLOCK).step_by(BLOCK) {
        let rows = quat >> base & 0xff;
        if rows.count_ones() >= DENSE {
            dense |= rows << base;
        }
    }
    dense
}

/// The rows of `q`, gathered [`BLOCK`] at a time into a [`QuatGroup`]; returns those left to
/// the scalar path (as [`quaternions`]).
#[inline(always)]
fn gathered(q: QuatRows<'_>, out: &mut [&mut [f32]; 4]) -> u64 {
    let QuatRows {
        pairs,
        p,
        constants: QuatColumns { theta, inv_sin },
        rows: mut mask,
        nlerp,
    } = q;
    let mut scalar = 0u64;
    // Entries past a short group keep the previous group's (finite) values: computed,
    // never stored.
    let mut group = QuatGroup::default();
    while mask != 0 {
        let mut index = [0u8; BLOCK];
        let mut n = 0;
        let mut exact = 0;
        while mask != 0 && n < BLOCK {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            group.theta[n] = theta[i];
            group.inv_sin[n] = inv_sin[i];
            group.p[n] = p[i];
            for (lane, column) in group.pairs.iter_mut().zip(pairs) {
                lane[n] = column[i];
            }
            exact |= (nlerp >> i & 1) << n;
            index[n] = i as u8;
            n += 1;
        }
        let outside = group.evaluate(exact as u32) & ((1 << n) - 1);
        for (j, &i) in index[..n].iter().enumerate() {
            let i = usize::from(i);
            for (column, lane) in out.iter_mut().zip(&group.out) {
                column[i] = lane[j];
            }
            scalar |= u64::from(outside >> j & 1) << i;
        }
    }
    scalar
}

/// Up to [`BLOCK`] gathered quaternion rows as columns.
#[derive(Default)]
struct QuatGroup {
    /// `(from, to)` per lane.
    pairs: [[[f32; 2]; BLOCK]; 4],
    /// The results per lane ([`evaluate`](Self::evaluate)): a column of its own, as storing
    /// every other entry of `pairs` cost shuffles.
    out: [[f32; BLOCK]; 4],
    /// The [`QuatColumns`] entries.
    theta: [f32; BLOCK],
    inv_sin: [f32; BLOCK],
    p: [f32; BLOCK],
}

impl QuatGroup {
    /// `out ← quat_interpolate(from, to, p, θ)` for every entry, the entries of `exact`
    /// (bit `j`) nlerp: the operations of [`quat_block`]. Returns the entries whose angles
    /// leave [`SIN_REDUCED_MAX`] (as `quat_block`).
    #[inline(always)]
    fn evaluate(&mut self, exact: u32) -> u32 {
        let mut outside = [false; BLOCK];
        let mut len2 = [0.0f32; BLOCK];
        for j in 0..BLOCK {
            let (theta, p) = (self.theta[j], self.p[j]);
            // The angles `quat_interpolate` passes to `sin_fast`, formed the same way.
            let (xa, xb) = ((1.0 - p) * theta, p * theta);
            let slerp = theta > QUAT_MIN_ANGLE;
            outside[j] = slerp && !(xa.abs() <= SIN_REDUCED_MAX && xb.abs() <= SIN_REDUCED_MAX);
            let (sa, sb) = (sin_reduced(xa), sin_reduced(xb));
            let wa = if slerp { sa * self.inv_sin[j] } else { 1.0 - p };
            let wb = if slerp { sb * self.inv_sin[j] } else { p };
            let r = [0, 1, 2, 3].map(|k| self.pairs[k][j][0] * wa + self.pairs[k][j][1] * wb);
            len2[j] = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
            for (lane, r) in self.out.iter_mut().zip(r) {
                lane[j] = r;
            }
        }
        // Slerp's one Newton step from 1; nlerp rows (rare next to slerp: kept out of the
        // loop above, whose vector code a square root and division per entry would slow)
        // normalized in full.
        let mut inv = [0.0f32; BLOCK];
        for j in 0..BLOCK {
            inv[j] = 1.5 - 0.5 * len2[j];
        }
        if exact != 0 {
            for j in 0..BLOCK {
                if exact >> j & 1 != 0 {
                    inv[j] = if len2[j] > 0.0 {
                        1.0 / len2[j].sqrt()
                    } else {
                        0.0
                    };
                }
            }
        }
        for lane in &mut self.out {
            for j in 0..BLOCK {
                lane[j] *= inv[j];
            }
        }
        outside
            .iter()
            .enumerate()
            .fold(0, |bits, (j, &o)| bits | u32::from(o) << j)
    }
}

/// Evaluates the rows of `q` (see [`QuatRows`]); returns those left to the scalar path (an angle outside the polynomial's range), whose outputs it leaves
/// garbage.
///
/// Not inlined into the executor's loop, whose size made the compiler give up inlining and
/// vectorizing the small loops here: compiled on its own, in AVX2 intrinsics for the CPUs
/// that have it (`lanes_avx2.rs`: eight rows per instruction), else portably
/// ([`quaternions_with`]). The results are the same (IEEE
/// operations lane by lane, no fused multiply-add).
#[inline(always)]
fn quaternions(q: QuatRows<'_>, out: &mut [&mut [f32]; 4]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { quaternions_avx2(q, out) };
    }
    quaternions_baseline(q, out)
}

/// [`quaternions`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn quaternions_avx2(q: QuatRows<'_>, out: &mut [&mut [f32]; 4]) -> u64 {
    // SAFETY: the CPU has AVX2.
    unsafe { avx2::quaternions(q, out) }
}

/// [`quaternions_with`] for the baseline instruction set.
#[inline(never)]
fn quaternions_baseline(q: QuatRows<'_>, out: &mut [&mut [f32]; 4]) -> u64 {
    quaternions_with(q, out)
}

/// The portable body of [`quaternions`], by blocks of [`BLOCK`] neighbouring rows that have
/// a quaternion row, each evaluated whole, straight from the columns (the other rows'
/// results are computed, not stored).
#[inline(always)]
fn quaternions_with(q: QuatRows<'_>, out: &mut [&mut [f32]; 4]) -> u64 {
    let QuatRows {
        pairs,
        p,
        constants: QuatColumns { theta, inv_sin },
        rows: mask,
        nlerp,
    } = q;
    let constants = [theta, inv_sin];
    let n = p.len();
    let mut scalar = 0u64;
    let mut blocks = mask;
    while blocks != 0 {
        let base = blocks.trailing_zeros() as usize & !(BLOCK - 1);
        let rows = (mask >> base) as u32 & 0xff;
        let exact = (nlerp >> base) as u32 & 0xff;
        blocks &= !(0xff << base);
        let outside =
            if let Some((lanes, p, constants, columns)) = block(pairs, p, constants, out, base) {
                quat_block(lanes, p, constants, columns, [rows, exact])
            } else {
                // The short block at the end of a short chunk, through padded copies (zeros
                // evaluate to 0 without a NaN).
                let len = n - base;
                let mut lanes = [[[0.0; 2]; BLOCK]; 4];
                let mut consts = [[0.0; BLOCK]; 2];
                let mut p_block = [0.0; BLOCK];
                let mut values = [[0.0; BLOCK]; 4];
                for k in 0..4 {
                    lanes[k][..len].copy_from_slice(&pairs[k][base..]);
                }
                for k in 0..2 {
                    consts[k][..len].copy_from_slice(&constants[k][base..]);
                }
                p_block[..len].copy_from_slice(&p[base..]);
                let [l0, l1, l2, l3] = &lanes;
                let [c0, c1] = &consts;
                let [v0, v1, v2, v3] = &mut values;
                let outside = quat_block(
                    [l0, l1, l2, l3],
                    &p_block,
                    [c0, c1],
                    [v0, v1, v2, v3],
                    [rows, exact],
                );
                for (column, values) in out.iter_mut().zip(&values) {
                    column[base..].copy_from_slice(&values[..len]);
                }
                outside
            };
        scalar |= u64::from(outside & rows) << base;
    }
    scalar
}

/// The [`BLOCK`] rows from `base` of the columns, if there are as many.
#[allow(clippy::type_complexity)]
#[inline(always)]
fn block<'a>(
    pairs: [&'a [[f32; 2]]; 4],
    p: &'a [f32],
    constants: [&'a [f32]; 2],
    out: &'a mut [&mut [f32]; 4],
    base: usize,
) -> Option<(
    [&'a [[f32; 2]; BLOCK]; 4],
    &'a [f32; BLOCK],
    [&'a [f32; BLOCK]; 2],
    [&'a mut [f32; BLOCK]; 4],
)> {
    // (Each column on its own: `array::map` over them was not inlined.)
    let [l0, l1, l2, l3] = pairs;
    let [c0, c1] = constants;
    let [o0, o1, o2, o3] = out;
    Some((
        [
            l0[base..].first_chunk()?,
            l1[base..].first_chunk()?,
            l2[base..].first_chunk()?,
            l3[base..].first_chunk()?,
        ],
        p[base..].first_chunk()?,
        [c0[base..].first_chunk()?, c1[base..].first_chunk()?],
        [
            o0[base..].first_chunk_mut()?,
            o1[base..].first_chunk_mut()?,
            o2[base..].first_chunk_mut()?,
            o3[base..].first_chunk_mut()?,
        ],
    ))
}

/// `out ← quat_interpolate(from, to, p, θ)` for the entries of `rows` (bit `j` for entry
/// `j`; the others get their lerp, as from the lerp pass), from the lane pairs `pairs` and
/// the `constants` θ and 1/sin θ ([`QuatColumns`]); the entries of `exact` are nlerp rows,
/// normalized in full.
/// The same operations as `quat_interpolate`, its branches as selects, in loops over the
/// block that compile to vector code. Returns the entries (bit `j`) whose slerp angles leave
/// [`SIN_REDUCED_MAX`] (or are NaN), where `quat_interpolate` calls `f32::sin`:
/// their results are garbage.
#[inline(always)]
fn quat_block(
    pairs: [&[[f32; 2]; BLOCK]; 4],
    p: &[f32; BLOCK],
    constants: [&[f32; BLOCK]; 2],
    out: [&mut [f32; BLOCK]; 4],
    masks: [u32; 2],
) -> u32 {
    let [theta, inv_sin] = constants;
    let [rows, exact] = masks;
    // Plain index loops over fixed-size arrays, each its own step, compile to vector code
    // (`array::map` was not inlined, and one loop reading the pairs in place stayed scalar).
    let (mut a, mut b) = ([[0.0f32; BLOCK]; 4], [[0.0f32; BLOCK]; 4]);
    for k in 0..4 {
        for j in 0..BLOCK {
            a[k][j] = pairs[k][j][0];
            b[k][j] = pairs[k][j][1];
        }
    }
    let mut v = [[0.0f32; BLOCK]; 4];
    let mut len2 = [0.0f32; BLOCK];
    let mut outside = 0;
    for j in 0..BLOCK {
        let (theta, p) = (theta[j], p[j]);
        // The angles `quat_interpolate` passes to `sin_fast`, formed the same way.
        let (xa, xb) = ((1.0 - p) * theta, p * theta);
        let slerp = theta > QUAT_MIN_ANGLE;
        let inside = xa.abs() <= SIN_REDUCED_MAX && xb.abs() <= SIN_REDUCED_MAX;
        outside |= u32::from(slerp && !inside) << j;
        let wa = if slerp {
            sin_reduced(xa) * inv_sin[j]
        } else {
            1.0 - p
        };
        let wb = if slerp {
            sin_reduced(xb) * inv_sin[j]
        } else {
            p
        };
        let v0 = a[0][j] * wa + b[0][j] * wb;
        let v1 = a[1][j] * wa + b[1][j] * wb;
        let v2 = a[2][j] * wa + b[2][j] * wb;
        let v3 = a[3][j] * wa + b[3][j] * wb;
        len2[j] = v0 * v0 + v1 * v1 + v2 * v2 + v3 * v3;
        [v[0][j], v[1][j], v[2][j], v[3][j]] = [v0, v1, v2, v3];
    }
    // Slerp's one Newton step from 1.
    let mut inv = [0.0f32; BLOCK];
    for j in 0..BLOCK {
        inv[j] = 1.5 - 0.5 * len2[j];
    }
    if exact != 0 {
        // Nlerp rows: `if len2 > 0.0 { 1.0 / len2.sqrt() } else { 0.0 }` as bit masks (as
        // selects, the compiler moved the square root and division into a branch per entry).
        for j in 0..BLOCK {
            let positive = if len2[j] > 0.0 { u32::MAX } else { 0 };
            let full = (1.0 / len2[j].sqrt()).to_bits() & positive;
            let nlerp = (exact >> j & 1).wrapping_neg();
            inv[j] = f32::from_bits((full & nlerp) | (inv[j].to_bits() & !nlerp));
        }
    }
    // The other rows' lerps again (as the lerp pass): stores of whole blocks, no reads of
    // `out` (a select with them compiled to masked stores, slow on some CPUs).
    let [o0, o1, o2, o3] = out;
    let out = [o0, o1, o2, o3];
    let mut quat = [0u32; BLOCK];
    for (j, quat) in quat.iter_mut().enumerate() {
        *quat = (rows >> j & 1).wrapping_neg();
    }
    for k in 0..4 {
        for j in 0..BLOCK {
            let r = (v[k][j] * inv[j]).to_bits();
            let lerped = lerp(a[k][j], b[k][j], p[j]).to_bits();
            out[k][j] = f32::from_bits((r & quat[j]) | (lerped & !quat[j]));
        }
    }
    outside
}

#[cfg(target_arch = "x86_64")]
#[path = "lanes_avx2.rs"]
mod avx2;

#[cfg(test)]
#[path = "lanes_tests.rs"]
mod tests;
