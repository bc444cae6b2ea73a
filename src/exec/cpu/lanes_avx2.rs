//! The quaternion rows of the value pass ([`quaternions`](super::quaternions)) in AVX2
//! intrinsics: the compiler's own vectorization of the portable loops came and went with
//! unrelated changes (whole blocks in scalar code at three times the cost), so the AVX2
//! build spells it out. The same IEEE operations in the same order, lane by lane (no fused
//! multiply-add), so the results equal the portable version and `quat_interpolate` bit for
//! bit: keep in sync.
//!
//! Blocks of eight neighbouring rows are evaluated in place, straight from the columns (the
//! caller gives it the blocks that are mostly quaternions, see `dense_blocks`).
//!
//! Every function here is `#[inline(always)]` and not itself compiled for AVX2 (such a
//! function cannot be forced inline, and the compiler left one out of line with its
//! arguments in memory): they are inlined into `quaternions_avx2`, which is.

use std::arch::x86_64::{
    __m256, _mm256_add_ps, _mm256_and_ps, _mm256_and_si256, _mm256_andnot_ps, _mm256_blendv_ps,
    _mm256_castpd_ps, _mm256_castps_pd, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_cmp_ps,
    _mm256_cmpeq_epi32, _mm256_div_ps, _mm256_loadu_ps, _mm256_movemask_ps, _mm256_mul_ps,
    _mm256_permute4x64_pd, _mm256_set1_epi32, _mm256_set1_ps, _mm256_setr_epi32, _mm256_setzero_ps,
    _mm256_shuffle_ps, _mm256_slli_epi32, _mm256_sqrt_ps, _mm256_storeu_ps, _mm256_sub_ps,
    _mm256_xor_ps, _CMP_GT_OQ, _CMP_LE_OQ,
};

use super::{QuatColumns, QuatRows, BLOCK};
use crate::eval::adapters::{PI_HI, PI_LO, QUAT_MIN_ANGLE, ROUND_MAGIC, SIN_POLY, SIN_REDUCED_MAX};

/// As [`quaternions`](super::quaternions).
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
pub(super) unsafe fn quaternions(q: QuatRows<'_>, out: &mut [&mut [f32]; 4]) -> u64 {
    let QuatRows {
        pairs,
        p,
        constants: QuatColumns { theta, inv_sin },
        rows: mask,
        nlerp,
    } = q;
    let n = p.len();
    // (Every column as long as `p`: one bounds check per block or row serves them all.)
    // (No `array::map` here or below: it was not inlined.)
    let pairs = [
        &pairs[0][..n],
        &pairs[1][..n],
        &pairs[2][..n],
        &pairs[3][..n],
    ];
    let [o0, o1, o2, o3] = out;
    let out = [&mut o0[..n], &mut o1[..n], &mut o2[..n], &mut o3[..n]];
    let [theta, inv_sin] = [&theta[..n], &inv_sin[..n]];
    let mut scalar = 0u64;
    let mut blocks = mask;
    while blocks != 0 {
        let base = blocks.trailing_zeros() as usize & !(BLOCK - 1);
        blocks &= !(0xff << base);
        let rows = (mask >> base) as u32 & 0xff;
        if base + BLOCK > n {
            // (A short block: never given, see `dense_blocks`.)
            scalar |= u64::from(rows) << base;
            continue;
        }
        let at = base..base + BLOCK;
        let exact = (nlerp >> base) as u32 & 0xff;
        // SAFETY: the CPU has AVX2; each pointer is to 8 entries (16 for pairs) from `base`,
        // in bounds (`base + BLOCK <= n`); unaligned access.
        unsafe {
            let mut a = [_mm256_setzero_ps(); 4];
            let mut b = [_mm256_setzero_ps(); 4];
            for k in 0..4 {
                let pairs = pairs[k][at.clone()].as_ptr().cast::<f32>();
                (a[k], b[k]) = split_pairs(_mm256_loadu_ps(pairs), _mm256_loadu_ps(pairs.add(8)));
            }
            let p = _mm256_loadu_ps(p[at.clone()].as_ptr());
            let theta = _mm256_loadu_ps(theta[at.clone()].as_ptr());
            let inv_sin = _mm256_loadu_ps(inv_sin[at.clone()].as_ptr());
            let (r, outside) = evaluate(a, b, p, theta, inv_sin, exact);
            scalar |= u64::from(outside & rows) << base;
            if rows == 0xff {
                for k in 0..4 {
                    _mm256_storeu_ps(out[k][at.clone()].as_mut_ptr(), r[k]);
                }
            } else {
                // The other rows get their lerp again (as the lerp pass): a select with the
                // outputs compiled to masked stores, slow on some CPUs.
                let quat = lanes_of(rows);
                for k in 0..4 {
                    let lerped = _mm256_add_ps(a[k], _mm256_mul_ps(_mm256_sub_ps(b[k], a[k]), p));
                    let r = _mm256_blendv_ps(lerped, r[k], quat);
                    _mm256_storeu_ps(out[k][at.clone()].as_mut_ptr(), r);
                }
            }
        }
    }
    scalar
}

/// `quat_interpolate` of eight rows from their lanes `a` (from) and `b` (to), eased progress
/// `p` and constants `θ` and `1/sin θ`; `exact`: the nlerp rows (bit `j` for row `j`),
/// normalized in full. Returns the results per lane and the rows (bit `j`) whose slerp
/// angles leave `SIN_REDUCED_MAX` (or are NaN), where `quat_interpolate` calls
/// `f32::sin`: their results are garbage.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn evaluate(
    a: [__m256; 4],
    b: [__m256; 4],
    p: __m256,
    theta: __m256,
    inv_sin: __m256,
    exact: u32,
) -> ([__m256; 4], u32) {
    let one = _mm256_set1_ps(1.0);
    // The angles `quat_interpolate` passes to `sin_fast`, formed the same way.
    let xa = _mm256_mul_ps(_mm256_sub_ps(one, p), theta);
    let xb = _mm256_mul_ps(p, theta);
    let slerp = _mm256_cmp_ps::<_CMP_GT_OQ>(theta, _mm256_set1_ps(QUAT_MIN_ANGLE));
    let abs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
    let max = _mm256_set1_ps(SIN_REDUCED_MAX);
    // (Ordered comparisons: false for NaN, as `<=` is.)
    let inside = _mm256_and_ps(
        _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_and_ps(xa, abs), max),
        _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_and_ps(xb, abs), max),
    );
    let outside = _mm256_movemask_ps(_mm256_andnot_ps(inside, slerp)) as u32;
    let wa = _mm256_blendv_ps(
        _mm256_sub_ps(one, p),
        _mm256_mul_ps(sin_reduced(xa), inv_sin),
        slerp,
    );
    let wb = _mm256_blendv_ps(p, _mm256_mul_ps(sin_reduced(xb), inv_sin), slerp);
    let mut v = [_mm256_setzero_ps(); 4];
    for k in 0..4 {
        v[k] = _mm256_add_ps(_mm256_mul_ps(a[k], wa), _mm256_mul_ps(b[k], wb));
    }
    let [v0, v1, v2, v3] = v;
    let len2 = _mm256_add_ps(
        _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(v0, v0), _mm256_mul_ps(v1, v1)),
            _mm256_mul_ps(v2, v2),
        ),
        _mm256_mul_ps(v3, v3),
    );
    // Slerp's one Newton step from 1.
    let mut inv = _mm256_sub_ps(
        _mm256_set1_ps(1.5),
        _mm256_mul_ps(_mm256_set1_ps(0.5), len2),
    );
    if exact != 0 {
        // Nlerp: `if len2 > 0.0 { 1.0 / len2.sqrt() } else { 0.0 }`.
        let positive = _mm256_cmp_ps::<_CMP_GT_OQ>(len2, _mm256_setzero_ps());
        let full = _mm256_and_ps(_mm256_div_ps(one, _mm256_sqrt_ps(len2)), positive);
        inv = _mm256_blendv_ps(inv, full, lanes_of(exact));
    }
    for v in &mut v {
        *v = _mm256_mul_ps(*v, inv);
    }
    (v, outside)
}

/// Pairs (a0 b0 a1 b1 a2 b2 a3 b3), (a4 b4 … a7 b7) → a0…a7 and b0…b7: even and odd entries
/// per 128-bit half, then the 64-bit quarters in order.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn split_pairs(lo: __m256, hi: __m256) -> (__m256, __m256) {
    (
        in_order(_mm256_shuffle_ps::<0b10_00_10_00>(lo, hi)),
        in_order(_mm256_shuffle_ps::<0b11_01_11_01>(lo, hi)),
    )
}

/// `sin_poly` lane by lane, the same operations in the same order.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn sin_poly(x: __m256) -> __m256 {
    let [c3, c5, c7, c9, c11] = SIN_POLY;
    let x2 = _mm256_mul_ps(x, x);
    // c + x2 · inner
    let mut inner = _mm256_set1_ps(c11);
    for c in [c9, c7, c5, c3, 1.0] {
        inner = _mm256_add_ps(_mm256_set1_ps(c), _mm256_mul_ps(x2, inner));
    }
    _mm256_mul_ps(x, inner)
}

/// `sin_reduced` lane by lane, the same operations in the same order.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn sin_reduced(x: __m256) -> __m256 {
    let magic = _mm256_set1_ps(ROUND_MAGIC);
    let shifted = _mm256_add_ps(
        _mm256_mul_ps(x, _mm256_set1_ps(std::f32::consts::FRAC_1_PI)),
        magic,
    );
    let k = _mm256_sub_ps(shifted, magic);
    let r = _mm256_sub_ps(
        _mm256_sub_ps(x, _mm256_mul_ps(k, _mm256_set1_ps(PI_HI))),
        _mm256_mul_ps(k, _mm256_set1_ps(PI_LO)),
    );
    // The sign of odd multiples: the last bit of `shifted`, moved to the sign.
    let sign = _mm256_slli_epi32::<31>(_mm256_castps_si256(shifted));
    _mm256_xor_ps(sin_poly(r), _mm256_castsi256_ps(sign))
}

/// The 64-bit quarters of `x` in the order 0, 2, 1, 3.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn in_order(x: __m256) -> __m256 {
    _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(x)))
}

/// All ones in the lanes `j` with bit `j` of `mask`, zeros elsewhere.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
unsafe fn lanes_of(mask: u32) -> __m256 {
    let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    let mask = _mm256_and_si256(_mm256_set1_epi32(mask as i32), bits);
    _mm256_castsi256_ps(_mm256_cmpeq_epi32(mask, bits))
}
