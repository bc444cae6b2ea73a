//! Which executor evaluates a world, and the CPU executor's evaluation. The GPU side is
//! `gpu.rs` (feature `gpu`); without the feature the world is the CPU executor alone.

use super::MotionWorld;
#[cfg(not(feature = "gpu"))]
use crate::error::GpuError;

/// Which executor evaluates a world's motions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Executor {
    /// The GPU when a context is attached and its adapter is a real GPU; the CPU on a
    /// software adapter (lavapipe, where the CPU executor is faster) or without a context.
    #[default]
    Auto,
    /// The CPU executor.
    Cpu,
    /// The GPU executor (feature `gpu`; requires an attached GPU context,
    /// `MotionWorld::attach_gpu`).
    Gpu,
}

impl MotionWorld {
    /// The executor evaluating the motions now ([`Executor::Cpu`] or [`Executor::Gpu`]).
    #[must_use]
    pub fn active_executor(&self) -> Executor {
        if self.on_gpu() {
            Executor::Gpu
        } else {
            Executor::Cpu
        }
    }

    /// Evaluates every row with the CPU executor and fills the host arrays.
    pub(super) fn evaluate_rows_on_cpu(&mut self) {
        if self.sequences.is_empty() && !self.host_targets.is_empty() {
            // Host arrays filled as the pass goes, from outputs still in cache (sequence
            // children are evaluated after the pass, so not with sequences).
            let (targets, len) = (&mut self.host_targets, self.table.rows.len());
            let mut fill = |rows, outputs: [&[f32]; 4]| targets.fill_rows(rows, outputs, len);
            self.executor
                .evaluate(&mut self.table.rows, self.clocks.table(), Some(&mut fill));
        } else {
            self.executor
                .evaluate(&mut self.table.rows, self.clocks.table(), None);
            if !self.sequences.is_empty() {
                self.evaluate_children();
            }
            self.host_targets.fill(&self.table.rows.outputs);
        }
    }
}

/// A world without the GPU executor (feature `gpu` off): the same calls, on the CPU.
#[cfg(not(feature = "gpu"))]
impl MotionWorld {
    /// Chooses the executor. Built without the `gpu` feature, only the CPU executor exists:
    /// [`Executor::Auto`] and [`Executor::Cpu`] choose it, [`Executor::Gpu`] is
    /// [`GpuError::NoContext`].
    pub fn set_executor(&mut self, executor: Executor) -> Result<(), GpuError> {
        match executor {
            Executor::Gpu => Err(GpuError::NoContext),
            Executor::Auto | Executor::Cpu => Ok(()),
        }
    }

    pub(super) fn on_gpu(&self) -> bool {
        false
    }

    pub(super) fn values_are_late(&self) -> bool {
        false
    }

    pub(super) fn begin_gpu_update(&mut self) {}

    pub(super) fn evaluate_rows(&mut self) {
        self.evaluate_rows_on_cpu();
    }

    pub(super) async fn evaluate_rows_async(&mut self) {
        self.evaluate_rows_on_cpu();
    }
}
