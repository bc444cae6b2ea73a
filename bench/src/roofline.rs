//! The roofline of the GPU evaluate pass, without a GPU: per workload, the bytes the pass
//! reads and writes per motion and the coherence of its warps (`MotionWorld::evaluate_profile`,
//! from the table on the CPU), the dispatches and uploaded bytes of a steady update (the GPU
//! executor recording on wgpu's `noop` device, which executes nothing), and from the bytes
//! the least time of one pass at a GPU's memory bandwidth.

use serde::Serialize;
use wgpu_tween::gpu::GpuContext;
use wgpu_tween::{Ease, EvaluateProfile, Executor, LoopType, Motion, MotionWorld};

use crate::workload;

/// Memory bandwidths the bound is computed for: (name, bytes per second).
pub const GPUS: [(&str, f64); 2] = [("H100", 3.35e12), ("H200", 4.8e12)];

/// Motion counts the bound is computed for.
pub const BOUND_MOTIONS: [u64; 2] = [1_000_000, 10_000_000];

/// Motions in the world a roofline is taken of (the per-motion figures do not depend on it
/// beyond the last partial warp of each run).
pub const PROFILE_MOTIONS: usize = 100_000;

/// The workloads: the benchmark's mix and the peer benchmark's all-f32 world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Workload {
    /// [`workload::populate`]: 40% f32, 20% each Vec3, Quat, Color, eight eases, delays.
    Mixed,
    /// N f32 motions, OutQuad, looping forever, clocks staggered (the peer benchmark's).
    AllF32,
}

impl Workload {
    /// Its name in tables.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Workload::Mixed => "mixed",
            Workload::AllF32 => "all-f32",
        }
    }

    /// Fills `world` with `n` motions of the workload.
    ///
    /// # Errors
    /// If a motion is refused (never, for these settings).
    pub fn populate(
        self,
        world: &mut MotionWorld,
        n: usize,
    ) -> Result<(), Box<dyn std::error::Error>> {
        match self {
            Workload::Mixed => {
                workload::populate(world, n, false)?;
            }
            Workload::AllF32 => {
                world.reserve(n);
                for i in 0..n {
                    let h = Motion::new(0.0f32, i as f32, 2.0)
                        .ease(Ease::OutQuad)
                        .loops(-1, LoopType::Restart)
                        .run(world)?;
                    world.set_time(h, (i % 1000) as f64 * 0.002)?;
                }
            }
        }
        Ok(())
    }
}

/// One workload's roofline.
#[derive(Clone, Debug, Serialize)]
pub struct Roofline {
    /// The workload.
    pub workload: Workload,
    /// Bytes the evaluate pass reads per motion.
    pub read_per_motion: f64,
    /// Bytes it writes per motion.
    pub written_per_motion: f64,
    /// The share of 32-row warps whose rows take one path.
    pub coherence: f64,
    /// The share of rows the general pipeline variant evaluates.
    pub general_share: f64,
    /// Evaluate dispatches of a steady update.
    pub evaluate_dispatches: u32,
    /// Every dispatch of a steady update.
    pub dispatches: u32,
    /// Bytes uploaded (`write_buffer`) by a steady update.
    pub uploaded_bytes: u64,
    /// Per (GPU, motions): the bandwidth-bound time of one pass, µs.
    pub bounds_us: Vec<(String, u64, f64)>,
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// The roofline of `workload` (a world of [`PROFILE_MOTIONS`] motions).
///
/// # Errors
/// If the world cannot be made or updated on the `noop` device.
pub fn measure(workload: Workload) -> Result<Roofline, Box<dyn std::error::Error>> {
    let (device, queue) = wgpu::Device::noop(&wgpu::DeviceDescriptor::default());
    let info = device.adapter_info();
    let mut world = MotionWorld::with_gpu(GpuContext::from_device(device, queue, info))?;
    world.set_executor(Executor::Gpu)?;
    workload.populate(&mut world, PROFILE_MOTIONS)?;
    for _ in 0..3 {
        world.update(workload::DT)?;
    }
    let steady = world
        .gpu()
        .update_stats()
        .ok_or("no GPU stats on the noop device")?;
    let profile: EvaluateProfile = world.evaluate_profile();
    let rows = profile.rows.max(1) as f64;
    let mut roofline = Roofline {
        workload,
        read_per_motion: profile.bytes_read as f64 / rows,
        written_per_motion: profile.bytes_written as f64 / rows,
        coherence: profile.coherence(),
        general_share: share(profile.general_rows, profile.rows),
        evaluate_dispatches: steady.evaluate_dispatches,
        dispatches: steady.dispatches,
        uploaded_bytes: steady.bytes_written,
        bounds_us: Vec::new(),
    };
    roofline.bounds_us = (GPUS.iter())
        .flat_map(|&(gpu, bandwidth)| {
            let r = &roofline;
            BOUND_MOTIONS
                .iter()
                .map(move |&n| (gpu.to_string(), n, r.bound_us(n, bandwidth)))
        })
        .collect();
    Ok(roofline)
}

impl Roofline {
    /// The least time of one pass over `motions` motions of this workload on memory of
    /// `bytes_per_second`, µs (its bytes per motion moved at that bandwidth).
    #[must_use]
    pub fn bound_us(&self, motions: u64, bytes_per_second: f64) -> f64 {
        let bytes = (self.read_per_motion + self.written_per_motion) * motions as f64;
        bytes / bytes_per_second * 1e6
    }
}

/// The table header of [`format_row`].
#[must_use]
pub fn header() -> String {
    let mut line = format!(
        "{:<9} {:>8} {:>8} {:>9} {:>8} {:>10} {:>10}",
        "workload", "read B/m", "write B/m", "coherent", "general", "dispatches", "uploaded B"
    );
    for (gpu, _) in GPUS {
        for n in BOUND_MOTIONS {
            line.push_str(&format!(" {:>12}", format!("{gpu} {}M µs", n / 1_000_000)));
        }
    }
    line
}

/// One workload's line.
#[must_use]
pub fn format_row(r: &Roofline) -> String {
    let mut line = format!(
        "{:<9} {:>8.1} {:>8.1} {:>8.1}% {:>7.1}% {:>10} {:>10}",
        r.workload.name(),
        r.read_per_motion,
        r.written_per_motion,
        r.coherence * 100.0,
        r.general_share * 100.0,
        format!("{}/{}", r.evaluate_dispatches, r.dispatches),
        r.uploaded_bytes
    );
    for (_, _, us) in &r.bounds_us {
        line.push_str(&format!(" {us:>12.1}"));
    }
    line
}
