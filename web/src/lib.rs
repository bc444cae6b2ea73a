//! wgpu-tween in the browser: the swarm of `examples/swarm.rs` drawn in a `<canvas>`.
//!
//! Every particle has a position and a color motion writing into one instance array. With
//! WebGPU the array is a GPU buffer that the GPU executor writes in a compute pass and one
//! instanced draw renders ([`render`]); without it (no `navigator.gpu`, no adapter, no
//! device) the CPU executor writes a host array that Canvas 2D shows ([`canvas2d`]).
//!
//! `index.html` calls [`start`] (not a `#[wasm_bindgen(start)]`, so the browser tests can
//! link this crate without a swarm starting). Query options: `?particles=N` (default 20000)
//! and `?executor=gpu|cpu|auto` (default auto: WebGPU if it works, else the CPU fallback;
//! `gpu` shows the error instead of falling back). The page reports in
//! `window.__swarm = { executor, adapter, particles, frames, error }`, the caption
//! (`#caption`) and the console. Built by `scripts/web-build`.
//!
//! Built for wasm32 only: elsewhere the crate is empty, so that workspace-wide builds pass.

#![cfg(target_arch = "wasm32")]

pub mod canvas2d;
pub mod render;
pub mod status;
pub mod swarm;

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;
use wgpu_tween::{Executor, MotionWorld};

use crate::canvas2d::CpuSwarm;
use crate::render::GpuSwarm;
use crate::status::Status;

/// Particles without `?particles=`.
const DEFAULT_PARTICLES: usize = 20_000;
/// The most particles the query may ask for (the native example's limit).
const MAX_PARTICLES: usize = 4_000_000;
/// The longest time step, in seconds: after a stall (a hidden tab) the swarm resumes where
/// it was instead of jumping ahead.
const MAX_DT: f64 = 0.1;

/// The page's options, from its query string.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// Particles (two motions each).
    pub particles: usize,
    /// `Gpu`: WebGPU or an error; `Cpu`: the Canvas 2D path; `Auto`: WebGPU, else Canvas 2D.
    pub executor: Executor,
}

/// Parses a query string (`?particles=N&executor=gpu|cpu|auto`, the `?` optional). Unknown
/// keys are ignored; a bad value is an error.
pub fn parse_query(query: &str) -> Result<Options, String> {
    let mut options = Options {
        particles: DEFAULT_PARTICLES,
        executor: Executor::Auto,
    };
    for pair in query.trim_start_matches('?').split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "particles" => {
                options.particles = value
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_PARTICLES).contains(n))
                    .ok_or_else(|| {
                        format!(
                            "?particles= takes a count from 1 to {MAX_PARTICLES}, not {value:?}"
                        )
                    })?;
            }
            "executor" => {
                options.executor = match value {
                    "gpu" => Executor::Gpu,
                    "cpu" => Executor::Cpu,
                    "auto" => Executor::Auto,
                    _ => return Err(format!("?executor= takes gpu, cpu or auto, not {value:?}")),
                };
            }
            _ => {}
        }
    }
    Ok(options)
}

/// The swarm on either path (boxed: a world is a few KiB, moved into the frame closure).
enum Swarm {
    Gpu(Box<GpuSwarm>),
    Cpu(Box<CpuSwarm>),
}

/// Where the frame closure lives, so that it can request itself again.
type FrameSlot = Rc<RefCell<Option<Closure<dyn FnMut()>>>>;

impl Swarm {
    fn world(&self) -> &MotionWorld {
        match self {
            Self::Gpu(s) => &s.world,
            Self::Cpu(s) => &s.world,
        }
    }

    fn resize(&mut self, width: u32, height: u32) {
        match self {
            Self::Gpu(s) => s.resize(width, height),
            Self::Cpu(s) => s.resize(width, height),
        }
    }

    fn frame(&mut self, dt: f64) -> Result<(), String> {
        match self {
            Self::Gpu(s) => s.frame(dt),
            Self::Cpu(s) => s.frame(dt),
        }
    }

    /// `"gpu"` or `"cpu"`: the executor that evaluates the motions now.
    fn executor(&self) -> &'static str {
        match self.world().active_executor() {
            Executor::Gpu => "gpu",
            _ => "cpu",
        }
    }

    /// How the frames are drawn.
    fn drawn_with(&self) -> &'static str {
        match self {
            Self::Gpu(_) => "WebGPU",
            Self::Cpu(_) => "Canvas 2D",
        }
    }
}

/// Starts the swarm on the page's `#swarm` canvas. Errors are shown, never thrown.
#[wasm_bindgen]
pub fn start() {
    status::install_panic_hook();
    status::install_logger();
    wasm_bindgen_futures::spawn_local(async {
        if let Err(e) = run().await {
            status::global_error(&e);
        }
    });
}

/// Sets up the swarm (WebGPU or the fallback) and starts its frames.
async fn run() -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let query = window.location().search().unwrap_or_default();
    let options = parse_query(&query);
    let status = Status::install(options.as_ref().map_or(DEFAULT_PARTICLES, |o| o.particles));
    let options = options.inspect_err(|e| status.error(e))?;
    let mut canvas = find_canvas()?;
    let dpr = window.device_pixel_ratio().max(1.0);
    fit_canvas(&canvas, dpr);
    let particles = swarm::particles(options.particles, swarm::SEED);
    let point_px = swarm::POINT_PX * dpr as f32;
    let (swarm, adapter) = match options.executor {
        Executor::Cpu => (
            Swarm::Cpu(Box::new(CpuSwarm::new(&canvas, &particles, point_px)?)),
            "none (?executor=cpu)".to_owned(),
        ),
        Executor::Gpu => {
            let (swarm, adapter) = GpuSwarm::new(&canvas, &particles, point_px).await?;
            (Swarm::Gpu(Box::new(swarm)), adapter)
        }
        Executor::Auto => match GpuSwarm::new(&canvas, &particles, point_px).await {
            Ok((swarm, adapter)) => (Swarm::Gpu(Box::new(swarm)), adapter),
            Err(e) => {
                status::info(&format!(
                    "no WebGPU ({e}): the CPU executor draws with Canvas 2D"
                ));
                // A canvas that gave a "webgpu" context gives no "2d" one: take a new one.
                canvas = replace_canvas(&canvas)?;
                fit_canvas(&canvas, dpr);
                let fallback = CpuSwarm::new(&canvas, &particles, point_px)?;
                (Swarm::Cpu(Box::new(fallback)), format!("none ({e})"))
            }
        },
    };
    status.set_executor(swarm.executor(), &adapter);
    if let Some(document) = status::document() {
        document.set_title(&format!("wgpu-tween swarm ({})", swarm.executor()));
    }
    let describe = format!(
        "{} particles ({} motions), {} executor, drawn with {}",
        options.particles,
        swarm.world().len(),
        swarm.executor().to_uppercase(),
        swarm.drawn_with()
    );
    status::info(&format!("wgpu-tween swarm: {describe}; adapter: {adapter}"));
    status.caption(&describe);
    animate(swarm, canvas, dpr, status, describe);
    Ok(())
}

/// The page's `#swarm` canvas.
fn find_canvas() -> Result<HtmlCanvasElement, String> {
    status::document()
        .and_then(|d| d.get_element_by_id("swarm"))
        .ok_or("the page has no #swarm canvas")?
        .dyn_into::<HtmlCanvasElement>()
        .map_err(|_| "#swarm is not a canvas".into())
}

/// Replaces `canvas` by a new one with its id and class, and returns the new one.
fn replace_canvas(canvas: &HtmlCanvasElement) -> Result<HtmlCanvasElement, String> {
    let fresh = status::document()
        .ok_or("no document")?
        .create_element("canvas")
        .map_err(|e| format!("cannot make a canvas: {e:?}"))?
        .dyn_into::<HtmlCanvasElement>()
        .map_err(|_| "a <canvas> that is no canvas")?;
    fresh.set_id(&canvas.id());
    fresh.set_class_name(&canvas.class_name());
    canvas
        .replace_with_with_node_1(&fresh)
        .map_err(|e| format!("cannot replace the canvas: {e:?}"))?;
    Ok(fresh)
}

/// Sizes the canvas's pixels to its CSS box (times the device pixel ratio); returns that
/// size.
fn fit_canvas(canvas: &HtmlCanvasElement, dpr: f64) -> (u32, u32) {
    let css = |len: i32| (f64::from(len.max(1)) * dpr).round() as u32;
    let size = (css(canvas.client_width()), css(canvas.client_height()));
    if (canvas.width(), canvas.height()) != size {
        canvas.set_width(size.0);
        canvas.set_height(size.1);
    }
    size
}

/// Runs the frames from `requestAnimationFrame`, each advancing the motions by the time
/// since the last (`performance.now()`), until an error, which is shown.
fn animate(
    mut swarm: Swarm,
    canvas: HtmlCanvasElement,
    dpr: f64,
    status: Status,
    describe: String,
) {
    let performance = web_sys::window().and_then(|w| w.performance());
    let now = move || performance.as_ref().map_or(0.0, |p| p.now() / 1e3);
    let (mut last, mut frames) = (now(), 0u32);
    let (mut second, mut in_second) = (last, 0u32);
    // The closure requests itself again: it owns the slot it lives in, a cycle that lasts
    // as long as the page.
    let slot: FrameSlot = Rc::new(RefCell::new(None));
    let again = Rc::clone(&slot);
    *slot.borrow_mut() = Some(Closure::new(move || {
        let t = now();
        let dt = (t - last).clamp(0.0, MAX_DT);
        last = t;
        let (width, height) = fit_canvas(&canvas, dpr);
        swarm.resize(width, height);
        if let Err(e) = swarm.frame(dt) {
            status.error(&e);
            return;
        }
        frames += 1;
        in_second += 1;
        status.set_frames(frames);
        if t - second >= 1.0 {
            let fps = f64::from(in_second) / (t - second);
            status.caption(&format!("{describe}, {fps:.0} frames/s"));
            status.set_executor_only(swarm.executor());
            (second, in_second) = (t, 0);
        }
        request_frame(&again);
    }));
    request_frame(&slot);
}

/// Asks for the next animation frame to call the closure in `slot`.
fn request_frame(slot: &FrameSlot) {
    let Some(window) = web_sys::window() else {
        return;
    };
    if let Some(callback) = slot.borrow().as_ref() {
        if let Err(e) = window.request_animation_frame(callback.as_ref().unchecked_ref()) {
            status::global_error(&format!("requestAnimationFrame failed: {e:?}"));
        }
    }
}
