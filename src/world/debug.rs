//! A debug view of the live motions, computed on demand: nothing is recorded per motion
//! (LitMotion's debugger allocates per creation and keeps finished motions forever, seed 002).

use std::fmt;

use super::{Executor, MotionWorld};
use crate::core::handle::MotionHandle;
use crate::core::settings::MotionStatus;
use crate::eval::progress;

/// One live motion in a [`DebugSnapshot`].
#[derive(Clone, Debug, PartialEq)]
pub struct DebugEntry {
    /// The motion.
    pub handle: MotionHandle,
    /// Its debug name (empty if none).
    pub debug_name: &'static str,
    /// Status now.
    pub status: MotionStatus,
    /// Motion clock now, seconds.
    pub time: f64,
    /// Completed loops.
    pub completed_loops: u32,
    /// Loop count (-1 infinite).
    pub loops: i32,
    /// Eased progress.
    pub progress: f32,
    /// Playback speed.
    pub playback_speed: f32,
    /// The executor evaluating it.
    pub executor: Executor,
}

/// The live motions of a world at one moment, in creation order. `Display` prints a table,
/// one line per motion: control characters of debug names (newlines, tabs, escape
/// sequences) are printed escaped (`\n`, `\u{1b}`), so a name cannot break or forge lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DebugSnapshot {
    /// One entry per live motion.
    pub entries: Vec<DebugEntry>,
}

impl MotionWorld {
    /// Lists every live motion (allocates the list; nothing is kept between calls).
    #[must_use]
    pub fn debug_snapshot(&self) -> DebugSnapshot {
        let executor = self.active_executor();
        let rows = &self.table.rows;
        // (Every row but the holes: `table/holes.rs`.)
        let mut entries: Vec<(u64, DebugEntry)> = (rows.owned())
            .map(|(index, slot)| {
                let row = &rows.rows[index as usize];
                let meta = &self.table.meta[slot as usize];
                let time = super::sequence::clock_at(rows, index, self.clocks.table());
                let p = progress(row, time);
                let fresh = meta.birth_update == self.updates && !meta.touched;
                let entry = DebugEntry {
                    handle: self.handle_of(slot),
                    debug_name: meta.debug_name,
                    status: if fresh {
                        MotionStatus::Scheduled
                    } else {
                        p.status
                    },
                    time,
                    completed_loops: p.completed_loops,
                    loops: row.loops,
                    progress: crate::eval::clock::eased_with(
                        row,
                        &p,
                        rows.params(index),
                        rows.curves.keys(),
                    ),
                    playback_speed: row.speed,
                    executor,
                };
                (meta.seq, entry)
            })
            .collect();
        entries.sort_unstable_by_key(|(seq, _)| *seq);
        DebugSnapshot {
            entries: entries.into_iter().map(|(_, e)| e).collect(),
        }
    }
}

impl fmt::Display for DebugSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<22} {:<16} {:<10} {:>10} {:>11} {:>9} {:>6} {:<4}",
            "handle", "name", "status", "time", "loops", "progress", "speed", "exec"
        )?;
        for e in &self.entries {
            let loops = if e.loops < 0 {
                format!("{}/inf", e.completed_loops)
            } else {
                format!("{}/{}", e.completed_loops, e.loops)
            };
            writeln!(
                f,
                "{:<22} {:<16} {:<10} {:>10.3} {:>11} {:>9.4} {:>6.2} {:<4}",
                format!("{:?}", e.handle),
                escape_controls(e.debug_name),
                format!("{:?}", e.status),
                e.time,
                loops,
                e.progress,
                e.playback_speed,
                match e.executor {
                    Executor::Gpu => "gpu",
                    _ => "cpu",
                }
            )?;
        }
        write!(f, "{} live motion(s)", self.entries.len())
    }
}

/// `name` with its control characters escaped (Rust's `\n`, `\t`, `\u{..}` forms).
fn escape_controls(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
