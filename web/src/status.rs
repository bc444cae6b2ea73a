//! What the page tells its reader and the test harness: `window.__swarm` (executor, frames,
//! particles, adapter, error), the caption under the canvas, and the browser console.
//!
//! Nothing here panics: a page whose DOM lacks an element simply shows less.

use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;
use web_sys::console;

/// The name of the global status object the harness polls.
const GLOBAL: &str = "__swarm";

/// The status object on `window` and the caption element.
#[derive(Clone)]
pub struct Status {
    object: Object,
    caption: Option<web_sys::Element>,
}

impl Status {
    /// Creates `window.__swarm` (executor `"none"` until one runs, no frames, no error) and
    /// finds the caption (`#caption`).
    pub fn install(particles: usize) -> Self {
        let object = Object::new();
        let status = Self {
            object,
            caption: document().and_then(|d| d.get_element_by_id("caption")),
        };
        status.set("executor", &"none".into());
        status.set("frames", &0.into());
        status.set("particles", &(particles as f64).into());
        status.set("error", &JsValue::NULL);
        if let Some(window) = web_sys::window() {
            let _ = Reflect::set(&window, &GLOBAL.into(), &status.object);
        }
        status
    }

    fn set(&self, key: &str, value: &JsValue) {
        // Setting a property of a plain object cannot fail; the result is moot.
        let _ = Reflect::set(&self.object, &key.into(), value);
    }

    /// Records the executor that runs the motions (`"gpu"` or `"cpu"`) and the adapter.
    pub fn set_executor(&self, executor: &str, adapter: &str) {
        self.set("executor", &executor.into());
        self.set("adapter", &adapter.into());
    }

    /// Records the executor alone (the GPU world may have moved to the CPU executor).
    pub fn set_executor_only(&self, executor: &str) {
        self.set("executor", &executor.into());
    }

    /// Records how many frames have been drawn.
    pub fn set_frames(&self, frames: u32) {
        self.set("frames", &frames.into());
    }

    /// Shows `text` in the caption (the executor, the particle count, the frame rate).
    pub fn caption(&self, text: &str) {
        if let Some(caption) = &self.caption {
            caption.set_text_content(Some(text));
        }
    }

    /// Records an error: logged to the console, kept in `__swarm.error` (the first one, the
    /// cause; later ones are usually its consequences) and shown in the caption.
    pub fn error(&self, message: &str) {
        error(message);
        let first = Reflect::get(&self.object, &"error".into())
            .map(|e| e.is_null() || e.is_undefined())
            .unwrap_or(true);
        if first {
            self.set("error", &message.into());
        }
        if let Some(caption) = &self.caption {
            caption.set_text_content(Some(&format!("error: {message}")));
            let _ = caption.set_attribute("class", "error");
        }
    }
}

/// Records an error where no [`Status`] is at hand (a device-lost callback, the panic hook):
/// through the global object, found again on `window`.
pub fn global_error(message: &str) {
    error(message);
    let Some(window) = web_sys::window() else {
        return;
    };
    if let Ok(object) = Reflect::get(&window, &GLOBAL.into()) {
        if object.is_object() {
            let old = Reflect::get(&object, &"error".into()).unwrap_or(JsValue::NULL);
            if old.is_null() || old.is_undefined() {
                let _ = Reflect::set(&object, &"error".into(), &message.into());
            }
        }
    }
}

/// The page's document, if there is one.
pub fn document() -> Option<web_sys::Document> {
    web_sys::window().and_then(|w| w.document())
}

/// Logs `message` to the console as an error.
pub fn error(message: &str) {
    console::error_1(&message.into());
}

/// Logs `message` to the console.
pub fn info(message: &str) {
    console::log_1(&message.into());
}

/// Sends panics to the console and `__swarm.error`: on wasm a panic aborts the module, and
/// the default hook prints to a stderr the browser does not have.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| global_error(&format!("panic: {info}"))));
}

/// A `log` logger writing to the console: wgpu's warnings and errors, and wgpu-tween's
/// records from `info` up (its `log` feature: the executor chosen and why, GPU faults and
/// fallbacks).
struct ConsoleLogger;

impl log::Log for ConsoleLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Warn
            || (metadata.level() <= log::Level::Info && metadata.target().starts_with("wgpu_tween"))
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let line = format!(
            "[{}] {}: {}",
            record.level(),
            record.target(),
            record.args()
        );
        match record.level() {
            log::Level::Error => console::error_1(&line.into()),
            log::Level::Warn => console::warn_1(&line.into()),
            _ => console::log_1(&line.into()),
        }
    }

    fn flush(&self) {}
}

/// Installs the console logger; a second call keeps the first logger.
pub fn install_logger() {
    static LOGGER: ConsoleLogger = ConsoleLogger;
    if log::set_logger(&LOGGER).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
}
