//! A roofline of the GPU evaluate pass, computed from the table on the CPU: what the pass
//! reads and writes per motion, how coherent its warps are and how many dispatches it makes,
//! so a world's GPU cost can be bounded without a GPU.

use std::time::Duration;

use super::MotionWorld;
use crate::table::rows::CLASSES;
use crate::table::shapes::{needs_general, path_key, row_traffic};

/// Rows per warp in [`EvaluateProfile::warps`]: NVIDIA's warp (AMD's wave is 32 or 64).
pub const WARP_ROWS: usize = 32;

/// The GPU evaluate pass over a world's table, from [`MotionWorld::evaluate_profile`].
///
/// Bytes count what each row's invocation reads (its 32-byte timing row, 8 bytes per lane
/// pair it reads, 16 bytes of parameter lanes for a parametric ease) and writes (4 bytes
/// per output lane); a GPU fetches memory in 32-byte sectors, so the row's bytes are all
/// counted even where a variant reads fewer of its fields. A sequence child's reads of its
/// ancestors' rows are not counted. A warp is [`WARP_ROWS`] consecutive rows of one
/// dispatch; it is coherent when all its rows take one path through the kernel (see
/// [`coherent_warps`](Self::coherent_warps)).
///
/// ```
/// use wgpu_tween::{Ease, LoopType, Motion, MotionWorld};
///
/// let mut world = MotionWorld::new();
/// for i in 0..1000 {
///     Motion::new(0.0f32, i as f32, 2.0).ease(Ease::OutQuad).loops(-1, LoopType::Restart)
///         .run(&mut world)?;
/// }
/// let profile = world.evaluate_profile();
/// // The 32-byte row, one lane pair (8 bytes) read, one f32 written.
/// assert_eq!((profile.bytes_read, profile.bytes_written), (40_000, 4_000));
/// assert_eq!((profile.dispatches, profile.coherence()), (1, 1.0));
/// // At the H100's 3.35 TB/s, a million such motions need at least 13 µs per update.
/// let bound = profile.bandwidth_bound(1_000_000, 3.35e12);
/// assert_eq!(bound.as_micros(), 13);
/// # Ok::<(), wgpu_tween::BuildError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EvaluateProfile {
    /// Rows the pass evaluates: the live motions (and, nested in sequences, their
    /// children).
    pub rows: u64,
    /// Bytes the pass reads.
    pub bytes_read: u64,
    /// Bytes the pass writes.
    pub bytes_written: u64,
    /// Dispatches of the pass on a table of one page: one per run of rows of one shape.
    pub dispatches: u32,
    /// Warps of the dispatches.
    pub warps: u64,
    /// Warps whose rows all take one path: the same interpolation, lane count, parametric
    /// ease kind and sequence membership (named eases, loop types and delays are computed
    /// without branches and do not split a warp).
    pub coherent_warps: u64,
    /// Rows in runs that the general pipeline variant evaluates (a run holding a parametric
    /// ease, an animation curve or a sequence child); the other runs' variants leave out
    /// the code of every shape but their own.
    pub general_rows: u64,
}

impl EvaluateProfile {
    /// Bytes read and written per row (0 for an empty world).
    #[must_use]
    pub fn bytes_per_motion(&self) -> f64 {
        if self.rows == 0 {
            return 0.0;
        }
        (self.bytes_read + self.bytes_written) as f64 / self.rows as f64
    }

    /// The share of warps that are coherent (1 for an empty world).
    #[must_use]
    pub fn coherence(&self) -> f64 {
        if self.warps == 0 {
            return 1.0;
        }
        self.coherent_warps as f64 / self.warps as f64
    }

    /// The least time one evaluate pass over `motions` motions of this world's mix can take
    /// on memory of `bytes_per_second` (an H100's HBM3: `3.35e12`; an H200's: `4.8e12`).
    #[must_use]
    pub fn bandwidth_bound(&self, motions: u64, bytes_per_second: f64) -> Duration {
        let seconds = self.bytes_per_motion() * motions as f64 / bytes_per_second;
        Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX)
    }
}

impl MotionWorld {
    /// The GPU evaluate pass over this world's table as it stands: bytes, warps and
    /// dispatches, computed on the CPU (one pass over the rows; nothing is kept). On any
    /// executor and without the `gpu` feature: it bounds what a GPU would take.
    #[must_use]
    pub fn evaluate_profile(&self) -> EvaluateProfile {
        let rows = &self.table.rows;
        let mut profile = EvaluateProfile::default();
        let mut start = 0usize;
        let mut run = Vec::new();
        for class in 0..CLASSES {
            let end = rows.class_end[class] as usize;
            // Holes are compacted away before an evaluation.
            run.clear();
            run.extend(
                (start..end)
                    .filter(|&i| !rows.is_hole(i))
                    .map(|i| rows.rows[i]),
            );
            start = end;
            if run.is_empty() {
                continue;
            }
            profile.dispatches += 1;
            profile.rows += run.len() as u64;
            for row in &run {
                let (read, written) = row_traffic(row);
                profile.bytes_read += read;
                profile.bytes_written += written;
            }
            for warp in run.chunks(WARP_ROWS) {
                profile.warps += 1;
                let path = path_key(&warp[0]);
                profile.coherent_warps += u64::from(warp.iter().all(|r| path_key(r) == path));
            }
            if run.iter().any(needs_general) {
                profile.general_rows += run.len() as u64;
            }
        }
        profile
    }
}
