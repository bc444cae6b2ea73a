//! The JSON report (`--json PATH`): one row per executor and N.

use serde::Serialize;

/// Schema version of [`Report`].
pub const VERSION: u32 = 2;

/// Everything one run measured.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Schema version ([`VERSION`]).
    pub version: u32,
    /// Seconds since the Unix epoch when the run started.
    pub started_unix: u64,
    /// Logical CPU cores.
    pub cores: usize,
    /// `--frames` (frames per measurement round; a quarter of it at N ≥ 1M).
    pub frames: u32,
    /// Frame delta in seconds.
    pub dt: f64,
    /// What the GPU probe found, in one line.
    pub gpu: String,
    /// How GPU time per pass is measured.
    pub gpu_time_method: String,
    /// The workload, in words.
    pub workload: String,
    /// One row per executor and N.
    pub rows: Vec<Row>,
    /// The roofline of the GPU evaluate pass per workload.
    pub rooflines: Vec<crate::roofline::Roofline>,
}

/// One executor at one N.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    /// `cpu` or `gpu`.
    pub executor: String,
    /// Adapter name (the GPU's, or the host CPU's model for the CPU executor).
    pub adapter: String,
    /// Adapter type (`DiscreteGpu`, `IntegratedGpu`, `Cpu` for a software adapter, ... or
    /// `host` for the CPU executor).
    pub adapter_type: String,
    /// wgpu backend (GPU executor only).
    pub backend: Option<String>,
    /// CPU executor threads (0 for the GPU executor).
    pub threads: usize,
    /// Motions.
    pub n: usize,
    /// Updates measured (after warm-up).
    pub frames_measured: u32,
    /// Creating the motions, ns per motion.
    pub create_ns_per_motion: f64,
    /// Wall time of one update (GPU: including the wait for the GPU) per motion, ns.
    pub ns_per_motion: f64,
    /// Time inside `MotionWorld::update` per update, µs (GPU: recording and submission).
    pub cpu_update_us: f64,
    /// GPU time per pass, µs (GPU executor only; see `Report::gpu_time_method`).
    pub gpu_pass_us: Option<f64>,
    /// Whether `gpu_pass_us` comes from timestamp queries (else: update wall time plus a
    /// blocking poll). GPU executor only.
    pub gpu_pass_timestamps: Option<bool>,
    /// Extra time per update when `readback_bound` of the N motions have a CPU bind
    /// (GPU: gather, copy, map and deliver; CPU: the bind calls), µs.
    pub readback_us: f64,
    /// Motions with a CPU bind in the readback measurement.
    pub readback_bound: usize,
    /// What the floor is.
    pub floor: String,
    /// The floor's ns per motion per update, measured in the same run at the same N.
    pub floor_ns_per_motion: f64,
    /// `ns_per_motion / floor_ns_per_motion`.
    pub ratio: f64,
    /// A GPU error the run hit (the world then fell back to the CPU), if any.
    pub error: Option<String>,
}
