//! Tests of the value pass: quaternion groups against an f64 slerp written from its
//! definition, and every row against the scalar mirror of the shader (`row_value`).

use super::*;
use crate::core::ease::Ease;
use crate::core::row::pack_flags;
use crate::core::settings::{DelayType, LoopType, TimeKind};
use crate::eval::adapters::{quat_angle, QUAT_MIN_ANGLE};
use crate::exec::cpu::test_rng::Rng;
use bytemuck::Zeroable;

fn unit(v: [f64; 4]) -> [f64; 4] {
    let len = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    v.map(|x| x / len)
}

fn random_quat(rng: &mut Rng) -> [f64; 4] {
    loop {
        let v = [0; 4].map(|_| rng.unit() * 2.0 - 1.0);
        if v.iter().map(|x| x * x).sum::<f64>() > 0.01 {
            return unit(v);
        }
    }
}

/// A pair `(from, to)` of unit quaternions as the builder stores them (`to` on the
/// shortest arc), of one of several kinds: unrelated, nearly equal, equal, opposite
/// (`to = −from`, the same rotation), and 4D-orthogonal (a half turn, θ = π/2).
fn quat_pair(rng: &mut Rng, kind: u64) -> ([f32; 4], [f32; 4]) {
    let a = random_quat(rng);
    let b = match kind {
        0 => random_quat(rng),
        1 => {
            let eps = [1e-3, 1e-5, 1e-7][(rng.next() % 3) as usize];
            unit([0, 1, 2, 3].map(|k| a[k] + (rng.unit() - 0.5) * eps))
        }
        2 => a,
        3 => a.map(|x| -x),
        _ => unit([-a[1], a[0], -a[3], a[2]]),
    };
    let (a, mut b) = (a.map(|x| x as f32), b.map(|x| x as f32));
    let dot: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    if dot < 0.0 {
        b = b.map(|x| -x);
    }
    (a, b)
}

/// Slerp (or nlerp) from the definition, in f64, normalized.
fn slerp_f64(a: [f32; 4], b: [f32; 4], p: f32, slerp: bool) -> [f64; 4] {
    let (a, b, p) = (a.map(f64::from), b.map(f64::from), f64::from(p));
    let (diff, sum) = (0..4).fold((0.0, 0.0), |(d, s), k| {
        (d + (a[k] - b[k]).powi(2), s + (a[k] + b[k]).powi(2))
    });
    let theta = 2.0 * diff.sqrt().atan2(sum.sqrt());
    let (wa, wb) = if slerp && theta.sin() > 1e-9 {
        (
            ((1.0 - p) * theta).sin() / theta.sin(),
            (p * theta).sin() / theta.sin(),
        )
    } else {
        (1.0 - p, p)
    };
    let r: [f64; 4] = [0, 1, 2, 3].map(|k| a[k] * wa + b[k] * wb);
    let len = r.iter().map(|x| x * x).sum::<f64>().sqrt();
    r.map(|x| x / len)
}

/// A chunk of `n` rows mixing lerp (one to four lanes), slerp, nlerp, punch and shake (or,
/// with `all_quat`, slerp and nlerp alone), with their lane pairs and progress; quaternion
/// rows get pairs of every kind and progress inside [0, 1], overshooting as Back and Elastic
/// do, further out (Incremental loops), and exactly 0 and 1.
fn chunk(
    rng: &mut Rng,
    n: usize,
    all_quat: bool,
) -> (Vec<MotionRow>, [Vec<[f32; 2]>; 4], Vec<f32>) {
    let mut rows = Vec::new();
    let mut pairs: [Vec<[f32; 2]>; 4] = Default::default();
    let mut ps = Vec::new();
    for _ in 0..n {
        let adapter = if all_quat {
            rng.pick(&[1, 1, 1, 2])
        } else {
            rng.pick(&[0, 1, 1, 1, 2, 2, 3, 4])
        };
        let lanes = match adapter {
            0 => 1 + (rng.next() % 4) as usize,
            1 | 2 => 4,
            _ => 1 + (rng.next() % 3) as usize,
        };
        let mut row = MotionRow {
            flags: pack_flags(
                Ease::OutQuad,
                LoopType::Restart,
                DelayType::FirstLoop,
                TimeKind::Scaled,
                lanes,
                adapter,
            ),
            ..MotionRow::zeroed()
        };
        row.anchor(1.5, 0.25);
        let mut row_pairs = [[0.0f32; 2]; 4];
        if adapter == 1 || adapter == 2 {
            let kind = rng.next() % 5;
            let (a, b) = quat_pair(rng, kind);
            for k in 0..4 {
                row_pairs[k] = [a[k], b[k]];
            }
            if adapter == 1 {
                row.params = quat_angle(a, b).to_bits();
            }
        } else {
            for pair in row_pairs.iter_mut().take(lanes) {
                *pair = [rng.unit() as f32 * 4.0 - 2.0, rng.unit() as f32 * 4.0 - 2.0];
            }
            if adapter >= 3 {
                row_pairs[3] = [7.0, 1.5];
                row.params = rng.next() as u32;
            }
        }
        let p = match rng.next() % 6 {
            0 => rng.unit() as f32,
            1 => rng.unit() as f32 * 1.2 - 0.1,
            2 => rng.unit() as f32 * 2.0 - 0.5,
            3 => rng.unit() as f32 * 3.5 - 1.0,
            4 => 0.0,
            _ => 1.0,
        };
        for (column, pair) in pairs.iter_mut().zip(row_pairs) {
            column.push(pair);
        }
        rows.push(row);
        ps.push(p);
    }
    (rows, pairs, ps)
}

#[test]
fn values_follow_slerp_and_the_scalar_mirror() {
    let mut rng = Rng(0x853c_49e6_748f_ea9b);
    let now = [2.0, 3.0, 4.0];
    let (mut grouped, mut scalar) = (0, 0);
    for round in 0..400 {
        let n = if round % 5 == 0 {
            1 + (rng.next() % 63) as usize
        } else {
            64
        };
        // Every third chunk all quaternions (no lerp pass, whole blocks stored).
        let (rows, pairs, p) = chunk(&mut rng, n, round % 3 == 0);
        // Outputs start as garbage: every lane must be written.
        let mut out: [Vec<f32>; 4] = Default::default();
        for column in &mut out {
            column.resize(n, f32::NAN);
        }
        {
            let [o0, o1, o2, o3] = &mut out;
            let adapters = AdapterMasks::of(&rows);
            let (mut theta, mut inv_sin) = (vec![f32::NAN; n], vec![f32::NAN; n]);
            QuatColumns::fill(&rows, adapters.quat, &mut theta, &mut inv_sin);
            values(
                &rows,
                [&pairs[0], &pairs[1], &pairs[2], &pairs[3]],
                [o0, o1, o2, o3],
                &p,
                QuatColumns {
                    theta: &theta,
                    inv_sin: &inv_sin,
                },
                4,
                adapters,
                &now,
            );
        }
        for (i, row) in rows.iter().enumerate() {
            let got = [0, 1, 2, 3].map(|k| out[k][i]);
            let row_pairs = [0, 1, 2, 3].map(|k| pairs[k][i]);
            let want = row_value(row, row_pairs, p[i], now[0]);
            assert_eq!(
                got.map(f32::to_bits),
                want.map(f32::to_bits),
                "row {i} of {n}: p = {}, {row:?}, {row_pairs:?}",
                p[i]
            );
            let adapter = row.adapter_bits();
            if adapter != 1 && adapter != 2 {
                continue;
            }
            let theta = f32::from_bits(row.params);
            let in_range = [(1.0 - p[i]) * theta, p[i] * theta]
                .iter()
                .all(|x| x.abs() <= SIN_POLY_MAX);
            if adapter == 2 || theta <= QUAT_MIN_ANGLE || in_range {
                grouped += 1;
            } else {
                scalar += 1;
            }
            let a = row_pairs.map(|pair| pair[0]);
            let b = row_pairs.map(|pair| pair[1]);
            let exact = slerp_f64(a, b, p[i], adapter == 1);
            for k in 0..4 {
                assert!(
                    (f64::from(got[k]) - exact[k]).abs() <= 1e-6,
                    "row {i} lane {k}: {got:?} vs {exact:?} (p = {}, θ = {theta})",
                    p[i]
                );
            }
            let len = got
                .iter()
                .map(|&x| f64::from(x).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!((len - 1.0).abs() <= 1e-6, "row {i}: |q| = {len}");
        }
    }
    // Both paths were exercised.
    assert!(
        grouped > 10_000 && scalar > 500,
        "{grouped} grouped, {scalar} scalar"
    );
}

/// A chunk of lerp rows (no adapter masks) writes its `lanes` lanes and leaves the others.
#[test]
fn lerp_only_chunks_write_their_lanes() {
    let rows = vec![MotionRow::zeroed(); 5];
    let pairs: Vec<[f32; 2]> = (0..5).map(|i| [i as f32, 10.0]).collect();
    let p = [0.0, 0.25, 0.5, 1.0, 1.5];
    let lerped = [0.0, 3.25, 6.0, 10.0, 13.0];
    for lanes in 1..=4 {
        let mut out = [[-1.0f32; 5]; 4];
        let [o0, o1, o2, o3] = &mut out;
        values(
            &rows,
            [&pairs, &pairs, &pairs, &pairs],
            [o0, o1, o2, o3],
            &p,
            QuatColumns {
                theta: &[0.0; 5],
                inv_sin: &[0.0; 5],
            },
            lanes,
            AdapterMasks::default(),
            &[0.0; 3],
        );
        for (k, column) in out.iter().enumerate() {
            let want = if k < lanes { lerped } else { [-1.0; 5] };
            assert_eq!(*column, want, "{lanes} lanes: lane {k}");
        }
    }
}

/// The AVX2 quaternion pass (where the CPU has it: [`quaternions`] dispatches) and the
/// portable one ([`quaternions_with`]) give the same bits, for chunks of quaternion rows
/// dense and sparse, full and short. (The AVX2 pass leaves a short last block to the scalar
/// path: `values` never gives it one.)
#[test]
fn quaternion_passes_agree() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for round in 0..300 {
        let n = if round % 4 == 0 {
            1 + (rng.next() % 63) as usize
        } else {
            64
        };
        let (rows, pairs, p) = chunk(&mut rng, n, round % 2 == 0);
        let adapters = AdapterMasks::of(&rows);
        let (mut theta, mut inv_sin) = (vec![0.0; n], vec![0.0; n]);
        QuatColumns::fill(&rows, adapters.quat, &mut theta, &mut inv_sin);
        let pairs = [&pairs[0][..], &pairs[1][..], &pairs[2][..], &pairs[3][..]];
        let run = |portable: bool| {
            let mut out: [Vec<f32>; 4] = Default::default();
            for column in &mut out {
                column.resize(n, -7.0);
            }
            let [o0, o1, o2, o3] = &mut out;
            let mut columns = [&mut o0[..], &mut o1[..], &mut o2[..], &mut o3[..]];
            let q = QuatRows {
                pairs,
                p: &p,
                constants: QuatColumns {
                    theta: &theta,
                    inv_sin: &inv_sin,
                },
                rows: adapters.quat,
                nlerp: adapters.nlerp,
            };
            let scalar = if portable {
                quaternions_with(q, &mut columns)
            } else {
                quaternions(q, &mut columns)
            };
            (out, scalar)
        };
        let ((fast, fast_scalar), (portable, portable_scalar)) = (run(false), run(true));
        // The rows of whole blocks.
        let whole = u64::MAX.checked_shr(64 - (n / 8 * 8) as u32).unwrap_or(0);
        assert_eq!(
            fast_scalar & whole,
            portable_scalar & whole,
            "round {round}"
        );
        let mut rows_left = adapters.quat & !(portable_scalar | fast_scalar);
        while rows_left != 0 {
            let i = rows_left.trailing_zeros() as usize;
            rows_left &= rows_left - 1;
            for k in 0..4 {
                assert_eq!(
                    fast[k][i].to_bits(),
                    portable[k][i].to_bits(),
                    "round {round}, row {i} lane {k}"
                );
            }
        }
    }
}
