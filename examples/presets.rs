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
    // A template: run it twice, half a second apart.
    blink.clone().run(&mut world)?;
    world.update(0.5)?;
    blink.run(&mut world)?;
    for frame in 0..4 {
        world.update(0.25)?;
        let values: Vec<String> = handles
            .iter()
            .filter_map(|(name, h)| Some(format!("{name} {:6.2}", world.value::<f32>(*h).ok()?)))
            .collect();
        let opacities: Vec<f32> = rx.try_iter().collect();
        println!(
            "frame {frame}: {} | opacities {opacities:?}",
            values.join(", ")
        );
    }
    Ok(())
}
