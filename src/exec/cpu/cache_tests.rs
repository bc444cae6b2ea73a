//! Tests of the segment cache against the reference (a file of their own: `cache.rs` is long).

use super::*;
use crate::core::row::pack_flags;
use crate::core::settings::{DelayType, LoopType, TimeKind};
use crate::eval::adapters::row_value;
use crate::eval::clock::eased_with;
use bytemuck::Zeroable;

use crate::exec::cpu::test_rng::Rng;

/// Chunks of one ease, loop type and time kind each (the cache's case), with random
/// timing, evaluated over many updates: every value within the conformance tolerance of
/// the reference, and bit for bit on updates where every row takes the exact path.
#[test]
fn cached_values_follow_the_reference() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut now = [5.0, 3.0, 1.0];
    let mut rows = Vec::new();
    for chunk in 0..48 {
        let ease = rng.pick(&Ease::ALL);
        let lt = rng.pick(&LoopType::ALL);
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
            row.anchor(
                now[kind as usize],
                start_clock(&mut rng, burst, template_clock),
            );
            rows.push(row);
        }
    }
    let steps = [1.0 / 60.0, 1.0 / 144.0, 0.1, 0.0];
    follow_the_reference(&mut rows, &mut now, &mut rng, 3000, &steps, false);
}

/// Chunks of one to six runs of rows of one ease and loop type (the table's groups meeting
/// in a chunk: up to `GROUPS` runs take the cache, more the batch path), folding (forward
/// clocks, loops back to back, finite or not) and not, with delays of both types: within the
/// tolerance of the reference at every update, on both instruction sets.
#[test]
fn chunks_of_several_runs_follow_the_reference() {
    for avx2 in builds() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut now = [40.0, 3.0, 1.0];
        let mut rows = Vec::new();
        for chunk in 0..32 {
            let folding = chunk % 2 == 0;
            let runs = 1 + chunk % 6;
            let mut cuts: Vec<usize> = (0..runs - 1)
                .map(|_| 1 + (rng.next() % 63) as usize)
                .collect();
            cuts.sort_unstable();
            let mut config = (Ease::Linear, LoopType::Restart);
            for i in 0..CHUNK {
                if i == 0 || cuts.contains(&i) {
                    config = (rng.pick(&Ease::ALL), rng.pick(&LoopType::ALL));
                }
                let dt = rng.pick(&[DelayType::FirstLoop, DelayType::EveryLoop]);
                let mut row = MotionRow {
                    speed: rng.pick(&[1.0, 2.0, 0.5, 3.7]),
                    duration: rng.pick(&[0.25, 0.3, 1.0, 2.5, 0.05]),
                    delay: if folding && dt == DelayType::EveryLoop {
                        0.0
                    } else {
                        rng.pick(&[0.0, 0.1, 0.5])
                    },
                    loops: rng.pick(&[-1, 3, 7, 40]),
                    flags: pack_flags(config.0, config.1, dt, TimeKind::Scaled, 1, 0),
                    ..MotionRow::zeroed()
                };
                if !folding && i % 7 == 0 {
                    row.speed = -1.0;
                }
                row.anchor(now[0], rng.unit() * 4.0 - 1.0);
                rows.push(row);
            }
        }
        let steps = [1.0 / 60.0, 1.0 / 144.0, 0.1, 0.0];
        follow_the_reference(&mut rows, &mut now, &mut rng, 1500, &steps, avx2);
    }
}

/// Chunks whose rows loop for ever, forward and back to back (the chunks that fold whole
/// loops into one segment and re-base without the exact path), staggered and in
/// bursts, with short loops (hundreds of loop ends per row) over a long run (many re-bases),
/// every loop type, both delay types (a first-loop delay; an every-loop delay of 0), and
/// steps from 0 to more than a loop: within the tolerance of the reference at every update.
/// Chunks with one row that cannot derive (a negative or zero speed, an every-loop delay
/// longer than `MAX_GAP` loops) keep the exact path at loop ends, and are checked the same way; a row with finite loops
/// derives too (its folded segment ends with its last loop).
#[test]
fn derived_segments_follow_the_reference() {
    let mut rng = Rng(0x853c_49e6_748f_ea9b);
    let now = [12_345.6, 3.0, 777.7];
    let mut rows = Vec::new();
    let mut gapless = Vec::new();
    for chunk in 0..64 {
        let ease = rng.pick(&Ease::ALL);
        let lt = LoopType::ALL[chunk % 4];
        let kind = rng.pick(&[TimeKind::Scaled, TimeKind::Unscaled, TimeKind::Realtime]);
        let burst = chunk % 8 == 1;
        let poison = chunk % 8 == 7;
        let template_clock = rng.unit() * 10.0;
        for k in 0..CHUNK {
            let (dt, delay) = if rng.next().is_multiple_of(2) {
                (DelayType::EveryLoop, 0.0)
            } else {
                (DelayType::FirstLoop, rng.pick(&[0.0, 0.1, 0.5]))
            };
            let mut row = MotionRow {
                speed: rng.pick(&[1.0, 2.0, 0.5, 3.7, 0.25]),
                duration: rng.pick(&[0.25, 0.3, 1.0, 2.5, 0.05]),
                delay,
                loops: -1,
                flags: pack_flags(ease, lt, dt, kind, 1 + (rng.next() % 4) as usize, 0),
                ..MotionRow::zeroed()
            };
            if burst {
                (row.speed, row.duration, row.delay) = (1.0, 0.3, 0.0);
            }
            if poison && k == 17 {
                match (chunk / 8) % 4 {
                    0 => row.speed = -1.0,
                    1 => row.speed = 0.0,
                    2 => {
                        row.flags = pack_flags(ease, lt, DelayType::EveryLoop, kind, 1, 0);
                        row.delay = 3.5 * row.duration;
                    }
                    _ => row.loops = 500,
                }
            }
            row.anchor(
                now[kind as usize],
                start_clock(&mut rng, burst, template_clock),
            );
            rows.push(row);
        }
        gapless.push(!poison || (chunk / 8) % 4 == 3);
    }
    let steps = [
        1.0 / 60.0,
        1.0 / 60.0,
        1.0 / 60.0,
        1.0 / 144.0,
        0.0,
        0.1,
        0.75,
    ];
    for with_avx2 in builds() {
        let (mut rows, mut now) = (rows.clone(), now);
        let cache = follow_the_reference(&mut rows, &mut now, &mut rng, 6000, &steps, with_avx2);
        for (index, &gapless) in gapless.iter().enumerate() {
            assert_eq!(cache.heads[index].derive, gapless, "chunk {index}");
        }
    }
}

/// Chunks that fold whole loops into the hot loop, each with one slope (the benchmark's case:
/// rows made with the same speed and duration, clocks staggered), every loop type, some with
/// a first-loop delay; the clocks on a lattice of 1/600 s, so that 60 fps steps land rows
/// exactly on loop boundaries (the margins' exact path) at many updates; over many loops and
/// re-bases, in both builds: within the tolerance of the reference at every update. After
/// the run, the rows hold folded segments (`hi` = +∞) and each chunk shares one `r` (Yoyo's
/// too, whose backward loops fold into `c`, see `segment::folded`).
#[test]
fn folded_chunks_follow_the_reference() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let now = [100.0, 0.0, 5_000.25];
    let circ = [Ease::InCirc, Ease::OutCirc, Ease::InOutCirc];
    let mut rows = Vec::new();
    for chunk in 0..40 {
        let ease = loop {
            let e = rng.pick(&Ease::ALL);
            if !circ.contains(&e) {
                break e;
            }
        };
        let lt = LoopType::ALL[chunk % 4];
        let kind = rng.pick(&[TimeKind::Scaled, TimeKind::Unscaled, TimeKind::Realtime]);
        let speed = rng.pick(&[1.0, 1.0, 0.5, 2.0, 3.7]);
        let duration = rng.pick(&[2.0, 0.5, 1.0, 0.3, 0.05]);
        let delay = if chunk % 5 == 4 { 0.4 } else { 0.0 };
        for k in 0..CHUNK {
            let mut row = MotionRow {
                speed,
                duration,
                delay,
                loops: -1,
                flags: pack_flags(
                    ease,
                    lt,
                    DelayType::FirstLoop,
                    kind,
                    1 + (rng.next() % 4) as usize,
                    0,
                ),
                ..MotionRow::zeroed()
            };
            let clock = ((k * 37 + chunk * 11) % 700) as f64 / 600.0 - 0.2;
            row.anchor(now[kind as usize], clock);
            rows.push(row);
        }
    }
    let steps = [1.0 / 60.0; 8]
        .into_iter()
        .chain([1.0 / 120.0, 0.0, 0.5])
        .collect::<Vec<_>>();
    for with_avx2 in builds() {
        let (mut rows, mut now) = (rows.clone(), now);
        let cache = follow_the_reference(&mut rows, &mut now, &mut rng, 4000, &steps, with_avx2);
        for (index, head) in cache.heads.iter().enumerate() {
            assert!(head.derive && head.state == State::Fast, "chunk {index}");
            let folded = cache.hi[index].0.iter().filter(|&&h| h == f32::INFINITY);
            assert!(folded.count() >= CHUNK - 4, "chunk {index}");
            assert!(head.same_r, "chunk {index}");
        }
    }
}

/// Chunks whose rows have every-loop delays (the benchmark's mix has one row in seven so),
/// of up to `MAX_GAP` loops, infinite and finite loops, every loop type, staggered on a
/// lattice of 1/600 s (rows land on loop and delay boundaries) and in bursts, over many
/// loops and re-bases, in both builds: within the tolerance of the reference at every
/// update, and every chunk folds them (`derive`, `every`).
#[test]
fn gapped_chunks_follow_the_reference() {
    let mut rng = Rng(0x6a09_e667_f3bc_c908);
    let now = [250.0, 0.0, 1_000.5];
    let mut rows = Vec::new();
    for chunk in 0..40 {
        let ease = rng.pick(&[
            Ease::OutQuad,
            Ease::InOutCubic,
            Ease::OutBack,
            Ease::OutSine,
        ]);
        let lt = LoopType::ALL[chunk % 4];
        let kind = rng.pick(&[TimeKind::Scaled, TimeKind::Unscaled, TimeKind::Realtime]);
        let speed = rng.pick(&[1.0, 1.0, 0.5, 2.0, 3.7]);
        let duration = rng.pick(&[2.0, 0.5, 1.0, 0.3]);
        let burst = chunk % 8 == 3;
        for k in 0..CHUNK {
            let delay = rng.pick(&[0.1, 0.25, 0.0, MAX_GAP * duration]);
            let mut row = MotionRow {
                speed,
                duration,
                delay,
                loops: rng.pick(&[-1, -1, 1000, 9]),
                flags: pack_flags(ease, lt, DelayType::EveryLoop, kind, 1, 0),
                ..MotionRow::zeroed()
            };
            if burst {
                (row.delay, row.loops) = (0.1, -1);
            }
            let clock = if burst {
                0.5
            } else {
                ((k * 37 + chunk * 11) % 700) as f64 / 600.0 - 0.2
            };
            row.anchor(now[kind as usize], clock);
            rows.push(row);
        }
    }
    let steps = [1.0 / 60.0, 1.0 / 60.0, 1.0 / 60.0, 1.0 / 144.0, 0.0, 0.5];
    for with_avx2 in builds() {
        let (mut rows, mut now) = (rows.clone(), now);
        let cache = follow_the_reference(&mut rows, &mut now, &mut rng, 3000, &steps, with_avx2);
        let folding = |h: &Head| h.derive && h.every && h.state == State::Fast;
        assert!(cache.heads.iter().all(folding), "AVX2 {with_avx2}");
    }
}

/// Chunks of parametric eases (Back, Elastic, cubic-bezier in every mode, parameters varying
/// row by row), alone and as runs beside a standard ease, every loop type, folding (forward
/// clocks) and not, delays of both types: within the tolerance of the reference at every
/// update, on both instruction sets; the chunks whose eases are at most `MAX_STEEPNESS` steep
/// take the cache, the others (and Steps) the batch path, which follows the reference too.
#[test]
fn parametric_chunks_follow_the_reference() {
    use crate::core::ease::{EaseMode, ParametricEase};
    let modes = [EaseMode::In, EaseMode::Out, EaseMode::InOut];
    // Mild parameters, or (`steep`) ones beyond `MAX_STEEPNESS`.
    let ease_of = |rng: &mut Rng, family: usize, mode: EaseMode, steep: bool| match family {
        0 => ParametricEase::Back {
            mode,
            overshoot: if steep {
                40.0
            } else {
                rng.pick(&[1.70158, 0.5, 3.0, -1.0])
            },
        },
        1 => ParametricEase::Elastic {
            mode,
            amplitude: rng.pick(&[1.0, 1.5, 0.5]),
            period: if steep {
                0.05
            } else {
                rng.pick(&[0.3, 0.45, 1.0])
            },
        },
        2 if steep => ParametricEase::CubicBezier(0.0, 1.0, 1.0, 0.0),
        2 => ParametricEase::CubicBezier(
            rng.pick(&[0.25, 0.42, 0.1]),
            rng.pick(&[0.1, 0.0, -0.5]),
            rng.pick(&[0.25, 0.58, 0.9]),
            rng.pick(&[1.0, 1.4]),
        ),
        _ => ParametricEase::Steps(rng.pick(&[1, 4, 10])),
    };
    for avx2 in builds() {
        let mut rng = Rng(0x6a09_e667_f3bc_c908);
        let mut now = [20.0, 3.0, 1.0];
        let (mut rows, mut params, mut served) = (Vec::new(), Vec::new(), Vec::new());
        for chunk in 0..48 {
            let folding = chunk % 2 == 0;
            let family = (chunk / 2) % 4;
            let lt = LoopType::ALL[(chunk / 8) % 4];
            // Every third chunk: a run of a standard ease, then the parametric run.
            let cut = if chunk % 3 == 0 { 20 } else { 0 };
            // One family and mode per chunk (one run), parameters row by row.
            let mode = modes[(chunk / 2) % 3];
            let mut steep = false;
            for i in 0..CHUNK {
                let (id, p) = if i < cut {
                    (Ease::OutQuad as u32, [0.0; 4])
                } else {
                    let poison = chunk % 5 == 4 && i == 33;
                    let ease = ease_of(&mut rng, family, mode, poison);
                    let (id, p) = ease.encode().expect("valid parameters");
                    let bound = classify::steepness(id, p);
                    steep |= bound.is_nan() || bound > classify::MAX_STEEPNESS;
                    (id, p)
                };
                let dt = rng.pick(&[DelayType::FirstLoop, DelayType::EveryLoop]);
                let mut row = MotionRow {
                    speed: rng.pick(&[1.0, 2.0, 0.5, 3.7]),
                    duration: rng.pick(&[0.25, 0.3, 1.0, 2.5]),
                    delay: rng.pick(&[0.0, 0.1, 0.5]),
                    loops: rng.pick(&[-1, 3, 7, 40]),
                    flags: pack_flags(Ease::Linear, lt, dt, TimeKind::Scaled, 1, 0),
                    ..MotionRow::zeroed()
                };
                row.flags = (row.flags & !0xff) | id;
                if !folding && i % 7 == 0 {
                    row.speed = -1.0;
                }
                row.anchor(now[0], rng.unit() * 4.0 - 1.0);
                rows.push(row);
                params.push(p);
            }
            served.push(family < 3 && !steep);
        }
        let steps = [1.0 / 60.0, 1.0 / 144.0, 0.1, 0.0];
        let cache = follow_with_params(&mut rows, &params, &mut now, &mut rng, 1200, &steps, avx2);
        for (index, head) in cache.heads.iter().enumerate() {
            let fast = head.state == State::Fast;
            assert_eq!(fast, served[index], "chunk {index}");
        }
    }
}

/// A row's clock at the start of a test: the chunk's shared one in a burst, else its own in
/// `[-1, 9)`.
fn start_clock(rng: &mut Rng, burst: bool, template: f64) -> f64 {
    if burst {
        template
    } else {
        rng.unit() * 10.0 - 1.0
    }
}

/// The builds to check: the baseline, and AVX2 as the executor runs it where it can (the
/// baseline twice elsewhere).
fn builds() -> [bool; 2] {
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    [false, avx2]
}

/// [`evaluate_chunk`] compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn evaluate_chunk_avx2(
    chunk: Chunk<'_>,
    index: usize,
    rows: &[MotionRow],
    columns: Columns<'_>,
    now: &[f64; 3],
    scratch: &mut Scratch,
) {
    evaluate_chunk::<true>(chunk, index, rows, columns, now, scratch);
}

/// Evaluates `rows` (whole chunks) through the cache for `frames` updates of world clocks
/// `now`, each advanced by a step picked from `steps`, re-anchoring a random row now and then
/// (as `set_time` does), and checks every output lane of every row after every update against
/// the reference (`progress` and `row_value`): within the conformance tolerance, and bit for
/// bit on the first update (where every row takes the exact path). With `avx2` the chunks
/// go through the AVX2 build of [`evaluate_chunk`] (the caller checks the CPU has it).
fn follow_the_reference(
    rows: &mut [MotionRow],
    now: &mut [f64; 3],
    rng: &mut Rng,
    frames: usize,
    steps: &[f64],
    avx2: bool,
) -> Cache {
    follow_with_params(rows, &[], now, rng, frames, steps, avx2)
}

/// [`follow_the_reference`] with row `i`'s parameter lanes `params[i]` (zeros where `params`
/// is shorter), the reference easing parametric rows by them (`eased_with`).
fn follow_with_params(
    rows: &mut [MotionRow],
    params: &[[f32; 4]],
    now: &mut [f64; 3],
    rng: &mut Rng,
    frames: usize,
    steps: &[f64],
    avx2: bool,
) -> Cache {
    let param = |i: usize| params.get(i).copied().unwrap_or([0.0; 4]);
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
                .enumerate()
                .map(|(i, p)| match k {
                    0..=3 => p[k],
                    4 => [param(i)[0], param(i)[1]],
                    _ => [param(i)[2], param(i)[3]],
                })
                .collect()
        })
        .collect();
    let mut cache = Cache::default();
    cache.resize(rows.len().div_ceil(CHUNK));
    let mut outs = vec![vec![0.0f32; rows.len()]; 4];
    // One scratch for every chunk, as the executor's pass has.
    let mut scratch = Scratch::default();
    for frame in 0..frames {
        let step = rng.pick(steps);
        for w in now.iter_mut() {
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
            let columns = Columns {
                lanes: [0, 1, 2, 3, 4, 5].map(|k| &columns[k][start..end]),
                outputs: [
                    &mut o0[start..end],
                    &mut o1[start..end],
                    &mut o2[start..end],
                    &mut o3[start..end],
                ],
                keys: &[],
            };
            let rows = &rows[start..end];
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the caller checked for AVX2.
                unsafe { evaluate_chunk_avx2(chunk, index, rows, columns, now, &mut scratch) };
                continue;
            }
            assert!(!avx2);
            evaluate_chunk::<false>(chunk, index, rows, columns, now, &mut scratch);
        }
        for (i, row) in rows.iter().enumerate() {
            let kind = row.time_kind() as usize;
            let p = eased_with(row, &progress(row, row.clock(now[kind])), param(i), &[]);
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
    cache
}
