//! `--window` (cargo feature `window`): the swarm in a winit window, animated in real time.
//! Prints frames per second and motions per second once a second; Escape or closing the
//! window quits (or `--frames N`, given explicitly, after N frames).

use std::error::Error;
use std::sync::Arc;
use std::time::{Duration, Instant};

use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use wgpu_tween::gpu::GpuContext;
use wgpu_tween::Executor;

use super::render::{self, Swarm};

/// What the window shows.
pub struct Settings {
    /// Particles.
    pub particles: usize,
    /// Seed of the particles.
    pub seed: u64,
    /// Initial window size.
    pub size: (u32, u32),
    /// Point size in pixels.
    pub point: f32,
    /// Executor of the world.
    pub executor: Executor,
    /// Quit after this many frames (`None`: when closed).
    pub frames: Option<u32>,
}

struct State {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    swarm: Swarm,
    last: Instant,
    frames: u32,
    since: Instant,
    updates: Duration,
    counted: u32,
}

impl State {
    fn new(event_loop: &ActiveEventLoop, settings: &Settings) -> Result<Self, Box<dyn Error>> {
        let (width, height) = settings.size;
        let window = Arc::new(
            event_loop.create_window(
                Window::default_attributes()
                    .with_title("wgpu-tween swarm")
                    .with_inner_size(PhysicalSize::new(width, height)),
            )?,
        );
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
                Box::new(event_loop.owned_display_handle()),
            ));
        let surface = instance.create_surface(Arc::clone(&window))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            compatible_surface: Some(&surface),
            ..Default::default()
        }))?;
        let supported = adapter.limits();
        let (device, queue) = pollster::block_on(
            adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("swarm window"),
                required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
                required_limits: wgpu::Limits {
                    max_storage_buffer_binding_size: supported.max_storage_buffer_binding_size,
                    max_buffer_size: supported.max_buffer_size,
                    ..wgpu::Limits::default()
                }
                .or_worse_values_from(&supported),
                ..Default::default()
            }),
        )?;
        let info = adapter.get_info();
        println!(
            "adapter: {} ({:?}, {:?})",
            info.name, info.device_type, info.backend
        );
        let size = window.inner_size();
        let config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or("the adapter cannot present to this window")?;
        surface.configure(&device, &config);
        let ctx = GpuContext::from_device(device, queue, info);
        let particles = render::particles(settings.particles, settings.seed);
        let swarm = Swarm::with_format(
            &ctx,
            &particles,
            settings.executor,
            (config.width, config.height),
            settings.point,
            config.format,
        )?;
        println!(
            "{} particles, {} motions, {:?} executor; Escape quits",
            settings.particles,
            swarm.world.len(),
            swarm.world.active_executor()
        );
        let now = Instant::now();
        Ok(Self {
            window,
            surface,
            config,
            swarm,
            last: now,
            frames: 0,
            since: now,
            updates: Duration::ZERO,
            counted: 0,
        })
    }

    fn resize(&mut self, size: PhysicalSize<u32>) {
        if size.width > 0 && size.height > 0 {
            self.config.width = size.width;
            self.config.height = size.height;
            self.surface
                .configure(self.swarm.ctx.device(), &self.config);
            self.swarm.set_viewport(size.width, size.height);
        }
    }

    /// One frame: update by the real time since the last one, draw, present.
    fn frame(&mut self) -> Result<(), Box<dyn Error>> {
        let now = Instant::now();
        let dt = (now - self.last).as_secs_f64().min(0.1);
        self.last = now;
        self.swarm.update(dt)?;
        self.updates += now.elapsed();
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t) => t,
            wgpu::CurrentSurfaceTexture::Suboptimal(t) => {
                self.surface
                    .configure(self.swarm.ctx.device(), &self.config);
                t
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(());
            }
            other => {
                // Outdated or lost: configure again and skip this frame.
                let _ = other;
                self.surface
                    .configure(self.swarm.ctx.device(), &self.config);
                return Ok(());
            }
        };
        let view = texture
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        self.swarm.render_to(&view);
        self.window.pre_present_notify();
        self.swarm.ctx.queue().present(texture);
        self.frames += 1;
        self.counted += 1;
        let elapsed = self.since.elapsed();
        if elapsed >= Duration::from_secs(1) {
            let motions = self.swarm.world.len() as f64;
            println!(
                "{:.1} frames/s, update {:.2} ms (CPU side), {:.1} M motions/s",
                f64::from(self.counted) / elapsed.as_secs_f64(),
                self.updates.as_secs_f64() * 1e3 / f64::from(self.counted),
                motions * f64::from(self.counted) / elapsed.as_secs_f64() / 1e6
            );
            self.since = Instant::now();
            self.updates = Duration::ZERO;
            self.counted = 0;
        }
        Ok(())
    }
}

struct App {
    settings: Settings,
    state: Option<State>,
    error: Option<Box<dyn Error>>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        match State::new(event_loop, &self.settings) {
            Ok(state) => self.state = Some(state),
            Err(e) => {
                self.error = Some(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(state) = &mut self.state else {
            return;
        };
        match event {
            WindowEvent::CloseRequested
            | WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        logical_key: Key::Named(NamedKey::Escape),
                        state: ElementState::Pressed,
                        ..
                    },
                ..
            } => event_loop.exit(),
            WindowEvent::Resized(size) => state.resize(size),
            WindowEvent::RedrawRequested => {
                if let Err(e) = state.frame() {
                    self.error = Some(e);
                    event_loop.exit();
                } else if self.settings.frames.is_some_and(|n| state.frames >= n) {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(state) = &self.state {
            state.window.request_redraw();
        }
    }
}

/// Opens the window and runs until it is closed.
pub fn run(settings: Settings) -> Result<(), Box<dyn Error>> {
    let event_loop = EventLoop::new()?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App {
        settings,
        state: None,
        error: None,
    };
    event_loop.run_app(&mut app)?;
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
