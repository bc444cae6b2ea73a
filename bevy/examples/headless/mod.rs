//! What the examples share: a window, or with `--frames N` no window at all: N frames of
//! exactly 1/60 s rendered into an image, written as a PNG (`--out PATH`, by default
//! `target/<example>.png`).

use std::path::PathBuf;
use std::time::Duration;

use bevy::camera::RenderTarget;
use bevy::prelude::*;
use bevy::render::pipelined_rendering::PipelinedRenderingPlugin;
use bevy::render::render_resource::TextureFormat;
use bevy::render::view::screenshot::{save_to_disk, Screenshot};
use bevy::time::TimeUpdateStrategy;
use bevy::window::ExitCondition;

/// The size of the headless image.
pub const SIZE: UVec2 = UVec2::new(640, 360);

/// How an example runs.
pub struct Run {
    /// `Some(n)`: headless, `n` frames, then a PNG at `out`.
    pub frames: Option<u32>,
    pub out: PathBuf,
}

/// The value after `flag` on the command line, parsed (`None` when absent or unparsable).
pub fn flag<T: std::str::FromStr>(flag: &str) -> Option<T> {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == flag)?;
    args.get(at + 1)?.parse().ok()
}

impl Run {
    pub fn from_args(example: &str) -> Self {
        let frames = flag("--frames");
        let out = flag("--out").unwrap_or_else(|| format!("target/{example}.png").into());
        Self { frames, out }
    }

    /// An app with Bevy's default plugins for this run (no window when headless).
    pub fn app(&self) -> App {
        let mut app = App::new();
        let headless = self.frames.is_some();
        let window = WindowPlugin {
            primary_window: (!headless).then(Window::default),
            exit_condition: if headless {
                ExitCondition::DontExit
            } else {
                ExitCondition::OnAllClosed
            },
            ..default()
        };
        // One frame rendered per update, in order: no pipelined rendering.
        let plugins = DefaultPlugins
            .set(window)
            .disable::<PipelinedRenderingPlugin>();
        #[cfg(feature = "window")]
        let plugins = if headless {
            plugins.disable::<bevy::winit::WinitPlugin>()
        } else {
            plugins
        };
        app.add_plugins(plugins);
        if headless {
            app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
                1.0 / 60.0,
            )));
            let mut image =
                Image::new_target_texture(SIZE.x, SIZE.y, TextureFormat::Rgba8UnormSrgb, None);
            image.texture_descriptor.label = Some("headless target");
            let handle = app.world_mut().resource_mut::<Assets<Image>>().add(image);
            app.insert_resource(HeadlessTarget(handle));
        }
        app
    }

    /// Runs the app: in a window until it is closed, or headless for the frames asked,
    /// then writes the PNG.
    pub fn run(&self, mut app: App) {
        let Some(frames) = self.frames else {
            if cfg!(feature = "window") {
                app.run();
            } else {
                eprintln!("built without the `window` feature: run with `--frames N` for a PNG");
            }
            return;
        };
        app.finish();
        app.cleanup();
        for _ in 0..frames {
            app.update();
        }
        let target = app.world().resource::<HeadlessTarget>().0.clone();
        // A PNG left by an earlier run would pass for this one's before it is written.
        if let Err(e) = std::fs::remove_file(&self.out) {
            if e.kind() != std::io::ErrorKind::NotFound {
                eprintln!("cannot replace {}: {e}", self.out.display());
                std::process::exit(1);
            }
        }
        app.world_mut()
            .spawn(Screenshot::image(target))
            .observe(save_to_disk(self.out.clone()));
        // The capture is read back a few frames later.
        for _ in 0..30 {
            app.update();
            if self.out.exists() {
                println!("wrote {}", self.out.display());
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        eprintln!("no screenshot came back");
        std::process::exit(1);
    }
}

/// The image a headless run renders into.
#[derive(Resource)]
pub struct HeadlessTarget(pub Handle<Image>);

/// Where a camera renders: the headless image, or the window.
pub fn camera_target(headless: Option<Res<HeadlessTarget>>) -> RenderTarget {
    match headless {
        Some(t) => RenderTarget::Image(t.0.clone().into()),
        None => RenderTarget::default(),
    }
}
