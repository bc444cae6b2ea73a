//! Churn soak (issue 7, item 5; docs/design.md invariants 1 and 5): millions of create, cancel and
//! complete operations in a bounded window of live motions keep memory bounded and never
//! issue a `(slot, version)` pair twice.
//!
//! Versions of a slot only grow (invariant 1), so "never twice" is checked as: every handle
//! issued for a slot has a higher version than every earlier handle of that slot. That is
//! the same guarantee as a set of all pairs ever issued, in memory that follows the slot
//! count rather than the operation count, so the process's resident memory measures the
//! world alone. (A `HashSet` of all pairs checks the handles of the warm-up too, where it
//! does not disturb the measurement.)
//!
//! `cargo test --release --test churn -- --nocapture` runs the 10 million operations (about
//! 42 s on 2 cores) and prints the peak RSS; `CHURN_OPS=N` changes the count. The binary
//! holds this one test, so no other test shares the process's memory.

mod common;

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use common::Rng;
use wgpu_tween::{Ease, LoopType, Motion, MotionHandle, MotionWorld};

/// Most live motions at once.
const WINDOW: usize = 10_000;

/// `VmRSS` and `VmHWM` of this process, bytes (0 where /proc is unavailable).
fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Issued-pair bookkeeping.
struct Pairs {
    /// Highest version issued per slot.
    last: Vec<u32>,
    /// Every pair issued during the warm-up.
    set: HashSet<(u32, u32)>,
    issued: usize,
}

impl Pairs {
    fn issue(&mut self, h: MotionHandle, warming_up: bool) {
        let slot = h.slot() as usize;
        if slot >= self.last.len() {
            self.last.resize(slot + 1, 0);
        }
        assert!(
            h.version() > self.last[slot],
            "slot {slot} issued version {} after version {}",
            h.version(),
            self.last[slot]
        );
        self.last[slot] = h.version();
        if warming_up {
            assert!(
                self.set.insert((h.slot(), h.version())),
                "{h:?} issued twice"
            );
        }
        self.issued += 1;
    }
}

fn churn(operations: usize) {
    let start = Instant::now();
    let mut world = MotionWorld::new();
    let mut rng = Rng(0xc0ffee);
    let mut live: Vec<MotionHandle> = Vec::with_capacity(WINDOW);
    let warm_up = operations / 10;
    let mut pairs = Pairs {
        last: Vec::new(),
        set: HashSet::with_capacity(warm_up),
        issued: 0,
    };
    let completes = Arc::new(AtomicUsize::new(0));
    let (mut created, mut cancelled, mut completed, mut updates, mut clears) = (0, 0, 0, 0, 0);
    let mut next_clear = 1_500_000;
    let mut baseline = None;
    let mut peak_after = 0u64;
    let sample_every = (operations / 200).max(1);
    let mut last_sample = usize::MAX;
    let mut max_live = 0;

    let mut ops = 0;
    while ops < operations {
        // A handle of a live motion (dropping those that finished on their own).
        let pick = |live: &mut Vec<MotionHandle>, rng: &mut Rng, world: &MotionWorld| loop {
            if live.is_empty() {
                return None;
            }
            let k = rng.below(live.len());
            if world.is_active(live[k]) {
                return Some(live.swap_remove(k));
            }
            live.swap_remove(k);
        };
        // The window's load swings between full and a fifth every million operations, so
        // memory has to follow it down and back up (docs/design.md invariant 5).
        let target = if (ops / 1_000_000) % 2 == 0 {
            WINDOW
        } else {
            WINDOW / 5
        };
        let r = rng.below(100);
        let create = if world.len() < target {
            r < 60
        } else {
            r < 5 && world.len() < WINDOW
        };
        if create || live.is_empty() {
            let i = rng.next();
            let duration = 0.25 + (i % 16) as f32 * 0.25;
            let mut m = Motion::new(0.0f32, 1.0, duration)
                .ease(Ease::ALL[(i >> 8) as usize % Ease::ALL.len()])
                .loops(
                    if i & 0x30000 == 0 {
                        -1
                    } else {
                        1 + ((i >> 18) % 3) as i32
                    },
                    LoopType::Yoyo,
                );
            if i & 0x100000 != 0 {
                m = m.preserve();
            }
            let h = if i & 0xe00000 == 0 {
                // One in eight with callbacks (a boxed set per motion).
                let c = Arc::clone(&completes);
                m.on_complete(move || {
                    c.fetch_add(1, Ordering::Relaxed);
                })
                .bind(&mut world, |_| {})
            } else {
                m.run(&mut world)
            }
            .unwrap();
            pairs.issue(h, ops < warm_up);
            live.push(h);
            created += 1;
            ops += 1;
        } else if r < 80 {
            if let Some(h) = pick(&mut live, &mut rng, &world) {
                world.cancel(h).unwrap();
                cancelled += 1;
                ops += 1;
            }
        } else if r < 99 {
            if let Some(h) = pick(&mut live, &mut rng, &world) {
                if world.try_complete(h) {
                    completed += 1;
                    if world.is_active(h) {
                        live.push(h); // preserved: completed but still live
                    }
                } else {
                    world.cancel(h).unwrap(); // infinite loops, or already completed
                    cancelled += 1;
                }
                ops += 1;
            }
        } else {
            world.update(0.05 + rng.below(8) as f64 * 0.05).unwrap();
            updates += 1;
        }
        if ops >= next_clear {
            // Now and then everything goes at once (versions keep rising across a clear).
            world.clear();
            live.clear();
            clears += 1;
            next_clear += 3_000_000;
        }
        assert!(world.len() <= WINDOW, "window exceeded: {}", world.len());
        max_live = max_live.max(world.len());
        if ops % sample_every == 0 && ops != last_sample {
            last_sample = ops;
            let (now, _) = rss();
            if ops >= warm_up {
                let base = *baseline.get_or_insert(now);
                peak_after = peak_after.max(now);
                // Memory follows load: after warm-up, at most 32 MiB above the baseline
                // (the window is the same size all along).
                assert!(
                    now <= base + 32 * 1024 * 1024,
                    "RSS grew from {:.1} MiB to {:.1} MiB after {ops} operations",
                    mib(base),
                    mib(now)
                );
            }
        }
    }
    let (rss_end, hwm) = rss();
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "churn: {ops} operations ({created} created, {cancelled} cancelled, {completed} \
         completed; {updates} updates, {clears} clears, {} complete callbacks) in {elapsed:.1} s; \
         {} handles issued over {} slots, at most {max_live} live; RSS after warm-up {:.1} MiB, peak after warm-up \
         {:.1} MiB, at end {:.1} MiB, process high-water mark {:.1} MiB",
        completes.load(Ordering::Relaxed),
        pairs.issued,
        pairs.last.len(),
        mib(baseline.unwrap_or(0)),
        mib(peak_after),
        mib(rss_end),
        mib(hwm),
    );
    assert!(
        pairs.last.len() <= WINDOW + 64,
        "slots follow the window: {}",
        pairs.last.len()
    );
    world.clear();
    assert_eq!(world.len(), 0);
}

/// 10 million operations take about 42 s in release on the 2-core reference machine (under
/// the 60 s budget for a default test); `CHURN_OPS=1000000` runs a shorter soak.
#[test]
fn churn_ten_million_operations() {
    let operations = std::env::var("CHURN_OPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000);
    churn(operations);
}
