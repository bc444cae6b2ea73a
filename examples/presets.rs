//! Presets and a sequence loaded from a data file (`examples/data/ui.json`), then played:
//! `cargo run --release --features serde --example presets`.

use std::collections::BTreeMap;
use std::sync::mpsc;

use wgpu_tween::{Motion, MotionSettings, MotionWorld, SequenceData};

/// The data file's layout: named motion settings, and a sequence of opacities.
#[derive(serde::Deserialize)]
struct Ui {
    presets: BTreeMap<String, MotionSettings>,
    blink: SequenceData<f32>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Bad data is a serde error here (and bad settings a `BuildError` when run), never a panic.
    let ui: Ui = serde_json::from_str(include_str!("data/ui.json"))?;
    let mut world = MotionWorld::new();
    let mut handles = Vec::new();
    for (name, preset) in &ui.presets {
        let h = Motion::new(0.0f32, 100.0, 1.0)
            .with_settings(preset)
            .run(&mut world)?;
        handles.push((name, h));
    }
    let (tx, rx) = mpsc::channel();
    let blink = ui.blink.sequence(move |opacity| {
        let _ = tx.send(opacity);
    });
    // A template: run now and again at 0.5 s. Both runs bind the same opacity: the later
    // run binds last (creation order), so its value shows once it has started.
    blink.clone().run(&mut world)?;
    for frame in 1..=12 {
        if frame == 5 {
            blink.clone().run(&mut world)?;
        }
        world.update(0.125)?;
        let values: Vec<String> = handles
            .iter()
            .map(|(name, h)| match world.value::<f32>(*h) {
                Ok(v) => format!("{name} {v:6.2}"),
                Err(_) => format!("{name}   done"), // completed and removed
            })
            .collect();
        let opacity = rx.try_iter().last().unwrap_or(f32::NAN);
        let t = f64::from(frame) * 0.125;
        println!("t={t:.3}  {}  | opacity {opacity:.2}", values.join("  "));
    }
    Ok(())
}
