//! Counters of the GPU work of one update, kept as it is recorded.

/// What the GPU side of the last [`update`](crate::MotionWorld::update) recorded, from
/// [`WorldGpu::update_stats`](crate::WorldGpu::update_stats): for profiling
/// overlays, and to check the executor's promises (one evaluate dispatch per run of one
/// shape per page of the table, the general pipeline variant only for runs that need it,
/// nothing submitted by a world with no motions).
///
/// Counted as the commands are recorded, from the start of the update (settling the
/// commands queued before it included); the GPU's own timing is
/// [`WorldGpuMut::pass_time`](crate::WorldGpuMut::pass_time). Nothing is written outside an
/// update: the end value of a motion completed between updates is written, and counted, by
/// the next one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GpuUpdateStats {
    /// Command buffers submitted: one per update that evaluates on the GPU or fills GPU
    /// targets, none when there is nothing to evaluate.
    pub submissions: u32,
    /// Dispatches of the evaluate pass: per page of the table (a table of up to 2M rows is
    /// one page) one per run of rows of one shape (lerps of 1, 2, 3 and 4 lanes, the other
    /// interpolations) that holds rows, plus, on a paged table with sequences, one per page
    /// per nesting level.
    pub evaluate_dispatches: u32,
    /// Every compute dispatch: the evaluate pass, row changes (moves, then uploads), the
    /// gather of CPU-bound values and the scatter into GPU targets (with the end values of
    /// motions completed since the last update).
    pub dispatches: u32,
    /// Rows evaluated by the general pipeline variant, which runs every kind of row: the runs
    /// that hold a parametric ease, an animation curve or a sequence child (the others
    /// run code for their own shape only; 0 in a world of named eases without sequences).
    pub general_rows: u32,
    /// Rows uploaded (new or re-anchored motions).
    pub uploaded_rows: u32,
    /// Rows moved on the GPU (a removal fills its hole with another row).
    pub moved_rows: u32,
    /// Bytes handed to `Queue::write_buffer`: the frame header, row changes, curve keys and
    /// target values.
    pub bytes_written: u64,
    /// Values of CPU-bound motions copied back (each up to four lanes).
    pub read_back_values: u32,
}

impl GpuUpdateStats {
    /// The sum of two sets of counters.
    #[must_use]
    pub(crate) const fn plus(self, other: Self) -> Self {
        Self {
            submissions: self.submissions + other.submissions,
            evaluate_dispatches: self.evaluate_dispatches + other.evaluate_dispatches,
            dispatches: self.dispatches + other.dispatches,
            general_rows: self.general_rows + other.general_rows,
            uploaded_rows: self.uploaded_rows + other.uploaded_rows,
            moved_rows: self.moved_rows + other.moved_rows,
            bytes_written: self.bytes_written + other.bytes_written,
            read_back_values: self.read_back_values + other.read_back_values,
        }
    }

    /// Counts a `write_buffer` of `bytes` bytes.
    pub(crate) fn wrote(&mut self, bytes: usize) {
        self.bytes_written += bytes as u64;
    }
}
