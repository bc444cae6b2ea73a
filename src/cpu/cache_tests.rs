//! Tests of the segment cache against the reference (a file of their own: `cache.rs` is long).

use super::*;
use crate::row::pack_flags;
use crate::settings::{DelayType, LoopType, TimeKind};
use crate::value::row_value;
use bytemuck::Zeroable;

use crate::cpu::test_rng::Rng;

/// Chunks of one ease, loop type and time kind each (the cache's case), with random
/// timing, evaluated over many updates: every value within the conformance tolerance of
/// the reference, and bit for bit on updates where every row takes the exact path.
#[test]
fn cached_values_follow_the_reference() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let lts = [
        LoopType::Restart,
        LoopType::Flip,
        LoopType::Incremental,
        LoopType::Yoyo,
    ];
    let mut now = [5.0, 3.0, 1.0];
    let mut rows = Vec::new();
    for chunk in 0..48 {
        let ease = rng.pick(&Ease::ALL);
        let lt = rng.pick(&lts);
        let kind = rng.pick(&[TimeKind::Scaled, TimeKind::Unscaled, TimeKind::Realtime]);
        let dt = rng.pick(&[DelayType::FirstLoop, DelayType::EveryLoop]);
        let burst = chunk % 3 == 0;
        let template_clock = rng.unit() * 10.0;
        for _ in 0..CHUNK {
            let mut row = MotionRow {
                speed: rng.pick(&[1.0, 2.0, 0.5, 0.0, -1.0, 3.7]),
                duration: rng.pick(&[0.25, 0.3, 1.0, 2.5, 0.05]),
                delay: rng.pick(&[0.0, 0.0, 0.1, 0.5]),
                loops: rng.pick(&[-1, 1, 2, 3, 7]),
                flags: pack_flags(ease, lt, dt, kind, 1 + (rng.next() % 4) as usize, 0),
                ..MotionRow::zeroed()
            };
            if burst {
                row.speed = 1.0;
                row.duration = 1.0;
            }
            let clock = if burst {
                template_clock
            } else {
                rng.unit() * 10.0 - 1.0
            };
            row.anchor(now[kind as usize], clock);
            rows.push(row);
        }
    }
    let pairs: Vec<[[f32; 2]; 4]> = (0..rows.len())
        .map(|i| {
            let mut p = [[0.0; 2]; 4];
            for (k, pair) in p.iter_mut().enumerate().take(rows[i].lane_count()) {
                *pair = [i as f32 * 0.01 + k as f32, -(i as f32) * 0.5];
            }
            p
        })
        .collect();
    let columns: Vec<Vec<[f32; 2]>> = (0..6)
        .map(|k| {
            pairs
                .iter()
                .map(|p| if k < 4 { p[k] } else { [0.0; 2] })
                .collect()
        })
        .collect();
    let mut cache = Cache::default();
    cache.resize(rows.len().div_ceil(CHUNK));
    let mut outs = vec![vec![0.0f32; rows.len()]; 4];
    let mut p = [0.0; CHUNK];
    for frame in 0..3000 {
        let step = rng.pick(&[1.0 / 60.0, 1.0 / 144.0, 0.1, 0.0]);
        for w in &mut now {
            *w += step;
        }
        if frame % 500 == 250 {
            // A re-anchored row (as `set_time` does).
            let i = (rng.next() % rows.len() as u64) as usize;
            let kind = rows[i].time_kind() as usize;
            rows[i].anchor(now[kind], rng.unit() * 3.0);
            cache.invalidate_row(i);
        }
        let all_exact = frame == 0;
        let ptr = cache.ptr();
        for (index, start) in (0..rows.len()).step_by(CHUNK).enumerate() {
            let end = start + CHUNK;
            let [o0, o1, o2, o3] = &mut outs[..] else {
                unreachable!()
            };
            // SAFETY: in bounds; one chunk at a time.
            let chunk = unsafe { ptr.chunk(index) };
            evaluate_chunk(
                chunk,
                index,
                &rows[start..end],
                Columns {
                    lanes: [0, 1, 2, 3, 4, 5].map(|k| &columns[k][start..end]),
                    outputs: [
                        &mut o0[start..end],
                        &mut o1[start..end],
                        &mut o2[start..end],
                        &mut o3[start..end],
                    ],
                    keys: &[],
                },
                &now,
                &mut p,
            );
        }
        for (i, row) in rows.iter().enumerate() {
            let kind = row.time_kind() as usize;
            let p = progress(row, row.clock(now[kind])).eased;
            let want = row_value(row, pairs[i], p, now[kind]);
            for lane in 0..4 {
                let (got, want) = (outs[lane][i], want[lane]);
                let span = (pairs[i][lane][1] - pairs[i][lane][0]).abs().max(1.0);
                if all_exact {
                    assert_eq!(got.to_bits(), want.to_bits(), "frame {frame} row {i}");
                }
                // Plus a few ulps of the value: Incremental's p grows without bound,
                // and an f32 sum that large rounds on both paths.
                assert!(
                    (got - want).abs() <= 1e-4 * span + want.abs() * 1e-6,
                    "frame {frame} row {i} lane {lane}: {got} vs {want}, {row:?}"
                );
            }
        }
    }
}
