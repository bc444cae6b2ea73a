//! Shared test helpers: which executors to run, GPU contexts, a test RNG.

#![allow(dead_code)]

use std::sync::Once;

use wgpu_tween::MotionWorld;
#[cfg(feature = "gpu")]
use wgpu_tween::{gpu::GpuContext, Executor};

/// The GPU contexts and buffers of the tests (feature `gpu`).
#[cfg(feature = "gpu")]
mod gpu;
#[cfg(feature = "gpu")]
pub use gpu::*;

/// An executor under test.
#[derive(Clone, Debug)]
pub enum Exec {
    Cpu,
    #[cfg(feature = "gpu")]
    Gpu(Box<GpuContext>),
}

impl Exec {
    pub fn name(&self) -> &'static str {
        match self {
            Exec::Cpu => "cpu",
            #[cfg(feature = "gpu")]
            Exec::Gpu(ctx)
                if ctx.device().limits().max_storage_buffer_binding_size <= PAGED_BINDING =>
            {
                "gpu-paged"
            }
            #[cfg(feature = "gpu")]
            Exec::Gpu(_) => "gpu",
        }
    }

    /// A new world on this executor.
    pub fn world(&self) -> MotionWorld {
        match self {
            Exec::Cpu => MotionWorld::new(),
            #[cfg(feature = "gpu")]
            Exec::Gpu(ctx) => {
                let mut world = MotionWorld::with_gpu((**ctx).clone()).expect("GPU world");
                world.set_executor(Executor::Gpu).expect("GPU executor");
                world
            }
        }
    }
}

/// Whether GPU tests must fail rather than skip without an adapter.
pub fn gpu_required() -> bool {
    std::env::var("WGPU_TWEEN_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Executors a test should run, from `WGPU_TWEEN_EXECUTOR` (`cpu`, `gpu`, `all`; default all
/// available). `gpu` is the shared context and [`gpu_paged`] (a table split into pages).
pub fn executors() -> Vec<Exec> {
    let choice = std::env::var("WGPU_TWEEN_EXECUTOR").unwrap_or_default();
    let want_cpu = matches!(choice.as_str(), "" | "all" | "cpu");
    let want_gpu = matches!(choice.as_str(), "" | "all" | "gpu");
    assert!(
        want_cpu || want_gpu,
        "WGPU_TWEEN_EXECUTOR must be cpu, gpu or all, got {choice:?}"
    );
    let mut out = Vec::new();
    if want_cpu {
        out.push(Exec::Cpu);
    }
    #[cfg(feature = "gpu")]
    if want_gpu {
        match gpu() {
            Some(ctx) => {
                out.push(Exec::Gpu(Box::new(ctx)));
                // And a table split into pages of 256 rows.
                if let Some(ctx) = gpu_paged() {
                    out.push(Exec::Gpu(Box::new(ctx)));
                }
            }
            None if choice == "gpu" => panic!("WGPU_TWEEN_EXECUTOR=gpu but no GPU adapter"),
            None => {}
        }
    }
    out
}

/// Panics raised on purpose by tests carry this text; [`quiet_intentional_panics`] keeps them
/// off stderr.
pub const INTENTIONAL: &str = "intentional test panic";

/// Panics (intentionally) when dropped: state a callback captures, to test drops that panic.
pub struct PanicOnDrop;

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        panic!("{INTENTIONAL}: drop");
    }
}

/// What every deliberate panic's message contains (the fuzz interpreter's included).
const INTENTIONAL_MARK: &str = "intentional";

/// Installs (once) a panic hook that drops panics whose message says they are intentional
/// and passes every other one to the previous hook.
pub fn quiet_intentional_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("");
            if !message.contains(INTENTIONAL_MARK) {
                previous(info);
            }
        }));
    });
}

/// SplitMix64: a small deterministic generator for randomised tests.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// A motion's value now as lanes (`lanes` of them: f32, Vec2, Vec3 or Vec4), from the world's
/// f64 evaluation of its anchor.
pub fn value_lanes(
    world: &MotionWorld,
    handle: wgpu_tween::MotionHandle,
    lanes: usize,
) -> [f32; 4] {
    use wgpu_tween::Animatable;
    match lanes {
        1 => world.value::<f32>(handle).expect("live").to_lanes(),
        2 => world.value::<glam::Vec2>(handle).expect("live").to_lanes(),
        3 => world.value::<glam::Vec3>(handle).expect("live").to_lanes(),
        _ => world.value::<glam::Vec4>(handle).expect("live").to_lanes(),
    }
}
