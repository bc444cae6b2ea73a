//! The world's side of the GPU executor (feature `gpu`): attaching a context, choosing the
//! executor, running the GPU executor (with its fallback to the CPU on failure), filling GPU
//! targets.

use super::{Executor, MotionWorld};
use crate::exec::gpu::executor::{FrameInput, GpuExecutor};
use crate::exec::gpu::{GpuContext, GpuError, GpuUpdateStats, ReadbackMode};

/// What a world reports of its GPU side, from [`MotionWorld::gpu`]: the context, the
/// readback mode and per-update counters. Without a context each reads as "none".
#[derive(Clone, Copy)]
pub struct WorldGpu<'a> {
    world: &'a MotionWorld,
}

/// A world's GPU settings, from [`MotionWorld::gpu_mut`]: the readback mode and pass timing.
/// Without a context, setting them does nothing.
pub struct WorldGpuMut<'a> {
    world: &'a mut MotionWorld,
}

impl<'a> WorldGpu<'a> {
    fn executor(self) -> Option<&'a GpuExecutor> {
        self.world.gpu.as_deref()
    }

    /// The attached GPU context, if any.
    #[must_use]
    pub fn context(self) -> Option<&'a GpuContext> {
        self.world.gpu.as_deref().map(GpuExecutor::context)
    }

    /// The readback mode of the GPU executor (the default when none is attached).
    #[must_use]
    pub fn readback_mode(self) -> ReadbackMode {
        self.executor()
            .map_or(ReadbackMode::default(), GpuExecutor::readback_mode)
    }

    /// What the GPU side of the last update recorded (submissions, dispatches, rows uploaded
    /// and moved, bytes written, values read back), or `None` without a device. Counted under
    /// either executor: with the CPU executor it is the filling of GPU targets.
    ///
    /// ```
    /// use wgpu_tween::gpu::GpuContext;
    /// use wgpu_tween::{Executor, Motion, MotionWorld};
    ///
    /// // wgpu's noop device accepts every command and runs none.
    /// let (device, queue) = wgpu::Device::noop(&Default::default());
    /// let info = device.adapter_info();
    /// let mut world = MotionWorld::with_gpu(GpuContext::from_device(device, queue, info))?;
    /// world.set_executor(Executor::Gpu)?;
    /// Motion::new(0.0f32, 1.0, 2.0).run(&mut world)?;
    /// world.update(0.1)?;
    /// let stats = world.gpu().update_stats().expect("a device is attached");
    /// assert_eq!((stats.submissions, stats.evaluate_dispatches), (1, 1));
    /// assert_eq!(stats.uploaded_rows, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn update_stats(self) -> Option<GpuUpdateStats> {
        let gpu = self.executor()?;
        Some(gpu.stats().plus(self.world.targets.stats()))
    }

    /// Row capacity of the GPU table (0 without one); for tests and diagnostics.
    #[doc(hidden)]
    #[must_use]
    pub fn capacity(self) -> u32 {
        self.executor().map_or(0, GpuExecutor::capacity)
    }

    /// Keys the GPU executor's key buffer holds (0 without one); for tests and diagnostics.
    #[doc(hidden)]
    #[must_use]
    pub fn curve_key_capacity(self) -> u32 {
        self.executor().map_or(0, |g| g.curve_key_capacity())
    }
}

impl WorldGpuMut<'_> {
    /// How bound values come back from the GPU executor (default blocking).
    pub fn set_readback_mode(self, mode: ReadbackMode) {
        if let Some(gpu) = self.world.gpu.as_deref_mut() {
            gpu.set_readback_mode(mode);
        }
    }

    /// Starts (or stops) timing the GPU executor's evaluate pass with timestamp queries, read
    /// with [`pass_time`](Self::pass_time). Off by default: a timed update resolves two
    /// queries and maps a small buffer. Returns whether passes are timed: false without a
    /// GPU context or when its device lacks [`wgpu::Features::TIMESTAMP_QUERY`] (a context
    /// from [`GpuContext::new`] requests it where the adapter offers it).
    pub fn set_pass_timing(self, on: bool) -> bool {
        self.world
            .gpu
            .as_deref_mut()
            .is_some_and(|gpu| gpu.set_pass_timing(on))
    }

    /// GPU time of a recent evaluate pass of the GPU executor, while
    /// [`set_pass_timing`](Self::set_pass_timing) is on: `None` otherwise, or before the
    /// first measurement has come back. Measurements never block an update: a pass is timed
    /// when the previous result has been collected, so the value can be an update or two
    /// old.
    pub fn pass_time(self) -> Option<std::time::Duration> {
        self.world
            .gpu
            .as_deref_mut()
            .and_then(GpuExecutor::pass_time)
    }

    /// Caps the GPU executor's workgroups per dispatch axis below the device's limit, so
    /// tests can exercise the two-dimensional fold of large dispatches with small worlds.
    #[doc(hidden)]
    pub fn set_max_workgroups_per_axis(self, groups: u32) {
        if let Some(gpu) = self.world.gpu.as_deref_mut() {
            gpu.set_max_workgroups_per_axis(groups);
        }
    }
}

impl MotionWorld {
    /// An empty world that evaluates on the GPU of `ctx` (by [`Executor::Auto`]'s rule: a
    /// software adapter still gets the CPU executor; see [`set_executor`](Self::set_executor)).
    pub fn with_gpu(ctx: GpuContext) -> Result<Self, GpuError> {
        let mut world = Self::new();
        world.attach_gpu(ctx)?;
        Ok(world)
    }

    /// Attaches a GPU context (building its pipelines) and chooses the executor by
    /// [`Executor::Auto`].
    ///
    /// Fails with [`GpuError::LiveTargets`] while motions have GPU targets (their buffers
    /// belong to the attached device), leaving the world as it was. Otherwise the GPU
    /// targets registered for the old device are dropped (their ids name nothing); host
    /// targets stay.
    pub fn attach_gpu(&mut self, ctx: GpuContext) -> Result<(), GpuError> {
        if !self.targets.is_empty() {
            return Err(GpuError::LiveTargets {
                targets: self.targets.len(),
            });
        }
        let gpu = GpuExecutor::new(ctx)?;
        // End values still queued for the old device's buffers go out on it first (should
        // that fail, only they are lost).
        let _ = self.fill_targets_from_cpu();
        self.drop_gpu_targets();
        self.gpu = Some(Box::new(gpu));
        self.set_executor(Executor::Auto)
    }

    /// Chooses the executor. [`Executor::Gpu`] without an attached context is an error
    /// ([`GpuError::NoContext`]); the world stays on the CPU.
    pub fn set_executor(&mut self, executor: Executor) -> Result<(), GpuError> {
        let use_gpu = match executor {
            Executor::Cpu => false,
            Executor::Gpu => {
                if self.gpu.is_none() {
                    return Err(GpuError::NoContext);
                }
                true
            }
            Executor::Auto => self
                .gpu
                .as_ref()
                .is_some_and(|g| !g.context().is_software()),
        };
        let why = match (executor, self.gpu.as_deref()) {
            (Executor::Auto, None) => "Auto, no GPU context attached",
            (Executor::Auto, Some(_)) if use_gpu => "Auto, a real GPU",
            (Executor::Auto, Some(_)) => "Auto, a software adapter: the CPU executor is faster",
            _ => "chosen by set_executor",
        };
        let adapter = self
            .gpu
            .as_deref()
            .map(|g| &g.context().adapter_info().name);
        diag!(
            info,
            "{} executor ({why}); adapter: {adapter:?}",
            if use_gpu { "GPU" } else { "CPU" }
        );
        self.use_gpu = use_gpu;
        self.table.rows.keep_gpu_journal(use_gpu);
        Ok(())
    }

    /// A GPU failure since the last call, after which the world moved to the CPU executor
    /// with every motion kept, or [`GpuError::TargetsLost`]: target buffers the device no
    /// longer accepts, whose motions lost their targets (the world kept its executor and
    /// every other target). Reported once.
    pub fn take_gpu_error(&mut self) -> Option<GpuError> {
        self.gpu_error.take()
    }

    /// What the world reports of its GPU side: the context, the readback mode and
    /// per-update counters (see [`WorldGpu`]).
    #[must_use]
    pub fn gpu(&self) -> WorldGpu<'_> {
        WorldGpu { world: self }
    }

    /// The world's GPU settings: the readback mode and pass timing (see [`WorldGpuMut`]).
    pub fn gpu_mut(&mut self) -> WorldGpuMut<'_> {
        WorldGpuMut { world: self }
    }

    /// Starts the GPU counters of a new update. A world with no rows evaluates nothing, so
    /// the final values its motions left for their targets are scattered here.
    pub(super) fn begin_gpu_update(&mut self) {
        if let Some(gpu) = self.gpu.as_deref_mut() {
            gpu.begin_update();
        }
        self.targets.reset_stats();
        if self.table.len() == 0 && !self.targets.is_idle() {
            let mut result = self.fill_targets_from_cpu();
            if result.is_err() && self.drop_unusable_targets() {
                result = self.fill_targets_from_cpu();
            }
            if let Err(error) = result {
                self.lose_gpu(error);
            }
        }
    }

    /// Evaluates every row with the active executor. A GPU failure moves the world to the
    /// CPU executor for good (the rows are the whole truth) and is kept for
    /// [`take_gpu_error`](Self::take_gpu_error), unless it was caused by target buffers the
    /// device no longer accepts: then only their motions lose their targets, and the update
    /// is evaluated again on a new GPU executor (the failed submission's changes are lost).
    pub(super) fn evaluate_rows(&mut self) {
        if self.use_gpu {
            match self.evaluate_on_gpu_or_retry(false) {
                Ok(()) => return self.gpu_values_delivered(),
                Err(error) => self.lose_gpu(error),
            }
        }
        self.evaluate_rows_on_cpu_and_targets();
    }

    /// [`evaluate_rows`](Self::evaluate_rows) for `update_async`: in blocking mode, this
    /// update's readback is awaited, not waited for (the web cannot wait).
    pub(super) async fn evaluate_rows_async(&mut self) {
        if self.use_gpu {
            let mut result = self.evaluate_on_gpu_or_retry(true);
            if result.is_ok() {
                if let Some(mapped) = self
                    .gpu
                    .as_deref()
                    .and_then(GpuExecutor::this_update_mapped)
                {
                    mapped.await;
                }
                result = self.deliver_awaited();
            }
            match result {
                Ok(()) => return self.gpu_values_delivered(),
                Err(error) => self.lose_gpu(error),
            }
        }
        self.evaluate_rows_on_cpu_and_targets();
    }

    /// The update's GPU evaluation; after a failure caused by target buffers the device no
    /// longer accepts, their motions lose their targets and it runs again on a new executor.
    fn evaluate_on_gpu_or_retry(&mut self, awaited: bool) -> Result<(), GpuError> {
        let result = self.evaluate_on_gpu(awaited);
        if result.is_err() && self.drop_unusable_targets() {
            return self
                .restart_gpu()
                .and_then(|()| self.evaluate_on_gpu(awaited));
        }
        result
    }

    /// The readback brought the host-targeted motions' values into the outputs.
    fn gpu_values_delivered(&mut self) {
        self.host_targets.fill(&self.table.rows.outputs);
    }

    /// The CPU executor's evaluation; with a device attached, targets are filled under the
    /// CPU executor too.
    fn evaluate_rows_on_cpu_and_targets(&mut self) {
        self.evaluate_rows_on_cpu();
        let mut result = self.fill_targets_from_cpu();
        if result.is_err() && self.drop_unusable_targets() {
            result = self.fill_targets_from_cpu();
        }
        if let Err(error) = result {
            self.lose_gpu(error);
        }
    }

    /// This update's awaited readback into the outputs (`evaluate_rows_async`).
    fn deliver_awaited(&mut self) -> Result<(), GpuError> {
        let Some(gpu) = self.gpu.as_deref_mut() else {
            return Err(GpuError::NoContext);
        };
        let slots = &self.table.slots;
        gpu.deliver_awaited(&mut self.table.rows, |s, v| slots.get(s, v).map(|x| x.row))
    }

    /// One GPU evaluation of the update (its readback left to be awaited when `awaited`).
    fn evaluate_on_gpu(&mut self, awaited: bool) -> Result<(), GpuError> {
        let len = self.table.len() as u32;
        let sequence_depth = if self.gpu.as_deref().is_some_and(|gpu| gpu.may_page(len)) {
            self.sequence_depth()
        } else {
            0
        };
        let Some(gpu) = self.gpu.as_deref_mut() else {
            return Err(GpuError::NoContext);
        };
        self.bound_rows.clear();
        self.bound_motions.clear();
        let (slot_of, slots) = (self.table.rows.slot_of(), &self.table.slots);
        for entry in self.bound.iter() {
            for row in entry.live_rows() {
                let slot = slot_of[row as usize];
                self.bound_rows.push(row);
                self.bound_motions
                    .push([slot, slots[slot as usize].version]);
            }
        }
        // Host targets are filled from the readback too.
        for (row, slot) in self.host_targets.motions() {
            self.bound_rows.push(row);
            self.bound_motions
                .push([slot, self.table.slots[slot as usize].version]);
        }
        let input = FrameInput {
            now: self.clocks.table(),
            bound_rows: &self.bound_rows,
            bound_motions: &self.bound_motions,
            sequence_depth,
        };
        let slots = &self.table.slots;
        gpu.evaluate(
            &mut self.table.rows,
            &input,
            &mut self.targets,
            |s, v| slots.get(s, v).map(|x| x.row),
            awaited,
        )
    }

    /// Writes the CPU executor's values of targeted motions into their buffers.
    fn fill_targets_from_cpu(&mut self) -> Result<(), GpuError> {
        match self.gpu.as_deref_mut() {
            Some(gpu) => gpu.fill_targets(&mut self.targets, &self.table.rows),
            None => Ok(()),
        }
    }

    /// After a failed GPU call: finds the target buffers the device no longer accepts and
    /// drops their targets, reporting their motions ([`GpuError::TargetsLost`]). Returns
    /// whether there were any (else the failure was not theirs).
    fn drop_unusable_targets(&mut self) -> bool {
        let Some(gpu) = self.gpu.as_deref() else {
            return false;
        };
        if self.targets.is_empty() || gpu.context().is_lost() {
            return false;
        }
        let bad = self.targets.unusable_groups(gpu.context(), gpu.pipelines());
        if bad.is_empty() {
            return false;
        }
        let mut motions = match self.gpu_error.take() {
            Some(GpuError::TargetsLost { motions }) => motions,
            _ => Vec::new(),
        };
        for g in bad {
            for slot in self.targets.remove_group(g).unwrap_or_default() {
                self.table.meta[slot as usize].target = None;
                motions.push(self.handle_of(slot));
            }
        }
        diag!(
            warn,
            "{} motions lost their GPU targets: the device no longer accepts their buffers",
            motions.len()
        );
        self.gpu_error = Some(GpuError::TargetsLost { motions });
        true
    }

    /// Replaces the GPU executor by a new one on the same context, which uploads every row
    /// again.
    fn restart_gpu(&mut self) -> Result<(), GpuError> {
        let Some(old) = self.gpu.as_deref() else {
            return Ok(());
        };
        let new = old.restarted()?;
        self.gpu = Some(Box::new(new));
        self.table.rows.keep_gpu_journal(false);
        self.table.rows.keep_gpu_journal(true);
        self.targets.forget_bind_groups();
        Ok(())
    }

    /// After a GPU failure: the CPU executor for good (the rows are the whole truth), the
    /// error kept for [`take_gpu_error`](Self::take_gpu_error), targets dropped.
    pub(super) fn lose_gpu(&mut self, error: GpuError) {
        diag!(warn, "GPU executor failed ({error}): the world goes on on the CPU executor, every motion kept");
        self.gpu_error = Some(error);
        self.gpu = None;
        self.use_gpu = false;
        self.table.rows.keep_gpu_journal(false);
        self.drop_gpu_targets();
    }

    /// Whether the GPU executor evaluated the last update.
    pub(super) fn on_gpu(&self) -> bool {
        self.use_gpu
    }

    /// Whether bound values arrive an update late (GPU executor, pipelined readback, or any
    /// synchronous update on the web).
    pub(super) fn values_are_late(&self) -> bool {
        self.use_gpu
            && self
                .gpu
                .as_deref()
                .is_some_and(GpuExecutor::values_are_late)
    }
}
